/**
 * dbt Cloud (/api/v1/external/dbt): a job's run started, succeeded,
 * completed with errors or failed, in its environment, with why it ran and
 * when; the run and job linked where the URL names the account's
 * `access_url`. Delighted (/api/v1/external/delighted): a survey response,
 * from a promoter (a score of 7 or more) or not, quoted. Topics: the dbt
 * project's name; `Survey response`.
 */
import { jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';

const RUNS: Record<string, Record<string, [string, string]>> = {
  'job.run.started': { running: [':yellow_circle:', 'started'] },
  'job.run.completed': { success: [':green_circle:', 'succeeded'], errored: [':cross_mark:', 'completed with errors'] },
  'job.run.errored': { errored: [':cross_mark:', 'failed'] },
};

/** Python's urljoin of an absolute path onto the access URL: its scheme and host, the path replaced. */
function joinPath(base: string, path: string): string {
  try {
    return new URL(path, base).toString();
  } catch {
    return path;
  }
}

export const dbt: Integration = {
  name: 'DBT',
  eventTypes: Object.keys(RUNS),
  urlOptions: [{ key: 'access_url', label: 'DBT Access URL', validator: 'check_string' }],
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const account = p.at('accountId').int();
    const eventType = p.at('eventType').str();
    const d = p.at('data');
    const [jobId, jobName, project, projectId, environment, runId, started] = ['jobId', 'jobName', 'projectName', 'projectId', 'environmentName', 'runId', 'runStartedAt'].map((k) =>
      d.at(k).str(),
    ) as [string, string, string, string, string, string, string];
    const status = d.at('runStatus').str().toLowerCase();
    const reason = d.at('runReason').str();
    const statuses = Object.hasOwn(RUNS, eventType) ? RUNS[eventType]! : null;
    if (!statuses || !Object.hasOwn(statuses, status)) throw unsupportedEvent('DBT', statuses ? `${eventType} (${status})` : eventType);
    const [emoji, verb] = statuses[status]!;
    const access = req.param('access_url');
    const projectUrl = access ? joinPath(access, `/deploy/${account}/projects/${projectId}`) : null;
    const job = projectUrl ? `[Job #${jobId}](${projectUrl}/jobs/${jobId})` : `Job #${jobId}`;
    const run = projectUrl ? `[deployment](${projectUrl}/runs/${runId})` : 'deployment';
    const body = `${emoji} ${jobName} ${run} ${verb} in **${environment}**.\n\n${job} was ${reason.slice(0, 1).toLowerCase()}${reason.slice(1)} at <time:${started}>.`;
    return [{ topic: project, body, eventType }];
  },
};

export const delighted: Integration = {
  name: 'Delighted',
  handle(req): WebhookMessage[] {
    const data = jsonPayload(req).at('event_data');
    const email = data.at('person').at('email').str();
    const score = data.at('score').int();
    const comment = data.at('comment').str();
    const head = score >= 7 ? 'Kudos! You have a new promoter.' : 'Great! You have new feedback.';
    return [{ topic: 'Survey response', body: `${head} Score of ${score}/10 from ${email}:\n\n\`\`\` quote\n${comment}\n\`\`\`` }];
  },
};
