/**
 * Message editing: the SQL. Content updates, topic moves of a set of
 * messages with a per-message edit history entry, the per-user rows of a
 * message and the messages of a channel topic.
 */
import { sql } from 'kysely';
import type { Tx } from './db.ts';
import { RECIPIENT } from './messages.ts';

/** One stored edit history entry (Zulip's EditHistoryEvent), newest first in edit_history_json. */
export interface EditHistoryEntry {
  user_id: number;
  timestamp: number;
  prev_content?: string;
  prev_rendered_content?: string;
  prev_topic?: string;
  topic?: string;
  prev_stream?: number;
  stream?: number;
}

export function parseEditHistory(json: string | null): EditHistoryEntry[] {
  if (!json) return [];
  try {
    const h = JSON.parse(json) as unknown;
    return Array.isArray(h) ? (h as EditHistoryEntry[]) : [];
  } catch {
    return [];
  }
}

export async function updateMessageContent(
  db: Tx,
  id: number,
  fields: { content: string; rendered_content: string; last_edit_time: number; edit_history_json: string; has_link: number; has_image: number; has_attachment: number; is_me_message: number; topic?: string; recipient_id?: number },
): Promise<void> {
  await db.updateTable('messages').set(fields).where('id', '=', id).execute();
}

/** A message's HTML rendered again (its website previews), if its content is still `content`; whether it was. */
export async function updateRenderedContent(db: Tx, id: number, content: string, rendered: string): Promise<boolean> {
  const r = await db.updateTable('messages').set({ rendered_content: rendered }).where('id', '=', id).where('content', '=', content).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * Moves messages to `topic` (undefined: each keeps its own) and, with
 * `streamId`, to that channel, prepending `entry` to each one's edit history.
 */
export async function moveMessagesToTopic(db: Tx, ids: number[], topic: string | undefined, entry: EditHistoryEntry, streamId?: number): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db.selectFrom('messages').select(['id', 'edit_history_json']).where('id', 'in', ids.slice(i, i + 500)).execute();
    for (const r of rows) {
      const history = [entry, ...parseEditHistory(r.edit_history_json)];
      await db
        .updateTable('messages')
        .set({
          ...(topic !== undefined ? { topic } : {}),
          ...(streamId !== undefined ? { recipient_id: streamId } : {}),
          last_edit_time: entry.timestamp,
          edit_history_json: JSON.stringify(history),
        })
        .where('id', '=', r.id)
        .execute();
    }
  }
}

/** IDs of a channel topic's messages (topic compared case-insensitively), ascending; from `fromId` on when given. */
export async function topicMessageIds(db: Tx, streamId: number, topic: string, fromId?: number): Promise<number[]> {
  let q = db
    .selectFrom('messages')
    .select('id')
    .where('recipient_type', '=', RECIPIENT.STREAM)
    .where('recipient_id', '=', streamId)
    .where(sql`lower(topic)`, '=', sql`lower(${topic})`);
  if (fromId !== undefined) q = q.where('id', '>=', fromId);
  return (await q.orderBy('id').execute()).map((r) => r.id);
}

/** date_sent of messages by ID. */
export async function messageDates(db: Tx, ids: number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await db.selectFrom('messages').select(['id', 'date_sent']).where('id', 'in', ids.slice(i, i + 1000)).execute();
    for (const r of rows) out.set(r.id, r.date_sent);
  }
  return out;
}

/** The user_messages rows of one message. */
export async function messageUserRows(db: Tx, messageId: number): Promise<Array<{ user_id: number; flags: number }>> {
  return db.selectFrom('user_messages').select(['user_id', 'flags']).where('message_id', '=', messageId).execute();
}

/**
 * Sets the bits of `mask` in one user's flags for a message to those of
 * `bits`, leaving the others as they are now (a read or star committed
 * meanwhile by another request stays).
 */
export async function setUserMessageFlagBits(db: Tx, messageId: number, userId: number, mask: number, bits: number): Promise<void> {
  await db
    .updateTable('user_messages')
    .set({ flags: sql`(flags & ${~mask}) | ${bits & mask}` })
    .where('message_id', '=', messageId)
    .where('user_id', '=', userId)
    .execute();
}

/** Which of these messages the user has a user_messages row for. */
export async function idsWithUserRows(db: Tx, userId: number, ids: number[]): Promise<Set<number>> {
  const out = new Set<number>();
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await db.selectFrom('user_messages').select('message_id').where('user_id', '=', userId).where('message_id', 'in', ids.slice(i, i + 1000)).execute();
    for (const r of rows) out.add(r.message_id);
  }
  return out;
}

/**
 * User IDs with a subscription row for a channel: every row (active or not)
 * with `activeOnly` false, else the active subscriptions; deactivated users included.
 */
export async function subscriptionUserIds(db: Tx, streamId: number, activeOnly: boolean): Promise<number[]> {
  let q = db.selectFrom('subscriptions').select('user_id').where('stream_id', '=', streamId);
  if (activeOnly) q = q.where('active', '=', 1);
  return [...new Set((await q.execute()).map((r) => r.user_id))].sort((a, b) => a - b);
}

/** Deletes the user_messages rows of these users for these messages. */
export async function deleteUserMessageRows(db: Tx, userIds: number[], messageIds: number[]): Promise<void> {
  for (let i = 0; i < messageIds.length; i += 500) {
    for (let j = 0; j < userIds.length; j += 500) {
      await db
        .deleteFrom('user_messages')
        .where('message_id', 'in', messageIds.slice(i, i + 500))
        .where('user_id', 'in', userIds.slice(j, j + 500))
        .execute();
    }
  }
}

/** Gives each user a row with `flags` for each message they have no row for. */
export async function addMissingUserMessageRows(db: Tx, userIds: number[], messageIds: number[], flags: number): Promise<void> {
  if (!userIds.length || !messageIds.length) return;
  for (let i = 0; i < messageIds.length; i += 500) {
    const chunk = messageIds.slice(i, i + 500);
    const existing = await db.selectFrom('user_messages').select(['user_id', 'message_id']).where('message_id', 'in', chunk).execute();
    const have = new Set(existing.map((r) => `${r.user_id}:${r.message_id}`));
    const rows = [];
    for (const mid of chunk) for (const uid of userIds) if (!have.has(`${uid}:${mid}`)) rows.push({ user_id: uid, message_id: mid, flags });
    for (let k = 0; k < rows.length; k += 500) await db.insertInto('user_messages').values(rows.slice(k, k + 500)).execute();
  }
}
