/** Full-member promotion bookkeeping (table `full_member_promotions`). Times are UNIX seconds. */
import type { Tx } from './db.ts';

/** Up to when promotions have been announced (null: never). */
export async function fullMembersCheckedUntil(tx: Tx, realmId: number): Promise<number | null> {
  const row = await tx.selectFrom('full_member_promotions').select('checked_until').where('realm_id', '=', realmId).executeTakeFirst();
  return row ? Number(row.checked_until) : null;
}

export async function setFullMembersCheckedUntil(tx: Tx, realmId: number, untilSeconds: number): Promise<void> {
  const until = Math.floor(untilSeconds);
  await tx
    .insertInto('full_member_promotions')
    .values({ realm_id: realmId, checked_until: until })
    .onConflict((oc) => oc.column('realm_id').doUpdateSet({ checked_until: until }))
    .execute();
}
