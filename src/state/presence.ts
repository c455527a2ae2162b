/** The `presence` section of POST /register: presences, presence_last_update_id, server_timestamp. */
import { registerState } from './registry.ts';
import { presenceData } from '../actions/presence.ts';

registerState({
  types: ['presence'],
  async fetch(svc, opts) {
    // Clients taking modern presence events get the modern state too.
    const slim = opts.slimPresence || opts.clientCapabilities.simplified_presence_events === true;
    const data = await presenceData(svc, opts.user, { slim, lastUpdateId: null, historyLimitDays: opts.presenceHistoryLimitDays });
    return { presences: data.presences, presence_last_update_id: data.lastUpdateId, server_timestamp: Date.now() / 1000 };
  },
});
