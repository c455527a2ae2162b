/** User groups. */
import { route } from '../route.ts';
import { ApiError } from '../../lib/errors.ts';
import { p, type Param } from '../params.ts';
import { groupSettingUpdate, groupSettingValue, type GroupSettingValue } from '../../actions/group-settings.ts';
import {
  createGroup,
  deactivateGroup,
  getGroupMembers,
  getGroupSubgroups,
  isGroupMember,
  GROUP_SETTINGS,
  listGroups,
  updateGroupInfo,
  updateGroupMembership,
  type GroupSettingName,
} from '../../actions/user-groups.ts';

const settingParams = Object.fromEntries(GROUP_SETTINGS.map((n) => [n, p.json(groupSettingValue, 'integer|object').optional()])) as Record<GroupSettingName, Param<GroupSettingValue | undefined>>;

const updateParams = Object.fromEntries(GROUP_SETTINGS.map((n) => [n, p.json(groupSettingUpdate, 'object').optional()])) as Record<
  GroupSettingName,
  Param<{ new: GroupSettingValue; old?: GroupSettingValue } | undefined>
>;

export default [
  route({
    method: 'PATCH',
    path: '/user_groups/:user_group_id(^\\d+$)',
    auth: 'user',
    summary: 'Update a user group',
    pathParams: { user_group_id: p.pathInt() },
    params: { name: p.str().optional(), description: p.str().optional(), deactivated: p.bool().optional(), ...updateParams },
    handler: async (ctx, a) => {
      const settings: Partial<Record<GroupSettingName, { new: GroupSettingValue; old?: GroupSettingValue }>> = {};
      for (const n of GROUP_SETTINGS) if (a[n] !== undefined) settings[n] = a[n];
      await updateGroupInfo(ctx.svc, ctx.user, a.user_group_id, { name: a.name, description: a.description, deactivated: a.deactivated, settings });
    },
  }),
  route({
    method: 'POST',
    path: '/user_groups/:user_group_id(^\\d+$)/deactivate',
    auth: 'user',
    summary: 'Deactivate a user group',
    pathParams: { user_group_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => {
      await deactivateGroup(ctx.svc, ctx.user, a.user_group_id);
    },
  }),
  route({
    method: 'GET',
    path: '/user_groups',
    auth: 'user',
    summary: 'Get user groups',
    params: { include_deactivated_groups: p.bool().default(false) },
    handler: async (ctx, a) => ({ user_groups: await listGroups(ctx.svc, a.include_deactivated_groups) }),
  }),
  route({
    method: 'POST',
    path: '/user_groups/create',
    auth: 'user',
    summary: 'Create a user group',
    params: { name: p.str(), description: p.str().default(''), members: p.intList(), subgroups: p.intList().default([]), ...settingParams },
    handler: (ctx, a) => {
      const settings: Partial<Record<GroupSettingName, GroupSettingValue>> = {};
      for (const n of GROUP_SETTINGS) if (a[n] !== undefined) settings[n] = a[n] as GroupSettingValue;
      return createGroup(ctx.svc, ctx.user, { name: a.name, description: a.description, members: a.members, subgroups: a.subgroups, settings });
    },
  }),
  route({
    method: 'POST',
    path: '/user_groups/:user_group_id(^\\d+$)/members',
    auth: 'user',
    summary: 'Update user group members',
    pathParams: { user_group_id: p.pathInt() },
    params: { add: p.intList().default([]), delete: p.intList().default([]), add_subgroups: p.intList().default([]), delete_subgroups: p.intList().default([]) },
    handler: async (ctx, a) => {
      if (!a.add.length && !a.delete.length && !a.add_subgroups.length && !a.delete_subgroups.length) {
        throw new ApiError('Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
      }
      await updateGroupMembership(ctx.svc, ctx.user, a.user_group_id, { add: a.add, remove: a.delete, addSubgroups: a.add_subgroups, removeSubgroups: a.delete_subgroups });
    },
  }),
  route({
    method: 'GET',
    path: '/user_groups/:user_group_id(^\\d+$)/members',
    auth: 'user',
    summary: 'Get user group members',
    pathParams: { user_group_id: p.pathInt() },
    params: { direct_member_only: p.bool().default(false) },
    handler: async (ctx, a) => ({ members: await getGroupMembers(ctx.svc, a.user_group_id, a.direct_member_only) }),
  }),
  route({
    method: 'POST',
    path: '/user_groups/:user_group_id(^\\d+$)/subgroups',
    auth: 'user',
    summary: 'Update subgroups of a user group',
    pathParams: { user_group_id: p.pathInt() },
    params: { add: p.intList().default([]), delete: p.intList().default([]) },
    handler: async (ctx, a) => {
      if (!a.add.length && !a.delete.length) throw new ApiError('Nothing to do. Specify at least one of "add" or "delete".');
      await updateGroupMembership(ctx.svc, ctx.user, a.user_group_id, { add: [], remove: [], addSubgroups: a.add, removeSubgroups: a.delete });
    },
  }),
  route({
    method: 'GET',
    path: '/user_groups/:user_group_id(^\\d+$)/subgroups',
    auth: 'user',
    summary: 'Get subgroups of a user group',
    pathParams: { user_group_id: p.pathInt() },
    params: { direct_subgroup_only: p.bool().default(false) },
    handler: async (ctx, a) => ({ subgroups: await getGroupSubgroups(ctx.svc, a.user_group_id, a.direct_subgroup_only) }),
  }),
  route({
    method: 'GET',
    path: '/user_groups/:user_group_id(^\\d+$)/members/:user_id(^\\d+$)',
    auth: 'user',
    summary: 'Get user group membership status',
    pathParams: { user_group_id: p.pathInt(), user_id: p.pathInt() },
    params: { direct_member_only: p.bool().default(false) },
    handler: async (ctx, a) => ({ is_user_group_member: await isGroupMember(ctx.svc, ctx.user, a.user_group_id, a.user_id, a.direct_member_only) }),
  }),
];
