/**
 * Custom profile fields: the organization's field definitions (admins) and
 * users' values for them, with the events Zulip sends.
 */
import { lockNamesOf } from '../store/locks.ts';
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';
import { userById } from '../store/users.ts';
import { cachedActiveUserIds, cachedUsers } from './cache.ts';
import { transaction, type Tx } from '../store/db.ts';
import {
  countSummaryFields,
  deleteProfileField,
  deleteProfileValue,
  deleteValuesNotIn,
  insertProfileField,
  profileFieldById,
  profileFieldByName,
  profileFieldsForRealm,
  profileValue,
  updateProfileField,
  upsertProfileValue,
  type ProfileFieldRow,
} from '../store/profile-fields.ts';
import { ApiError, badRequest, requireAdmin } from '../lib/errors.ts';
import {
  DEFAULT_EXTERNAL_ACCOUNTS,
  FIELD_TYPE,
  MAX_SUMMARY_FIELDS,
  formatField,
  isDefaultExternalField,
  isRenderable,
  parseFieldData,
  validateFieldDefinition,
  validateFieldValue,
  type FieldData,
} from '../lib/profile-fields.ts';
import { renderMarkdownOrText, type MarkdownContext } from '../markdown/index.ts';
import { isAdminRole } from './users-format.ts';
import { userIdsWhoCanAccess } from './user-access.ts';

export const notFound = (id: number): ApiError => badRequest(`Field id ${id} not found.`);
const summaryLimit = (): ApiError => badRequest(`Only ${MAX_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`);
const duplicateLabel = (): ApiError => badRequest('A field with that label already exists.');
const notEditable = (): ApiError => badRequest('You are not allowed to change this field. Contact an administrator to update it.');

export function requireHuman(user: UserRow): void {
  if (user.is_bot) throw badRequest('This endpoint does not accept bot requests.');
}

function checkAdmin(actor: UserRow): void {
  if (!isAdminRole(actor.role)) throw requireAdmin();
}

export async function listProfileFields(svc: Services): Promise<Record<string, unknown>[]> {
  return (await profileFieldsForRealm(svc.store.db, svc.realmId)).map(formatField);
}

/** The custom_profile_fields event (the full list) to every active user. */
async function notifyFields(svc: Services): Promise<void> {
  const fields = await listProfileFields(svc);
  svc.bus.send({ type: 'custom_profile_fields', fields }, await cachedActiveUserIds(svc));
}

export interface FieldInput {
  name: string;
  hint: string;
  fieldType: number;
  fieldData: FieldData;
  displayInProfileSummary: boolean;
  required: boolean;
  editableByUser: boolean;
  useForUserMatching: boolean;
}

export async function createProfileField(svc: Services, actor: UserRow, input: FieldInput): Promise<number> {
  checkAdmin(actor);
  const name = input.name.trim();
  const id = await transaction(svc.store, async (tx) => {
    // Labels are unique, and few fields show in the summary: of two changes at once, the second counts the first.
    await lockNamesOf(svc.store, tx, 'custom_profile_fields');
    if (input.displayInProfileSummary && (await countSummaryFields(tx, svc.realmId)) >= MAX_SUMMARY_FIELDS) throw summaryLimit();
    validateFieldDefinition(name, input.hint, input.fieldType, input.fieldData, input.displayInProfileSummary, input.useForUserMatching);
    let row: Omit<ProfileFieldRow, 'id' | 'sort_order'>;
    const common = {
      realm_id: svc.realmId,
      field_type: input.fieldType,
      display_in_profile_summary: input.displayInProfileSummary ? 1 : 0,
      required: input.required ? 1 : 0,
      editable_by_user: input.editableByUser ? 1 : 0,
      use_for_user_matching: input.useForUserMatching ? 1 : 0,
    };
    if (isDefaultExternalField(input.fieldType, input.fieldData)) {
      const subtype = input.fieldData.subtype as string;
      const preset = DEFAULT_EXTERNAL_ACCOUNTS[subtype];
      row = { ...common, name: preset.name, hint: preset.hint, field_data: JSON.stringify({ subtype }) };
    } else {
      const keepsData = input.fieldType === FIELD_TYPE.SELECT || input.fieldType === FIELD_TYPE.EXTERNAL_ACCOUNT;
      row = { ...common, name, hint: input.hint, field_data: keepsData ? JSON.stringify(input.fieldData) : '' };
    }
    if (await profileFieldByName(tx, svc.realmId, row.name)) throw duplicateLabel();
    return (await insertProfileField(tx, row)).id;
  });
  await notifyFields(svc);
  return id;
}

export interface FieldPatch {
  name?: string;
  hint?: string;
  fieldData?: FieldData;
  displayInProfileSummary?: boolean;
  required?: boolean;
  editableByUser?: boolean;
  useForUserMatching?: boolean;
}

export async function updateProfileFieldDef(svc: Services, actor: UserRow, fieldId: number, patch: FieldPatch): Promise<void> {
  checkAdmin(actor);
  const name = patch.name?.trim();
  await transaction(svc.store, async (tx) => {
    await lockNamesOf(svc.store, tx, 'custom_profile_fields');
    const field = await profileFieldById(tx, svc.realmId, fieldId);
    if (!field) throw notFound(fieldId);
    if (patch.displayInProfileSummary && (await countSummaryFields(tx, svc.realmId, field.id)) >= MAX_SUMMARY_FIELDS) throw summaryLimit();
    const current = parseFieldData(field);
    if (isDefaultExternalField(field.field_type, current)) {
      const changes =
        (name !== undefined && name !== field.name) ||
        (patch.hint !== undefined && patch.hint !== field.hint) ||
        (patch.fieldData !== undefined && JSON.stringify(patch.fieldData) !== JSON.stringify(current));
      if (changes) throw badRequest('Default custom field cannot be updated.');
    }
    validateFieldDefinition(
      name ?? field.name,
      patch.hint ?? field.hint,
      field.field_type,
      patch.fieldData ?? current,
      patch.displayInProfileSummary ?? !!field.display_in_profile_summary,
      patch.useForUserMatching ?? !!field.use_for_user_matching,
    );
    const set: Parameters<typeof updateProfileField>[2] = {};
    if (name !== undefined) set.name = name;
    if (patch.hint !== undefined) set.hint = patch.hint;
    if (patch.required !== undefined) set.required = patch.required ? 1 : 0;
    if (patch.editableByUser !== undefined) set.editable_by_user = patch.editableByUser ? 1 : 0;
    if (patch.displayInProfileSummary !== undefined) set.display_in_profile_summary = patch.displayInProfileSummary ? 1 : 0;
    if (patch.useForUserMatching !== undefined) set.use_for_user_matching = patch.useForUserMatching ? 1 : 0;
    if (field.field_type === FIELD_TYPE.SELECT || field.field_type === FIELD_TYPE.EXTERNAL_ACCOUNT) {
      if (patch.fieldData !== undefined && field.field_type === FIELD_TYPE.SELECT) {
        await deleteValuesNotIn(tx, field.id, Object.keys(patch.fieldData));
      }
      if (patch.fieldData !== undefined || field.field_data === '') set.field_data = JSON.stringify(patch.fieldData ?? {});
    }
    if (set.name !== undefined && set.name !== field.name) {
      const other = await profileFieldByName(tx, svc.realmId, set.name);
      if (other && other.id !== field.id) throw duplicateLabel();
    }
    await updateProfileField(tx, field.id, set);
  });
  await notifyFields(svc);
}

export async function reorderProfileFields(svc: Services, actor: UserRow, order: number[]): Promise<void> {
  checkAdmin(actor);
  await transaction(svc.store, async (tx) => {
    const position = new Map<number, number>();
    order.forEach((id, i) => position.set(id, i));
    const fields = await profileFieldsForRealm(tx, svc.realmId);
    for (const f of fields) if (!position.has(f.id)) throw badRequest('Invalid order mapping.');
    for (const f of fields) await updateProfileField(tx, f.id, { sort_order: position.get(f.id)! });
  });
  await notifyFields(svc);
}

export async function deleteProfileFieldDef(svc: Services, actor: UserRow, fieldId: number): Promise<void> {
  checkAdmin(actor);
  await transaction(svc.store, async (tx) => {
    if (!(await profileFieldById(tx, svc.realmId, fieldId))) throw notFound(fieldId);
    await deleteProfileField(tx, fieldId);
  });
  await notifyFields(svc);
}

// ---------------------------------------------------------------------------
// Users' values

export interface ProfileDataItem {
  id: number;
  value: string | number[] | null;
}

async function markdownContext(svc: Services, tx: Tx): Promise<MarkdownContext> {
  const users = (await cachedUsers(svc, tx)).list.filter((u) => u.is_active);
  const byId = new Map(users.map((u) => [u.id, { id: u.id, full_name: u.full_name, email: u.email }]));
  const byName = new Map<string, { id: number; full_name: string; email: string } | undefined>();
  for (const u of byId.values()) {
    const key = u.full_name.toLowerCase();
    byName.set(key, byName.has(key) ? undefined : u);
  }
  return {
    userById: (id) => byId.get(id),
    userByFullName: (name) => byName.get(name.toLowerCase()),
    groupByName: () => undefined,
    streamByName: () => undefined,
    realmUrl: svc.config.externalUrl,
  };
}

/**
 * Sets (or, with a null value, removes) custom profile field values of
 * `targetUserId`. Members edit their own data when the field is editable by
 * users and the organization does not restrict editing; administrators may
 * edit anyone's data (the PATCH /users/{user_id} `profile_data` path).
 * Sends a realm_user update event per changed field to every active user.
 */
export async function updateProfileData(svc: Services, actor: UserRow, targetUserId: number, data: ProfileDataItem[]): Promise<void> {
  const events: Array<Record<string, unknown>> = [];
  await transaction(svc.store, async (tx) => {
    // Validate everything before changing anything.
    const { target, checked } = await checkProfileData(svc, tx, actor, targetUserId, data);
    let ctx: MarkdownContext | undefined;
    for (const { field, text } of checked) {
      if (text === null) {
        if (await deleteProfileValue(tx, target.id, field.id)) events.push({ id: field.id, value: null });
        continue;
      }
      const existing = await profileValue(tx, target.id, field.id);
      if (existing && existing.value === text) continue;
      let rendered: string | null = null;
      if (isRenderable(field.field_type)) {
        ctx ??= await markdownContext(svc, tx);
        rendered = renderMarkdownOrText(text, ctx);
      }
      await upsertProfileValue(tx, { user_id: target.id, field_id: field.id, value: text, rendered_value: rendered });
      events.push(rendered ? { id: field.id, value: text, rendered_value: rendered } : { id: field.id, value: text });
    }
  });
  if (!events.length) return;
  const target = await userById(svc.store.db, svc.realmId, targetUserId);
  const recipients = target ? await userIdsWhoCanAccess(svc, target) : [];
  for (const cpf of events) {
    svc.bus.send({ type: 'realm_user', op: 'update', person: { user_id: targetUserId, custom_profile_field: cpf } }, recipients);
  }
}

/**
 * The checks of a profile data update, without changing anything: the
 * actor may edit these fields of this user, and every value is valid.
 * Returns the target and the values as they would be stored.
 */
export async function checkProfileData(
  svc: Services,
  db: Tx,
  actor: UserRow,
  targetUserId: number,
  data: ProfileDataItem[],
): Promise<{ target: UserRow; checked: Array<{ field: ProfileFieldRow; text: string | null }> }> {
  const admin = isAdminRole(actor.role);
  if (actor.id !== targetUserId && !admin) throw requireAdmin();
  const target = actor.id === targetUserId ? actor : await userById(db, svc.realmId, targetUserId);
  if (!target) throw badRequest('No such user');
  const users = (await cachedUsers(svc, db)).byId;
  const checked: Array<{ field: ProfileFieldRow; text: string | null }> = [];
  for (const item of data) {
    const field = await profileFieldById(db, svc.realmId, item.id);
    if (!field) throw notFound(item.id);
    if (!admin && !field.editable_by_user) throw notEditable();
    checked.push({ field, text: item.value === null ? null : validateFieldValue(field, item.value, (id) => users.get(id)) });
  }
  return { target, checked };
}

/** DELETE /users/me/profile_data: removes the caller's values for the listed fields. */
export async function removeProfileData(svc: Services, actor: UserRow, fieldIds: number[]): Promise<void> {
  await updateProfileData(svc, actor, actor.id, fieldIds.map((id) => ({ id, value: null })));
}
