/**
 * CircleCI (/api/v1/external/circleci): a job or workflow completed (its
 * outcome, the pipeline's number, and the commit that triggered it, for
 * projects on GitHub, Bitbucket and GitLab; a pipeline run by hand names the
 * branch's HEAD or the latest tag), and the webhook's test ping; the
 * payload's `type` is the event type; topic: the project's name.
 */
import { badRequest } from '../errors.ts';
import type { Wild } from './wild.ts';
import { shortSha } from './git.ts';
import { jsonPayload, type Integration, type WebhookMessage } from './types.ts';

const OUTCOMES: Record<string, string> = {
  success: 'has succeeded',
  failed: 'has failed',
  canceled: 'was canceled',
  unauthorized: 'was unauthorized',
  error: 'had an error',
};

function commitDetails(p: Wild): string {
  const pipeline = p.at('pipeline');
  let details: string;
  let link: string;
  let author: string;
  let branch: string | null;
  if (pipeline.has('vcs')) {
    // GitHub and Bitbucket projects.
    const vcs = pipeline.at('vcs');
    const revision = vcs.at('revision').str();
    const id = shortSha(revision);
    const repoUrl = vcs.at('target_repository_url').url();
    link = vcs.at('provider_name').str() === 'github' ? `${repoUrl}/commit/${revision}` : `${repoUrl}/commits/${revision}`;
    branch = vcs.at('branch').strOrNull();
    const subject = vcs.at('commit').at('subject').strOrNull();
    if (!subject) {
      // Run by hand: the branch's HEAD, or the latest tag.
      return branch ? `\nTriggered on \`${branch}\`'s HEAD on [${id}](${link}).\n` : `\nTriggered on the latest tag on [${id}](${link}).\n`;
    }
    details = `${id}: ${subject}`;
    author = vcs.at('commit').at('author').at('name').str();
  } else {
    // GitLab projects.
    const gitlab = pipeline.at('trigger_parameters').at('gitlab');
    const title = gitlab.at('commit_title').str();
    const sha = gitlab.at('checkout_sha').str();
    details = `${shortSha(sha)}: ${title}`;
    author = gitlab.at('commit_author_name').str();
    link = `${gitlab.at('web_url').url()}/-/commit/${sha}`;
    branch = gitlab.at('branch').str();
  }
  return `\nTriggered on [\`${details}\`](${link}) on branch \`${branch ?? 'None'}\` by ${author}.\n`;
}

function body(p: Wild): string {
  const number = p.at('pipeline').at('number').int();
  const commit = commitDetails(p);
  const type = p.at('type').oneOf(['job-completed', 'workflow-completed']);
  if (type === 'job-completed') {
    const job = p.at('job');
    const name = job.at('name').str();
    const outcome = OUTCOMES[job.at('status').str()] ?? 'None';
    return `Job \`${name}\` within Pipeline #${number} ${outcome}.\n${commit}`;
  }
  const workflow = p.at('workflow');
  const [name, url] = [workflow.at('name').str(), workflow.at('url').url()];
  const outcome = OUTCOMES[workflow.at('status').str()] ?? 'None';
  return `Workflow [\`${name}\`](${url}) within Pipeline #${number} ${outcome}.\n${commit}`;
}

export const circleci: Integration = {
  name: 'CircleCI',
  eventTypes: ['ping', 'job-completed', 'workflow-completed'],
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const type = p.at('type').str();
    if (type === 'ping') return [{ topic: 'Test event', body: `Webhook '${p.at('webhook').at('name').str()}' test event successful.`, eventType: type }];
    const topic = p.at('project').at('name').str();
    const text = body(p);
    const pipeline = p.at('pipeline');
    if (pipeline.has('trigger_parameters') && pipeline.at('trigger').at('type').str() !== 'gitlab') {
      throw badRequest("Projects using this version control system provider aren't supported");
    }
    return [{ topic, body: text, eventType: type }];
  },
};
