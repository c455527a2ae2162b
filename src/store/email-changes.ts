/** Pending email address changes: the SQL. */
import type { Selectable } from 'kysely';
import type { Tx } from './db.ts';
import type { EmailChangesTable } from './schema.ts';

export type EmailChangeRow = Selectable<EmailChangesTable>;

export async function insertEmailChange(db: Tx, v: { realmId: number; userId: number; oldEmail: string; newEmail: string; key: string; now: number }): Promise<void> {
  await db
    .insertInto('email_changes')
    .values({ realm_id: v.realmId, user_id: v.userId, old_email: v.oldEmail, new_email: v.newEmail, confirmation_key: v.key, created: v.now })
    .execute();
}

export async function emailChangeByKey(db: Tx, realmId: number, key: string): Promise<EmailChangeRow | undefined> {
  return db.selectFrom('email_changes').selectAll().where('realm_id', '=', realmId).where('confirmation_key', '=', key).executeTakeFirst();
}

/** Check-and-set: true only for the one caller that marked the change used. */
export async function claimEmailChange(db: Tx, id: number): Promise<boolean> {
  const r = await db.updateTable('email_changes').set({ status: 1 }).where('id', '=', id).where('status', '=', 0).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
