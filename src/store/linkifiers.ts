/** Organization linkifiers (Zulip's RealmFilter): the SQL. */
import type { Selectable } from 'kysely';
import type { Tx } from './db.ts';
import type { RealmLinkifiersTable } from './schema.ts';

export type LinkifierRow = Selectable<RealmLinkifiersTable>;

/** What an administrator sets on a linkifier; alternative_url_templates as stored (JSON text). */
export interface LinkifierFields {
  pattern: string;
  url_template: string;
  example_input: string | null;
  reverse_template: string | null;
  alternative_url_templates: string;
}

/** The organization's linkifiers in processing order. */
export async function linkifiersOf(db: Tx, realmId: number): Promise<LinkifierRow[]> {
  return db.selectFrom('realm_linkifiers').selectAll().where('realm_id', '=', realmId).orderBy('order').orderBy('id').execute();
}

export async function linkifierById(db: Tx, realmId: number, id: number): Promise<LinkifierRow | undefined> {
  return db.selectFrom('realm_linkifiers').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst();
}

export async function linkifierByPattern(db: Tx, realmId: number, pattern: string): Promise<LinkifierRow | undefined> {
  return db.selectFrom('realm_linkifiers').selectAll().where('realm_id', '=', realmId).where('pattern', '=', pattern).executeTakeFirst();
}

/** Adds a linkifier after the existing ones. */
export async function insertLinkifier(db: Tx, realmId: number, fields: LinkifierFields): Promise<number> {
  const max = await db
    .selectFrom('realm_linkifiers')
    .select((eb) => eb.fn.max('order').as('m'))
    .where('realm_id', '=', realmId)
    .executeTakeFirst();
  const order = max?.m === null || max?.m === undefined ? 0 : Number(max.m) + 1;
  const r = await db.insertInto('realm_linkifiers').values({ realm_id: realmId, ...fields, order }).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

export async function updateLinkifier(db: Tx, realmId: number, id: number, fields: LinkifierFields): Promise<void> {
  await db.updateTable('realm_linkifiers').set(fields).where('realm_id', '=', realmId).where('id', '=', id).execute();
}

export async function deleteLinkifier(db: Tx, realmId: number, id: number): Promise<void> {
  await db.deleteFrom('realm_linkifiers').where('realm_id', '=', realmId).where('id', '=', id).execute();
}

export async function setLinkifierOrder(db: Tx, realmId: number, id: number, order: number): Promise<void> {
  await db.updateTable('realm_linkifiers').set({ order }).where('realm_id', '=', realmId).where('id', '=', id).execute();
}
