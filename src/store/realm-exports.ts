/** Organization data exports (Zulip's RealmExport rows). */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Tx } from './db.ts';
import type { RealmExportsTable } from './schema.ts';

export type RealmExportRow = Selectable<RealmExportsTable>;

export const EXPORT_STATUS = { REQUESTED: 0, STARTED: 1, SUCCEEDED: 2, FAILED: 3, DELETED: 4 } as const;

export async function insertRealmExport(db: Tx, row: Insertable<RealmExportsTable>): Promise<RealmExportRow> {
  return db.insertInto('realm_exports').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function realmExports(db: Tx, realmId: number): Promise<RealmExportRow[]> {
  return db.selectFrom('realm_exports').selectAll().where('realm_id', '=', realmId).orderBy('id').execute();
}

export async function realmExportById(db: Tx, realmId: number, id: number): Promise<RealmExportRow | undefined> {
  return db.selectFrom('realm_exports').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst();
}

export async function updateRealmExport(db: Tx, id: number, patch: Updateable<RealmExportsTable>): Promise<void> {
  await db.updateTable('realm_exports').set(patch).where('id', '=', id).execute();
}

/** Exports requested since `since` (UNIX seconds): Zulip's weekly limit counts them. */
export async function exportsRequestedSince(db: Tx, realmId: number, since: number): Promise<number> {
  const r = await db
    .selectFrom('realm_exports')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('realm_id', '=', realmId)
    .where('date_requested', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Exports left requested or started by a process that stopped: they can no longer finish. */
export async function unfinishedExports(db: Tx, realmId: number): Promise<RealmExportRow[]> {
  return db
    .selectFrom('realm_exports')
    .selectAll()
    .where('realm_id', '=', realmId)
    .where('status', 'in', [EXPORT_STATUS.REQUESTED, EXPORT_STATUS.STARTED])
    .execute();
}

/** The organization's message count and the bytes of its uploads (Zulip's limits on exports through the API). */
export async function exportSizeEstimate(db: Tx, realmId: number): Promise<{ messages: number; uploadBytes: number }> {
  const m = await db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).where('realm_id', '=', realmId).executeTakeFirstOrThrow();
  const a = await db.selectFrom('attachments').select((eb) => eb.fn.sum<number>('size').as('n')).where('realm_id', '=', realmId).executeTakeFirstOrThrow();
  return { messages: Number(m.n), uploadBytes: Number(a.n ?? 0) };
}
