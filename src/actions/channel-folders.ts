/**
 * Channel folders: POST/GET /channel_folders, PATCH /channel_folders
 * (reorder), PATCH /channel_folders/{id} (name, description, archiving).
 * Administrators only for changes; `channel_folder` events (op add, update,
 * reorder) to all active users; channels refer to a folder by folder_id.
 */
import { lockNamesOf } from '../store/locks.ts';
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';
import { transaction, type Tx } from '../store/db.ts';
import { badRequest, requireAdmin } from '../lib/errors.ts';
import { nowSeconds } from '../lib/util.ts';
import {
  channelFolderById,
  channelFolderInUse,
  channelFolderNameTaken,
  channelFoldersOf,
  insertChannelFolder,
  updateChannelFolder,
  type ChannelFolderRow,
} from '../store/channel-folders.ts';
import { renderDescription } from './streams-format.ts';
import { isAdminRole } from './users-format.ts';
import { cachedActiveUserIds } from './cache.ts';

/** Zulip's ChannelFolder.MAX_NAME_LENGTH and MAX_DESCRIPTION_LENGTH. */
export const MAX_FOLDER_NAME_LENGTH = 60;
export const MAX_FOLDER_DESCRIPTION_LENGTH = 1024;

/** Zulip's channel folder object. */
export function channelFolderDict(f: ChannelFolderRow): Record<string, unknown> {
  return {
    id: f.id,
    name: f.name,
    description: f.description,
    rendered_description: f.rendered_description,
    order: f.order,
    date_created: Number(f.date_created),
    creator_id: f.creator_id,
    is_archived: !!f.is_archived,
  };
}

/** The `channel_folders` of /register: every folder, archived ones included, in order. */
export async function registerChannelFolders(db: Tx, realmId: number): Promise<Array<Record<string, unknown>>> {
  return (await channelFoldersOf(db, realmId, true)).map(channelFolderDict);
}

/** A folder a channel may be put in, or Zulip's error. */
export async function checkChannelFolderId(db: Tx, realmId: number, folderId: number): Promise<ChannelFolderRow> {
  const f = await channelFolderById(db, realmId, folderId);
  if (!f) throw badRequest('Invalid channel folder ID');
  return f;
}

function checkAdmin(user: UserRow): void {
  if (!isAdminRole(user.role)) throw requireAdmin();
}

/** Zulip's check_channel_folder_name. */
async function checkName(svc: Services, db: Tx, realmId: number, name: string): Promise<void> {
  if (name.trim() === '') throw badRequest("Channel folder name can't be empty.");
  let pos = 0;
  for (const ch of name) {
    pos++;
    if (/[\p{Cc}\p{Cs}\p{Cn}]/u.test(ch)) throw badRequest(`Invalid character in channel folder name, at position ${pos}.`);
  }
  await lockNamesOf(svc.store, db, 'channel_folders');
  if (await channelFolderNameTaken(db, realmId, name)) throw badRequest('Channel folder name already in use');
}

async function send(svc: Services, event: Record<string, unknown>): Promise<void> {
  svc.bus.send({ type: 'channel_folder', ...event }, await cachedActiveUserIds(svc));
}

export async function createChannelFolder(svc: Services, user: UserRow, name: string, description: string): Promise<{ channel_folder_id: number }> {
  checkAdmin(user);
  const folder = await transaction(svc.store, async (tx) => {
    await checkName(svc, tx, svc.realmId, name);
    const id = await insertChannelFolder(tx, {
      realm_id: svc.realmId,
      name,
      description,
      rendered_description: await renderDescription(svc, tx, description),
      date_created: nowSeconds(),
      creator_id: user.id,
    });
    return (await channelFolderById(tx, svc.realmId, id))!;
  });
  await send(svc, { op: 'add', channel_folder: channelFolderDict(folder) });
  return { channel_folder_id: folder.id };
}

export async function listChannelFolders(svc: Services, includeArchived: boolean): Promise<{ channel_folders: Array<Record<string, unknown>> }> {
  return { channel_folders: (await channelFoldersOf(svc.store.db, svc.realmId, includeArchived)).map(channelFolderDict) };
}

export async function reorderChannelFolders(svc: Services, user: UserRow, order: number[]): Promise<void> {
  checkAdmin(user);
  await transaction(svc.store, async (tx) => {
    const position = new Map(order.map((id, i) => [id, i]));
    const folders = await channelFoldersOf(tx, svc.realmId, true);
    if (folders.some((f) => !position.has(f.id))) throw badRequest('Invalid order mapping.');
    for (const f of folders) await updateChannelFolder(tx, f.id, { order: position.get(f.id)! });
  });
  await send(svc, { op: 'reorder', order });
}

export interface FolderUpdate {
  name?: string;
  description?: string;
  isArchived?: boolean;
}

export async function editChannelFolder(svc: Services, user: UserRow, id: number, input: FolderUpdate): Promise<void> {
  checkAdmin(user);
  const updates = await transaction(svc.store, async (tx) => {
    const folder = await checkChannelFolderId(tx, svc.realmId, id);
    const out: Array<Record<string, unknown>> = [];
    if (input.name !== undefined && input.name !== folder.name) {
      await checkName(svc, tx, svc.realmId, input.name);
      await updateChannelFolder(tx, id, { name: input.name });
      out.push({ name: input.name });
    }
    if (input.description !== undefined && input.description !== folder.description) {
      const rendered = await renderDescription(svc, tx, input.description);
      await updateChannelFolder(tx, id, { description: input.description, rendered_description: rendered });
      out.push({ description: input.description, rendered_description: rendered });
    }
    if (input.isArchived !== undefined && input.isArchived !== !!folder.is_archived) {
      if (input.isArchived && (await channelFolderInUse(tx, id))) throw badRequest('You need to remove all the channels from this folder to archive it.');
      await updateChannelFolder(tx, id, { is_archived: input.isArchived ? 1 : 0 });
      out.push({ is_archived: input.isArchived });
    }
    return out;
  });
  for (const data of updates) await send(svc, { op: 'update', channel_folder_id: id, data });
}
