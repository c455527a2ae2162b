/**
 * GitLab (/api/v1/external/gitlab): the event is the X-GitLab-Event header
 * (with the object's action or noteable type; a System Hook's event from its
 * payload); topics and texts as Zulip writes them. Query parameters:
 * branches, use_merge_request_title, topic.
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
import { badRequest } from '../errors.ts';
import { BRANCHES_OPTION, boolParam, eventHeader, isoGlobalTime, jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';
import { pyTitle } from './python-text.ts';

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

/** A design's note: the design is named by the note's `position.new_path` ("designs/issue-1/Screenshot.png"). */
const noteDesign: Body = (p) => {
  const comment = p.at('object_attributes');
  const repositoryUrl = p.at('repository').at('homepage').str();
  const noteId = comment.at('id').int();
  const path = comment.at('position').at('new_path');
  const parts = path.str().split('/');
  if (parts.length !== 3) throw badRequest(`${path.name} is not a design's path`);
  const [, issuePart, designName] = parts;
  const designUrl = `${repositoryUrl}/-/issues/${issuePart.split('-').pop()}/designs/${designName}`;
  const content = CONTENT_MESSAGE(comment.at('note').str());
  return `${issueUserName(p)} [commented](${designUrl}#note_${noteId}) on design [${designName}](${designUrl}):\n${content}`;
};

const noteSnippet: Body = (p, includeTitle) => {
  const comment = p.at('object_attributes');
  const snippet = p.at('snippet');
  // The snippet's URL is in GitLab 16.1's payloads and later.
  const url = snippet.has('url') ? snippet.at('url').str() : `${p.at('project').at('web_url').str()}/-/snippets/${snippet.at('id').int()}`;
  return pullRequestMessage({
    userName: issueUserName(p),
    action: `[commented](${comment.at('url').str()}) on`,
    url,
    number: snippet.at('id').int(),
    message: comment.at('note').str(),
    type: 'snippet',
    title: includeTitle ? snippet.at('title').str() : null,
  });
};

/** What a job or pipeline status says: created, started, or the status itself. */
function statusAction(status: string, created: string): string {
  if (status === created) return 'was created';
  if (status === 'running') return 'started';
  return `changed status to ${status}`;
}

const build: Body = (p) => {
  const action = statusAction(p.at('build_status').str(), 'created');
  return `Build ${p.at('build_name').str()} from ${p.at('build_stage').str()} stage ${action}.`;
};

const pipeline: Body = (p) => {
  const attrs = p.at('object_attributes');
  const action = statusAction(attrs.at('status').str(), 'pending');
  const home = homepage(p);
  const pipelineUrl = `${home}/-/pipelines/${attrs.at('id').int()}`;
  let builds = '';
  for (const b of p.at('builds').list()) {
    const jobUrl = `${home}/-/jobs/${b.at('id').int()}`;
    const artifact = b.get('artifacts_file', {}).get('filename');
    const artifactLine = artifact.truthy
      ? `  * built artifact: *${artifact.str()}* [[Browse](${jobUrl}/artifacts/browse)|[Download](${jobUrl}/artifacts/download)]\n`
      : '';
    builds += `* [${b.at('name').str()}](${jobUrl}) - ${b.at('status').str()}\n${artifactLine}`;
  }
  return `[Pipeline (${attrs.at('id').int()})](${pipelineUrl}) ${action} with build(s):\n${builds.slice(0, -1)}.`;
};

const featureFlag: Body = (p) => {
  const repoUrl = p.at('project').at('web_url').str();
  const flag = p.at('object_attributes');
  const action = flag.at('active').truthy ? 'activated' : 'deactivated';
  return `${p.at('user').at('username').str()} ${action} the feature flag [${flag.at('name').str()}](${repoUrl}/-/feature_flags).`;
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const accessTokenExpiry: Body = (p) => {
  const token = p.at('object_attributes');
  // An ISO date (or date and time): its day, as "Jan 26, 2024".
  const [, y, m, d] = /^<time:(\d{4})-(\d{2})-(\d{2})/.exec(isoGlobalTime(token.at('expires_at')))!;
  const date = `${MONTHS[Number(m) - 1]} ${d}, ${y}`;
  const name = token.at('name').str();
  const url = p.has('group')
    ? `https://gitlab.com/groups/${p.at('group').at('group_path').str()}/-/settings/access_tokens`
    : `${p.at('project').at('web_url').str()}/-/settings/access_tokens`;
  return `The access token [${name}](${url}) will expire on ${date}.`;
};

const deployment: Body = (p) => {
  const user = `[${p.at('user').at('name').str()}](${p.at('user_url').str()})`;
  const status = p.at('status').str();
  const deployableUrl = p.get('deployable_url', '').str();
  const what = deployableUrl ? `[deployment](${deployableUrl})` : 'deployment';
  const commitTitle = p.at('commit_title').str();
  const commitUrl = p.at('commit_url').str();
  const sha = commitUrl.split('/').pop()!.slice(0, 7);
  if (status === 'running') return `${user} started a new ${what}:\n> [${sha}](${commitUrl}) ${commitTitle}`;
  if (status === 'success') return `The ${what} was successful.`;
  if (status === 'failed') return `The ${what} failed.`;
  if (status === 'canceled') return `The ${what} was canceled.`;
  throw badRequest(`Unknown deployment status: ${status}`);
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
  'Note Hook DesignManagement::Design': noteDesign,
  'Confidential Note Hook DesignManagement::Design': noteDesign,
  'Note Hook Snippet': noteSnippet,
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
  'Job Hook': build,
  'Build Hook': build,
  'Pipeline Hook': pipeline,
  'Release Hook': release,
  'Feature Flag Hook': featureFlag,
  'Resource Access Token Hook': accessTokenExpiry,
  'Deployment Hook': deployment,
};

/** Design notes link to images that need a GitLab login: no previews. */
const WITHOUT_PREVIEWS = new Set(['Note Hook DesignManagement::Design', 'Confidential Note Hook DesignManagement::Design']);

function eventName(header: string, p: Wild, branches: string | undefined): string | null {
  let event = header;
  if (event === 'System Hook') {
    const name = p.has('event_name') ? p.at('event_name').str() : p.at('object_kind').str();
    event = `${pyTitle(name.split('__')[0].replace(/_/g, ' '))} Hook`;
  }
  if (['Confidential Issue Hook', 'Issue Hook', 'Merge Request Hook', 'Wiki Page Hook'].includes(event)) {
    event = `${event} ${p.at('object_attributes').get('action', 'open').str()}`;
  } else if (event === 'Confidential Note Hook' || event === 'Note Hook') {
    event = `${event} ${p.at('object_attributes').at('noteable_type').str()}`;
  } else if (event === 'Push Hook' && branches !== undefined && !branchNotifiable(branchName(p), branches)) {
    return null;
  }
  if (Object.prototype.hasOwnProperty.call(EVENTS, event)) return event;
  throw unsupportedEvent('GitLab', event);
}

function topicFor(event: string, p: Wild, useMrTitle: boolean): string {
  if (event === 'Push Hook') return `${repoName(p)} / ${branchName(p)}`;
  if (event === 'Job Hook' || event === 'Build Hook') return `${p.at('repository').at('name').str()} / ${branchName(p)}`;
  if (event === 'Pipeline Hook') return `${repoName(p)} / ${p.at('object_attributes').at('ref').str().replace('refs/heads/', '')}`;
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
  if (WITHOUT_PREVIEWS.has(event)) {
    return `${repoName(p)} / design ${p.at('object_attributes').at('position').at('new_path').str().split('/').pop()}`;
  }
  if (event === 'Note Hook MergeRequest') {
    const mr = p.at('merge_request');
    return TOPIC_WITH_PR_OR_ISSUE_INFO(repoName(p), 'MR', mr.at('iid').int(), useMrTitle ? mr.at('title').str() : '');
  }
  if (event === 'Note Hook Snippet') {
    const snippet = p.at('snippet');
    return TOPIC_WITH_PR_OR_ISSUE_INFO(repoName(p), 'snippet', snippet.at('id').int(), snippet.at('title').str());
  }
  if (event === 'Resource Access Token Hook' && p.get('group').truthy) return p.at('group').at('group_name').str();
  if (event === 'Deployment Hook') return `${repoName(p)} / ${p.at('environment').str()}`;
  return repoName(p);
}

export const gitlab: Integration = {
  name: 'GitLab',
  eventTypes: Object.keys(EVENTS),
  urlOptions: [BRANCHES_OPTION],
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const useMrTitle = boolParam(req, 'use_merge_request_title', true);
    const header = eventHeader(req, 'X-GitLab-Event');
    const event = eventName(header, p, req.param('branches'));
    if (event === null) return [];
    const userTopic = req.param('topic');
    let body = EVENTS[event](p, userTopic !== undefined);
    // With a custom topic, the project is named in the message.
    if (userTopic) body = `[[${repoName(p)}](${homepage(p)})] ${body}`;
    const message: WebhookMessage = { topic: topicFor(event, p, useMrTitle), body, eventType: event };
    if (WITHOUT_PREVIEWS.has(event)) message.noPreviews = true;
    return [message];
  },
};
