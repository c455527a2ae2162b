/**
 * Zendesk (/api/v1/external/zendesk): a trigger's message, composed in
 * Zendesk's own template, posted as it is with the request's `ticket_id`,
 * `ticket_title` and `message` parameters (form fields or the query string;
 * the caller authenticates with HTTP Basic as Zendesk's targets do); topic:
 * "#<id>: <title>", at most 60 characters.
 */
import { requiredParam, type Integration, type WebhookMessage } from './types.ts';

/** Zulip's truncate for this integration: over `length` characters, the first length - 3 and "...". */
function truncate(s: string, length: number): string {
  const chars = [...s];
  return chars.length > length ? chars.slice(0, length - 3).join('') + '...' : s;
}

export const zendesk: Integration = {
  name: 'Zendesk',
  handle(req): WebhookMessage[] {
    const title = requiredParam(req, 'ticket_title');
    const id = requiredParam(req, 'ticket_id');
    const message = requiredParam(req, 'message');
    return [{ topic: truncate(`#${id}: ${title}`, 60), body: message }];
  },
};
