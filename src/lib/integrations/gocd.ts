/**
 * GoCD (/api/v1/external/gocd, from the GoCD WebHook Notification plugin):
 * a stage building, or finished (passed or failed) with its jobs grouped by
 * result; the commit that caused it is linked in its Git repository.
 * Other notifications (`type` other than `stage`, such as agent status) post
 * nothing. Topic: `<pipeline> / <stage>`.
 */
import { shortSha } from './git.ts';
import type { Wild } from './wild.ts';
import { jsonPayload, type Integration, type WebhookMessage } from './types.ts';

/** The first build cause's commit, linked, and its branch. */
function commitDetails(pipeline: Wild): string {
  const cause = pipeline.at('build-cause').at(0);
  const git = cause.at('material').at('git-configuration');
  const urlBase = git.at('url').str();
  const sha = shortSha(cause.at('modifications').at(0).at('revision').str());
  const branch = git.at('branch').str();
  return `[\`${sha}\`](${urlBase}/commit/${sha}) on branch \`${branch}\``;
}

/** One line per job result (in the order results first appear), naming its jobs. */
function jobLines(stage: Wild): string {
  const byResult = new Map<string, string[]>();
  for (const job of stage.at('jobs').list()) {
    const name = job.at('name').str();
    const result = job.at('result').str();
    const names = byResult.get(result) ?? [];
    names.push(`\`${name}\``);
    byResult.set(result, names);
  }
  return [...byResult].map(([result, names]) => `- **${result}**: ${names.join(', ')}\n`).join('');
}

function body(pipeline: Wild): string {
  const commit = commitDetails(pipeline);
  const stage = pipeline.at('stage');
  const status = stage.at('state').str().toLowerCase();
  const heading = `${pipeline.at('name').str()} / ${stage.at('name').str()}`;
  const started = stage.at('create-time').str();
  if (status === 'building') return `**Pipeline ${status}**: ${heading}\n- **Commit**: ${commit}\n- **Started**: <time:${started}>\n`;
  const emoji = stage.at('result').str() === 'Passed' ? ':green_circle:' : ':red_circle:';
  const finished = stage.at('last-transition-time').str();
  return `${emoji} **Build ${status}**: ${heading}\n- **Commit**: ${commit}\n- **Started**: <time:${started}>\n- **Finished**: <time:${finished}>\n${jobLines(stage)}`;
}

export const gocd: Integration = {
  name: 'Gocd',
  displayName: 'GoCD',
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    if (p.at('type').str() !== 'stage') return [];
    const pipeline = p.at('data').at('pipeline');
    const text = body(pipeline);
    return [{ topic: `${pipeline.at('name').str()} / ${pipeline.at('stage').at('name').str()}`, body: text }];
  },
};
