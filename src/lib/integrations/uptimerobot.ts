/**
 * UptimeRobot (/api/v1/external/uptimerobot): a monitor down or back up,
 * with Zulip's topic (the monitor's name) and texts. A payload without the
 * fields these need (the alert's details, the monitor's name and address)
 * is refused as "Invalid payload", and the bot's owner is told to check the
 * webhook's settings, as Zulip does.
 */
import type { Wild } from './wild.ts';
import { ApiError } from '../errors.ts';
import { jsonPayload, MisconfiguredPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';

const NAME = 'UptimeRobot';

const MISCONFIGURED =
  'Hi there! Your bot {bot_name} just received a UptimeRobot payload that is missing\n' +
  'some data that Zulip requires. This usually indicates a configuration issue\n' +
  'in your UptimeRobot webhook settings. Please make sure that you set the required parameters\n' +
  'when configuring the UptimeRobot webhook. Contact {support_email} if you\n' +
  'need further help!';

function message(p: Wild, event: 'up' | 'down'): WebhookMessage {
  const name = p.at('monitor_friendly_name').str();
  const head = `${name} (${p.at('monitor_url').str()}) is ${event === 'up' ? 'back UP' : 'DOWN'} (${p.at('alert_details').str()}).`;
  const body = event === 'up' ? `${head}\nIt was down for ${p.at('alert_friendly_duration').str()}.` : head;
  return { topic: name, body, eventType: event };
}

export const uptimerobot: Integration = {
  name: NAME,
  eventTypes: ['up', 'down'],
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const type = p.at('alert_type_friendly_name').str();
    const event = type === 'Up' ? 'up' : type === 'Down' ? 'down' : null;
    if (event === null) throw unsupportedEvent(NAME, type);
    try {
      return [message(p, event)];
    } catch (e) {
      if (e instanceof ApiError && e.code === 'BAD_REQUEST') throw new MisconfiguredPayload('Invalid payload', MISCONFIGURED, e);
      throw e;
    }
  },
};
