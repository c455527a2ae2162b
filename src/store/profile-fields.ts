/** Custom profile fields and users' values for them. */
import type { Selectable } from 'kysely';
import type { Tx } from './db.ts';
import type { CustomProfileFieldsTable } from './schema.ts';

export type ProfileFieldRow = Selectable<CustomProfileFieldsTable>;

export interface ProfileValueRow {
  user_id: number;
  field_id: number;
  value: string;
  rendered_value: string | null;
}

/** Every custom profile field value of the organization's users. */
export async function profileValuesForRealm(db: Tx, realmId: number): Promise<ProfileValueRow[]> {
  return db
    .selectFrom('custom_profile_field_values as v')
    .innerJoin('custom_profile_fields as f', 'f.id', 'v.field_id')
    .select(['v.user_id', 'v.field_id', 'v.value', 'v.rendered_value'])
    .where('f.realm_id', '=', realmId)
    .orderBy('v.user_id')
    .orderBy('v.field_id')
    .execute();
}

/** The organization's fields in display order. */
export async function profileFieldsForRealm(db: Tx, realmId: number): Promise<ProfileFieldRow[]> {
  return db.selectFrom('custom_profile_fields').selectAll().where('realm_id', '=', realmId).orderBy('sort_order').orderBy('id').execute();
}

export async function profileFieldById(db: Tx, realmId: number, id: number): Promise<ProfileFieldRow | undefined> {
  return db.selectFrom('custom_profile_fields').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst();
}

export async function profileFieldByName(db: Tx, realmId: number, name: string): Promise<ProfileFieldRow | undefined> {
  return db.selectFrom('custom_profile_fields').selectAll().where('realm_id', '=', realmId).where('name', '=', name).executeTakeFirst();
}

export async function countSummaryFields(db: Tx, realmId: number, exceptId?: number): Promise<number> {
  let q = db
    .selectFrom('custom_profile_fields')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('realm_id', '=', realmId)
    .where('display_in_profile_summary', '=', 1);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

export async function insertProfileField(
  db: Tx,
  field: Omit<ProfileFieldRow, 'id' | 'sort_order'>,
): Promise<ProfileFieldRow> {
  const row = await db.insertInto('custom_profile_fields').values({ ...field, sort_order: 0 }).returningAll().executeTakeFirstOrThrow();
  // New fields sort last: their order is their ID, as in Zulip.
  await db.updateTable('custom_profile_fields').set({ sort_order: row.id }).where('id', '=', row.id).execute();
  return { ...row, sort_order: row.id };
}

export async function updateProfileField(
  db: Tx,
  id: number,
  patch: Partial<Omit<ProfileFieldRow, 'id' | 'realm_id' | 'field_type'>>,
): Promise<void> {
  if (Object.keys(patch).length === 0) return;
  await db.updateTable('custom_profile_fields').set(patch).where('id', '=', id).execute();
}

export async function deleteProfileField(db: Tx, id: number): Promise<void> {
  await db.deleteFrom('custom_profile_field_values').where('field_id', '=', id).execute();
  await db.deleteFrom('custom_profile_fields').where('id', '=', id).execute();
}

/** Removes values of a select field whose option no longer exists. */
export async function deleteValuesNotIn(db: Tx, fieldId: number, keep: string[]): Promise<void> {
  let q = db.deleteFrom('custom_profile_field_values').where('field_id', '=', fieldId);
  if (keep.length) q = q.where('value', 'not in', keep);
  await q.execute();
}

export async function profileValue(db: Tx, userId: number, fieldId: number): Promise<ProfileValueRow | undefined> {
  return db
    .selectFrom('custom_profile_field_values')
    .select(['user_id', 'field_id', 'value', 'rendered_value'])
    .where('user_id', '=', userId)
    .where('field_id', '=', fieldId)
    .executeTakeFirst();
}

/** One statement, so two changes of one value at once both succeed (the later one stays). */
export async function upsertProfileValue(db: Tx, row: ProfileValueRow): Promise<void> {
  await db
    .insertInto('custom_profile_field_values')
    .values(row)
    .onConflict((oc) => oc.columns(['user_id', 'field_id']).doUpdateSet({ value: row.value, rendered_value: row.rendered_value }))
    .execute();
}

/** Deletes one value; returns whether there was one. */
export async function deleteProfileValue(db: Tx, userId: number, fieldId: number): Promise<boolean> {
  const res = await db.deleteFrom('custom_profile_field_values').where('user_id', '=', userId).where('field_id', '=', fieldId).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
