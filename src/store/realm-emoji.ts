/** Custom emoji changes (Zulip's RealmEmoji); the lookups live in user-status.ts. */
import type { Tx } from './db.ts';

export async function insertRealmEmoji(db: Tx, realmId: number, name: string, authorId: number): Promise<number> {
  const r = await db.insertInto('realm_emoji').values({ realm_id: realmId, name, author_id: authorId, file_name: '' }).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

export async function setRealmEmojiFile(db: Tx, id: number, fileName: string, isAnimated: boolean): Promise<void> {
  await db.updateTable('realm_emoji').set({ file_name: fileName, is_animated: isAnimated ? 1 : 0 }).where('id', '=', id).execute();
}

export async function deactivateRealmEmoji(db: Tx, id: number): Promise<void> {
  await db.updateTable('realm_emoji').set({ deactivated: 1 }).where('id', '=', id).execute();
}
