/** Presence: reporting your own, reading the organization's or one user's. */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { realmPresenceResponse, updatePresence, userPresence } from '../../actions/presence.ts';

export default [
  route({
    method: 'POST',
    path: '/users/me/presence',
    auth: 'user',
    summary: 'Update your presence (and fetch everyone else\'s)',
    params: {
      status: p.str(),
      last_update_id: p.int().optional(),
      history_limit_days: p.int().optional(),
      new_user_input: p.bool().default(false),
      ping_only: p.bool().default(false),
      slim_presence: p.bool().default(false),
    },
    handler: (ctx, a) =>
      updatePresence(ctx.svc, ctx.user, {
        status: a.status,
        lastUpdateId: a.last_update_id,
        historyLimitDays: a.history_limit_days,
        pingOnly: a.ping_only,
        slimPresence: a.slim_presence,
        clientName: ctx.clientName,
      }),
  }),
  route({
    method: 'GET',
    path: '/realm/presence',
    auth: 'user',
    summary: 'Get presence of all users',
    params: {},
    handler: (ctx) => realmPresenceResponse(ctx.svc, ctx.user),
  }),
  route({
    method: 'GET',
    path: '/users/:user_id_or_email/presence',
    auth: 'user',
    summary: 'Get a user\'s presence',
    pathParams: { user_id_or_email: p.pathStr() },
    params: {},
    handler: (ctx, a) => userPresence(ctx.svc, ctx.user, a.user_id_or_email),
  }),
];
