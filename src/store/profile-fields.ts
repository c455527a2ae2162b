/** Custom profile fields and users' values for them. */
import type { Tx } from './db.ts';

export async function profileValuesForUsers(
  db: Tx,
  userIds: number[],
): Promise<Array<{ user_id: number; field_id: number; value: string; rendered_value: string | null }>> {
  return db
    .selectFrom('custom_profile_field_values')
    .select(['user_id', 'field_id', 'value', 'rendered_value'])
    .where('user_id', 'in', userIds)
    .orderBy('field_id')
    .execute();
}
