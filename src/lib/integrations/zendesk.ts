/**
 * Zendesk (/api/v1/external/zendesk): a trigger's message, composed in
 * Zendesk's own template, posted as it is with the request's `ticket_id`,
 * `ticket_title` and `message` parameters (form fields or the query string;
 * the caller authenticates with HTTP Basic as Zendesk's targets do); topic:
 * "#<id>: <title>", at most 60 characters.
 */
import { missingArgument } from '../errors.ts';
import type { Integration, WebhookMessage, WebhookRequest } from './types.ts';

function required(req: WebhookRequest, name: string): string {
  const v = req.param(name);
  if (v === undefined) throw missingArgument(name);
  return v;
}

/** Zulip's truncate for this integration: over `length` characters, the first length - 3 and "...". */
function truncate(s: string, length: number): string {
  const chars = [...s];
  return chars.length > length ? chars.slice(0, length - 3).join('') + '...' : s;
}

export const zendesk: Integration = {
  name: 'Zendesk',
  handle(req): WebhookMessage[] {
    const title = required(req, 'ticket_title');
    const id = required(req, 'ticket_id');
    const message = required(req, 'message');
    return [{ topic: truncate(`#${id}: ${title}`, 60), body: message }];
  },
};
