/** The custom_profile_fields section of POST /register. */
import { feature, type StateProvider } from './registry.ts';
import { listProfileFields } from '../actions/profile-fields.ts';
import { customProfileFieldTypes } from '../lib/profile-fields.ts';

const provider: StateProvider = {
  types: ['custom_profile_fields'],
  async fetch(svc, opts) {
    return {
      // Spectators see no one's full profile, so no fields (as Zulip).
      custom_profile_fields: opts.spectator ? [] : await listProfileFields(svc),
      custom_profile_field_types: customProfileFieldTypes(),
    };
  },
};

export default feature({
  state: [provider],
});
