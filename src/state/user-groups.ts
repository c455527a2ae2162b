/** realm_user_groups in POST /register. */
import { registerState } from '../events/state.ts';
import { listGroups } from '../actions/user-groups.ts';

registerState({
  types: ['user_group'],
  async fetch(svc) {
    return { realm_user_groups: await listGroups(svc, true) };
  },
});
