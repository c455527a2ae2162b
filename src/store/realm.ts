/** The organization row: name, settings and new-user defaults. */
import type { Selectable } from 'kysely';
import type { Tx } from './db.ts';
import type { RealmTable } from './schema.ts';

export type RealmRow = Selectable<RealmTable>;

export async function firstRealm(db: Tx): Promise<RealmRow | undefined> {
  return db.selectFrom('realm').selectAll().orderBy('id').executeTakeFirst();
}

export async function realmById(db: Tx, id: number): Promise<RealmRow> {
  return db.selectFrom('realm').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export async function insertRealm(db: Tx, realm: { string_id: string; name: string; date_created: number }): Promise<RealmRow> {
  return db.insertInto('realm').values(realm).returningAll().executeTakeFirstOrThrow();
}

export async function updateRealm(
  db: Tx,
  id: number,
  patch: Partial<Pick<RealmRow, 'name' | 'description' | 'deactivated' | 'settings_json' | 'user_defaults_json'>>,
): Promise<void> {
  await db.updateTable('realm').set(patch).where('id', '=', id).execute();
}
