/** Organization linkifiers: GET/PATCH /realm/linkifiers, POST /realm/filters, PATCH/DELETE /realm/filters/{filter_id}. */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { addLinkifier, editLinkifier, listLinkifiers, removeLinkifier, reorderLinkifiers } from '../../actions/linkifiers.ts';

export default [
  route({
    method: 'GET',
    path: '/realm/linkifiers',
    auth: 'user',
    summary: 'Get linkifiers',
    params: {},
    handler: (ctx) => listLinkifiers(ctx.svc),
  }),
  route({
    method: 'PATCH',
    path: '/realm/linkifiers',
    auth: 'user',
    summary: 'Reorder all linkifiers',
    params: { ordered_linkifier_ids: p.intList() },
    handler: async (ctx, a) => {
      await reorderLinkifiers(ctx.svc, ctx.user, a.ordered_linkifier_ids);
    },
  }),
  route({
    method: 'POST',
    path: '/realm/filters',
    auth: 'user',
    summary: 'Add a linkifier',
    params: { pattern: p.str(), url_template: p.str() },
    handler: (ctx, a) => addLinkifier(ctx.svc, ctx.user, a.pattern, a.url_template),
  }),
  route({
    method: 'PATCH',
    path: '/realm/filters/:filter_id(^\\d+$)',
    auth: 'user',
    summary: 'Update a linkifier',
    pathParams: { filter_id: p.pathInt() },
    params: { pattern: p.str(), url_template: p.str() },
    handler: async (ctx, a) => {
      await editLinkifier(ctx.svc, ctx.user, a.filter_id, a.pattern, a.url_template);
    },
  }),
  route({
    method: 'DELETE',
    path: '/realm/filters/:filter_id(^\\d+$)',
    auth: 'user',
    summary: 'Remove a linkifier',
    pathParams: { filter_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => {
      await removeLinkifier(ctx.svc, ctx.user, a.filter_id);
    },
  }),
];
