/**
 * Personal settings (PATCH /settings) and the organization's defaults for
 * new users (PATCH /realm/user_settings_defaults), with Zulip's events.
 */
import { lockSettingsOf } from '../store/locks.ts';
import { announceEmailVisibility, checkEmailChange, emailForVisibility, startEmailChange } from './email-change.ts';
import { endUserSessions } from './sessions.ts';
import { presenceEnabledChanged } from './presence.ts';
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';
import { activeUserIds, allUsers, updateUser, userById } from '../store/users.ts';
import { realmById, updateRealm } from '../store/realm.ts';
import { transaction, type Tx } from '../store/db.ts';
import { badRequest, requireAdmin } from '../lib/errors.ts';
import { notifyExportConsent } from './export-consent.ts';
import { checkPassword, hashPassword, passwordStrongEnough } from '../lib/passwords.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { checkSettingValues, realmUserDefaults, userSettings } from '../lib/user-settings.ts';
import { parseJsonObject } from '../lib/util.ts';
import { isAdminRole } from './users-format.ts';
import { requireHuman } from './profile-fields.ts';
import { dropDraftsOnSyncDisabled } from './drafts.ts';
import type { ZulipEvent } from '../events/types.ts';
import { userIdsWhoCanAccess } from './user-access.ts';

const LANGUAGE_NAMES: Record<string, string> = {
  en: 'English', en_GB: 'British English', de: 'Deutsch', es: 'español', fr: 'français', it: 'italiano', ja: '\u65e5\u672c\u8a9e',
  ko: '\ud55c\uad6d\uc5b4', nl: 'Nederlands', pl: 'polski', pt: 'português', pt_BR: 'Português Brasileiro', ru: '\u0420\u0443\u0441\u0441\u043a\u0438\u0439',
  'zh-hans': '\u7b80\u4f53\u4e2d\u6587', 'zh-hant': '\u7e41\u9ad4\u4e2d\u6587',
};
export const languageName = (code: string): string => LANGUAGE_NAMES[code] ?? code;

const NAME_INVALID_CHARS = ['*', '`', '\\', '>', '"', '@'];

/** Zulip's check_full_name, with its messages. */
export function checkNewFullName(raw: string, opts: { others: string[]; requireUnique: boolean }): string {
  const name = raw.trim();
  const len = [...name].length;
  if (len > 100) throw badRequest('Name too long!');
  if (len < 2) throw badRequest('Name too short!');
  for (const ch of name) {
    if (/\p{C}/u.test(ch) || NAME_INVALID_CHARS.includes(ch)) throw badRequest('Invalid characters in name!');
  }
  if (/\|\d+$/.test(raw)) throw badRequest('Invalid format!');
  if (opts.requireUnique) {
    const norm = (s: string) => s.normalize('NFKC').toLowerCase();
    if (opts.others.some((o) => norm(o) === norm(name))) throw badRequest('Unique names required in this organization.');
  }
  return name;
}

export interface SettingsInput {
  fullName?: string;
  /** A new email address: mailed a confirmation link (the change happens when it is opened). */
  email?: string;
  oldPassword?: string;
  newPassword?: string;
  /** The web session making the change: a password change ends every other session of the user. */
  keepSession?: string;
  /** Setting name -> requested value (only the ones sent). */
  settings: Record<string, unknown>;
}

/**
 * An operator sets a user's password (the admin CLI's set-password): the
 * same strength rule as a user's own change, and, as there, the user's
 * sessions end (all of them). No event: Zulip sends none for a password.
 */
export async function setPasswordAsOperator(svc: Services, user: UserRow, password: string): Promise<void> {
  if (user.is_bot) throw badRequest('Bots have no password.');
  if (!(await passwordStrongEnough(password))) throw badRequest('New password is too weak!');
  const hash = await hashPassword(password);
  await transaction(svc.store, async (tx) => {
    await updateUser(tx, user.id, { password_hash: hash });
    await endUserSessions(tx, user.id);
  });
}

export async function updateOwnSettings(svc: Services, actor: UserRow, input: SettingsInput): Promise<Record<string, unknown>> {
  requireHuman(actor);
  checkSettingValues(input.settings);
  if (input.newPassword !== undefined) {
    if (!(await checkPassword(input.oldPassword ?? '', actor.password_hash))) throw badRequest('Wrong password!');
    if (!(await passwordStrongEnough(input.newPassword))) throw badRequest('New password is too weak!');
  }
  // Every check (in Zulip's order) before an address change is started
  // (its confirmation email sent): a refused request changes nothing.
  const newEmail = input.email === undefined ? null : await checkEmailChange(svc, actor, input.email);
  if (input.fullName !== undefined) await ownNewFullName(svc, svc.store.db, actor, input.fullName);
  if (newEmail !== null) await startEmailChange(svc, actor, newEmail);
  const newHash = input.newPassword !== undefined ? await hashPassword(input.newPassword) : undefined;
  const userEvents: ZulipEvent[] = [];
  const everyoneEvents: ZulipEvent[] = [];
  let visibilityChange: { before: UserRow; after: UserRow } | undefined;
  await transaction(svc.store, async (tx) => {
    await lockSettingsOf(svc.store, tx, 'user', actor.id);
    const me = (await userById(tx, svc.realmId, actor.id))!;
    if (newHash) {
      await updateUser(tx, me.id, { password_hash: newHash });
      await endUserSessions(tx, me.id, input.keepSession);
    }
    const name = input.fullName === undefined ? undefined : await ownNewFullName(svc, tx, me, input.fullName);
    if (name !== undefined) {
      await updateUser(tx, me.id, { full_name: name });
      everyoneEvents.push({ type: 'realm_user', op: 'update', person: { user_id: me.id, full_name: name } });
    }
    const stored = parseJsonObject(me.settings_json);
    const current = userSettings(me.settings_json);
    let changed = false;
    for (const [name, value] of Object.entries(input.settings)) {
      if (name === 'timezone') continue;
      if (current[name] === value) continue;
      stored[name] = value;
      changed = true;
      // Turning draft synchronization off deletes the drafts stored on the server.
      if (name === 'enable_drafts_synchronization' && value === false) await dropDraftsOnSyncDisabled(tx, me.id);
      const ev: ZulipEvent = { type: 'user_settings', op: 'update', property: name, value };
      if (name === 'default_language') ev.language_name = languageName(value as string);
      userEvents.push(ev);
    }
    if (changed) await updateUser(tx, me.id, { settings_json: JSON.stringify(stored) });
    const oldVisibility = Number(current.email_address_visibility);
    const newVisibility = Number(userSettings(JSON.stringify(stored)).email_address_visibility);
    if (newVisibility !== oldVisibility) {
      const after = { ...me, settings_json: JSON.stringify(stored), email: emailForVisibility(svc, me, oldVisibility, newVisibility) };
      if (after.email !== me.email) await updateUser(tx, me.id, { email: after.email });
      visibilityChange = { before: me, after };
    }
    const tz = input.settings.timezone;
    if (typeof tz === 'string' && tz !== me.timezone) {
      await updateUser(tx, me.id, { timezone: tz });
      userEvents.push({ type: 'user_settings', op: 'update', property: 'timezone', value: tz });
      everyoneEvents.push({ type: 'realm_user', op: 'update', person: { email: me.email, user_id: me.id, timezone: tz } });
    }
  });
  for (const ev of userEvents) svc.bus.send(ev, [actor.id]);
  if (visibilityChange) await announceEmailVisibility(svc, visibilityChange.before, visibilityChange.after);
  const presenceChange = userEvents.find((ev) => ev.type === 'user_settings' && ev.property === 'presence_enabled');
  if (presenceChange) await presenceEnabledChanged(svc, actor, presenceChange.value as boolean);
  const consentChange = userEvents.find((ev) => ev.type === 'user_settings' && ev.property === 'allow_private_data_export');
  if (consentChange) await notifyExportConsent(svc, actor.id, consentChange.value as boolean);
  if (everyoneEvents.length) {
    const recipients = await userIdsWhoCanAccess(svc, actor);
    for (const ev of everyoneEvents) svc.bus.send(ev, recipients);
  }
  return {};
}

/**
 * The name a user's own settings change sets: undefined when it is the
 * current one, or when name changes are disabled for the user (Zulip ignores
 * the change silently then). Throws Zulip's errors for a name not allowed.
 */
async function ownNewFullName(svc: Services, db: Tx, me: UserRow, fullName: string): Promise<string | undefined> {
  if (fullName === me.full_name) return undefined;
  const rs = realmSettings((await realmById(db, svc.realmId)).settings_json);
  if (rs.name_changes_disabled && !isAdminRole(me.role)) return undefined;
  const others = rs.require_unique_names ? (await allUsers(db, svc.realmId)).filter((u) => u.id !== me.id).map((u) => u.full_name) : [];
  const name = checkNewFullName(fullName, { others, requireUnique: !!rs.require_unique_names });
  return name === me.full_name ? undefined : name;
}

/** Changes the organization's defaults for new users; existing users keep their settings. */
export async function updateRealmUserDefaults(svc: Services, actor: UserRow, values: Record<string, unknown>): Promise<void> {
  if (!isAdminRole(actor.role)) throw requireAdmin();
  checkSettingValues({ notification_sound: values.notification_sound, email_notifications_batching_period_seconds: values.email_notifications_batching_period_seconds });
  if (values.default_language !== undefined) checkSettingValues({ default_language: values.default_language });
  const events: Array<Record<string, unknown>> = [];
  await transaction(svc.store, async (tx) => {
    await lockSettingsOf(svc.store, tx, 'realm', svc.realmId);
    const realm = await realmById(tx, svc.realmId);
    const stored = parseJsonObject(realm.user_defaults_json);
    const current = realmUserDefaults(realm.user_defaults_json);
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined || current[name] === value) continue;
      stored[name] = value;
      events.push({ type: 'realm_user_settings_defaults', op: 'update', property: name, value });
    }
    if (events.length) await updateRealm(tx, svc.realmId, { user_defaults_json: JSON.stringify(stored) });
  });
  if (!events.length) return;
  const recipients = await activeUserIds(svc.store.db, svc.realmId);
  for (const ev of events) svc.bus.send({ type: 'realm_user_settings_defaults', ...ev }, recipients);
}
