import { useEffect, useRef, useState } from 'preact/hooks';
import { api, endingSession, goToLogin, logout } from '../api.ts';
import { run, startPresence, stop } from '../events.ts';
import { model, type Message } from '../model.ts';
import { describeTerms, hashToNarrow, isLinkTerm, narrowToHash, parseSearch, reactionsTerms, sameNarrow, topicsListChannel, type Term } from '../narrow.ts';
import { nextUnreadDm, nextUnreadTopic } from '../unread-nav.ts';
import { overlayAt } from '../overlays.ts';
import { setFavicon } from '../favicon.ts';
import { applyDensity, applyTheme, cx, prepareHtml, useModel } from '../util.ts';
import { notifyIfWanted } from '../notify.ts';
import { Sidebar } from './Sidebar.tsx';
import { MessageListView } from './MessageList.tsx';
import { NOT_FOR_VISITORS } from '../shortcuts.ts';
import { Compose, type ComposeHandle } from './Compose.tsx';
import { People, peopleScope } from './People.tsx';
import { Settings } from './Settings.tsx';
import { Channels } from './Channels.tsx';
import { ChannelPersonalButton, MarkAllRead, TopicActions } from './NarrowActions.tsx';
import { UserCard } from './UserCard.tsx';
import { closeNewestModal } from './Dialog.tsx';
import { SavedList } from './Drafts.tsx';
import { draftNarrow, restoreLater } from '../drafts.ts';
import { About, Help } from './Help.tsx';
import { SearchBox } from './SearchBox.tsx';
import { Recent } from './Recent.tsx';
import { Inbox } from './Inbox.tsx';

export function go(terms: Term[]): void {
  const hash = narrowToHash(terms);
  if (location.hash !== hash) location.hash = hash;
}

/** Whether an address opens a dialog over the app (Zulip's overlay addresses: #settings/…, #channels/…, #drafts, …). */
const isOverlay = (hash: string): boolean => overlayAt(hash) !== null;
/** The views that are no narrow, by their addresses (Zulip's), with their titles. */
const VIEWS: Record<string, string> = { '#inbox': 'Inbox', '#recent': 'Recent conversations' };
/** Older names of views, in links written before Zulip renamed them. */
const VIEW_ALIASES: Record<string, string> = { '#recent_topics': '#recent' };
/**
 * The view an address shows, if it is no narrow: one of VIEWS, a channel's
 * list of topics (#topics/channel/<id>), or for the empty address (once the
 * settings are in) the user's home view (web_home_view: inbox, recent or
 * all_messages; null for all messages), as Zulip's.
 */
function viewAt(hash: string): string | null {
  if (Object.hasOwn(VIEW_ALIASES, hash)) return VIEW_ALIASES[hash]!;
  if (Object.hasOwn(VIEWS, hash) || topicsListChannel(hash) !== null) return hash;
  if ((hash === '' || hash === '#') && model.ready) {
    const home = model.settings.web_home_view;
    return home === 'inbox' ? '#inbox' : home === 'recent' ? '#recent' : null;
  }
  return null;
}

/** Goes to the user's home view (Zulip's set_hash_to_home_view): to the empty address, unless the view is already there under its own name. */
function goHome(): void {
  // (The home view's own address: Inbox's or Recent's, else All messages'.)
  const named = viewAt('') ?? '#feed';
  if (location.hash === '' || location.hash === '#' || location.hash === named) return;
  history.pushState(null, '', location.pathname + location.search);
  dispatchEvent(new HashChangeEvent('hashchange'));
}

/**
 * The narrow in the address, without the message a link points at (see
 * nearFromLocation); a conversation's IDs without the user's own, as a
 * message's link lists them all.
 */
function termsFromLocation(): Term[] {
  const terms = (hashToNarrow(location.hash) ?? []).filter((t) => !isLinkTerm(t));
  return terms.map((t) => {
    if (t.operator === 'dm' && Array.isArray(t.operand) && model.me) return { ...t, operand: model.dmKey(t.operand).split(',').map(Number) };
    // "me" (Zulip's address of the Reactions view): the user.
    if (t.operator === 'sender' && t.operand === 'me' && model.me) return { ...t, operand: model.me.user_id };
    // A channel by its name (older links, or typed): the channel's ID, as Zulip's web app finds it.
    if (t.operator === 'channel' && typeof t.operand === 'string' && model.ready) {
      const id = model.matchContext().streamIdByName(t.operand);
      if (id !== undefined) return { ...t, operand: id };
    }
    return t;
  });
}

/** The message a link's address opens the narrow at (`near/<id>`, or Zulip's newer `with/<id>`), if any, and whether by `near`. */
function nearFromLocation(): { id: number | null; nearLink: boolean } {
  const near = (hashToNarrow(location.hash) ?? []).find(isLinkTerm);
  return near && typeof near.operand === 'number' ? { id: near.operand, nearLink: near.operator === 'near' } : { id: null, nearLink: false };
}

function openNarrow(terms: Term[], { id, nearLink }: { id: number | null; nearLink: boolean }): void {
  if (model.list && sameNarrow(model.list.terms, terms) && model.list.near === id && model.list.nearLink === nearLink) return;
  model.openList(terms, id, nearLink);
  if (id === null || (nearLink && !isTopicView(terms))) return;
  // A link's message may have moved since the link was made: the view follows it, the address too
  // (unless the user has gone elsewhere meanwhile).
  const hash = location.hash;
  void termsWhereMessageIs(terms, id, nearLink).then((moved) => {
    if (moved && location.hash === hash) location.replace(narrowToHash([...moved, { operator: nearLink ? 'near' : 'with', operand: id }]));
  });
}

const isTopicView = (terms: Term[]): boolean => ['channel', 'topic'].every((op) => terms.some((t) => t.operator === op && !t.negated));

/**
 * The link's terms changed to where its message is now, or null when it is
 * still there (or cannot be fetched), as Zulip's adjusted_terms_if_moved: a
 * `with` link opens the message's conversation (its channel and topic, or its
 * direct-message conversation); a `near` link to a topic follows the message
 * to its channel and topic.
 */
async function termsWhereMessageIs(terms: Term[], id: number, nearLink: boolean): Promise<Term[] | null> {
  let m: Message;
  try {
    m = (await api('GET', `/messages/${id}`, { apply_markdown: false })).message as Message;
  } catch {
    return null;
  }
  const others = terms.filter((t) => !['channel', 'topic', 'dm'].includes(t.operator) || t.negated);
  let conversation: Term[];
  if (m.type === 'stream' && m.stream_id !== undefined) {
    const sameTopic = terms.some((t) => t.operator === 'topic' && !t.negated && String(t.operand).toLowerCase() === m.subject.toLowerCase());
    const sameChannel = terms.some((t) => t.operator === 'channel' && !t.negated && t.operand === m.stream_id);
    if (sameTopic && sameChannel && (nearLink || terms.length === others.length + 2)) return null;
    conversation = [
      { operator: 'channel', operand: m.stream_id },
      { operator: 'topic', operand: m.subject },
    ];
  } else {
    if (nearLink) return null;
    const key = model.dmKeyOf(m);
    const dm = terms.find((t) => t.operator === 'dm' && !t.negated);
    if (dm && Array.isArray(dm.operand) && model.dmKey(dm.operand.map(Number)) === key && terms.length === others.length + 1) return null;
    conversation = [{ operator: 'dm', operand: key.split(',').map(Number) }];
  }
  // A near link keeps its other terms' places; a with link is the conversation, then the rest.
  return nearLink ? terms.map((t) => (t.operator === 'channel' && !t.negated ? conversation[0]! : t.operator === 'topic' && !t.negated ? conversation[1]! : t)) : [...conversation, ...others];
}

export function narrowTitle(terms: Term[]): string {
  if (!terms.length) return 'All messages';
  if (model.me && sameNarrow(terms, reactionsTerms(model.me.user_id))) return 'Reactions';
  const ch = terms.find((t) => t.operator === 'channel');
  const topic = terms.find((t) => t.operator === 'topic');
  if (terms.length <= 2 && ch && typeof ch.operand === 'number' && (terms.length === 1 || topic)) return `#${model.streamName(ch.operand)}${topic ? ` › ${topic.operand}` : ''}`;
  if (terms.length === 1) {
    const t = terms[0]!;
    if (t.operator === 'is' && t.operand === 'dm') return 'Direct messages';
    if (t.operator === 'is' && t.operand === 'mentioned') return 'Mentions';
    if (t.operator === 'is' && t.operand === 'starred') return 'Starred messages';
    if (t.operator === 'dm' && Array.isArray(t.operand)) return t.operand.map((id) => model.userName(id)).join(', ');
    if (t.operator === 'sender' && typeof t.operand === 'number' && !t.negated) return `Messages sent by ${model.userName(t.operand)}`;
  }
  return 'Search results';
}

export function searchText(terms: Term[]): string {
  return describeTerms(
    terms,
    (id) => model.streamName(id),
    (id) => model.users.get(id)?.email,
  );
}

export function App() {
  useModel();
  const [started, setStarted] = useState(false);
  const [terms, setTerms] = useState<Term[]>(termsFromLocation());
  /** A dialog over the app, opened by its address (#settings, #channels). */
  const [overlay, setOverlay] = useState<string | null>(isOverlay(location.hash) ? location.hash : null);
  const [search, setSearch] = useState('');
  /** The view shown in place of a narrow's messages (Inbox, Recent conversations), if any. */
  const [view, setView] = useState<string | null>(viewAt(location.hash));
  /** The user whose card is open, if any. */
  const [card, setCard] = useState<number | null>(null);
  /** Whether the keyboard shortcuts are shown (the ? key). */
  const [shortcuts, setShortcuts] = useState(false);
  /** On a narrow window, the sidebar shown over the app (the views and channels, or People), if one is. */
  const [drawer, setDrawer] = useState<'left' | 'right' | null>(null);
  // For the keys: the drawer as of this render (the key handler is set up after the render, which can be after a key).
  const drawerOpen = useRef(false);
  drawerOpen.current = drawer !== null;
  const composeRef = useRef<ComposeHandle>(null);
  const searchRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    model.onIncoming = notifyIfWanted;
    void run(() => {
      setStarted(true);
      setTerms(termsFromLocation());
      // Under a dialog opened by the address (#settings, #drafts, …): the home view.
      const behind = isOverlay(location.hash) ? '' : location.hash;
      setView(viewAt(behind));
      if (!viewAt(behind)) openNarrow(termsFromLocation(), nearFromLocation());
      // (A spectator sends no presence: Zulip's tells it presence is off.)
      if (!model.spectator) startPresence();
    });
    const onHash = () => {
      // Going somewhere closes a sidebar shown over the app.
      setDrawer(null);
      if (isOverlay(location.hash)) {
        setOverlay(location.hash);
        return;
      }
      setOverlay(null);
      setView(viewAt(location.hash));
      if (viewAt(location.hash)) return;
      const t = termsFromLocation();
      setTerms(t);
      if (model.ready) openNarrow(t, nearFromLocation());
    };
    addEventListener('hashchange', onHash);
    return () => {
      removeEventListener('hashchange', onHash);
    };
  }, []);

  // A home view chosen elsewhere (another tab, another client) shows at once where the page shows the home view.
  const home = model.settings.web_home_view;
  useEffect(() => {
    if (!started || (location.hash !== '' && location.hash !== '#')) return;
    const v = viewAt(location.hash);
    setView(v);
    if (!v) {
      setTerms([]);
      openNarrow([], { id: null, nearLink: false });
    }
  }, [home]);

  const scheme = model.settings.color_scheme;
  useEffect(() => applyTheme(scheme ?? 1), [scheme]);
  // Applied as the page renders (not in an effect): the message list measures its messages in its layout effect, which runs before this component's effects.
  applyDensity(model.settings.web_font_size_px, model.settings.web_line_height_percent);

  useEffect(() => {
    // A search shows in the search box (one person's messages are one too); the sidebar's views do not.
    const title = terms.length ? narrowTitle(terms) : '';
    setSearch(title === 'Search results' || (title !== 'Reactions' && terms.some((t) => t.operator === 'sender')) ? searchText(terms) : '');
  }, [terms, started]);
  // The channel and topic of a one-topic narrow, if that is what is in view.
  const channelTopic = (() => {
    const ch = terms.find((t) => t.operator === 'channel');
    const tp = terms.find((t) => t.operator === 'topic');
    if (terms.length !== 2 || !ch || !tp || ch.negated || tp.negated || typeof ch.operand !== 'number') return null;
    return { streamId: ch.operand, topic: String(tp.operand) };
  })();
  // A channel's topic, in a channel the user is in: it can be followed or muted.
  const topicInView = channelTopic && model.subs.has(channelTopic.streamId) ? channelTopic : null;
  // The channel of a channel or topic narrow, subscribed or not.
  const channelNarrow = (() => {
    const ch = terms.find((t) => t.operator === 'channel');
    return (terms.length === 1 || channelTopic !== null) && ch && !ch.negated && typeof ch.operand === 'number' ? ch.operand : null;
  })();
  // That channel, if the user is in it: its personal settings can be opened.
  const channelInView = channelNarrow !== null && model.subs.has(channelNarrow) ? channelNarrow : null;
  // The channel whose list of topics is the view, if it is.
  const topicsOf = view ? topicsListChannel(view) : null;
  // (Its topics in the sidebar too, as a narrow to the channel has them.)
  useEffect(() => {
    if (topicsOf !== null && model.ready) void model.ensureTopics(topicsOf);
  }, [topicsOf, started]);
  // The description of the channel in view or whose topics are listed, under its name (as the server rendered it); not under Inbox or Recent conversations, shown over the last narrow.
  const describedChannel = topicsOf !== null ? topicsOf : !view ? channelNarrow : null;
  const description = describedChannel === null ? undefined : (model.subs.get(describedChannel) ?? model.streams.get(describedChannel))?.rendered_description;
  const unreadInFeed = model.ready ? model.unreadInFeed() : 0;
  // Unread messages of the narrow in view, where the client counts them (the feed, a channel, a topic, a conversation).
  const unreadHere = (() => {
    if (!model.ready) return 0;
    if (!terms.length) return unreadInFeed;
    if (terms.some((t) => t.negated)) return 0;
    const ch = terms.find((t) => t.operator === 'channel');
    const dm = terms.find((t) => t.operator === 'dm');
    if (ch && typeof ch.operand === 'number' && terms.length === 1) return model.unreadCount((u) => u.kind === 'stream' && u.streamId === ch.operand);
    if (channelTopic) {
      const topic = channelTopic.topic.toLowerCase();
      return model.unreadCount((u) => u.kind === 'stream' && u.streamId === channelTopic.streamId && (u.topic ?? '').toLowerCase() === topic);
    }
    if (dm && Array.isArray(dm.operand) && terms.length === 1) {
      const key = model.dmKey(dm.operand);
      return model.unreadCount((u) => u.kind === 'dm' && u.dmKey === key);
    }
    return 0;
  })();
  // A search started in a channel, a topic or a direct-message conversation is within it (Zulip's search starts from the view).
  const dmInView = terms.length === 1 && terms[0]!.operator === 'dm' && !terms[0]!.negated;
  const searchScope = !view && (channelInView !== null || dmInView) ? searchText(terms) : '';
  // The tab's title: the unread count first (as Zulip's), so a tab in the background shows it.
  const viewTitle = topicsOf !== null ? `#${model.streamName(topicsOf)}` : view ? VIEWS[view]! : narrowTitle(terms);
  const title = `${unreadInFeed ? `(${unreadInFeed}) ` : ''}${viewTitle} - Parley`;
  useEffect(() => {
    document.title = title;
  }, [title]);
  // The page's icon: the same count, and a dot while direct messages are unread (Zulip's favicon).
  const unreadDms = model.ready ? model.unreadCount((u) => u.kind === 'dm') : 0;
  useEffect(() => setFavicon(unreadInFeed, unreadDms), [unreadInFeed, unreadDms]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement;
      const typing = el.closest('input, textarea, select, [contenteditable]');
      // Escape, and Ctrl+[ as Zulip's: the newest dialog (a user's card, Settings, Channels, a message's history) closes; else a field is
      // left; else a sidebar shown over the app closes; else the home view (Escape only while web_escape_navigates_to_home_view is on, its default).
      // (Menus, pickers, suggestions and the edit box close on their own Escape, which goes no further.)
      if (e.key === 'Escape' || (e.key === '[' && e.ctrlKey && !e.altKey && !e.metaKey)) {
        if (closeNewestModal()) return;
        if (typing) (el as HTMLElement).blur();
        else if (drawerOpen.current) setDrawer(null);
        else if (e.key === '[' || model.settings.web_escape_navigates_to_home_view !== false) {
          e.preventDefault();
          goHome();
        }
        return;
      }
      // Ctrl+. (Zulip's): to the conversation the compose box writes to, from the box too.
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key === '.') {
        const target = composeRef.current?.target();
        if (target) {
          e.preventDefault();
          location.hash = narrowToHash(target);
        }
        return;
      }
      // Ctrl+K: search, as "/" (Zulip's).
      if (!typing && (e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        searchRef.current?.focus();
        return;
      }
      if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
      // A logged-out visitor has no Inbox, direct messages, drafts, compose box, unread messages or People.
      if (model.spectator && NOT_FOR_VISITORS.has(e.key)) return;
      // Zulip's keys for views: a (All messages, its old name), I (Inbox), P (direct messages).
      const viewKeys: Record<string, string> = { a: '#feed', I: '#inbox', P: narrowToHash([{ operator: 'is', operand: 'dm' }]) };
      if (Object.hasOwn(viewKeys, e.key)) {
        e.preventDefault();
        location.hash = viewKeys[e.key]!;
        return;
      }
      // A and D: the previous and next channel of the sidebar, from the one in view (Zulip's stream_cycle_backward and _forward).
      if (e.key === 'A' || e.key === 'D') {
        e.preventDefault();
        const channels = model.sidebarOrder().map((s) => s.stream_id);
        if (!channels.length) return;
        const inView = viewAt(location.hash) ? undefined : termsFromLocation().find((t) => t.operator === 'channel' && !t.negated)?.operand;
        const at = typeof inView === 'number' ? channels.indexOf(inView) : -1;
        const next = at < 0 ? (e.key === 'D' ? 0 : channels.length - 1) : (at + (e.key === 'D' ? 1 : channels.length - 1)) % channels.length;
        location.hash = narrowToHash([{ operator: 'channel', operand: channels[next]! }]);
        return;
      }
      if (e.key === 'w' || e.key === 'q') {
        // Zulip's: the people filter (w) or the channels' (q), its sidebar opened first where a narrow window keeps it aside.
        e.preventDefault();
        // (The one shown: People may be in the left sidebar too, Zulip's left_side_userlist.)
        const filter = () => [...document.querySelectorAll<HTMLInputElement>(e.key === 'w' ? 'input.people-filter' : 'input.channel-filter')].find((el) => el.offsetParent) ?? null;
        if (!filter()) setDrawer(e.key === 'w' && model.settings.left_side_userlist !== true ? 'right' : 'left');
        requestAnimationFrame(() => filter()?.focus());
        return;
      }
      if (e.key === '?') {
        e.preventDefault();
        setShortcuts(true);
      } else if (e.key === 't') {
        e.preventDefault();
        location.hash = '#recent';
      } else if (e.key === 'd') {
        e.preventDefault();
        location.hash = '#drafts';
      } else if (e.key === '/') {
        e.preventDefault();
        searchRef.current?.focus();
      } else if (e.key === 'c') {
        e.preventDefault();
        composeRef.current?.focus('stream');
      } else if (e.key === 'x') {
        e.preventDefault();
        composeRef.current?.focus('dm');
      } else if (e.key === 'n' || e.key === 'N' || e.key === 'p') {
        // Zulip's next unread topic (n), next unread followed topic (N) and next unread direct message (p).
        e.preventDefault();
        // (From the address, not this handler's `terms`, which a key pressed right after going somewhere would find old.)
        const here = viewAt(location.hash) ? [] : termsFromLocation();
        const next = e.key === 'p' ? nextUnreadDm(here) : nextUnreadTopic(here, e.key === 'N');
        if (next) location.hash = narrowToHash(next);
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [overlay, terms, card, view]);

  async function doLogout() {
    endingSession(true);
    stop();
    await logout();
    goToLogin();
  }

  /** The dialog the address opens over the app, if any, and how it closes: back to the view under it. */
  const shown = overlay === null ? null : overlayAt(overlay);
  const closeOverlay = () => (location.hash = view ?? narrowToHash(terms));
  // A visitor at the address of something that needs an account (settings, channels, drafts, a person's card; not the
  // help): the login page, which comes back to that address (Zulip asks visitors to log in there too).
  const needsAccount = started && model.spectator && shown !== null && shown.kind !== 'help' && shown.kind !== 'about';
  useEffect(() => {
    if (needsAccount) goToLogin(true);
  }, [needsAccount]);

  if (!started) {
    return (
      <div class="loading-screen" role="status">
        <span class="brand-mark big" aria-hidden="true" />
        {/* Why it waits: the server's answer (its rate limit, say), else no answer at all. */}
        <p>{model.conn === 'reconnecting' ? `${model.connError ?? 'Cannot reach the server'} — retrying…` : 'Loading…'}</p>
      </div>
    );
  }

  return (
    // Zulip's fluid_layout_width (off by default): else the page is at most 1,400 px wide, centred.
    <div class={cx('app', drawer && `drawer-${drawer}`, model.settings.fluid_layout_width !== true && 'fixed-width', model.settings.left_side_userlist === true && 'left-userlist', model.spectator && 'spectator')}>
      <header class="topbar">
        <button type="button" class="icon-btn drawer-btn drawer-btn-left" aria-label="Views and channels" aria-expanded={drawer === 'left'} onClick={() => setDrawer(drawer === 'left' ? null : 'left')}>
          {'\u2630'}
        </button>
        <a class="brand" href="#" aria-label="Parley home">
          {model.realm.realm_icon_source === 'U' ? <img class="brand-mark brand-icon" src={model.realm.realm_icon_url} alt="" /> : <span class="brand-mark" aria-hidden="true" />}
          <span>{model.realm.realm_name || 'Parley'}</span>
        </a>
        <SearchBox value={search} setValue={setSearch} inputRef={searchRef} onSearch={() => go(parseSearch(search))} scope={searchScope} />
        <div class="topbar-right">
          {!model.spectator && (
            <button type="button" class="btn ghost drawer-btn drawer-btn-right" aria-label="People" aria-expanded={drawer === 'right'} onClick={() => setDrawer(drawer === 'right' ? null : 'right')}>
              People
            </button>
          )}
          {model.conn === 'reconnecting' && (
            <span class="conn-badge" role="status" title={model.connError ?? 'Cannot reach the server'}>
              Reconnecting…
            </span>
          )}
          {/* The help (Zulip's help menu: the keys, message formatting, the search filters). */}
          <a class="btn ghost help-btn" href="#keyboard-shortcuts" aria-label="Help" title="Help: keyboard shortcuts, message formatting, search filters">
            ?
          </a>
          {model.spectator ? (
            // A logged-out visitor (Zulip's spectator): reading only, and a way in.
            // (Logged in, the app opens where the visitor was.)
            <a
              class="btn"
              href="/login/"
              onClick={(e) => {
                e.preventDefault();
                location.assign(`/login/${location.hash}`);
              }}
            >
              Log in
            </a>
          ) : (
            <>
              <button class="btn ghost" type="button" onClick={() => (location.hash = '#settings')} aria-label="Settings" title="Settings">
                <svg viewBox="0 0 24 24" aria-hidden="true" width="18" height="18">
                  <path
                    fill="currentColor"
                    d="M12 15.5A3.5 3.5 0 1 1 12 8.5a3.5 3.5 0 0 1 0 7zm7.4-2.5a7.6 7.6 0 0 0 0-2l2.1-1.6-2-3.5-2.5 1a7.5 7.5 0 0 0-1.7-1L15 3.2h-4l-.4 2.7a7.5 7.5 0 0 0-1.7 1l-2.5-1-2 3.5L6.6 11a7.6 7.6 0 0 0 0 2l-2.1 1.6 2 3.5 2.5-1c.5.4 1.1.8 1.7 1l.4 2.7h4l.4-2.7c.6-.3 1.2-.6 1.7-1l2.5 1 2-3.5z"
                  />
                </svg>
              </button>
              <span class="me-name">{model.me.full_name}</span>
              <button class="btn" type="button" onClick={doLogout}>
                Log out
              </button>
            </>
          )}
        </div>
      </header>
      <Sidebar
        terms={terms}
        view={view}
        onBrowseChannels={() => (location.hash = '#channels')}
        onNewTopic={(id) => {
          // To the channel's feed (a view with the compose box), the box then set to a new topic there.
          setDrawer(null);
          const feed = narrowToHash([{ operator: 'channel', operand: id }]);
          if (location.hash !== feed) location.hash = feed;
          setTimeout(() => composeRef.current?.newTopic(id), 0);
        }}
        onGo={() => setDrawer(null)}
        onUser={(id) => {
          setDrawer(null);
          setCard(id);
        }}
      />
      <main
        class="center"
        // Files dropped anywhere in the view go into the compose box, as Zulip's; where there is none, the browser
        // must not leave the app to show the file. (A drop on the compose box or a message's edit is theirs.)
        onDragOver={(e) => {
          if (e.dataTransfer?.types.includes('Files')) e.preventDefault();
        }}
        onDrop={(e) => {
          const files = e.dataTransfer?.files;
          if (e.defaultPrevented || !files?.length) return;
          e.preventDefault();
          composeRef.current?.uploadFiles(Array.from(files));
        }}
      >
        <div class="narrow-title">
          <div class="narrow-heading">
            <h1>{viewTitle}</h1>
            {description && <div class="narrow-description rendered" dangerouslySetInnerHTML={{ __html: prepareHtml(description) }} />}
          </div>
          {topicsOf !== null && (
            <span class="narrow-actions">
              <a class="btn ghost small" href={narrowToHash([{ operator: 'channel', operand: topicsOf }])}>
                Channel feed
              </a>
            </span>
          )}
          {!view && !model.spectator && (
            <span class="narrow-actions">
              {model.list && <MarkAllRead list={model.list} idle={unreadHere === 0} />}
              {topicInView && <TopicActions streamId={topicInView.streamId} topic={topicInView.topic} />}
              {channelInView !== null && <ChannelPersonalButton key={channelInView} streamId={channelInView} />}
            </span>
          )}
        </div>
        {view === '#recent' ? (
          <Recent />
        ) : topicsOf !== null ? (
          <Recent key={topicsOf} streamId={topicsOf} />
        ) : view === '#inbox' ? (
          <Inbox />
        ) : (
          <>
            {model.list && <MessageListView key={model.list.key} list={model.list} onQuote={(text) => composeRef.current?.insertQuote(text)} onUser={setCard} onReplyPrivately={(id) => composeRef.current?.directMessage([id])} onStartConversation={(mode) => composeRef.current?.focus(mode)} />}
            {!model.spectator && <Compose handle={composeRef} terms={terms} />}
          </>
        )}
      </main>
      {!model.spectator && (
        <People
          scope={peopleScope(terms, view)}
          onUser={(id) => {
            setDrawer(null);
            setCard(id);
          }}
        />
      )}
      {drawer && <div class="drawer-backdrop" onClick={() => setDrawer(null)} />}
      {shown?.kind === 'settings' && !model.spectator && <Settings section={shown.section} onClose={closeOverlay} />}
      {shown?.kind === 'channels' && !model.spectator && <Channels key={overlay} focus={shown.channel ?? undefined} part={shown.part ?? undefined} create={shown.create} tab={shown.tab} onClose={closeOverlay} />}
      {shown?.kind === 'saved' && !model.spectator && (
        <SavedList
          which={shown.which}
          onClose={closeOverlay}
          onRestore={(d) => {
            // Into the compose box under the dialog, or the one its conversation shows.
            if (composeRef.current && !view) composeRef.current.restore(d);
            else {
              restoreLater(d);
              location.hash = narrowToHash(draftNarrow(d));
            }
          }}
        />
      )}
      {card !== null && !model.spectator && <UserCard userId={card} onClose={() => setCard(null)} />}
      {shown?.kind === 'user' && card === null && !model.spectator && <UserCard key={overlay} userId={shown.id} onClose={closeOverlay} />}
      {shortcuts && <Help tab="keyboard-shortcuts" onClose={() => setShortcuts(false)} />}
      {shown?.kind === 'help' && !shortcuts && <Help key={overlay} tab={shown.tab} onClose={closeOverlay} />}
      {shown?.kind === 'about' && <About onClose={closeOverlay} />}
    </div>
  );
}
