/**
 * What the Servarr family's webhooks (Sonarr, Radarr, Lidarr) share: a JSON
 * payload whose `eventType` is the event type, one message a request, its
 * text read before its topic (so an event the integration does not describe
 * is refused as unsupported before anything else is looked up).
 */
import type { Wild } from './wild.ts';
import { jsonPayload, type Integration, type WebhookMessage } from './types.ts';

export function servarrIntegration(
  name: string,
  eventTypes: readonly string[],
  body: (p: Wild, type: string) => string,
  topic: (p: Wild, type: string) => string,
): Integration {
  return {
    name,
    eventTypes,
    handle(req): WebhookMessage[] {
      const p = jsonPayload(req);
      const type = p.at('eventType').str();
      const text = body(p, type);
      return [{ topic: topic(p, type), body: text, eventType: type }];
    },
  };
}
