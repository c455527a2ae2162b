/**
 * Which personal settings each user changed themselves: an administrator's
 * change of a setting for many users may skip those users (PATCH /settings
 * with target_users and skip_if_already_edited).
 */
import type { Tx } from './db.ts';

export async function recordOwnSettingEdits(db: Tx, userId: number, settings: string[]): Promise<void> {
  if (settings.length === 0) return;
  await db
    .insertInto('user_setting_edits')
    .values(settings.map((setting) => ({ user_id: userId, setting })))
    .onConflict((oc) => oc.columns(['user_id', 'setting']).doNothing())
    .execute();
}

/** Of the given users, those who changed the setting themselves. */
export async function usersWhoEditedSetting(db: Tx, userIds: number[], setting: string): Promise<Set<number>> {
  const out = new Set<number>();
  for (let i = 0; i < userIds.length; i += 1000) {
    const rows = await db.selectFrom('user_setting_edits').select('user_id').where('setting', '=', setting).where('user_id', 'in', userIds.slice(i, i + 1000)).execute();
    for (const r of rows) out.add(r.user_id);
  }
  return out;
}
