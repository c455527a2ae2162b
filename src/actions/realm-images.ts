/**
 * The organization's icon and logos: POST/DELETE /realm/icon and
 * POST/DELETE /realm/logo (night or day), administrators only, images
 * through sharp (icon: 100×100 centred square; logo: fitted inside 800×100)
 * stored with the original under <realm>/realm/ and served at
 * /user_avatars/. Changes send Zulip's `realm` update_dict events
 * (property icon, logo or night_logo) to all active users.
 */
import { lockSettingsOf } from '../store/locks.ts';
import { LOGO_PATH } from '../lib/static-paths.ts';
import type { Config } from '../config.ts';
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';
import type { UploadedFile } from '../lib/uploaded-file.ts';
import type { RealmRow } from '../store/realm.ts';
import { realmById, updateRealm } from '../store/realm.ts';
import { transaction } from '../store/db.ts';
import { requireAdmin } from '../lib/errors.ts';
import { md5Hex, parseJsonObject } from '../lib/util.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { DEFAULT_AVATAR_SIZE, logoPng, squarePng } from '../lib/images.ts';
import { AVATARS_URL_PREFIX, writeAvatarFile } from './avatar-files.ts';
import { checkImageUpload } from './avatars.ts';
import { isAdminRole } from './users-format.ts';
import { cachedActiveUserIds } from './cache.ts';

/** Zulip's MAX_ICON_FILE_SIZE_MIB and MAX_LOGO_FILE_SIZE_MIB. */
export const MAX_ICON_FILE_SIZE_MIB = 5;
export const MAX_LOGO_FILE_SIZE_MIB = 5;
/** Parley's default logo (Zulip shows its own when none is uploaded). */
export const DEFAULT_LOGO_PATH = LOGO_PATH;

/** The organization's icon: the uploaded one, or (as Zulip without one) a Gravatar identicon of the organization. */
export function realmIconUrl(config: Config, realm: RealmRow): string {
  if (realmSettings(realm.settings_json).icon_source === 'U') {
    return `${config.externalUrl}${AVATARS_URL_PREFIX}${realm.id}/realm/icon.png?version=${realm.icon_version}`;
  }
  return `https://secure.gravatar.com/avatar/${md5Hex(realm.string_id || realm.name)}?d=identicon`;
}

/** The day or night logo: the uploaded one, or the default. */
export function realmLogoUrl(config: Config, realm: RealmRow, night: boolean): string {
  const s = realmSettings(realm.settings_json);
  if ((night ? s.night_logo_source : s.logo_source) === 'U') {
    const name = night ? 'night_logo' : 'logo';
    return `${config.externalUrl}${AVATARS_URL_PREFIX}${realm.id}/realm/${name}.png?version=${night ? realm.night_logo_version : realm.logo_version}`;
  }
  return `${config.externalUrl}${DEFAULT_LOGO_PATH}`;
}

function checkAdmin(user: UserRow): void {
  if (!isAdminRole(user.role)) throw requireAdmin();
}

type Kind = 'icon' | 'logo' | 'night_logo';

/** Sets the image's source ('U' uploaded, or the default) and bumps its version; then the realm event. */
async function setSource(svc: Services, kind: Kind, source: string): Promise<RealmRow> {
  const realm = await transaction(svc.store, async (tx) => {
    await lockSettingsOf(svc.store, tx, 'realm', svc.realmId);
    const r = await realmById(tx, svc.realmId);
    const settings = parseJsonObject(r.settings_json);
    settings[`${kind}_source`] = source;
    const versionCol = `${kind}_version` as const;
    await updateRealm(tx, svc.realmId, { settings_json: JSON.stringify(settings), [versionCol]: r[versionCol] + 1 });
    return realmById(tx, svc.realmId);
  });
  const data: Record<string, unknown> =
    kind === 'icon'
      ? { icon_url: realmIconUrl(svc.config, realm), icon_source: source }
      : { [`${kind}_url`]: realmLogoUrl(svc.config, realm, kind === 'night_logo'), [`${kind}_source`]: source };
  svc.bus.send({ type: 'realm', op: 'update_dict', property: kind, data }, await cachedActiveUserIds(svc));
  return realm;
}

export async function uploadRealmIcon(svc: Services, user: UserRow, files: UploadedFile[]): Promise<{ icon_url: string }> {
  checkAdmin(user);
  const file = checkImageUpload(files, 'You must upload exactly one icon.', MAX_ICON_FILE_SIZE_MIB);
  const png = await squarePng(file.data, DEFAULT_AVATAR_SIZE);
  await writeAvatarFile(svc, `${svc.realmId}/realm/icon.original`, file.data);
  await writeAvatarFile(svc, `${svc.realmId}/realm/icon.png`, png);
  const realm = await setSource(svc, 'icon', 'U');
  return { icon_url: realmIconUrl(svc.config, realm) };
}

export async function deleteRealmIcon(svc: Services, user: UserRow): Promise<{ icon_url: string }> {
  checkAdmin(user);
  const realm = await setSource(svc, 'icon', 'G');
  return { icon_url: realmIconUrl(svc.config, realm) };
}

export async function uploadRealmLogo(svc: Services, user: UserRow, night: boolean, files: UploadedFile[]): Promise<void> {
  checkAdmin(user);
  const file = checkImageUpload(files, 'You must upload exactly one logo.', MAX_LOGO_FILE_SIZE_MIB);
  const png = await logoPng(file.data);
  const name = night ? 'night_logo' : 'logo';
  await writeAvatarFile(svc, `${svc.realmId}/realm/${name}.original`, file.data);
  await writeAvatarFile(svc, `${svc.realmId}/realm/${name}.png`, png);
  await setSource(svc, name, 'U');
}

/** The files are kept (a cached URL may still point at them), as Zulip does. */
export async function deleteRealmLogo(svc: Services, user: UserRow, night: boolean): Promise<void> {
  checkAdmin(user);
  await setSource(svc, night ? 'night_logo' : 'logo', 'D');
}
