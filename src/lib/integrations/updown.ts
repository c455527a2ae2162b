/**
 * Updown (/api/v1/external/updown): a list of events, each a check going
 * down (with its error and since when) or coming back up (with how long it
 * was down); topic: the checked URL. Event types: `up`, `down`. An event
 * that cannot be read stops the list there, after the messages before it.
 */
import type { Wild } from './wild.ts';
import { eventByEvent, isoGlobalTime, jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';

const NAME = 'Updown';
const EVENTS = ['up', 'down'];

/** "4 minutes 25 seconds": the nonzero parts of a duration in seconds. */
function duration(seconds: number): string {
  const days = Math.floor(seconds / 86400);
  const hours = Math.floor((seconds % 86400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const secs = seconds % 60;
  const part = (n: number, unit: string): string => (n === 1 ? `1 ${unit} ` : n > 1 ? `${n} ${unit}s ` : '');
  return (part(days, 'day') + part(hours, 'hour') + part(minutes, 'minute') + part(secs, 'second')).trimEnd();
}

function upBody(event: Wild): string {
  let body = 'Service is `up`';
  const downtime = event.at('downtime');
  if (downtime.at('started_at').strOrNull()) {
    body += ' again';
    const seconds = downtime.at('duration').isNull ? null : downtime.at('duration').int();
    if (seconds) {
      const text = duration(seconds);
      if (text) body += ` after ${text}`;
    }
  }
  return `${body}.`;
}

function downBody(event: Wild): string {
  const downtime = event.at('downtime');
  const since = isoGlobalTime(downtime.at('started_at'));
  const error = downtime.at('error').strOrNull() ?? 'None';
  return `Service is \`down\`. It returned a ${error} error at ${since}.`;
}

function eventType(event: Wild): string {
  const name = event.at('event').str();
  // Python's re.match(r"check.(.*)"): any character after "check" but a new line, then the rest of that line.
  const m = /^check[^\n]([^\n]*)/.exec(name);
  if (m && EVENTS.includes(m[1])) return m[1];
  throw unsupportedEvent(NAME, name);
}

export const updown: Integration = {
  name: NAME,
  eventTypes: EVENTS,
  handle(req): WebhookMessage[] {
    // Zulip sends each event's message before reading the next: those before a bad one are sent.
    return eventByEvent(jsonPayload(req).list(), (event) => {
      const type = eventType(event);
      const topic = event.at('check').at('url').str();
      return { topic, body: type === 'up' ? upBody(event) : downBody(event), eventType: type };
    });
  },
};
