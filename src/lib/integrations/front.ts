/**
 * Front (/api/v1/external/front): Front's rule webhooks, the event's `type`
 * in the payload being the event type: messages in and out (linked in Front,
 * with their subject), replies, comments and mentions (quoted), and
 * conversations assigned, unassigned, archived, reopened, deleted, restored,
 * tagged and untagged, each naming who did it (a teammate, a rule, or the
 * kind of source, e.g. `(gmail)`). Topic: the conversation's ID. Another
 * `type` is refused with "Unknown webhook request".
 */
import { badRequest } from '../errors.ts';
import type { Wild } from './wild.ts';
import { jsonPayload, type Integration, type WebhookMessage } from './types.ts';

const fullName = (person: Wild): string => `${person.at('first_name').str()} ${person.at('last_name').str()}`;

/** Who caused the event: a teammate's name, `'<name>' rule`, or the source's kind in parentheses. */
function sourceName(p: Wild): string {
  const source = p.at('source');
  const kind = source.at('_meta').at('type').str();
  if (kind === 'teammate') return fullName(source.at('data'));
  if (kind === 'rule') return `'${source.at('data').at('name').str()}' rule`;
  return `(${kind})`;
}

interface Mail {
  link: string;
  /** The conversation's recipient (the customer's address). */
  outbox: string;
  /** The Front inbox's address. */
  inbox: string;
  subject: string;
}

function mail(p: Wild): Mail {
  const conversation = p.at('conversation');
  return {
    link: `https://app.frontapp.com/open/${p.at('target').at('data').at('id').str()}`,
    outbox: conversation.at('recipient').at('handle').str(),
    inbox: p.at('source').at('data').at(0).at('address').str(),
    subject: conversation.at('subject').str(),
  };
}

const subjectQuote = (subject: string): string => `\`\`\`quote\n*Subject*: ${subject}\n\`\`\``;
const byWhom = (action: string) => (p: Wild) => `${action} by **${sourceName(p)}**.`;
const tagged = (action: string) => (p: Wild) => `**${sourceName(p)}** ${action} tag **${p.at('target').at('data').at('name').str()}**.`;
const comment = (p: Wild): string => `**${sourceName(p)}** left a comment:\n\`\`\`quote\n${p.at('target').at('data').at('body').str()}\n\`\`\``;

const BODIES: Record<string, (p: Wild) => string> = {
  inbound: (p) => {
    const m = mail(p);
    return `[Inbound message](${m.link}) from **${m.outbox}** to **${m.inbox}**:\n${subjectQuote(m.subject)}`;
  },
  outbound: (p) => {
    const m = mail(p);
    return `[Outbound message](${m.link}) from **${m.inbox}** to **${m.outbox}**:\n${subjectQuote(m.subject)}`;
  },
  out_reply: (p) => {
    const m = mail(p);
    return `[Outbound reply](${m.link}) from **${m.inbox}** to **${m.outbox}**.`;
  },
  comment,
  mention: comment,
  assign: (p) => {
    const source = sourceName(p);
    const target = fullName(p.at('target').at('data'));
    return source === target ? `**${source}** assigned themselves.` : `**${source}** assigned **${target}**.`;
  },
  unassign: byWhom('Unassigned'),
  archive: byWhom('Archived'),
  reopen: byWhom('Reopened'),
  trash: byWhom('Deleted'),
  restore: byWhom('Restored'),
  tag: tagged('added'),
  untag: tagged('removed'),
};

export const front: Integration = {
  name: 'Front',
  eventTypes: Object.keys(BODIES),
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const event = p.at('type').str();
    const body = Object.hasOwn(BODIES, event) ? BODIES[event] : undefined;
    if (!body) throw badRequest('Unknown webhook request');
    const topic = p.at('conversation').at('id').str();
    return [{ topic, body: body(p), eventType: event }];
  },
};
