/**
 * Custom profile field types and the checks Zulip applies to field
 * definitions (field_data) and to users' values, with Zulip's messages.
 */
import { ApiError } from './errors.ts';

export const FIELD_TYPE = {
  SHORT_TEXT: 1,
  LONG_TEXT: 2,
  SELECT: 3,
  DATE: 4,
  URL: 5,
  USER: 6,
  EXTERNAL_ACCOUNT: 7,
  PRONOUNS: 8,
} as const;

/** custom_profile_field_types of /register: keyword -> {id, name}, sorted by name as Zulip does. */
export const FIELD_TYPE_NAMES: Array<[keyword: string, id: number, name: string]> = [
  ['DATE', FIELD_TYPE.DATE, 'Date'],
  ['EXTERNAL_ACCOUNT', FIELD_TYPE.EXTERNAL_ACCOUNT, 'External account'],
  ['URL', FIELD_TYPE.URL, 'Link'],
  ['SELECT', FIELD_TYPE.SELECT, 'List of options'],
  ['PRONOUNS', FIELD_TYPE.PRONOUNS, 'Pronouns'],
  ['LONG_TEXT', FIELD_TYPE.LONG_TEXT, 'Text (long)'],
  ['SHORT_TEXT', FIELD_TYPE.SHORT_TEXT, 'Text (short)'],
  ['USER', FIELD_TYPE.USER, 'Users'],
];

export function customProfileFieldTypes(): Record<string, { id: number; name: string }> {
  const out: Record<string, { id: number; name: string }> = {};
  for (const [kw, id, name] of FIELD_TYPE_NAMES) out[kw] = { id, name };
  return out;
}

export const NAME_MAX_LENGTH = 40;
export const HINT_MAX_LENGTH = 80;
export const MAX_SUMMARY_FIELDS = 2;

/** Zulip's built-in external account providers. */
export const DEFAULT_EXTERNAL_ACCOUNTS: Record<string, { text: string; url_pattern: string; name: string; hint: string }> = {
  twitter: { text: 'Twitter', url_pattern: 'https://twitter.com/%(username)s', name: 'Twitter username', hint: '' },
  github: { text: 'GitHub', url_pattern: 'https://github.com/%(username)s', name: 'GitHub username', hint: '' },
};

export type FieldData = Record<string, unknown>;

const bad = (msg: string): ApiError => new ApiError(msg);

/** The field_data parameter: a dict whose values are strings or dicts of strings. */
export function checkFieldDataParam(x: unknown, name: string): FieldData {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) throw bad(`${name} is not a dict`);
  for (const val of Object.values(x)) {
    if (typeof val === 'string') continue;
    if (typeof val !== 'object' || val === null || Array.isArray(val)) throw bad(`${name} contains a value that is not a string`);
    for (const inner of Object.values(val)) {
      if (typeof inner !== 'string') throw bad(`${name} contains a value that contains a value that is not a string`);
    }
  }
  return x as FieldData;
}

function requiredString(name: string, v: unknown): string {
  if (typeof v !== 'string') throw bad(`${name} is not a string`);
  if (!v.trim()) throw bad(`${name} cannot be blank.`);
  return v;
}

/** Django's URLValidator, approximately: http(s)/ftp(s) with a host. */
export function isValidUrl(s: string): boolean {
  if (/\s/.test(s)) return false;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return false;
  }
  if (!['http:', 'https:', 'ftp:', 'ftps:'].includes(u.protocol)) return false;
  const host = u.hostname;
  if (!host) return false;
  return host === 'localhost' || host.includes('.') || host.startsWith('[');
}

function checkDictOnly(name: string, value: unknown, required: string[], optional: string[] = []): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad(`${name} is not a dict`);
  const rec = value as Record<string, unknown>;
  for (const k of required) if (!(k in rec)) throw bad(`${k} key is missing from ${name}`);
  const extra = Object.keys(rec).filter((k) => !required.includes(k) && !optional.includes(k));
  if (extra.length) throw bad(`Unexpected arguments: ${extra.join(', ')}`);
  return rec;
}

export function validateSelectFieldData(data: FieldData): void {
  if (Object.keys(data).length < 1) throw bad('Field must have at least one choice.');
  const texts = new Set<string>();
  for (const [key, value] of Object.entries(data)) {
    if (!key.trim()) throw bad("'value' cannot be blank.");
    const rec = checkDictOnly('field_data', value, ['text', 'order']);
    texts.add(requiredString('field_data["text"]', rec.text));
    requiredString('field_data["order"]', rec.order);
  }
  if (texts.size !== Object.keys(data).length) throw bad('Field must not have duplicate choices.');
}

export function validateExternalAccountFieldData(data: FieldData): void {
  const rec = checkDictOnly('field_data', data, ['subtype'], ['url_pattern']);
  requiredString('field_data["subtype"]', rec.subtype);
  if ('url_pattern' in rec) {
    const pattern = rec.url_pattern;
    if (typeof pattern !== 'string') throw bad('field_data["url_pattern"] is not a string');
    if (pattern.split('%(username)s').length - 1 !== 1) throw bad("URL pattern must contain '%(username)s'.");
    if (!isValidUrl(pattern.replace('%(username)s', 'username'))) throw bad('field_data["url_pattern"] is not a URL');
  }
  const subtype = rec.subtype as string;
  if (!(subtype in DEFAULT_EXTERNAL_ACCOUNTS)) {
    if (subtype === 'custom') {
      if (!('url_pattern' in rec)) throw bad('Custom external account must define URL pattern');
    } else {
      throw bad('Invalid external account type');
    }
  }
}

export function isDefaultExternalField(fieldType: number, data: FieldData): boolean {
  return fieldType === FIELD_TYPE.EXTERNAL_ACCOUNT && data.subtype !== 'custom';
}

/** Field types that may be used to match users in typeahead (use_for_user_matching). */
export const USER_MATCHING_TYPES: readonly number[] = [FIELD_TYPE.SHORT_TEXT, FIELD_TYPE.EXTERNAL_ACCOUNT];

/**
 * Zulip's validate_custom_profile_field: field_data, name/hint, type, summary
 * display (any type but Users since feature level 476), user matching.
 */
export function validateFieldDefinition(
  name: string,
  hint: string,
  fieldType: number,
  data: FieldData,
  summary: boolean,
  userMatching: boolean,
): void {
  if (fieldType === FIELD_TYPE.SELECT) validateSelectFieldData(data);
  else if (fieldType === FIELD_TYPE.EXTERNAL_ACCOUNT) validateExternalAccountFieldData(data);
  if (!isDefaultExternalField(fieldType, data)) {
    if (!name.trim()) throw bad('Label cannot be blank.');
    if ([...hint].length > HINT_MAX_LENGTH) throw bad(`hint is too long (limit: ${HINT_MAX_LENGTH} characters)`);
    if ([...name].length > NAME_MAX_LENGTH) throw bad(`name is too long (limit: ${NAME_MAX_LENGTH} characters)`);
  }
  if (!(Object.values(FIELD_TYPE) as number[]).includes(fieldType)) throw bad('Invalid field type.');
  if (summary && fieldType === FIELD_TYPE.USER) throw bad('Field type not supported for display in profile summary.');
  if (userMatching && !USER_MATCHING_TYPES.includes(fieldType)) throw bad('Field type not supported for use for user matching.');
}

/** The columns of a custom profile field these helpers read (a stored row has them). */
export interface ProfileFieldShape {
  id: number;
  name: string;
  hint: string;
  field_type: number;
  field_data: string;
  sort_order: number;
  display_in_profile_summary: number;
  required: number;
  editable_by_user: number;
  use_for_user_matching: number;
}

export function parseFieldData(row: ProfileFieldShape): FieldData {
  if (!row.field_data) return {};
  try {
    const v = JSON.parse(row.field_data) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as FieldData) : {};
  } catch {
    return {};
  }
}

/** The field object of the API (Zulip's CustomProfileField.as_dict). */
export function formatField(row: ProfileFieldShape): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: row.id,
    name: row.name,
    type: row.field_type,
    hint: row.hint,
    field_data: row.field_data,
    order: row.sort_order,
    required: !!row.required,
    editable_by_user: !!row.editable_by_user,
  };
  if (row.display_in_profile_summary) out.display_in_profile_summary = true;
  if (row.use_for_user_matching) out.use_for_user_matching = true;
  return out;
}

/** Whether values of this field type get a rendered_value (Zulip renders short and long text). */
export const isRenderable = (fieldType: number): boolean => fieldType === FIELD_TYPE.SHORT_TEXT || fieldType === FIELD_TYPE.LONG_TEXT;

function cappedString(name: string, value: unknown, max: number): string {
  if (typeof value !== 'string') throw bad(`${name} is not a string`);
  if ([...value].length > max) throw bad(`${name} is too long (limit: ${max} characters)`);
  return value;
}

function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() + 1 === Number(m[2]) && d.getUTCDate() === Number(m[3]) && Number(m[1]) >= 1;
}

export interface UserLookup {
  (id: number): { is_active: number; is_bot: number } | undefined;
}

/**
 * Validates a user's value for a field (Zulip's validate_user_custom_profile_field);
 * the variable name in messages is the field's label. Returns the text to store.
 */
export function validateFieldValue(field: ProfileFieldShape, value: unknown, userById: UserLookup): string {
  const name = field.name;
  switch (field.field_type) {
    case FIELD_TYPE.SHORT_TEXT:
    case FIELD_TYPE.EXTERNAL_ACCOUNT:
    case FIELD_TYPE.PRONOUNS:
      return cappedString(name, value, 50);
    case FIELD_TYPE.LONG_TEXT:
      return cappedString(name, value, 500);
    case FIELD_TYPE.DATE:
      if (typeof value !== 'string') throw bad(`${name} is not a string`);
      if (!isDate(value)) throw bad(`${name} is not a date`);
      return value;
    case FIELD_TYPE.URL:
      if (typeof value !== 'string') throw bad(`${name} is not a string`);
      if (!isValidUrl(value)) throw bad(`${name} is not a URL`);
      return value;
    case FIELD_TYPE.SELECT: {
      if (typeof value !== 'string') throw bad(`${name} is not a string`);
      if (!(value in parseFieldData(field))) throw bad(`'${value}' is not a valid choice for '${name}'.`);
      return value;
    }
    case FIELD_TYPE.USER: {
      if (!Array.isArray(value)) throw bad('User IDs is not a list');
      value.forEach((id, i) => {
        if (typeof id !== 'number' || !Number.isInteger(id)) throw bad(`User IDs[${i}] is not an integer`);
      });
      for (const id of value as number[]) {
        const u = userById(id);
        if (!u) throw bad(`Invalid user ID: ${id}`);
        if (!u.is_active) throw bad(`User with ID ${id} is deactivated`);
        if (u.is_bot) throw bad(`User with ID ${id} is a bot`);
      }
      return JSON.stringify(value);
    }
    default:
      throw bad('Invalid field type.');
  }
}
