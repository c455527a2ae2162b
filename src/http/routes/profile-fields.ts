/** Custom profile fields (organization definitions) and users' profile data. */
import { route } from '../route.ts';
import { p, v } from '../params.ts';
import {
  createProfileField,
  deleteProfileFieldDef,
  listProfileFields,
  removeProfileData,
  reorderProfileFields,
  requireHuman,
  updateProfileData,
  updateProfileFieldDef,
  type ProfileDataItem,
} from '../../actions/profile-fields.ts';
import { checkFieldDataParam } from '../../lib/profile-fields.ts';

const fieldData = () => p.json(checkFieldDataParam, 'object');

export const profileDataList = p.json(
  v.list(v.object({ id: v.int(), value: v.nullable(v.union<string | number[]>(v.str(), v.list(v.int()))) })),
  'object[]',
);

export default [
  route({
    method: 'GET',
    path: '/realm/profile_fields',
    auth: 'user',
    summary: 'Get all custom profile fields',
    params: {},
    handler: async (ctx) => ({ custom_fields: await listProfileFields(ctx.svc) }),
  }),
  route({
    method: 'POST',
    path: '/realm/profile_fields',
    auth: 'user',
    summary: 'Create a custom profile field',
    params: {
      name: p.str().default(''),
      hint: p.str().default(''),
      field_type: p.int(),
      field_data: fieldData().default({}),
      display_in_profile_summary: p.bool().default(false),
      required: p.bool().default(false),
      editable_by_user: p.bool().default(true),
      use_for_user_matching: p.bool().default(false),
    },
    handler: async (ctx, a) => ({
      id: await createProfileField(ctx.svc, ctx.user, {
        name: a.name,
        hint: a.hint,
        fieldType: a.field_type,
        fieldData: a.field_data,
        displayInProfileSummary: a.display_in_profile_summary,
        required: a.required,
        editableByUser: a.editable_by_user,
        useForUserMatching: a.use_for_user_matching,
      }),
    }),
  }),
  route({
    method: 'PATCH',
    path: '/realm/profile_fields',
    auth: 'user',
    summary: 'Reorder custom profile fields',
    params: { order: p.intList() },
    handler: async (ctx, a) => {
      await reorderProfileFields(ctx.svc, ctx.user, a.order);
    },
  }),
  route({
    method: 'PATCH',
    path: '/realm/profile_fields/:field_id',
    auth: 'user',
    summary: 'Update a custom profile field',
    pathParams: { field_id: p.pathInt() },
    params: {
      name: p.str().optional(),
      hint: p.str().optional(),
      field_data: fieldData().optional(),
      display_in_profile_summary: p.bool().optional(),
      required: p.bool().optional(),
      editable_by_user: p.bool().optional(),
      use_for_user_matching: p.bool().optional(),
    },
    handler: async (ctx, a) => {
      await updateProfileFieldDef(ctx.svc, ctx.user, a.field_id, {
        name: a.name,
        hint: a.hint,
        fieldData: a.field_data,
        displayInProfileSummary: a.display_in_profile_summary,
        required: a.required,
        editableByUser: a.editable_by_user,
        useForUserMatching: a.use_for_user_matching,
      });
    },
  }),
  route({
    method: 'DELETE',
    path: '/realm/profile_fields/:field_id',
    auth: 'user',
    summary: 'Delete a custom profile field',
    pathParams: { field_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => {
      await deleteProfileFieldDef(ctx.svc, ctx.user, a.field_id);
    },
  }),
  route({
    method: 'PATCH',
    path: '/users/me/profile_data',
    auth: 'user',
    summary: 'Update your profile data',
    params: { data: profileDataList },
    handler: async (ctx, a) => {
      requireHuman(ctx.user);
      await updateProfileData(ctx.svc, ctx.user, ctx.user.id, a.data as ProfileDataItem[]);
    },
  }),
  route({
    method: 'DELETE',
    path: '/users/me/profile_data',
    auth: 'user',
    summary: 'Remove your profile data',
    params: { data: p.intList() },
    handler: async (ctx, a) => {
      requireHuman(ctx.user);
      await removeProfileData(ctx.svc, ctx.user, a.data);
    },
  }),
];
