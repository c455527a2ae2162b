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
import { updateUser, userById, usersByIds } from '../store/users.ts';
import { cachedActiveUserIds, cachedUsers } from './cache.ts';
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
import { recordOwnSettingEdits, usersWhoEditedSetting } from '../store/setting-edits.ts';
import { Groups } from './group-settings.ts';

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
    const { settingsJson, events } = await writeSettings(tx, me, Object.entries(input.settings));
    userEvents.push(...events);
    const oldVisibility = Number(userSettings(me.settings_json).email_address_visibility);
    const newVisibility = Number(userSettings(settingsJson).email_address_visibility);
    if (newVisibility !== oldVisibility) {
      const after = { ...me, settings_json: settingsJson, email: emailForVisibility(svc, me, oldVisibility, newVisibility) };
      if (after.email !== me.email) await updateUser(tx, me.id, { email: after.email });
      visibilityChange = { before: me, after };
    }
    const tz = input.settings.timezone;
    if (typeof tz === 'string' && tz !== me.timezone) {
      await updateUser(tx, me.id, { timezone: tz });
      userEvents.push({ type: 'user_settings', op: 'update', property: 'timezone', value: tz });
      everyoneEvents.push({ type: 'realm_user', op: 'update', person: { email: me.email, user_id: me.id, timezone: tz } });
    }
    // What the user chose, an administrator's change for many users may leave alone.
    await recordOwnSettingEdits(tx, me.id, userEvents.map((ev) => ev.property as string));
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
 * Writes into a user's settings document the values that differ from theirs
 * (timezone, a column of its own, aside), with their side effects: turning
 * draft synchronization off deletes the drafts stored on the server. Answers
 * the document as it now is and a `user_settings` update per change.
 */
async function writeSettings(tx: Tx, user: UserRow, values: Array<[string, unknown]>): Promise<{ settingsJson: string; events: ZulipEvent[] }> {
  const stored = parseJsonObject(user.settings_json);
  const current = userSettings(user.settings_json);
  const events: ZulipEvent[] = [];
  for (const [name, value] of values) {
    if (name === 'timezone' || current[name] === value) continue;
    stored[name] = value;
    if (name === 'enable_drafts_synchronization' && value === false) await dropDraftsOnSyncDisabled(tx, user.id);
    const event: ZulipEvent = { type: 'user_settings', op: 'update', property: name, value };
    if (name === 'default_language') event.language_name = languageName(value as string);
    events.push(event);
  }
  const settingsJson = JSON.stringify(stored);
  if (events.length) await updateUser(tx, user.id, { settings_json: settingsJson });
  return { settingsJson, events };
}

/** Settings an administrator may not change for other users (Zulip's SECURITY_SENSITIVE_USER_SETTINGS). */
const SECURITY_SENSITIVE_SETTINGS = new Set([
  'allow_private_data_export',
  'email_address_visibility',
  'enable_digest_emails',
  'enable_login_emails',
  'enable_marketing_emails',
  'presence_enabled',
  'send_private_typing_notifications',
  'send_read_receipts',
  'send_stream_typing_notifications',
]);

/** Who an administrator's settings change is for (PATCH /settings target_users). */
export interface TargetUsers {
  user_ids?: number[];
  group_ids?: number[];
  /** Leave out, setting by setting, the users who changed it themselves. */
  skip_if_already_edited: boolean;
}

/**
 * An administrator changes settings for users named by ID or by group
 * (bots left out; deactivated users named by ID included, so the change
 * holds when they come back): each user whose value differs gets it, and a
 * `user_settings` update, as if they had changed it themselves.
 */
export async function updateSettingsForUsers(svc: Services, actor: UserRow, target: TargetUsers, input: SettingsInput): Promise<Record<string, unknown>> {
  if (!target.user_ids?.length && !target.group_ids?.length) throw badRequest('Either user_ids or group_ids must be provided.');
  requireHuman(actor);
  if (!isAdminRole(actor.role)) throw requireAdmin();
  const names = Object.keys(input.settings);
  if (input.email !== undefined || input.newPassword !== undefined || names.includes('timezone') || names.some((n) => SECURITY_SENSITIVE_SETTINGS.has(n))) {
    throw badRequest('Cannot change this setting for other users.');
  }
  checkSettingValues(input.settings);
  const events: Array<{ userId: number; event: ZulipEvent }> = [];
  await transaction(svc.store, async (tx) => {
    const users = (await cachedUsers(svc, tx)).list;
    const byId = new Map(users.map((u) => [u.id, u]));
    const targets = new Set<number>();
    for (const id of target.user_ids ?? []) {
      const u = byId.get(id);
      if (!u || u.is_bot) throw badRequest(`Invalid user ID: ${id}`);
      targets.add(id);
    }
    if (target.group_ids?.length) {
      const groups = await Groups.load(tx, svc.realmId);
      for (const id of target.group_ids) {
        const g = groups.byId.get(id);
        if (!g || g.deactivated) throw badRequest(`Invalid user group ID: ${id}`);
      }
      for (const u of users) if (!u.is_bot && target.group_ids.some((id) => groups.isMember(u, id))) targets.add(u.id);
    }
    const ids = [...targets].sort((a, b) => a - b);
    for (const id of ids) await lockSettingsOf(svc.store, tx, 'user', id);
    const skipped = new Map<string, Set<number>>();
    for (const name of names) skipped.set(name, target.skip_if_already_edited ? await usersWhoEditedSetting(tx, ids, name) : new Set());
    for (const u of await usersByIds(tx, svc.realmId, ids)) {
      const written = await writeSettings(tx, u, Object.entries(input.settings).filter(([name]) => !skipped.get(name)!.has(u.id)));
      for (const event of written.events) events.push({ userId: u.id, event });
    }
    // An administrator who is among the users chose the value themselves.
    if (targets.has(actor.id)) await recordOwnSettingEdits(tx, actor.id, events.filter((e) => e.userId === actor.id).map((e) => e.event.property as string));
  });
  for (const { userId, event } of events) svc.bus.send(event, [userId]);
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
  const others = rs.require_unique_names ? (await cachedUsers(svc, db)).list.filter((u) => u.id !== me.id).map((u) => u.full_name) : [];
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
  const recipients = await cachedActiveUserIds(svc);
  for (const ev of events) svc.bus.send({ type: 'realm_user_settings_defaults', ...ev }, recipients);
}
