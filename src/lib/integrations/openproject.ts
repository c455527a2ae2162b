/**
 * OpenProject (/api/v1/external/openproject): projects created (as a
 * sub-project of their parent, where they have one) and updated, work
 * packages created and updated, time logged (the ISO 8601 duration spelt
 * out, on the work package or else the project) and attachments uploaded.
 * The payload's `action` (`<item>:<action>`) says what happened; the
 * messages are sent whatever only_events / exclude_events ask, as the
 * event type is not matched against them. Topic: the project's name.
 */
import { badRequest } from '../errors.ts';
import type { Wild } from './wild.ts';
import { jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';

const NAME = 'OpenProject';

const EVENT_TYPES = [
  'project:created',
  'project:updated',
  'work_package:created',
  'work_package:updated',
  'time_entry:created',
  'attachment:created',
] as const;

/** The most digits a number may have in a duration (longer ones make the duration unreadable, as for Python's int()). */
const MAX_DIGITS = 4300;

const DURATION = /^P(?:(\p{Nd}+)D)?(?:T(?:(\p{Nd}+)H)?(?:(\p{Nd}+)M)?(?:(\p{Nd}+)S)?)?$/u;

const isDecimalDigit = (cp: number): boolean => /^\p{Nd}$/u.test(String.fromCodePoint(cp));

/**
 * The value of a run of decimal digits of any script: Unicode lays each
 * script's digits out as runs of ten from zero, so a digit's value is its
 * place in its run, modulo ten.
 */
function digitsValue(digits: string): bigint {
  if (/^[0-9]+$/.test(digits)) return BigInt(digits);
  let ascii = '';
  for (const ch of digits) {
    let cp = ch.codePointAt(0)!;
    let place = 0;
    while (place < 60 && isDecimalDigit(cp - 1)) {
      cp--;
      place++;
    }
    ascii += String(place % 10);
  }
  return BigInt(ascii);
}

/** An ISO 8601 duration (`PT7H42M`) in words ("7 hours and 42 minutes"); null where it is not one. */
function formatDuration(w: Wild): string | null {
  const m = DURATION.exec(w.str());
  if (!m) return null;
  const units = ['days', 'hours', 'minutes', 'seconds'];
  const parts: string[] = [];
  for (let i = 0; i < units.length; i++) {
    const digits = m[i + 1];
    if (digits === undefined) continue;
    if ([...digits].length > MAX_DIGITS) return null;
    const n = digitsValue(digits);
    parts.push(`${n} ${n === 1n ? units[i]!.slice(0, -1) : units[i]}`);
  }
  if (parts.length === 0) throw badRequest(`${w.name} is a duration of no time: ${w.str()}`);
  if (parts.length === 1) return parts[0]!;
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

function projectMessage(data: Wild, action: string): WebhookMessage {
  const parent = data.get('_embedded', {}).get('parent', {}).get('name', '').str();
  const name = data.at('name').str();
  const parentText = parent && action === 'created' ? ` as a sub-project of **${parent}**` : '';
  return { topic: name, body: `Project **${name}** was ${action}${parentText}.` };
}

function workPackageMessage(data: Wild, action: string): WebhookMessage {
  const subject = data.at('subject').str();
  const embedded = data.at('_embedded');
  const type = embedded.at('type').at('name').str();
  const author = embedded.at('author').at('name').str();
  return { topic: embedded.at('project').at('name').str(), body: `**${subject}** (work package **${type}**) was ${action} by **${author}**.` };
}

function attachmentMessage(data: Wild): WebhookMessage {
  const fileName = data.at('fileName').str();
  const embedded = data.at('_embedded');
  const author = embedded.at('author').at('name').str();
  const container = embedded.at('container');
  const body = `**${author}** uploaded **${fileName}** in **${container.at('subject').str()}**.`;
  return { topic: container.at('_links').at('project').at('title').str(), body };
}

function timeEntryMessage(data: Wild): WebhookMessage {
  const project = data.at('_embedded').at('project').at('name').str();
  const workPackage = data.get('_embedded', {}).get('workPackage', {}).get('subject', '').str();
  const duration = formatDuration(data.at('hours'));
  const user = data.at('_embedded').at('user').at('name').str();
  const logged = duration === null ? 'a time entry' : `**${duration}**`;
  return { topic: project, body: `**${user}** logged ${logged} on **${workPackage || project}**.` };
}

export const openproject: Integration = {
  name: NAME,
  eventTypes: EVENT_TYPES,
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const eventType = p.at('action').str();
    const parts = eventType.split(':');
    if (parts.length !== 2) throw badRequest(`${p.at('action').name} is not of the form <item>:<action>: ${eventType}`);
    const [item, action] = parts as [string, string];
    const data = p.at(item);
    if (item === 'project') return [projectMessage(data, action)];
    if (item === 'work_package') return [workPackageMessage(data, action)];
    if (item === 'attachment') return [attachmentMessage(data)];
    if (item === 'time_entry') return [timeEntryMessage(data)];
    throw unsupportedEvent(NAME, eventType);
  },
};
