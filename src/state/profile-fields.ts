/** The custom_profile_fields section of POST /register. */
import { feature, type StateProvider } from './registry.ts';
import { listProfileFields } from '../actions/profile-fields.ts';
import { customProfileFieldTypes } from '../lib/profile-fields.ts';

const provider: StateProvider = {
  types: ['custom_profile_fields'],
  async fetch(svc) {
    return {
      custom_profile_fields: await listProfileFields(svc),
      custom_profile_field_types: customProfileFieldTypes(),
    };
  },
};

export default feature({
  state: [provider],
});
