/** The `user_status` section of POST /register. */
import { registerState } from './registry.ts';
import { userStatusState } from '../actions/user-status.ts';

registerState({
  types: ['user_status'],
  async fetch(svc) {
    return { user_status: await userStatusState(svc) };
  },
});
