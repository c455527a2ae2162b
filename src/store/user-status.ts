/** User status rows (status text and emoji) and the custom-emoji lookups its validation needs. */
import type { Selectable } from 'kysely';
import type { Tx } from './db.ts';
import type { RealmEmojiTable, UserStatusTable } from './schema.ts';

export type UserStatusRow = Selectable<UserStatusTable>;
export type RealmEmojiRow = Selectable<RealmEmojiTable>;

/** The fields of a status update; undefined leaves the stored value as is. */
export interface UserStatusPatch {
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

export async function userStatusOf(db: Tx, userId: number): Promise<UserStatusRow | undefined> {
  return db.selectFrom('user_status').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** Creates the user's status row or updates the given fields of it (Zulip's update_or_create). */
export async function upsertUserStatus(db: Tx, userId: number, patch: UserStatusPatch, timestamp: number): Promise<void> {
  const set: UserStatusPatch & { timestamp: number } = { timestamp };
  for (const k of ['status_text', 'emoji_name', 'emoji_code', 'reaction_type'] as const) {
    if (patch[k] !== undefined) set[k] = patch[k];
  }
  const existing = await userStatusOf(db, userId);
  if (existing) {
    await db.updateTable('user_status').set(set).where('user_id', '=', userId).execute();
  } else {
    await db.insertInto('user_status').values({ user_id: userId, ...set }).execute();
  }
}

/**
 * Every status row (of every organization in the database: callers keep
 * those of their users). Read without the users table: joined to it, SQLite
 * went through every user of the organization to find the few with a status.
 */
export async function allUserStatuses(db: Tx): Promise<UserStatusRow[]> {
  return db.selectFrom('user_status').selectAll().orderBy('user_id').execute();
}

/** An active custom emoji of the organization by name. */
export async function activeRealmEmojiByName(db: Tx, realmId: number, name: string): Promise<RealmEmojiRow | undefined> {
  return db
    .selectFrom('realm_emoji')
    .selectAll()
    .where('realm_id', '=', realmId)
    .where('name', '=', name)
    .where('deactivated', '=', 0)
    .orderBy('id')
    .executeTakeFirst();
}

/** A custom emoji of the organization by ID, deactivated ones included. */
export async function realmEmojiById(db: Tx, realmId: number, id: number): Promise<RealmEmojiRow | undefined> {
  return db.selectFrom('realm_emoji').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst();
}

/** Every custom emoji of the organization, deactivated ones included (register's realm_emoji). */
export async function allRealmEmoji(db: Tx, realmId: number): Promise<RealmEmojiRow[]> {
  return db.selectFrom('realm_emoji').selectAll().where('realm_id', '=', realmId).orderBy('id').execute();
}
