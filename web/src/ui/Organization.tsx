import { DataExports } from './DataExports.tsx';
import { useState } from 'preact/hooks';
import { Fragment } from 'preact';
import { api } from '../api.ts';
import { model, type User } from '../model.ts';
import { ErrorLine, FormButtons, ImageChoice, useAction, useRequest } from './request.tsx';
import { closeOnEscape } from './Dialog.tsx';

/** Zulip's roles, highest first. */
export const ROLES: Array<[number, string]> = [
  [100, 'Owner'],
  [200, 'Administrator'],
  [300, 'Moderator'],
  [400, 'Member'],
  [600, 'Guest'],
];

/**
 * The roles offered for `u` in a role choice: Owner only to an owner, or
 * where `u` is one already (the server says why when it refuses a change).
 */
function rolesOfferedFor(u: { role: number }): Array<[number, string]> {
  return ROLES.filter(([r]) => model.me.role === 100 || r !== 100 || u.role === 100);
}

/** The options of a role choice for a user (or bot): its roles offered (rolesOfferedFor), by name. */
export function RoleOptions({ of: u }: { of: { role: number } }) {
  return (
    <>
      {rolesOfferedFor(u).map(([r, label]) => (
        <option key={r} value={String(r)}>
          {label}
        </option>
      ))}
    </>
  );
}

/** How many people the list shows at once (the filter finds the others). */
const SHOWN = 50;

/** Changes an organization setting (PATCH /realm, `param` when the API takes another form of the value), shown at once (model.tentatively). */
export function setRealm(property: string, value: unknown, param: unknown = value): Promise<void> {
  return model.tentatively(model.realm, `realm_${property}`, value, () => api('PATCH', '/realm', { [property]: param }));
}

/** Whether the user is an administrator or owner (Zulip's roles 200 and 100). */
export function isAdministrator(u: { role: number }): boolean {
  return u.role <= 200;
}

/**
 * For administrators: the organization's name and description (PATCH
 * /realm), how long it keeps messages, and its people: their roles (PATCH /users/{id}), deactivating and
 * reactivating accounts (DELETE /users/{id}, POST /users/{id}/reactivate).
 * The server decides who may do what (only owners make owners, the last
 * owner stays) and says why not; the list follows the realm_user events.
 */
export function Organization() {
  // What is typed here; null until then, and again once saved, so the fields
  // show the organization's values as they are (a change made elsewhere shows).
  const [typedName, setName] = useState<string | null>(null);
  const [typedDescription, setDescription] = useState<string | null>(null);
  const name = typedName ?? model.realm.realm_name ?? '';
  const description = typedDescription ?? model.realm.realm_description ?? '';
  const [filter, setFilter] = useState('');
  /** The person being renamed, and the name typed. */
  const [renaming, setRenaming] = useState<{ id: number; name: string } | null>(null);
  const profile = useAction();
  const people = useRequest();

  const wanted = filter.trim().toLowerCase();
  const humans = ([...model.users.values()] as User[])
    .filter((u) => !u.is_bot && (!wanted || u.full_name.toLowerCase().includes(wanted) || u.email.toLowerCase().includes(wanted)))
    .sort((a, b) => Number(b.is_active) - Number(a.is_active) || a.full_name.localeCompare(b.full_name));

  return (
    <section aria-labelledby="org-title">
      <h2 id="org-title">Organization</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void profile.run(async () => {
            await api('PATCH', '/realm', { name: name.trim(), description });
            setName(null);
            setDescription(null);
          }, 'Organization saved.');
        }}
      >
        <label for="org-name">Organization name</label>
        <input id="org-name" type="text" value={name} maxLength={40} required onInput={(e) => setName(e.currentTarget.value)} />
        <label for="org-description">Description</label>
        <textarea id="org-description" rows={2} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        <button type="submit" class="btn primary" disabled={profile.busy}>
          Save organization
        </button>
        {profile.view}
      </form>
      <OrganizationIcon />
      <MessageRetention />
      <NotificationChannels />
      <MessageFeed />
      <Calls />
      <DataExports />
      <h3 id="org-people-title">People</h3>
      <label for="org-filter">Find a person</label>
      <input id="org-filter" type="search" value={filter} placeholder="Name or email" onInput={(e) => setFilter(e.currentTarget.value)} />
      <ErrorLine error={people.error} />
      <ul class="org-people" aria-label="People in the organization">
        {humans.slice(0, SHOWN).map((u) => {
          const self = u.user_id === model.me.user_id;
          return (
            <li key={u.user_id} aria-label={u.full_name} class={u.is_active ? '' : 'deactivated'}>
              <span class="org-person">
                {u.full_name} <span class="muted-text">{u.email}</span>
              </span>
              <select
                aria-label={`Role of ${u.full_name}`}
                value={String(u.role)}
                disabled={self || !u.is_active || people.busy}
                onChange={(e) => {
                  const role = Number(e.currentTarget.value);
                  const select = e.currentTarget;
                  void people.run(() => api('PATCH', `/users/${u.user_id}`, { role })).then((ok) => {
                    // Refused: back to the role the user still has.
                    if (!ok) select.value = String(u.role);
                  });
                }}
              >
                <RoleOptions of={u} />
              </select>
              <button type="button" class="btn" disabled={people.busy} aria-label={`Rename ${u.full_name}`} aria-expanded={renaming?.id === u.user_id} onClick={() => setRenaming(renaming?.id === u.user_id ? null : { id: u.user_id, name: u.full_name })}>
                Rename
              </button>
              {!self &&
                (u.is_active ? (
                  <button type="button" class="btn" disabled={people.busy} aria-label={`Deactivate ${u.full_name}`} onClick={() => void people.run(() => api('DELETE', `/users/${u.user_id}`))}>
                    Deactivate
                  </button>
                ) : (
                  <button type="button" class="btn" disabled={people.busy} aria-label={`Reactivate ${u.full_name}`} onClick={() => void people.run(() => api('POST', `/users/${u.user_id}/reactivate`))}>
                    Reactivate
                  </button>
                ))}
              {renaming?.id === u.user_id && (
                <form
                  class="schedule-form org-rename"
                  aria-label={`Rename ${u.full_name}`}
                  onSubmit={(e) => {
                    e.preventDefault();
                    void people.run(() => api('PATCH', `/users/${u.user_id}`, { full_name: renaming.name.trim() })).then((ok) => ok && setRenaming(null));
                  }}
                  onKeyDown={closeOnEscape(() => setRenaming(null))}
                >
                  <label for={`rename-${u.user_id}`}>New name</label>
                  <input id={`rename-${u.user_id}`} type="text" value={renaming.name} required maxLength={60} onInput={(e) => setRenaming({ id: u.user_id, name: e.currentTarget.value })} />
                  <FormButtons submit="Save name" disabled={people.busy} error={null} onCancel={() => setRenaming(null)} inline />
                </form>
              )}
            </li>
          );
        })}
      </ul>
      {humans.length > SHOWN && <p class="muted-text">{humans.length - SHOWN} more: narrow the list with the search above.</p>}
    </section>
  );
}

/**
 * The organization's icon (in the top bar): an uploaded one (the server
 * makes it square), or none (Parley's mark; the server's default, a
 * Gravatar identicon, is never loaded). The realm event brings the change.
 */
function OrganizationIcon() {
  const uploaded = model.realm.realm_icon_source === 'U';
  return (
    <section aria-label="Organization icon">
      <h3>Icon</h3>
      <ImageChoice
        id="org-icon"
        label="Upload a new icon"
        noun="Icon"
        path="/realm/icon"
        current={uploaded ? <img class="org-icon" src={model.realm.realm_icon_url} alt="The organization's icon" /> : <span class="brand-mark big" aria-hidden="true" />}
        uploaded={uploaded}
      />
    </section>
  );
}

/** The organization's notification channels: the realm setting, what it is for, and whether only a private channel will do. */
const NOTIFICATION_CHANNELS = [
  ['new_stream_announcements_stream_id', 'New channel announcements', false],
  ['signup_announcements_stream_id', 'New user announcements', false],
  ['zulip_update_announcements_stream_id', 'Zulip update announcements', false],
  ['moderation_request_channel_id', 'Moderation requests (reported messages)', true],
] as const;

/**
 * Where the server announces new channels, new users and updates, and where
 * reported messages go (a private channel); "Disabled" for none (-1).
 * Shown at once, put back with the server's reason on a refusal; the realm
 * events show a change made elsewhere.
 */
function NotificationChannels() {
  const save = useAction();
  const channels = [...model.streams.values()].filter((c) => !c.is_archived).sort((a, b) => a.name.localeCompare(b.name));
  return (
    <>
      <h3>Automated messages and emails</h3>
      {NOTIFICATION_CHANNELS.map(([setting, label, privateOnly]) => (
        <Fragment key={setting}>
          <label for={`org-${setting}`}>{label}</label>
          <select
            id={`org-${setting}`}
            value={String(model.realm[`realm_${setting}`] ?? -1)}
            onChange={(e) => {
              const value = Number(e.currentTarget.value);
              void save.run(() => setRealm(setting, value), 'Saved.');
            }}
          >
            <option value="-1">Disabled</option>
            {channels
              .filter((c) => !privateOnly || c.invite_only)
              .map((c) => (
                <option key={c.stream_id} value={String(c.stream_id)}>
                  #{c.name}
                </option>
              ))}
          </select>
        </Fragment>
      ))}
      <OrganizationChecks checks={AUTOMATED_MESSAGES} />
      {save.view}
    </>
  );
}

/** The organization's on/off settings as Zulip's organization settings name them: the realm setting and its label. */
const AUTOMATED_MESSAGES = [
  ['send_channel_events_messages', 'Send automated messages for channel events'],
  ['digest_emails_enabled', 'Send weekly digest emails to inactive users'],
  ['send_welcome_emails', 'Send emails introducing Parley to new users'],
  ['message_content_allowed_in_email_notifications', 'Allow message content in message notification emails'],
] as const;
const MESSAGE_FEED = [
  ['inline_image_preview', 'Show previews of uploaded and linked images and videos'],
  ['inline_url_embed_preview', 'Show previews of linked websites'],
] as const;

/** Checkboxes for on/off organization settings; each change is shown at once and put back with the server's reason on a refusal. */
function OrganizationChecks({ checks }: { checks: ReadonlyArray<readonly [string, string]> }) {
  const save = useAction();
  return (
    <>
      {checks.map(([setting, label]) => (
        <label class="check" key={setting}>
          <input
            type="checkbox"
            checked={!!model.realm[`realm_${setting}`]}
            onChange={(e) => {
              const value = e.currentTarget.checked;
              void save.run(() => setRealm(setting, value), 'Saved.');
            }}
          />
          {label}
        </label>
      ))}
      {save.view}
    </>
  );
}

/** Zulip's "Message feed" settings: previews in messages. */
function MessageFeed() {
  return (
    <>
      <h3>Message feed</h3>
      <OrganizationChecks checks={MESSAGE_FEED} />
    </>
  );
}

/** How long the organization keeps messages, as the policy reads: -1 (Zulip's "unlimited") is forever. */
/**
 * Calls from the compose box (video_chat_provider: none or Jitsi Meet) and
 * the Jitsi server they open (jitsi_server_url; empty: the server's
 * default). Shown at once, put back on a refusal; the realm events show a
 * change made elsewhere.
 */
function Calls() {
  const save = useAction();
  const [typedUrl, setUrl] = useState<string | null>(null);
  const url = typedUrl ?? String(model.realm.realm_jitsi_server_url ?? '');
  const provider = Number(model.realm.realm_video_chat_provider ?? 1);
  return (
    <>
      <h3>Calls</h3>
      <label for="org-calls">Video and voice calls</label>
      <select
        id="org-calls"
        value={String(provider)}
        onChange={(e) => {
          const value = Number(e.currentTarget.value);
          void save.run(() => setRealm('video_chat_provider', value), 'Saved.');
        }}
      >
        <option value="0">None</option>
        <option value="1">Jitsi Meet</option>
      </select>
      {provider === 1 && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void save.run(async () => {
              await api('PATCH', '/realm', { jitsi_server_url: JSON.stringify(url.trim() || 'default') });
              setUrl(null);
            }, 'Saved.');
          }}
        >
          <label for="org-jitsi">Jitsi server</label>
          <div class="row">
            <input id="org-jitsi" type="url" placeholder={String(model.realm.server_jitsi_server_url ?? 'https://meet.jit.si')} value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
            <button type="submit" class="btn" disabled={save.busy}>
              Save server
            </button>
          </div>
        </form>
      )}
      {save.view}
    </>
  );
}

function retentionText(days: number): string {
  return days === -1 ? 'Keep messages forever' : `Delete messages after ${days} ${days === 1 ? 'day' : 'days'}`;
}

/**
 * The organization's message retention (message_retention_days): forever,
 * or a number of days after which messages are deleted. Administrators see
 * it; only owners change it, as in Zulip (PATCH /realm, "unlimited" or the
 * days). A change that deletes messages (a limit where there was none, or
 * a shorter one) is confirmed first. Shown at once, put back on a refusal;
 * the realm events show a change made elsewhere.
 */
function MessageRetention() {
  const days = (model.realm.realm_message_retention_days as number | null | undefined) ?? -1;
  const owner = model.me.role === 100;
  // Chosen and not yet saved; null shows the organization's policy.
  const [typedForever, setForever] = useState<boolean | null>(null);
  const [typedDays, setDays] = useState<string | null>(null);
  const forever = typedForever ?? days === -1;
  const shownDays = typedDays ?? (days === -1 ? '' : String(days));
  const save = useAction();
  // The days asked for, waiting for the owner to confirm that older messages go.
  const [confirming, setConfirming] = useState<number | null>(null);
  return (
    <>
      <h3 id="org-retention-title">Message retention</h3>
      <p id="org-retention-policy">{retentionText(days)}</p>
      {owner ? (
        <form
          aria-labelledby="org-retention-title"
          onSubmit={(e) => {
            e.preventDefault();
            const value = forever ? -1 : Number(shownDays);
            if (value !== -1 && (days === -1 || value < days) && confirming !== value) {
              setConfirming(value);
              return;
            }
            setConfirming(null);
            void save.run(async () => {
              await setRealm('message_retention_days', value, value === -1 ? 'unlimited' : value);
              setForever(null);
              setDays(null);
            }, 'Saved.');
          }}
        >
          <label for="org-retention">Keep messages</label>
          <div class="row">
            <select id="org-retention" value={forever ? 'forever' : 'days'} onChange={(e) => {
                setForever(e.currentTarget.value === 'forever');
                setConfirming(null);
              }}>
              <option value="forever">Forever</option>
              <option value="days">For a number of days</option>
            </select>
            {!forever && <input type="number" aria-label="Days to keep messages" min={1} step={1} required value={shownDays} onInput={(e) => {
                  setDays(e.currentTarget.value);
                  setConfirming(null);
                }} />}
            {confirming === null && (
              <button type="submit" class="btn" disabled={save.busy}>
                Save retention
              </button>
            )}
          </div>
          {confirming !== null && (
            <div class="confirm">
              <p>
                Messages older than {confirming} {confirming === 1 ? 'day' : 'days'} will be deleted for good, in every channel and conversation.
              </p>
              <button type="submit" class="btn danger" disabled={save.busy}>
                Delete older messages
              </button>{' '}
              <button type="button" class="btn" onClick={() => setConfirming(null)}>
                Cancel
              </button>
            </div>
          )}
          {save.view}
        </form>
      ) : (
        <p class="muted-text">Only organization owners can change this.</p>
      )}
    </>
  );
}
