/** Email invitations (table `invitations`). Times are UNIX seconds. */
import type { Insertable, Selectable } from 'kysely';
import type { Tx } from './db.ts';
import type { InvitationsTable, MultiuseInvitesTable } from './schema.ts';

export type InvitationRow = Selectable<InvitationsTable>;
export type MultiuseInviteRow = Selectable<MultiuseInvitesTable>;
export type NewInvitation = Insertable<InvitationsTable>;

export const INVITATION_STATUS = { PENDING: 0, USED: 1, REVOKED: 2 } as const;

/** multiuse_id of a sign-up without an invitation (no link; never listed among the invitations). */
export const OPEN_SIGNUP = -1;

export async function insertInvitation(db: Tx, row: NewInvitation): Promise<InvitationRow> {
  return db.insertInto('invitations').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function invitationById(db: Tx, realmId: number, id: number): Promise<InvitationRow | undefined> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('realm_id', '=', realmId)
    .where('id', '=', id)
    .where('status', '=', INVITATION_STATUS.PENDING)
    .where('multiuse_id', 'is', null)
    .executeTakeFirst();
}

/** Unexpired invitations of the organization, or only those sent by `referredBy`, oldest first. */
export async function validInvitations(db: Tx, realmId: number, now: number, referredBy?: number): Promise<InvitationRow[]> {
  let q = db
    .selectFrom('invitations')
    .selectAll()
    .where('realm_id', '=', realmId)
    .where('status', '=', INVITATION_STATUS.PENDING)
    .where('multiuse_id', 'is', null)
    .where((eb) => eb.or([eb('expiry_date', 'is', null), eb('expiry_date', '>=', now)]));
  if (referredBy !== undefined) q = q.where('referred_by', '=', referredBy);
  return q.orderBy('id').execute();
}

export async function insertMultiuseInvite(db: Tx, row: Insertable<MultiuseInvitesTable>): Promise<MultiuseInviteRow> {
  return db.insertInto('multiuse_invites').values(row).returningAll().executeTakeFirstOrThrow();
}

/** A reusable invitation link by ID, whatever its status. */
export async function multiuseInviteById(db: Tx, realmId: number, id: number): Promise<MultiuseInviteRow | undefined> {
  return db.selectFrom('multiuse_invites').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst();
}

export async function multiuseInviteByKey(db: Tx, realmId: number, key: string): Promise<MultiuseInviteRow | undefined> {
  return db.selectFrom('multiuse_invites').selectAll().where('realm_id', '=', realmId).where('confirmation_key', '=', key).executeTakeFirst();
}

/** Active, unexpired reusable links of the organization, or only those created by `referredBy`, oldest first. */
export async function validMultiuseInvites(db: Tx, realmId: number, now: number, referredBy?: number): Promise<MultiuseInviteRow[]> {
  let q = db
    .selectFrom('multiuse_invites')
    .selectAll()
    .where('realm_id', '=', realmId)
    .where('status', '=', INVITATION_STATUS.PENDING)
    .where((eb) => eb.or([eb('expiry_date', 'is', null), eb('expiry_date', '>=', now)]));
  if (referredBy !== undefined) q = q.where('referred_by', '=', referredBy);
  return q.orderBy('id').execute();
}

export async function revokeMultiuseInvite(db: Tx, id: number): Promise<void> {
  await db.updateTable('multiuse_invites').set({ status: INVITATION_STATUS.REVOKED }).where('id', '=', id).execute();
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

/** The invitation with this registration key (any status). */
export async function invitationByKey(db: Tx, realmId: number, key: string): Promise<InvitationRow | undefined> {
  return db.selectFrom('invitations').selectAll().where('realm_id', '=', realmId).where('confirmation_key', '=', key).executeTakeFirst();
}

/** Check-and-set: marks a pending invitation used; true only for the one caller that changed it. */
export async function claimInvitation(db: Tx, id: number): Promise<boolean> {
  const r = await db
    .updateTable('invitations')
    .set({ status: INVITATION_STATUS.USED })
    .where('id', '=', id)
    .where('status', '=', INVITATION_STATUS.PENDING)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Records the account created from a used invitation and revokes the other pending invitations to the same address. */
export async function completeInvitation(db: Tx, realmId: number, id: number, email: string, userId: number): Promise<number[]> {
  await db.updateTable('invitations').set({ created_user_id: userId }).where('id', '=', id).execute();
  const others = await db
    .selectFrom('invitations')
    .select(['id', 'email', 'referred_by'])
    .where('realm_id', '=', realmId)
    .where('status', '=', INVITATION_STATUS.PENDING)
    .where('id', '!=', id)
    .execute();
  const same = others.filter((o) => o.email.toLowerCase() === email.toLowerCase());
  if (same.length) {
    await db
      .updateTable('invitations')
      .set({ status: INVITATION_STATUS.REVOKED })
      .where('id', 'in', same.map((o) => o.id))
      .execute();
  }
  return same.map((o) => o.referred_by);
}
