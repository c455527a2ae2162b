/** Bot storage: GET/PUT/DELETE /bot_storage. */
import { route } from '../route.ts';
import { p, v } from '../params.ts';
import { getBotStorage, putBotStorage, removeBotStorage } from '../../actions/bot-storage.ts';

const keys = () => p.json(v.list(v.str()), 'string[]').optional();

export default [
  route({
    method: 'GET',
    path: '/bot_storage',
    auth: 'user',
    summary: 'Get values from bot storage',
    params: { keys: keys() },
    handler: (ctx, a) => getBotStorage(ctx.svc, ctx.user, a.keys),
  }),
  route({
    method: 'PUT',
    path: '/bot_storage',
    auth: 'user',
    summary: 'Put values in bot storage',
    params: { storage: p.json(v.dict(v.str()), 'object') },
    handler: async (ctx, a) => {
      await putBotStorage(ctx.svc, ctx.user, a.storage);
    },
  }),
  route({
    method: 'DELETE',
    path: '/bot_storage',
    auth: 'user',
    summary: 'Remove values from bot storage',
    params: { keys: keys() },
    handler: async (ctx, a) => {
      await removeBotStorage(ctx.svc, ctx.user, a.keys);
    },
  }),
];
