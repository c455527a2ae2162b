/** The organization row: name, settings and new-user defaults. */
import type { Selectable } from 'kysely';
import type { Db, Tx } from './db.ts';
import { prepared } from './prepared.ts';
import type { RealmTable } from './schema.ts';

export type RealmRow = Selectable<RealmTable>;

export async function firstRealm(db: Tx): Promise<RealmRow | undefined> {
  return db.selectFrom('realm').selectAll().orderBy('id').executeTakeFirst();
}

const realmByIdQuery = prepared((db) => db.selectFrom('realm').selectAll().where('id', '=', 0));

/** The organization row (read on most requests, so compiled once per database). */
export async function realmById(db: Tx, id: number): Promise<RealmRow> {
  const rows = await realmByIdQuery(db as Db, id);
  if (!rows[0]) throw new Error(`no realm ${id}`);
  return rows[0];
}

export async function insertRealm(db: Tx, realm: { string_id: string; name: string; date_created: number; settings_json?: string }): Promise<RealmRow> {
  return db.insertInto('realm').values(realm).returningAll().executeTakeFirstOrThrow();
}

export async function updateRealm(
  db: Tx,
  id: number,
  patch: Partial<Pick<RealmRow, 'name' | 'description' | 'deactivated' | 'settings_json' | 'user_defaults_json' | 'icon_version' | 'logo_version' | 'night_logo_version'>>,
): Promise<void> {
  await db.updateTable('realm').set(patch).where('id', '=', id).execute();
}
