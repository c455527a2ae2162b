/** Custom profile field values as they appear in user objects (`profile_data`). */
import type { Services } from '../services.ts';
import type { Tx } from '../store/db.ts';
import { profileValuesForRealm } from '../store/profile-fields.ts';

export type ProfileData = Record<string, { value: string; rendered_value?: string }>;

/** Every user's values, by user (users without any are absent). */
export async function loadProfileData(db: Tx, realmId: number): Promise<Map<number, ProfileData>> {
  const out = new Map<number, ProfileData>();
  for (const row of await profileValuesForRealm(db, realmId)) {
    let data = out.get(row.user_id);
    if (!data) out.set(row.user_id, (data = {}));
    data[String(row.field_id)] = row.rendered_value === null ? { value: row.value } : { value: row.value, rendered_value: row.rendered_value };
  }
  for (const data of out.values()) Object.freeze(data);
  return out;
}
