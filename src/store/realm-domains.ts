/** The organization's allowed email domains (realm_domains): the SQL. */
import type { Tx } from './db.ts';

export interface RealmDomain {
  domain: string;
  allow_subdomains: boolean;
}

/** The allowed domains, in the order added. */
export async function realmDomains(db: Tx, realmId: number): Promise<RealmDomain[]> {
  const rows = await db.selectFrom('realm_domains').select(['domain', 'allow_subdomains']).where('realm_id', '=', realmId).orderBy('id').execute();
  return rows.map((r) => ({ domain: r.domain, allow_subdomains: r.allow_subdomains === 1 }));
}

export async function realmDomainExists(db: Tx, realmId: number, domain: string): Promise<boolean> {
  const row = await db.selectFrom('realm_domains').select('id').where('realm_id', '=', realmId).where('domain', '=', domain).executeTakeFirst();
  return row !== undefined;
}

export async function insertRealmDomain(db: Tx, realmId: number, d: RealmDomain): Promise<number> {
  const row = await db
    .insertInto('realm_domains')
    .values({ realm_id: realmId, domain: d.domain, allow_subdomains: d.allow_subdomains ? 1 : 0 })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Returns whether a row was changed (false: no such domain). */
export async function updateRealmDomain(db: Tx, realmId: number, d: RealmDomain): Promise<boolean> {
  const res = await db
    .updateTable('realm_domains')
    .set({ allow_subdomains: d.allow_subdomains ? 1 : 0 })
    .where('realm_id', '=', realmId)
    .where('domain', '=', d.domain)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Returns whether a row was deleted. */
export async function deleteRealmDomain(db: Tx, realmId: number, domain: string): Promise<boolean> {
  const res = await db.deleteFrom('realm_domains').where('realm_id', '=', realmId).where('domain', '=', domain).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
