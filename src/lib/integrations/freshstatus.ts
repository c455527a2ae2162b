/**
 * Freshstatus (/api/v1/external/freshstatus), from the "Advanced" JSON
 * templates Zulip's setup gives: incidents opened (description, start time,
 * the affected services, five at most and how many more), their notes and
 * closing notes, scheduled maintenance planned (its scheduled start and
 * end), its notes and closing notes, and Freshstatus's test (an incident
 * with ID "1"). Other events post "The event (...) is not supported yet.";
 * Freshstatus's `event_type` is the event type. A payload missing what the
 * message needs is refused as "Invalid payload" and the bot's owner is told
 * to check the webhook's settings. Topic: the incident's or maintenance's
 * title, or `Freshstatus` for the test.
 */
import { ApiError } from '../errors.ts';
import { setupMessage } from './git.ts';
import { Wild } from './wild.ts';
import { isoGlobalTime, jsonPayload, MisconfiguredPayload, type Integration, type WebhookMessage } from './types.ts';

const NAME = 'Freshstatus';
const EVENT_TYPES = ['MAINTENANCE_NOTE_CREATE', 'INCIDENT_NOTE_CREATE', 'INCIDENT_OPEN', 'MAINTENANCE_PLANNED', 'INCIDENT_REOPEN'];
const SERVICES_SHOWN = 5;

const MISCONFIGURED =
  'Hi there! Your bot {bot_name} just received a Freshstatus payload that is missing\n' +
  'some data that Zulip requires. This usually indicates a configuration issue\n' +
  'in your Freshstatus webhook settings. Please make sure that you provide all the required parameters\n' +
  'when configuring the Freshstatus webhook. Contact {support_email} if you\n' +
  'need further help!';

/** A time that is not an ISO date: answered as such, not as a payload missing data. */
class UnreadableTime extends ApiError {}

function time(w: Wild): string {
  const s = w.str();
  try {
    return isoGlobalTime(new Wild(w.name, s));
  } catch (e) {
    throw e instanceof ApiError ? new UnreadableTime(e.message) : e;
  }
}

/** The affected services (Freshstatus sends them comma-separated), the first five as a list. */
function services(p: Wild): string {
  const names = p.at('affected_services').str().split(',');
  let text = names
    .slice(0, SERVICES_SHOWN)
    .map((name) => `* ${name}\n`)
    .join('');
  if (names.length > SERVICES_SHOWN) text += `[and ${names.length - SERVICES_SHOWN} more service(s)]`;
  return text.trimEnd();
}

const isTest = (p: Wild, event: string): boolean => event === 'INCIDENT_OPEN' && p.at('id').str() === '1';

function note(p: Wild, closed: string, added: string): string {
  const title = p.at('title').str();
  const message = p.at('message').str();
  return `The following ${p.at('incident_status').str() === 'Closed' ? closed : added}: **${title}**\n**Note:** ${message}`;
}

function body(p: Wild, event: string): string {
  if (isTest(p, event)) return setupMessage(NAME);
  if (event === 'INCIDENT_OPEN') {
    const list = services(p);
    const head = `The following incident has been opened: **${p.at('title').str()}**\n**Description:** ${p.at('description').str()}`;
    return `${head}\n**Start Time:** ${time(p.at('start_time'))}\n**Affected Services:**\n${list}`;
  }
  if (event === 'INCIDENT_NOTE_CREATE') {
    const status = p.at('incident_status').str();
    if (status === 'Closed' || status === 'Open') return note(p, 'incident has been closed', 'note has been added to the incident');
  } else if (event === 'MAINTENANCE_PLANNED') {
    const list = services(p);
    const head = `The following scheduled maintenance has been opened: **${p.at('title').str()}**\n**Description:** ${p.at('description').str()}`;
    const start = time(p.at('scheduled_start_time'));
    const end = time(p.at('scheduled_end_time'));
    return `${head}\n**Scheduled Start Time:** ${start}\n**Scheduled End Time:** ${end}\n**Affected Services:**\n${list}`;
  } else if (event === 'MAINTENANCE_NOTE_CREATE') {
    return note(p, 'scheduled maintenance has been closed', 'note has been added to the scheduled maintenance');
  }
  return `The event (${event}) is not supported yet.`;
}

export const freshstatus: Integration = {
  name: NAME,
  eventTypes: EVENT_TYPES,
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    try {
      const event = p.at('event_data').at('event_type').str();
      const text = body(p, event);
      const topic = isTest(p, event) ? NAME : p.at('title').str();
      return [{ topic, body: text, eventType: event }];
    } catch (e) {
      if (e instanceof ApiError && e.code === 'BAD_REQUEST' && !(e instanceof UnreadableTime)) throw new MisconfiguredPayload('Invalid payload', MISCONFIGURED, e);
      throw e;
    }
  },
};
