/** The `realm_bots` section of POST /register: every bot for administrators, one's own bots otherwise. */
import { feature, type StateProvider } from './registry.ts';
import { servicesOfBots } from '../store/bots.ts';
import { formatBotWith } from '../actions/bots-format.ts';
import { isAdminRole } from '../actions/users-format.ts';
import { cachedBots, cachedStreams } from '../actions/cache.ts';
import { INTEGRATIONS } from '../actions/incoming-webhooks.ts';

const provider: StateProvider = {
  types: ['realm_bot'],
  async fetch(svc, opts) {
    const me = opts.user;
    const bots = await cachedBots(svc, isAdminRole(me.role) ? undefined : me.id);
    const services = await servicesOfBots(svc.store.db, bots.map((b) => b.id));
    const streams = await cachedStreams(svc);
    return { realm_bots: bots.map((b) => formatBotWith(b, services.filter((s) => s.user_id === b.id), streams)) };
  },
};

/**
 * The integrations a bot can be made for: the incoming webhooks this server
 * accepts (`/api/v1/external/<name>`), with the event types a URL may filter
 * on and the URL parameters the web client offers; no embedded bots (they
 * are not enabled).
 */
const integrations: StateProvider = {
  types: ['realm_incoming_webhook_bots', 'realm_embedded_bots'],
  async fetch(_svc, _opts, wants) {
    const out: Record<string, unknown> = {};
    if (wants('realm_incoming_webhook_bots')) {
      out.realm_incoming_webhook_bots = Object.entries(INTEGRATIONS).map(([name, integration]) => ({
        name,
        display_name: integration.displayName ?? integration.name,
        all_event_types: integration.eventTypes ?? null,
        config_options: [],
        url_options: integration.urlOptions ?? [],
      }));
    }
    if (wants('realm_embedded_bots')) out.realm_embedded_bots = [];
    return out;
  },
};

export default feature({
  state: [provider, integrations],
});
