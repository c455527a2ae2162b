/** Muting users: POST/DELETE /users/me/muted_users/{muted_user_id}. */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { muteUser, unmuteUser } from '../../actions/muted-users.ts';

export default [
  route({
    method: 'POST',
    path: '/users/me/muted_users/:muted_user_id(^\\d+$)',
    auth: 'user',
    summary: 'Mute a user',
    pathParams: { muted_user_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => {
      await muteUser(ctx.svc, ctx.user, a.muted_user_id);
    },
  }),
  route({
    method: 'DELETE',
    path: '/users/me/muted_users/:muted_user_id(^\\d+$)',
    auth: 'user',
    summary: 'Unmute a user',
    pathParams: { muted_user_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => {
      await unmuteUser(ctx.svc, ctx.user, a.muted_user_id);
    },
  }),
];
