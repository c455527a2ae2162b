/** Bot storage (Zulip's BotStorageData: string keys and values per bot): the SQL. */
import type { Tx } from './db.ts';

export async function storageEntries(db: Tx, userId: number, keys?: string[]): Promise<Array<{ key: string; value: string }>> {
  let q = db.selectFrom('bot_storage').select(['key', 'value']).where('user_id', '=', userId);
  if (keys !== undefined) {
    if (keys.length === 0) return [];
    q = q.where('key', 'in', keys);
  }
  return q.orderBy('id').execute();
}

export async function putStorageEntry(db: Tx, userId: number, key: string, value: string): Promise<void> {
  const r = await db.updateTable('bot_storage').set({ value }).where('user_id', '=', userId).where('key', '=', key).executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) await db.insertInto('bot_storage').values({ user_id: userId, key, value }).execute();
}

export async function deleteStorageEntries(db: Tx, userId: number, keys: string[]): Promise<void> {
  if (keys.length) await db.deleteFrom('bot_storage').where('user_id', '=', userId).where('key', 'in', keys).execute();
}
