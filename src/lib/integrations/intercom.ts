/**
 * Intercom (/api/v1/external/intercom): the notification's `topic`
 * (`conversation.user.replied`, ...) is the event type; companies,
 * contacts, conversations (assigned, opened, closed, snoozed, replies and
 * notes quoted as text), events and users, in Zulip's words. Topics name the
 * contact (`Lead: <name>`, `User: <pseudonym>`, ...), or `Companies` and
 * `Events`. Intercom's `ping` and its HEAD check of the URL are answered
 * with success.
 */
import { Parser } from 'htmlparser2';
import { pyStr, type Wild } from './wild.ts';
import { jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';
import { pyCapitalize } from './python-text.ts';

/** The text of an HTML fragment, entities decoded (as Python's HTMLParser hands it over). */
function stripTags(html: string): string {
  let text = '';
  const parser = new Parser({ ontext: (t) => (text += t) }, { decodeEntities: true });
  parser.write(html);
  parser.end();
  return text;
}

/** `name or pseudonym or email`, as Python reads it: the first that is set, else the last. */
function contactName(user: Wild, keys: string[]): string {
  let value: string | null = null;
  for (const key of keys) {
    value = user.get(key).strOrNull();
    if (value) return value;
  }
  return pyStr(value);
}

const contactTopic = (user: Wild): string => `${pyCapitalize(user.at('type').str())}: ${contactName(user, ['name', 'pseudonym', 'email'])}`;
const location = (contact: Wild): string => {
  const l = contact.at('location_data');
  return `${l.at('city_name').str()}, ${l.at('region_name').str()}, ${l.at('country_name').str()}`;
};
const quoted = (who: string, action: string, content: string): string => `${who} ${action} the conversation:\n\n\`\`\` quote\n${content}\n\`\`\``;
const initiated = (who: string, content: string): string => `${who} initiated a conversation:\n\n\`\`\` quote\n${content}\n\`\`\``;
const firstPart = (item: Wild): string => stripTags(item.at('conversation_parts').at('conversation_parts').at(0).at('body').str());

type Handler = (item: Wild) => [string, string];

const adminAction =
  (action: string): Handler =>
  (item) => [contactTopic(item.at('user')), `${pyStr(item.at('assignee').get('name').strOrNull())} ${action} the conversation.`];
const adminReply =
  (action: string): Handler =>
  (item) => [contactTopic(item.at('user')), quoted(pyStr(item.at('assignee').get('name').strOrNull()), action, firstPart(item))];
const userTag =
  (action: string): Handler =>
  (item) => [contactTopic(item.at('user')), `The tag \`${item.at('tag').at('name').str()}\` was ${action} the user.`];

const contactSignedUp: Handler = (c) => [contactTopic(c), `Contact signed up:\n* **Email**: ${c.at('email').str()}\n* **Location**: ${location(c)}`];

const HANDLERS: Record<string, Handler> = {
  'company.created': (c) => ['Companies', `New company **${c.at('name').str()}** created:\n* **User count**: ${c.at('user_count').int()}\n* **Monthly spending**: ${c.at('monthly_spend').int()}`],
  'contact.added_email': (c) => [contactTopic(c), `New email ${c.at('email').str()} added to contact.`],
  'contact.created': (c) => [
    contactTopic(c),
    `New contact created:\n* **Name (or pseudonym)**: ${contactName(c, ['name', 'pseudonym'])}\n* **Email**: ${c.at('email').str()}\n* **Location**: ${location(c)}`,
  ],
  'contact.signed_up': contactSignedUp,
  'contact.tag.created': (item) => [contactTopic(item.at('contact')), `Contact tagged with the \`${item.at('tag').at('name').str()}\` tag.`],
  'contact.tag.deleted': (item) => [contactTopic(item.at('contact')), `The tag \`${item.at('tag').at('name').str()}\` was removed from the contact.`],
  'conversation.admin.assigned': (item) => [contactTopic(item.at('user')), `${item.at('assignee').at('name').str()} assigned to conversation.`],
  'conversation.admin.closed': adminAction('closed'),
  'conversation.admin.opened': adminAction('opened'),
  'conversation.admin.snoozed': adminAction('snoozed'),
  'conversation.admin.unsnoozed': adminAction('unsnoozed'),
  'conversation.admin.replied': adminReply('replied to'),
  'conversation.admin.noted': adminReply('added a note to'),
  'conversation.admin.single.created': (item) => [
    contactTopic(item.at('user')),
    initiated(pyStr(item.at('assignee').get('name').strOrNull()), stripTags(item.at('conversation_message').at('body').str())),
  ],
  'conversation.user.created': (item) => [
    contactTopic(item.at('user')),
    initiated(pyStr(item.at('user').get('name').strOrNull()), stripTags(item.at('conversation_message').at('body').str())),
  ],
  'conversation.user.replied': (item) => [contactTopic(item.at('user')), quoted(pyStr(item.at('user').get('name').strOrNull()), 'replied to', firstPart(item))],
  'event.created': (e) => ['Events', `New event **${e.at('event_name').str()}** created.`],
  'user.created': (u) => [contactTopic(u), `New user created:\n* **Name**: ${u.at('name').str()}\n* **Email**: ${u.at('email').str()}`],
  'user.deleted': (u) => [contactTopic(u), 'User deleted.'],
  'user.email.updated': (u) => [contactTopic(u), `User's email was updated to ${u.at('email').str()}.`],
  'user.tag.created': userTag('added to'),
  'user.tag.deleted': userTag('removed from'),
  'user.unsubscribed': (u) => [contactTopic(u), 'User unsubscribed from emails.'],
  // Intercom sends visitors' sign-ups as it sends contacts'.
  'visitor.signed_up': contactSignedUp,
};

export const intercom: Integration = {
  name: 'Intercom',
  eventTypes: Object.keys(HANDLERS),
  succeedsOnHead: true,
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const eventType = p.at('topic').str();
    if (eventType === 'ping') return [];
    const handler = Object.hasOwn(HANDLERS, eventType) ? HANDLERS[eventType] : undefined;
    if (!handler) throw unsupportedEvent('Intercom', eventType);
    const [topic, body] = handler(p.at('data').at('item'));
    return [{ topic, body, eventType }];
  },
};
