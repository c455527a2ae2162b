/**
 * Rundeck (/api/v1/external/rundeck, a job's "Send Webhook" notification in
 * JSON): an execution started (or scheduled), running longer than its
 * average, succeeded or failed, linked to the job and the execution.
 * Topic: the job's name.
 */
import { badRequest } from '../errors.ts';
import type { Wild } from './wild.ts';
import { jsonPayload, type Integration, type WebhookMessage } from './types.ts';

/** What an execution's status (and, while running, the notification's trigger) says, with its emoji. */
function outcome(p: Wild, status: Wild): [string, string] {
  switch (status.str()) {
    case 'failed':
      return ['has failed', 'cross_mark'];
    case 'succeeded':
      return ['has succeeded', 'check'];
    case 'running':
      return p.at('trigger').str() === 'avgduration' ? ['is running long', 'time_ticking'] : ['has started', 'running'];
    case 'scheduled':
      return ['has started', 'running'];
    default:
      throw badRequest(`${status.name} is not a status the Rundeck webhook describes: ${status.str()}`);
  }
}

export const rundeck: Integration = {
  name: 'Rundeck',
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const execution = p.at('execution');
    const job = execution.at('job');
    const jobName = job.at('name').str();
    const jobLink = job.at('permalink').str();
    const id = execution.at('id').int();
    const link = execution.at('href').str();
    const project = execution.at('project').str();
    const [status, emoji] = outcome(p, execution.at('status'));
    return [{ topic: jobName, body: `[${jobName}](${jobLink}) execution [#${id}](${link}) for ${project} ${status}. :${emoji}:` }];
  },
};
