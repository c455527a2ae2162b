/** Password reset links: the SQL. */
import type { Selectable } from 'kysely';
import type { Tx } from './db.ts';
import type { PasswordResetsTable } from './schema.ts';

export type PasswordResetRow = Selectable<PasswordResetsTable>;

export async function insertPasswordReset(db: Tx, v: { realmId: number; userId: number; keyHash: string; passwordMarker: string; now: number }): Promise<void> {
  await db
    .insertInto('password_resets')
    .values({ realm_id: v.realmId, user_id: v.userId, key_hash: v.keyHash, password_marker: v.passwordMarker, created: v.now })
    .execute();
}

export async function passwordResetByKeyHash(db: Tx, realmId: number, keyHash: string): Promise<PasswordResetRow | undefined> {
  return db.selectFrom('password_resets').selectAll().where('realm_id', '=', realmId).where('key_hash', '=', keyHash).executeTakeFirst();
}

/** Marks every pending link of the user used (one was, or the password changed); true when `id` was still pending. */
export async function claimPasswordResets(db: Tx, userId: number, id: number): Promise<boolean> {
  const mine = await db.updateTable('password_resets').set({ status: 1 }).where('id', '=', id).where('status', '=', 0).executeTakeFirst();
  await db.updateTable('password_resets').set({ status: 1 }).where('user_id', '=', userId).where('status', '=', 0).execute();
  return Number(mine.numUpdatedRows) === 1;
}
