/** Message retention (message_retention_days): finding expired messages. */
import type { Tx } from './db.ts';
import { RECIPIENT } from './messages.ts';

/**
 * IDs of messages sent before `before` (UNIX seconds), oldest first, at most
 * `limit`: of one channel, or (streamId null) every direct message.
 */
export async function expiredMessageIds(db: Tx, realmId: number, streamId: number | null, before: number, limit: number): Promise<number[]> {
  let q = db.selectFrom('messages').select('id').where('realm_id', '=', realmId).where('date_sent', '<', before);
  q = streamId === null ? q.where('recipient_type', '!=', RECIPIENT.STREAM) : q.where('recipient_type', '=', RECIPIENT.STREAM).where('recipient_id', '=', streamId);
  const rows = await q.orderBy('id').limit(limit).execute();
  return rows.map((r) => r.id);
}
