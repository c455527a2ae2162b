/** The custom_profile_fields section of POST /register. */
import { registerState } from './registry.ts';
import { listProfileFields } from '../actions/profile-fields.ts';
import { customProfileFieldTypes } from '../lib/profile-fields.ts';

registerState({
  types: ['custom_profile_fields'],
  async fetch(svc) {
    return {
      custom_profile_fields: await listProfileFields(svc),
      custom_profile_field_types: customProfileFieldTypes(),
    };
  },
});
