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
  icon_version: Generated<number>;
  logo_version: Generated<number>;
  night_logo_version: Generated<number>;
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
  /** Made through the API and not logged in yet: the first login sets date_joined (Zulip's feature level 475). */
  joins_on_first_login: Generated<number>;
  /** JSON object of the user's personal settings (a full snapshot taken at creation, then edited). */
  settings_json: Generated<string>;
  default_sending_stream_id: Generated<number | null>;
  default_events_register_stream_id: Generated<number | null>;
  default_all_public_streams: Generated<number>;
  /** Zulip's system bots (cross_realm_bots), e.g. Notification Bot. */
  is_system_bot: Generated<number>;
  /** Moved by every change to the row (a trigger, migration 1050): how the users kept in memory tell which rows changed. */
  row_version: Generated<number>;
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
  use_for_user_matching: Generated<number>;
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
  is_animated: Generated<number>;
}

export interface UserGroupsTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  description: Generated<string>;
  is_system_group: Generated<number>;
  creator_id: number | null;
  date_created: number | null;
  deactivated: Generated<number>;
  settings_json: Generated<string>;
}

export interface UserGroupMembersTable {
  group_id: number;
  user_id: number;
}

export interface UserGroupSubgroupsTable {
  group_id: number;
  subgroup_id: number;
}

export interface StreamsTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  description: Generated<string>;
  rendered_description: Generated<string>;
  invite_only: Generated<number>;
  is_web_public: Generated<number>;
  history_public_to_subscribers: Generated<number>;
  message_retention_days: number | null;
  date_created: number;
  creator_id: number | null;
  is_archived: Generated<number>;
  first_message_id: number | null;
  folder_id: number | null;
  topics_policy: Generated<string>;
  is_default: Generated<number>;
  group_settings_json: Generated<string>;
}

export interface SubscriptionsTable {
  id: Generated<number>;
  user_id: number;
  stream_id: number;
  active: Generated<number>;
  is_muted: Generated<number>;
  pin_to_top: Generated<number>;
  color: string;
  desktop_notifications: number | null;
  audible_notifications: number | null;
  push_notifications: number | null;
  email_notifications: number | null;
  wildcard_mentions_notify: number | null;
}

export interface DirectGroupsTable {
  id: Generated<number>;
  member_key: string;
}

export interface DirectGroupMembersTable {
  group_id: number;
  user_id: number;
}

export interface MessagesTable {
  id: Generated<number>;
  realm_id: number;
  sender_id: number;
  /** 1 direct to one user, 2 channel, 3 direct-message group. */
  recipient_type: number;
  recipient_id: number;
  topic: Generated<string>;
  content: string;
  rendered_content: string;
  /** UNIX seconds (fractional). */
  date_sent: number;
  last_edit_time: number | null;
  edit_history_json: string | null;
  sending_client: Generated<string>;
  has_link: Generated<number>;
  has_image: Generated<number>;
  has_attachment: Generated<number>;
  is_me_message: Generated<number>;
}

export interface UserMessagesTable {
  user_id: number;
  message_id: number;
  flags: Generated<number>;
}

export interface ReactionsTable {
  id: Generated<number>;
  message_id: number;
  user_id: number;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

export interface UserTopicsTable {
  user_id: number;
  stream_id: number;
  topic: string;
  visibility_policy: number;
  last_updated: number;
}

export interface BotServicesTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  base_url: string;
  interface: number;
  token: string;
}

/** Presence of one user: last connected/active times (UNIX seconds) and the realm presence sequence value of its latest change. */
export interface UserPresenceTable {
  user_id: number;
  realm_id: number;
  last_connected_time: number | null;
  last_active_time: number | null;
  last_update_id: number;
}

/** An email invitation (Zulip's PreregistrationUser with its confirmation key). Times in UNIX seconds. */
export interface InvitationsTable {
  id: Generated<number>;
  realm_id: number;
  email: string;
  referred_by: number;
  invited_as: number;
  invited_at: number;
  /** null: never expires. */
  expiry_date: number | null;
  confirmation_key: string;
  stream_ids_json: string;
  group_ids_json: string;
  include_realm_default_subscriptions: number;
  notify_referrer_on_join: number;
  welcome_message_custom_text: string | null;
  /** 0 pending, 1 used (an account was created from it), 2 revoked (another invitation to the address was used). */
  status: Generated<number>;
  created_user_id: number | null;
  /** The reusable invitation link a sign-up came through (then not an email invitation of its own). */
  multiuse_id: Generated<number | null>;
}

/** A reusable invitation link (Zulip's MultiuseInvite); status 0 active, 2 revoked. */
export interface MultiuseInvitesTable {
  id: Generated<number>;
  realm_id: number;
  referred_by: number;
  invited_as: number;
  date_created: number;
  expiry_date: number | null;
  confirmation_key: string;
  stream_ids_json: string;
  group_ids_json: string;
  include_realm_default_subscriptions: number;
  welcome_message_custom_text: string | null;
  status: Generated<number>;
}

/** A user's synchronized compose draft (spec 2.7); last_edit_time in UNIX seconds (fractional). */
export interface DraftsTable {
  id: Generated<number>;
  user_id: number;
  /** '', 'stream' or 'private'. */
  type: string;
  /** JSON list: [stream ID] for 'stream', the other users' IDs for 'private', [] for ''. */
  to_json: string;
  topic: string;
  content: string;
  last_edit_time: number;
}

/** Scheduled messages (POST /scheduled_messages): kept after delivery with delivered = 1. */
export interface ScheduledMessagesTable {
  id: Generated<number>;
  realm_id: number;
  sender_id: number;
  /** 'stream' or 'private' (Zulip's recipient type names). */
  recipient_type: string;
  /** The channel of a channel message, else null. */
  stream_id: number | null;
  /** JSON list of the recipients' user IDs for direct messages (not the sender unless alone). */
  to_json: string;
  topic: Generated<string>;
  content: string;
  rendered_content: string;
  /** UNIX seconds. */
  scheduled_timestamp: number;
  read_by_sender: number;
  sending_client: string;
  failed: Generated<number>;
  failure_message: Generated<string | null>;
  delivered: Generated<number>;
  delivered_message_id: Generated<number | null>;
  /** 1: send later; 2: reminder (Zulip's ScheduledMessage delivery types). */
  delivery_type: Generated<number>;
  reminder_target_message_id: Generated<number | null>;
}

/** An uploaded file (path_id: realm ID / random / sanitized name); create_time in ms. */
export interface AttachmentsTable {
  id: Generated<number>;
  realm_id: number;
  path_id: string;
  file_name: string;
  content_type: string;
  owner_id: number;
  size: number;
  create_time: number;
  /** An uploaded image's width and height as shown, and its frames; frames 0: not an image; null: uploaded before these were read. */
  image_width: number | null;
  image_height: number | null;
  image_frames: number | null;
}

/** Which messages reference which uploaded files. */
export interface AttachmentMessagesTable {
  attachment_id: number;
  message_id: number;
}

/** An email invitation (Zulip's PreregistrationUser with its confirmation key). Times in UNIX seconds. */
export interface MutedUsersTable {
  id: Generated<number>;
  user_id: number;
  muted_user_id: number;
  date_muted: number;
}

export interface AlertWordsTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  word: string;
}

export interface SavedSnippetsTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  title: string;
  content: string;
  /** UNIX seconds. */
  date_created: number;
}

export interface SubmessagesTable {
  id: Generated<number>;
  message_id: number;
  sender_id: number;
  msg_type: string;
  content: string;
}

export interface ClientDevicesTable {
  id: Generated<number>;
  user_id: number;
  date_created: number;
}

export interface PushDeviceTokensTable {
  id: Generated<number>;
  user_id: number;
  /** 1 APNs, 2 FCM (Zulip's PushDeviceToken kinds). */
  kind: number;
  token: string;
  ios_app_id: string | null;
  last_updated: number;
}

export interface ChannelEmailAddressesTable {
  id: Generated<number>;
  realm_id: number;
  stream_id: number;
  creator_id: number;
  sender_id: number;
  email_token: string;
  date_created: number;
}

/** A browser login session (the web client). Only a SHA-256 hash of the session id is stored. Times in ms. */
export interface SessionsTable {
  id_hash: string;
  user_id: number;
  /** The CSRF token bound to this session (the `csrftoken` cookie's value). */
  csrf_token: string;
  date_created: number;
  expires: number;
}

/** Up to when members who passed the waiting period have been announced as full members. */
export interface FullMemberPromotionsTable {
  realm_id: number;
  checked_until: number;
}

export interface RealmDomainsTable {
  id: Generated<number>;
  realm_id: number;
  domain: string;
  allow_subdomains: Generated<number>;
}

export interface RealmLinkifiersTable {
  id: Generated<number>;
  realm_id: number;
  pattern: string;
  url_template: string;
  order: Generated<number>;
  /** Reverse linkification (feature levels 471 and 478): text the pattern matches, the template that rebuilds it, and more URL templates (a JSON list). */
  example_input: string | null;
  reverse_template: string | null;
  alternative_url_templates: Generated<string>;
}

/** A running server process (PostgreSQL deployments; see src/store/nodes.ts). */
export interface ClusterNodesTable {
  id: string;
  host: string;
  pid: number;
  has_redis: number;
  /** UNIX milliseconds. */
  started_at: number;
  heartbeat_at: number;
}

/** A pending change of a user's email address (Zulip's EmailChangeStatus). */
export interface EmailChangesTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  old_email: string;
  new_email: string;
  confirmation_key: string;
  created: number;
  /** 0 pending, 1 used. */
  status: Generated<number>;
}

export interface ChannelFoldersTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  description: Generated<string>;
  rendered_description: Generated<string>;
  order: Generated<number>;
  /** UNIX seconds. */
  date_created: number;
  creator_id: number | null;
  is_archived: Generated<number>;
}

export interface RealmPlaygroundsTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  pygments_language: string;
  url_template: string;
}

export interface NavigationViewsTable {
  id: Generated<number>;
  user_id: number;
  fragment: string;
  is_pinned: Generated<number>;
  name: string | null;
}

/** An organization data export (Zulip's RealmExport). */
export interface RealmExportsTable {
  id: Generated<number>;
  realm_id: number;
  acting_user_id: number | null;
  /** 'public' or 'full_with_consent'. */
  export_type: string;
  /** 0 requested, 1 started, 2 succeeded, 3 failed, 4 deleted. */
  status: Generated<number>;
  /** UNIX seconds (fractional). */
  date_requested: number;
  date_started: number | null;
  date_succeeded: number | null;
  date_failed: number | null;
  date_deleted: number | null;
  /** The archive's path under DATA_DIR/exports. */
  export_path: string | null;
  tarball_size_bytes: number | null;
}

export interface BotStorageTable {
  id: Generated<number>;
  user_id: number;
  key: string;
  value: string;
}

/** A pending or finished delivery of one message to an outgoing-webhook bot's services. */
export interface OutgoingWebhookJobsTable {
  id: Generated<number>;
  bot_id: number;
  message_id: number;
  /** "mention" or "direct_message". */
  trigger: string;
  failed_tries: Generated<number>;
  /** When the next attempt is due (ms since the epoch). */
  run_at: number;
  /** A worker's claim on the job, until this time (ms). */
  locked_until: number | null;
  done_at: number | null;
}

/** A message a user may be emailed about if still unread when the batching period ends (Zulip's ScheduledMessageNotificationEmail). */
export interface MissedMessageEmailsTable {
  id: Generated<number>;
  user_id: number;
  message_id: number;
  /** Why: direct_message, mentioned, stream_wildcard_mentioned, topic_wildcard_mentioned, followed_topic_email, alert word ("mentioned"). */
  trigger: string;
  mentioned_user_group_id: number | null;
  /** When the batch containing it is due (ms since the epoch). */
  scheduled_at: number;
  /** When a worker claimed it for sending (ms); null while pending. */
  sent_at: number | null;
}

export interface DigestEmailsTable {
  user_id: number;
  last_sent_at: number;
}

/** The key of a user's unsubscribe link for one kind of email (works without logging in). */
export interface EmailUnsubscribeKeysTable {
  key: string;
  user_id: number;
  email_type: string;
  date_created: number;
}

/** A setting a user changed themselves (see migration 1030). */
export interface UserSettingEditsTable {
  user_id: number;
  setting: string;
}

/** A password reset link (see migration 1040). */
export interface PasswordResetsTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  /** SHA-256 (hex) of the link's key. */
  key_hash: string;
  /** A digest of the account's password hash when the link was made. */
  password_marker: string;
  created: number;
  /** 0 pending, 1 used. */
  status: Generated<number>;
}

export interface Database {
  password_resets: PasswordResetsTable;
  user_setting_edits: UserSettingEditsTable;
  email_changes: EmailChangesTable;
  cluster_nodes: ClusterNodesTable;
  multiuse_invites: MultiuseInvitesTable;
  outgoing_webhook_jobs: OutgoingWebhookJobsTable;
  missed_message_emails: MissedMessageEmailsTable;
  digest_emails: DigestEmailsTable;
  email_unsubscribe_keys: EmailUnsubscribeKeysTable;
  sessions: SessionsTable;
  saved_snippets: SavedSnippetsTable;
  submessages: SubmessagesTable;
  client_devices: ClientDevicesTable;
  push_device_tokens: PushDeviceTokensTable;
  channel_email_addresses: ChannelEmailAddressesTable;
  muted_users: MutedUsersTable;
  alert_words: AlertWordsTable;
  attachments: AttachmentsTable;
  attachment_messages: AttachmentMessagesTable;
  scheduled_messages: ScheduledMessagesTable;
  drafts: DraftsTable;
  invitations: InvitationsTable;
  bot_services: BotServicesTable;
  realm: RealmTable;
  users: UsersTable;
  custom_profile_fields: CustomProfileFieldsTable;
  custom_profile_field_values: CustomProfileFieldValuesTable;
  user_status: UserStatusTable;
  realm_emoji: RealmEmojiTable;
  user_groups: UserGroupsTable;
  user_group_members: UserGroupMembersTable;
  user_group_subgroups: UserGroupSubgroupsTable;
  streams: StreamsTable;
  subscriptions: SubscriptionsTable;
  direct_groups: DirectGroupsTable;
  direct_group_members: DirectGroupMembersTable;
  messages: MessagesTable;
  user_messages: UserMessagesTable;
  reactions: ReactionsTable;
  user_topics: UserTopicsTable;
  user_presence: UserPresenceTable;
  realm_linkifiers: RealmLinkifiersTable;
  realm_domains: RealmDomainsTable;
  full_member_promotions: FullMemberPromotionsTable;
  channel_folders: ChannelFoldersTable;
  realm_playgrounds: RealmPlaygroundsTable;
  navigation_views: NavigationViewsTable;
  bot_storage: BotStorageTable;
  realm_exports: RealmExportsTable;
}
