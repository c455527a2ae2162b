import { useState } from 'preact/hooks';
import { api, endingSession, goToLogin, logout } from '../api.ts';
import { stop } from '../events.ts';
import { model } from '../model.ts';
import { zuliprc } from '../util.ts';
import { Confirm, useAction } from './request.tsx';

type SetSetting = (property: string, value: unknown) => Promise<void>;

/**
 * A user setting that is true or false, as a checkbox (`on` when the server
 * has not said): the user's own (`values` model.settings), or another set's
 * such as the organization's defaults for new users.
 */
export function SettingCheck({
  property,
  label,
  setSetting,
  on = true,
  values = model.settings,
}: {
  property: string;
  label: string;
  setSetting: SetSetting;
  on?: boolean;
  values?: Record<string, unknown>;
}) {
  const value = values[property];
  return (
    <label class="check">
      <input type="checkbox" checked={value === undefined ? on : !!value} onChange={(e) => void setSetting(property, e.currentTarget.checked)} />
      {label}
    </label>
  );
}

/**
 * A user setting with a few values, as a select (`fallback` when the server
 * has not said; a number setting's values are numbers): the user's own
 * (`values` model.settings), or another set's such as the organization's
 * defaults for new users.
 */
export function SettingSelect<T extends string | number>({
  id,
  property,
  label,
  choices,
  fallback,
  setSetting,
  values = model.settings,
}: {
  id: string;
  property: string;
  label: string;
  choices: ReadonlyArray<readonly [T, string]>;
  fallback: T;
  setSetting: SetSetting;
  values?: Record<string, unknown>;
}) {
  return (
    <>
      <label for={id}>{label}</label>
      <select
        id={id}
        value={String(values[property] ?? fallback)}
        onChange={(e) => void setSetting(property, typeof fallback === 'number' ? Number(e.currentTarget.value) : e.currentTarget.value)}
      >
        {choices.map(([v, text]) => (
          <option key={v} value={String(v)}>
            {text}
          </option>
        ))}
      </select>
    </>
  );
}

/** Zulip's color_scheme values, as offered. */
export const THEMES: Array<[number, string]> = [
  [1, 'Same as the system'],
  [3, 'Light'],
  [2, 'Dark'],
];

/** The font sizes Zulip's web app offers for web_font_size_px (12 to 20 px; 16 its default). */
export const FONT_SIZES: Array<[number, string]> = Array.from({ length: 9 }, (_, i) => 12 + i).map((px) => [px, px === 16 ? '16 px (default)' : `${px} px`]);

/** The line spacings Zulip's web app offers for web_line_height_percent (122% to 158% in steps of 9; 140% its default). */
export const LINE_HEIGHTS: Array<[number, string]> = [122, 131, 140, 149, 158].map((pct) => [pct, pct === 140 ? '140% (default)' : `${pct}%`]);

/** Zulip's demote_inactive_streams values: when the sidebar moves channels without recent messages to the end of their section. */
export const DEMOTE_INACTIVE: Array<[number, string]> = [
  [1, 'Automatically (with 20 channels or more)'],
  [2, 'Always'],
  [3, 'Never'],
];

/** Zulip's web_animate_image_previews values: when previews of animated images move. */
export const ANIMATE_PREVIEWS: Array<[string, string]> = [
  ['always', 'Always'],
  ['on_hover', 'When the pointer is over them'],
  ['never', 'Never'],
];

/**
 * Zulip's emojiset values this page shows apart: emoji as pictures (the
 * browser's own emoji font, for Zulip's image sets alike) or as their names.
 */
export const EMOJI_SETS: Array<[string, string]> = [
  ['google', 'Pictures'],
  ['text', 'Plain text (:smile:)'],
];

/** Zulip's user_list_style values: how People lists each person. */
export const USER_LIST_STYLES: Array<[number, string]> = [
  [1, 'Compact'],
  [2, 'Show status text'],
  [3, 'Show avatar'],
];

/** Zulip's web_stream_unreads_count_display_policy values: which channels show their unread counts in the sidebar. */
export const CHANNEL_COUNTS: Array<[number, string]> = [
  [1, 'All channels'],
  [2, 'Unmuted channels and topics'],
  [3, 'No channels'],
];

/** Zulip's web_home_view values. */
export const HOME_VIEWS: Array<[string, string]> = [
  ['inbox', 'Inbox'],
  ['recent', 'Recent conversations'],
  ['all_messages', 'All messages'],
];

/** Zulip's email_address_visibility values: who can see a user's real email address. */
export const EMAIL_VISIBILITY: Array<[number, string]> = [
  [1, 'Admins, moderators, members and guests'],
  [2, 'Admins, moderators and members'],
  [5, 'Admins and moderators'],
  [3, 'Admins only'],
  [4, 'Nobody'],
];

/** Zulip's choices for how long to wait before emailing about missed messages, in seconds. */
const BATCHING: Array<[number, string]> = [
  [120, '2 minutes'],
  [300, '5 minutes'],
  [600, '10 minutes'],
  [1800, '30 minutes'],
  [3600, '1 hour'],
  [21600, '6 hours'],
  [86400, '1 day'],
  [259200, '3 days'],
  [604800, '1 week'],
];

/**
 * Notifications away from this page: emails and phones (while the user is
 * away), digests, mentions of everyone, and followed topics on each way.
 */
export function AwayNotifications({ setSetting }: { setSetting: SetSetting }) {
  const batching = Number(model.settings.email_notifications_batching_period_seconds ?? 120);
  return (
    <>
      <h3>While I am away</h3>
      <SettingCheck property="enable_offline_email_notifications" label="Email me about direct messages and mentions" setSetting={setSetting} />
      <SettingCheck property="enable_offline_push_notifications" label="Notify my phones of direct messages and mentions" setSetting={setSetting} />
      <SettingCheck property="enable_stream_email_notifications" label="Email me about every message in my channels" setSetting={setSetting} on={false} />
      <SettingCheck property="enable_stream_push_notifications" label="Notify my phones of every message in my channels" setSetting={setSetting} on={false} />
      <SettingCheck property="enable_digest_emails" label="Send me digest emails" setSetting={setSetting} />
      <label for="set-batching">Wait before emailing</label>
      <select id="set-batching" value={String(batching)} onChange={(e) => void setSetting('email_notifications_batching_period_seconds', Number(e.currentTarget.value))}>
        {(BATCHING.some(([s]) => s === batching) ? BATCHING : [...BATCHING, [batching, `${batching} seconds`] as [number, string]]).map(([s, label]) => (
          <option key={s} value={String(s)}>
            {label}
          </option>
        ))}
      </select>
      <h3>Mentions of everyone and followed topics</h3>
      <SettingCheck property="wildcard_mentions_notify" label="Notify me of @all and @topic mentions" setSetting={setSetting} />
      <SettingCheck property="enable_followed_topic_desktop_notifications" label="Followed topics: desktop notifications" setSetting={setSetting} />
      <SettingCheck property="enable_followed_topic_audible_notifications" label="Followed topics: sounds" setSetting={setSetting} />
      <SettingCheck property="enable_followed_topic_email_notifications" label="Followed topics: emails" setSetting={setSetting} />
      <SettingCheck property="enable_followed_topic_push_notifications" label="Followed topics: phones" setSetting={setSetting} />
    </>
  );
}

/** The time zones this browser knows, by their IANA names. */
function timeZones(): string[] {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return [];
  }
}

/**
 * The account: its email address (a change is confirmed from the new
 * address), whether others see when one is online, one's time zone, and
 * deactivating it (asked twice; the server says when it may not be).
 */
export function Account({ setSetting }: { setSetting: SetSetting }) {
  const [email, setEmail] = useState('');
  const mayChangeEmail = model.mayChangeOwn('email');
  const [confirming, setConfirming] = useState(false);
  const change = useAction();
  const deactivate = useAction();
  const zone = String(model.settings.timezone ?? '');
  const zones = timeZones();
  return (
    <section aria-labelledby="account-title">
      <h2 id="account-title">Account</h2>
      <p>
        Email: <span aria-label="Current email">{model.me.delivery_email || model.me.email}</span>
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void change.run(async () => {
            await api('PATCH', '/settings', { email: email.trim() });
            setEmail('');
          }, 'Check your new address: the change is made once you follow the link sent there.');
        }}
      >
        <label for="set-email">New email</label>
        <div class="row">
          <input id="set-email" type="email" autocomplete="email" value={email} required disabled={!mayChangeEmail} onInput={(e) => setEmail(e.currentTarget.value)} />
          <button class="btn" type="submit" disabled={change.busy || !mayChangeEmail}>
            Change email
          </button>
        </div>
        {!mayChangeEmail && <p class="muted-text">Email address changes are disabled in this organization.</p>}
        {change.view}
      </form>
      <SettingSelect id="set-email-visibility" property="email_address_visibility" label="Who can see my email address" choices={EMAIL_VISIBILITY} fallback={1} setSetting={setSetting} />
      <SettingCheck property="presence_enabled" label="Let others see when I am online" setSetting={setSetting} />
      <SettingCheck property="allow_private_data_export" label="Let administrators export my private data" setSetting={setSetting} on={false} />
      <label for="set-timezone">Time zone</label>
      <select id="set-timezone" value={zone} onChange={(e) => void setSetting('timezone', e.currentTarget.value)}>
        <option value="">Not set</option>
        {zone && !zones.includes(zone) && <option value={zone}>{zone}</option>}
        {zones.map((z) => (
          <option key={z} value={z}>
            {z}
          </option>
        ))}
      </select>
      <OwnApiKey />
      {!confirming ? (
        <button type="button" class="btn danger" onClick={() => setConfirming(true)}>
          Deactivate my account
        </button>
      ) : (
        <Confirm
          label="Deactivate your account?"
          text="Deactivate your account? You will be logged out, and only an administrator can reactivate it."
          action="Yes, deactivate my account"
          busy={deactivate.busy}
          onConfirm={() =>
            void deactivate.run(async () => {
              endingSession(true);
              await api('DELETE', '/users/me').catch((err: unknown) => {
                endingSession(false);
                throw err;
              });
              stop();
              await logout();
              goToLogin();
            }, 'Deactivated.')
          }
          onCancel={() => setConfirming(false)}
        />
      )}
      {deactivate.view}
    </section>
  );
}

/**
 * One's own API key, for Zulip's apps, libraries and bots acting as oneself
 * (Zulip's "Manage your API key"): shown once the password is given again
 * (POST /json/fetch_api_key), with a zuliprc to download; a new one made
 * (POST /users/me/api_key/regenerate) once confirmed, which stops the old one
 * and ends one's other web sessions.
 */
function OwnApiKey() {
  const [asking, setAsking] = useState(false);
  const [password, setPassword] = useState('');
  const [shown, setShown] = useState<{ key: string; email: string } | null>(null);
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  return (
    <div class="settings-group" role="group" aria-label="API key">
      <span class="group-label">API key</span>
      {shown ? (
        <>
          <p>
            Your API key: <code aria-label="Your API key">{shown.key}</code>{' '}
            <a href={`data:text/plain;charset=utf-8,${encodeURIComponent(zuliprc(shown.email, shown.key))}`} download="zuliprc">
              Download zuliprc
            </a>
          </p>
          {!confirming ? (
            <div class="row">
              <button type="button" class="btn" onClick={() => setConfirming(true)}>
                Generate a new API key
              </button>
              <button type="button" class="btn" onClick={() => setShown(null)}>
                Hide
              </button>
            </div>
          ) : (
            <Confirm
              label="Generate a new API key?"
              text="Generate a new API key? Apps and bots using the old one stop working, and your other web sessions end."
              action="Yes, generate a new key"
              busy={action.busy}
              onConfirm={() =>
                void action.run(async () => {
                  const r = await api('POST', '/users/me/api_key/regenerate');
                  setShown({ key: r.api_key as string, email: shown.email });
                  setConfirming(false);
                }, 'A new API key is in use.')
              }
              onCancel={() => setConfirming(false)}
            />
          )}
        </>
      ) : asking ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void action.run(async () => {
              const r = await api('POST', '/fetch_api_key', { password });
              setShown({ key: r.api_key as string, email: r.email as string });
              setPassword('');
              setAsking(false);
            }, 'Keep it secret: it acts as you.');
          }}
        >
          <label for="set-api-password">Your password, to show the key</label>
          <div class="row">
            <input id="set-api-password" type="password" autocomplete="current-password" value={password} required onInput={(e) => setPassword(e.currentTarget.value)} />
            <button type="submit" class="btn" disabled={action.busy}>
              Show API key
            </button>
          </div>
        </form>
      ) : (
        <button type="button" class="btn" onClick={() => setAsking(true)}>
          Manage your API key
        </button>
      )}
      {action.view}
    </div>
  );
}
