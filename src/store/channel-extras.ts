/** Topic history of a channel and channel email addresses: the SQL. */
import { sql } from 'kysely';
import type { Tx } from './db.ts';
import { RECIPIENT } from './messages.ts';

/**
 * (topic, max message ID) pairs of a channel, newest first. With `userId`,
 * only messages the user has a user_messages row for (protected history).
 */
export async function topicHistoryRows(db: Tx, realmId: number, streamId: number, userId?: number): Promise<Array<{ topic: string; max_id: number }>> {
  let q = db
    .selectFrom('messages')
    .select(['messages.topic as topic', sql<number>`max(messages.id)`.as('max_id')])
    .where('messages.realm_id', '=', realmId)
    .where('messages.recipient_type', '=', RECIPIENT.STREAM)
    .where('messages.recipient_id', '=', streamId);
  if (userId !== undefined) q = q.innerJoin('user_messages', 'user_messages.message_id', 'messages.id').where('user_messages.user_id', '=', userId);
  const rows = await q.groupBy('messages.topic').orderBy(sql`max(messages.id)`, 'desc').execute();
  return rows.map((r) => ({ topic: r.topic, max_id: Number(r.max_id) }));
}

export async function channelEmailToken(db: Tx, streamId: number, creatorId: number, senderId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('channel_email_addresses')
    .select('email_token')
    .where('stream_id', '=', streamId)
    .where('creator_id', '=', creatorId)
    .where('sender_id', '=', senderId)
    .executeTakeFirst();
  return row?.email_token;
}

export async function insertChannelEmailToken(db: Tx, v: { realmId: number; streamId: number; creatorId: number; senderId: number; token: string; now: number }): Promise<void> {
  await db
    .insertInto('channel_email_addresses')
    .values({ realm_id: v.realmId, stream_id: v.streamId, creator_id: v.creatorId, sender_id: v.senderId, email_token: v.token, date_created: v.now })
    .onConflict((oc) => oc.columns(['stream_id', 'creator_id', 'sender_id']).doNothing())
    .execute();
}

/**
 * Whether the topic has a message other than `exceptId` (compared
 * case-insensitively); with `userId`, only among that user's messages.
 */
export async function topicHasOtherMessage(db: Tx, realmId: number, streamId: number, topic: string, exceptId: number, userId?: number): Promise<boolean> {
  let q = db
    .selectFrom('messages')
    .select('messages.id')
    .where('messages.realm_id', '=', realmId)
    .where('messages.recipient_type', '=', RECIPIENT.STREAM)
    .where('messages.recipient_id', '=', streamId)
    .where(sql`lower(messages.topic)`, '=', sql`lower(${topic})`)
    .where('messages.id', '!=', exceptId);
  if (userId !== undefined) q = q.innerJoin('user_messages', 'user_messages.message_id', 'messages.id').where('user_messages.user_id', '=', userId);
  return !!(await q.limit(1).executeTakeFirst());
}
