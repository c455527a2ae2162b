/** Topic deletion: finding a topic's messages, newest first, a batch at a time. */
import { sql } from 'kysely';
import type { Tx } from './db.ts';
import { RECIPIENT } from './messages.ts';

/**
 * IDs of up to `limit` messages of the channel's topic (case-insensitive),
 * newest first. With `onlyHeldBy`, only messages that user has a
 * user_messages row for (private channels without shared history).
 */
export async function topicMessageIdsNewestFirst(db: Tx, realmId: number, streamId: number, topic: string, limit: number, onlyHeldBy?: number): Promise<number[]> {
  let q = db
    .selectFrom('messages')
    .select('messages.id')
    .where('messages.realm_id', '=', realmId)
    .where('messages.recipient_type', '=', RECIPIENT.STREAM)
    .where('messages.recipient_id', '=', streamId)
    .where(sql`lower(messages.topic)`, '=', sql`lower(${topic})`);
  if (onlyHeldBy !== undefined) {
    q = q.innerJoin('user_messages', 'user_messages.message_id', 'messages.id').where('user_messages.user_id', '=', onlyHeldBy);
  }
  const rows = await q.orderBy('messages.id', 'desc').limit(limit).execute();
  return rows.map((r) => Number(r.id));
}
