/**
 * Freshdesk (/api/v1/external/freshdesk): the JSON a Dispatch'r or Observer
 * rule's "Trigger Webhook" action sends (`freshdesk_webhook`, with Freshdesk's
 * `triggered_event` such as `{ticket_action:created}`,
 * `{status:{from:4,to:6}}` or `{note_type:private}`): a ticket created (its
 * HTML description as Markdown, images linked by file name), its status or
 * priority changed, a public or private note added; other events post
 * nothing. Freshdesk authenticates with HTTP Basic (the bot's address and
 * API key). Topic: `#<id>: <subject>`.
 */
import { badRequest } from '../errors.ts';
import type { Wild } from './wild.ts';
import { htmlToMarkdown } from './html-markdown.ts';
import { jsonPayload, type Integration, type WebhookMessage } from './types.ts';
import { pyCapitalize } from './python-text.ts';

/** Freshdesk reports statuses and priorities by number; these are the names of its default ones. */
const STATUSES = ['', '', 'Open', 'Pending', 'Resolved', 'Closed', 'Waiting on Customer', 'Job Application', 'Monthly'];
const PRIORITIES = ['', 'Low', 'Medium', 'High', 'Urgent'];

/** Python's int() of a string: optional sign, digits (with single underscores between), surrounding whitespace. */
function pyInt(s: string): number {
  if (!/^\s*[+-]?\d+(?:_\d+)*\s*$/.test(s)) throw badRequest(`Invalid Freshdesk event: ${JSON.stringify(s)} is not a number`);
  return Number(s.replace(/_/g, ''));
}

/** The name of a status or priority number; a number past the known ones is shown as it is, one counted from the end as Python indexes. */
function propertyName(property: string, index: number): string {
  const names = property === 'status' ? STATUSES : property === 'priority' ? PRIORITIES : null;
  if (!names) return '';
  if (index >= names.length) return String(index);
  if (index < -names.length) throw badRequest(`Invalid Freshdesk event: no ${property} ${index}`);
  return names.at(index)!;
}

/** `{ticket_action:created}` gives [ticket_action, created]; `{status:{from:4,to:6}}` gives [status, <from name>, <to name>]. */
function parseEvent(event: string): string[] {
  const data = event.replace(/[{}]/g, '').replaceAll(',', ':').split(':');
  if (data.length === 2) return data;
  if (data.length !== 5) throw badRequest(`Invalid Freshdesk event: ${event}`);
  const [property, , from, , to] = data as [string, string, string, string, string];
  return [property, propertyName(property, pyInt(from)), propertyName(property, pyInt(to))];
}

/** The description as Markdown; images (`![](.../name.png?123)`) become links named by their file. */
const description = (html: string): string => htmlToMarkdown(html).trim().replace(/!\[\]\((\S*)\/(\S*)\?(\S*)\)/g, '[$2]($1/$2)');

const ticketLink = (t: Wild): string => `[ticket #${t.at('ticket_id').str()}](${t.at('ticket_url').str()})`;
const requester = (t: Wild): string => `${t.at('requester_name').str()} <${t.at('requester_email').str()}>`;

export const freshdesk: Integration = {
  name: 'Freshdesk',
  notifyOnMalformedJson: false,
  handle(req): WebhookMessage[] {
    const t = jsonPayload(req).at('freshdesk_webhook');
    const topic = `#${t.at('ticket_id').str()}: ${t.at('ticket_subject').str()}`;
    const event = parseEvent(t.at('triggered_event').str());
    let body: string;
    if (event[1] === 'created') {
      const text = description(t.at('ticket_description').str());
      const who = requester(t);
      const link = ticketLink(t);
      body =
        `${who} created ${link}:\n\n\`\`\` quote\n${text}\n\`\`\`\n\n` +
        `* **Type**: ${t.at('ticket_type').str()}\n* **Priority**: ${t.at('ticket_priority').str()}\n* **Status**: ${t.at('ticket_status').str()}`;
    } else if (event[0] === 'note_type') {
      body = `${requester(t)} added a ${event[1]} note to ${ticketLink(t)}.`;
    } else if (event[0] === 'status' || event[0] === 'priority') {
      if (event.length < 3) throw badRequest(`Invalid Freshdesk event: ${t.at('triggered_event').str()}`);
      body = `${requester(t)} updated ${ticketLink(t)}:\n\n* **${pyCapitalize(event[0])}**: ${event[1]} -> ${event[2]}`;
    } else {
      return [];
    }
    return [{ topic, body }];
  },
};
