import { setDraftsSynchronization } from '../drafts.ts';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { model } from '../model.ts';
import { Dialog } from './Dialog.tsx';
import { EmojiPicker, PickedEmoji, type Picked } from './Emoji.tsx';
import { ErrorLine, ImageChoice, useAction, useRequest } from './request.tsx';
import { Account, ANIMATE_PREVIEWS, AwayNotifications, HOME_VIEWS, SettingCheck, SettingSelect, CHANNEL_COUNTS, DEMOTE_INACTIVE, EMOJI_SETS, FONT_SIZES, LINE_HEIGHTS, THEMES, USER_LIST_STYLES } from './Account.tsx';
import { Avatar } from './Avatar.tsx';
import { fullTime, uploadedAvatarUrl } from '../util.ts';
import { Bots } from './Bots.tsx';
import { UserGroups } from './UserGroups.tsx';
import { CustomEmoji } from './CustomEmoji.tsx';
import { Linkifiers } from './Linkifiers.tsx';
import { isAdministrator, Organization } from './Organization.tsx';
import { Permissions } from './Permissions.tsx';
import { OwnProfileFields, ProfileFields } from './ProfileFields.tsx';
import { Playgrounds } from './Playgrounds.tsx';
import { ChannelFolders } from './ChannelFolders.tsx';
import { AlertWords, MutedUsers, Topics } from './Muting.tsx';
import { UserDefaults } from './UserDefaults.tsx';
import { Uploads } from './Uploads.tsx';
import { settingsSectionHash, takeSettingToFocus } from '../overlays.ts';

/**
 * The Settings dialog, opened at a section (the id of its heading; Zulip's
 * #settings/<section> and #organization/<section> addresses name them).
 */
export function Settings({ section, onClose }: { section: string | null; onClose(): void }) {
  const [name, setName] = useState(model.me.full_name);
  const [oldPw, setOldPw] = useState('');
  const [newPw, setNewPw] = useState('');
  const profile = useAction();
  const pw = useAction();
  const display = useAction();
  /** Drafts synchronization as just chosen, while the drafts move. */
  const [draftSync, setDraftSync] = useState<boolean | null>(null);

  // Shown at once; the user_settings event confirms it.
  const setSetting = (property: string, value: unknown) =>
    display.run(() => model.tentatively(model.settings, property, value, () => api('PATCH', '/settings', { [property]: value })), 'Saved.');

  const mayInvite = model.mayRealm('can_invite_users_group');
  const mayMakeLinks = model.mayRealm('create_multiuse_invite_group');
  const mayRename = model.mayChangeOwn('name');
  return (
    <Dialog id="settings-title" title="Settings" onClose={onClose}>
      <SectionIndex section={section} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void profile.run(() => api('PATCH', '/settings', { full_name: name }), 'Name saved.');
        }}
      >
        <h2 id="profile-title">Profile</h2>
        <label for="set-name">Full name</label>
        <div class="row">
          <input id="set-name" type="text" value={name} disabled={!mayRename} onInput={(e) => setName(e.currentTarget.value)} required maxLength={60} />
          <button class="btn primary" type="submit" disabled={profile.busy || !mayRename}>
            Save name
          </button>
        </div>
        {/* (The server would ignore the change, as Zulip's.) */}
        {!mayRename && <p class="muted-text">Name changes are disabled in this organization. Contact an administrator to change your name.</p>}
        {profile.view}
      </form>
      <StatusForm />
      <OwnAvatar />
      <OwnProfileFields />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void pw.run(async () => {
            await api('PATCH', '/settings', { old_password: oldPw, new_password: newPw });
            setOldPw('');
            setNewPw('');
          }, 'Password changed. Other sessions have been logged out.');
        }}
      >
        <h2 id="password-title">Password</h2>
        <label for="set-old-pw">Current password</label>
        <input id="set-old-pw" type="password" autocomplete="current-password" value={oldPw} onInput={(e) => setOldPw(e.currentTarget.value)} required />
        <label for="set-new-pw">New password</label>
        <input id="set-new-pw" type="password" autocomplete="new-password" value={newPw} onInput={(e) => setNewPw(e.currentTarget.value)} required minLength={6} maxLength={100} />
        <button class="btn" type="submit" disabled={pw.busy}>
          Change password
        </button>
        {pw.view}
      </form>
      <Account setSetting={setSetting} />
      <section>
        <h2 id="display-title">Display</h2>
        <SettingCheck property="twenty_four_hour_time" label="24-hour time" setSetting={setSetting} on={false} />
        <SettingSelect id="set-theme" property="color_scheme" label="Theme" choices={THEMES} fallback={1} setSetting={setSetting} />
        <SettingSelect id="set-font-size" property="web_font_size_px" label="Font size" choices={FONT_SIZES} fallback={16} setSetting={setSetting} />
        <SettingSelect id="set-line-height" property="web_line_height_percent" label="Line spacing" choices={LINE_HEIGHTS} fallback={140} setSetting={setSetting} />
        <SettingSelect
          id="set-emojiset"
          property="emojiset"
          label="Emoji"
          // Zulip's other image sets (set elsewhere) show as pictures here too.
          choices={model.settings.emojiset && !EMOJI_SETS.some(([v]) => v === model.settings.emojiset) ? [...EMOJI_SETS, [model.settings.emojiset as string, `Pictures (${model.settings.emojiset})`]] : EMOJI_SETS}
          fallback="google"
          setSetting={setSetting}
        />
        <SettingSelect id="set-animate" property="web_animate_image_previews" label="Play animated images" choices={ANIMATE_PREVIEWS} fallback="on_hover" setSetting={setSetting} />
        <SettingCheck property="fluid_layout_width" label="Use the full width of a wide window (else at most 1,400 pixels)" setSetting={setSetting} on={false} />
        <SettingCheck property="left_side_userlist" label="Show People in the left sidebar in narrow windows" setSetting={setSetting} on={false} />
        <SettingSelect id="set-user-list" property="user_list_style" label="People list" choices={USER_LIST_STYLES} fallback={3} setSetting={setSetting} />
        <SettingSelect id="set-channel-counts" property="web_stream_unreads_count_display_policy" label="Unread counts in the sidebar for" choices={CHANNEL_COUNTS} fallback={2} setSetting={setSetting} />
        <SettingCheck property="web_left_sidebar_show_channel_folders" label="Group channels by folder in the left sidebar" setSetting={setSetting} />
        <SettingCheck property="web_left_sidebar_unreads_count_summary" label="Show the unread count of each group of channels in the left sidebar" setSetting={setSetting} />
        <SettingCheck property="web_inbox_show_channel_folders" label="Group channels by folder in the Inbox" setSetting={setSetting} />
        <SettingSelect id="set-demote" property="demote_inactive_streams" label="Move channels without recent messages to the end of the sidebar" choices={DEMOTE_INACTIVE} fallback={1} setSetting={setSetting} />
        <SettingCheck property="starred_message_counts" label="Show how many messages I have starred" setSetting={setSetting} />
        <SettingCheck property="display_emoji_reaction_users" label="Show who reacted, in place of the count, while a message has few reactions" setSetting={setSetting} />
        <SettingCheck property="receives_typing_notifications" label="Show when others are typing" setSetting={setSetting} />
        <SettingCheck property="web_navigate_to_sent_message" label="After sending a message, go to its conversation (unless it alone is in view)" setSetting={setSetting} />
        <SettingCheck property="web_escape_navigates_to_home_view" label="Escape goes to the home view (when nothing else is open)" setSetting={setSetting} />
        <SettingCheck property="enter_sends" label="Enter sends the message (else Ctrl+Enter sends, and Enter starts a new line)" setSetting={setSetting} on={false} />
        <SettingSelect id="set-home" property="web_home_view" label="Home view" choices={HOME_VIEWS} fallback="inbox" setSetting={setSetting} />
        <SettingSelect id="set-channel-view" property="web_channel_default_view" label="A click on a channel in the sidebar opens" choices={CHANNEL_VIEWS} fallback={1} setSetting={setSetting} />
        <SettingSelect id="set-mark-read" property="web_mark_read_on_scroll_policy" label="Mark messages as read when they scroll into view" choices={MARK_READ} fallback={1} setSetting={setSetting} />
        <SettingCheck property="send_read_receipts" label="Let others see when I have read messages" setSetting={setSetting} />
        <label class="check">
          <input type="checkbox" checked={model.settings.send_stream_typing_notifications !== false && model.settings.send_private_typing_notifications !== false} onChange={async (e) => {
            const v = e.currentTarget.checked;
            await setSetting('send_private_typing_notifications', v);
            await setSetting('send_stream_typing_notifications', v);
          }} />
          Let others see when I am typing
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={draftSync ?? model.settings.enable_drafts_synchronization !== false}
            onChange={(e) => {
              const on = e.currentTarget.checked;
              // Shown at once; the drafts move before the setting changes.
              setDraftSync(on);
              void display.run(() => setDraftsSynchronization(on), 'Saved.').finally(() => setDraftSync(null));
            }}
          />
          Keep my drafts at the server (else only in this browser; they move when this changes)
        </label>
        {display.view}
      </section>
      <Notifications setSetting={setSetting} />
      <Uploads />
      <AlertWords />
      <Topics />
      <MutedUsers />
      {/* (Offered as the organization's can_invite_users_group and create_multiuse_invite_group allow, kept current by its events.) */}
      {mayInvite && <InvitePeople />}
      {(mayInvite || mayMakeLinks) && <Invitations links={mayMakeLinks} />}
      <Bots />
      <UserGroups />
      <CustomEmoji />
      {isAdministrator(model.me) && <Organization />}
      {isAdministrator(model.me) && <UserDefaults />}
      {isAdministrator(model.me) && <ChannelFolders />}
      <ProfileFields />
      <Linkifiers />
      <Playgrounds />
      <Permissions />
    </Dialog>
  );
}

/**
 * Buttons that scroll to each of the dialog's sections (its h2 headings):
 * Settings is long. The address names the section gone to, where Zulip's
 * has a name for it; the dialog opens at the section its address names.
 */
function SectionIndex({ section }: { section: string | null }) {
  const ref = useRef<HTMLElement>(null);
  const [names, setNames] = useState<string[]>([]);
  const headings = () => [...(ref.current?.parentElement?.querySelectorAll('h2') ?? [])];
  useLayoutEffect(() => setNames(headings().map((h) => h.textContent ?? '')), []);
  useLayoutEffect(() => {
    const dialog = ref.current?.parentElement;
    const heading = section ? dialog?.querySelector(`[id="${section}"]`) : null;
    // (No section, or one this user does not have, say an organization's for a member: the top.)
    if (heading) heading.scrollIntoView({ block: 'start' });
    else dialog?.scrollTo(0, 0);
    // A link to one setting: that setting, in view and focused.
    const id = takeSettingToFocus();
    const field = id ? dialog?.querySelector<HTMLElement>(`[id="${id}"]`) : null;
    if (field) {
      field.scrollIntoView({ block: 'center' });
      field.focus();
    }
  }, [section]);
  const goTo = (heading: HTMLElement) => {
    heading.scrollIntoView({ block: 'start' });
    const hash = settingsSectionHash(heading.id) ?? '#settings';
    if (location.hash !== hash) history.replaceState(null, '', hash);
  };
  return (
    <nav ref={ref} class="section-index" aria-label="Sections">
      {names.map((name, i) => (
        <button type="button" class="btn small" key={i} onClick={() => { const h = headings()[i]; if (h) goTo(h); }}>
          {name}
        </button>
      ))}
    </nav>
  );
}

/**
 * One's avatar: the current one (initials without an uploaded one), a new
 * one uploaded (the server makes it square), or the uploaded one removed.
 * The realm_user event brings the new address.
 */
function OwnAvatar() {
  const me = model.me;
  return (
    <section aria-label="Avatar">
      <ImageChoice
        id="set-avatar"
        label="Avatar"
        noun="Avatar"
        path="/users/me/avatar"
        current={<Avatar userId={me.user_id} name={me.full_name} size="large" />}
        uploaded={uploadedAvatarUrl(me.avatar_url) !== null}
        disabledWhy={model.mayChangeOwn('avatar') ? undefined : 'Avatar changes are disabled in this organization.'}
      />
    </section>
  );
}

/** Notifications: the browser's permission (asked on a click, as browsers require), what to be notified of, and sounds. */
function Notifications({ setSetting }: { setSetting(property: string, value: unknown): Promise<void> }) {
  const supported = typeof Notification !== 'undefined';
  const [permission, setPermission] = useState(supported ? Notification.permission : 'denied');
  return (
    <section>
      <h2 id="notifications-title">Notifications</h2>
      {!supported ? (
        <p>This browser cannot show notifications.</p>
      ) : permission === 'default' ? (
        <button type="button" class="btn" onClick={() => void Notification.requestPermission().then(setPermission)}>
          Allow desktop notifications
        </button>
      ) : permission === 'denied' ? (
        <p>The browser blocks notifications from this site; allow them in its site settings.</p>
      ) : (
        <p>Shown while this page is not in front.</p>
      )}
      <SettingCheck property="enable_desktop_notifications" label="Direct messages and mentions" setSetting={setSetting} />
      <SettingCheck property="enable_stream_desktop_notifications" label="Every message in my channels" setSetting={setSetting} on={false} />
      <SettingCheck property="enable_sounds" label="Sounds (direct messages, mentions), while this page is not in front" setSetting={setSetting} />
      <TopicPolicies setSetting={setSetting} />
      <AwayNotifications setSetting={setSetting} />
    </section>
  );
}

/** Zulip's web_channel_default_view values, as offered. */
const CHANNEL_VIEWS: Array<[number, string]> = [
  [1, 'Its newest topic'],
  [4, 'Its newest topic with unread messages'],
  [2, 'The channel feed'],
  [3, 'The list of its topics'],
];

/** Zulip's web_mark_read_on_scroll_policy values. */
const MARK_READ: Array<[number, string]> = [
  [1, 'Always'],
  [2, 'Only in conversation views (a topic or a direct-message conversation)'],
  [3, 'Never'],
];

/** Zulip's values for automatically following or unmuting topics. */
const TOPIC_POLICIES: Array<[number, string]> = [
  [1, 'Topics I participate in'],
  [2, 'Topics I send a message to'],
  [3, 'Topics I start'],
  [4, 'Never'],
];

/**
 * Which topics the server follows (or, in muted channels, unmutes) for the
 * user as they write in them, and following topics where they are mentioned.
 */
function TopicPolicies({ setSetting }: { setSetting(property: string, value: unknown): Promise<void> }) {
  return (
    <>
      <h3>Topics</h3>
      <SettingSelect id="set-automatically_follow_topics_policy" property="automatically_follow_topics_policy" label="Automatically follow topics" choices={TOPIC_POLICIES} fallback={3} setSetting={setSetting} />
      <SettingSelect
        id="set-automatically_unmute_topics_in_muted_streams_policy"
        property="automatically_unmute_topics_in_muted_streams_policy"
        label="Automatically unmute topics in muted channels"
        choices={TOPIC_POLICIES}
        fallback={2}
        setSetting={setSetting}
      />
      <SettingCheck property="automatically_follow_topics_where_mentioned" label="Automatically follow topics where I am mentioned" setSetting={setSetting} />
    </>
  );
}

/** Zulip's invite_as values, as offered here (owners are made by owners, in the API). */
const INVITE_ROLES: Array<[number, string]> = [
  [400, 'Member'],
  [600, 'Guest'],
  [300, 'Moderator'],
  [200, 'Administrator'],
  [100, 'Owner'],
];

/** The role an invitation gives (Zulip's invite_as), to choose: those the server lets the user give (a role up to their own; an owner's only by owners). */
function RoleSelect({ id, role, onRole }: { id: string; role: number; onRole(role: number): void }) {
  const mine = model.me.role ?? 400;
  return (
    <select id={id} value={String(role)} onChange={(e) => onRole(Number(e.currentTarget.value))}>
      {INVITE_ROLES.filter(([value]) => value >= 400 || value >= mine).map(([value, label]) => (
        <option key={value} value={String(value)}>
          {label}
        </option>
      ))}
    </select>
  );
}

/**
 * Invitations by email (POST /invites): they join the organization's default
 * channels. The server decides who may invite whom, and says why not.
 */
function InvitePeople() {
  const [emails, setEmails] = useState('');
  const [role, setRole] = useState(400);
  const [failed, setFailed] = useState<string[]>([]);
  const invite = useAction();
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        setFailed([]);
        void invite.run(async () => {
          try {
            await api('POST', '/invites', { invitee_emails: emails, invite_as: role, stream_ids: '[]', include_realm_default_subscriptions: true });
            setEmails('');
          } catch (err) {
            // Zulip lists each refused address with its reason.
            const errors = err instanceof ApiError ? (err.body as { errors?: Array<[string, string]> } | undefined)?.errors : undefined;
            if (errors) setFailed(errors.map(([addr, why]) => `${addr}: ${why}`));
            throw err;
          }
        }, 'Invitations sent.');
      }}
    >
      <h2 id="invite-title">Invite people</h2>
      <label for="invite-emails">Email addresses (separated by commas or new lines)</label>
      <textarea id="invite-emails" rows={3} value={emails} onInput={(e) => setEmails(e.currentTarget.value)} />
      <label for="invite-role">Join as</label>
      <RoleSelect id="invite-role" role={role} onRole={setRole} />
      <button type="submit" class="btn primary" disabled={invite.busy || !emails.trim()}>
        Invite
      </button>
      {invite.view}
      {failed.length > 0 && (
        <ul class="form-error" aria-label="Addresses not invited">
          {failed.map((f) => (
            <li key={f}>{f}</li>
          ))}
        </ul>
      )}
    </form>
  );
}

/** Zulip's suggested statuses: a text and its emoji (name, code). */
const STATUS_PRESETS: Array<[text: string, name: string, code: string]> = [
  ['Busy', 'working_on_it', '1f6e0'],
  ['In a meeting', 'calendar', '1f4c5'],
  ['Commuting', 'bus', '1f68c'],
  ['Out sick', 'hurt', '1f915'],
  ['Vacationing', 'palm_tree', '1f334'],
  ['Working remotely', 'house', '1f3e0'],
  ['At the office', 'office', '1f3e2'],
];

/**
 * One's status: an emoji, picked by name, and a text (POST
 * /users/me/status; the emoji by its name alone, the server finds its
 * code), or one of Zulip's suggested statuses, which fills both in. "Clear
 * status" removes both.
 */
function StatusForm() {
  const mine = model.statuses.get(model.me.user_id);
  const [text, setText] = useState(mine?.status_text ?? '');
  const [emoji, setEmoji] = useState<Picked | null>(mine?.emoji_name ? { name: mine.emoji_name, code: mine.reaction_type === 'unicode_emoji' ? (mine.emoji_code ?? '') : '' } : null);
  const [picking, setPicking] = useState(false);
  const st = useAction();
  const hasStatus = Boolean(mine?.status_text || mine?.emoji_name);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void st.run(() => api('POST', '/users/me/status', { status_text: text.trim(), emoji_name: emoji?.name ?? '' }), 'Status saved.');
      }}
    >
      <label for="set-status">Status</label>
      <div class="row">
        <span class="status-emoji">
          <button
            type="button"
            class="icon-btn"
            aria-label={emoji ? `Status emoji :${emoji.name}:, change it` : 'Choose a status emoji'}
            aria-expanded={picking}
            onClick={() => setPicking(!picking)}
          >
            {emoji ? <PickedEmoji emoji={emoji} /> : <span aria-hidden="true">{'\u263a'}</span>}
          </button>
          {picking && (
            <EmojiPicker
              onPick={(name, code) => {
                setEmoji({ name, code });
                setPicking(false);
              }}
              onClose={() => setPicking(false)}
            />
          )}
        </span>
        <input id="set-status" type="text" value={text} placeholder="What are you up to?" maxLength={60} onInput={(e) => setText(e.currentTarget.value)} />
      </div>
      <div class="status-presets" role="group" aria-label="Suggested statuses">
        {STATUS_PRESETS.map(([label, name, code]) => (
          <button
            type="button"
            class="btn ghost small"
            key={name}
            onClick={() => {
              setText(label);
              setEmoji({ name, code });
            }}
          >
            <PickedEmoji emoji={{ name, code }} /> {label}
          </button>
        ))}
      </div>
      <div class="row status-actions">
        {emoji && (
          <button type="button" class="btn ghost small" onClick={() => setEmoji(null)}>
            No emoji
          </button>
        )}
        <button class="btn" type="submit" disabled={st.busy}>
          Set status
        </button>
        {hasStatus && (
          <button
            type="button"
            class="btn ghost"
            disabled={st.busy}
            onClick={() =>
              void st.run(async () => {
                await api('POST', '/users/me/status', { status_text: '', emoji_name: '' });
                setText('');
                setEmoji(null);
              }, 'Status cleared.')
            }
          >
            Clear status
          </button>
        )}
      </div>
      {st.view}
    </form>
  );
}

/** An invitation not used yet, as GET /invites lists it: to an address, or a reusable link. */
interface Invite {
  id: number;
  is_multiuse: boolean;
  email?: string;
  link_url?: string;
  invited_as: number;
  invited_by_user_id: number;
  expiry_date: number | null;
}

/** How long a new invitation link lasts, in minutes ('' for ever). */
const LINK_LIFETIMES: Array<[string, string]> = [
  ['1440', '1 day'],
  ['10080', '7 days'],
  ['43200', '30 days'],
  ['', 'Never expires'],
];

/**
 * Invitation links (POST /invites/multiuse: the role they join as, how long
 * they last), and the invitations not used yet (GET /invites: one's own, or
 * everyone's for administrators), each revoked with a click; those by email
 * can be sent again. Fetched again on the invites_changed events.
 */
function Invitations({ links }: { links: boolean }) {
  const [role, setRole] = useState(400);
  const [lifetime, setLifetime] = useState('10080');
  const [link, setLink] = useState<string | null>(null);
  const [invites, setInvites] = useState<Invite[]>([]);
  const make = useAction();
  const change = useRequest();
  const version = model.invitesVersion;
  const load = async () => setInvites(((await api('GET', '/invites')).invites as Invite[]).sort((a, b) => b.id - a.id));
  useEffect(() => {
    void change.run(load);
  }, [version]);
  const roleName = (value: number) => INVITE_ROLES.find(([v]) => v === value)?.[1] ?? 'Owner';

  return (
    <section aria-labelledby="invitations-title">
      <h2 id="invitations-title">Invitations</h2>
      {links && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void make.run(async () => {
              const r = await api('POST', '/invites/multiuse', { invite_as: role, invite_expires_in_minutes: lifetime === '' ? null : Number(lifetime), include_realm_default_subscriptions: true });
              setLink(r.invite_link as string);
              await load();
            }, 'Invitation link made.');
          }}
        >
          <label for="link-role">Role given by the link</label>
          <RoleSelect id="link-role" role={role} onRole={setRole} />
          <label for="link-lifetime">Lasting</label>
          <select id="link-lifetime" value={lifetime} onChange={(e) => setLifetime(e.currentTarget.value)}>
            {LINK_LIFETIMES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
          <button type="submit" class="btn primary" disabled={make.busy}>
            Make invitation link
          </button>
          {make.view}
          {link && <input type="text" readOnly aria-label="New invitation link" value={link} onFocus={(e) => e.currentTarget.select()} />}
        </form>
      )}
      <ErrorLine error={change.error} />
      {invites.length === 0 ? (
        <p class="muted-text">No invitations waiting.</p>
      ) : (
        <ul class="linkifier-list" aria-label="Invitations waiting">
          {invites.map((i) => {
            const what = i.is_multiuse ? `Link ${i.link_url}` : (i.email ?? '');
            return (
              <li key={`${i.is_multiuse}:${i.id}`} aria-label={what}>
                <span class="org-person">
                  {i.is_multiuse ? <code>{i.link_url}</code> : i.email}{' '}
                  <span class="muted-text">
                    as {roleName(i.invited_as)}, by {model.userName(i.invited_by_user_id)}, {i.expiry_date ? `until ${fullTime(i.expiry_date)}` : 'no expiry'}
                  </span>
                </span>
                <span class="row-buttons">
                  {!i.is_multiuse && (
                    <button type="button" class="btn small" aria-label={`Send again to ${i.email}`} disabled={change.busy} onClick={() => void change.run(() => api('POST', `/invites/${i.id}/resend`))}>
                      Send again
                    </button>
                  )}
                  <button type="button" class="btn small" aria-label={`Revoke ${what}`} disabled={change.busy} onClick={() => void change.run(async () => {
                    await api('DELETE', i.is_multiuse ? `/invites/multiuse/${i.id}` : `/invites/${i.id}`);
                    await load();
                  })}>
                    Revoke
                  </button>
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
