/** The `presence` section of POST /register: presences, presence_last_update_id, server_timestamp. */
import { feature, type StateProvider } from './registry.ts';
import { presenceData } from '../actions/presence.ts';

const provider: StateProvider = {
  types: ['presence'],
  async fetch(svc, opts) {
    // Spectators see no presence (Zulip: realm_presence_disabled for them).
    if (opts.spectator) return { presences: {}, server_timestamp: Date.now() / 1000 };
    // Clients taking modern presence events get the modern state too.
    const slim = opts.slimPresence || opts.clientCapabilities.simplified_presence_events === true;
    const data = await presenceData(svc, opts.user, { slim, lastUpdateId: null, historyLimitDays: opts.presenceHistoryLimitDays });
    return { presences: data.presences, presence_last_update_id: data.lastUpdateId, server_timestamp: Date.now() / 1000 };
  },
};

export default feature({
  state: [provider],
  filters: {
    // presence events carry every format; each queue keeps the one it asked for:
    // modern (simplified_presence_events capability, FL 419), slim (no email) or legacy.
    presence: (q, event) => {
      const { presences, email, ...legacy } = event;
      if (q.opts.clientCapabilities.simplified_presence_events === true) return { type: 'presence', presences };
      return q.opts.slimPresence ? legacy : { ...legacy, email };
    },
  },
});
