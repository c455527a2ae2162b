/** Custom emoji: GET /realm/emoji, POST/DELETE /realm/emoji/{emoji_name}. */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { deleteRealmEmoji, listRealmEmoji, uploadRealmEmoji } from '../../actions/realm-emoji.ts';

export default [
  route({
    method: 'GET',
    path: '/realm/emoji',
    auth: 'user',
    summary: 'Get all custom emoji',
    params: {},
    handler: (ctx) => listRealmEmoji(ctx.svc),
  }),
  route({
    method: 'POST',
    path: '/realm/emoji/:emoji_name',
    auth: 'user',
    summary: 'Upload custom emoji',
    pathParams: { emoji_name: p.pathStr() },
    params: {},
    handler: async (ctx, a) => {
      await uploadRealmEmoji(ctx.svc, ctx.user, a.emoji_name, ctx.req.files ?? []);
    },
  }),
  route({
    method: 'DELETE',
    path: '/realm/emoji/:emoji_name',
    auth: 'user',
    summary: 'Deactivate custom emoji',
    pathParams: { emoji_name: p.pathStr() },
    params: {},
    handler: async (ctx, a) => {
      await deleteRealmEmoji(ctx.svc, ctx.user, a.emoji_name);
    },
  }),
];
