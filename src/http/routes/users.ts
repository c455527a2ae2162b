/** Users: reading accounts, and fetching an API key. */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { getOwnUser, getUser, listUsers, requireSpectatorAccess } from '../../actions/users-read.ts';
import { fetchApiKey, fetchOwnApiKey } from '../../actions/auth.ts';

export default [
  route({
    method: 'POST',
    path: '/fetch_api_key',
    auth: 'none',
    summary: 'Fetch an API key (production)',
    // The browser logs in with POST /accounts/login/, which never hands out the API key.
    noSessionMirror: true,
    params: { username: p.str(), password: p.str() },
    handler: (ctx, a) => fetchApiKey(ctx.svc, a.username, a.password),
  }),
  route({
    method: 'POST',
    path: '/fetch_api_key',
    auth: 'user',
    summary: "The logged-in user's API key, given their password again (the web client's Settings)",
    sessionOnly: true,
    params: { password: p.str().default('') },
    handler: (ctx, a) => fetchOwnApiKey(ctx.svc, ctx.user, a.password),
  }),
  route({
    method: 'GET',
    path: '/users',
    auth: 'optional',
    summary: 'Get all users (anonymously too, where the organization allows public access)',
    params: {
      client_gravatar: p.bool().default(true),
      include_custom_profile_fields: p.bool().default(false),
      user_ids: p.intList().optional(),
    },
    handler: async (ctx, a) => ({
      members: await listUsers(ctx.svc, ctx.maybeUser ?? (await requireSpectatorAccess(ctx.svc)), {
        clientGravatar: a.client_gravatar,
        includeCustomProfileFields: a.include_custom_profile_fields,
        userIds: a.user_ids,
      }),
    }),
  }),
  route({
    method: 'GET',
    path: '/users/me',
    auth: 'user',
    summary: 'Get own user',
    params: {},
    handler: (ctx) => getOwnUser(ctx.svc, ctx.user),
  }),
  route({
    method: 'GET',
    path: '/users/:user_id(^\\d+$)',
    auth: 'user',
    summary: 'Get a user',
    pathParams: { user_id: p.pathInt() },
    params: {
      client_gravatar: p.bool().default(true),
      include_custom_profile_fields: p.bool().default(false),
    },
    handler: async (ctx, a) => ({
      user: await getUser(ctx.svc, ctx.user, { id: a.user_id }, {
        clientGravatar: a.client_gravatar,
        includeCustomProfileFields: a.include_custom_profile_fields,
      }),
    }),
  }),
  route({
    method: 'GET',
    path: '/users/:email',
    auth: 'user',
    summary: 'Get a user by email',
    pathParams: { email: p.pathStr() },
    params: {
      client_gravatar: p.bool().default(true),
      include_custom_profile_fields: p.bool().default(false),
    },
    handler: async (ctx, a) => ({
      user: await getUser(ctx.svc, ctx.user, { email: a.email }, {
        clientGravatar: a.client_gravatar,
        includeCustomProfileFields: a.include_custom_profile_fields,
      }),
    }),
  }),
];
