/** Channel folders (Zulip's ChannelFolder): the SQL. */
import { sql, type Selectable } from 'kysely';
import type { Tx } from './db.ts';
import type { ChannelFoldersTable } from './schema.ts';

export type ChannelFolderRow = Selectable<ChannelFoldersTable>;

/** The organization's folders in display order (archived ones only when asked). */
export async function channelFoldersOf(db: Tx, realmId: number, includeArchived: boolean): Promise<ChannelFolderRow[]> {
  let q = db.selectFrom('channel_folders').selectAll().where('realm_id', '=', realmId);
  if (!includeArchived) q = q.where('is_archived', '=', 0);
  return q.orderBy('order').orderBy('id').execute();
}

export async function channelFolderById(db: Tx, realmId: number, id: number): Promise<ChannelFolderRow | undefined> {
  return db.selectFrom('channel_folders').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst();
}

/** Whether a folder of that name exists (case-insensitive, archived ones included). */
export async function channelFolderNameTaken(db: Tx, realmId: number, name: string): Promise<boolean> {
  const r = await db
    .selectFrom('channel_folders')
    .select('id')
    .where('realm_id', '=', realmId)
    .where(sql<string>`lower(name)`, '=', sql<string>`lower(${name})`)
    .executeTakeFirst();
  return r !== undefined;
}

export async function insertChannelFolder(
  db: Tx,
  v: { realm_id: number; name: string; description: string; rendered_description: string; date_created: number; creator_id: number },
): Promise<number> {
  const r = await db.insertInto('channel_folders').values(v).returning('id').executeTakeFirstOrThrow();
  const id = Number(r.id);
  // A new folder comes last: its order is its ID, as in Zulip.
  await db.updateTable('channel_folders').set({ order: id }).where('id', '=', id).execute();
  return id;
}

export async function updateChannelFolder(
  db: Tx,
  id: number,
  patch: Partial<{ name: string; description: string; rendered_description: string; is_archived: number; order: number }>,
): Promise<void> {
  await db.updateTable('channel_folders').set(patch).where('id', '=', id).execute();
}

/** Whether any channel (archived ones included) is in the folder. */
export async function channelFolderInUse(db: Tx, folderId: number): Promise<boolean> {
  const r = await db.selectFrom('streams').select('id').where('folder_id', '=', folderId).executeTakeFirst();
  return r !== undefined;
}
