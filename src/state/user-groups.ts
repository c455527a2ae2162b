/** realm_user_groups in POST /register. */
import { feature, type StateProvider } from './registry.ts';
import { listGroups } from '../actions/user-groups.ts';

const provider: StateProvider = {
  // Zulip fills realm_user_groups for fetch type realm_user_groups; event type user_group asks for it too.
  types: ['user_group', 'realm_user_groups'],
  async fetch(svc, opts) {
    // Deactivated groups only for clients that handle them (the include_deactivated_groups capability, FL 294).
    return { realm_user_groups: await listGroups(svc, opts.clientCapabilities.include_deactivated_groups === true) };
  },
};

export default feature({
  state: [provider],
  filters: {
    // Clients without include_deactivated_groups (FL 294) get a remove event when a group is deactivated.
    user_group: (q, event) => {
      if (q.opts.clientCapabilities.include_deactivated_groups === true || event.op !== 'update') return event;
      return (event.data as Record<string, unknown>).deactivated === true ? { type: 'user_group', op: 'remove', group_id: event.group_id } : event;
    },
  },
});
