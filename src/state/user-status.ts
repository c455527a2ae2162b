/** The `user_status` section of POST /register. */
import { feature, type StateProvider } from './registry.ts';
import { userStatusState } from '../actions/user-status.ts';

const provider: StateProvider = {
  types: ['user_status'],
  async fetch(svc, opts) {
    // Statuses need an account (Zulip sends spectators none).
    return { user_status: opts.spectator ? {} : await userStatusState(svc) };
  },
};

export default feature({
  state: [provider],
});
