/**
 * Bot storage: GET/PUT/DELETE /bot_storage -- string key/value pairs kept
 * for the calling bot (Zulip's BotStorageData), with Zulip's total size
 * limit and "Key does not exist." errors. No events, as in Zulip.
 */
import { lockUserRowsOf } from '../store/locks.ts';
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';
import { transaction } from '../store/db.ts';
import { badRequest } from '../lib/errors.ts';
import { deleteStorageEntries, putStorageEntry, storageEntries } from '../store/bot-storage.ts';

/** Zulip's USER_STATE_SIZE_LIMIT (characters of keys plus values). */
export const BOT_STORAGE_SIZE_LIMIT = 10_000_000;

const size = (entries: Array<{ key: string; value: string }>) => entries.reduce((n, e) => n + e.key.length + e.value.length, 0);
const missingKey = () => badRequest('Key does not exist.');

export async function getBotStorage(svc: Services, user: UserRow, keys: string[] | undefined): Promise<{ storage: Record<string, string> }> {
  const rows = await storageEntries(svc.store.db, user.id, keys);
  const byKey = new Map(rows.map((r) => [r.key, r.value]));
  const storage: Record<string, string> = {};
  for (const key of keys ?? rows.map((r) => r.key)) {
    const value = byKey.get(key);
    if (value === undefined) throw missingKey();
    storage[key] = value;
  }
  return { storage };
}

export async function putBotStorage(svc: Services, user: UserRow, storage: Record<string, string>): Promise<void> {
  await transaction(svc.store, async (tx) => {
    // Its size limit counts what another request just stored (PostgreSQL).
    await lockUserRowsOf(svc.store, tx, user.id);
    const current = await storageEntries(tx, user.id);
    const byKey = new Map(current.map((r) => [r.key, r.value]));
    let newSize = size(current);
    for (const [key, value] of Object.entries(storage)) {
      const old = byKey.get(key);
      newSize += key.length + value.length - (old === undefined ? 0 : key.length + old.length);
    }
    if (newSize > BOT_STORAGE_SIZE_LIMIT) {
      throw badRequest(`Request exceeds storage limit by ${newSize - BOT_STORAGE_SIZE_LIMIT} characters. The limit is ${BOT_STORAGE_SIZE_LIMIT} characters.`);
    }
    for (const [key, value] of Object.entries(storage)) await putStorageEntry(tx, user.id, key, value);
  });
}

export async function removeBotStorage(svc: Services, user: UserRow, keys: string[] | undefined): Promise<void> {
  await transaction(svc.store, async (tx) => {
    await lockUserRowsOf(svc.store, tx, user.id);
    const rows = await storageEntries(tx, user.id, keys);
    const wanted = keys ?? rows.map((r) => r.key);
    if (rows.length < wanted.length) throw missingKey();
    await deleteStorageEntries(tx, user.id, wanted);
  });
}
