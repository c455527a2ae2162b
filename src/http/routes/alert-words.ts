/** Alert words: GET/POST/DELETE /users/me/alert_words. */
import { route } from '../route.ts';
import { p, v } from '../params.ts';
import { addAlertWords, listAlertWords, removeAlertWords } from '../../actions/alert-words.ts';

export default [
  route({
    method: 'GET',
    path: '/users/me/alert_words',
    auth: 'user',
    summary: 'Get all alert words',
    params: {},
    handler: async (ctx) => ({ alert_words: await listAlertWords(ctx.svc, ctx.user) }),
  }),
  route({
    method: 'POST',
    path: '/users/me/alert_words',
    auth: 'user',
    summary: 'Add alert words',
    params: { alert_words: p.json(v.list(v.str({ maxLength: 100 })), 'string[]') },
    handler: async (ctx, a) => ({ alert_words: await addAlertWords(ctx.svc, ctx.user, a.alert_words) }),
  }),
  route({
    method: 'DELETE',
    path: '/users/me/alert_words',
    auth: 'user',
    summary: 'Remove alert words',
    params: { alert_words: p.json(v.list(v.str()), 'string[]') },
    handler: async (ctx, a) => ({ alert_words: await removeAlertWords(ctx.svc, ctx.user, a.alert_words) }),
  }),
];
