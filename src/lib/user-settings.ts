/**
 * Personal settings of a user (Zulip's UserBaseSettings) with their built-in
 * defaults and allowed values. The organization's "defaults for new users"
 * (realm_user_settings_defaults) start from these; a new user copies the
 * organization defaults at creation; later changes to the defaults never
 * touch existing users.
 */
import { v, type Validator } from './validators.ts';
import { ApiError } from './errors.ts';
import { memoByRow } from './util.ts';

export interface SettingDef {
  default: unknown;
  validator: Validator<unknown>;
  /** Included in realm_user_settings_defaults (per-user-only settings are not). */
  realmDefault: boolean;
}

const bool = (dflt: boolean, realmDefault = true): SettingDef => ({
  default: dflt,
  validator: v.bool() as Validator<unknown>,
  realmDefault,
});
const choice = (dflt: number | string, values: readonly (number | string)[]): SettingDef => ({
  default: dflt,
  validator: v.literal(values) as Validator<unknown>,
  realmDefault: true,
});
const intRange = (dflt: number, min: number, max: number): SettingDef => ({
  default: dflt,
  validator: v.int({ min, max }) as Validator<unknown>,
  realmDefault: true,
});

/** Zulip's bundled notification sounds (static/audio/notification_sounds), sorted; 'none' is also accepted. */
export const AVAILABLE_NOTIFICATION_SOUNDS = [
  'ascend', 'beep_boop', 'bink', 'bright', 'brlip', 'chime', 'deep tom', 'ding', 'double tap', 'down',
  'dry bongos', 'dutdut', 'fast ascend', 'flute', 'friendly', 'kick roll', 'loud tintong', 'metallic snare',
  'pan', 'shaker', 'simple', 'stairs', 'subtle', 'swish', 'tintong', 'up', 'wood block', 'zaping', 'zing', 'zulip',
] as const;
export const NOTIFICATION_SOUNDS = [...AVAILABLE_NOTIFICATION_SOUNDS, 'none'] as const;
export const EMOJISET_CHOICES = [
  { key: 'google', text: 'Google' },
  { key: 'twitter', text: 'Twitter' },
  { key: 'text', text: 'Plain text' },
  { key: 'google-blob', text: 'Google blobs' },
] as const;
export const EMOJISETS = EMOJISET_CHOICES.map((e) => e.key);
/** Language codes Zulip offers for default_language. */
export const LANGUAGE_CODES = [
  'ar', 'be', 'bg', 'bn', 'ca', 'cs', 'cy', 'da', 'de', 'el', 'en', 'en_GB', 'eo', 'es', 'fa', 'fi', 'fr', 'gl',
  'gu', 'hi', 'hu', 'id', 'it', 'ja', 'ko', 'lt', 'lv', 'ml', 'mn', 'nl', 'no', 'pl', 'pt', 'pt_BR', 'pt_PT',
  'ro', 'ru', 'si', 'sk', 'sr', 'sv', 'ta', 'te', 'tl', 'tr', 'uk', 'uz', 'vi', 'zh-hans', 'zh-hant', 'zh_TW',
] as const;

/**
 * Value checks Zulip makes outside the parameter validators (its
 * check_settings_values), with Zulip's messages.
 */
export function checkSettingValues(values: Record<string, unknown>): void {
  const lang = values.default_language;
  if (lang !== undefined && !(LANGUAGE_CODES as readonly string[]).includes(lang as string)) {
    throw new ApiError('Invalid default_language');
  }
  const sound = values.notification_sound;
  if (sound !== undefined && !(NOTIFICATION_SOUNDS as readonly string[]).includes(sound as string)) {
    throw new ApiError(`Invalid notification sound '${String(sound)}'`);
  }
  const period = values.email_notifications_batching_period_seconds;
  if (typeof period === 'number' && (period <= 0 || period > 7 * 24 * 60 * 60)) {
    throw new ApiError(`Invalid email batching period: ${period} seconds`);
  }
}

/** An IANA time zone name (or '' for unset), as Zulip's check_timezone. */
const timezoneValidator: Validator<unknown> = (x, name) => {
  if (typeof x !== 'string') throw new ApiError(`${name} is not a string`);
  if (x === '') return x;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: x });
  } catch {
    throw new ApiError(`${name} is not a recognized time zone`);
  }
  return x;
};

export const USER_SETTINGS: Record<string, SettingDef> = {
  // Display and interface
  twenty_four_hour_time: bool(false),
  web_mark_read_on_scroll_policy: choice(1, [1, 2, 3]),
  web_channel_default_view: choice(1, [1, 2, 3, 4]),
  starred_message_counts: bool(true),
  receives_typing_notifications: bool(true),
  web_suggest_update_timezone: bool(true),
  fluid_layout_width: bool(false),
  high_contrast_mode: bool(false),
  web_font_size_px: intRange(16, 1, 32767),
  web_line_height_percent: intRange(140, 1, 32767),
  color_scheme: choice(1, [1, 2, 3]),
  translate_emoticons: bool(false),
  display_emoji_reaction_users: bool(true),
  default_language: { default: 'en', validator: v.str() as Validator<unknown>, realmDefault: true },
  // The recent conversations view is 'recent' since feature level 454 ('recent_topics' before; migration 1010 renamed stored values).
  web_home_view: choice('inbox', ['recent', 'inbox', 'all_messages']),
  web_escape_navigates_to_home_view: bool(true),
  left_side_userlist: bool(false),
  emojiset: choice('google', EMOJISETS),
  demote_inactive_streams: choice(1, [1, 2, 3]),
  user_list_style: choice(3, [1, 2, 3]),
  web_animate_image_previews: choice('on_hover', ['always', 'on_hover', 'never']),
  web_stream_unreads_count_display_policy: choice(2, [1, 2, 3]),
  hide_ai_features: bool(false),
  web_inbox_show_channel_folders: bool(true),
  web_left_sidebar_show_channel_folders: bool(true),
  web_left_sidebar_unreads_count_summary: bool(true),
  web_navigate_to_sent_message: bool(true),
  timezone: { default: '', validator: timezoneValidator, realmDefault: false },
  enter_sends: bool(false),
  enable_drafts_synchronization: bool(true),
  // Notifications
  enable_stream_desktop_notifications: bool(false),
  enable_stream_email_notifications: bool(false),
  enable_stream_push_notifications: bool(false),
  enable_stream_audible_notifications: bool(false),
  notification_sound: { default: 'zulip', validator: v.str() as Validator<unknown>, realmDefault: true },
  enable_desktop_notifications: bool(true),
  enable_sounds: bool(true),
  enable_followed_topic_desktop_notifications: bool(true),
  enable_followed_topic_email_notifications: bool(true),
  enable_followed_topic_push_notifications: bool(true),
  enable_followed_topic_audible_notifications: bool(true),
  email_notifications_batching_period_seconds: { default: 120, validator: v.int() as Validator<unknown>, realmDefault: true },
  enable_offline_email_notifications: bool(true),
  enable_offline_push_notifications: bool(true),
  enable_online_push_notifications: bool(true),
  enable_digest_emails: bool(true),
  enable_marketing_emails: bool(true),
  enable_login_emails: bool(true),
  message_content_in_email_notifications: bool(true),
  pm_content_in_desktop_notifications: bool(true),
  wildcard_mentions_notify: bool(true),
  enable_followed_topic_wildcard_mentions_notify: bool(true),
  desktop_icon_count_display: choice(1, [1, 2, 3, 4]),
  realm_name_in_email_notifications_policy: choice(1, [1, 2, 3]),
  automatically_follow_topics_policy: choice(3, [1, 2, 3, 4]),
  automatically_unmute_topics_in_muted_streams_policy: choice(2, [1, 2, 3, 4]),
  automatically_follow_topics_where_mentioned: bool(true),
  resolved_topic_notice_auto_read_policy: choice('except_followed', ['always', 'except_followed', 'never']),
  presence_enabled: bool(true),
  send_private_typing_notifications: bool(true),
  send_stream_typing_notifications: bool(true),
  send_read_receipts: bool(true),
  allow_private_data_export: bool(false),
  email_address_visibility: choice(1, [1, 2, 3, 4, 5]),
};

export type UserSettings = Record<string, unknown>;

/** Built-in defaults of every setting. */
export function builtinUserSettings(): UserSettings {
  const out: UserSettings = {};
  for (const [k, def] of Object.entries(USER_SETTINGS)) out[k] = def.default;
  return out;
}

/** The organization's new-user defaults: built-ins overlaid with the stored changes. */
export function realmUserDefaults(storedJson: string): UserSettings {
  const stored = JSON.parse(storedJson || '{}') as UserSettings;
  const out: UserSettings = {};
  for (const [k, def] of Object.entries(USER_SETTINGS)) {
    if (def.realmDefault) out[k] = k in stored ? stored[k] : def.default;
  }
  return out;
}

/** Merged settings by stored JSON text: many users share a text, and a text is parsed once. */
const merged = new Map<string, Readonly<UserSettings>>();
let builtins: Readonly<UserSettings> | undefined;

/** A user's settings, shared and frozen (for reading only): built-ins overlaid with the stored values. */
export function userSettingsView(storedJson: string): Readonly<UserSettings> {
  let out = merged.get(storedJson);
  if (!out) {
    builtins ??= Object.freeze(builtinUserSettings());
    out = Object.freeze({ ...builtins, ...(JSON.parse(storedJson || '{}') as UserSettings) });
    if (merged.size >= 10_000) merged.clear();
    merged.set(storedJson, out);
  }
  return out;
}

/**
 * The same, for a user's row: kept with the row object, so that a send to a
 * channel's members looks up no settings text. Those texts run to about
 * 2 KB, and looking one up in the map above took about 0.2 µs even for
 * the string already there (20 µs for a 100-member channel, measured).
 */
export const userSettingsOf: (row: { readonly settings_json: string }) => Readonly<UserSettings> = memoByRow((row) => row.settings_json, userSettingsView);

/** A user's settings: built-ins overlaid with the user's stored values (a copy the caller may change). */
export function userSettings(storedJson: string): UserSettings {
  return { ...userSettingsView(storedJson) };
}
