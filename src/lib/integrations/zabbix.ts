/**
 * Zabbix (/api/v1/external/zabbix): an alert from the media type Zulip's
 * setup describes (host, severity, status, trigger, item, link); topic: the
 * host. A payload without those fields is refused as "Invalid payload", and
 * the bot's owner is told to check the webhook's settings, as Zulip does.
 */
import { ApiError } from '../errors.ts';
import { jsonPayload, MisconfiguredPayload, type Integration, type WebhookMessage } from './types.ts';

const MISCONFIGURED =
  'Hi there! Your bot {bot_name} just received a Zabbix payload that is missing\n' +
  'some data that Zulip requires. This usually indicates a configuration issue\n' +
  'in your Zabbix webhook settings. Please make sure that you set the\n' +
  'script correctly and provide all the required parameters\n' +
  'when configuring the Zabbix webhook. Contact {support_email} if you\n' +
  'need further help!';

export const zabbix: Integration = {
  name: 'Zabbix',
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    try {
      const [hostname, severity, status, item, trigger, link] = ['hostname', 'severity', 'status', 'item', 'trigger', 'link'].map((k) => p.at(k).str());
      return [{ topic: hostname, body: `${status} (${severity}) alert on [${hostname}](${link}):\n* ${trigger}\n* ${item}` }];
    } catch (e) {
      if (e instanceof ApiError && e.code === 'BAD_REQUEST') throw new MisconfiguredPayload('Invalid payload', MISCONFIGURED, e);
      throw e;
    }
  },
};
