/** Organization settings: PATCH /realm, and trying the Welcome Bot's custom message. */
import { route } from '../route.ts';
import { p, v, type Param } from '../params.ts';
import { ApiError } from '../../lib/errors.ts';
import { groupSettingUpdate, type GroupSettingValue } from '../../actions/group-settings.ts';
import {
  MAX_REALM_DESCRIPTION_LENGTH,
  MAX_REALM_NAME_LENGTH,
  parseTimeLimit,
  REALM_GROUP_SETTINGS,
  REALM_TOPICS_POLICIES,
  EDIT_HISTORY_POLICIES,
  JITSI_SERVER_URL_MAX_LENGTH,
  MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH,
  ORG_TYPE_IDS,
  MEDIA_PREVIEW_SIZES,
  DEFAULT_AVATAR_SOURCES,
  updateRealmSettings,
} from '../../actions/realm-settings.ts';
import { sendTestWelcomeMessage } from '../../actions/welcome-bot.ts';

type GroupUpdate = { new: GroupSettingValue; old?: GroupSettingValue };

/** A JSON value, or the raw text when it is not JSON (clients send "unlimited" both ways). */
function jsonOrRaw(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** A time limit: JSON integer, or "unlimited" (JSON-encoded or raw, as clients send it). */
const timeLimit = (): Param<number | null> =>
  p.custom<number | null>('integer|string', (raw, name) => {
    return parseTimeLimit(jsonOrRaw(raw), name);
  });

const groupParams = Object.fromEntries(REALM_GROUP_SETTINGS.map((n) => [n, p.json(groupSettingUpdate, 'object').optional()])) as Record<
  string,
  Param<GroupUpdate | undefined>
>;

/** message_retention_days: a positive number of days or "unlimited" (-1). */
const retention = (): Param<number> =>
  p.custom<number>('integer|string', (raw, name) => {
    const value = jsonOrRaw(raw);
    if (value === 'unlimited') return -1;
    if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
    throw new ApiError(`Bad value for '${name}': ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  });

/** jitsi_server_url: a URL (at most 200 characters), or "default" for the server's. */
const jitsiUrl = (): Param<string | null> =>
  p.json<string | null>((value, name) => {
    if (typeof value !== 'string') throw new ApiError(`${name} is not a string`);
    if (value === 'default') return null;
    if (value.length > JITSI_SERVER_URL_MAX_LENGTH || !isHttpUrl(value)) throw new ApiError(`${name} is not an allowed_type`);
    return value;
  }, 'string');

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Zulip's PATCH /realm parameters for the simple organization settings. */
const settingParams = {
  invite_required: p.bool().optional(),
  emails_restricted_to_domains: p.bool().optional(),
  disallow_disposable_email_addresses: p.bool().optional(),
  waiting_period_threshold: p.int({ min: 0 }).optional(),
  allow_message_editing: p.bool().optional(),
  message_content_edit_limit_seconds: timeLimit().optional(),
  message_content_delete_limit_seconds: timeLimit().optional(),
  move_messages_within_stream_limit_seconds: timeLimit().optional(),
  move_messages_between_streams_limit_seconds: timeLimit().optional(),
  message_edit_history_visibility_policy: p.enumStr(EDIT_HISTORY_POLICIES).optional(),
  topics_policy: p.enumStr(REALM_TOPICS_POLICIES).optional(),
  message_retention_days: retention().optional(),
  inline_image_preview: p.bool().optional(),
  inline_url_embed_preview: p.bool().optional(),
  default_code_block_language: p.str().optional(),
  media_preview_size: p.json(v.literal(MEDIA_PREVIEW_SIZES), 'integer').optional(),
  digest_emails_enabled: p.bool().optional(),
  digest_weekday: p.json(v.literal([0, 1, 2, 3, 4, 5, 6]), 'integer').optional(),
  send_welcome_emails: p.bool().optional(),
  message_content_allowed_in_email_notifications: p.bool().optional(),
  welcome_message_custom_text: p.str({ maxLength: MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH }).optional(),
  require_e2ee_push_notifications: p.bool().optional(),
  send_channel_events_messages: p.bool().optional(),
  enable_read_receipts: p.bool().optional(),
  enable_guest_user_indicator: p.bool().optional(),
  enable_guest_user_dm_warning: p.bool().optional(),
  enable_spectator_access: p.bool().optional(),
  name_changes_disabled: p.bool().optional(),
  email_changes_disabled: p.bool().optional(),
  avatar_changes_disabled: p.bool().optional(),
  require_unique_names: p.bool().optional(),
  default_avatar_source: p.enumStr(DEFAULT_AVATAR_SOURCES).optional(),
  default_language: p.str().optional(),
  org_type: p.json(v.literal(ORG_TYPE_IDS), 'integer').optional(),
  want_advertise_in_communities_directory: p.bool().optional(),
  video_chat_provider: p.int().optional(),
  jitsi_server_url: jitsiUrl().optional(),
  gif_rating_policy: p.int().optional(),
  new_stream_announcements_stream_id: p.int().optional(),
  signup_announcements_stream_id: p.int().optional(),
  zulip_update_announcements_stream_id: p.int().optional(),
  moderation_request_channel_id: p.int().optional(),
};

/**
 * Every organization setting PATCH /realm takes, by name, with its decoding
 * (also used by the admin command line's `realm set`).
 */
export const REALM_SETTING_PARAMS: Record<string, Param<unknown>> = {
  name: p.str({ maxLength: MAX_REALM_NAME_LENGTH }).optional(),
  description: p.str({ maxLength: MAX_REALM_DESCRIPTION_LENGTH }).optional(),
  ...settingParams,
  ...groupParams,
  authentication_methods: p.json(v.dict(v.any()), 'object').optional(),
  string_id: p.str({ maxLength: 40 }).optional(),
};

export default [
  route({
    method: 'PATCH',
    path: '/realm',
    auth: 'user',
    summary: 'Update realm settings',
    params: REALM_SETTING_PARAMS,
    handler: (ctx, a) => {
      const args = a as Record<string, unknown>;
      const settings: Record<string, unknown> = {};
      for (const n of Object.keys(settingParams)) if (args[n] !== undefined) settings[n] = args[n];
      const groupSettings: Record<string, GroupUpdate> = {};
      for (const n of Object.keys(groupParams)) if (args[n] !== undefined) groupSettings[n] = args[n] as GroupUpdate;
      return updateRealmSettings(ctx.svc, ctx.user, {
        name: args.name as string | undefined,
        description: args.description as string | undefined,
        settings,
        groupSettings,
        authenticationMethods: args.authentication_methods as Record<string, unknown> | undefined,
        stringId: args.string_id as string | undefined,
      });
    },
  }),
  route({
    method: 'POST',
    path: '/realm/test_welcome_bot_custom_message',
    auth: 'user',
    summary: 'Test welcome bot custom message (administrators receive it themselves)',
    params: { welcome_message_custom_text: p.str({ maxLength: MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH }) },
    handler: async (ctx, a) => ({ message_id: await sendTestWelcomeMessage(ctx.svc, ctx.user, a.welcome_message_custom_text) }),
  }),
];
