/**
 * Freshping (/api/v1/external/freshping): a check became unreachable (with
 * the HTTP status it answered) or is available again; Freshping's test
 * notification says the webhook is set up. The check's state is the event
 * type (`reporting_error`, `available`); other states are not supported.
 * Topic: the check's name, or `Freshping` for the test.
 */
import { setupMessage } from './git.ts';
import { jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';

const NAME = 'Freshping';
/** Freshping's check states, and the event type each is filtered by. */
const EVENT_TYPES: Record<string, string> = { 'Reporting Error': 'reporting_error', Available: 'available' };
const TEST_APPLICATION = 'Webhook test';

export const freshping: Integration = {
  name: NAME,
  eventTypes: Object.values(EVENT_TYPES),
  handle(req): WebhookMessage[] {
    const data = jsonPayload(req).at('webhook_event_data');
    const state = data.at('check_state_name').str();
    if (!Object.prototype.hasOwnProperty.call(EVENT_TYPES, state)) throw unsupportedEvent(NAME, state);
    let body: string;
    if (state === 'Reporting Error') {
      body = `${data.at('request_url').str()} has just become unreachable.\nError code: ${data.at('http_status_code').int()}.`;
    } else if (data.at('application_name').str() === TEST_APPLICATION) {
      body = setupMessage(NAME);
    } else {
      body = `${data.at('request_url').str()} is back up and no longer unreachable.`;
    }
    const topic = data.at('application_name').str() === TEST_APPLICATION ? NAME : data.at('check_name').str();
    return [{ topic, body, eventType: EVENT_TYPES[state] }];
  },
};
