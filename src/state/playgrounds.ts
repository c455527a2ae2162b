/** `realm_playgrounds` in POST /register: the organization's code playgrounds. */
import { feature } from './registry.ts';
import { realmPlaygrounds } from '../actions/playgrounds.ts';

export default feature({
  state: [
    {
      types: ['realm_playgrounds'],
      async fetch(svc) {
        return { realm_playgrounds: await realmPlaygrounds(svc.store.db, svc.realmId) };
      },
    },
  ],
});
