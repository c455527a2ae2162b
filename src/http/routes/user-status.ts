/** POST /users/me/status, GET /users/{user_id}/status. */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { getUserStatus, updateUserStatus, updateUserStatusByAdmin } from '../../actions/user-status.ts';

export default [
  route({
    method: 'POST',
    path: '/users/me/status',
    auth: 'user',
    summary: 'Update your status',
    params: {
      status_text: p.str().optional(),
      away: p.bool().optional(),
      emoji_name: p.str().optional(),
      emoji_code: p.str().optional(),
      reaction_type: p.str().optional(),
    },
    handler: async (ctx, a) => {
      await updateUserStatus(ctx.svc, ctx.user, {
        statusText: a.status_text,
        away: a.away,
        emojiName: a.emoji_name,
        emojiCode: a.emoji_code,
        reactionType: a.reaction_type,
      });
    },
  }),
  route({
    method: 'GET',
    path: '/users/:user_id(^\\d+$)/status',
    auth: 'user',
    summary: "Get a user's status",
    pathParams: { user_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => ({ status: await getUserStatus(ctx.svc, a.user_id) }),
  }),
  route({
    method: 'POST',
    path: '/users/:user_id(^\\d+$)/status',
    auth: 'user',
    summary: "Update a user's status (administrators)",
    pathParams: { user_id: p.pathInt() },
    params: {
      status_text: p.str().optional(),
      emoji_name: p.str().optional(),
      emoji_code: p.str().optional(),
      reaction_type: p.str().optional(),
    },
    handler: async (ctx, a) => {
      await updateUserStatusByAdmin(ctx.svc, ctx.user, a.user_id, {
        statusText: a.status_text,
        emojiName: a.emoji_name,
        emojiCode: a.emoji_code,
        reactionType: a.reaction_type,
      });
    },
  }),
];
