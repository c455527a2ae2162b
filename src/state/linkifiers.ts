/**
 * `realm_linkifiers` in POST /register: the organization's linkifiers in
 * processing order, for clients with the linkifier_url_template
 * capability. `realm_filters` is its legacy form, which Zulip now always
 * sends empty (clients use realm_linkifiers).
 */
import { feature, type StateProvider } from './registry.ts';
import { realmLinkifiers } from '../actions/linkifiers.ts';

const provider: StateProvider = {
  types: ['realm_linkifiers', 'realm_filters'],
  async fetch(svc, opts, wants) {
    const out: Record<string, unknown> = {};
    // Only for clients that read URL templates (the linkifier_url_template capability, FL 176): others
    // would build links from them as from the old format strings, so Zulip sends them none.
    if (wants('realm_linkifiers')) out.realm_linkifiers = opts.clientCapabilities.linkifier_url_template === true ? await realmLinkifiers(svc.store.db, svc.realmId) : [];
    if (wants('realm_filters')) out.realm_filters = [];
    return out;
  },
};

export default feature({
  state: [provider],
});
