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
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';
import { activeUserIds, allUsers, ROLE } from '../store/users.ts';
import { realmById, updateRealm } from '../store/realm.ts';
import { streamById } from '../store/streams.ts';
import { transaction } from '../store/db.ts';
import { ApiError, badRequest, requireAdmin, requireOwner } from '../lib/errors.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { parseJsonObject } from '../lib/util.ts';
import { isAdminRole } from './users-format.ts';
import { Groups, realmGroupSetting, type GroupSettingValue } from './group-settings.ts';
import type { ZulipEvent } from '../events/types.ts';

export const MAX_REALM_NAME_LENGTH = 40;
export const MAX_REALM_DESCRIPTION_LENGTH = 1000;

/** The organization's topics_policy values (channels also have 'inherit' and 'empty_topic_only'). */
export const REALM_TOPICS_POLICIES = ['allow_empty_topic', 'disable_empty_topic'] as const;

/** Simple (non-group) settings Parley honors and lets administrators change. */
export const EDITABLE_REALM_SETTINGS = [
  'allow_message_editing',
  'message_content_edit_limit_seconds',
  'message_content_delete_limit_seconds',
  'topics_policy',
  'enable_spectator_access',
  'name_changes_disabled',
  'require_unique_names',
  'new_stream_announcements_stream_id',
  'signup_announcements_stream_id',
] as const;

/** Settings whose event is `update_dict` (their history in Zulip). */
const UPDATE_DICT_SETTINGS = new Set(['allow_message_editing', 'message_content_edit_limit_seconds']);

/** Channel-valued settings: a channel ID, or -1 for none. */
const CHANNEL_SETTINGS = new Set(['new_stream_announcements_stream_id', 'signup_announcements_stream_id']);

/** Zulip's system-group restrictions for the organization group settings Parley honors. */
interface GroupRule {
  allowNobody: boolean;
  allowEveryone: boolean;
  /** When set, the value must be one of these system groups. */
  allowedSystemGroups?: string[];
  ownerOnly?: boolean;
}

export const REALM_GROUP_SETTING_RULES: Record<string, GroupRule> = {
  can_create_public_channel_group: { allowNobody: true, allowEveryone: false },
  can_create_private_channel_group: { allowNobody: true, allowEveryone: false },
  can_create_web_public_channel_group: {
    allowNobody: true,
    allowEveryone: false,
    allowedSystemGroups: ['role:moderators', 'role:administrators', 'role:owners', 'role:nobody'],
  },
  can_add_subscribers_group: { allowNobody: true, allowEveryone: false },
  can_create_groups: { allowNobody: true, allowEveryone: false, ownerOnly: true },
  can_manage_all_groups: { allowNobody: false, allowEveryone: false, ownerOnly: true },
  can_delete_any_message_group: { allowNobody: true, allowEveryone: true },
  can_delete_own_message_group: { allowNobody: true, allowEveryone: true },
  can_invite_users_group: { allowNobody: true, allowEveryone: false, ownerOnly: true },
};

export interface RealmUpdateInput {
  name?: string;
  description?: string;
  /** Simple settings (already decoded: time limits are a number or null). */
  settings: Record<string, unknown>;
  groupSettings: Record<string, { new: GroupSettingValue; old?: GroupSettingValue }>;
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

function checkGroupValue(groups: Groups, name: string, value: GroupSettingValue): void {
  const rule = REALM_GROUP_SETTING_RULES[name];
  const check = (id: number, alone: boolean) => {
    const g = groups.byId.get(id);
    if (!g?.is_system_group) {
      if (alone && rule.allowedSystemGroups) throw badRequest(`'${name}' must be a system user group.`);
      return;
    }
    if (g.name === 'role:internet') throw badRequest(`'${name}' setting cannot be set to 'role:internet' group.`);
    if (!alone) return;
    if (g.name === 'role:nobody' && !rule.allowNobody) throw badRequest(`'${name}' setting cannot be set to 'role:nobody' group.`);
    if (g.name === 'role:everyone' && !rule.allowEveryone) throw badRequest(`'${name}' setting cannot be set to 'role:everyone' group.`);
    if (rule.allowedSystemGroups && !rule.allowedSystemGroups.includes(g.name)) throw badRequest(`'${name}' setting cannot be set to '${g.name}' group.`);
  };
  if (typeof value === 'number') return check(value, true);
  if (rule.allowedSystemGroups) throw badRequest(`'${name}' must be a system user group.`);
  for (const id of value.direct_subgroups) check(id, false);
}

export async function updateRealmSettings(svc: Services, actor: UserRow, input: RealmUpdateInput): Promise<Record<string, unknown>> {
  if (!isAdminRole(actor.role)) throw requireAdmin();
  const isOwner = actor.role === ROLE.OWNER;
  for (const name of Object.keys(input.groupSettings)) {
    if (REALM_GROUP_SETTING_RULES[name]?.ownerOnly && !isOwner) throw requireOwner();
  }
  if (input.settings.topics_policy !== undefined && !(REALM_TOPICS_POLICIES as readonly unknown[]).includes(input.settings.topics_policy)) {
    throw badRequest('Invalid topics_policy');
  }
  const data: Record<string, unknown> = {};
  const events: ZulipEvent[] = [];
  await transaction(svc.store, async (tx) => {
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
      events.push({ type: 'realm', op: 'update', property: 'description', value: input.description });
    }
    const stored = parseJsonObject(realm.settings_json);
    const current = realmSettings(realm.settings_json);
    let changed = false;
    for (const name of EDITABLE_REALM_SETTINGS) {
      if (!(name in input.settings)) continue;
      const value = input.settings[name];
      if (value === undefined) continue;
      if (CHANNEL_SETTINGS.has(name)) {
        const id = value as number;
        if (id >= 0) {
          const stream = await streamById(tx, svc.realmId, id);
          if (!stream) throw badRequest('Invalid channel ID');
        }
        // As Zulip: any negative value turns the setting off, and is reported as sent.
        if (Number(current[name]) === id || (id < 0 && Number(current[name]) < 0)) continue;
      } else if (current[name] === value) continue;
      stored[name] = value;
      changed = true;
      data[name] = typeof value === 'string' ? 'updated' : value;
      events.push(
        UPDATE_DICT_SETTINGS.has(name)
          ? { type: 'realm', op: 'update_dict', property: 'default', data: { [name]: value } }
          : { type: 'realm', op: 'update', property: name, value },
      );
    }
    const groupEntries = Object.entries(input.groupSettings);
    if (groupEntries.length) {
      const groups = await Groups.load(tx, svc.realmId);
      const valid = new Set((await allUsers(tx, svc.realmId)).filter((u) => u.is_active).map((u) => u.id));
      for (const [name, upd] of groupEntries) {
        const now = realmGroupSetting(realm.settings_json, name, groups);
        if (upd.old !== undefined && !Groups.same(groups.validate(upd.old, valid, name), now)) {
          throw badRequest("'old' value does not match the expected value.");
        }
        const next = groups.validate(upd.new, valid, name);
        if (Groups.same(next, now)) continue;
        checkGroupValue(groups, name, next);
        stored[name] = next;
        changed = true;
        data[name] = next;
        events.push({ type: 'realm', op: 'update_dict', property: 'default', data: { [name]: next } });
      }
    }
    if (changed) patch.settings_json = JSON.stringify(stored);
    if (Object.keys(patch).length) await updateRealm(tx, svc.realmId, patch);
  });
  if (events.length) {
    const recipients = await activeUserIds(svc.store.db, svc.realmId);
    for (const ev of events) svc.bus.send(ev, recipients);
  }
  return data;
}
