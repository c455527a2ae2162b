/** The `realm_emoji` section of POST /register: the organization's custom emoji by ID (deactivated ones included, as Zulip). */
import { feature, type StateProvider } from './registry.ts';
import { realmEmojiState } from '../actions/realm-emoji.ts';

const provider: StateProvider = {
  types: ['realm_emoji'],
  async fetch(svc) {
    return { realm_emoji: await realmEmojiState(svc.store.db, svc.realmId) };
  },
};

export default feature({
  state: [provider],
});
