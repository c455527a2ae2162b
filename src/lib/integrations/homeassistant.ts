/**
 * Home Assistant (/api/v1/external/homeassistant), its `notify` service
 * posting JSON (whatever the Content-Type says): the `message` as it is, in
 * the topic the payload names (`topic`, Home Assistant's title) or
 * "homeassistant".
 */
import { jsonPayload, type Integration, type WebhookMessage } from './types.ts';

export const homeassistant: Integration = {
  name: 'HomeAssistant',
  displayName: 'Home Assistant',
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const body = p.at('message').str();
    const topic = p.has('topic') ? p.at('topic').str() : 'homeassistant';
    return [{ topic, body }];
  },
};
