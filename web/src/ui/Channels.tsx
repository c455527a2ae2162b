import { useEffect, useRef, useState } from 'preact/hooks';
import { api, failureText } from '../api.ts';
import { model, type GroupSettingValue, type Stream as Channel, type User } from '../model.ts';
import type { ChannelPart, ChannelsTab } from '../overlays.ts';
import { narrowToHash } from '../narrow.ts';
import { prepareHtml } from '../util.ts';
import { LOCK, nameMatches } from './Sidebar.tsx';
import { joinChannel, PersonalSettings, setSubscriptionProperty, unsubscribe } from './ChannelPersonal.tsx';
import { Dialog, Tabs } from './Dialog.tsx';
import { isAdministrator } from './Organization.tsx';
import { Confirm, ErrorLine, useAction, useRequest } from './request.tsx';
import { PickToAdd } from './UserGroups.tsx';
import { GroupSettingSelect, permissionConfigs } from './GroupSetting.tsx';

/** The ID of the channel of this name, once the client knows it (at most 10 s). */
function channelNamed(name: string): Promise<number | undefined> {
  const find = () => ([...model.streams.values()] as Channel[]).find((c) => c.name.toLowerCase() === name.toLowerCase())?.stream_id;
  return new Promise((resolve) => {
    const done = (id: number | undefined) => {
      unsubscribe();
      clearTimeout(timer);
      resolve(id);
    };
    const unsubscribe = model.subscribe(() => {
      const id = find();
      if (id !== undefined) done(id);
    });
    const timer = setTimeout(() => done(find()), 10_000);
    const now = find();
    if (now !== undefined) done(now);
  });
}

/** The Channels dialog's tabs, by Zulip's addresses of them (#channels/<tab>), with their names. */
const TABS: Array<[ChannelsTab, string]> = [
  ['subscribed', 'Subscribed'],
  ['notsubscribed', 'Not subscribed'],
  ['all', 'All channels'],
];

/** Which channels the list shows by whether they are archived: Zulip's filter, offered once a channel has been archived, with its names. */
type ArchivedFilter = 'non_archived_channels' | 'archived_channels' | 'all_channels';
const ARCHIVED_FILTERS: Array<[ArchivedFilter, string]> = [
  ['archived_channels', 'Archived channels'],
  ['non_archived_channels', 'Non-archived channels'],
  ['all_channels', 'Archived and non-archived'],
];

/**
 * The organization's channels this user can see: join, pin, mute, leave, open,
 * one's own settings for it (PersonalSettings); and, for those the
 * organization lets create channels, a form to create one (the creator is
 * subscribed, with the people chosen there). Everything through
 * /users/me/subscriptions, as Zulip's web app does; the lists follow the
 * server's events. Those who may administer a channel open its settings
 * (ChannelSettings, or ArchivedChannelSettings for an archived one). The
 * archived channels are listed on asking (Zulip's filter).
 */
export function Channels({ focus, part, create: creating, tab: firstTab = 'all', onClose }: { focus?: number; part?: ChannelPart; create?: boolean; tab?: ChannelsTab; onClose(): void }) {
  /** Which channels the list shows (Zulip's tabs, at their addresses), and the words their names are filtered by. */
  const [tab, setTab] = useState<ChannelsTab>(focus !== undefined ? 'all' : firstTab);
  const [filter, setFilter] = useState('');
  // (Opened at an archived channel's address: the archived ones, so that it is listed.)
  const [archivedFilter, setArchivedFilter] = useState<ArchivedFilter>(focus !== undefined && model.streams.get(focus)?.is_archived ? 'archived_channels' : 'non_archived_channels');
  const chooseTab = (t: ChannelsTab) => {
    setTab(t);
    // (Opened at the dialog's own address or a tab's: the address names the tab, as Zulip's.)
    if (/^#(channels|streams)(\/(all|subscribed|notsubscribed))?$/.test(location.hash)) history.replaceState(null, '', `#channels/${t}`);
  };
  const focused = focus !== undefined ? model.streams.get(focus) : undefined;
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [isPrivate, setPrivate] = useState(false);
  // Who may create which channels (the organization's can_create_public/private_channel_group, as Zulip's form offers them).
  const mayCreatePublic = model.mayRealm('can_create_public_channel_group');
  const mayCreatePrivate = model.mayRealm('can_create_private_channel_group');
  const makesPrivate = mayCreatePublic ? mayCreatePrivate && isPrivate : true;
  /** The people the new channel starts with, besides its creator. */
  const [members, setMembers] = useState<number[]>([]);
  // A channel's address (#channels/<id>/<name>) opens its settings, for those who may administer it, else one's own settings for it;
  // …/personal one's own settings, …/subscribers its subscribers (within its settings for those who may administer it).
  const administers = focused !== undefined && mayAdminister(focused);
  const [open, setOpen] = useState<number | null>(focused && administers && part !== 'personal' ? focused.stream_id : null);
  const [personal, setPersonal] = useState<number | null>(
    focused && model.subs.has(focused.stream_id) && (part === 'personal' || (!administers && part !== 'subscribers')) ? focused.stream_id : null,
  );
  /** The channel whose subscribers are shown, for those who do not administer it. */
  const [roster, setRoster] = useState<number | null>(focused && !administers && part === 'subscribers' ? focused.stream_id : null);
  const listRef = useRef<HTMLUListElement>(null);
  const nameRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (focused) (document.getElementById(part === 'subscribers' ? `channel-${focused.stream_id}-subscribers` : '') ?? listRef.current?.querySelector(`[data-channel="${focused.stream_id}"]`))?.scrollIntoView({ block: 'start' });
    // #channels/new (Zulip's address of the form, which Notification Bot's messages link to): the form, ready to type in.
    else if (creating) nameRef.current?.focus();
  }, []);
  const { busy, error, setError, run } = useRequest();

  const known = [...model.streams.values()] as Channel[];
  // (Not the archived ones unless asked for, as Zulip's list; offered once there are some, and kept while chosen.)
  const offerArchived = archivedFilter !== 'non_archived_channels' || known.some((c) => c.is_archived);
  const channels = known.filter((c) => archivedFilter === 'all_channels' || !!c.is_archived === (archivedFilter === 'archived_channels'));
  channels.sort((a, b) => a.name.localeCompare(b.name));
  const listed = channels.filter((c) => (tab === 'all' || model.subs.has(c.stream_id) === (tab === 'subscribed')) && nameMatches(c.name, filter));
  const nothingListed = filter.trim()
    ? 'No channels match.'
    : archivedFilter === 'archived_channels'
      ? 'No archived channels here.'
      : tab === 'subscribed'
        ? 'You are not subscribed to any channel.'
        : tab === 'notsubscribed'
          ? 'You are subscribed to every channel you can see.'
          : 'No channels yet.';

  const join = (c: Channel) => run(() => joinChannel(c.name));
  const leave = (c: Channel) => run(() => unsubscribe(c.name));
  const setProperty = (c: Channel, property: 'is_muted' | 'pin_to_top', value: boolean) => run(() => setSubscriptionProperty(c.stream_id, property, value));

  /** The button that turns a subscription's property on or off, named for what it does. */
  const toggle = (c: Channel, property: 'is_muted' | 'pin_to_top', [turnOn, turnOff]: [string, string]) => {
    const on = model.subs.get(c.stream_id)![property];
    const label = on ? turnOff : turnOn;
    return (
      <button type="button" class="btn" disabled={busy} aria-label={`${label} #${c.name}`} onClick={() => void setProperty(c, property, !on)}>
        {label}
      </button>
    );
  };

  async function create(e: Event): Promise<void> {
    e.preventDefault();
    const wanted = name.trim();
    if (!wanted) {
      setError('Give the channel a name.');
      return;
    }
    // Subscribing by name would join the existing one instead (an archived one too, as Zulip says).
    const existing = known.find((c) => c.name.toLowerCase() === wanted.toLowerCase());
    if (existing) {
      setError(existing.is_archived ? 'An archived channel with this name already exists.' : 'A channel with this name already exists.');
      return;
    }
    const made = await run(() =>
      api('POST', '/users/me/subscriptions', {
        subscriptions: JSON.stringify([{ name: wanted, description: description.trim() }]),
        invite_only: makesPrivate,
        ...(members.length ? { principals: JSON.stringify([model.me.user_id, ...members]) } : {}),
      }),
    );
    if (!made) return;
    setName('');
    setDescription('');
    setPrivate(false);
    setMembers([]);
    // Straight to the new channel, once its event has come in.
    const id = await channelNamed(wanted);
    if (id !== undefined) location.hash = narrowToHash([{ operator: 'channel', operand: id }]);
  }

  return (
    <Dialog id="channels-title" title="Channels" wide="channels-dialog" onClose={onClose}>
      <ErrorLine error={error} />
      <section>
        <h2>{TABS.find(([t]) => t === tab)![1]}</h2>
        <div class="channel-tabs">
          <Tabs label="Which channels" tabs={TABS} current={tab} onChoose={chooseTab} />
          <input type="search" class="channel-browser-filter" placeholder="Filter channels" aria-label="Filter channels" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
          {offerArchived && (
            <select aria-label="Archived or not" value={archivedFilter} onChange={(e) => setArchivedFilter(e.currentTarget.value as ArchivedFilter)}>
              {ARCHIVED_FILTERS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </div>
        {listed.length === 0 && <p class="muted-text">{nothingListed}</p>}
        <ul class="channel-browser" aria-label={TABS.find(([t]) => t === tab)![1]} ref={listRef}>
          {listed.map((c) => {
            const subscribed = model.subs.has(c.stream_id);
            const opened = open === c.stream_id;
            const personalOpen = subscribed && personal === c.stream_id;
            const rosterOpen = roster === c.stream_id && !mayAdminister(c);
            return (
              <li key={c.stream_id} aria-label={`#${c.name}`} data-channel={c.stream_id}>
                <div class="channel-info">
                  <span class="channel-title">
                    <a href={narrowToHash([{ operator: 'channel', operand: c.stream_id }])} class="channel-name">
                      {c.invite_only && LOCK}#{c.name}
                    </a>
                    {c.is_archived && <span class="channel-archived">Archived</span>}
                  </span>
                  {c.rendered_description && <span class="channel-description rendered" dangerouslySetInnerHTML={{ __html: prepareHtml(c.rendered_description) }} />}
                  {c.subscriber_count !== undefined && <span class="channel-subscribers">{c.subscriber_count === 1 ? '1 subscriber' : `${c.subscriber_count} subscribers`}</span>}
                </div>
                <span class="channel-actions">
                  {subscribed ? (
                    <>
                      {/* (An archived channel is in no sidebar or feed to pin it to or mute it in.) */}
                      {!c.is_archived && toggle(c, 'pin_to_top', ['Pin', 'Unpin'])}
                      {!c.is_archived && toggle(c, 'is_muted', ['Mute', 'Unmute'])}
                      <button type="button" class="btn" disabled={busy} aria-label={`Leave #${c.name}`} onClick={() => void leave(c)}>
                        Leave
                      </button>
                      <button
                        type="button"
                        class="btn"
                        aria-expanded={personalOpen}
                        aria-label={`${personalOpen ? 'Close' : 'Open'} personal settings of #${c.name}`}
                        onClick={() => setPersonal(personalOpen ? null : c.stream_id)}
                      >
                        Personal settings
                      </button>
                    </>
                  ) : (
                    // (Not for a channel the server would not let them join, as Zulip's: a private one they may only see.)
                    model.mayJoin(c.stream_id) && (
                      <button type="button" class="btn primary" disabled={busy} aria-label={`Join #${c.name}`} onClick={() => void join(c)}>
                        Join
                      </button>
                    )
                  )}
                  {!mayAdminister(c) && (subscribed || !c.invite_only) && (
                    <button
                      type="button"
                      class="btn"
                      aria-expanded={rosterOpen}
                      aria-label={`${rosterOpen ? 'Close' : 'Open'} subscribers of #${c.name}`}
                      onClick={() => setRoster(rosterOpen ? null : c.stream_id)}
                    >
                      Subscribers
                    </button>
                  )}
                  {mayAdminister(c) && (
                    <button type="button" class="btn" aria-expanded={opened} aria-label={`${opened ? 'Close' : 'Open'} settings of #${c.name}`} onClick={() => setOpen(opened ? null : c.stream_id)}>
                      Settings
                    </button>
                  )}
                </span>
                {personalOpen && <PersonalSettings key={`personal-${c.stream_id}`} streamId={c.stream_id} />}
                {opened && mayAdminister(c) && (c.is_archived ? <ArchivedChannelSettings key={`archived-${c.stream_id}`} channel={c} /> : <ChannelSettings key={c.stream_id} channel={c} />)}
                {rosterOpen && (
                  <div class="group-editor" role="group" aria-label={`Subscribers of #${c.name}`}>
                    <ChannelSubscribers key={`roster-${c.stream_id}`} channel={c} />
                  </div>
                )}
              </li>
            );
          })}
        </ul>
      </section>
      {(mayCreatePublic || mayCreatePrivate) && (
        <form onSubmit={(e) => void create(e)}>
          <h2>New channel</h2>
          <label for="new-channel-name">Name</label>
          <input id="new-channel-name" ref={nameRef} type="text" value={name} maxLength={model.realm.max_stream_name_length ?? 60} onInput={(e) => setName(e.currentTarget.value)} />
          <label for="new-channel-description">Description</label>
          <input
            id="new-channel-description"
            type="text"
            value={description}
            maxLength={model.realm.max_stream_description_length ?? 1024}
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
          <label class="check">
            <input type="checkbox" checked={makesPrivate} disabled={!mayCreatePublic || !mayCreatePrivate} onChange={(e) => setPrivate(e.currentTarget.checked)} />
            Private: only people added to it can see it
          </label>
          <label for="new-channel-members">People to add (besides you)</label>
          <select
            id="new-channel-members"
            multiple
            size={5}
            onChange={(e) => setMembers([...e.currentTarget.selectedOptions].map((o) => Number(o.value)))}
          >
            {[...model.users.values()]
              .filter((u) => u.is_active && !u.is_bot && u.user_id !== model.me.user_id)
              .sort((a, b) => a.full_name.localeCompare(b.full_name))
              .map((u) => (
                <option key={u.user_id} value={String(u.user_id)} selected={members.includes(u.user_id)}>
                  {u.full_name}
                </option>
              ))}
          </select>
          <button type="submit" class="btn primary" disabled={busy}>
            Create channel
          </button>
        </form>
      )}
    </Dialog>
  );
}

/** Whether the user may administer the channel, as the server decides: organization administrators, and can_administer_channel_group. */
function mayAdminister(c: Channel): boolean {
  return model.mayAdministerChannel(c.stream_id);
}

/** Who can read a channel: its invite_only and history_public_to_subscribers. */
const PRIVACY = {
  public: { label: 'Public: anyone in the organization can find and join it', is_private: false, history_public_to_subscribers: true },
  shared: { label: 'Private, with its whole history shown to subscribers', is_private: true, history_public_to_subscribers: true },
  protected: { label: 'Private, subscribers see only what was sent after they joined', is_private: true, history_public_to_subscribers: false },
} as const;
type Privacy = keyof typeof PRIVACY;

/** What was typed or chosen, or null when it is what the channel already has. */
function differs<T>(value: T, current: T): T | null {
  return value === current ? null : value;
}

function privacyOf(c: Channel): Privacy {
  return !c.invite_only ? 'public' : c.history_public_to_subscribers === false ? 'protected' : 'shared';
}

/**
 * A channel's settings, for those who may administer it: its name,
 * description and privacy (PATCH /streams/{id}), its subscribers (GET
 * /streams/{id}/members, kept current by peer events; added and removed
 * through /users/me/subscriptions with principals), archiving (DELETE
 * /streams/{id}, once confirmed), and, for organization administrators,
 * whether new users join it (POST/DELETE /default_streams). What is shown
 * follows the server's events; its refusals are shown as they come.
 */
/** The channel group settings offered here, with what they let people do. */
const CHANNEL_PERMISSIONS: Array<[string, string]> = [
  ['can_send_message_group', 'Who can post to it'],
  ['can_create_topic_group', 'Who can start new topics'],
  ['can_subscribe_group', 'Who can subscribe themselves'],
  ['can_add_subscribers_group', 'Who can add subscribers'],
  ['can_remove_subscribers_group', 'Who can remove subscribers'],
  ['can_administer_channel_group', 'Who can administer it'],
  ['can_resolve_topics_group', 'Who can resolve topics'],
  ['can_move_messages_within_channel_group', 'Who can move messages between its topics'],
  ['can_move_messages_out_of_channel_group', 'Who can move messages out of it'],
  ['can_delete_any_message_group', 'Who can delete any message in it'],
  ['can_delete_own_message_group', 'Who can delete their own messages in it'],
];

/**
 * A channel's group settings (who can post to it, subscribe, administer it,
 * and so on): each a role, nobody or a user group, as the server allows;
 * changed with Zulip's {new, old} (PATCH /streams/{id}), refused by the
 * server where the user may not, and kept current by the stream events.
 */
function ChannelPermissions({ channel: c }: { channel: Channel }) {
  const change = useAction();
  const configs = permissionConfigs('stream');
  const values = c as unknown as Record<string, GroupSettingValue | undefined>;
  return (
    <div class="settings-group" role="group" aria-label={`Permissions of #${c.name}`}>
      <h4>Permissions</h4>
      <p class="muted-text">For this channel, in addition to what the organization's permissions allow.</p>
      {CHANNEL_PERMISSIONS.map(([name, label]) => (
        <GroupSettingSelect
          key={name}
          id={`channel-${c.stream_id}-${name}`}
          label={label}
          current={values[name]}
          config={configs[name]}
          disabled={change.busy}
          save={(next, value) =>
            // Shown at once; the stream event confirms it.
            model.tentatively(values, name, next, () => api('PATCH', `/streams/${c.stream_id}`, { [name]: value }))
          }
          onChange={(run) => void change.run(run, 'Saved.')}
        />
      ))}
      {change.view}
    </div>
  );
}

/** Zulip's channel topics_policy values, as offered (the general chat's name given). */
const TOPICS_POLICIES: Array<[string, (generalChat: string) => string]> = [
  ['inherit', () => 'As the organization says'],
  ['allow_empty_topic', (g) => `Named topics, and messages without one (in \u201c${g}\u201d)`],
  ['disable_empty_topic', () => 'Named topics only'],
  ['empty_topic_only', (g) => `No topics: \u201c${g}\u201d only`],
];

function ChannelSettings({ channel: c }: { channel: Channel }) {
  // What is typed or chosen here; null until then (or when it is what the channel has), so a change made elsewhere shows.
  const [typedName, setName] = useState<string | null>(null);
  const [typedDescription, setDescription] = useState<string | null>(null);
  const [chosenPrivacy, setPrivacy] = useState<Privacy | null>(null);
  /** The folder chosen ('' for none), or null when it is the channel's. */
  const [chosenFolder, setFolder] = useState<string | null>(null);
  /** The topics policy chosen, or null when it is the channel's. */
  const [chosenTopics, setTopics] = useState<string | null>(null);
  const [confirmArchive, setConfirmArchive] = useState(false);
  const save = useAction();
  const change = useRequest();
  const id = c.stream_id;
  const privacy = chosenPrivacy ?? privacyOf(c);
  const currentFolder = c.folder_id == null ? '' : String(c.folder_id);
  const folder = chosenFolder ?? currentFolder;
  const currentTopics = c.topics_policy ?? 'inherit';
  const topicsPolicy = chosenTopics ?? currentTopics;
  const folders = model.activeFolders();

  function submit(e: Event): void {
    e.preventDefault();
    const name = (typedName ?? c.name).trim();
    const description = typedDescription ?? c.description ?? '';
    const wanted = PRIVACY[privacy];
    const params = {
      ...(name !== c.name ? { new_name: name } : {}),
      ...(description !== (c.description ?? '') ? { description } : {}),
      ...(privacy !== privacyOf(c) ? { is_private: wanted.is_private, history_public_to_subscribers: wanted.history_public_to_subscribers } : {}),
      ...(folder !== currentFolder ? { folder_id: folder === '' ? null : Number(folder) } : {}),
      ...(topicsPolicy !== currentTopics ? { topics_policy: topicsPolicy } : {}),
    };
    // What was typed or chosen when saving: what is typed or chosen meanwhile stays after the save.
    const sent = { typedName, typedDescription, chosenPrivacy, chosenFolder, chosenTopics };
    void save.run(async () => {
      if (Object.keys(params).length) {
        await api('PATCH', `/streams/${id}`, params);
        // Shown as saved at once: choosing the old value again before the event comes must be a change to send.
        model.updateChannel(id, {
          ...(params.new_name !== undefined ? { name: params.new_name } : {}),
          ...(params.description !== undefined ? { description: params.description } : {}),
          ...(params.is_private !== undefined ? { invite_only: params.is_private, history_public_to_subscribers: params.history_public_to_subscribers } : {}),
          ...(params.folder_id !== undefined ? { folder_id: params.folder_id } : {}),
          ...(params.topics_policy !== undefined ? { topics_policy: params.topics_policy } : {}),
        });
        model.changed();
      }
      setName((now) => (now === sent.typedName ? null : now));
      setDescription((now) => (now === sent.typedDescription ? null : now));
      setPrivacy((now) => (now === sent.chosenPrivacy ? null : now));
      setFolder((now) => (now === sent.chosenFolder ? null : now));
      setTopics((now) => (now === sent.chosenTopics ? null : now));
    }, 'Channel saved.');
  }

  return (
    <div class="group-editor" role="group" aria-label={`Settings of #${c.name}`}>
      <form onSubmit={submit}>
        <label for={`channel-${id}-name`}>Channel name</label>
        <input id={`channel-${id}-name`} type="text" value={typedName ?? c.name} required maxLength={model.realm.max_stream_name_length ?? 60} onInput={(e) => setName(differs(e.currentTarget.value, c.name))} />
        <label for={`channel-${id}-description`}>Channel description</label>
        <input
          id={`channel-${id}-description`}
          type="text"
          value={typedDescription ?? c.description ?? ''}
          maxLength={model.realm.max_stream_description_length ?? 1024}
          onInput={(e) => setDescription(differs(e.currentTarget.value, c.description ?? ''))}
        />
        <label for={`channel-${id}-privacy`}>Who can read it</label>
        <select id={`channel-${id}-privacy`} value={privacy} onChange={(e) => setPrivacy(differs(e.currentTarget.value as Privacy, privacyOf(c)))}>
          {(Object.keys(PRIVACY) as Privacy[]).map((p) => (
            <option key={p} value={p}>
              {PRIVACY[p].label}
            </option>
          ))}
        </select>
        {(folders.length > 0 || currentFolder) && (
          <>
            <label for={`channel-${id}-folder`}>Folder</label>
            <select id={`channel-${id}-folder`} value={folder} onChange={(e) => setFolder(differs(e.currentTarget.value, currentFolder))}>
              <option value="">No folder</option>
              {folders.map((f) => (
                <option key={f.id} value={String(f.id)}>
                  {f.name}
                </option>
              ))}
            </select>
          </>
        )}
        <label for={`channel-${id}-topics`}>Topics</label>
        <select id={`channel-${id}-topics`} value={topicsPolicy} onChange={(e) => setTopics(differs(e.currentTarget.value, currentTopics))}>
          {TOPICS_POLICIES.map(([value, label]) => (
            <option key={value} value={value}>
              {label(model.generalChatName())}
            </option>
          ))}
        </select>
        <button type="submit" class="btn primary" disabled={save.busy}>
          Save channel
        </button>
        {save.view}
      </form>
      {isAdministrator(model.me) && (
        <label class="check">
          <input
            type="checkbox"
            checked={model.defaultStreams.has(id)}
            disabled={change.busy}
            onChange={(e) => {
              const box = e.currentTarget;
              const on = box.checked;
              // Shown as the server has it until its event says otherwise.
              box.checked = !on;
              void change.run(() => api(on ? 'POST' : 'DELETE', '/default_streams', { stream_id: id }));
            }}
          />
          Default channel: new users join it
        </label>
      )}
      <ChannelPermissions channel={c} />
      <ChannelSubscribers channel={c} />
      {confirmArchive ? (
        <Confirm
          label={`Archive #${c.name}?`}
          text={`Archive #${c.name}? It leaves the left sidebar for all users, no new messages can be sent to it, and its messages cannot be edited, deleted, or moved. Users can still search for its messages, and you can always unarchive it.`}
          action="Archive"
          busy={change.busy}
          onConfirm={() => {
            setConfirmArchive(false);
            void change.run(() => api('DELETE', `/streams/${id}`));
          }}
          onCancel={() => setConfirmArchive(false)}
        />
      ) : (
        <button type="button" class="btn" disabled={change.busy} onClick={() => setConfirmArchive(true)}>
          Archive #{c.name}
        </button>
      )}
      <ErrorLine error={change.error} />
    </div>
  );
}

/**
 * An archived channel's settings, for those who may administer it: nothing
 * to change (the server refuses, as Zulip's: "Archived channel permissions
 * can't be modified."), its subscribers to see, and Unarchive (PATCH
 * /streams/{id} with is_archived false), once confirmed with what Zulip's
 * question says it does. The channel's stream event brings it back.
 */
function ArchivedChannelSettings({ channel: c }: { channel: Channel }) {
  const [confirm, setConfirm] = useState(false);
  const change = useRequest();
  return (
    <div class="group-editor" role="group" aria-label={`Settings of #${c.name}`}>
      <p class="muted-text">This channel is archived. Archived channel permissions can't be modified.</p>
      {confirm ? (
        <Confirm
          label={`Unarchive #${c.name}?`}
          text={`Unarchive #${c.name}? Unarchiving this channel will make it appear in the left sidebar for all subscribers, allow sending new messages to it, and allow its messages to be edited, deleted, or moved.`}
          action="Unarchive"
          busy={change.busy}
          onConfirm={() => {
            setConfirm(false);
            void change.run(() => api('PATCH', `/streams/${c.stream_id}`, { is_archived: false }));
          }}
          onCancel={() => setConfirm(false)}
        />
      ) : (
        <button type="button" class="btn" disabled={change.busy} onClick={() => setConfirm(true)}>
          Unarchive #{c.name}
        </button>
      )}
      <ErrorLine error={change.error} />
      <ChannelSubscribers channel={c} />
    </div>
  );
}

/** Subscribes someone else to a channel (POST /users/me/subscriptions with principals). */
export function subscribeUser(channelName: string, userId: number) {
  return api('POST', '/users/me/subscriptions', { subscriptions: [{ name: channelName }], principals: [userId] });
}

/** Unsubscribes someone else from a channel (DELETE /users/me/subscriptions with principals). */
export function unsubscribeUser(channelName: string, userId: number) {
  return api('DELETE', '/users/me/subscriptions', { subscriptions: [channelName], principals: [userId] });
}

/**
 * A channel's subscribers (GET /streams/{id}/members, then kept current by
 * the server's events), with Remove and Add for those the server lets change
 * them: the channel's administrators, its can_remove_subscribers_group and
 * can_add_subscribers_group, and for a public channel the organization's
 * can_add_subscribers_group. Anyone who can see the channel sees the list, as
 * in Zulip's Subscribers tab.
 */
function ChannelSubscribers({ channel: c }: { channel: Channel }) {
  const change = useRequest();
  const id = c.stream_id;
  const subscribers = model.subscribers.get(id);
  const fetched = subscribers !== undefined;
  useEffect(() => {
    if (!fetched) model.loadSubscribers(id).catch((err: unknown) => change.setError(failureText(err)));
  }, [id, fetched]);

  // (Nobody changes an archived channel's subscribers here, as in Zulip's.)
  const mayRemove = !c.is_archived && model.mayUnsubscribeOthers(id);
  const mayAdd = !c.is_archived && model.maySubscribeOthers(id);
  const members = [...(subscribers ?? [])].map((u) => ({ user_id: u, full_name: model.userName(u) })).sort((a, b) => a.full_name.localeCompare(b.full_name));
  const candidates = ([...model.users.values()] as User[]).filter((u) => u.is_active && !subscribers?.has(u.user_id)).sort((a, b) => a.full_name.localeCompare(b.full_name));
  return (
    <>
      <h4 id={`channel-${id}-subscribers`}>
        Subscribers{fetched && <span class="muted-text"> {members.length}</span>}
      </h4>
      <ul class="org-people" aria-label={`Subscribers of #${c.name}`}>
        {members.map((u) => (
          <li key={u.user_id} aria-label={u.full_name}>
            <span class="org-person">{u.full_name}</span>
            {mayRemove && (
              <button
                type="button"
                class="btn"
                disabled={change.busy}
                aria-label={`Remove ${u.full_name} from #${c.name}`}
                onClick={() => void change.run(() => unsubscribeUser(c.name, u.user_id))}
              >
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
      {!fetched && <p class="muted-text">Loading subscribers…</p>}
      {fetched && members.length === 0 && <p class="muted-text">No subscribers.</p>}
      {mayAdd && (
        <PickToAdd
          id={`channel-${id}-add`}
          label="Add a subscriber"
          placeholder="Choose a person…"
          button="Add"
          options={candidates.map((u) => ({ value: u.user_id, label: u.full_name }))}
          busy={change.busy}
          add={(userId) => change.run(() => subscribeUser(c.name, userId))}
        />
      )}
      <ErrorLine error={change.error} />
    </>
  );
}
