/** Allowed email domains: GET/POST /realm/domains, PATCH/DELETE /realm/domains/{domain}. */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { addRealmDomain, changeRealmDomain, listRealmDomains, removeRealmDomain } from '../../actions/realm-domains.ts';

export default [
  route({
    method: 'GET',
    path: '/realm/domains',
    auth: 'user',
    summary: 'Get the allowed email domains',
    params: {},
    handler: async (ctx) => ({ domains: await listRealmDomains(ctx.svc) }),
  }),
  route({
    method: 'POST',
    path: '/realm/domains',
    auth: 'user',
    summary: 'Add an allowed email domain',
    params: { domain: p.str(), allow_subdomains: p.bool() },
    handler: (ctx, a) => addRealmDomain(ctx.svc, ctx.user, a.domain, a.allow_subdomains),
  }),
  route({
    method: 'PATCH',
    path: '/realm/domains/:domain',
    auth: 'user',
    summary: 'Change an allowed email domain',
    pathParams: { domain: p.pathStr() },
    params: { allow_subdomains: p.bool() },
    handler: async (ctx, a) => {
      await changeRealmDomain(ctx.svc, ctx.user, a.domain, a.allow_subdomains);
      return {};
    },
  }),
  route({
    method: 'DELETE',
    path: '/realm/domains/:domain',
    auth: 'user',
    summary: 'Remove an allowed email domain',
    pathParams: { domain: p.pathStr() },
    params: {},
    handler: async (ctx, a) => {
      await removeRealmDomain(ctx.svc, ctx.user, a.domain);
      return {};
    },
  }),
];
