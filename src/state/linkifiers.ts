/**
 * `realm_linkifiers` in POST /register: the organization's linkifiers in
 * processing order. `realm_filters` is its legacy form, which Zulip now
 * always sends empty (clients use realm_linkifiers).
 */
import { feature, type StateProvider } from './registry.ts';
import { realmLinkifiers } from '../actions/linkifiers.ts';

const provider: StateProvider = {
  types: ['realm_linkifiers', 'realm_filters'],
  async fetch(svc, _opts, wants) {
    const out: Record<string, unknown> = {};
    if (wants('realm_linkifiers')) out.realm_linkifiers = await realmLinkifiers(svc.store.db, svc.realmId);
    if (wants('realm_filters')) out.realm_filters = [];
    return out;
  },
};

export default feature({
  state: [provider],
});
