import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { MessageList, model, type Sub } from '../model.ts';
import { channelLinkHash, channelSettingsHash, narrowToHash, REACTIONS_HASH, reactionsTerms, topicPermalinkHash, topicsListChannel, topicsListHash, sameNarrow, type Term } from '../narrow.ts';
import { cx, toggled, useStoredSet } from '../util.ts';
import { allDrafts } from '../drafts.ts';
import { ConfirmLeavePrivate, setSubscriptionProperty, unsubscribe } from './ChannelPersonal.tsx';
import { moveTopic, resolveAction } from './NarrowActions.tsx';
import { Menu } from './Dialog.tsx';
import { People, peopleScope } from './People.tsx';
import { ErrorLine, useRequest } from './request.tsx';

function Count({ n, muted, what = 'unread' }: { n: number; muted?: boolean; what?: string }) {
  if (!n) return null;
  return (
    <span class={cx('count', muted && 'muted')} aria-label={`${n} ${what}`}>
      {n}
    </span>
  );
}

/**
 * A channel's unread count as the user's web_stream_unreads_count_display_policy
 * says (Zulip's): 1 every channel's count; 2 (the default) unmuted channels'
 * counts, and a muted channel's count of its topics unmuted or followed there, or with
 * none of those a dot saying it has unread messages; 3 a dot for every
 * channel with unread messages. `unread`: its unread messages outside muted topics.
 */
function ChannelCount({ sub, unread }: { sub: Sub; unread: number }) {
  const policy = Number(model.settings.web_stream_unreads_count_display_policy ?? 2);
  const id = sub.stream_id;
  const count = sub.is_muted && policy === 2 ? model.unreadInHeardTopics(id) : unread;
  if (unread > 0 && (policy === 3 || count === 0)) return <span class="unread-dot" role="img" aria-label="has unread messages" />;
  return <Count n={count} muted={sub.is_muted} />;
}

/**
 * A sidebar section's unread count (Zulip's, unless the user's
 * web_left_sidebar_unreads_count_summary is off): the messages of its
 * channels outside muted channels and topics, or when there are none the
 * others (shown muted); hidden where the channels' own counts would be
 * (web_stream_unreads_count_display_policy: 3 always, 2 for a muted count).
 */
function SectionCount({ subs }: { subs: Sub[] }) {
  if (model.settings.web_left_sidebar_unreads_count_summary === false) return null;
  const ids = new Set(subs.map((s) => s.stream_id));
  let unmuted = 0;
  let muted = 0;
  for (const u of model.unread.values()) {
    if (u.kind !== 'stream' || u.streamId === undefined || !ids.has(u.streamId)) continue;
    if (model.isMuted({ type: 'stream', stream_id: u.streamId, subject: u.topic ?? '' })) muted++;
    else unmuted++;
  }
  const policy = Number(model.settings.web_stream_unreads_count_display_policy ?? 2);
  const showMuted = unmuted === 0 && muted > 0;
  if (policy === 3 || (showMuted && policy === 2)) return null;
  return <Count n={showMuted ? muted : unmuted} muted={showMuted} />;
}

/**
 * Opens a channel as the user's web_channel_default_view says (Zulip's): 1
 * (the default) its newest topic, 2 its feed, 3 the list of its topics
 * (#topics/channel/<id>), 4 its newest topic with unread messages (else its
 * newest topic). A channel without topics opens its feed (but for 3).
 */
async function openChannel(streamId: number): Promise<void> {
  const view = Number(model.settings.web_channel_default_view ?? 1);
  if (view === 3) {
    location.hash = topicsListHash(streamId, model.streamName(streamId));
    return;
  }
  const feed: Term[] = [{ operator: 'channel', operand: streamId }];
  let topic: string | undefined;
  if (view === 1 || view === 4) {
    await model.ensureTopics(streamId);
    const topics = model.topics.get(streamId) ?? [];
    if (view === 4) {
      const unread = model.unreadByTopic(streamId);
      topic = topics.find((t) => (unread.get(t.name.toLowerCase()) ?? 0) > 0)?.name;
    }
    topic ??= topics[0]?.name;
  }
  location.hash = narrowToHash(topic === undefined ? feed : [...feed, { operator: 'topic', operand: topic }]);
}

/** The "@" beside a channel or topic with unread messages that mention the user (as Zulip's sidebar). */
function MentionMark({ on }: { on: boolean }) {
  if (!on) return null;
  return (
    <span class="mention-mark" title="Unread messages mention you" aria-label="mentions you">
      @
    </span>
  );
}

function Item(props: {
  terms: Term[];
  /** The link's address, where it is not the one narrowToHash writes for `terms`. */
  href?: string;
  current: Term[] | null;
  label: string;
  icon?: preact.ComponentChildren;
  count?: number;
  countWhat?: string;
  muted?: boolean;
  mentioned?: boolean;
  cls?: string;
  color?: string;
  title?: string;
  menu?: preact.ComponentChildren;
}) {
  const active = props.current !== null && sameNarrow(props.terms, props.current);
  return (
    <li class={props.menu ? 'has-menu' : undefined}>
      <a
        href={props.href ?? narrowToHash(props.terms)}
        class={cx('side-item', active && 'active', props.muted && 'is-muted', props.cls)}
        aria-current={active ? 'page' : undefined}
        title={props.title}
      >
        {props.icon}
        <span class="label">{props.label}</span>
        <MentionMark on={!!props.mentioned} />
        <Count n={props.count ?? 0} muted={props.muted || props.countWhat !== undefined} what={props.countWhat} />
      </a>
      {props.menu}
    </li>
  );
}

/** A sidebar row's "\u22ef" button (shown on hover or focus) and, while open, its menu. */
function SideMenu({ label, open, onToggle, onClose, children }: { label: string; open: boolean; onToggle(): void; onClose(): void; children: preact.ComponentChildren }) {
  // A spectator may change nothing that a menu offers.
  if (model.spectator) return null;
  return (
    <span class="side-menu-anchor">
      <button type="button" class="icon-btn side-more" aria-label={`Actions for ${label}`} aria-haspopup="menu" aria-expanded={open} onClick={onToggle}>
        {'\u22ef'}
      </button>
      {open && (
        <Menu label={label} class="msg-menu side-menu" onClose={onClose}>
          {children}
        </Menu>
      )}
    </span>
  );
}

/** How many of a channel's newest topics the sidebar lists until all are asked for. */
const FEW_TOPICS = 8;

/** The key of the More views menu among the sidebar's menus. */
const MORE_VIEWS = 'more-views';

export const LOCK = (
  <svg viewBox="0 0 20 20" class="lock" aria-hidden="true">
    <rect x="4.5" y="9" width="11" height="8" rx="1.5" fill="currentColor" />
    <path d="M7 9V6.5a3 3 0 0 1 6 0V9" stroke="currentColor" stroke-width="1.8" fill="none" />
  </svg>
);

const ICONS = {
  inbox: <svg viewBox="0 0 20 20" aria-hidden="true"><path d="M3 11l2-7h10l2 7v5H3zM3 11h4l1 2h4l1-2h4" stroke="currentColor" stroke-width="1.6" fill="none" stroke-linejoin="round" /></svg>,
  recent: <svg viewBox="0 0 20 20" aria-hidden="true"><circle cx="10" cy="10" r="7" stroke="currentColor" stroke-width="1.6" fill="none" /><path d="M10 6v4l3 2" stroke="currentColor" stroke-width="1.6" fill="none" stroke-linecap="round" /></svg>,
  all: <svg viewBox="0 0 20 20" aria-hidden="true"><path d="M3 5h14M3 10h14M3 15h9" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" fill="none" /></svg>,
  dm: <svg viewBox="0 0 20 20" aria-hidden="true"><path d="M3 4h14v9H8l-4 3v-3H3z" stroke="currentColor" stroke-width="1.6" fill="none" stroke-linejoin="round" /></svg>,
  at: <svg viewBox="0 0 20 20" aria-hidden="true"><circle cx="10" cy="10" r="3" stroke="currentColor" stroke-width="1.6" fill="none" /><path d="M13 10v1.5a2 2 0 0 0 4 0V10a7 7 0 1 0-3 5.7" stroke="currentColor" stroke-width="1.6" fill="none" stroke-linecap="round" /></svg>,
  smile: <svg viewBox="0 0 20 20" aria-hidden="true"><circle cx="10" cy="10" r="7" stroke="currentColor" stroke-width="1.6" fill="none" /><path d="M7 11.5a3.5 3.5 0 0 0 6 0" stroke="currentColor" stroke-width="1.6" fill="none" stroke-linecap="round" /><circle cx="7.6" cy="8" r="1" fill="currentColor" /><circle cx="12.4" cy="8" r="1" fill="currentColor" /></svg>,
  draft: <svg viewBox="0 0 20 20" aria-hidden="true"><path d="M4 16l1-4 8-8 3 3-8 8zM11.5 5.5l3 3" stroke="currentColor" stroke-width="1.6" fill="none" stroke-linejoin="round" /></svg>,
  more: <svg viewBox="0 0 20 20" aria-hidden="true"><circle cx="5" cy="10" r="1.5" fill="currentColor" /><circle cx="10" cy="10" r="1.5" fill="currentColor" /><circle cx="15" cy="10" r="1.5" fill="currentColor" /></svg>,
  pin: <svg viewBox="0 0 20 20" aria-hidden="true"><path d="M7 3h6l-1 5 3 3H5l3-3zM10 11v6" stroke="currentColor" stroke-width="1.6" fill="none" stroke-linejoin="round" stroke-linecap="round" /></svg>,
  star: <svg viewBox="0 0 20 20" aria-hidden="true"><path d="M10 2.8l2.2 4.6 5 .7-3.6 3.5.9 5L10 14.2l-4.5 2.4.9-5L2.8 8.1l5-.7z" stroke="currentColor" stroke-width="1.5" fill="none" stroke-linejoin="round" /></svg>,
};

/** A link to a view that is no narrow (Inbox, Recent conversations), current when it is shown. */
function ViewItem(props: { hash: string; view: string | null; label: string; icon: preact.ComponentChildren; count?: number; countWhat?: string; menu?: preact.ComponentChildren }) {
  const { hash, view, label, icon, count, countWhat, menu } = props;
  return (
    <li class={menu ? 'has-menu' : undefined}>
      <a href={hash} class={cx('side-item', view === hash && 'active')} aria-current={view === hash ? 'page' : undefined}>
        {icon}
        <span class="label">{label}</span>
        <Count n={count ?? 0} muted={countWhat !== undefined} what={countWhat} />
      </a>
      {menu}
    </li>
  );
}

/** The fragments of Zulip's built-in views (its BUILT_IN_VIEW_FRAGMENTS): each is pinned to the sidebar unless the user's navigation_views unpin it. */
const BUILT_IN_VIEWS = new Set(['inbox', 'recent', 'feed', 'narrow/is/mentioned', 'narrow/has/reaction/sender/me', 'narrow/is/starred', 'drafts', 'scheduled', 'reminders']);

/** A view of the Views list: its navigation_views fragment ('' for Direct messages, which is always there), its name and address, and its row given its menu. */
interface SideView {
  fragment: string;
  label: string;
  href: string;
  row(menu?: preact.ComponentChildren): preact.JSX.Element;
}


/** A section's heading that collapses it to the heading and opens it again (Zulip's). */
function SectionToggle({ label, open, onToggle }: { label: string; open: boolean; onToggle(): void }) {
  return (
    <button type="button" class="section-toggle" aria-expanded={open} onClick={onToggle}>
      {label}
    </button>
  );
}

/**
 * Zulip's toggle over a sidebar section's muted and inactive channels
 * ("2 MUTED", "1 INACTIVE", "3 INACTIVE OR MUTED"), with while they are
 * hidden their unread count: unmuted channels' messages and muted ones'
 * in topics unmuted or followed there.
 */
function HiddenToggle({ subs, open, onToggle, byStream }: { subs: Sub[]; open: boolean; onToggle(): void; byStream: Map<number, number> }) {
  const muted = subs.filter((s) => s.is_muted).length;
  const inactive = subs.length - muted;
  const label = muted && inactive ? `${subs.length} inactive or muted` : muted ? `${muted} muted` : `${inactive} inactive`;
  let unread = 0;
  for (const s of subs) unread += s.is_muted ? model.unreadInHeardTopics(s.stream_id) : (byStream.get(s.stream_id) ?? 0);
  return (
    <li class="hidden-toggle">
      <button type="button" class="section-toggle side-item" aria-expanded={open} onClick={onToggle}>
        <span class="label">{label}</span>
        {!open && <Count n={unread} muted />}
      </button>
    </li>
  );
}

/**
 * The direct-message conversations the sidebar lists, newest first, as
 * Zulip's: with `all` every one; else the one in view always, the newest
 * eight, then older ones with unread messages up to fifteen, a conversation
 * with a deactivated user only while it has unread messages. Conversations
 * with muted users only are left out. `moreDms`: how many are not listed,
 * with their unread messages.
 */
function dmRows(dmUnread: Map<string, number>, inView: string | null, all: boolean): { dms: string[]; moreDms: number; moreDmsUnread: number } {
  const keys = [...model.recentDms.entries()]
    .filter(([key]) => !model.onlyMutedIn(key))
    .sort((a, b) => b[1] - a[1])
    .map(([key]) => key);
  if (inView !== null && !keys.includes(inView)) keys.unshift(inView);
  const dms: string[] = [];
  let moreDms = 0;
  let moreDmsUnread = 0;
  for (const key of keys) {
    const unread = dmUnread.get(key) ?? 0;
    const withDeactivated = key.split(',').some((id) => model.users.get(Number(id))?.is_active === false);
    const shown = all || key === inView || (!(withDeactivated && unread === 0) && dms.length < 15 && (dms.length < 8 || unread > 0));
    if (shown) dms.push(key);
    else {
      moreDms++;
      moreDmsUnread += unread;
    }
  }
  return { dms, moreDms, moreDmsUnread };
}

/** Whether every word of `query` starts a word of `name` (words split at spaces and : / _ -), in any order, as Zulip's channel filter matches. */
export function nameMatches(name: string, query: string): boolean {
  const split = (text: string) => text.toLowerCase().split(/[\s:/_-]+/).filter(Boolean);
  const words = split(name);
  return split(query).every((q) => words.some((w) => w.startsWith(q)));
}

export function Sidebar({
  terms: narrowTerms,
  view,
  onBrowseChannels,
  onGo,
  onUser,
  onNewTopic,
}: {
  terms: Term[];
  view: string | null;
  onBrowseChannels(): void;
  onGo?(): void;
  onUser?(userId: number): void;
  /** Zulip's "New topic" button on a channel's row (shown on hover, where the user may post). */
  onNewTopic?(streamId: number): void;
}) {
  // The Inbox and Recent conversations views are no narrow: none is marked current then. A channel's list of topics marks that channel.
  const terms = view ? null : narrowTerms;
  const topicsOf = view ? topicsListChannel(view) : null;
  const byStream = model.unreadByStream();
  const dmUnread = model.unreadByDm();
  // The channels whose names match the filter (Zulip's "Filter channels").
  const [channelFilter, setChannelFilter] = useState('');
  // The sections collapsed to their headings (channel folders, direct messages), kept in this browser.
  const [collapsed, toggleSection] = useStoredSet(`parley-sidebar-collapsed:${model.me.user_id}`);
  // The sections whose muted and inactive channels are shown (Zulip hides them behind a toggle until asked).
  const [showingHidden, setShowingHidden] = useState<ReadonlySet<string>>(new Set());
  // The folders of only muted or inactive channels opened on this page: Zulip collapses such a folder (nothing in it to see), and opening it shows them.
  const [openedQuiet, setOpenedQuiet] = useState<ReadonlySet<string>>(new Set());
  const demote = model.demotesInactive();
  const toBrowse = model.channelsToBrowse();
  const subs = model.sidebarChannels().filter((s) => nameMatches(s.name, channelFilter));
  const { pinned, others, folders } = model.channelSections(subs, model.settings.web_left_sidebar_show_channel_folders !== false);
  const chTerm = terms?.find((t) => t.operator === 'channel' && !t.negated);
  const selectedStream = topicsOf ?? (chTerm && typeof chTerm.operand === 'number' ? chTerm.operand : undefined);
  const mentions = model.unreadCount((u) => u.mentioned);
  /** The channels ("<id>") and topics ("<id>:<topic>") with unread messages that mention the user. */
  const mentionedIn = new Set<string>();
  for (const u of model.unread.values()) {
    if (u.kind !== 'stream' || !u.mentioned) continue;
    mentionedIn.add(`${u.streamId}`);
    mentionedIn.add(`${u.streamId}:${(u.topic ?? '').toLowerCase()}`);
  }
  const inboxCount = model.unreadCount((u) => model.inInbox(u));
  // Whether every direct-message conversation is listed ("More conversations"), or Zulip's few.
  const [allDms, setAllDms] = useState(false);
  const dmTerm = terms?.length === 1 && terms[0]!.operator === 'dm' && !terms[0]!.negated && Array.isArray(terms[0]!.operand) ? (terms[0]!.operand as number[]) : null;
  const dmInView = dmTerm ? model.dmKey(dmTerm) : null;
  const { dms, moreDms, moreDmsUnread } = dmRows(dmUnread, dmInView, allDms);

  /** The row whose menu is open: a channel ("<id>"), a topic ("<channel id>:<topic>"), a view ("view:<fragment>") or More views. */
  const [menuOf, setMenuOf] = useState<string | null>(null);
  /** The private channel whose unsubscribing waits to be confirmed, if any. */
  const [leaving, setLeaving] = useState<number | null>(null);
  /** The props that make `key`'s SideMenu open and close. */
  const menuFor = (key: string) => ({ open: menuOf === key, onToggle: () => setMenuOf(menuOf === key ? null : key), onClose: () => setMenuOf(null) });
  /** The channel whose topics are all listed (with a filter), if any; the others list their few newest. */
  const [allTopicsOf, setAllTopicsOf] = useState<number | null>(null);
  const [topicFilter, setTopicFilter] = useState('');
  const showAllTopics = (id: number | null) => {
    setAllTopicsOf(id);
    setTopicFilter('');
  };
  const topicInView = terms?.find((t) => t.operator === 'topic' && !t.negated)?.operand;
  const action = useRequest();
  /** Runs one of a channel's or topic's menu actions, closing the menu; the events bring the change. */
  const act = (fn: () => Promise<unknown>) => {
    setMenuOf(null);
    void action.run(fn);
  };

  /**
   * Marks a topic resolved or unresolved (the whole topic renamed by its
   * newest message, as Zulip's menu does; the server says who may); the view
   * follows it if it is the topic in view.
   */
  const resolveTopic = async (streamId: number, t: { name: string; max_id: number }) => {
    const { to } = resolveAction(t.name);
    await moveTopic(t.max_id, { topic: to });
    if (selectedStream === streamId && typeof topicInView === 'string' && topicInView.toLowerCase() === t.name.toLowerCase()) {
      location.hash = narrowToHash([
        { operator: 'channel', operand: streamId },
        { operator: 'topic', operand: to },
      ]);
    }
  };

  /** Whether a view is in the sidebar: Zulip's built-in ones unless unpinned, the user's own when pinned. */
  const isPinned = (fragment: string) => model.navigationViews.get(fragment)?.is_pinned ?? BUILT_IN_VIEWS.has(fragment);
  /** Pins or unpins a view: its saved configuration changed, or saved first (a built-in view has none until then). */
  const setPinned = (fragment: string, pinned: boolean) =>
    act(() => (model.navigationViews.has(fragment) ? api('PATCH', `/navigation_views/${fragment}`, { is_pinned: pinned }) : api('POST', '/navigation_views', { fragment, is_pinned: pinned })));
  const viewMenu = (v: SideView) => (
    <SideMenu label={v.label} {...menuFor(`view:${v.fragment}`)}>
      <button type="button" role="menuitem" onClick={() => setPinned(v.fragment, false)}>
        Unpin from the sidebar
      </button>
    </SideMenu>
  );
  const feedTerms: Term[] = [];
  const dmTerms: Term[] = [{ operator: 'is', operand: 'dm' }];
  const mentionTerms: Term[] = [{ operator: 'is', operand: 'mentioned' }];
  const starredTerms: Term[] = [{ operator: 'is', operand: 'starred' }];
  const myReactions = reactionsTerms(model.me.user_id);
  /** The Views list in Zulip's order (Direct messages, its own section in Zulip, after All messages), then the user's own views; the home view is moved first below. */
  const allViews: SideView[] = [
    { fragment: 'inbox', label: 'Inbox', href: '#inbox', row: (menu) => <ViewItem hash="#inbox" view={view} label="Inbox" icon={ICONS.inbox} count={inboxCount} menu={menu} /> },
    { fragment: 'recent', label: 'Recent conversations', href: '#recent', row: (menu) => <ViewItem hash="#recent" view={view} label="Recent conversations" icon={ICONS.recent} menu={menu} /> },
    { fragment: 'feed', label: 'All messages', href: narrowToHash(feedTerms), row: (menu) => <Item terms={feedTerms} current={terms} label="All messages" icon={ICONS.all} count={model.unreadInFeed()} menu={menu} /> },
    { fragment: '', label: 'Direct messages', href: narrowToHash(dmTerms), row: () => <Item terms={dmTerms} current={terms} label="Direct messages" icon={ICONS.dm} count={model.unreadCount((u) => u.kind === 'dm')} /> },
    { fragment: 'narrow/is/mentioned', label: 'Mentions', href: narrowToHash(mentionTerms), row: (menu) => <Item terms={mentionTerms} current={terms} label="Mentions" icon={ICONS.at} count={mentions} menu={menu} /> },
    { fragment: 'narrow/has/reaction/sender/me', label: 'Reactions', href: REACTIONS_HASH, row: (menu) => <Item terms={myReactions} href={REACTIONS_HASH} current={terms} label="Reactions" icon={ICONS.smile} menu={menu} /> },
    {
      fragment: 'narrow/is/starred',
      label: 'Starred',
      href: narrowToHash(starredTerms),
      // How many, unless the user turned the count off (Zulip's starred_message_counts).
      row: (menu) => <Item terms={starredTerms} current={terms} label="Starred" icon={ICONS.star} count={model.settings.starred_message_counts !== false ? model.starred.size : 0} countWhat="starred" menu={menu} />,
    },
    // Zulip's Drafts, and its Scheduled messages and Reminders while there are some: dialogs over the view.
    { fragment: 'drafts', label: 'Drafts', href: '#drafts', row: (menu) => <ViewItem hash="#drafts" view={view} label="Drafts" icon={ICONS.draft} count={allDrafts().length} countWhat="drafts" menu={menu} /> },
    ...(model.scheduledMessages.size > 0
      ? [{ fragment: 'scheduled', label: 'Scheduled messages', href: '#scheduled', row: (menu?: preact.ComponentChildren) => <ViewItem hash="#scheduled" view={view} label="Scheduled messages" icon={ICONS.recent} count={model.scheduledMessages.size} countWhat="scheduled" menu={menu} /> }]
      : []),
    ...(model.reminders.size > 0
      ? [{ fragment: 'reminders', label: 'Reminders', href: '#reminders', row: (menu?: preact.ComponentChildren) => <ViewItem hash="#reminders" view={view} label="Reminders" icon={ICONS.recent} count={model.reminders.size} countWhat="reminders" menu={menu} /> }]
      : []),
    ...[...model.navigationViews.values()]
      .filter((v) => !BUILT_IN_VIEWS.has(v.fragment))
      .map((v) => {
        const label = v.name ?? v.fragment;
        const href = `#${v.fragment}`;
        return { fragment: v.fragment, label, href, row: (menu?: preact.ComponentChildren) => <ViewItem hash={href} view={view} label={label} icon={ICONS.all} menu={menu} /> };
      }),
  ];
  // A spectator has Zulip's two views that need no account: Recent conversations and the combined feed.
  const views = model.spectator ? allViews.filter((v) => v.fragment === 'recent' || v.fragment === 'feed') : allViews;
  // The home view first, the others in their order, as Zulip's sidebar has them.
  const home = model.settings.web_home_view === 'recent' ? 'recent' : model.settings.web_home_view === 'all_messages' ? 'feed' : 'inbox';
  views.sort((a, b) => Number(b.fragment === home) - Number(a.fragment === home));
  const unpinned = views.filter((v) => v.fragment && !isPinned(v.fragment));

  const renderSub = (s: (typeof subs)[number]) => {
    const chTerms: Term[] = [{ operator: 'channel', operand: s.stream_id }];
    const open = selectedStream === s.stream_id;
    // Zulip's button on the row: a new topic, or a new message in a channel without topics or where the user may not start one.
    const newWhat = model.topicsPolicy(s.stream_id) === 'empty_topic_only' || !model.mayCreateTopicIn(s.stream_id) ? 'New message' : 'New topic';
    const active = topicsOf === s.stream_id || (terms !== null && sameNarrow(chTerms, terms));
    const topics = open ? (model.topics.get(s.stream_id) ?? []) : [];
    const topicUnread = open ? model.unreadByTopic(s.stream_id) : new Map<string, number>();
    // As Zulip's: the newest few topics, and any other with unread messages or in view; or all of them (filtered) when asked.
    const allTopics = allTopicsOf === s.stream_id;
    const filter = topicFilter.trim().toLowerCase();
    const shownTopics = allTopics
      ? topics.filter((t) => t.name.toLowerCase().includes(filter))
      : topics.filter((t, i) => i < FEW_TOPICS || (topicUnread.get(t.name.toLowerCase()) ?? 0) > 0 || (typeof topicInView === 'string' && t.name.toLowerCase() === topicInView.toLowerCase()));
    return (
      <li key={s.stream_id} class={cx('channel', open && 'open')}>
        <a
          href={narrowToHash(chTerms)}
          onClick={(e) => {
            // Where a click on a channel goes: the user's web_channel_default_view (the link itself is the channel's feed).
            if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
            e.preventDefault();
            void openChannel(s.stream_id);
          }}
          class={cx('side-item', active && 'active', s.is_muted && 'is-muted')}
          aria-current={active ? 'page' : undefined}
          title={s.description || s.name}
        >
          <span class="chan-icon" style={{ color: s.color }} aria-hidden="true">
            {s.invite_only ? LOCK : '#'}
          </span>
          <span class="label">{s.name}</span>
          {s.is_muted && <span class="visually-hidden">(muted)</span>}
          <MentionMark on={mentionedIn.has(`${s.stream_id}`)} />
          <ChannelCount sub={s} unread={byStream.get(s.stream_id) ?? 0} />
        </a>
        {onNewTopic && model.mayPostIn(s.stream_id) && (
          <button
            type="button"
            class="icon-btn side-new-topic"
            aria-label={`${newWhat} in #${s.name}`}
            title={newWhat}
            onClick={() => onNewTopic(s.stream_id)}
          >
            +
          </button>
        )}
        <SideMenu label={`#${s.name}`} {...menuFor(String(s.stream_id))}>
          {(byStream.get(s.stream_id) ?? 0) > 0 && (
            <button type="button" role="menuitem" onClick={() => act(() => new MessageList(model, chTerms).markAllRead())}>
              Mark all as read
            </button>
          )}
          <button type="button" role="menuitem" onClick={() => act(() => setSubscriptionProperty(s.stream_id, 'pin_to_top', !s.pin_to_top))}>
            {s.pin_to_top ? 'Unpin' : 'Pin to top'}
          </button>
          <button type="button" role="menuitem" onClick={() => act(() => setSubscriptionProperty(s.stream_id, 'is_muted', !s.is_muted))}>
            {s.is_muted ? 'Unmute' : 'Mute'}
          </button>
          <button type="button" role="menuitem" onClick={() => act(() => navigator.clipboard.writeText(`${location.origin}/${channelLinkHash(s.stream_id, s.name)}`))}>
            Copy link to channel
          </button>
          <button
            type="button"
            role="menuitem"
            onClick={() => {
              setMenuOf(null);
              location.hash = channelSettingsHash(s.stream_id, s.name);
            }}
          >
            Channel settings
          </button>
          {/* As Zulip's: a public channel left at once; a private one once confirmed (joining it again needs someone in it). */}
          <button
            type="button"
            role="menuitem"
            onClick={() => {
              if (!s.invite_only) act(() => unsubscribe(s.name));
              else {
                setMenuOf(null);
                setLeaving(s.stream_id);
              }
            }}
          >
            Unsubscribe
          </button>
        </SideMenu>
        {leaving === s.stream_id && (
          <ConfirmLeavePrivate
            name={s.name}
            busy={action.busy}
            onLeave={() => {
              setLeaving(null);
              void action.run(() => unsubscribe(s.name));
            }}
            onCancel={() => setLeaving(null)}
          />
        )}
        {open && topics.length > 0 && (
          <>
            {allTopics && (
              <input
                type="search"
                class="topic-filter"
                placeholder="Filter topics"
                aria-label={`Filter topics of #${s.name}`}
                value={topicFilter}
                onInput={(e) => setTopicFilter(e.currentTarget.value)}
                onKeyDown={(e) => e.key === 'Escape' && topicFilter && (e.stopPropagation(), setTopicFilter(''))}
              />
            )}
            <ul class="topics" aria-label={`In ${s.name}`}>
              {shownTopics.map((t) => {
                const tt: Term[] = [...chTerms, { operator: 'topic', operand: t.name }];
                const mute = model.topicMuteAction(s.stream_id, t.name);
                const unread = topicUnread.get(t.name.toLowerCase()) ?? 0;
                const key = `${s.stream_id}:${t.name}`;
                const label = t.name || '(no topic)';
                const policy = model.topicPolicy(s.stream_id, t.name);
                const setPolicy = (visibility: number) => act(() => api('POST', '/user_topics', { stream_id: s.stream_id, topic: t.name, visibility_policy: visibility }));
                const menu = (
                  <SideMenu label={label} {...menuFor(key)}>
                    {unread > 0 && (
                      <button type="button" role="menuitem" onClick={() => act(() => new MessageList(model, tt).markAllRead())}>
                        Mark all as read
                      </button>
                    )}
                    <button type="button" role="menuitem" onClick={() => setPolicy(policy === 3 ? 0 : 3)}>
                      {policy === 3 ? 'Unfollow topic' : 'Follow topic'}
                    </button>
                    <button type="button" role="menuitem" onClick={() => setPolicy(mute.visibility)}>
                      {mute.label}
                    </button>
                    {!model.isGeneralChat(t.name) && model.mayResolveIn(s.stream_id) && (
                      <button type="button" role="menuitem" onClick={() => act(() => resolveTopic(s.stream_id, t))}>
                        {resolveAction(t.name).label}
                      </button>
                    )}
                    <button type="button" role="menuitem" onClick={() => act(() => navigator.clipboard.writeText(`${location.origin}/${topicPermalinkHash(s.stream_id, s.name, t.name, t.max_id)}`))}>
                      Copy link to topic
                    </button>
                  </SideMenu>
                );
                return <Item key={t.name} terms={tt} current={terms} label={label} count={unread} muted={mute.muted} mentioned={mentionedIn.has(`${s.stream_id}:${t.name.toLowerCase()}`)} cls={cx('topic', model.isGeneralChat(t.name) && 'general-chat')} menu={menu} />;
              })}
            </ul>
            {(allTopics || shownTopics.length < topics.length) && (
              <button type="button" class="btn ghost small more-topics" onClick={() => showAllTopics(allTopics ? null : s.stream_id)}>
                {allTopics ? 'Fewer topics' : `All ${topics.length} topics`}
              </button>
            )}
          </>
        )}
      </li>
    );
  };

  /** A muted channel, or an inactive one where the user's demote_inactive_streams demotes it: behind a toggle, or (a folder of only those) collapsed. */
  const isHidden = (s: Sub) => model.mutedOrDemoted(s, demote);
  /**
   * A section's rows (not the pinned one's), as Zulip's: its channels, then
   * its muted and inactive ones behind a toggle (shown while filtering, and
   * the channel in view always; a section of only those, which the folders
   * below show collapsed until opened as Zulip's, shows them).
   */
  const sectionRows = (key: string, list: Sub[]) => {
    const hidden = list.filter(isHidden);
    if (!hidden.length || hidden.length === list.length || channelFilter.trim()) return list.map(renderSub);
    const open = showingHidden.has(key);
    const toggle = () => setShowingHidden(toggled(showingHidden, key));
    return [
      ...list.filter((s) => !isHidden(s)).map(renderSub),
      <HiddenToggle key="hidden-toggle" subs={hidden} open={open} onToggle={toggle} byStream={byStream} />,
      ...(open ? hidden : hidden.filter((s) => s.stream_id === selectedStream)).map(renderSub),
    ];
  };

  return (
    // A link followed (even to where the page already is) tells the app, which closes the sidebar shown over it on a narrow window.
    <aside class="left-sidebar" aria-label="Views and channels" onClick={(e) => (e.target as HTMLElement).closest('a') && onGo?.()}>
      <nav aria-label="Views">
        <ul class="side-list">
          {views.filter((v) => !v.fragment || isPinned(v.fragment)).map((v) => (
            <Fragment key={v.fragment || 'dm'}>{v.row(v.fragment ? viewMenu(v) : undefined)}</Fragment>
          ))}
          {unpinned.length > 0 && (
            <li class="more-views">
              <button type="button" class="side-item" aria-haspopup="menu" aria-expanded={menuOf === MORE_VIEWS} onClick={() => setMenuOf(menuOf === MORE_VIEWS ? null : MORE_VIEWS)}>
                {ICONS.more}
                <span class="label">More views</span>
              </button>
              {menuOf === MORE_VIEWS && (
                <Menu label="More views" class="msg-menu side-menu" onClose={() => setMenuOf(null)}>
                  {unpinned.map((v) => (
                    <div class="menu-row" key={v.fragment}>
                      <a role="menuitem" href={v.href} onClick={() => setMenuOf(null)}>
                        {v.label}
                      </a>
                      <button type="button" role="menuitem" class="pin-view" aria-label={`Pin ${v.label} to the sidebar`} title="Pin to the sidebar" onClick={() => setPinned(v.fragment, true)}>
                        {ICONS.pin}
                      </button>
                    </div>
                  ))}
                </Menu>
              )}
            </li>
          )}
        </ul>
      </nav>
      <nav aria-label="Channels" class="channels">
        <ErrorLine error={action.error} />
        <div class="side-heading-row">
          <h2 class="side-heading">
            Channels
            {/* Without folders, the channels not pinned are this heading's section. */}
            {!folders && <SectionCount subs={others} />}
          </h2>
          {!model.spectator && (
            <button type="button" class="icon-btn small" aria-label="Browse and create channels" title="Browse and create channels" onClick={onBrowseChannels}>
              +
            </button>
          )}
        </div>
        <input
          type="search"
          class="channel-filter"
          placeholder="Filter channels"
          aria-label="Filter channels"
          value={channelFilter}
          onInput={(e) => setChannelFilter(e.currentTarget.value)}
          onKeyDown={(e) => e.key === 'Escape' && channelFilter && (e.stopPropagation(), setChannelFilter(''))}
        />
        {pinned.length > 0 && (
          <ul class="side-list pinned" aria-label="Pinned channels">
            {pinned.map(renderSub)}
          </ul>
        )}
        {pinned.length > 0 && others.length > 0 && <hr class="side-sep" />}
        {folders ? (
          folders.map((g) => {
            const quiet = g.subs.every(isHidden);
            const open = !!channelFilter.trim() || (quiet ? openedQuiet.has(g.key) : !collapsed.has(g.key));
            const toggleFolder = () => (quiet ? setOpenedQuiet(toggled(openedQuiet, g.key)) : toggleSection(g.key));
            return (
              <div key={g.key} class="side-folder">
                <h3 class="side-subheading">
                  <SectionToggle label={g.label} open={open} onToggle={toggleFolder} />
                  <SectionCount subs={g.subs} />
                </h3>
                <ul class="side-list" aria-label={g.label}>
                  {/* Collapsed, a section still shows the channel in view. */}
                  {open ? sectionRows(g.key, g.subs) : g.subs.filter((s) => s.stream_id === selectedStream).map(renderSub)}
                </ul>
              </div>
            );
          })
        ) : (
          <ul class="side-list">{sectionRows('others', others)}</ul>
        )}
        {subs.length === 0 && <p class="side-empty">{channelFilter.trim() ? 'No channels match.' : model.spectator ? 'No channel is open to visitors.' : 'You are not subscribed to any channel.'}</p>}
        {/* Zulip's link under the channels to those one could join. */}
        {toBrowse > 0 && (
          <a class="side-item browse-more" href="#channels/notsubscribed">
            {toBrowse === 1 ? 'Browse 1 more channel' : `Browse ${toBrowse} more channels`}
          </a>
        )}
      </nav>
      {!model.spectator && (
        <nav aria-label="Conversations" class="dms">
          <h2 class="side-heading">
            <SectionToggle label="Direct messages" open={!collapsed.has('dms')} onToggle={() => toggleSection('dms')} />
          </h2>
          <ul class="side-list">
            {(collapsed.has('dms') ? [] : dms).map((key) => {
              const ids = key.split(',').map(Number);
              const others = ids.filter((id) => id !== model.me.user_id);
              const label = others.length ? others.map((id) => (model.isUserMuted(id) ? 'Muted user' : model.userName(id))).join(', ') : `${model.me.full_name} (you)`;
              const dmTerms: Term[] = [{ operator: 'dm', operand: others.length ? others : [model.me.user_id] }];
              const status = others.length === 1 ? model.presenceOf(others[0]!) : null;
              return (
                <Item
                  key={key}
                  terms={dmTerms}
                  current={terms}
                  label={label}
                  count={dmUnread.get(key) ?? 0}
                  icon={status ? <span class={`presence-dot ${status}`} aria-label={status} /> : <span class="group-icon" aria-hidden="true">{others.length}</span>}
                />
              );
            })}
            {dms.length === 0 && !collapsed.has('dms') && <li class="side-empty">No conversations yet.</li>}
          </ul>
          {!collapsed.has('dms') && (moreDms > 0 || allDms) && (
            <button type="button" class="btn ghost small more-topics" onClick={() => setAllDms(!allDms)}>
              {allDms ? 'Fewer conversations' : 'More conversations'}
              {!allDms && <Count n={moreDmsUnread} />}
            </button>
          )}
        </nav>
      )}
      {/* Zulip's left_side_userlist: People here in narrow windows. */}
      {model.settings.left_side_userlist === true && onUser && <People onUser={onUser} inLeft scope={peopleScope(narrowTerms, view)} />}
    </aside>
  );
}
