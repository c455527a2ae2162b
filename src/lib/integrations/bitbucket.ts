/**
 * Bitbucket Cloud (/api/v1/external/bitbucket2), and Bitbucket Server below: what happened is read from
 * the payload's keys (a push, a fork, a commit's comment or build status, an
 * issue), and for pull requests and repository changes from the
 * X-Event-Key header; Zulip's topics and texts. A push names each change
 * (a branch's commits, a force push, a deleted branch, a tag pushed or
 * removed) in its own message; the `branches` option (branch names,
 * comma-separated) holds back pushes whose last branch it does not name.
 */
import type { Wild } from './wild.ts';
import { pyStr } from './wild.ts';
import {
  TOPIC_WITH_BRANCH,
  TOPIC_WITH_PR_OR_ISSUE_INFO,
  branchNotifiable,
  commitsCommentMessage,
  issueMessage,
  pullRequestMessage,
  pushCommitsMessage,
  pushTagMessage,
  removeBranchMessage,
  shortSha,
  type CommitData,
} from './git.ts';
import { endsWithPunctuation } from './python-text.ts';
import { BRANCHES_OPTION, eventHeader, jsonPayload, unsupportedEvent, type Integration, type WebhookMessage, type WebhookRequest } from './types.ts';

const NAME = 'Bitbucket2';
/** The name the missing-header notice gives the service, as Zulip's. */
const HEADER_SERVICE = 'BitBucket';

const PULL_REQUEST_ACTIONS = ['approved', 'unapproved', 'created', 'updated', 'rejected', 'fulfilled', 'comment_created', 'comment_updated', 'comment_deleted'];

/** The event types handled (what only_events and exclude_events pick from). */
const EVENT_TYPES = [
  'change_commit_status',
  'pull_request_comment_created',
  'pull_request_updated',
  'pull_request_unapproved',
  'push',
  'pull_request_approved',
  'pull_request_fulfilled',
  'issue_created',
  'issue_commented',
  'fork',
  'pull_request_comment_updated',
  'pull_request_created',
  'pull_request_rejected',
  'repo:updated',
  'issue_updated',
  'commit_comment',
  'pull_request_comment_deleted',
] as const;

/** A person as Bitbucket names them since its privacy changes: display name, else nickname. */
function userInfo(u: Wild): string {
  if (u.has('display_name')) return u.at('display_name').str();
  if (u.has('nickname')) return u.at('nickname').str();
  return 'Unknown user';
}

const actor = (p: Wild): string => userInfo(p.at('actor'));
const repoName = (p: Wild): string => p.at('repository').at('name').str();
const href = (w: Wild): string => w.at('links').at('html').at('href').str();

function eventType(req: WebhookRequest, p: Wild): string {
  if (p.has('push')) return 'push';
  if (p.has('fork')) return 'fork';
  if (p.has('comment') && p.has('commit')) return 'commit_comment';
  if (p.has('commit_status')) return 'change_commit_status';
  if (p.has('issue')) {
    if (p.has('changes')) return 'issue_updated';
    if (p.has('comment')) return 'issue_commented';
    return 'issue_created';
  }
  const key = eventHeader(req, 'X-Event-Key', HEADER_SERVICE);
  if (p.has('pullrequest')) {
    const m = /^pullrequest:(.*)$/s.exec(key);
    if (m && PULL_REQUEST_ACTIONS.includes(m[1])) return `pull_request_${m[1]}`;
  } else if (key === 'repo:updated') {
    return key;
  }
  throw unsupportedEvent(NAME, key);
}

/** The change's branch or tag: the new one, or the old one where it was removed. */
const changeRef = (change: Wild): Wild => (change.at('new').truthy ? change.at('new') : change.at('old'));

function pushMessages(p: Wild, branches: string | undefined): WebhookMessage[] {
  const changes = p.at('push').at('changes');
  if (!changes.truthy) return [];
  const list = changes.list();
  const last = changeRef(list[list.length - 1]);
  const branch = last.at('type').str() === 'tag' ? null : last.at('name').str();
  if (branch && !branchNotifiable(branch, branches)) return [];
  const repo = repoName(p);
  return list.map((change) => {
    const ref = changeRef(change);
    if (ref.at('type').str() === 'tag') {
      const tag = change.get('new').truthy ? change.at('new') : change.at('old');
      const action = change.get('new').truthy ? 'pushed' : 'removed';
      return { topic: repo, body: pushTagMessage(actor(p), tag.at('name').str(), action, href(tag)), eventType: 'push' };
    }
    const topic = TOPIC_WITH_BRANCH(repo, (change.get('new').truthy ? change.at('new') : change.at('old')).at('name').str());
    let body: string;
    if (change.at('new').value === null) {
      body = removeBranchMessage(actor(p), change.at('old').at('name').str());
    } else if (change.at('forced').bool()) {
      const n = change.at('new');
      body = `${actor(p)} [force pushed](${href(change)}) to branch ${n.at('name').str()}. Head is now ${n.at('target').at('hash').str()}.`;
    } else {
      const commits: CommitData[] = change
        .at('commits')
        .list()
        .map((c) => {
          const author = c.at('author');
          return {
            name: author.has('user') ? userInfo(author.at('user')) : author.at('raw').str().split(/\s+/).filter(Boolean)[0],
            sha: c.at('hash').str(),
            url: href(c),
            message: c.at('message').str(),
          };
        });
      body = pushCommitsMessage(actor(p), href(change), change.at('new').at('name').str(), commits, { isTruncated: change.at('truncated').bool() });
    }
    return { topic, body, eventType: 'push' };
  });
}

function issueBody(action: string, p: Wild, includeTitle: boolean): string {
  const issue = p.at('issue');
  let assignee: string | null = null;
  let message: string | null = null;
  if (action === 'created') {
    if (issue.at('assignee').truthy) assignee = userInfo(issue.at('assignee'));
    message = issue.at('content').at('raw').str();
  }
  return issueMessage({
    userName: actor(p),
    action,
    url: href(issue),
    number: issue.at('id').int(),
    message,
    assignee,
    title: includeTitle ? issue.at('title').str() : null,
  });
}

function pullRequestBody(type: string, p: Wild, includeTitle: boolean): string {
  const pr = p.at('pullrequest');
  const base = { userName: actor(p), url: href(pr), number: pr.at('id').int(), title: includeTitle ? pr.at('title').str() : null };
  const action = type.slice('pull_request_'.length);
  if (action === 'created' || action === 'updated') {
    const reviewers = pr.at('reviewers');
    const created = action === 'created';
    return pullRequestMessage({
      ...base,
      action,
      targetBranch: created ? pr.at('source').at('branch').at('name').str() : null,
      baseBranch: created ? pr.at('destination').at('branch').at('name').str() : null,
      message: pr.at('description').str(),
      assignee: reviewers.truthy ? userInfo(reviewers.at(0)) : null,
    });
  }
  if (action.startsWith('comment_')) {
    const comment = p.at('comment');
    const done = action.slice('comment_'.length);
    const what = done === 'created' ? `[commented](${href(comment)})` : `${done} a [comment](${href(comment)})`;
    return pullRequestMessage({ ...base, action: `${what} on`, message: comment.at('content').at('raw').str() });
  }
  const merged = action === 'fulfilled';
  return pullRequestMessage({
    ...base,
    action: merged ? 'merged' : action,
    targetBranch: merged ? pr.at('source').at('branch').at('name').str() : null,
    baseBranch: merged ? pr.at('destination').at('branch').at('name').str() : null,
  });
}

function repoUpdatedBody(p: Wild): string {
  const repo = p.at('repository').at('name').str();
  const who = actor(p);
  let body = '';
  for (const change of ['website', 'name', 'links', 'language', 'full_name', 'description']) {
    const c = p.at('changes').at(change);
    const now = c.at('new');
    const before = c.at('old');
    if (!now.truthy) continue;
    const label = change === 'full_name' ? 'full name' : change;
    const value = pyStr(now.value);
    const text = before.truthy
      ? `${who} changed the ${label} of the **${repo}** repo from **${pyStr(before.value)}** to **${value}**`
      : `${who} changed the ${label} of the **${repo}** repo to **${value}**`;
    body += `${endsWithPunctuation(value) ? text : `${text}.`}\n`;
  }
  return body;
}

function singleBody(type: string, p: Wild, includeTitle: boolean): string {
  switch (type) {
    case 'fork': {
      const fork = p.at('fork');
      return `${actor(p)} forked the repository into [${fork.at('full_name').str()}](${href(fork)}).`;
    }
    case 'commit_comment': {
      const comment = p.at('comment');
      const commit = comment.at('commit');
      return commitsCommentMessage(actor(p), `[commented](${href(comment)})`, href(commit), commit.at('hash').str(), comment.at('content').at('raw').str());
    }
    case 'change_commit_status': {
      const status = p.at('commit_status');
      const id = status.at('links').at('commit').at('href').str().split('/').pop()!;
      const commit = `[${shortSha(id)}](${href(p.at('repository'))}/commits/${id})`;
      return `[System ${status.at('key').str()}](${status.at('url').str()}) changed status of ${commit} to ${status.at('state').str()}.`;
    }
    case 'issue_created':
      return issueBody('created', p, includeTitle);
    case 'issue_updated':
      return issueBody('updated', p, includeTitle);
    case 'issue_commented':
      return issueBody(`[commented](${href(p.at('comment'))}) on`, p, includeTitle);
    case 'repo:updated':
      return repoUpdatedBody(p);
    default:
      return pullRequestBody(type, p, includeTitle);
  }
}

function topicFor(type: string, p: Wild): string {
  const repo = repoName(p);
  if (type.startsWith('pull_request')) {
    const pr = p.at('pullrequest');
    return TOPIC_WITH_PR_OR_ISSUE_INFO(repo, 'PR', pr.at('id').int(), pr.at('title').str());
  }
  if (type.startsWith('issue')) {
    const issue = p.at('issue');
    return TOPIC_WITH_PR_OR_ISSUE_INFO(repo, 'issue', issue.at('id').int(), issue.at('title').str());
  }
  return repo;
}

export const bitbucket2: Integration = {
  name: NAME,
  displayName: 'Bitbucket',
  eventTypes: EVENT_TYPES,
  unquoteUrlParameters: true,
  urlOptions: [BRANCHES_OPTION],
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const type = eventType(req, p);
    if (type === 'push') return pushMessages(p, req.param('branches'));
    const topic = topicFor(type, p);
    return [{ topic, body: singleBody(type, p, req.param('topic') !== undefined), eventType: type }];
  },
};

// ---------------------------------------------------------------------------
// Bitbucket Server (/api/v1/external/bitbucket3): the event is the payload's
// `eventKey`, else the X-Event-Key header. People are linked to their page.

const NAME3 = 'Bitbucket3';

const selfLink = (w: Wild): string => w.at('links').at('self').at(0).at('href').str();
const serverUser = (p: Wild): string => `[${p.at('actor').at('name').str()}](${selfLink(p.at('actor'))})`;

/** The reviewers as links, "a, b and c"; null for none. */
function reviewers(pr: Wild): string | null {
  const links = pr
    .at('reviewers')
    .list()
    .map((r) => `[${r.at('user').at('name').str()}](${selfLink(r.at('user'))})`);
  if (links.length === 0) return null;
  return links.length === 1 ? links[0]! : `${links.slice(0, -1).join(', ')} and ${links[links.length - 1]}`;
}

type ServerHandler = (p: Wild, branches: string | undefined, title: string | undefined) => Array<{ topic: string; body: string }>;

function commitComment(action: string): ServerHandler {
  return (p) => {
    const sha = p.at('commit').str();
    const browse = selfLink(p.at('repository'));
    let message = p.at('comment').at('text').str();
    if (action === 'deleted their comment') message = `~~${message}~~`;
    const body = commitsCommentMessage(serverUser(p), action, `${browse.slice(0, -'browse'.length)}commits/${sha}`, sha, message);
    return [{ topic: p.at('repository').at('name').str(), body }];
  };
}

function pushChange(p: Wild, change: Wild): { topic: string; body: string } {
  const repo = p.at('repository').at('name').str();
  const type = change.at('type').str();
  const name = change.at('ref').at('displayId').str();
  const unsupported = () => unsupportedEvent(NAME3, `${p.at('eventKey').str()}.${type}`);
  if (change.at('ref').at('type').str() === 'TAG') {
    if (type !== 'ADD' && type !== 'DELETE') throw unsupported();
    return { topic: repo, body: pushTagMessage(serverUser(p), name, type === 'ADD' ? 'pushed' : 'removed') };
  }
  let body: string;
  if (type === 'ADD') body = `${serverUser(p)} created ${name} branch.`;
  else if (type === 'UPDATE') body = `${serverUser(p)} pushed to branch ${name}. Head is now ${change.at('toHash').str()}.`;
  else if (type === 'DELETE') body = removeBranchMessage(serverUser(p), name);
  else throw unsupported();
  return { topic: TOPIC_WITH_BRANCH(repo, name), body };
}

const pushed: ServerHandler = (p, branches) => {
  const out: Array<{ topic: string; body: string }> = [];
  for (const change of p.at('changes').list()) {
    const refType = change.at('ref').at('type').str();
    if (refType === 'BRANCH') {
      if (!branchNotifiable(change.at('ref').at('displayId').str(), branches)) continue;
    } else if (refType !== 'TAG') throw unsupportedEvent(NAME3, `${p.at('eventKey').str()}.${refType}`);
    out.push(pushChange(p, change));
  }
  return out;
};

function prTopic(pr: Wild): string {
  return TOPIC_WITH_PR_OR_ISSUE_INFO(pr.at('toRef').at('repository').at('name').str(), 'PR', pr.at('id').int(), pr.at('title').str());
}

/** "[PR #n](url)", or "[PR #n title](url)" where the topic is the caller's. */
const prLink = (pr: Wild, title: string | undefined): string => `[PR #${pr.at('id').int()}${title ? ` ${pr.at('title').str()}` : ''}](${selfLink(pr)})`;

function prAction(action: string): ServerHandler {
  return (p, _branches, title) => {
    const pr = p.at('pullRequest');
    const base = { userName: serverUser(p), url: selfLink(pr), number: pr.at('id').int(), title: title ? pr.at('title').str() : null };
    let body: string;
    if (action === 'opened' || action === 'modified') {
      const opened = action === 'opened';
      body = pullRequestMessage({
        ...base,
        action,
        targetBranch: opened ? pr.at('fromRef').at('displayId').str() : null,
        baseBranch: opened ? pr.at('toRef').at('displayId').str() : null,
        message: pr.get('description').strOrNull(),
        reviewer: reviewers(pr),
      });
    } else if (action === 'merged') {
      body = pullRequestMessage({ ...base, action, targetBranch: pr.at('fromRef').at('displayId').str(), baseBranch: pr.at('toRef').at('displayId').str() });
    } else if (action === 'needs_work') {
      body = `${serverUser(p)} marked ${prLink(pr, title)} as "needs work".`;
    } else if (action === 'reviewers_updated') {
      const names = reviewers(pr);
      if (names) body = `${serverUser(p)} reassigned ${prLink(pr, title)} to ${names}.`;
      else {
        body = `${serverUser(p)} removed all reviewers from ${prLink(pr, title)}`;
        if (!title || !endsWithPunctuation(pr.at('title').str())) body += '.';
      }
    } else {
      body = pullRequestMessage({ ...base, action });
    }
    return [{ topic: prTopic(pr), body }];
  };
}

function prComment(action: string): ServerHandler {
  return (p, _branches, title) => {
    const pr = p.at('pullRequest');
    let message = p.at('comment').at('text').str();
    if (action === 'deleted their comment on') message = `~~${message}~~`;
    const body = pullRequestMessage({ userName: serverUser(p), action, url: selfLink(pr), number: pr.at('id').int(), message, title: title ? pr.at('title').str() : null });
    return [{ topic: prTopic(pr), body }];
  };
}

const SERVER_HANDLERS: Record<string, ServerHandler> = {
  'diagnostics:ping': (_p, _b, title) => [{ topic: title || 'Bitbucket Server Ping', body: 'Congratulations! The Bitbucket Server webhook was configured successfully!' }],
  'repo:comment:added': commitComment('commented'),
  'repo:comment:edited': commitComment('edited their comment'),
  'repo:comment:deleted': commitComment('deleted their comment'),
  'repo:forked': (p) => {
    const repo = p.at('repository');
    const body = `User ${p.at('actor').at('displayName').str()}(login: ${serverUser(p)}) forked the repository into [${repo.at('name').str()}](${selfLink(repo)}).`;
    return [{ topic: repo.at('origin').at('name').str(), body }];
  },
  'repo:modified': (p) => {
    const [old, now] = [p.at('old').at('name').str(), p.at('new').at('name').str()];
    // The only change Bitbucket Server notifies of is a new name.
    const body = `${serverUser(p)} changed the name of the **${old}** repo from **${old}** to **${now}**`;
    return [{ topic: now, body: endsWithPunctuation(now) ? body : `${body}.` }];
  },
  'repo:refs_changed': pushed,
  'pr:comment:added': prComment('commented on'),
  'pr:comment:edited': prComment('edited their comment on'),
  'pr:comment:deleted': prComment('deleted their comment on'),
  'pr:declined': prAction('declined'),
  'pr:deleted': prAction('deleted'),
  'pr:merged': prAction('merged'),
  'pr:modified': prAction('modified'),
  'pr:opened': prAction('opened'),
  'pr:reviewer:approved': prAction('approved'),
  'pr:reviewer:needs_work': prAction('needs_work'),
  'pr:reviewer:updated': prAction('reviewers_updated'),
  'pr:reviewer:unapproved': prAction('unapproved'),
};

export const bitbucket3: Integration = {
  name: NAME3,
  displayName: 'Bitbucket Server',
  eventTypes: Object.keys(SERVER_HANDLERS),
  unquoteUrlParameters: true,
  urlOptions: [BRANCHES_OPTION],
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const key = p.has('eventKey') ? p.at('eventKey').str() : eventHeader(req, 'X-Event-Key', HEADER_SERVICE);
    if (!Object.hasOwn(SERVER_HANDLERS, key)) throw unsupportedEvent(NAME3, key);
    return SERVER_HANDLERS[key]!(p, req.param('branches'), req.param('topic')).map((m) => ({ ...m, eventType: key }));
  },
};
