/** `realm_playgrounds` in POST /register: the organization's code playgrounds. */
import { registerState } from '../events/state.ts';
import { realmPlaygrounds } from '../actions/playgrounds.ts';

registerState({
  types: ['realm_playgrounds'],
  async fetch(svc) {
    return { realm_playgrounds: await realmPlaygrounds(svc.store.db, svc.realmId) };
  },
});
