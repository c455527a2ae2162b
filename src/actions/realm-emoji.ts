/**
 * Custom emoji: GET /realm/emoji, POST/DELETE /realm/emoji/{emoji_name},
 * with Zulip's name rules, permissions (can_add_custom_emoji_group to add;
 * administrators or the author to deactivate) and errors. Images go through
 * resizeEmoji and are stored as Zulip stores them:
 * <realm>/emoji/images/<file> (+ .original, + still/<stem>.png when
 * animated). Every change sends `realm_emoji` op update (the whole
 * dictionary, deactivated emoji included) to all active users.
 */
import { lockNamesOf } from '../store/locks.ts';
import { randomBytes } from 'node:crypto';
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';
import type { UploadedFile } from '../lib/uploaded-file.ts';
import { transaction, type Tx } from '../store/db.ts';
import { activeRealmEmojiByName, allRealmEmoji, type RealmEmojiRow } from '../store/user-status.ts';
import { deactivateRealmEmoji, insertRealmEmoji, setRealmEmojiFile } from '../store/realm-emoji.ts';
import { realmById } from '../store/realm.ts';
import { ApiError, badRequest } from '../lib/errors.ts';
import { parseJsonObject } from '../lib/util.ts';
import { badImage, EMOJI_IMAGE_TYPES, MAX_EMOJI_IMAGE_BYTES, resizeEmoji } from '../lib/images.ts';
import { emojiByName } from '../emoji/index.ts';
import { AVATARS_URL_PREFIX, removeAvatarFiles, writeAvatarFile } from './avatar-files.ts';
import { Groups, parseStoredSetting } from './group-settings.ts';
import { isAdminRole } from './users-format.ts';
import { cachedActiveUserIds } from './cache.ts';
import { emojiPath } from './rendering-data.ts';

/** Zulip's MAX_EMOJI_FILE_SIZE_MIB. */
export const MAX_EMOJI_FILE_SIZE_MIB = 5;

const stillPath = (realmId: number, fileName: string) => `${realmId}/emoji/images/still/${fileName.replace(/\.[^.]*$/, '')}.png`;

/** Zulip's RealmEmoji dict (GET /realm/emoji, /register, events); URLs relative, as Zulip's local storage gives them. */
export function realmEmojiDict(e: RealmEmojiRow): Record<string, unknown> {
  return {
    id: String(e.id),
    name: e.name,
    source_url: AVATARS_URL_PREFIX + emojiPath(e.realm_id, e.file_name),
    still_url: e.is_animated ? AVATARS_URL_PREFIX + stillPath(e.realm_id, e.file_name) : null,
    deactivated: !!e.deactivated,
    author_id: e.author_id,
  };
}

/** The organization's custom emoji by ID (deactivated ones included, as Zulip). */
export async function realmEmojiState(db: Tx, realmId: number): Promise<Record<string, Record<string, unknown>>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const e of await allRealmEmoji(db, realmId)) if (e.file_name) out[String(e.id)] = realmEmojiDict(e);
  return out;
}

async function notify(svc: Services): Promise<void> {
  const db = svc.store.db;
  svc.bus.send({ type: 'realm_emoji', op: 'update', realm_emoji: await realmEmojiState(db, svc.realmId) }, await cachedActiveUserIds(svc));
}

export async function listRealmEmoji(svc: Services): Promise<{ emoji: Record<string, Record<string, unknown>> }> {
  return { emoji: await realmEmojiState(svc.store.db, svc.realmId) };
}

/** Zulip's check_valid_emoji_name. */
function checkEmojiName(name: string): void {
  if (!name) throw badRequest('Emoji name is missing');
  if (/^[0-9a-z_-]+$/.test(name)) {
    if (/[-_]$/.test(name)) throw badRequest('Emoji names must end with either a letter or digit.');
    return;
  }
  throw badRequest('Emoji names must contain only lowercase alphanumeric characters, underscores, and hyphens.');
}

/** can_add_custom_emoji_group (Zulip's default: members). */
async function canAddEmoji(svc: Services, user: UserRow): Promise<boolean> {
  const db = svc.store.db;
  const [realm, groups] = await Promise.all([realmById(db, svc.realmId), Groups.load(db, svc.realmId)]);
  const value = parseStoredSetting(parseJsonObject(realm.settings_json).can_add_custom_emoji_group) ?? groups.systemGroupId('role:members');
  return groups.allows(user, value);
}

export async function uploadRealmEmoji(svc: Services, user: UserRow, rawName: string, files: UploadedFile[]): Promise<void> {
  const name = rawName.trim().replaceAll(' ', '_');
  checkEmojiName(name);
  if (!(await canAddEmoji(svc, user))) throw badRequest('Insufficient permission');
  if (await activeRealmEmojiByName(svc.store.db, svc.realmId, name)) throw badRequest('A custom emoji with this name already exists.');
  const real = files.filter((f) => f.filename !== '');
  if (real.length !== 1) throw badRequest('You must upload exactly one file.');
  if (emojiByName(name) && !isAdminRole(user.role)) throw badRequest('Only administrators can override default emoji.');
  const file = real[0]!;
  if (file.data.length > MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024) {
    throw badRequest(`Uploaded file is larger than the allowed limit of ${MAX_EMOJI_FILE_SIZE_MIB} MiB`);
  }
  const contentType = file.mimetype.split(';')[0]!.trim().toLowerCase();
  const ext = EMOJI_IMAGE_TYPES[contentType];
  if (!ext) throw badImage('Invalid image format');
  const { image, still } = await resizeEmoji(file.data, ext);
  if ((still ?? image).length > MAX_EMOJI_IMAGE_BYTES) throw badImage('Image size exceeds limit');

  // A salted name per upload: emoji files are public but not enumerable.
  const fileName = randomBytes(4).toString('hex') + ext;
  const paths = [emojiPath(svc.realmId, fileName), `${emojiPath(svc.realmId, fileName)}.original`];
  await writeAvatarFile(svc, paths[1]!, file.data);
  await writeAvatarFile(svc, paths[0]!, image);
  if (still) {
    paths.push(stillPath(svc.realmId, fileName));
    await writeAvatarFile(svc, paths[2]!, still);
  }
  try {
    await transaction(svc.store, async (tx) => {
      await lockNamesOf(svc.store, tx, 'realm_emoji');
      if (await activeRealmEmojiByName(tx, svc.realmId, name)) throw badRequest('A custom emoji with this name already exists.');
      const id = await insertRealmEmoji(tx, svc.realmId, name, user.id);
      await setRealmEmojiFile(tx, id, fileName, still !== null);
    });
  } catch (e) {
    await removeAvatarFiles(svc, paths);
    throw e;
  }
  await notify(svc);
}

export async function deleteRealmEmoji(svc: Services, user: UserRow, name: string): Promise<void> {
  await transaction(svc.store, async (tx) => {
    const emoji = await activeRealmEmojiByName(tx, svc.realmId, name);
    if (!emoji) throw new ApiError(`Emoji '${name}' does not exist`, { status: 404 });
    if (!isAdminRole(user.role) && emoji.author_id !== user.id) throw badRequest('Must be an organization administrator or emoji author');
    await deactivateRealmEmoji(tx, emoji.id);
  });
  await notify(svc);
}
