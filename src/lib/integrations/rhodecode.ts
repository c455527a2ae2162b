/**
 * RhodeCode (/api/v1/external/rhodecode): pushes (`repo-push`), with their
 * commits and committers, a branch pushed without commits, a branch
 * deleted (RhodeCode then names it only in its commit's ID,
 * `delete_branch=>name`); the `branches` option; topic:
 * `<repository> / <branch>`.
 */
import { badRequest } from '../errors.ts';
import { TOPIC_WITH_BRANCH, branchNotifiable, pushCommitsMessage } from './git.ts';
import type { Wild } from './wild.ts';
import { BRANCHES_OPTION, jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';

function branchName(event: Wild): string {
  const push = event.at('push');
  const branches = push.at('branches').list();
  if (branches.length > 0) return branches[0]!.at('name').str();
  // A deleted branch: its name is in the commit's ID.
  const id = push.at('commits').at(0).at('raw_id');
  const parts = id.str().split('=>');
  if (parts.length < 2) throw badRequest(`${id.name} does not name a deleted branch`);
  return parts[1]!;
}

export const rhodecode: Integration = {
  name: 'RhodeCode',
  eventTypes: ['repo-push'],
  urlOptions: [BRANCHES_OPTION],
  handle(req): WebhookMessage[] {
    const event = jsonPayload(req).at('event');
    const name = event.at('name').str();
    const branches = req.param('branches');
    if (name === 'repo-push' && branches !== undefined && !branchNotifiable(branchName(event), branches)) return [];
    if (name !== 'repo-push') throw unsupportedEvent('RhodeCode', name);
    const branch = branchName(event);
    const topic = TOPIC_WITH_BRANCH(event.at('repo').at('repo_name').str(), branch);
    const commits = event
      .at('push')
      .at('commits')
      .list()
      .map((c) => ({ name: c.at('author').str(), sha: c.at('raw_id').str(), url: c.at('url').str(), message: c.at('message').str() }));
    return [{ topic, body: pushCommitsMessage(event.at('actor').at('username').str(), null, branch, commits) }];
  },
};
