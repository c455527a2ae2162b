/**
 * Jira (/api/v1/external/jira; the event is the payload's `webhookEvent`):
 * issues created, updated (comments, changes from the changelog, status
 * transitions) and deleted, and the newer comment events, with Zulip's
 * texts; topic: the issue's key and summary. Jira's wiki markup in comments
 * is turned into Markdown as Zulip does, and people Jira names are looked up
 * among the organization's accounts. Jira escapes the webhook's URL twice,
 * so `stream` and `topic` are decoded once more.
 */
import { ApiError } from '../errors.ts';
import { Wild } from './wild.ts';
import { anomalousPayload, guessUser, jsonPayload, unsupportedEvent, type Integration, type WebhookMessage, type WebhookUser } from './types.ts';
import { endsWithPunctuation } from './python-text.ts';

const NAME = 'Jira';

/** Events Jira sends that are acknowledged without a message. */
const IGNORED_EVENTS = [
  'attachment_created',
  'issuelink_created',
  'issuelink_deleted',
  'jira:version_released',
  'jira:worklog_updated',
  'sprint_closed',
  'sprint_started',
  'worklog_created',
  'worklog_updated',
];

/** Python's string.punctuation. */

/** payload[k1][k2]... or a string default where any step is missing or not a dict (Zulip's get_in). */
function getIn(p: Wild, keys: string[], fallback = ''): Wild {
  try {
    let w = p;
    for (const k of keys) w = w.at(k);
    return w;
  } catch (e) {
    if (e instanceof ApiError) return new Wild('default', fallback);
    throw e;
  }
}

/** Jira's wiki markup as Markdown (Zulip's convert_jira_markup). */
export function convertJiraMarkup(content: string, users: readonly WebhookUser[]): string {
  let c = content;
  c = c.replace(/\*([^*]+)\*/g, (_m, s: string) => `**${s}**`);
  c = c.replace(/\{\{([^*]+?)\}\}/g, (_m, s: string) => `\`${s}\``);
  c = c.replace(/bq\. (.*)/g, (_m, s: string) => `> ${s}`);
  c = c.replace(/\{quote\}([\s\S]*?)\{quote\}/g, (_m, s: string) => `~~~ quote\n${s}\n~~~`);
  c = c.replace(/\{noformat\}([\s\S]*?)\{noformat\}/g, (_m, s: string) => `~~~\n${s}\n~~~`);
  c = c.replace(/\{code[^\n]*\}([\s\S]*?)\{code\}/g, (_m, s: string) => `~~~\n${s}\n~~~`);
  c = c.replace(/\[([^|~]+?)\]/g, (_m, s: string) => `[${s}](${s})`);
  c = c.replace(/\[(?:([^|~]+)\|)([^\]]*)\]/g, (_m, title: string, url: string) => `[${title}](${url})`);
  for (const [, username] of [...c.matchAll(/\[~(.*?)\]/g)]) {
    const user = guessUser(username, users);
    c = c.split(`[~${username}]`).join(`**${user ? user.full_name : username}**`);
  }
  return c;
}

function issueId(p: Wild): string {
  // Some old Jira versions send comment events without the issue: its internal number is in the comment's address.
  if (!p.has('issue')) return p.at('comment').at('self').str().split('/').at(-3) ?? '';
  return getIn(p, ['issue', 'key']).str();
}

function issueTitle(p: Wild): string {
  if (!p.has('issue')) return 'Upgrade Jira to get the issue title here.';
  return getIn(p, ['issue', 'fields', 'summary']).str();
}

/** The issue as a link to its page, guessed from the issue's REST address. */
function issueString(p: Wild, id: string | null, withTitle: boolean): string {
  const key = id ?? issueId(p);
  const text = withTitle ? `${key}: ${issueTitle(p)}` : key;
  const base = /^(.*)\/rest\/api\/.*/.exec(getIn(p, ['issue', 'self']).str());
  return base ? `[${text}](${base[1]}/browse/${key})` : text;
}

function assigneeMention(email: string, users: readonly WebhookUser[]): string {
  if (email === '') return '';
  const wanted = email.trim().toUpperCase();
  const user = users.find((u) => !u.is_system_bot && u.delivery_email.toUpperCase() === wanted);
  return `**${user ? user.full_name : email}**`;
}

const issueAuthor = (p: Wild): string => getIn(p, ['user', 'displayName']).str();

function subEventOfUpdate(p: Wild): string {
  const sub = p.get('issue_event_type_name', '').str();
  if (sub === '') {
    if (p.get('comment').truthy) return 'issue_commented';
    if (p.get('transition').truthy) return 'issue_transited';
  }
  return sub;
}

function changeInfo(field: string | null, from: string | null, to: string | null): string {
  let line = `* Changed ${field ?? 'None'}`;
  if (from) line += ` from **${from}**`;
  if (to) line += ` to ${to}\n`;
  return line;
}

function updatedIssue(p: Wild, users: readonly WebhookUser[]): string {
  const id = getIn(p, ['issue', 'key']).str();
  const issue = issueString(p, id, true);
  const mention = assigneeMention(getIn(p, ['issue', 'fields', 'assignee', 'emailAddress'], '').str(), users);
  const blurb = mention !== '' ? ` (assigned to ${mention})` : '';
  const sub = subEventOfUpdate(p);
  if (sub.includes('comment')) {
    const verb = sub === 'issue_commented' ? 'commented on' : sub === 'issue_comment_edited' ? 'edited a comment on' : 'deleted a comment from';
    const author = p.get('webhookEvent').value === 'comment_created' ? p.at('comment').at('author').at('displayName').str() : issueAuthor(p);
    const head = `${author} ${verb} ${issue}${blurb}`;
    const comment = getIn(p, ['comment', 'body']).str();
    return comment ? `${head}:\n\n\`\`\` quote\n${convertJiraMarkup(comment, users)}\n\`\`\`` : `${head}.`;
  }
  let content = `${issueAuthor(p)} updated ${issue}${blurb}:\n\n`;
  const changelog = p.get('changelog');
  if (changelog.truthy) {
    for (const item of changelog.get('items').list()) {
      const field = item.get('field').strOrNull();
      const to = field === 'assignee' && mention !== '' ? mention : `**${item.get('toString').strOrNull() ?? 'None'}**`;
      const from = item.get('fromString').strOrNull();
      content += changeInfo(field, from, to);
    }
  } else if (sub === 'issue_transited') {
    const from = getIn(p, ['transition', 'from_status']).str();
    const to = `**${getIn(p, ['transition', 'to_status']).str()}**`;
    content += changeInfo('status', from, to);
  }
  return content;
}

function createdIssue(p: Wild): string {
  return (
    `${issueAuthor(p)} created ${issueString(p, null, true)}:\n\n` +
    `* **Priority**: ${getIn(p, ['issue', 'fields', 'priority', 'name']).str()}\n` +
    `* **Assignee**: ${getIn(p, ['issue', 'fields', 'assignee', 'displayName'], 'no one').str()}`
  );
}

function deletedIssue(p: Wild): string {
  const title = issueTitle(p);
  // Zulip ends the sentence with a full stop unless the title ends with punctuation (an empty title gets one here).
  const end = endsWithPunctuation(title) ? '' : '.';
  return `${issueAuthor(p)} deleted ${issueString(p, null, true)}${end}`;
}

/** The newer comment events: the comment quoted as Jira sent it (with Jira's `\\!` as `!`). */
function commentEvent(p: Wild, did: string, strike: boolean): string {
  const author = p.at('comment').at('author').at('displayName').str();
  const issue = issueString(p, null, true);
  const body = p.at('comment').at('body').str().split('\\!').join('!');
  return `${author} ${did} on ${issue}\n\`\`\` quote\n${strike ? `~~${body}~~` : body}\n\`\`\`\n`;
}

const HANDLERS: Record<string, (p: Wild, users: readonly WebhookUser[]) => string> = {
  'jira:issue_created': (p) => createdIssue(p),
  'jira:issue_deleted': (p) => deletedIssue(p),
  'jira:issue_updated': updatedIssue,
  comment_created: (p) => commentEvent(p, 'commented', false),
  comment_updated: (p) => commentEvent(p, 'updated their comment', false),
  comment_deleted: (p) => commentEvent(p, 'deleted their comment', true),
};

export const jira: Integration = {
  name: NAME,
  eventTypes: Object.keys(HANDLERS),
  unquoteUrlParameters: true,
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    let event = p.get('webhookEvent').strOrNull();
    if (event === null && p.get('transition').truthy) event = 'jira:issue_updated';
    if (event !== null && IGNORED_EVENTS.includes(event)) return [];
    if (event === null) throw anomalousPayload(NAME);
    const handler = Object.prototype.hasOwnProperty.call(HANDLERS, event) ? HANDLERS[event] : undefined;
    if (!handler) throw unsupportedEvent(NAME, event);
    const topic = `${issueId(p)}: ${issueTitle(p)}`;
    return [{ topic, body: handler(p, req.users()), eventType: event }];
  },
};
