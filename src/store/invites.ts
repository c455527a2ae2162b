/** Email invitations (table `invitations`). Times are UNIX seconds. */
import type { Insertable, Selectable } from 'kysely';
import type { Tx } from './db.ts';
import type { InvitationsTable } from './schema.ts';

export type InvitationRow = Selectable<InvitationsTable>;
export type NewInvitation = Insertable<InvitationsTable>;

export async function insertInvitation(db: Tx, row: NewInvitation): Promise<InvitationRow> {
  return db.insertInto('invitations').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function invitationById(db: Tx, realmId: number, id: number): Promise<InvitationRow | undefined> {
  return db.selectFrom('invitations').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst();
}

/** Unexpired invitations of the organization, or only those sent by `referredBy`, oldest first. */
export async function validInvitations(db: Tx, realmId: number, now: number, referredBy?: number): Promise<InvitationRow[]> {
  let q = db
    .selectFrom('invitations')
    .selectAll()
    .where('realm_id', '=', realmId)
    .where((eb) => eb.or([eb('expiry_date', 'is', null), eb('expiry_date', '>=', now)]));
  if (referredBy !== undefined) q = q.where('referred_by', '=', referredBy);
  return q.orderBy('id').execute();
}

export async function deleteInvitation(db: Tx, id: number): Promise<void> {
  await db.deleteFrom('invitations').where('id', '=', id).execute();
}

export async function updateInvitation(db: Tx, id: number, patch: { invited_at: number; confirmation_key: string }): Promise<void> {
  await db.updateTable('invitations').set(patch).where('id', '=', id).execute();
}

/** Active administrators and owners, humans and bots (Zulip's get_admin_users_and_bots). */
export async function adminAndBotIds(db: Tx, realmId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('realm_id', '=', realmId)
    .where('is_active', '=', 1)
    .where('is_system_bot', '=', 0)
    .where('role', '<=', 200)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}
