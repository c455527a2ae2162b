/** Muted users (muted_users): the SQL. */
import { sql } from 'kysely';
import type { Tx } from './db.ts';
import { prepared } from './prepared.ts';
import { FLAG } from './messages.ts';

export interface MuteEntry {
  id: number;
  timestamp: number;
}

/** The user's mutes as the API lists them ({id, timestamp}), oldest first. */
export async function mutesOf(db: Tx, userId: number): Promise<MuteEntry[]> {
  const rows = await db.selectFrom('muted_users').select(['muted_user_id', 'date_muted']).where('user_id', '=', userId).orderBy('id').execute();
  return rows.map((r) => ({ id: r.muted_user_id, timestamp: Number(r.date_muted) }));
}

export async function isMuted(db: Tx, userId: number, mutedUserId: number): Promise<boolean> {
  const r = await db.selectFrom('muted_users').select('id').where('user_id', '=', userId).where('muted_user_id', '=', mutedUserId).executeTakeFirst();
  return !!r;
}

export async function insertMute(db: Tx, userId: number, mutedUserId: number, dateMuted: number): Promise<void> {
  await db.insertInto('muted_users').values({ user_id: userId, muted_user_id: mutedUserId, date_muted: dateMuted }).execute();
}

export async function deleteMute(db: Tx, userId: number, mutedUserId: number): Promise<void> {
  await db.deleteFrom('muted_users').where('user_id', '=', userId).where('muted_user_id', '=', mutedUserId).execute();
}

/** Users who have muted `userId` (Zulip's get_muting_users). */
const mutingUserIdsQuery = prepared((db) => db.selectFrom('muted_users').select('user_id').where('muted_user_id', '=', 0));

export async function mutingUserIds(db: Tx, userId: number): Promise<number[]> {
  const rows = await mutingUserIdsQuery(db, userId);
  return rows.map((r) => r.user_id);
}

/** Users `userId` has muted. */
export async function mutedUserIds(db: Tx, userId: number): Promise<number[]> {
  const rows = await db.selectFrom('muted_users').select('muted_user_id').where('user_id', '=', userId).execute();
  return rows.map((r) => r.muted_user_id);
}

/** Marks the user's unread messages from `senderId` read; returns their IDs, ascending. */
export async function markSenderMessagesRead(db: Tx, userId: number, senderId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('user_messages as um')
    .innerJoin('messages as m', 'm.id', 'um.message_id')
    .select('um.message_id')
    .where('um.user_id', '=', userId)
    .where('m.sender_id', '=', senderId)
    .where(sql<boolean>`(um.flags & ${FLAG.read}) = 0`)
    .orderBy('um.message_id')
    .execute();
  const ids = rows.map((r) => r.message_id);
  for (let i = 0; i < ids.length; i += 500) {
    await db
      .updateTable('user_messages')
      .set({ flags: sql`flags | ${FLAG.read}` })
      .where('user_id', '=', userId)
      .where('message_id', 'in', ids.slice(i, i + 500))
      .execute();
  }
  return ids;
}
