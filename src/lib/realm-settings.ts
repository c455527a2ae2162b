/**
 * Organization settings with their defaults (a subset of Zulip's realm
 * properties that Parley implements). Stored values overlay these defaults.
 */
import { parseJsonObject } from './util.ts';

export const REALM_SETTING_DEFAULTS: Record<string, unknown> = {
  invite_required: true,
  emails_restricted_to_domains: false,
  disallow_disposable_email_addresses: true,
  waiting_period_threshold: 0,
  allow_message_editing: true,
  message_content_edit_limit_seconds: 600,
  message_content_delete_limit_seconds: 600,
  allow_edit_history: true,
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
  default_language: 'en',
  default_code_block_language: '',
  email_address_visibility: 1,
  name_changes_disabled: false,
  email_changes_disabled: false,
  avatar_changes_disabled: false,
  require_unique_names: false,
  jitsi_server_url: null,
  video_chat_provider: 1,
  giphy_rating: 2,
  want_advertise_in_communities_directory: false,
  org_type: 0,
  plan_type: 1,
  upload_quota_mib: null,
  max_file_upload_size_mib: 25,
  empty_topic_display_name: 'general chat',
  bot_creation_policy: 1,
  moderation_request_channel_id: -1,
  new_stream_announcements_stream_id: -1,
  signup_announcements_stream_id: -1,
  zulip_update_announcements_stream_id: -1,
  icon_source: 'G',
  logo_source: 'D',
  night_logo_source: 'D',
};

export function realmSettings(storedJson: string): Record<string, unknown> {
  return { ...REALM_SETTING_DEFAULTS, ...parseJsonObject(storedJson) };
}

/**
 * Organization-level group settings Parley implements, with Zulip's defaults
 * as system group names (resolved to the organization's group IDs when used;
 * a stored value in settings_json, a group ID or anonymous group, wins).
 */
export const REALM_GROUP_SETTING_DEFAULTS: Record<string, string> = {
  can_create_public_channel_group: 'role:members',
  can_create_private_channel_group: 'role:members',
  can_create_web_public_channel_group: 'role:owners',
  can_add_subscribers_group: 'role:members',
  can_create_groups: 'role:members',
  can_manage_all_groups: 'role:owners',
  // Message deletion (DELETE /messages/{message_id}), with Zulip's defaults.
  can_delete_any_message_group: 'role:administrators',
  can_delete_own_message_group: 'role:everyone',
  // Sending email invitations (POST /invites), Zulip's default.
  can_invite_users_group: 'role:members',
  // Creating reusable invitation links (POST /invites/multiuse), Zulip's default.
  can_create_multiuse_invite_group: 'role:administrators',
};
