/**
 * SonarQube (/api/v1/external/sonarqube): a project's analysis and its
 * quality gate, with the conditions that failed (each metric, its value,
 * and what it should have been), in Zulip's texts; topic "<project> /
 * <branch>", or the project alone when the payload names no branch.
 */
import type { Wild } from './wild.ts';
import { jsonPayload, type Integration, type WebhookMessage } from './types.ts';
import { TOPIC_WITH_BRANCH } from './git.ts';

/** What a failed condition's threshold means, by SonarQube's operator. */
const SHOULD: Record<string, string> = {
  WORSE_THAN: 'should be better or equal to',
  GREATER_THAN: 'should be less than or equal to',
  LESS_THAN: 'should be greater than or equal to',
};

function condition(c: Wild): string {
  const metric = c.at('metric').str().split('_').join(' ');
  const operator = c.at('operator').str();
  const value = c.get('value', 'no value').str();
  const status = c.at('status').str().toLowerCase();
  const threshold = c.at('errorThreshold').str();
  if (value === 'no value') return `* ${metric}: **${status}**.`;
  return `* ${metric}: **${status}** ${value} ${SHOULD[operator] ?? operator} ${threshold}.`;
}

/** Read in Zulip's order (project, its link, the gate's status, the conditions), so that a payload missing several is refused naming the same field. */
function body(p: Wild, branch: string | null): string {
  const project = p.at('project');
  const [name, url] = [project.at('name').str(), project.at('url').str()];
  const gate = p.at('qualityGate');
  const result = gate.at('status').str().toLowerCase() === 'ok' ? 'success' : 'error';
  const failed = gate
    .at('conditions')
    .list()
    .filter((c) => !['ok', 'no_value'].includes(c.at('status').str().toLowerCase()))
    .map(condition);
  const analysis = branch === null ? 'analysis' : `analysis of branch ${branch}`;
  const head = `Project [${name}](${url}) ${analysis} resulted in ${result}`;
  return failed.length === 0 ? `${head}.` : `${head}:\n${failed.join('\n')}`;
}

export const sonarqube: Integration = {
  name: 'Sonarqube',
  displayName: 'SonarQube',
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const project = p.at('project').at('name').str();
    const branch = p.has('branch') ? p.at('branch').get('name').strOrNull() : null;
    if (branch) return [{ topic: TOPIC_WITH_BRANCH(project, branch), body: body(p, branch) }];
    return [{ topic: project, body: body(p, null) }];
  },
};
