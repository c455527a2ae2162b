/**
 * Group-setting values (spec 2.1) and group membership.
 *
 * A group-setting value is a user group ID, or an anonymous group
 * {direct_members, direct_subgroups}. System groups (role:*) take their
 * members from users' roles; other groups from direct members and, through
 * subgroups, recursively. Values are stored as JSON text.
 */
import type { Tx } from '../store/db.ts';
import { allGroups, allMemberEdges, allSubgroupEdges, SYSTEM_GROUP_MAX_ROLE, type GroupRow, type SystemGroupName } from '../store/groups.ts';
import type { UserRow } from '../store/users.ts';
import { badRequest } from '../lib/errors.ts';
import { v, type Validator } from '../lib/validators.ts';
import { parseJsonObject } from '../lib/util.ts';
import { REALM_GROUP_SETTING_DEFAULTS, realmSettings } from '../lib/realm-settings.ts';
import type { PermissionSettingConfig } from '../lib/permission-settings.ts';
import { realmById } from '../store/realm.ts';
import { ROLE } from '../store/users.ts';

/** The join time at or before which members are full members, for a waiting period in days. */
export function fullMemberCutoff(waitingPeriodDays: number, now = Date.now() / 1000): number {
  return now - waitingPeriodDays * 86400;
}

export type AnonymousGroup = { direct_members: number[]; direct_subgroups: number[] };
export type GroupSettingValue = number | AnonymousGroup;

/** Validator for a group-setting value sent by a client. */
export const groupSettingValue: Validator<GroupSettingValue> = v.union<GroupSettingValue>(
  v.int(),
  v.object({ direct_members: v.list(v.int()), direct_subgroups: v.list(v.int()) }),
);

/** Validator for an update object {new, old?} (PATCH operations). */
export const groupSettingUpdate = v.object({ new: groupSettingValue, old: groupSettingValue }, { optional: ['old'] });

export function parseStoredSetting(text: unknown): GroupSettingValue | undefined {
  if (typeof text === 'number') return text;
  if (text && typeof text === 'object') return text as AnonymousGroup;
  return undefined;
}

const activeIds = new WeakMap<readonly UserRow[], ReadonlySet<number>>();

/**
 * The IDs of a user list's active users (kept per list: one list serves every
 * group of a /register, and every check of user IDs sent for a setting). Shared: never modify it.
 */
export function activeIdsOf(users: readonly UserRow[]): ReadonlySet<number> {
  let ids = activeIds.get(users);
  if (!ids) activeIds.set(users, (ids = new Set(users.filter((u) => u.is_active).map((u) => u.id))));
  return ids;
}

/**
 * A value as the API shows it: an anonymous group without its deactivated
 * users (Zulip since feature level 303; they come back with reactivation).
 * `users` is the organization's users.
 */
export function settingForApi(value: GroupSettingValue, users: readonly UserRow[]): GroupSettingValue {
  if (typeof value === 'number') return value;
  const active = activeIdsOf(users);
  if (value.direct_members.every((id) => active.has(id))) return value;
  return { direct_members: value.direct_members.filter((id) => active.has(id)), direct_subgroups: value.direct_subgroups };
}

/** A snapshot of every group of the organization, for membership checks. */
export class Groups {
  readonly byId: Map<number, GroupRow>;
  readonly byName: Map<string, GroupRow>;
  private readonly members = new Map<number, Set<number>>();
  private readonly subgroups = new Map<number, number[]>();

  /**
   * Members who joined at or before this time (UNIX seconds) are full members
   * (role:fullmembers as well as role:members); newer ones are only in role:members. From the
   * organization's waiting_period_threshold (days).
   */
  get fullMemberCutoff(): number {
    return fullMemberCutoff(this.waitingPeriodDays);
  }

  private readonly waitingPeriodDays: number;

  private constructor(
    groups: GroupRow[],
    members: Array<{ group_id: number; user_id: number }>,
    subs: Array<{ group_id: number; subgroup_id: number }>,
    waitingPeriodDays: number,
  ) {
    this.waitingPeriodDays = waitingPeriodDays;
    this.byId = new Map(groups.map((g) => [g.id, g]));
    this.byName = new Map(groups.map((g) => [g.name, g]));
    for (const m of members) {
      let set = this.members.get(m.group_id);
      if (!set) this.members.set(m.group_id, (set = new Set()));
      set.add(m.user_id);
    }
    for (const s of subs) {
      let list = this.subgroups.get(s.group_id);
      if (!list) this.subgroups.set(s.group_id, (list = []));
      list.push(s.subgroup_id);
    }
  }

  static async load(db: Tx, realmId: number): Promise<Groups> {
    const [groups, members, subs, realm] = await Promise.all([allGroups(db, realmId), allMemberEdges(db, realmId), allSubgroupEdges(db, realmId), realmById(db, realmId)]);
    return new Groups(groups, members, subs, Number(realmSettings(realm.settings_json).waiting_period_threshold) || 0);
  }

  /** Whether a user counts as a full member (role:fullmembers): a moderator or above, or a member past the waiting period. */
  isFullMember(user: UserRow): boolean {
    return user.role <= ROLE.MODERATOR || (user.role === ROLE.MEMBER && user.date_joined <= this.fullMemberCutoff);
  }

  systemGroupId(name: SystemGroupName): number {
    const g = this.byName.get(name);
    if (!g || !g.is_system_group) throw new Error(`system group ${name} missing`);
    return g.id;
  }

  /**
   * Direct members of a group, among `users`' active ones: for system groups,
   * users whose role maps to it. A deactivated user is no member of any group
   * while deactivated (Zulip since feature level 303); the rows stay, so
   * reactivation brings the memberships back.
   */
  directMembers(groupId: number, users: readonly UserRow[]): number[] {
    const g = this.byId.get(groupId);
    if (!g) return [];
    if (g.is_system_group) {
      const roles = systemGroupDirectRoles(g.name);
      const active = users.filter((u) => u.is_active && roles.includes(u.role));
      // As Zulip: every member is a direct member of role:members; those past the waiting period of role:fullmembers too.
      if (g.name === 'role:fullmembers') return active.filter((u) => u.date_joined <= this.fullMemberCutoff).map((u) => u.id);
      return active.map((u) => u.id);
    }
    const members = this.members.get(groupId);
    if (!members) return [];
    const active = activeIdsOf(users);
    return [...members].filter((id) => active.has(id)).sort((a, b) => a - b);
  }

  directSubgroups(groupId: number): number[] {
    return [...(this.subgroups.get(groupId) ?? [])].sort((a, b) => a - b);
  }

  /** Whether the user is in the group, directly or through subgroups. */
  isMember(user: UserRow, groupId: number, seen = new Set<number>()): boolean {
    if (!user.is_active || seen.has(groupId)) return false;
    seen.add(groupId);
    const g = this.byId.get(groupId);
    if (!g || g.deactivated) return false;
    if (g.is_system_group) {
      if (g.name === 'role:fullmembers') return this.isFullMember(user);
      const max = SYSTEM_GROUP_MAX_ROLE[g.name as SystemGroupName];
      return max !== null && max !== undefined && user.role <= max;
    }
    if (this.members.get(groupId)?.has(user.id)) return true;
    return (this.subgroups.get(groupId) ?? []).some((sg) => this.isMember(user, sg, seen));
  }

  /** Whether the user is covered by a group-setting value. */
  allows(user: UserRow, value: GroupSettingValue | undefined): boolean {
    if (value === undefined) return false;
    if (typeof value === 'number') return this.isMember(user, value);
    if (value.direct_members.includes(user.id) && user.is_active) return true;
    return value.direct_subgroups.some((g) => this.isMember(user, g));
  }

  /** Equality of two values (anonymous groups compared as sets). */
  static same(a: GroupSettingValue | undefined, b: GroupSettingValue | undefined): boolean {
    if (a === undefined || b === undefined) return a === b;
    if (typeof a === 'number' || typeof b === 'number') return a === b;
    const eq = (x: number[], y: number[]) => x.length === y.length && [...x].sort((p, q) => p - q).every((v, i) => v === [...y].sort((p, q) => p - q)[i]);
    return eq(a.direct_members, b.direct_members) && eq(a.direct_subgroups, b.direct_subgroups);
  }

  /** Every user ID the value covers, among `users`. */
  usersAllowed(value: GroupSettingValue | undefined, users: readonly UserRow[]): number[] {
    return users.filter((u) => this.allows(u, value)).map((u) => u.id);
  }

  /**
   * Checks a client-sent value: group IDs must exist and be active,
   * user IDs must be in `validUserIds`. Returns the normalized value: an
   * anonymous group of one subgroup and no members becomes that group's ID, an
   * empty one role:nobody, as in Zulip.
   */
  validate(value: GroupSettingValue, validUserIds: ReadonlySet<number>, settingName: string): GroupSettingValue {
    const checkGroup = (id: number) => {
      const g = this.byId.get(id);
      if (!g) throw badRequest(`Invalid user group ID: ${id}`);
      if (g.deactivated) throw badRequest('User group is deactivated.');
    };
    if (typeof value === 'number') {
      checkGroup(value);
      return value;
    }
    for (const id of value.direct_subgroups) checkGroup(id);
    for (const uid of value.direct_members) if (!validUserIds.has(uid)) throw badRequest(`Invalid user ID: ${uid}`);
    void settingName;
    // As Zulip: a lone subgroup means that group; an empty value means role:nobody.
    if (value.direct_members.length === 0 && value.direct_subgroups.length === 1) return value.direct_subgroups[0];
    if (value.direct_members.length === 0 && value.direct_subgroups.length === 0) return this.systemGroupId('role:nobody');
    return {
      direct_members: [...new Set(value.direct_members)].sort((a, b) => a - b),
      direct_subgroups: [...new Set(value.direct_subgroups)].sort((a, b) => a - b),
    };
  }
}

function systemGroupDirectRoles(name: string): number[] {
  switch (name) {
    case 'role:owners':
      return [100];
    case 'role:administrators':
      return [200];
    case 'role:moderators':
      return [300];
    case 'role:fullmembers':
    case 'role:members':
      return [400];
    case 'role:everyone':
      return [600];
    default:
      return [];
  }
}

/** An organization-level group setting's value (stored value, or Zulip's default system group). */
/**
 * Zulip's checks on per-channel policies: changing a channel's topics_policy
 * needs the organization's can_set_topics_policy_group, its message deletion
 * settings (can_delete_any_message_group, can_delete_own_message_group)
 * can_set_delete_message_policy_group; administrators always may.
 */
export function checkChannelPolicyPermission(user: UserRow, settingsJson: string, groups: Groups, change: { topicsPolicy: boolean; deletePolicy: boolean }): void {
  if (user.role <= ROLE.ADMINISTRATOR) return;
  if (change.topicsPolicy && !groups.allows(user, realmGroupSetting(settingsJson, 'can_set_topics_policy_group', groups))) throw badRequest('Insufficient permission');
  if (change.deletePolicy && !groups.allows(user, realmGroupSetting(settingsJson, 'can_set_delete_message_policy_group', groups))) throw badRequest('Insufficient permission');
}

export function realmGroupSetting(settingsJson: string, name: string, groups: Groups): GroupSettingValue {
  const stored = parseStoredSetting(parseJsonObject(settingsJson)[name]);
  if (stored !== undefined) return stored;
  const dflt = REALM_GROUP_SETTING_DEFAULTS[name];
  if (!dflt) throw new Error(`unknown realm group setting ${name}`);
  return groups.systemGroupId(dflt as SystemGroupName);
}

/**
 * Checks a (normalized) value against its setting's configuration
 * (src/lib/permission-settings.ts), with Zulip's errors: a setting that
 * requires a system group takes a single one, among its allowed groups;
 * role:internet is never allowed, and role:nobody or role:everyone alone only
 * where the setting allows them.
 */
export function checkPermissionValue(groups: Groups, config: PermissionSettingConfig, name: string, value: GroupSettingValue): void {
  const systemOnly = `'${name}' must be a system user group.`;
  const refuse = (group: string) => badRequest(`'${name}' setting cannot be set to '${group}' group.`);
  if (typeof value !== 'number') {
    if (config.require_system_group) throw badRequest(systemOnly);
    for (const id of value.direct_subgroups) if (groups.byId.get(id)?.name === 'role:internet' && !config.allow_internet_group) throw refuse('role:internet');
    return;
  }
  const g = groups.byId.get(value);
  if (!g?.is_system_group) {
    if (config.require_system_group) throw badRequest(systemOnly);
    return;
  }
  if (g.name === 'role:internet' && !config.allow_internet_group) throw refuse(g.name);
  if (g.name === 'role:nobody' && !config.allow_nobody_group) throw refuse(g.name);
  if (g.name === 'role:everyone' && !config.allow_everyone_group) throw refuse(g.name);
  if (config.allowed_system_groups.length && !config.allowed_system_groups.includes(g.name)) throw refuse(g.name);
}

/** A client-sent value for a permission setting, validated and checked; returns the stored form. */
export function checkedPermissionValue(groups: Groups, validUserIds: ReadonlySet<number>, config: PermissionSettingConfig, name: string, value: GroupSettingValue): GroupSettingValue {
  const out = groups.validate(value, validUserIds, name);
  checkPermissionValue(groups, config, name, out);
  return out;
}

/** Settings of a user group that let someone change its membership. */
const MEMBERSHIP_SETTINGS = ['can_add_members_group', 'can_join_group', 'can_manage_group', 'can_remove_members_group'];
const ADMIN_GROUPS = new Set(['role:nobody', 'role:owners', 'role:administrators']);

/**
 * Whether only administrators can change who is in these groups and their
 * subgroups: every membership setting of every user-defined group among them
 * is a value covering administrators at most, and so is the organization's
 * can_manage_all_groups. System groups change only with roles, which only
 * administrators change.
 */
export function membershipManagedByAdminsOnly(groups: Groups, groupIds: number[], realmSettingsJson: string): boolean {
  const adminsOnly = (value: GroupSettingValue | undefined): boolean => {
    if (value === undefined) return false;
    if (typeof value === 'number') return ADMIN_GROUPS.has(groups.byId.get(value)?.name ?? '') && !!groups.byId.get(value)?.is_system_group;
    return value.direct_members.length === 0 && value.direct_subgroups.every((id) => adminsOnly(id));
  };
  const seen = new Set<number>();
  const pending = [...groupIds];
  while (pending.length) {
    const id = pending.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const g = groups.byId.get(id);
    if (!g || g.is_system_group) continue;
    const settings = parseJsonObject(g.settings_json);
    if (!MEMBERSHIP_SETTINGS.every((name) => adminsOnly(parseStoredSetting(settings[name])))) return false;
    pending.push(...groups.directSubgroups(id));
  }
  const userDefined = [...seen].some((id) => groups.byId.get(id) && !groups.byId.get(id)!.is_system_group);
  return !userDefined || adminsOnly(realmGroupSetting(realmSettingsJson, 'can_manage_all_groups', groups));
}
