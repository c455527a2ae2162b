/**
 * GitLab (/api/v1/external/gitlab): the event is the X-GitLab-Event header
 * (with the object's action or noteable type); topics and texts as Zulip
 * writes them. Query parameters: branches, use_merge_request_title, topic.
 */
import type { Wild } from './wild.ts';
import {
  EMPTY_SHA,
  TOPIC_WITH_PR_OR_ISSUE_INFO,
  branchNotifiable,
  commitsCommentMessage,
  issueMessage,
  pullRequestMessage,
  pushCommitsMessage,
  pushTagMessage,
  removeBranchMessage,
  CONTENT_MESSAGE,
} from './git.ts';
import { BRANCHES_OPTION, boolParam, eventHeader, jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';

type Body = (p: Wild, includeTitle: boolean) => string;

const repoName = (p: Wild): string => (p.has('project') ? p.at('project').at('name').str() : p.at('repository').at('name').str());
const homepage = (p: Wild): string => (p.has('project') ? p.at('project').at('web_url').str() : p.at('repository').at('homepage').str());
const userName = (p: Wild): string => p.at('user_name').str();
const issueUserName = (p: Wild): string => p.at('user').at('name').str();
const branchName = (p: Wild): string => p.at('ref').str().replace('refs/heads/', '');
const tagName = (p: Wild): string => p.at('ref').str().replace('refs/tags/', '');

function assigneeNames(p: Wild): string[] {
  const many = p.get('assignees');
  const list = many.truthy ? many.list() : p.get('assignee').truthy ? [p.at('assignee')] : [];
  return list.map((a) => a.at('name').str());
}

const push: Body = (p) => {
  const after = p.get('after');
  if (after.truthy && after.str() === EMPTY_SHA) return removeBranchMessage(userName(p), branchName(p));
  const compare = `${homepage(p)}/-/compare/${p.at('before').str()}...${p.at('after').str()}`;
  const commits = p.at('commits').list().map((c) => ({
    name: c.at('author').at('name').str(),
    sha: c.at('id').str(),
    message: c.at('message').str(),
    url: c.at('url').str(),
  }));
  return pushCommitsMessage(userName(p), compare, branchName(p), commits);
};

const tagPush: Body = (p) => pushTagMessage(userName(p), tagName(p), p.get('checkout_sha').truthy ? 'pushed' : 'removed');

const issueCreated: Body = (p, includeTitle) => {
  const attrs = p.at('object_attributes');
  const d = attrs.get('description');
  const description = d.truthy ? d.str().replace(/<!--[\s\S]*?-->/g, '').trimEnd() : null;
  return issueMessage({
    userName: issueUserName(p),
    action: 'created',
    url: attrs.at('url').str(),
    number: attrs.at('iid').int(),
    message: description,
    assignees: assigneeNames(p),
    title: includeTitle ? attrs.at('title').str() : null,
  });
};

const issueEvent =
  (action: string): Body =>
  (p, includeTitle) => {
    const attrs = p.at('object_attributes');
    return issueMessage({ userName: issueUserName(p), action, url: attrs.at('url').str(), number: attrs.at('iid').int(), title: includeTitle ? attrs.at('title').str() : null });
  };

const mrEvent =
  (action: string): Body =>
  (p, includeTitle) => {
    const mr = p.at('object_attributes');
    const merged = action === 'merged';
    return pullRequestMessage({
      userName: issueUserName(p),
      action,
      url: mr.at('url').str(),
      number: mr.at('iid').int(),
      targetBranch: merged ? mr.at('source_branch').str() : null,
      baseBranch: merged ? mr.at('target_branch').str() : null,
      type: 'MR',
      title: includeTitle ? mr.at('title').str() : null,
    });
  };

const mrOpenOrUpdated =
  (action: string): Body =>
  (p, includeTitle) => {
    const mr = p.at('object_attributes');
    const created = action === 'created';
    return pullRequestMessage({
      userName: issueUserName(p),
      action,
      url: mr.at('url').str(),
      number: mr.at('iid').int(),
      targetBranch: created ? mr.at('source_branch').str() : null,
      baseBranch: created ? mr.at('target_branch').str() : null,
      message: mr.at('description').strOrNull(),
      assignees: assigneeNames(p),
      type: 'MR',
      title: includeTitle ? mr.at('title').str() : null,
    });
  };

const mrUpdated: Body = (p, includeTitle) =>
  p.at('object_attributes').get('oldrev').truthy ? mrEvent('added commit(s) to')(p, includeTitle) : mrOpenOrUpdated('updated')(p, includeTitle);

const noteOn =
  (kind: 'merge_request' | 'issue', type: string): Body =>
  (p, includeTitle) => {
    const comment = p.at('object_attributes');
    const target = p.at(kind);
    return pullRequestMessage({
      userName: issueUserName(p),
      action: `[commented](${comment.at('url').str()}) on`,
      url: target.at('url').str(),
      number: target.at('iid').int(),
      message: comment.at('note').str(),
      type,
      title: includeTitle ? target.at('title').str() : null,
    });
  };

const noteCommit: Body = (p) => {
  const comment = p.at('object_attributes');
  return commitsCommentMessage(issueUserName(p), `[commented](${comment.at('url').str()})`, p.at('commit').at('url').str(), p.at('commit').at('id').str(), comment.at('note').str());
};

const release: Body = (p) => {
  const action = p.at('action').str();
  const name = p.at('name').str();
  const tag = p.at('tag').str();
  if (action === 'delete') return `Release ${name} for tag ${tag} was ${action}d.`;
  let body = `Release [${name}](${p.at('url').str()}) for tag ${tag} was ${action}d.`;
  if (p.has('description')) body += CONTENT_MESSAGE(p.at('description').str());
  return body;
};

const EVENTS: Record<string, Body> = {
  'Push Hook': push,
  'Tag Push Hook': tagPush,
  'Test Hook': (p) => `Webhook for **${repoName(p)}** has been configured successfully! :tada:`,
  'Issue Hook open': issueCreated,
  'Issue Hook close': issueEvent('closed'),
  'Issue Hook reopen': issueEvent('reopened'),
  'Issue Hook update': issueEvent('updated'),
  'Confidential Issue Hook open': issueCreated,
  'Confidential Issue Hook close': issueEvent('closed'),
  'Confidential Issue Hook reopen': issueEvent('reopened'),
  'Confidential Issue Hook update': issueEvent('updated'),
  'Note Hook Commit': noteCommit,
  'Note Hook MergeRequest': noteOn('merge_request', 'MR'),
  'Note Hook Issue': noteOn('issue', 'issue'),
  'Confidential Note Hook Issue': noteOn('issue', 'issue'),
  'Merge Request Hook approved': mrEvent('approved'),
  'Merge Request Hook unapproved': mrEvent('unapproved'),
  'Merge Request Hook approval': mrEvent('approval'),
  'Merge Request Hook unapproval': mrEvent('unapproval'),
  'Merge Request Hook open': mrOpenOrUpdated('created'),
  'Merge Request Hook update': mrUpdated,
  'Merge Request Hook merge': mrEvent('merged'),
  'Merge Request Hook close': mrEvent('closed'),
  'Merge Request Hook reopen': mrEvent('reopened'),
  'Wiki Page Hook create': (p) => `${issueUserName(p)} created [wiki page "${p.at('object_attributes').at('title').str()}"](${p.at('object_attributes').at('url').str()}).`,
  'Wiki Page Hook update': (p) => `${issueUserName(p)} updated [wiki page "${p.at('object_attributes').at('title').str()}"](${p.at('object_attributes').at('url').str()}).`,
  'Release Hook': release,
};

function eventName(header: string, p: Wild, branches: string | undefined): string | null {
  let event = header;
  if (event === 'System Hook') {
    const name = p.has('event_name') ? p.at('event_name').str() : p.at('object_kind').str();
    event = `${name.split('__')[0].replace(/_/g, ' ').replace(/\w\S*/g, (w) => w[0].toUpperCase() + w.slice(1).toLowerCase())} Hook`;
  }
  if (['Confidential Issue Hook', 'Issue Hook', 'Merge Request Hook', 'Wiki Page Hook'].includes(event)) {
    event = `${event} ${p.at('object_attributes').get('action', 'open').str()}`;
  } else if (event === 'Confidential Note Hook' || event === 'Note Hook') {
    event = `${event} ${p.at('object_attributes').at('noteable_type').str()}`;
  } else if (event === 'Push Hook' && !branchNotifiable(branchName(p), branches)) {
    return null;
  }
  if (Object.prototype.hasOwnProperty.call(EVENTS, event)) return event;
  throw unsupportedEvent('GitLab', event);
}

function topicFor(event: string, p: Wild, useMrTitle: boolean): string {
  if (event === 'Push Hook') return `${repoName(p)} / ${branchName(p)}`;
  if (event.startsWith('Merge Request Hook')) {
    const mr = p.at('object_attributes');
    return TOPIC_WITH_PR_OR_ISSUE_INFO(repoName(p), 'MR', mr.at('iid').int(), useMrTitle ? mr.at('title').str() : '');
  }
  if (event.startsWith('Issue Hook') || event.startsWith('Confidential Issue Hook')) {
    const attrs = p.at('object_attributes');
    return TOPIC_WITH_PR_OR_ISSUE_INFO(repoName(p), 'issue', attrs.at('iid').int(), attrs.at('title').str());
  }
  if (event === 'Note Hook Issue' || event === 'Confidential Note Hook Issue') {
    const issue = p.at('issue');
    return TOPIC_WITH_PR_OR_ISSUE_INFO(repoName(p), 'issue', issue.at('iid').int(), issue.at('title').str());
  }
  if (event === 'Note Hook MergeRequest') {
    const mr = p.at('merge_request');
    return TOPIC_WITH_PR_OR_ISSUE_INFO(repoName(p), 'MR', mr.at('iid').int(), useMrTitle ? mr.at('title').str() : '');
  }
  return repoName(p);
}

export const gitlab: Integration = {
  name: 'GitLab',
  eventTypes: Object.keys(EVENTS),
  urlOptions: [BRANCHES_OPTION],
  handle(req): WebhookMessage[] {
    const header = eventHeader(req, 'X-GitLab-Event');
    const p = jsonPayload(req);
    const event = eventName(header, p, req.param('branches'));
    if (event === null) return [];
    const userTopic = req.param('topic');
    let body = EVENTS[event](p, userTopic !== undefined);
    // With a custom topic, the project is named in the message.
    if (userTopic) body = `[[${repoName(p)}](${homepage(p)})] ${body}`;
    return [{ topic: topicFor(event, p, boolParam(req, 'use_merge_request_title', true)), body, eventType: event }];
  },
};
