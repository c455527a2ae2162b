/** The `realm` and `realm_user` sections of POST /register. */
import { cachedGroups, cachedProfileData, cachedRealm, cachedUsers } from '../actions/cache.ts';
import { feature, type StateProvider } from './registry.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { formatUser, avatarUrl, isAdminRole } from '../actions/users-format.ts';
import { realmIconUrl, realmLogoUrl } from '../actions/realm-images.ts';
import { EMOJI_DATA_PATH } from '../lib/static-paths.ts';
import { THUMBNAIL_FORMATS } from '../lib/thumbnail-formats.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_GUESSES, PASSWORD_MIN_LENGTH } from '../lib/passwords.ts';
import { ROLE } from '../store/users.ts';
import { isoFromSeconds } from '../lib/util.ts';
import { PRESENCE } from '../actions/presence.ts';
import { realmGroupSetting } from '../actions/group-settings.ts';
import { DEFAULT_EXTERNAL_ACCOUNTS } from '../lib/profile-fields.ts';
import { GIPHY_RATING_OPTIONS, VIDEO_CHAT_PROVIDERS } from '../actions/realm-settings.ts';
import { realmDomains } from '../store/realm-domains.ts';
import { MAX_BULK_NEW_SUBSCRIPTION_MESSAGES } from '../actions/subscriptions.ts';
import { serverSupportedPermissionSettings } from '../lib/permission-settings.ts';
import { inaccessibleUser, userAccess } from '../actions/user-access.ts';

/** When this process started (Zulip's server_generation, UNIX seconds). */
const SERVER_GENERATION = Math.floor(Date.now() / 1000);

const provider1: StateProvider = {
  types: ['realm'],
  async fetch(svc, opts) {
    const realm = (await cachedRealm(svc)).row;
    const s = realmSettings(realm.settings_json);
    const c = svc.config;
    const out: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(s)) out[`realm_${k}`] = val;
    // Zulip stopped sending realm_email_address_visibility at feature level 163 (it became a user setting).
    delete out.realm_email_address_visibility;
    Object.assign(out, {
      realm_name: realm.name,
      // The raw text, as Zulip's register sends it (the rendered HTML is in /server_settings and the update_dict event).
      realm_description: realm.description,
      realm_date_created: realm.date_created,
      realm_url: c.externalUrl,
      realm_uri: c.externalUrl,
      realm_icon_url: realmIconUrl(c, realm),
      realm_logo_url: realmLogoUrl(c, realm, false),
      realm_night_logo_url: realmLogoUrl(c, realm, true),
      realm_available_video_chat_providers: VIDEO_CHAT_PROVIDERS,
      realm_email_auth_enabled: true,
      realm_password_auth_enabled: true,
      realm_push_notifications_enabled_end_timestamp: null,
      settings_send_digest_emails: false,
      server_generation: SERVER_GENERATION,
      server_jitsi_server_url: 'https://meet.jit.si',
      upgrade_text_for_wide_organization_logo: '',
      realm_push_notifications_enabled: false,
      realm_presence_disabled: false,
      realm_authentication_methods: { Email: { enabled: true, available: true } },
      realm_empty_topic_display_name: s.empty_topic_display_name,
      // Full data exports without consent are not offered (feature level 438).
      realm_owner_full_content_access: false,
      navigation_tour_video_url: null,
      max_bulk_new_subscription_messages: MAX_BULK_NEW_SUBSCRIPTION_MESSAGES,
      max_message_length: c.maxMessageLength,
      max_topic_length: c.maxTopicLength,
      max_stream_name_length: c.maxStreamNameLength,
      max_stream_description_length: c.maxStreamDescriptionLength,
      max_file_upload_size_mib: c.maxFileUploadSizeMib,
      max_avatar_file_size_mib: 5,
      max_icon_file_size_mib: 5,
      max_logo_file_size_mib: 5,
      server_typing_started_wait_period_milliseconds: c.typingStartedWaitMs,
      server_typing_stopped_wait_period_milliseconds: c.typingStoppedWaitMs,
      server_typing_started_expiry_period_milliseconds: c.typingStartedExpiryMs,
      server_presence_ping_interval_seconds: PRESENCE.PING_INTERVAL_SECS,
      server_presence_offline_threshold_seconds: PRESENCE.OFFLINE_THRESHOLD_SECS,
      server_web_public_streams_enabled: c.webPublicStreamsEnabled,
      server_needs_upgrade: false,
      // Zulip's defaults (feature level 332): at least 14 days before a deactivated organization's data may be deleted, no maximum.
      server_min_deactivated_realm_deletion_days: 14,
      server_max_deactivated_realm_deletion_days: null,
      event_queue_longpoll_timeout_seconds: c.heartbeatSeconds + 45,
      password_min_length: PASSWORD_MIN_LENGTH,
      password_max_length: PASSWORD_MAX_LENGTH,
      password_min_guesses: PASSWORD_MIN_GUESSES,
      server_inline_image_preview: true,
      // The thumbnails made of uploaded images (/user_uploads/thumbnail/<path_id>/<name>).
      server_thumbnail_formats: THUMBNAIL_FORMATS.map((f) => ({ ...f })),
      server_inline_url_embed_preview: false,
      server_avatar_changes_disabled: false,
      server_name_changes_disabled: false,
      server_emoji_data_url: `${c.externalUrl}${EMOJI_DATA_PATH}`,
      giphy_api_key: '',
      // Named giphy_rating_options before feature level 453 (realm_gif_rating_policy comes with the settings).
      gif_rating_policy_options: GIPHY_RATING_OPTIONS,
      tenor_api_key: '',
      development_environment: false,
      realm_bot_domain: new URL(c.externalUrl).hostname,
      realm_org_type: s.org_type,
      realm_plan_type: s.plan_type,
      zulip_plan_is_not_limited: true,
      // What each group-based permission setting accepts: the tables Parley validates with.
      server_supported_permission_settings: serverSupportedPermissionSettings(),
      // The built-in external account providers for custom profile fields (zulip-flutter requires the map).
      realm_default_external_accounts: Object.fromEntries(Object.entries(DEFAULT_EXTERNAL_ACCOUNTS).map(([k, a]) => [k, { ...a }])),
      // realm_wildcard_mention_policy follows can_mention_many_users_group (src/state/streams.ts).
      // realm_can_delete_any_message_group / realm_can_delete_own_message_group
      // come with the other organization group settings (src/state/streams.ts).
    });
    // demo_organization_scheduled_deletion_date is present only for demo organizations (never here).
    if (opts.spectator) {
      // As Zulip tells logged-out visitors: they may not edit, and neither send nor see presence.
      out.realm_allow_message_editing = false;
      out.realm_presence_disabled = true;
    }
    return out;
  },
};

const domainsProvider: StateProvider = {
  types: ['realm_domains'],
  async fetch(svc) {
    return { realm_domains: await realmDomains(svc.store.db, svc.realmId) };
  },
};

const provider2: StateProvider = {
  types: ['realm_user'],
  async fetch(svc, opts) {
    const me = opts.user;
    // A spectator accesses every user (not as the guest that stands in for it), without their custom profile fields.
    const viewer = opts.spectator ? null : me;
    const rows = (await cachedUsers(svc)).list;
    // The legacy can_* booleans follow the organization's permission group settings.
    const realmRow = (await cachedRealm(svc)).row;
    const groups = await cachedGroups(svc, svc.store.db);
    const allowed = (name: string): boolean => groups.allows(me, realmGroupSetting(realmRow.settings_json, name, groups));
    const profile = await cachedProfileData(svc);
    const fmt = (u: (typeof rows)[number]) =>
      formatUser(svc.config, u, { viewer, clientGravatar: opts.clientGravatar, profileData: u.is_bot || opts.spectator ? undefined : (profile.get(u.id) ?? {}) });
    // Users a restricted guest may not access: left out for clients declaring
    // user_list_incomplete, otherwise "Unknown user" placeholders (always active).
    const access = await userAccess(svc, viewer);
    const people = rows.filter((u) => !u.is_system_bot);
    const accessible = access.all ? people : people.filter((u) => access.can(u));
    const placeholders = access.all || opts.clientCapabilities.user_list_incomplete ? [] : people.filter((u) => !access.can(u)).map((u) => inaccessibleUser(svc.config, u.id));
    return {
      realm_users: [...accessible.filter((u) => u.is_active).map(fmt), ...placeholders].sort((a, b) => Number(a.user_id) - Number(b.user_id)),
      realm_non_active_users: accessible.filter((u) => !u.is_active).map(fmt),
      cross_realm_bots: rows.filter((u) => u.is_system_bot).map((u) => ({ ...fmt(u), is_system_bot: true })),
      avatar_source: me.avatar_source,
      avatar_url_medium: avatarUrl(svc.config, me, false),
      avatar_url: avatarUrl(svc.config, me, false),
      can_create_streams: allowed('can_create_public_channel_group') || allowed('can_create_private_channel_group'),
      can_create_public_streams: allowed('can_create_public_channel_group'),
      can_create_private_streams: allowed('can_create_private_channel_group'),
      can_create_web_public_streams: svc.config.webPublicStreamsEnabled && allowed('can_create_web_public_channel_group'),
      can_invite_others_to_realm: allowed('can_invite_users_group'),
      is_admin: isAdminRole(me.role),
      is_owner: me.role === ROLE.OWNER,
      // Moderators and above, as is_admin counts owners (feature level 380).
      is_moderator: me.role <= ROLE.MODERATOR,
      is_guest: me.role === ROLE.GUEST,
      user_id: me.id,
      email: me.email,
      delivery_email: me.delivery_email,
      full_name: me.full_name,
      date_joined: isoFromSeconds(me.date_joined),
      role: me.role,
    };
  },
};

export default feature({
  state: [provider1, domainsProvider, provider2],
  filters: {
    // New users' avatars follow each client's client_gravatar choice.
    realm_user: (q, event, meta) => {
      // Clients that accept an incomplete user list are not told of users they may not access.
      if (meta.inaccessibleUser && q.opts.clientCapabilities.user_list_incomplete) return null;
      const person = event.person as Record<string, unknown> | undefined;
      if (event.op === 'add' && person && q.opts.clientGravatar && typeof person.avatar_url === 'string' && person.avatar_url.startsWith('https://secure.gravatar.com/')) {
        return { ...event, person: { ...person, avatar_url: null } };
      }
      return event;
    },
  },
});
