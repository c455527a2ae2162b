/**
 * Digest emails: who got one when (digest_emails; a user's digest is claimed
 * with one conditional upsert, so it is sent once), and the traffic a digest
 * summarizes.
 */
import type { Db, Tx } from './db.ts';
import { RECIPIENT } from './messages.ts';

export async function lastDigestTimes(db: Tx, userIds: number[]): Promise<Map<number, number>> {
  if (userIds.length === 0) return new Map();
  const rows = await db.selectFrom('digest_emails').selectAll().where('user_id', 'in', userIds).execute();
  return new Map(rows.map((r) => [r.user_id, Number(r.last_sent_at)]));
}

/**
 * Records a digest for the user unless one was recorded since `since`;
 * true when this caller won (and so sends it).
 */
export async function claimDigest(db: Db, userId: number, now: number, since: number): Promise<boolean> {
  const inserted = await db
    .insertInto('digest_emails')
    .values({ user_id: userId, last_sent_at: now })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ last_sent_at: now }).where('digest_emails.last_sent_at', '<', since))
    .returning('user_id')
    .execute();
  return inserted.length > 0;
}

/** Channel messages sent after `since` (seconds) by humans, oldest first. */
export async function channelMessagesSince(
  db: Tx,
  realmId: number,
  since: number,
): Promise<Array<{ recipient_id: number; topic: string; sender_id: number; content: string }>> {
  return db
    .selectFrom('messages')
    .innerJoin('users', 'users.id', 'messages.sender_id')
    .select(['messages.recipient_id', 'messages.topic', 'messages.sender_id', 'messages.content'])
    .where('messages.realm_id', '=', realmId)
    .where('messages.recipient_type', '=', RECIPIENT.STREAM)
    .where('messages.date_sent', '>', since)
    .where('users.is_bot', '=', 0)
    .orderBy('messages.id')
    .execute();
}

/** The active, unmuted subscriptions of these users. */
export async function unmutedSubscriptions(db: Tx, userIds: number[]): Promise<Array<{ user_id: number; stream_id: number }>> {
  if (userIds.length === 0) return [];
  return db.selectFrom('subscriptions').select(['user_id', 'stream_id']).where('user_id', 'in', userIds).where('active', '=', 1).where('is_muted', '=', 0).execute();
}
