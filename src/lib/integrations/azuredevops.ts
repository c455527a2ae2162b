/**
 * Azure DevOps (/api/v1/external/azuredevops): Service Hooks' code pushes
 * and pull requests (created, updated, merged), in Zulip's texts and topics
 * ("<repo> / <branch>", "<repo> / PR #<id> <title>"). The event is the
 * payload's `eventType`. A merge event whose merge did not complete (Azure
 * DevOps also sends one when a merge is attempted and conflicts) is ignored,
 * and so is a push to a branch the `branches` option (a comma-separated
 * list) does not name.
 */
import type { Wild } from './wild.ts';
import { BRANCHES_OPTION, jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';
import { branchNotifiable, pullRequestMessage, pushCommitsMessage, TOPIC_WITH_BRANCH, TOPIC_WITH_PR_OR_ISSUE_INFO } from './git.ts';

const NAME = 'AzureDevOps';

const ref = (w: Wild): string => w.str().replace('refs/heads/', '');
const repoUrl = (r: Wild): string => r.at('repository').at('remoteUrl').str();
const pushBranch = (r: Wild): string => ref(r.at('refUpdates').at(0).at('name'));

function pushBody(r: Wild): string {
  const update = r.at('refUpdates').at(0);
  const compare = `${repoUrl(r)}/branchCompare?baseVersion=GC${update.at('oldObjectId').str()}&targetVersion=GC${update.at('newObjectId').str()}&_a=files`;
  const commits = r.get('commits', []).list().map((c) => {
    const name = c.at('author').at('name').str();
    const sha = c.at('commitId').str();
    return { name, sha, url: `${repoUrl(r)}/commit/${sha}`, message: c.at('comment').str() };
  });
  return pushCommitsMessage(r.at('pushedBy').at('displayName').str(), compare, pushBranch(r), commits);
}

/** What every pull-request text names: who, which one, where. */
function pullRequest(r: Wild, action: string) {
  return {
    userName: r.at('createdBy').at('displayName').str(),
    action,
    url: r.at('_links').at('web').at('href').str(),
    number: r.at('pullRequestId').int(),
    title: r.at('title').str(),
  };
}

const branchesOf = (r: Wild) => ({ targetBranch: ref(r.at('sourceRefName')), baseBranch: ref(r.at('targetRefName')) });

const BODIES: Record<string, (r: Wild, p: Wild) => string> = {
  'git.push': pushBody,
  'git.pullrequest.created': (r) => {
    const message = r.get('description').truthy ? r.at('description').str() : null;
    return pullRequestMessage({ ...pullRequest(r, 'created'), ...branchesOf(r), message });
  },
  'git.pullrequest.merged': (r) => pullRequestMessage({ ...pullRequest(r, 'merged'), ...branchesOf(r) }),
  'git.pullrequest.updated': (r, p) => pullRequestMessage({ ...pullRequest(r, 'updated'), message: p.at('detailedMessage').at('markdown').str() }),
};

export const azuredevops: Integration = {
  name: NAME,
  displayName: 'AzureDevOps',
  eventTypes: Object.keys(BODIES),
  urlOptions: [BRANCHES_OPTION],
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const event = p.at('eventType').str();
    const branches = req.param('branches');
    if (event === 'git.push' && branches !== undefined && !branchNotifiable(pushBranch(p.at('resource')), branches)) return [];
    if (event === 'git.pullrequest.merged') {
      const r = p.at('resource');
      if (r.at('status').str() !== 'completed' || r.at('mergeStatus').str() !== 'succeeded') return [];
    }
    if (!Object.prototype.hasOwnProperty.call(BODIES, event)) throw unsupportedEvent(NAME, event);
    const r = p.at('resource');
    const repo = r.at('repository').at('name').str();
    const topic = event === 'git.push' ? TOPIC_WITH_BRANCH(repo, pushBranch(r)) : TOPIC_WITH_PR_OR_ISSUE_INFO(repo, 'PR', r.at('pullRequestId').int(), r.at('title').str());
    return [{ topic, body: BODIES[event](r, p), eventType: event }];
  },
};
