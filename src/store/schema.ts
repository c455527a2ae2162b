/**
 * Table types for the typed query builder. Booleans are stored as integers
 * (0/1) on both backends so rows read the same everywhere; JSON documents are
 * stored as text. Timestamps are integer UNIX seconds unless named *_ms.
 */
import type { Generated } from 'kysely';

export interface RealmTable {
  id: Generated<number>;
  string_id: string;
  name: string;
  description: Generated<string>;
  date_created: number;
  deactivated: Generated<number>;
  /** JSON object of realm settings that differ from the built-in defaults. */
  settings_json: Generated<string>;
  /** JSON object: defaults of user settings for new users (RealmUserDefault). */
  user_defaults_json: Generated<string>;
}

export interface UsersTable {
  id: Generated<number>;
  realm_id: number;
  email: string;
  delivery_email: string;
  full_name: string;
  password_hash: Generated<string | null>;
  api_key: string;
  role: number;
  is_active: Generated<number>;
  is_bot: Generated<number>;
  bot_type: Generated<number | null>;
  bot_owner_id: Generated<number | null>;
  date_joined: number;
  timezone: Generated<string>;
  avatar_source: Generated<string>;
  avatar_version: Generated<number>;
  is_imported_stub: Generated<number>;
  /** JSON object of the user's personal settings (a full snapshot taken at creation, then edited). */
  settings_json: Generated<string>;
  default_sending_stream_id: Generated<number | null>;
  default_events_register_stream_id: Generated<number | null>;
  default_all_public_streams: Generated<number>;
}

export interface CustomProfileFieldsTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  hint: Generated<string>;
  field_type: number;
  field_data: Generated<string>;
  sort_order: number;
  display_in_profile_summary: Generated<number>;
  required: Generated<number>;
  editable_by_user: Generated<number>;
}

export interface CustomProfileFieldValuesTable {
  id: Generated<number>;
  user_id: number;
  field_id: number;
  value: string;
  rendered_value: Generated<string | null>;
}

export interface UserStatusTable {
  user_id: number;
  status_text: Generated<string>;
  emoji_name: Generated<string>;
  emoji_code: Generated<string>;
  reaction_type: Generated<string>;
  timestamp: number;
}

export interface RealmEmojiTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  author_id: Generated<number | null>;
  file_name: string;
  deactivated: Generated<number>;
}

export interface Database {
  realm: RealmTable;
  users: UsersTable;
  custom_profile_fields: CustomProfileFieldsTable;
  custom_profile_field_values: CustomProfileFieldValuesTable;
  user_status: UserStatusTable;
  realm_emoji: RealmEmojiTable;
}
