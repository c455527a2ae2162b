/** Administering users: create, update name/role, deactivate, reactivate, API key regeneration. */
import { profileDataList } from './profile-fields.ts';
import { route } from '../route.ts';
import { p, v, type ParsedParams } from '../params.ts';
import { ApiError } from '../../lib/errors.ts';
import {
  createUserByAdmin,
  deactivateOwnUser,
  deactivateUserByAdmin,
  reactivateUserByAdmin,
  regenerateOwnApiKey,
  updateUserByAdmin, updateUserByEmail,
  ROLES,
  NO_DEACTIVATION_ACTIONS,
} from '../../actions/users-admin.ts';

/**
 * The `actions` object of DELETE /users/{id}: optional booleans, unknown keys
 * rejected (`Argument "x" at actions["x"] is unexpected`).
 */
const ACTION_KEYS = ['delete_profile', 'delete_public_channel_messages', 'delete_private_channel_messages', 'delete_direct_messages'] as const;
const deactivationActions = v.object(
  { delete_profile: v.bool(), delete_public_channel_messages: v.bool(), delete_private_channel_messages: v.bool(), delete_direct_messages: v.bool() },
  { optional: ACTION_KEYS },
);

const updateUserParams = {
  full_name: p.str().optional(),
  role: p.json(v.int(), 'integer').optional(),
  profile_data: profileDataList.optional(),
};

function updateUserInput(a: ParsedParams<typeof updateUserParams>) {
  if (a.role !== undefined && !ROLES.includes(a.role)) throw new ApiError('Invalid role');
  return { fullName: a.full_name, role: a.role, profileData: a.profile_data };
}

export default [
  route({
    method: 'POST',
    path: '/users',
    auth: 'user',
    summary: 'Create a user',
    params: { email: p.str(), password: p.str(), full_name: p.str() },
    handler: (ctx, a) => createUserByAdmin(ctx.svc, ctx.user, { email: a.email, password: a.password, fullName: a.full_name }),
  }),
  route({
    method: 'PATCH',
    path: '/users/:user_id(^\\d+$)',
    auth: 'user',
    summary: 'Update a user',
    pathParams: { user_id: p.pathInt() },
    params: updateUserParams,
    handler: async (ctx, a) => {
      await updateUserByAdmin(ctx.svc, ctx.user, a.user_id, updateUserInput(a));
    },
  }),
  route({
    method: 'PATCH',
    path: '/users/:email',
    auth: 'user',
    summary: 'Update a user by email',
    pathParams: { email: p.pathStr() },
    params: updateUserParams,
    handler: async (ctx, a) => {
      await updateUserByEmail(ctx.svc, ctx.user, a.email, updateUserInput(a));
    },
  }),
  route({
    method: 'DELETE',
    path: '/users/:user_id(^\\d+$)',
    auth: 'user',
    summary: 'Deactivate a user',
    pathParams: { user_id: p.pathInt() },
    params: {
      actions: p.json(deactivationActions, 'object').optional(),
      deactivation_notification_comment: p.str({ maxLength: 2000 }).optional(),
    },
    handler: (ctx, a) =>
      deactivateUserByAdmin(ctx.svc, ctx.user, a.user_id, {
        actions: a.actions && { ...NO_DEACTIVATION_ACTIONS, ...a.actions },
        comment: a.deactivation_notification_comment,
      }),
  }),
  route({
    method: 'DELETE',
    path: '/users/me',
    auth: 'user',
    summary: 'Deactivate own user',
    params: {},
    handler: (ctx) => deactivateOwnUser(ctx.svc, ctx.user),
  }),
  route({
    method: 'POST',
    path: '/users/:user_id(^\\d+$)/reactivate',
    auth: 'user',
    summary: 'Reactivate a user',
    pathParams: { user_id: p.pathInt() },
    params: {},
    handler: (ctx, a) => reactivateUserByAdmin(ctx.svc, ctx.user, a.user_id),
  }),
  route({
    method: 'POST',
    path: '/users/me/api_key/regenerate',
    auth: 'user',
    summary: 'Regenerate own API key',
    params: {},
    handler: (ctx) => regenerateOwnApiKey(ctx.svc, ctx.user, ctx.sessionIdHash),
  }),
];
