/** realm_user_groups in POST /register. */
import { feature, type StateProvider } from './registry.ts';
import { listGroups } from '../actions/user-groups.ts';

const provider: StateProvider = {
  // Zulip fills realm_user_groups for fetch type realm_user_groups; event type user_group asks for it too.
  types: ['user_group', 'realm_user_groups'],
  async fetch(svc) {
    return { realm_user_groups: await listGroups(svc, true) };
  },
};

export default feature({
  state: [provider],
});
