/** User groups: listing, creating, members and subgroups; user_group events. */
import { lockNamesOf, lockSettingsOf } from '../store/locks.ts';
import { cachedActiveUserIdSet, cachedActiveUserIds, cachedGroups, cachedUsers } from './cache.ts';
import type { Services } from '../services.ts';
import type { ZulipEvent } from '../events/types.ts';
import { transaction, type Tx } from '../store/db.ts';
import { ApiError, badRequest } from '../lib/errors.ts';
import { nowSeconds, parseJsonObject } from '../lib/util.ts';
import { realmById, type RealmRow } from '../store/realm.ts';
import { ROLE, type UserRow } from '../store/users.ts';
import { addGroupMembers, addGroupSubgroups, groupById, groupByName, insertGroup, removeGroupMembers, removeGroupSubgroups, updateGroup, type GroupRow } from '../store/groups.ts';
import { allStreams, type StreamRow } from '../store/streams.ts';
import { STREAM_GROUP_SETTINGS } from './access.ts';
import { activeIdsOf, checkedPermissionValue, Groups, parseStoredSetting, realmGroupSetting, settingForApi, type GroupSettingValue } from './group-settings.ts';
import { GROUP_PERMISSION_SETTINGS, REALM_PERMISSION_SETTINGS } from '../lib/permission-settings.ts';
import { accessUserById } from './users-admin.ts';

export const GROUP_SETTINGS = [
  'can_add_members_group',
  'can_join_group',
  'can_leave_group',
  'can_manage_group',
  'can_mention_group',
  'can_remove_members_group',
] as const;
export type GroupSettingName = (typeof GROUP_SETTINGS)[number];

/** Zulip's defaults for user-defined groups ('creator': the creator alone). */
const USER_GROUP_DEFAULTS = Object.fromEntries(
  GROUP_SETTINGS.map((name) => [name, GROUP_PERMISSION_SETTINGS[name].default_group_name === 'group_creator' ? 'creator' : GROUP_PERMISSION_SETTINGS[name].default_group_name]),
) as Record<GroupSettingName, string>;

/** Zulip's values for system groups. */
const SYSTEM_GROUP_SETTINGS = Object.fromEntries(GROUP_SETTINGS.map((name) => [name, GROUP_PERMISSION_SETTINGS[name].default_for_system_groups ?? 'role:nobody'])) as Record<
  GroupSettingName,
  string
>;

export function groupSetting(g: GroupRow, name: GroupSettingName, groups: Groups): GroupSettingValue {
  if (g.is_system_group) return groups.systemGroupId(SYSTEM_GROUP_SETTINGS[name] as never);
  return parseStoredSetting(parseJsonObject(g.settings_json)[name]) ?? groups.systemGroupId('role:nobody');
}

/** The user group object, as in realm_user_groups and GET /user_groups. */
export function formatGroup(g: GroupRow, groups: Groups, users: readonly UserRow[]): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: g.id,
    name: g.name,
    description: g.description,
    creator_id: g.creator_id,
    date_created: g.date_created === null ? null : Number(g.date_created),
    members: groups.directMembers(g.id, users),
    direct_subgroup_ids: groups.directSubgroups(g.id),
    is_system_group: !!g.is_system_group,
    deactivated: !!g.deactivated,
  };
  for (const name of GROUP_SETTINGS) out[name] = settingForApi(groupSetting(g, name, groups), users);
  return out;
}

export async function listGroups(svc: Services, includeDeactivated: boolean): Promise<Record<string, unknown>[]> {
  const [groups, { list: users }] = await Promise.all([cachedGroups(svc, svc.store.db), cachedUsers(svc)]);
  return [...groups.byId.values()]
    .filter((g) => includeDeactivated || !g.deactivated)
    .sort((a, b) => a.id - b.id)
    .map((g) => formatGroup(g, groups, users));
}

export interface CreateGroupInput {
  name: string;
  description: string;
  members: number[];
  subgroups: number[];
  settings: Partial<Record<GroupSettingName, GroupSettingValue>>;
}

/** POST /user_groups/create. */
export async function createGroup(svc: Services, user: UserRow, input: CreateGroupInput): Promise<{ group_id: number }> {
  const { group, groups, users } = await transaction(svc.store, async (tx) => {
    const groups = await cachedGroups(svc, tx);
    const realm = await realmById(tx, svc.realmId);
    if (!groups.allows(user, realmGroupSetting(realm.settings_json, 'can_create_groups', groups))) throw badRequest('Insufficient permission');
    const name = checkGroupName(input.name);
    await lockNamesOf(svc.store, tx, 'user_groups');
    if (await groupByName(tx, svc.realmId, name)) throw badRequest(`User group '${name}' already exists.`);
    const users = (await cachedUsers(svc, tx)).list;
    const valid = activeIdsOf(users);
    for (const id of input.members) if (!valid.has(id)) throw badRequest(`Invalid user ID: ${id}`);
    for (const id of input.subgroups) checkSubgroup(groups, id);
    const settings: Record<string, GroupSettingValue> = {};
    for (const key of GROUP_SETTINGS) {
      const given = input.settings[key];
      if (given !== undefined) settings[key] = checkedPermissionValue(groups, valid, GROUP_PERMISSION_SETTINGS[key], key, given);
      else settings[key] = USER_GROUP_DEFAULTS[key] === 'creator' ? { direct_members: [user.id], direct_subgroups: [] } : groups.systemGroupId(USER_GROUP_DEFAULTS[key] as never);
    }
    const group = await insertGroup(tx, {
      realm_id: svc.realmId,
      name,
      description: input.description,
      creator_id: user.id,
      date_created: nowSeconds(),
      settings_json: JSON.stringify(settings),
    });
    await addGroupMembers(tx, group.id, [...new Set(input.members)]);
    await addGroupSubgroups(tx, group.id, [...new Set(input.subgroups)]);
    return { group, groups: await cachedGroups(svc, tx), users };
  });
  svc.bus.send({ type: 'user_group', op: 'add', group: formatGroup(group, groups, users) }, await cachedActiveUserIds(svc));
  return { group_id: group.id };
}

/** A group name as Zulip's check_user_group_name takes it (trimmed). */
function checkGroupName(raw: string): string {
  const name = raw.trim();
  if (name === '') throw badRequest("User group name can't be empty!");
  if ([...name].length > 100) throw badRequest('User group name cannot exceed 100 characters.');
  if (name.startsWith('role:') || name.startsWith('@')) throw badRequest(`User group name cannot start with '${name.startsWith('@') ? '@' : 'role:'}'.`);
  return name;
}

function groupIsDeactivated(): ApiError {
  return badRequest('User group is deactivated.');
}

/** A group given as a subgroup: an existing, active one. */
function checkSubgroup(groups: Groups, id: number): GroupRow {
  const g = groups.byId.get(id);
  if (!g) throw badRequest(`Invalid user group ID: ${id}`);
  if (g.deactivated) throw groupIsDeactivated();
  return g;
}

/** A group whose members may be read: an existing, active one (Zulip's access_user_group_to_read_membership). */
function groupToRead(groups: Groups, groupId: number): GroupRow {
  const g = groups.byId.get(groupId);
  if (!g) throw badRequest('Invalid user group');
  if (g.deactivated) throw groupIsDeactivated();
  return g;
}

/**
 * Zulip's access_user_group_for_update: the group, if the user may change it
 * through `setting` (or manage it). A deactivated group may be renamed,
 * reactivated and have its members changed (`allowDeactivated`), nothing else.
 */
async function accessGroupForUpdate(
  svc: Services,
  tx: Tx,
  user: UserRow,
  groups: Groups,
  groupId: number,
  setting: GroupSettingName,
  opts: { allowDeactivated?: boolean } = {},
): Promise<GroupRow> {
  const g = groups.byId.get(groupId);
  if (!g) throw badRequest('Invalid user group');
  if (g.deactivated && !opts.allowDeactivated) throw groupIsDeactivated();
  if (g.is_system_group) throw badRequest('Insufficient permission');
  const realm = await realmById(tx, svc.realmId);
  const ok =
    user.role <= ROLE.ADMINISTRATOR ||
    groups.allows(user, realmGroupSetting(realm.settings_json, 'can_manage_all_groups', groups)) ||
    groups.allows(user, groupSetting(g, 'can_manage_group', groups)) ||
    groups.allows(user, groupSetting(g, setting, groups));
  if (!ok) throw badRequest('Insufficient permission');
  return g;
}

export interface GroupMembershipChange {
  add: number[];
  remove: number[];
  addSubgroups: number[];
  removeSubgroups: number[];
}

/**
 * POST /user_groups/{id}/members (members, and since feature level 311
 * subgroups too) and POST /user_groups/{id}/subgroups: one transaction, then
 * the events, members first.
 */
export async function updateGroupMembership(svc: Services, user: UserRow, groupId: number, change: GroupMembershipChange): Promise<void> {
  const result = await transaction(svc.store, async (tx) => {
    const groups = await cachedGroups(svc, tx);
    const members = await changeMembers(svc, tx, groups, user, groupId, change.add, change.remove);
    const subgroups = await changeSubgroups(svc, tx, groups, user, groupId, change.addSubgroups, change.removeSubgroups);
    return { ...members, ...subgroups };
  });
  const recipients = await cachedActiveUserIds(svc);
  const send = (op: string, ids: number[], field: 'user_ids' | 'direct_subgroup_ids') => {
    if (ids.length) svc.bus.send({ type: 'user_group', op, group_id: groupId, [field]: ids } as ZulipEvent, recipients);
  };
  send('add_members', result.addedMembers, 'user_ids');
  send('remove_members', result.removedMembers, 'user_ids');
  send('add_subgroups', result.addedSubgroups, 'direct_subgroup_ids');
  send('remove_subgroups', result.removedSubgroups, 'direct_subgroup_ids');
}

async function changeMembers(svc: Services, tx: Tx, groups: Groups, user: UserRow, groupId: number, add: number[], remove: number[]) {
  if (!add.length && !remove.length) return { addedMembers: [], removedMembers: [] };
  const users = (await cachedUsers(svc, tx)).list;
  const isSelfOnly = (ids: number[]) => ids.length > 0 && ids.every((id) => id === user.id);
  const g = groups.byId.get(groupId);
  if (!g) throw badRequest('Invalid user group');
  if (add.length && !(isSelfOnly(add) && !g.is_system_group && groups.allows(user, groupSetting(g, 'can_join_group', groups)))) {
    await accessGroupForUpdate(svc, tx, user, groups, groupId, 'can_add_members_group', { allowDeactivated: true });
  }
  if (remove.length && !(isSelfOnly(remove) && !g.is_system_group && groups.allows(user, groupSetting(g, 'can_leave_group', groups)))) {
    await accessGroupForUpdate(svc, tx, user, groups, groupId, 'can_remove_members_group', { allowDeactivated: true });
  }
  const current = new Set(groups.directMembers(groupId, users));
  const valid = activeIdsOf(users);
  for (const id of add) {
    if (!valid.has(id)) throw badRequest(`Invalid user ID: ${id}`);
    if (current.has(id)) throw badRequest(`User ${id} is already a member of this group`);
  }
  for (const id of remove) {
    // Deactivated users are in no group while deactivated: neither added nor removed (feature level 303).
    if (!valid.has(id)) throw badRequest(`Invalid user ID: ${id}`);
    if (!current.has(id)) throw badRequest(`There is no member '${id}' in this user group`);
  }
  const addedMembers = [...new Set(add)];
  const removedMembers = [...new Set(remove)];
  await addGroupMembers(tx, groupId, addedMembers);
  await removeGroupMembers(tx, groupId, removedMembers);
  return { addedMembers, removedMembers };
}

/** Subgroups: adding them takes can_add_members_group, removing them can_manage_group (as Zulip). */
async function changeSubgroups(svc: Services, tx: Tx, groups: Groups, user: UserRow, groupId: number, add: number[], remove: number[]) {
  if (add.length) await accessGroupForUpdate(svc, tx, user, groups, groupId, 'can_add_members_group');
  if (remove.length) await accessGroupForUpdate(svc, tx, user, groups, groupId, 'can_manage_group');
  const current = new Set(groups.directSubgroups(groupId));
  for (const id of add) {
    checkSubgroup(groups, id);
    if (current.has(id)) throw badRequest(`User group ${id} is already a subgroup of this group.`);
    if (reaches(groups, id, groupId)) throw badRequest(`User group ${id} is already a supergroup of this group.`);
  }
  for (const id of remove) {
    checkSubgroup(groups, id);
    if (!current.has(id)) throw badRequest(`User group ${id} is not a subgroup of this group.`);
  }
  const addedSubgroups = [...new Set(add)];
  const removedSubgroups = [...new Set(remove)];
  await addGroupSubgroups(tx, groupId, addedSubgroups);
  await removeGroupSubgroups(tx, groupId, removedSubgroups);
  return { addedSubgroups, removedSubgroups };
}

function reaches(groups: Groups, from: number, target: number, seen = new Set<number>()): boolean {
  if (from === target) return true;
  if (seen.has(from)) return false;
  seen.add(from);
  return groups.directSubgroups(from).some((g) => reaches(groups, g, target, seen));
}

/** GET /user_groups/{id}/members. */
export async function getGroupMembers(svc: Services, groupId: number, directOnly: boolean): Promise<number[]> {
  const [groups, { list: users }] = await Promise.all([cachedGroups(svc, svc.store.db), cachedUsers(svc)]);
  groupToRead(groups, groupId);
  if (directOnly) return groups.directMembers(groupId, users);
  return users.filter((u) => groups.isMember(u, groupId)).map((u) => u.id);
}

/** GET /user_groups/{id}/subgroups: direct subgroups, or all of them (recursively, the group itself excluded). */
export async function getGroupSubgroups(svc: Services, groupId: number, directOnly: boolean): Promise<number[]> {
  const groups = await cachedGroups(svc, svc.store.db);
  groupToRead(groups, groupId);
  if (directOnly) return [...groups.directSubgroups(groupId)].sort((a, b) => a - b);
  const seen = new Set<number>();
  const walk = (id: number): void => {
    for (const sub of groups.directSubgroups(id)) {
      if (seen.has(sub)) continue;
      seen.add(sub);
      walk(sub);
    }
  };
  walk(groupId);
  seen.delete(groupId);
  return [...seen].sort((a, b) => a - b);
}

/** GET /user_groups/{id}/members/{user_id}: whether the user is a (direct) member. */
export async function isGroupMember(svc: Services, me: UserRow, groupId: number, userId: number, directOnly: boolean): Promise<boolean> {
  const groups = await cachedGroups(svc, svc.store.db);
  groupToRead(groups, groupId);
  // Bots may be members too (feature level 458).
  const target = await accessUserById(svc, me, userId, { forAdmin: false, allowBots: true });
  if (directOnly) return groups.directMembers(groupId, [target]).includes(target.id);
  return groups.isMember(target, groupId);
}

export interface UpdateGroupInput {
  name?: string;
  description?: string;
  /** false reactivates a deactivated group; true changes nothing (deactivation has its own endpoint). */
  deactivated?: boolean;
  settings: Partial<Record<GroupSettingName, { new: GroupSettingValue; old?: GroupSettingValue }>>;
}

/**
 * PATCH /user_groups/{id}: name, description, reactivation and group settings
 * ({new, old}), with user_group update events. A deactivated group may be
 * renamed and reactivated (its other settings too, as Zulip allows); clients
 * without include_deactivated_groups hear nothing of its renaming, and get it
 * back as a user_group add when it is reactivated.
 */
export async function updateGroupInfo(svc: Services, user: UserRow, groupId: number, input: UpdateGroupInput): Promise<void> {
  if (input.name === undefined && input.description === undefined && input.deactivated === undefined && Object.keys(input.settings).length === 0) {
    throw badRequest('No new data supplied');
  }
  const { data, wasDeactivated, reactivated } = await transaction(svc.store, async (tx) => {
    await lockSettingsOf(svc.store, tx, 'group', groupId);
    const groups = await cachedGroups(svc, tx);
    const kept = await accessGroupForUpdate(svc, tx, user, groups, groupId, 'can_manage_group', { allowDeactivated: true });
    // Its settings as committed now (the group graph kept in memory may predate a change another process just made).
    const g = (await groupById(tx, svc.realmId, groupId)) ?? kept;
    const data: Record<string, unknown> = {};
    const patch: { name?: string; description?: string; deactivated?: number; settings_json?: string } = {};
    if (input.name !== undefined && input.name !== g.name) {
      const name = checkGroupName(input.name);
      await lockNamesOf(svc.store, tx, 'user_groups');
      if (await groupByName(tx, svc.realmId, name)) throw badRequest(`User group '${name}' already exists.`);
      patch.name = data.name = name;
    }
    if (input.description !== undefined && input.description !== g.description) patch.description = data.description = input.description;
    const reactivated = input.deactivated === false && !!g.deactivated;
    if (reactivated) patch.deactivated = 0;
    const entries = Object.entries(input.settings) as Array<[GroupSettingName, { new: GroupSettingValue; old?: GroupSettingValue }]>;
    if (entries.length) {
      const valid = await cachedActiveUserIdSet(svc, tx);
      const settings = parseJsonObject(g.settings_json);
      for (const [name, upd] of entries) {
        const current = groupSetting(g, name, groups);
        if (upd.old !== undefined && !Groups.same(groups.validate(upd.old, valid, name), current)) throw badRequest("'old' value does not match the expected value.");
        const next = checkedPermissionValue(groups, valid, GROUP_PERMISSION_SETTINGS[name], name, upd.new);
        if (Groups.same(next, current)) continue;
        settings[name] = data[name] = next;
      }
      patch.settings_json = JSON.stringify(settings);
    }
    if (Object.keys(patch).length) await updateGroup(tx, groupId, patch);
    return { data, wasDeactivated: !!g.deactivated, reactivated };
  });
  const recipients = await cachedActiveUserIds(svc);
  if (data.name !== undefined && wasDeactivated) {
    svc.bus.send({ type: 'user_group', op: 'update', group_id: groupId, data: { name: data.name } }, recipients, { meta: { withoutDeactivatedGroups: null } });
    delete data.name;
  }
  if (Object.keys(data).length) svc.bus.send({ type: 'user_group', op: 'update', group_id: groupId, data }, recipients);
  if (reactivated) {
    const [groups, { list: users }] = await Promise.all([cachedGroups(svc), cachedUsers(svc)]);
    const group = formatGroup(groups.byId.get(groupId)!, groups, users);
    svc.bus.send({ type: 'user_group', op: 'update', group_id: groupId, data: { deactivated: false } }, recipients, {
      meta: { withoutDeactivatedGroups: { type: 'user_group', op: 'add', group } },
    });
  }
}

/**
 * Where a group is in use, as Zulip's CANNOT_DEACTIVATE_GROUP_IN_USE error
 * lists it: active groups it is a subgroup of, then the settings that name it
 * (directly or among an anonymous value's subgroups) of active channels,
 * active groups and the organization.
 */
function groupObjections(groups: Groups, streams: StreamRow[], realm: RealmRow, groupId: number): Record<string, unknown>[] {
  const uses = (value: unknown): boolean =>
    value === groupId || (!!value && typeof value === 'object' && ((value as { direct_subgroups?: number[] }).direct_subgroups ?? []).includes(groupId));
  const using = (settings: Record<string, unknown>, names: readonly string[]) => names.filter((name) => uses(settings[name]));
  const objections: Record<string, unknown>[] = [];
  const active = [...groups.byId.values()].filter((g) => !g.deactivated).sort((a, b) => a.id - b.id);
  const supergroupIds = active.filter((g) => groups.directSubgroups(g.id).includes(groupId)).map((g) => g.id);
  if (supergroupIds.length) objections.push({ type: 'subgroup', supergroup_ids: supergroupIds });
  for (const stream of [...streams].filter((st) => !st.is_archived).sort((a, b) => a.id - b.id)) {
    const settings = using(parseJsonObject(stream.group_settings_json), STREAM_GROUP_SETTINGS);
    if (settings.length) objections.push({ type: 'channel', channel_id: stream.id, settings });
  }
  for (const g of active) {
    if (g.is_system_group) continue;
    const settings = using(parseJsonObject(g.settings_json), GROUP_SETTINGS);
    if (settings.length) objections.push({ type: 'user_group', group_id: g.id, settings });
  }
  const realmSettings = using(parseJsonObject(realm.settings_json), Object.keys(REALM_PERMISSION_SETTINGS));
  if (realmSettings.length) objections.push({ type: 'realm', settings: realmSettings });
  return objections;
}

/** POST /user_groups/{id}/deactivate: refused while a channel, organization or group setting, or an active group, uses the group. */
export async function deactivateGroup(svc: Services, user: UserRow, groupId: number): Promise<void> {
  await transaction(svc.store, async (tx) => {
    const groups = await cachedGroups(svc, tx);
    await accessGroupForUpdate(svc, tx, user, groups, groupId, 'can_manage_group');
    const objections = groupObjections(groups, await allStreams(tx, svc.realmId), await realmById(tx, svc.realmId), groupId);
    if (objections.length) throw new ApiError('Cannot deactivate user group in use.', { code: 'CANNOT_DEACTIVATE_GROUP_IN_USE', extra: { objections } });
    await updateGroup(tx, groupId, { deactivated: 1 });
  });
  svc.bus.send({ type: 'user_group', op: 'update', group_id: groupId, data: { deactivated: true } }, await cachedActiveUserIds(svc), {
    meta: { withoutDeactivatedGroups: { type: 'user_group', op: 'remove', group_id: groupId } },
  });
}
