/** Code playgrounds (Zulip's RealmPlayground): the SQL. */
import type { Selectable } from 'kysely';
import type { Tx } from './db.ts';
import type { RealmPlaygroundsTable } from './schema.ts';

export type PlaygroundRow = Selectable<RealmPlaygroundsTable>;

export async function playgroundsOf(db: Tx, realmId: number): Promise<PlaygroundRow[]> {
  return db.selectFrom('realm_playgrounds').selectAll().where('realm_id', '=', realmId).orderBy('id').execute();
}

export async function playgroundById(db: Tx, realmId: number, id: number): Promise<PlaygroundRow | undefined> {
  return db.selectFrom('realm_playgrounds').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst();
}

export async function playgroundExists(db: Tx, realmId: number, language: string, name: string): Promise<boolean> {
  const r = await db
    .selectFrom('realm_playgrounds')
    .select('id')
    .where('realm_id', '=', realmId)
    .where('pygments_language', '=', language)
    .where('name', '=', name)
    .executeTakeFirst();
  return r !== undefined;
}

export async function insertPlayground(db: Tx, v: { realm_id: number; name: string; pygments_language: string; url_template: string }): Promise<number> {
  const r = await db.insertInto('realm_playgrounds').values(v).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

export async function deletePlayground(db: Tx, realmId: number, id: number): Promise<void> {
  await db.deleteFrom('realm_playgrounds').where('realm_id', '=', realmId).where('id', '=', id).execute();
}
