/** Organization data exports: POST/GET /export/realm, DELETE /export/realm/{export_id}, GET /export/realm/consents. */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { deleteRealmExport, EXPORT_TYPES, exportConsents, listRealmExports, requestRealmExport } from '../../actions/realm-export.ts';

export default [
  route({
    method: 'POST',
    path: '/export/realm',
    auth: 'user',
    summary: 'Create a data export',
    params: { export_type: p.enumStr(EXPORT_TYPES).default('public') },
    handler: (ctx, a) => requestRealmExport(ctx.svc, ctx.user, a.export_type),
  }),
  route({
    method: 'GET',
    path: '/export/realm',
    auth: 'user',
    summary: 'Get all data exports',
    params: {},
    handler: (ctx) => listRealmExports(ctx.svc, ctx.user),
  }),
  route({
    method: 'DELETE',
    path: '/export/realm/:export_id(^\\d+$)',
    auth: 'user',
    summary: 'Delete a data export',
    pathParams: { export_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => {
      await deleteRealmExport(ctx.svc, ctx.user, a.export_id);
    },
  }),
  route({
    method: 'GET',
    path: '/export/realm/consents',
    auth: 'user',
    summary: 'Get data export consent state',
    params: {},
    handler: (ctx) => exportConsents(ctx.svc, ctx.user),
  }),
];
