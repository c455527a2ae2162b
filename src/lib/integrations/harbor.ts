/**
 * Harbor (/api/v1/external/harbor; the event is the payload's `type`): an
 * image pushed (by its operator) and an image's vulnerability scan
 * completed (the count of each severity); pulls, deletions, chart events
 * and failed scans are acknowledged without a message. The image is named
 * by its tag, else its digest. Topic: the repository's full name. Harbor's
 * URLs may be escaped twice, so `stream` and `topic` are decoded once more.
 */
import { pyRepr, type Wild } from './wild.ts';
import { guessUser, jsonPayload, unsupportedEvent, type Integration, type WebhookMessage, type WebhookUser } from './types.ts';

const NAME = 'Harbor';

const IGNORED_EVENTS = ['DOWNLOAD_CHART', 'DELETE_CHART', 'UPLOAD_CHART', 'PULL_ARTIFACT', 'DELETE_ARTIFACT', 'SCANNING_FAILED'];

/** The scan report Harbor's scanners write (Trivy's, for one). */
const VULNERABILITY_REPORT = 'application/vnd.security.vulnerability.report; version=1.1';

const repoName = (p: Wild): string => p.at('event_data').at('repository').at('repo_full_name').str();

/** The first resource's image: `<repository>:<tag>`, or `<repository>@<digest>` without a tag. */
function imageId(p: Wild): string {
  const resource = p.at('event_data').at('resources').at(0);
  return resource.has('tag') ? `${repoName(p)}:${resource.at('tag').str()}` : `${repoName(p)}@${resource.at('digest').str()}`;
}

function pushedImage(p: Wild, operator: string): string {
  return `${operator} pushed image \`${imageId(p)}\``;
}

function scanCompleted(p: Wild): string {
  const overview = p.at('event_data').at('resources').at(0).at('scan_overview');
  // A report of another kind is an event this integration does not describe: named by the report kinds it has.
  if (!overview.has(VULNERABILITY_REPORT)) throw unsupportedEvent(NAME, `[${overview.keys().map(pyRepr).join(', ')}]`);
  const summaries = overview.at(VULNERABILITY_REPORT).at('summary').at('summary');
  const results = summaries.length() > 0 ? summaries.entries().map(([severity, count]) => `* ${severity}: **${count.int()}**\n`).join('') : 'None\n';
  return `Image scan completed for \`${imageId(p)}\`. Vulnerabilities by severity:\n\n${results}`;
}

const HANDLERS: Record<string, (p: Wild, operator: string) => string> = {
  PUSH_ARTIFACT: pushedImage,
  SCANNING_COMPLETED: scanCompleted,
};

/**
 * The operator in bold, or a mention of the account that name stands for.
 * The name looked up is the bolded one, as Zulip looks it up: names cannot
 * hold "*", so in practice only an account whose address starts with
 * `**<operator>**` is mentioned.
 */
function operatorName(p: Wild, users: readonly WebhookUser[]): string {
  const bold = `**${p.at('operator').str()}**`;
  const user = guessUser(bold, users);
  return user ? `@**${user.full_name}**` : bold;
}

export const harbor: Integration = {
  name: NAME,
  eventTypes: Object.keys(HANDLERS),
  unquoteUrlParameters: true,
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const operator = operatorName(p, req.users());
    const event = p.at('type').str();
    const topic = repoName(p);
    if (IGNORED_EVENTS.includes(event)) return [];
    const handler = Object.prototype.hasOwnProperty.call(HANDLERS, event) ? HANDLERS[event] : undefined;
    if (!handler) throw unsupportedEvent(NAME, event);
    return [{ topic, body: handler(p, operator), eventType: event }];
  },
};
