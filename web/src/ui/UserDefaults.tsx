/**
 * The settings new users start with (Zulip's "Default user settings"): an
 * administrator changes them with PATCH /realm/user_settings_defaults; people
 * already in the organization keep their own. Shown on request, under the
 * Organization settings; the realm_user_settings_defaults events keep it
 * current.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model } from '../model.ts';
import { EMAIL_VISIBILITY, FONT_SIZES, HOME_VIEWS, LINE_HEIGHTS, SettingCheck, SettingSelect, THEMES } from './Account.tsx';
import { useAction } from './request.tsx';

/** The true-or-false defaults offered, with their labels and their value when the server has not said. */
const CHECKS: Array<[property: string, label: string, on: boolean]> = [
  ['twenty_four_hour_time', '24-hour time', false],
  ['enter_sends', 'Enter sends the message (else Ctrl+Enter)', false],
  ['web_escape_navigates_to_home_view', 'Escape goes to the home view', true],
  ['send_read_receipts', 'Let others see when they have read messages', true],
  ['presence_enabled', 'Let others see when they are online', true],
  ['enable_drafts_synchronization', 'Keep their drafts at the server', true],
  ['enable_desktop_notifications', 'Desktop notifications of direct messages and mentions', true],
  ['enable_sounds', 'Sounds for direct messages and mentions', true],
  ['enable_offline_email_notifications', 'Emails about direct messages and mentions while away', true],
  ['enable_offline_push_notifications', 'Phone notifications of direct messages and mentions while away', true],
  ['enable_digest_emails', 'Digest emails', true],
];

export function UserDefaults() {
  const [open, setOpen] = useState(false);
  const save = useAction();
  const values = model.userDefaults;
  // Shown at once; the realm_user_settings_defaults event confirms it.
  const setDefault = (property: string, value: unknown) =>
    save.run(() => model.tentatively(values, property, value, () => api('PATCH', '/realm/user_settings_defaults', { [property]: value })), 'Saved.');
  return (
    <section aria-labelledby="defaults-title">
      <h3 id="defaults-title">Default settings for new users</h3>
      <button type="button" class="btn" aria-expanded={open} aria-controls="user-defaults" onClick={() => setOpen(!open)}>
        {open ? 'Hide the defaults' : 'Show the defaults'}
      </button>
      {open && (
        <div id="user-defaults" class="settings-group" role="group" aria-label="Default settings for new users">
          <p class="muted-text">People who join from now on start with these; everyone can change their own, and people already here keep theirs.</p>
          <SettingSelect id="defaults-theme" property="color_scheme" label="Theme" choices={THEMES} fallback={1} values={values} setSetting={setDefault} />
          <SettingSelect id="defaults-font-size" property="web_font_size_px" label="Font size" choices={FONT_SIZES} fallback={16} values={values} setSetting={setDefault} />
          <SettingSelect id="defaults-line-height" property="web_line_height_percent" label="Line spacing" choices={LINE_HEIGHTS} fallback={140} values={values} setSetting={setDefault} />
          <SettingSelect id="defaults-home" property="web_home_view" label="Home view" choices={HOME_VIEWS} fallback="inbox" values={values} setSetting={setDefault} />
          <SettingSelect id="defaults-email" property="email_address_visibility" label="Who can see their email address" choices={EMAIL_VISIBILITY} fallback={1} values={values} setSetting={setDefault} />
          {CHECKS.map(([property, label, on]) => (
            <SettingCheck key={property} property={property} label={label} on={on} values={values} setSetting={setDefault} />
          ))}
          {save.view}
        </div>
      )}
    </section>
  );
}
