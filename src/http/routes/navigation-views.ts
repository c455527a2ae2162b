/** Saved navigation views: GET/POST /navigation_views, PATCH/DELETE /navigation_views/{fragment} (fragments may contain slashes). */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { badRequest } from '../../lib/errors.ts';
import { addNavigationView, editNavigationView, listNavigationViews, removeNavigationView } from '../../actions/navigation-views.ts';

/** A string with surrounding whitespace stripped that must not be empty (Zulip's strip_whitespace, min_length=1). */
const stripped = () =>
  p.custom<string>('string', (raw, name) => {
    const s = raw.trim();
    if (s === '') throw badRequest(`${name} cannot be blank`);
    return s;
  });

const fragmentPath = () =>
  p.custom<string>('string', (raw) => {
    const s = raw.trim();
    if (s === '') throw badRequest('fragment cannot be blank');
    return s;
  });

export default [
  route({
    method: 'GET',
    path: '/navigation_views',
    auth: 'user',
    summary: 'Get all navigation views',
    params: {},
    handler: (ctx) => listNavigationViews(ctx.svc, ctx.user),
  }),
  route({
    method: 'POST',
    path: '/navigation_views',
    auth: 'user',
    summary: 'Add a navigation view',
    params: { fragment: stripped(), is_pinned: p.bool(), name: stripped().optional() },
    handler: async (ctx, a) => {
      await addNavigationView(ctx.svc, ctx.user, a.fragment, a.is_pinned, a.name);
    },
  }),
  route({
    method: 'PATCH',
    path: '/navigation_views/*',
    auth: 'user',
    summary: 'Update the navigation view',
    pathParams: { '*': fragmentPath() },
    params: { is_pinned: p.bool().optional(), name: stripped().optional() },
    handler: async (ctx, a) => {
      await editNavigationView(ctx.svc, ctx.user, a['*'], a.is_pinned, a.name);
    },
  }),
  route({
    method: 'DELETE',
    path: '/navigation_views/*',
    auth: 'user',
    summary: 'Remove a navigation view',
    pathParams: { '*': fragmentPath() },
    params: {},
    handler: async (ctx, a) => {
      await removeNavigationView(ctx.svc, ctx.user, a['*']);
    },
  }),
];
