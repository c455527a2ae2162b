/**
 * PATCH /realm: the organization settings Parley implements, with Zulip's
 * permission rules (administrators; owners for the owner-only settings),
 * validation messages and `realm` events (FL 483 shapes):
 *
 * - simple properties: `realm` op `update` {property, value};
 * - allow_message_editing and message_content_edit_limit_seconds (for
 *   historical reasons): op `update_dict`, property 'default', data {name: value};
 * - group settings ({new, old?} update objects): op `update_dict`, property
 *   'default', data {name: new value}.
 *
 * Settings Parley does not implement are not accepted (the route does not
 * declare them, so they come back in ignored_parameters_unsupported).
 */
import { lockSettingsOf } from '../store/locks.ts';
import { cachedActiveUserIdSet, cachedActiveUserIds, cachedGroups } from './cache.ts';
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';
import { ROLE } from '../store/users.ts';
import { realmById, updateRealm } from '../store/realm.ts';
import { streamById } from '../store/streams.ts';
import { transaction } from '../store/db.ts';
import { ApiError, badRequest, requireAdmin, requireOwner } from '../lib/errors.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { LANGUAGE_CODES } from '../lib/user-settings.ts';
import { parseJsonObject } from '../lib/util.ts';
import { isAdminRole } from './users-format.ts';
import { renderDescription } from './streams-format.ts';
import { checkPermissionValue, Groups, membershipManagedByAdminsOnly, realmGroupSetting, type GroupSettingValue } from './group-settings.ts';
import { REALM_PERMISSION_SETTINGS } from '../lib/permission-settings.ts';
import { waitingPeriodChanges } from './full-members.ts';
import type { ZulipEvent } from '../events/types.ts';

export const MAX_REALM_NAME_LENGTH = 40;
export const MAX_REALM_DESCRIPTION_LENGTH = 1000;

/** The organization's topics_policy values (channels also have 'inherit' and 'empty_topic_only'). */
export const REALM_TOPICS_POLICIES = ['allow_empty_topic', 'disable_empty_topic'] as const;

/**
 * Every simple (non-group) organization setting of Zulip's PATCH /realm, with
 * who may change it and how it is announced. Types are checked by the route's
 * parameter declarations; `check` adds Zulip's value checks and errors.
 */
export interface RealmSettingSpec {
  /** Only organization owners may change it. */
  owner?: boolean;
  /** Announced as `update_dict` (property 'default') rather than `update`. */
  dict?: boolean;
  /** A channel ID, or any negative value for none (stored as -1). */
  channel?: 'any' | 'private';
  check?: (value: unknown) => unknown;
}

/** Zulip's video call providers that need no server configuration. */
export const VIDEO_CHAT_PROVIDERS = { disabled: { name: 'None', id: 0 }, jitsi_meet: { name: 'Jitsi Meet', id: 1 } } as const;
/** Zulip's GIF ratings (the IDs of gif_rating_policy, called giphy_rating before feature level 453). */
export const GIPHY_RATING_OPTIONS = {
  disabled: { name: 'GIPHY integration disabled', id: 0 },
  y: { name: 'Allow GIFs rated Y (Very young audience)', id: 1 },
  g: { name: 'Allow GIFs rated G (General audience)', id: 2 },
  pg: { name: 'Allow GIFs rated PG (Parental guidance)', id: 3 },
  pg13: { name: 'Allow GIFs rated PG-13 (Parental guidance - under 13)', id: 4 },
  r: { name: 'Allow GIFs rated R (Restricted)', id: 5 },
} as const;
/** Zulip's organization types (org_type). */
export const ORG_TYPE_IDS = [0, 10, 20, 30, 35, 40, 50, 60, 70, 80, 90, 100, 1000] as const;
export const EDIT_HISTORY_POLICIES = ['all', 'moves', 'none'] as const;
/** Zulip's media_preview_size values: thumbnail height in percent of the default. */
export const MEDIA_PREVIEW_SIZES = [100, 150, 200] as const;
/** Zulip's default_avatar_source values: Gravatar, or Jdenticon. */
export const DEFAULT_AVATAR_SOURCES = ['G', 'J'] as const;
export const MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH = 8000;
export const JITSI_SERVER_URL_MAX_LENGTH = 200;

const oneOf = (allowed: readonly unknown[], msg: (v: unknown) => string) => (value: unknown) => {
  if (!allowed.includes(value)) throw badRequest(msg(value));
  return value;
};

export const REALM_SETTING_SPECS: Record<string, RealmSettingSpec> = {
  // Joining the organization (owners only, as in Zulip).
  invite_required: { owner: true },
  emails_restricted_to_domains: { owner: true },
  disallow_disposable_email_addresses: { owner: true },
  waiting_period_threshold: { owner: true },
  // Message editing and history.
  allow_message_editing: { dict: true },
  message_content_edit_limit_seconds: { dict: true },
  message_content_delete_limit_seconds: {},
  move_messages_within_stream_limit_seconds: {},
  move_messages_between_streams_limit_seconds: {},
  message_edit_history_visibility_policy: {},
  topics_policy: { check: oneOf(REALM_TOPICS_POLICIES, () => 'Invalid topics_policy') },
  message_retention_days: { owner: true },
  // Rendering.
  inline_image_preview: {},
  inline_url_embed_preview: {},
  default_code_block_language: {},
  media_preview_size: {},
  // Notifications and email.
  digest_emails_enabled: {},
  digest_weekday: {},
  send_welcome_emails: {},
  message_content_allowed_in_email_notifications: {},
  welcome_message_custom_text: {},
  require_e2ee_push_notifications: {},
  send_channel_events_messages: {},
  // Users.
  enable_read_receipts: {},
  enable_guest_user_indicator: {},
  enable_guest_user_dm_warning: {},
  enable_spectator_access: {},
  name_changes_disabled: {},
  email_changes_disabled: {},
  avatar_changes_disabled: {},
  require_unique_names: {},
  default_avatar_source: {},
  // Organization profile and integrations.
  default_language: { check: oneOf(LANGUAGE_CODES, (v) => `Invalid language '${String(v)}'`) },
  org_type: {},
  want_advertise_in_communities_directory: {},
  video_chat_provider: {
    check: oneOf(
      Object.values(VIDEO_CHAT_PROVIDERS).map((p) => p.id),
      (v) => `Invalid video_chat_provider ${String(v)}`,
    ),
  },
  jitsi_server_url: {},
  gif_rating_policy: {
    check: oneOf(
      Object.values(GIPHY_RATING_OPTIONS).map((p) => p.id),
      (v) => `Invalid gif_rating_policy ${String(v)}`,
    ),
  },
  // Channels the server posts to.
  new_stream_announcements_stream_id: { channel: 'any' },
  signup_announcements_stream_id: { channel: 'any' },
  zulip_update_announcements_stream_id: { channel: 'any' },
  moderation_request_channel_id: { channel: 'private' },
};

/** Every simple setting the route accepts. */
export const EDITABLE_REALM_SETTINGS = Object.keys(REALM_SETTING_SPECS);

/**
 * Settings announced together with a deprecated name for the same value, for
 * older clients: a change of topics_policy also announces mandatory_topics
 * (deprecated at feature level 392, still in events). Since feature level
 * 358 a change of message_edit_history_visibility_policy is announced alone
 * (no allow_edit_history). Neither legacy name is a PATCH /realm parameter.
 */
const LEGACY_ANNOUNCED: Record<string, { legacy: string; toLegacy: (v: unknown) => unknown }> = {
  topics_policy: { legacy: 'mandatory_topics', toLegacy: (v) => v === 'disable_empty_topic' },
};

/**
 * The organization group settings, with who may change them: owners only for
 * these (as Zulip's update_realm), administrators for the rest. What values
 * each accepts is in src/lib/permission-settings.ts.
 */
const OWNER_ONLY_GROUP_SETTINGS = new Set([
  'can_create_groups',
  'can_invite_users_group',
  'can_manage_all_groups',
  'can_manage_billing_group',
  'create_multiuse_invite_group',
  'workplace_users_group',
]);
export const REALM_GROUP_SETTINGS = Object.keys(REALM_PERMISSION_SETTINGS);

export interface RealmUpdateInput {
  name?: string;
  description?: string;
  /** Simple settings (already decoded: time limits are a number or null). */
  settings: Record<string, unknown>;
  groupSettings: Record<string, { new: GroupSettingValue; old?: GroupSettingValue }>;
  authenticationMethods?: Record<string, unknown>;
  stringId?: string;
}

/** A time limit: a positive number of seconds, or 'unlimited' (null). */
export function parseTimeLimit(value: unknown, name: string): number | null {
  if (value === 'unlimited') return null;
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  throw new ApiError(`Bad value for '${name}': ${typeof value === 'string' ? value : JSON.stringify(value)}`, {
    code: 'REQUEST_VARIABLE_INVALID',
    extra: { var_name: name, bad_value: value },
  });
}

export async function updateRealmSettings(svc: Services, actor: UserRow, input: RealmUpdateInput): Promise<Record<string, unknown>> {
  if (!isAdminRole(actor.role)) throw requireAdmin();
  const isOwner = actor.role === ROLE.OWNER;
  for (const name of Object.keys(input.groupSettings)) {
    if (OWNER_ONLY_GROUP_SETTINGS.has(name) && !isOwner) throw requireOwner();
  }
  for (const name of Object.keys(input.settings)) {
    if (REALM_SETTING_SPECS[name]?.owner && !isOwner) throw requireOwner();
  }
  if (input.authenticationMethods !== undefined) {
    if (!isOwner) throw requireOwner();
    checkAuthenticationMethods(input.authenticationMethods);
  }
  if (input.stringId !== undefined) {
    if (!isOwner) throw requireOwner();
    // Parley organizations are never demo organizations.
    throw badRequest('Must be a demo organization.');
  }
  for (const [name, value] of Object.entries(input.settings)) {
    const check = REALM_SETTING_SPECS[name]?.check;
    if (check && value !== undefined) check(value);
  }
  const settings = input.settings;
  // Rendered before the transaction, so no connection waits on the renderer.
  const renderedDescription = input.description === undefined ? '' : await renderDescription(svc, svc.store.db, input.description);
  const data: Record<string, unknown> = {};
  const events: ZulipEvent[] = [];
  const groupEvents: ZulipEvent[] = [];
  await transaction(svc.store, async (tx) => {
    await lockSettingsOf(svc.store, tx, 'realm', svc.realmId);
    const realm = await realmById(tx, svc.realmId);
    const patch: Parameters<typeof updateRealm>[2] = {};
    if (input.name !== undefined && input.name !== realm.name) {
      patch.name = input.name;
      data.name = 'updated';
      events.push({ type: 'realm', op: 'update', property: 'name', value: input.name });
    }
    if (input.description !== undefined && input.description !== realm.description) {
      patch.description = input.description;
      data.description = 'updated';
      // Since feature level 464 an update_dict with the rendered HTML too.
      events.push({
        type: 'realm',
        op: 'update_dict',
        property: 'default',
        data: { description: input.description, rendered_description: renderedDescription },
      });
    }
    const stored = parseJsonObject(realm.settings_json);
    const current = realmSettings(realm.settings_json);
    let changed = false;
    const announce = (name: string, value: unknown) =>
      events.push(
        REALM_SETTING_SPECS[name]?.dict
          ? { type: 'realm', op: 'update_dict', property: 'default', data: { [name]: value } }
          : { type: 'realm', op: 'update', property: name, value },
      );
    for (const name of EDITABLE_REALM_SETTINGS) {
      let value = settings[name];
      if (value === undefined) continue;
      const spec = REALM_SETTING_SPECS[name];
      if (spec.channel) {
        const id = value as number;
        if (id >= 0) {
          const stream = await streamById(tx, svc.realmId, id);
          if (!stream) throw badRequest('Invalid channel ID');
          if (spec.channel === 'private' && !stream.invite_only) throw badRequest('Moderation request channel must be private.');
        }
        // As Zulip: any negative value turns the setting off, and is reported as sent.
        if (Number(current[name]) === id || (id < 0 && Number(current[name]) < 0)) continue;
        value = id < 0 ? -1 : id;
        stored[name] = value;
        changed = true;
        data[name] = id;
        announce(name, value);
        continue;
      }
      if (current[name] === value) continue;
      stored[name] = value;
      changed = true;
      data[name] = typeof value === 'string' ? 'updated' : value;
      announce(name, value);
      const legacy = LEGACY_ANNOUNCED[name];
      if (legacy) announce(legacy.legacy, legacy.toLegacy(value));
    }
    const groupEntries = Object.entries(input.groupSettings);
    if (groupEntries.length) {
      const groups = await cachedGroups(svc, tx);
      const valid = await cachedActiveUserIdSet(svc, tx);
      for (const [name, upd] of groupEntries) {
        const now = realmGroupSetting(realm.settings_json, name, groups);
        if (upd.old !== undefined && !Groups.same(groups.validate(upd.old, valid, name), now)) {
          throw badRequest("'old' value does not match the expected value.");
        }
        const next = groups.validate(upd.new, valid, name);
        if (Groups.same(next, now)) continue;
        checkPermissionValue(groups, REALM_PERMISSION_SETTINGS[name], name, next);
        if (name === 'workplace_users_group') {
          const named = typeof next === 'number' ? [next] : next.direct_subgroups;
          if (!membershipManagedByAdminsOnly(groups, named, realm.settings_json)) {
            throw badRequest("'workplace_users_group' must be a group whose membership can only be managed by organization administrators.");
          }
        }
        stored[name] = next;
        changed = true;
        data[name] = next;
        events.push({ type: 'realm', op: 'update_dict', property: 'default', data: { [name]: next } });
      }
    }
    if (changed) patch.settings_json = JSON.stringify(stored);
    if (Object.keys(patch).length) await updateRealm(tx, svc.realmId, patch);
    if ('waiting_period_threshold' in data) {
      groupEvents.push(...(await waitingPeriodChanges(svc, tx, Number(current.waiting_period_threshold), Number(data.waiting_period_threshold))));
    }
  });
  if (events.length || groupEvents.length) {
    const recipients = await cachedActiveUserIds(svc);
    for (const ev of [...events, ...groupEvents]) svc.bus.send(ev, recipients);
  }
  return data;
}

/** The authentication methods Parley offers (Zulip's names). */
export const AUTHENTICATION_METHODS = ['Email'] as const;

function checkAuthenticationMethods(methods: Record<string, unknown>): void {
  for (const [name, enabled] of Object.entries(methods)) {
    if (!(AUTHENTICATION_METHODS as readonly string[]).includes(name)) throw badRequest(`Invalid authentication method: ${name}`);
    if (typeof enabled !== 'boolean') throw badRequest(`Invalid authentication method: ${name}`);
  }
  if (!Object.values(methods).includes(true)) throw badRequest('At least one authentication method must be enabled.');
}

/**
 * Sets one organization setting outside a request (the admin CLI), with the
 * same validation and events as PATCH /realm by an owner.
 */
export async function setRealmSettingAsOperator(svc: Services, owner: UserRow, name: string, value: unknown): Promise<Record<string, unknown>> {
  if (name === 'name' || name === 'description') return updateRealmSettings(svc, owner, { [name]: value as string, settings: {}, groupSettings: {} });
  if (name in REALM_PERMISSION_SETTINGS) {
    return updateRealmSettings(svc, owner, { settings: {}, groupSettings: { [name]: { new: value as GroupSettingValue } } });
  }
  if (!(name in REALM_SETTING_SPECS)) throw badRequest(`Unknown organization setting: ${name}`);
  return updateRealmSettings(svc, owner, { settings: { [name]: value }, groupSettings: {} });
}

/** The organization's settings by PATCH /realm name (group settings as group IDs or anonymous groups). */
export async function currentRealmSettings(svc: Services): Promise<Record<string, unknown>> {
  const realm = await realmById(svc.store.db, svc.realmId);
  const groups = await cachedGroups(svc, svc.store.db);
  const out: Record<string, unknown> = { name: realm.name, description: realm.description, ...realmSettings(realm.settings_json) };
  for (const name of REALM_GROUP_SETTINGS) out[name] = realmGroupSetting(realm.settings_json, name, groups);
  return out;
}
