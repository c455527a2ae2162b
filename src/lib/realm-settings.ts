/**
 * Organization settings with their defaults (a subset of Zulip's realm
 * properties that Parley implements). Stored values overlay these defaults.
 */
import { parseJsonObject } from './util.ts';
import { REALM_PERMISSION_SETTINGS } from './permission-settings.ts';

export const REALM_SETTING_DEFAULTS: Record<string, unknown> = {
  invite_required: true,
  emails_restricted_to_domains: false,
  disallow_disposable_email_addresses: true,
  waiting_period_threshold: 0,
  allow_message_editing: true,
  message_content_edit_limit_seconds: 600,
  message_content_delete_limit_seconds: 600,
  allow_edit_history: true,
  message_edit_history_visibility_policy: 'all',
  move_messages_within_stream_limit_seconds: 604800,
  move_messages_between_streams_limit_seconds: 604800,
  mandatory_topics: false,
  topics_policy: 'allow_empty_topic',
  message_retention_days: -1,
  inline_image_preview: true,
  inline_url_embed_preview: false,
  digest_emails_enabled: false,
  digest_weekday: 1,
  send_welcome_emails: true,
  message_content_allowed_in_email_notifications: true,
  enable_spectator_access: false,
  enable_read_receipts: false,
  enable_guest_user_indicator: true,
  enable_guest_user_dm_warning: true,
  welcome_message_custom_text: '',
  require_e2ee_push_notifications: false,
  send_channel_events_messages: true,
  default_language: 'en',
  default_code_block_language: '',
  email_address_visibility: 1,
  name_changes_disabled: false,
  email_changes_disabled: false,
  avatar_changes_disabled: false,
  require_unique_names: false,
  jitsi_server_url: null,
  video_chat_provider: 1,
  gif_rating_policy: 2,
  media_preview_size: 100,
  default_avatar_source: 'G',
  want_advertise_in_communities_directory: false,
  org_type: 0,
  plan_type: 1,
  upload_quota_mib: null,
  max_file_upload_size_mib: 25,
  empty_topic_display_name: 'general chat',
  moderation_request_channel_id: -1,
  new_stream_announcements_stream_id: -1,
  signup_announcements_stream_id: -1,
  zulip_update_announcements_stream_id: -1,
  icon_source: 'G',
  logo_source: 'D',
  night_logo_source: 'D',
};

export function realmSettings(storedJson: string): Record<string, unknown> {
  const stored = parseJsonObject(storedJson);
  const s = { ...REALM_SETTING_DEFAULTS, ...stored };
  // Legacy names Zulip still reports, derived from the settings that replaced them.
  if (stored.message_edit_history_visibility_policy === undefined && typeof stored.allow_edit_history === 'boolean') {
    s.message_edit_history_visibility_policy = stored.allow_edit_history ? 'all' : 'none';
  }
  s.allow_edit_history = s.message_edit_history_visibility_policy !== 'none';
  if (stored.topics_policy === undefined && typeof stored.mandatory_topics === 'boolean') {
    s.topics_policy = stored.mandatory_topics ? 'disable_empty_topic' : 'allow_empty_topic';
  }
  s.mandatory_topics = s.topics_policy === 'disable_empty_topic';
  // Zulip renamed giphy_rating to gif_rating_policy (feature level 453): a value stored under the old name still counts.
  if (stored.gif_rating_policy === undefined && typeof stored.giphy_rating === 'number') s.gif_rating_policy = stored.giphy_rating;
  delete s.giphy_rating;
  // Replaced by can_create_bots_group and can_create_write_only_bots_group (feature level 344).
  delete s.bot_creation_policy;
  return s;
}

/**
 * Organization-level group settings with Zulip's defaults as system group
 * names (resolved to the organization's group IDs when used; a stored value
 * in settings_json, a group ID or anonymous group, wins).
 */
export const REALM_GROUP_SETTING_DEFAULTS: Record<string, string> = Object.fromEntries(
  Object.entries(REALM_PERMISSION_SETTINGS).map(([name, c]) => [name, c.default_group_name]),
);

/** The keys of an edit history entry that a 'moves' visibility policy shows (an allowlist, as Zulip's). */
const MOVE_KEYS = ['timestamp', 'user_id', 'prev_topic', 'topic', 'prev_stream', 'stream'];

/**
 * The part of a message's edit history the organization's
 * message_edit_history_visibility_policy shows: everything ('all'), only
 * topic and channel moves without any content ('moves'), or nothing ('none').
 */
export function visibleEditHistory<E extends object>(policy: string, entries: E[]): E[] {
  if (policy === 'all') return entries;
  if (policy !== 'moves') return [];
  return entries
    .filter((e) => 'prev_topic' in e || 'prev_stream' in e)
    .map((e) => Object.fromEntries(Object.entries(e).filter(([k]) => MOVE_KEYS.includes(k))) as E);
}
