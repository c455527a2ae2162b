/**
 * Sentry (/api/v1/external/sentry), with Zulip's topics and texts: an event
 * (an exception, with the lines around the failing one from the frame of the
 * file Sentry names, or a message) from an internal integration's alert rule
 * or from the legacy webhook plugin (whose payload has no `data`: the event's
 * link and time are made from the issue's URL and the event's timestamp),
 * an issue created, resolved, assigned or ignored, and the oldest plugin's
 * payload. The topic is the event's or issue's title (the project's name for
 * the oldest payload). Events from the retired Raven Python SDK are refused
 * as Zulip refuses them.
 */
import { badRequest } from '../errors.ts';
import { pyStr, pyValueRepr, Wild } from './wild.ts';
import { isoGlobalTime, jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';

const NAME = 'Sentry';

/** Sentry's platform names and the code block language of their traceback (Zulip's map). */
const LANGUAGE_OF_PLATFORM: Record<string, string> = { go: 'go', java: 'java', javascript: 'javascript', node: 'javascript', python: 'python3', ruby: 'ruby' };

/** Source lines, each indented as the failing line's marker is wide; empty lines stay empty. */
function sourceLines(lines: Wild): string {
  if (lines.isNull) return '';
  return lines
    .list()
    .map((line) => {
      const s = line.str();
      return s === '' ? '\n' : `     ${s}\n`;
    })
    .join('');
}

/** The `quote` block every event and issue message starts with: bold labels, one a line. */
function facts(head: string, rows: Array<[string, string]>): string {
  return `${head}\n\`\`\`quote\n${rows.map(([k, v]) => `**${k}:** ${v}`).join('\n')}\n\`\`\`\n`;
}

/** Zulip's heuristic for Sentry's sample event, accepted though it carries an old SDK version. */
const isSampleEvent = (event: Wild): boolean => event.get('title', '').value === 'This is an example Python exception';

function eventMessage(event: Wild): WebhookMessage {
  const title = event.at('title').str();
  const platform = event.at('platform').str();
  const language = LANGUAGE_OF_PLATFORM[platform] ?? '';
  if (platform === 'python' && !isSampleEvent(event)) {
    const version = Number.parseInt(pyStr(event.at('version').value), 10);
    if (version < 7) throw unsupportedEvent(NAME, 'Raven SDK');
  }
  const link = `[${title}](${event.at('web_url').str()})`;
  const common: Array<[string, string]> = [
    ['level', event.at('level').str()],
    ['timestamp', isoGlobalTime(event.at('datetime'))],
  ];
  if (event.has('exception')) {
    const filename = event.at('metadata').get('filename').strOrNull();
    const head = facts(`**New exception:** ${link}`, [...common, ['filename', filename ?? 'None']]);
    const withStack = event
      .at('exception')
      .at('values')
      .list()
      .reverse()
      .find((v) => v.has('stacktrace'));
    if (withStack && withStack.at('stacktrace').truthy && filename) {
      const frame = withStack
        .at('stacktrace')
        .at('frames')
        .list()
        .reverse()
        .find((f) => f.get('filename').value === filename);
      if (frame && frame.has('context_line') && !frame.at('context_line').isNull) {
        const traceback =
          `${sourceLines(frame.get('pre_context'))}---> ${frame.at('context_line').str()}\n` + sourceLines(frame.get('post_context'));
        return { topic: title, body: `${head}\nTraceback:\n\`\`\`${language}\n${traceback}\`\`\`` };
      }
    }
    return { topic: title, body: head };
  }
  if (event.has('logentry')) return { topic: title, body: facts(`**New message event:** ${link}`, common) };
  throw unsupportedEvent(NAME, 'unknown-event type');
}

function issueMessage(action: string, issue: Wild, actor: Wild): WebhookMessage {
  const title = issue.at('title').str();
  // Read for every action, as Zulip reads it, though only a new issue's text shows it.
  const lastSeen = isoGlobalTime(issue.at('lastSeen'));
  const assignedTo = issue.at('assignedTo');
  let assignee = 'No one';
  if (assignedTo.truthy) {
    const name = assignedTo.at('name').str();
    assignee = assignedTo.at('type').value === 'team' ? `team ${name}` : name;
  }
  let body: string;
  if (action === 'created') {
    body = facts(`**New issue created:** ${title}`, [
      ['level', issue.at('level').str()],
      ['timestamp', lastSeen],
      ['assignee', assignee],
    ]);
  } else if (action === 'resolved') body = `Issue **${title}** was marked as resolved by **${actor.at('name').str()}**.`;
  else if (action === 'assigned') body = `Issue **${title}** has now been assigned to **${assignee}** by **${actor.at('name').str()}**.`;
  else if (action === 'ignored') body = `Issue **${title}** was ignored by **${actor.at('name').str()}**.`;
  else throw unsupportedEvent(NAME, `${action} action`);
  return { topic: title, body };
}

/** A Unix time as an ISO date in UTC (Python's `datetime.fromtimestamp(t, utc).isoformat()`), to the second. */
function timeOfTimestamp(time: Wild): string {
  const at = new Date(Math.floor(Math.round(time.num() * 1e6) / 1e6) * 1000);
  if (Number.isNaN(at.getTime())) throw badRequest(`${time.name} is not a valid timestamp`);
  return at.toISOString();
}

/** Python's urljoin of a relative path to the issue's URL (to one without a scheme as a relative path: "a/b" and "x/" give "a/x/"). */
function joinUrl(base: Wild, path: string): string {
  const s = base.str();
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(s)) return s.slice(0, s.lastIndexOf('/') + 1) + path;
  try {
    return new URL(path, base.url()).href;
  } catch {
    throw badRequest(`${base.name} is not a URL`);
  }
}

export const sentry: Integration = {
  name: NAME,
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const data = p.get('data');
    if (data.isNull) {
      // The legacy webhook plugin: the event without its link and time, which come from the issue's URL.
      const event = p.get('event', {});
      if (event.get('event_id').truthy) {
        const id = pyStr(event.at('event_id').value);
        const time = event.has('timestamp') ? event.at('timestamp') : event.at('received');
        const patched = {
          ...(event.value as Record<string, unknown>),
          web_url: joinUrl(p.at('url'), `events/${id}/`),
          datetime: timeOfTimestamp(time),
        };
        return [eventMessage(new Wild(event.name, patched))];
      }
    } else if (data.truthy) {
      if (data.has('event')) return [eventMessage(data.at('event'))];
      if (data.has('issue')) return [issueMessage(p.at('action').str(), data.at('issue'), p.at('actor'))];
      throw unsupportedEvent(NAME, pyValueRepr(data.keys()));
    }
    // The oldest plugin's payload: the project, the level and the message.
    return [
      {
        topic: pyStr(p.get('project_name').value),
        body: `New [issue](${pyStr(p.get('url').value)}) (level: ${p.at('level').str().toUpperCase()}):\n\n\`\`\` quote\n${pyStr(p.get('message').value)}\n\`\`\``,
      },
    ];
  },
};
