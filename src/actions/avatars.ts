/**
 * User avatars: POST/DELETE /users/me/avatar (and bots' avatars, uploaded
 * with POST and PATCH /bots). An upload is cropped to a
 * centred square (100×100, and 500×500 for avatar_url_medium) through
 * sharp and stored with the original; deleting returns to Gravatar. The
 * organization's avatar_changes_disabled applies to everyone but
 * administrators. Changes send Zulip's realm_user update (avatar fields)
 * to all active users.
 */
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';
import type { UploadedFile } from '../lib/uploaded-file.ts';
import { updateUser, userById } from '../store/users.ts';
import { realmById } from '../store/realm.ts';
import { transaction } from '../store/db.ts';
import { badRequest } from '../lib/errors.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { badImage, DEFAULT_AVATAR_SIZE, MEDIUM_AVATAR_SIZE, squarePng, THUMBNAIL_ACCEPT_IMAGE_TYPES } from '../lib/images.ts';
import { removeAvatarFiles, writeAvatarFile } from './avatar-files.ts';
import { avatarUrl, isAdminRole } from './users-format.ts';
import { userIdsWhoCanAccess } from './user-access.ts';

/** Zulip's MAX_AVATAR_FILE_SIZE_MIB. */
export const MAX_AVATAR_FILE_SIZE_MIB = 5;

/** The one uploaded image of a request, with Zulip's count, size and type checks. */
export function checkImageUpload(files: UploadedFile[], countMsg: string, maxMib: number): UploadedFile {
  const real = files.filter((f) => f.filename !== '');
  if (real.length !== 1) throw badRequest(countMsg);
  const file = real[0]!;
  if (file.data.length > maxMib * 1024 * 1024) throw badRequest(`Uploaded file is larger than the allowed limit of ${maxMib} MiB`);
  const type = file.mimetype.split(';')[0]!.trim().toLowerCase();
  if (!THUMBNAIL_ACCEPT_IMAGE_TYPES.has(type)) throw badImage('Invalid image format');
  return file;
}

const avatarPaths = (u: UserRow) => ({
  small: `${u.realm_id}/${u.id}.png`,
  medium: `${u.realm_id}/${u.id}-medium.png`,
  original: `${u.realm_id}/${u.id}.original`,
});

/** avatar_url_medium: the 500px image, or the Gravatar at that size. */
export function avatarUrlMedium(svc: Services, u: UserRow): string | null {
  const url = avatarUrl(svc.config, u, false);
  if (url === null) return null;
  return u.avatar_source === 'U' ? url.replace(/\.png\?/, '-medium.png?') : `${url}&s=500`;
}

async function checkAllowed(svc: Services, user: UserRow): Promise<void> {
  const realm = await realmById(svc.store.db, svc.realmId);
  if (realmSettings(realm.settings_json).avatar_changes_disabled === true && !isAdminRole(user.role)) {
    throw badRequest('Avatar changes are disabled in this organization.');
  }
}

async function setAvatarSource(svc: Services, user: UserRow, source: 'U' | 'G'): Promise<UserRow> {
  const updated = await transaction(svc.store, async (tx) => {
    const cur = (await userById(tx, svc.realmId, user.id))!;
    await updateUser(tx, user.id, { avatar_source: source, avatar_version: cur.avatar_version + 1 });
    return (await userById(tx, svc.realmId, user.id))!;
  });
  const person = {
    avatar_source: updated.avatar_source,
    avatar_url: avatarUrl(svc.config, updated, false),
    avatar_url_medium: avatarUrlMedium(svc, updated),
    avatar_version: updated.avatar_version,
    user_id: updated.id,
  };
  svc.bus.send({ type: 'realm_user', op: 'update', person }, await userIdsWhoCanAccess(svc, updated));
  return updated;
}

/** An avatar made ready from an uploaded image (checked and cropped), nothing stored yet. */
export interface AvatarImages {
  original: Buffer;
  small: Buffer;
  medium: Buffer;
}

/** Checks one uploaded image (Zulip's count, size and type checks, with `countMsg` for a wrong count) and crops it to the avatar sizes. */
export async function avatarImages(files: UploadedFile[], countMsg: string): Promise<AvatarImages> {
  const file = checkImageUpload(files, countMsg, MAX_AVATAR_FILE_SIZE_MIB);
  return { original: file.data, small: await squarePng(file.data, DEFAULT_AVATAR_SIZE), medium: await squarePng(file.data, MEDIUM_AVATAR_SIZE) };
}

/** Stores a user's (or bot's) avatar images under its avatar paths. */
export async function writeAvatarImages(svc: Services, user: UserRow, images: AvatarImages): Promise<void> {
  const paths = avatarPaths(user);
  await writeAvatarFile(svc, paths.original, images.original);
  await writeAvatarFile(svc, paths.small, images.small);
  await writeAvatarFile(svc, paths.medium, images.medium);
}

/** Gives a user (or a bot) the uploaded avatar: its images stored, then its avatar source and version changed, with the realm_user update. */
export async function setUploadedAvatar(svc: Services, user: UserRow, images: AvatarImages): Promise<UserRow> {
  await writeAvatarImages(svc, user, images);
  return setAvatarSource(svc, user, 'U');
}

export async function uploadAvatar(svc: Services, user: UserRow, files: UploadedFile[]): Promise<{ avatar_url: string | null }> {
  const real = files.filter((f) => f.filename !== '');
  if (real.length !== 1) throw badRequest('You must upload exactly one avatar.');
  await checkAllowed(svc, user);
  const updated = await setUploadedAvatar(svc, user, await avatarImages(real, 'You must upload exactly one avatar.'));
  return { avatar_url: avatarUrl(svc.config, updated, false) };
}

export async function deleteAvatar(svc: Services, user: UserRow): Promise<{ avatar_url: string | null }> {
  await checkAllowed(svc, user);
  const updated = await setAvatarSource(svc, user, 'G');
  const p = avatarPaths(user);
  await removeAvatarFiles(svc, [p.small, p.medium, p.original]);
  return { avatar_url: avatarUrl(svc.config, updated, false) };
}
