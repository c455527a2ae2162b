/** Custom profile field values as they appear in user objects (`profile_data`). */
import type { Services } from '../services.ts';
import { profileValuesForUser, profileValuesForUsers } from '../store/profile-fields.ts';

export type ProfileData = Record<string, { value: string; rendered_value?: string }>;

export async function profileDataByUser(svc: Services, userIds: number[]): Promise<Map<number, ProfileData>> {
  const out = new Map<number, ProfileData>();
  if (userIds.length === 0) return out;
  const rows = userIds.length === 1 ? await profileValuesForUser(svc.store.db, userIds[0]) : await profileValuesForUsers(svc.store.db, userIds);
  for (const row of rows) {
    let data = out.get(row.user_id);
    if (!data) out.set(row.user_id, (data = {}));
    data[String(row.field_id)] = row.rendered_value === null ? { value: row.value } : { value: row.value, rendered_value: row.rendered_value };
  }
  return out;
}
