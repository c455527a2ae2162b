/**
 * Pending missed-message emails and email bookkeeping: all SQL about
 * missed_message_emails and email_unsubscribe_keys (digests:
 * digest-emails.ts). A user's
 * pending rows are claimed all at once with one conditional
 * UPDATE ... RETURNING, so each batch is sent by exactly one worker.
 */
import type { Selectable } from 'kysely';
import type { Db, Tx } from './db.ts';
import { prepared } from './prepared.ts';
import type { MissedMessageEmailsTable } from './schema.ts';

export type MissedMessageEmailRow = Selectable<MissedMessageEmailsTable>;

/** The due time of each user's pending batch (users without one are absent). */
export async function pendingBatchTimes(db: Tx, userIds: number[]): Promise<Map<number, number>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('missed_message_emails')
    .select(['user_id', (eb) => eb.fn.min('scheduled_at').as('due')])
    .where('user_id', 'in', userIds)
    .where('sent_at', 'is', null)
    .groupBy('user_id')
    .execute();
  return new Map(rows.map((r) => [r.user_id, Number(r.due)]));
}

export async function insertMissedMessageEmails(
  db: Tx,
  rows: Array<{ user_id: number; message_id: number; trigger: string; mentioned_user_group_id: number | null; scheduled_at: number }>,
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('missed_message_emails')
    .values(rows.map((r) => ({ ...r, sent_at: null })))
    .execute();
}

/** Users with a batch due by `now`. */
export async function usersWithDueBatches(db: Db, now: number, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('missed_message_emails')
    .select('user_id')
    .where('sent_at', 'is', null)
    .where('scheduled_at', '<=', now)
    .groupBy('user_id')
    .orderBy('user_id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.user_id);
}

/** Claims every pending row of a user (the whole batch); another worker claiming at the same time gets none. */
export async function claimUserBatch(db: Db, userId: number, now: number): Promise<MissedMessageEmailRow[]> {
  return db
    .updateTable('missed_message_emails')
    .set({ sent_at: now })
    .where('user_id', '=', userId)
    .where('sent_at', 'is', null)
    .returningAll()
    .execute();
}

/** Gives claimed rows back (the email could not be sent). */
export async function releaseRows(db: Db, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('missed_message_emails').set({ sent_at: null }).where('id', 'in', ids).execute();
}

/** Drops rows of sent batches older than `before`. */
export async function deleteSentBefore(db: Db, before: number): Promise<void> {
  await db.deleteFrom('missed_message_emails').where('sent_at', 'is not', null).where('sent_at', '<', before).execute();
}

/** Unread state of messages for a user: message ID -> flags (absent: no row). */
export async function userMessageFlags(db: Tx, userId: number, messageIds: number[]): Promise<Map<number, number>> {
  if (messageIds.length === 0) return new Map();
  const rows = await db.selectFrom('user_messages').select(['message_id', 'flags']).where('user_id', '=', userId).where('message_id', 'in', messageIds).execute();
  return new Map(rows.map((r) => [r.message_id, r.flags]));
}

// ---------------------------------------------------------------------------
// Unsubscribe keys

export async function unsubscribeKeyOf(db: Tx, userId: number, emailType: string): Promise<string | undefined> {
  const row = await db.selectFrom('email_unsubscribe_keys').select('key').where('user_id', '=', userId).where('email_type', '=', emailType).executeTakeFirst();
  return row?.key;
}

export async function insertUnsubscribeKey(db: Tx, key: string, userId: number, emailType: string, now: number): Promise<void> {
  await db
    .insertInto('email_unsubscribe_keys')
    .values({ key, user_id: userId, email_type: emailType, date_created: now })
    .onConflict((oc) => oc.columns(['user_id', 'email_type']).doNothing())
    .execute();
}

export async function unsubscribeKey(db: Tx, key: string): Promise<{ user_id: number; email_type: string } | undefined> {
  return db.selectFrom('email_unsubscribe_keys').select(['user_id', 'email_type']).where('key', '=', key).executeTakeFirst();
}
