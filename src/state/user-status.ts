/** The `user_status` section of POST /register. */
import { feature, type StateProvider } from './registry.ts';
import { userStatusState } from '../actions/user-status.ts';

const provider: StateProvider = {
  types: ['user_status'],
  async fetch(svc) {
    return { user_status: await userStatusState(svc) };
  },
};

export default feature({
  state: [provider],
});
