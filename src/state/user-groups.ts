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
    // Clients without include_deactivated_groups (FL 294) get what the action set aside for them:
    // a remove for a deactivation, an add for a reactivation, nothing for a deactivated group's new name.
    user_group: (q, event, meta) =>
      q.opts.clientCapabilities.include_deactivated_groups === true || meta.withoutDeactivatedGroups === undefined ? event : meta.withoutDeactivatedGroups,
  },
});
