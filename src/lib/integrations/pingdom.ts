/**
 * Pingdom (/api/v1/external/pingdom): a check's state change (with Pingdom's
 * long description when a service goes down); the check's type (HTTP, SMTP,
 * IMAP, ...) is the event type; topic: "<check name> status.".
 */
import { jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';

const NAME = 'Pingdom';
const CHECK_TYPES = ['HTTP', 'HTTP_CUSTOM', 'HTTPS', 'SMTP', 'POP3', 'IMAP', 'PING', 'DNS', 'UDP', 'PORT_TCP'];

export const pingdom: Integration = {
  name: NAME,
  eventTypes: CHECK_TYPES,
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const type = p.at('check_type').str();
    if (!CHECK_TYPES.includes(type)) throw unsupportedEvent(NAME, type);
    const topic = `${p.at('check_name').str()} status.`;
    const current = p.at('current_state').str();
    const previous = p.at('previous_state').str();
    const head = `Service ${p.at('check_params').at('hostname').str()} changed its ${type} status from ${previous} to ${current}`;
    const body = current === 'DOWN' && previous === 'UP' ? `${head}:\n\n\`\`\` quote\n${p.at('long_description').str()}\n\`\`\`` : `${head}.`;
    return [{ topic, body, eventType: type }];
  },
};
