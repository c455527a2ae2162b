/**
 * Typing notifications (POST /typing). Nothing is stored: a notification is
 * checked and turned into a `typing` event for the conversation's users
 * whose receives_typing_notifications setting is on.
 *
 * Direct typing goes to the conversation's participants; channel typing to
 * the channel's subscribers (only clients that declared the
 * stream_typing_notifications capability get it, see src/state/typing.ts);
 * typing while editing a message (POST /messages/{message_id}/typing, FL
 * 351) sends `typing_edit_message` to those who would see the edit.
 */
import { cachedGroups, cachedSubscribers } from './cache.ts';
import type { Services } from '../services.ts';
import { badRequest } from '../lib/errors.ts';
import { userSettings } from '../lib/user-settings.ts';
import { usersByIds, type UserRow } from '../store/users.ts';
import { realmById } from '../store/realm.ts';
import { messageById, messageHolders, RECIPIENT } from '../store/messages.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { normalizeTopic } from '../lib/topic.ts';
import { accessStreamById, canPost } from './access.ts';

export type TypingOp = 'start' | 'stop';

export interface TypingInput {
  type: 'direct' | 'stream' | 'channel';
  op: TypingOp;
  to?: number[];
  streamId?: number;
  topic?: string;
}

const person = (u: UserRow) => ({ user_id: u.id, email: u.email });

export function receivesTyping(u: UserRow): boolean {
  return u.is_active === 1 && userSettings(u.settings_json).receives_typing_notifications !== false;
}

export async function sendTyping(svc: Services, sender: UserRow, input: TypingInput): Promise<void> {
  const settings = userSettings(sender.settings_json);
  if (input.type === 'stream' || input.type === 'channel') {
    if (input.streamId === undefined) throw badRequest("Missing 'stream_id' argument");
    if (input.topic === undefined) throw badRequest('Missing topic');
    if (settings.send_stream_typing_notifications === false) {
      throw badRequest('User has disabled typing notifications for channel messages');
    }
    await sendChannelTyping(svc, sender, input.op, input.streamId, input.topic);
    return;
  }

  if (input.to === undefined) throw badRequest("Missing 'to' argument");
  if (input.to.length === 0) throw badRequest("Empty 'to' list");
  if (settings.send_private_typing_notifications === false) {
    throw badRequest('User has disabled typing notifications for direct messages');
  }
  // The conversation always includes the sender. Any unknown user rejects
  // the whole request (a partial list would name the wrong conversation).
  const ids = [...new Set(input.to)];
  if (!ids.includes(sender.id)) ids.push(sender.id);
  const rows = await usersByIds(svc.store.db, svc.realmId, ids);
  const byId = new Map(rows.map((u) => [u.id, u]));
  const missing = ids.find((id) => !byId.has(id));
  if (missing !== undefined) throw badRequest(`Invalid user ID ${missing}`);
  const users = ids.map((id) => byId.get(id) as UserRow);
  svc.bus.send(
    {
      type: 'typing',
      op: input.op,
      message_type: 'direct',
      sender: person(sender),
      recipients: users.map(person),
    },
    users.filter(receivesTyping).map((u) => u.id),
  );
}

/** Zulip sends no channel typing events for channels with more subscribers than this. */
export const MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS = 100;

async function emptyTopicDisplayName(svc: Services): Promise<string> {
  return String(realmSettings((await realmById(svc.store.db, svc.realmId)).settings_json).empty_topic_display_name);
}

/** Subscribers of a channel who receive typing events (none for very large channels). */
async function channelTypingRecipients(svc: Services, streamId: number): Promise<number[]> {
  const ids = (await cachedSubscribers(svc, streamId)).list.map((s) => s.user_id);
  if (ids.length > MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS) return [];
  return (await usersByIds(svc.store.db, svc.realmId, ids)).filter(receivesTyping).map((u) => u.id);
}

async function sendChannelTyping(svc: Services, sender: UserRow, op: TypingOp, streamId: number, rawTopic: string): Promise<void> {
  const db = svc.store.db;
  const groups = await cachedGroups(svc, db);
  const access = await accessStreamById(svc, db, sender, streamId, groups);
  if (!canPost(sender, access, groups)) throw badRequest('You do not have permission to post in this channel.');
  const displayName = await emptyTopicDisplayName(svc);
  const topic = normalizeTopic(rawTopic, displayName);
  svc.bus.send(
    {
      type: 'typing',
      op,
      message_type: 'stream',
      sender: person(sender),
      stream_id: streamId,
      topic,
    },
    await channelTypingRecipients(svc, streamId),
    { meta: { emptyTopicName: displayName } },
  );
}

/** POST /messages/{message_id}/typing: the sender is editing one of their messages. */
export async function sendEditTyping(svc: Services, sender: UserRow, messageId: number, op: TypingOp): Promise<void> {
  const message = await messageById(svc.store.db, svc.realmId, messageId);
  if (!message || message.sender_id !== sender.id) throw badRequest('Invalid message(s)');
  const base = { type: 'typing_edit_message' as const, op, sender_id: sender.id, message_id: messageId };
  if (message.recipient_type === RECIPIENT.STREAM) {
    const settings = userSettings(sender.settings_json);
    if (settings.send_stream_typing_notifications === false) throw badRequest('User has disabled typing notifications for channel messages');
    const displayName = await emptyTopicDisplayName(svc);
    svc.bus.send(
      { ...base, recipient: { type: 'channel', channel_id: message.recipient_id, topic: message.topic } },
      await channelTypingRecipients(svc, message.recipient_id),
      { meta: { emptyTopicName: displayName } },
    );
    return;
  }
  const settings = userSettings(sender.settings_json);
  if (settings.send_private_typing_notifications === false) throw badRequest('User has disabled typing notifications for direct messages');
  const holders = (await messageHolders(svc.store.db, [messageId])).get(messageId) ?? [];
  const users = (await usersByIds(svc.store.db, svc.realmId, holders)).filter(receivesTyping).map((u) => u.id);
  svc.bus.send({ ...base, recipient: { type: 'direct', user_ids: users } }, users);
}
