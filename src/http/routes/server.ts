/** Unauthenticated endpoints about the server itself. */
import { route } from '../route.ts';
import { serverSettings } from '../../actions/server-settings.ts';

export default [
  route({
    method: 'GET',
    path: '/server_settings',
    auth: 'none',
    summary: 'Server and organization settings needed before login',
    params: {},
    handler: (ctx) => serverSettings(ctx.svc),
  }),
];
