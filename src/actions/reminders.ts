/**
 * Message reminders: POST /reminders, GET /reminders, DELETE
 * /reminders/{reminder_id}. A reminder is a scheduled message of delivery
 * type "remind" (Zulip's ScheduledMessage.REMIND): a direct message to the
 * user, with Zulip's reminder text quoting the message, that the scheduled
 * message delivery timer sends from Notification Bot at the chosen time.
 * `reminders` events (op add, remove) go to the user's own queues.
 */
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';
import { transaction, type Tx } from '../store/db.ts';
import { ApiError, badRequest } from '../lib/errors.ts';
import { truncateContent } from '../lib/topic.ts';
import { RECIPIENT, type MessageRow } from '../store/messages.ts';
import { streamById } from '../store/streams.ts';
import { userById } from '../store/users.ts';
import {
  deleteScheduledMessage,
  DELIVERY_TYPE,
  insertScheduledMessage,
  reminderOf,
  scheduledMessageById,
  undeliveredReminders,
  type ScheduledMessageRow,
} from '../store/scheduled-messages.ts';
import { channelMessageUrl, dmMessageUrl, messageLinkSyntax } from '../lib/message-url.ts';
import { accessMessage, invalidMessage } from './access.ts';
import { dmParticipants, render } from './messages-format.ts';
import { unusedFence } from './message-report.ts';
import { silentMention } from './system-bots.ts';

/** Zulip's MAX_REMINDER_NOTE_LENGTH. */
export const MAX_REMINDER_NOTE_LENGTH = 1000;

/** Zulip's reminder object. */
export function formatReminder(row: ScheduledMessageRow): Record<string, unknown> {
  return {
    reminder_id: row.id,
    type: 'private',
    to: JSON.parse(row.to_json) as number[],
    content: row.content,
    rendered_content: row.rendered_content,
    scheduled_delivery_timestamp: Number(row.scheduled_timestamp),
    failed: !!row.failed,
    reminder_target_message_id: row.reminder_target_message_id,
  };
}

export async function registerReminders(db: Tx, realmId: number, userId: number): Promise<Array<Record<string, unknown>>> {
  return (await undeliveredReminders(db, realmId, userId)).map(formatReminder);
}

/** Zulip's normalize_note_text. */
function normalizeNote(note: string): string {
  const body = note.replace(/\s+$/u, '').replace(/^\n+/, '');
  if ([...body].length > MAX_REMINDER_NOTE_LENGTH) throw badRequest(`Maximum reminder note length: ${MAX_REMINDER_NOTE_LENGTH} characters`);
  return body;
}

/** Zulip's message_link_url: the message in its conversation. */
async function messageUrl(svc: Services, db: Tx, m: MessageRow): Promise<string> {
  if (m.recipient_type === RECIPIENT.STREAM) {
    const stream = (await streamById(db, svc.realmId, m.recipient_id))!;
    return channelMessageUrl(svc.config.externalUrl, stream, m.topic, m.id);
  }
  return dmMessageUrl(svc.config.externalUrl, (await dmParticipants(db, [m])).get(m.id) ?? [], m.id);
}

/** Zulip's get_reminder_formatted_content. */
async function reminderContent(svc: Services, db: Tx, m: MessageRow, note: string): Promise<string> {
  let content: string;
  if (m.recipient_type === RECIPIENT.STREAM) {
    const stream = (await streamById(db, svc.realmId, m.recipient_id))!;
    const link = messageLinkSyntax(stream, m.topic, m.id);
    content = note ? `You requested a reminder for ${link}. Note:\n > ${note}` : `You requested a reminder for ${link}.`;
  } else {
    content = note ? `You requested a reminder for the following direct message. Note:\n > ${note}` : 'You requested a reminder for the following direct message.';
  }
  const sender = (await userById(db, svc.realmId, m.sender_id))!;
  const mention = silentMention(sender);
  const url = await messageUrl(svc, db, m);
  content += '\n\n';
  if (m.content.startsWith('/poll')) return `${content}${mention} [sent](${url}) a poll.`;
  if (m.content.startsWith('/todo')) return `${content}${mention} [sent](${url}) a todo list.`;
  content += `${mention} [said](${url}):\n`;
  const fence = unusedFence(content);
  const frame = `${fence}quote\n\n${fence}`;
  const room = svc.config.maxMessageLength - [...(content + frame)].length;
  return `${content}${fence}quote\n${truncateContent(m.content, room)}\n${fence}`;
}

export async function createReminder(svc: Services, user: UserRow, messageId: number, deliverAt: number, note: string | undefined): Promise<{ reminder_id: number }> {
  if (deliverAt <= Date.now() / 1000) throw badRequest('Scheduled delivery time must be in the future.');
  const row = await transaction(svc.store, async (tx) => {
    const a = await accessMessage(svc, tx, user, messageId);
    if (!a) throw invalidMessage();
    const content = await reminderContent(svc, tx, a.row, note ? normalizeNote(note) : '');
    const rendered = await render(svc, tx, content);
    const id = await insertScheduledMessage(tx, {
      realm_id: svc.realmId,
      sender_id: user.id,
      recipient_type: 'private',
      stream_id: null,
      to_json: JSON.stringify([user.id]),
      topic: '',
      content,
      rendered_content: rendered.html,
      scheduled_timestamp: deliverAt,
      read_by_sender: 0,
      sending_client: 'Internal',
      delivery_type: DELIVERY_TYPE.REMIND,
      reminder_target_message_id: messageId,
    });
    return (await scheduledMessageById(tx, id))!;
  });
  svc.bus.send({ type: 'reminders', op: 'add', reminders: [formatReminder(row)] }, [user.id]);
  return { reminder_id: row.id };
}

export async function listReminders(svc: Services, user: UserRow): Promise<{ reminders: Array<Record<string, unknown>> }> {
  return { reminders: await registerReminders(svc.store.db, svc.realmId, user.id) };
}

export async function removeReminder(svc: Services, user: UserRow, id: number): Promise<void> {
  await transaction(svc.store, async (tx) => {
    const r = await reminderOf(tx, svc.realmId, user.id, id);
    if (!r) throw new ApiError('Reminder does not exist', { status: 404 });
    await deleteScheduledMessage(tx, r.id);
  });
  svc.bus.send({ type: 'reminders', op: 'remove', reminder_id: id }, [user.id]);
}
