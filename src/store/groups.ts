/** User groups: system (role-based) groups and user-defined groups with members and subgroups. */
import type { Selectable } from 'kysely';
import type { Tx } from './db.ts';
import type { UserGroupsTable } from './schema.ts';
import { ROLE } from './users.ts';

export type GroupRow = Selectable<UserGroupsTable>;

/**
 * Zulip's system groups, in the order Zulip creates them (so a new
 * organization's IDs match Zulip's: role:nobody first). `roles` are the roles
 * whose users are direct members; `subgroup` is the direct subgroup.
 */
export const SYSTEM_GROUPS = [
  { name: 'role:nobody', description: 'Nobody', roles: [] as number[], subgroup: null as string | null },
  { name: 'role:owners', description: 'Owners of this organization', roles: [ROLE.OWNER], subgroup: null },
  { name: 'role:administrators', description: 'Administrators of this organization, including owners', roles: [ROLE.ADMINISTRATOR], subgroup: 'role:owners' },
  { name: 'role:moderators', description: 'Moderators of this organization, including administrators', roles: [ROLE.MODERATOR], subgroup: 'role:administrators' },
  { name: 'role:fullmembers', description: 'Members of this organization, not including new accounts and guests', roles: [ROLE.MEMBER], subgroup: 'role:moderators' },
  { name: 'role:members', description: 'Members of this organization, not including guests', roles: [ROLE.MEMBER], subgroup: 'role:fullmembers' },
  { name: 'role:everyone', description: 'Everyone in this organization, including guests', roles: [ROLE.GUEST], subgroup: 'role:members' },
  { name: 'role:internet', description: 'Everyone on the Internet', roles: [], subgroup: 'role:everyone' },
] as const;

export type SystemGroupName = (typeof SYSTEM_GROUPS)[number]['name'];

/** Highest role number (least privileged) that belongs to each system group; null: nobody. */
export const SYSTEM_GROUP_MAX_ROLE: Record<SystemGroupName, number | null> = {
  'role:nobody': null,
  'role:owners': ROLE.OWNER,
  'role:administrators': ROLE.ADMINISTRATOR,
  'role:moderators': ROLE.MODERATOR,
  'role:fullmembers': ROLE.MEMBER,
  'role:members': ROLE.MEMBER,
  'role:everyone': ROLE.GUEST,
  'role:internet': ROLE.GUEST,
};

export async function createSystemGroups(db: Tx, realmId: number, now: number): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const g of SYSTEM_GROUPS) {
    const row = await db
      .insertInto('user_groups')
      .values({ realm_id: realmId, name: g.name, description: g.description, is_system_group: 1, creator_id: null, date_created: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids.set(g.name, row.id);
  }
  for (const g of SYSTEM_GROUPS) {
    if (g.subgroup) {
      await db.insertInto('user_group_subgroups').values({ group_id: ids.get(g.name)!, subgroup_id: ids.get(g.subgroup)! }).execute();
    }
  }
  return ids;
}

export async function allGroups(db: Tx, realmId: number): Promise<GroupRow[]> {
  return db.selectFrom('user_groups').selectAll().where('realm_id', '=', realmId).orderBy('id').execute();
}

export async function groupById(db: Tx, realmId: number, id: number): Promise<GroupRow | undefined> {
  return db.selectFrom('user_groups').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst();
}

export async function systemGroupIds(db: Tx, realmId: number): Promise<Map<string, number>> {
  const rows = await db.selectFrom('user_groups').select(['id', 'name']).where('realm_id', '=', realmId).where('is_system_group', '=', 1).execute();
  return new Map(rows.map((r) => [r.name, r.id]));
}

export async function allSubgroupEdges(db: Tx, realmId: number): Promise<Array<{ group_id: number; subgroup_id: number }>> {
  return db
    .selectFrom('user_group_subgroups')
    .innerJoin('user_groups', 'user_groups.id', 'user_group_subgroups.group_id')
    .select(['user_group_subgroups.group_id', 'user_group_subgroups.subgroup_id'])
    .where('user_groups.realm_id', '=', realmId)
    .execute();
}

export async function allMemberEdges(db: Tx, realmId: number): Promise<Array<{ group_id: number; user_id: number }>> {
  return db
    .selectFrom('user_group_members')
    .innerJoin('user_groups', 'user_groups.id', 'user_group_members.group_id')
    .select(['user_group_members.group_id', 'user_group_members.user_id'])
    .where('user_groups.realm_id', '=', realmId)
    .execute();
}

export async function insertGroup(
  db: Tx,
  row: { realm_id: number; name: string; description: string; creator_id: number | null; date_created: number; settings_json: string },
): Promise<GroupRow> {
  return db.insertInto('user_groups').values({ ...row, is_system_group: 0 }).returningAll().executeTakeFirstOrThrow();
}

export async function updateGroup(db: Tx, id: number, patch: { name?: string; description?: string; deactivated?: number; settings_json?: string }): Promise<void> {
  await db.updateTable('user_groups').set(patch).where('id', '=', id).execute();
}

export async function groupByName(db: Tx, realmId: number, name: string): Promise<GroupRow | undefined> {
  return db.selectFrom('user_groups').selectAll().where('realm_id', '=', realmId).where('name', '=', name).executeTakeFirst();
}

export async function addGroupMembers(db: Tx, groupId: number, userIds: number[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.insertInto('user_group_members').values(userIds.map((user_id) => ({ group_id: groupId, user_id }))).execute();
}

export async function removeGroupMembers(db: Tx, groupId: number, userIds: number[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.deleteFrom('user_group_members').where('group_id', '=', groupId).where('user_id', 'in', userIds).execute();
}

export async function addGroupSubgroups(db: Tx, groupId: number, subgroupIds: number[]): Promise<void> {
  if (subgroupIds.length === 0) return;
  await db.insertInto('user_group_subgroups').values(subgroupIds.map((subgroup_id) => ({ group_id: groupId, subgroup_id }))).execute();
}

export async function removeGroupSubgroups(db: Tx, groupId: number, subgroupIds: number[]): Promise<void> {
  if (subgroupIds.length === 0) return;
  await db.deleteFrom('user_group_subgroups').where('group_id', '=', groupId).where('subgroup_id', 'in', subgroupIds).execute();
}
