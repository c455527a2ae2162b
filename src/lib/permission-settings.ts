/**
 * Zulip's configuration of every group-based permission setting: which
 * group-setting values each accepts and its default. One table per kind of
 * setting (organization, channel, user group); /register reports them as
 * `server_supported_permission_settings` and the same tables drive Parley's
 * validation and defaults, so clients are offered exactly what the server
 * accepts.
 *
 * default_group_name is a system group name, or 'channel_creator' /
 * 'group_creator' (the creator alone); default_for_system_groups is the value
 * a system group has (user-group settings only).
 */

export interface PermissionSettingConfig {
  /** The value must be a single system group. */
  require_system_group: boolean;
  allow_internet_group: boolean;
  /** May be role:nobody alone. */
  allow_nobody_group: boolean;
  /** May be role:everyone alone; guests may exercise the permission only when true. */
  allow_everyone_group: boolean;
  default_group_name: string;
  default_for_system_groups: string | null;
  /** When not empty, the only system groups the value may be. */
  allowed_system_groups: string[];
}

const setting = (
  defaultGroup: string,
  allow: { nobody?: boolean; everyone?: boolean; systemOnly?: string[] } = {},
  defaultForSystemGroups: string | null = null,
): PermissionSettingConfig => ({
  require_system_group: allow.systemOnly !== undefined,
  allow_internet_group: false,
  allow_nobody_group: allow.nobody ?? true,
  allow_everyone_group: allow.everyone ?? false,
  default_group_name: defaultGroup,
  default_for_system_groups: defaultForSystemGroups,
  allowed_system_groups: allow.systemOnly ?? [],
});

const everyone = { everyone: true };

/** Organization settings (PATCH /realm). */
export const REALM_PERMISSION_SETTINGS: Record<string, PermissionSettingConfig> = {
  can_access_all_users_group: setting('role:everyone', { nobody: false, everyone: true, systemOnly: ['role:everyone', 'role:members'] }),
  can_add_custom_emoji_group: setting('role:members'),
  can_add_subscribers_group: setting('role:members'),
  can_create_bots_group: setting('role:members'),
  can_create_groups: setting('role:members'),
  can_create_private_channel_group: setting('role:members'),
  can_create_public_channel_group: setting('role:members'),
  can_create_web_public_channel_group: setting('role:owners', { systemOnly: ['role:moderators', 'role:administrators', 'role:owners', 'role:nobody'] }),
  can_create_write_only_bots_group: setting('role:members'),
  can_delete_any_message_group: setting('role:administrators'),
  can_delete_own_message_group: setting('role:everyone', everyone),
  can_invite_users_group: setting('role:members'),
  can_manage_all_groups: setting('role:owners', { nobody: false }),
  can_manage_billing_group: setting('role:administrators', { nobody: false }),
  can_mention_many_users_group: setting('role:administrators', everyone),
  can_move_messages_between_channels_group: setting('role:members'),
  can_move_messages_between_topics_group: setting('role:everyone', everyone),
  can_resolve_topics_group: setting('role:everyone', everyone),
  can_set_delete_message_policy_group: setting('role:moderators'),
  can_set_topics_policy_group: setting('role:members', everyone),
  can_summarize_topics_group: setting('role:everyone', everyone),
  create_multiuse_invite_group: setting('role:administrators'),
  direct_message_initiator_group: setting('role:everyone', everyone),
  direct_message_permission_group: setting('role:everyone', everyone),
  // Who counts as a workplace user for billing (feature level 477; Parley has no billing).
  workplace_users_group: setting('role:everyone', everyone),
};

/** Channel settings (POST /users/me/subscriptions, PATCH /streams/{stream_id}). */
export const STREAM_PERMISSION_SETTINGS: Record<string, PermissionSettingConfig> = {
  can_add_subscribers_group: setting('role:nobody'),
  can_administer_channel_group: setting('channel_creator'),
  can_create_topic_group: setting('role:everyone', everyone),
  can_delete_any_message_group: setting('role:nobody', everyone),
  can_delete_own_message_group: setting('role:nobody', everyone),
  can_move_messages_out_of_channel_group: setting('role:nobody', everyone),
  can_move_messages_within_channel_group: setting('role:nobody', everyone),
  can_remove_subscribers_group: setting('role:administrators', { nobody: false, everyone: true }),
  can_resolve_topics_group: setting('role:nobody', everyone),
  can_send_message_group: setting('role:everyone', everyone),
  can_subscribe_group: setting('role:nobody'),
};

/** User group settings (POST /user_groups/create, PATCH /user_groups/{user_group_id}). */
export const GROUP_PERMISSION_SETTINGS: Record<string, PermissionSettingConfig> = {
  can_add_members_group: setting('group_creator', {}, 'role:nobody'),
  can_join_group: setting('role:nobody', {}, 'role:nobody'),
  can_leave_group: setting('role:everyone', everyone, 'role:nobody'),
  can_manage_group: setting('group_creator', {}, 'role:nobody'),
  can_mention_group: setting('role:everyone', everyone, 'role:nobody'),
  can_remove_members_group: setting('role:nobody', {}, 'role:nobody'),
};

/** POST /register's server_supported_permission_settings. */
export function serverSupportedPermissionSettings(): Record<string, Record<string, PermissionSettingConfig>> {
  const copy = (t: Record<string, PermissionSettingConfig>) =>
    Object.fromEntries(Object.entries(t).map(([k, c]) => [k, { ...c, allowed_system_groups: [...c.allowed_system_groups] }]));
  return { realm: copy(REALM_PERMISSION_SETTINGS), stream: copy(STREAM_PERMISSION_SETTINGS), group: copy(GROUP_PERMISSION_SETTINGS) };
}
