/** User presence rows: all SQL about the user_presence table. */
import type { Selectable } from 'kysely';
import { transaction, type Store, type Tx } from './db.ts';
import { lockUntilCommit } from './locks.ts';
import type { UserPresenceTable } from './schema.ts';

export type PresenceRow = Selectable<UserPresenceTable>;

/** Every presence row of the organization (loaded once into memory). */
export async function presenceRowsOfRealm(db: Tx, realmId: number): Promise<PresenceRow[]> {
  return db.selectFrom('user_presence').selectAll().where('realm_id', '=', realmId).execute();
}

/** The organization's presence rows changed after `updateId` (a larger last_update_id). */
export async function presenceRowsOfRealmSince(db: Tx, realmId: number, updateId: number): Promise<PresenceRow[]> {
  return db.selectFrom('user_presence').selectAll().where('realm_id', '=', realmId).where('last_update_id', '>', updateId).execute();
}

export async function presenceRowOfUser(db: Tx, userId: number): Promise<PresenceRow | undefined> {
  return db.selectFrom('user_presence').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** The realm's presence sequence as stored (0 when no presence yet). */
export async function maxPresenceUpdateId(db: Tx, realmId: number): Promise<number> {
  const r = await db.selectFrom('user_presence').select((eb) => eb.fn.max('last_update_id').as('m')).where('realm_id', '=', realmId).executeTakeFirst();
  return Number(r?.m ?? 0);
}

/**
 * Writes rows in one statement. A row only replaces a stored one with an
 * older last_update_id, so writes that land out of order never go back.
 */
export async function upsertPresenceRows(db: Tx, rows: PresenceRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('user_presence')
    .values(rows)
    .onConflict((oc) =>
      oc
        .column('user_id')
        .doUpdateSet((eb) => ({
          last_connected_time: eb.ref('excluded.last_connected_time'),
          last_active_time: eb.ref('excluded.last_active_time'),
          last_update_id: eb.ref('excluded.last_update_id'),
        }))
        .whereRef('user_presence.last_update_id', '<', 'excluded.last_update_id'),
    )
    .execute();
}

/**
 * Writes rows under the organization's next presence sequence values, which
 * this sets on them (in the order given), in one transaction that holds the
 * organization's presence lock: with several processes writing, the values
 * are committed in increasing order, so a reader that has seen a value has
 * seen every smaller one (an incremental poll never skips a change).
 */
export async function upsertPresenceRowsInSequence(store: Store, realmId: number, rows: PresenceRow[]): Promise<void> {
  if (rows.length === 0) return;
  await transaction(store, async (tx) => {
    await lockUntilCommit(store, tx, `presence:${realmId}`);
    const max = await maxPresenceUpdateId(tx, realmId);
    rows.forEach((r, i) => {
      r.last_update_id = max + 1 + i;
    });
    await upsertPresenceRows(tx, rows);
  });
}
