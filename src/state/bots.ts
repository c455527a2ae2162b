/** The `realm_bots` section of POST /register: every bot for administrators, one's own bots otherwise. */
import { feature, type StateProvider } from './registry.ts';
import { realmBots } from '../store/users.ts';
import { servicesOfBots } from '../store/bots.ts';
import { formatBotWith } from '../actions/bots-format.ts';
import { isAdminRole } from '../actions/users-format.ts';
import { cachedStreams } from '../actions/cache.ts';

const provider: StateProvider = {
  types: ['realm_bot'],
  async fetch(svc, opts) {
    const me = opts.user;
    const bots = await realmBots(svc.store.db, svc.realmId, isAdminRole(me.role) ? undefined : me.id);
    const services = await servicesOfBots(svc.store.db, bots.map((b) => b.id));
    const streams = await cachedStreams(svc);
    return { realm_bots: bots.map((b) => formatBotWith(b, services.filter((s) => s.user_id === b.id), streams)) };
  },
};

export default feature({
  state: [provider],
});
