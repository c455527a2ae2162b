import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, failureText } from '../api.ts';
import { model, type Attachment, type Message, type MessageList } from '../model.ts';
import { hashToNarrow, isConversationView, isLinkTerm, narrowToHash, placeKey, placeTerms, showsWholeConversations } from '../narrow.ts';
import { LOCK } from './Sidebar.tsx';
import { TrailingBookend } from './Bookend.tsx';
import { NOT_FOR_VISITORS } from '../shortcuts.ts';
import { useRequest } from './request.tsx';
import { useSuggestions } from './Typeahead.tsx';
import { UploadButton, useUploads } from './UploadBanners.tsx';
import { usePaste } from './Paste.tsx';
import { FormatBar, FormattingToggle } from './FormatBar.tsx';
import { EmojiPicker, Emoji, InsertEmojiButton } from './Emoji.tsx';
import { ReminderForm } from './Scheduled.tsx';
import { animateOnHover, autoFocusOnce, cx, formatDay, formatTime, fullTime, highlightAlertWords, prepareHtml, withCopyButtons } from '../util.ts';
import { Lightbox } from './Lightbox.tsx';
import { Menu } from './Dialog.tsx';
import { Avatar } from './Avatar.tsx';
import { StatusEmoji } from './People.tsx';
import { MessageWidget } from './Widget.tsx';
import { widgetOf } from '../widgets.ts';
import { emptyView, type EmptyView } from '../empty-view.ts';
import { focusSettingWhenOpened } from '../overlays.ts';
import { formattingKey, listEnter, sendsMessage } from '../format-keys.ts';
import { DetachedUploads, EditHistory, hasVisibleHistory, mayMove, messageLink, MessageSource, MoveForm, ReadReceipts, ReportForm, reportsEnabled } from './MessageActions.tsx';

/** Most message rows in the page at once; the rest stay in memory or on the server. */
const MAX_ROWS = 150;
const STEP = 50;
const EDGE_PX = 400;

export interface QuoteTarget {
  text: string;
  message: Message;
}

interface Props {
  list: MessageList;
  onQuote(q: QuoteTarget): void;
  /** A sender's name or avatar clicked: their card. */
  onUser(userId: number): void;
  /** Reply to a sender in a direct message (Shift+R). */
  onReplyPrivately(userId: number): void;
  /** An empty view's "start the conversation": the compose box, for a channel message or a direct message where the view is. */
  onStartConversation?(mode: 'stream' | 'dm'): void;
}

/** What a view with no messages says (emptyView: Zulip's words), with its way to start the conversation. */
function EmptyNotice({ view: v, onStart }: { view: EmptyView; onStart?: (mode: 'stream' | 'dm') => void }) {
  return (
    <div class="empty-state">
      <p class="empty-title">{v.title}</p>
      {v.text && <p>{v.text}</p>}
      {v.link && (
        <p>
          {v.link.before}
          <a href={v.link.href}>{v.link.text}</a>
          {v.link.after}
        </p>
      )}
      {v.start && onStart && !model.spectator && (
        <p>
          Why not{' '}
          <button type="button" class="text-button" onClick={() => onStart(v.start!)}>
            start the conversation
          </button>
          ?
        </p>
      )}
    </div>
  );
}


/** A message's HTML as shown: a search's matches marked (as the server marked them), its alert words highlighted when the server found one in it, its code blocks with a copy button. */
function contentHtml(m: Message): string {
  let html = prepareHtml(m.match_content ?? m.content);
  // A /me message shows after its sender's name, without the "/me" (as Zulip's web app shows it).
  if (m.is_me_message) html = html.replace(/^<p>\/me /, '<p>');
  return withCopyButtons(m.flags.includes('has_alert_word') ? highlightAlertWords(html, model.alertWords) : html);
}

/**
 * The heights past which a message's content is long, condensed behind "Show
 * more" (Zulip's condense.ts): 0.65 of the window's height for a message read
 * when first shown, and for one unread then the window less 12 em (room for
 * what is around it), so that a message being read does not condense under
 * its reader; each at least 35 em.
 */
function longCutoffs(): { read: number; unread: number } {
  const em = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  return { read: Math.max(35 * em, 0.65 * innerHeight), unread: Math.max(35 * em, innerHeight - 12 * em) };
}

/**
 * Whether messages seen in this list are marked read ("reads"), and if not,
 * why (the banner's text): the user's web_mark_read_on_scroll_policy
 * (Zulip's: 1 always, 2 only in conversation views, 3 never), and views that
 * show whole conversations only (narrow.ts; one opened by a `near` link is
 * none, as in Zulip's filter).
 */
type Reading = 'reads' | 'never' | 'conversations-only' | 'not-this-view';
function readingIn(list: MessageList): Reading {
  const policy = Number(model.settings.web_mark_read_on_scroll_policy ?? 1);
  if (policy === 3) return 'never';
  if (policy === 2) return isConversationView(list.terms) && !list.nearLink ? 'reads' : 'conversations-only';
  return showsWholeConversations(list.terms) && !list.nearLink ? 'reads' : 'not-this-view';
}

/** The unread banner's link to Settings (Zulip's, to its preferences), which shows and focuses the setting that keeps messages unread. */
function ChangeReadingSetting() {
  return (
    <a href="#settings/preferences" onClick={() => focusSettingWhenOpened('set-mark-read')}>
      Change setting
    </a>
  );
}

/** Zulip's banner texts, by why messages in view stay unread. */
const UNREAD_BANNER: Record<Exclude<Reading, 'reads'>, preact.ComponentChildren> = {
  never: (
    <>
      Messages will not be automatically marked as read. <ChangeReadingSetting />
    </>
  ),
  'conversations-only': (
    <>
      Messages will not be automatically marked as read because this is not a conversation view. <ChangeReadingSetting />
    </>
  ),
  'not-this-view': 'To preserve your reading state, this view does not mark messages as read.',
};

export function MessageListView({ list, onQuote, onUser, onReplyPrivately, onStartConversation }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  /** Where this view was when last shown, for a list kept between visits (All messages as the home view). */
  const place = model.keepsPlace(list) ? list.place : null;
  // The window of rendered rows, by message id; endId null = follow the newest.
  const [startId, setStartId] = useState<number>(place?.startId ?? 0);
  const [endId, setEndId] = useState<number | null>(() => {
    if (!place || place.endId !== null) return place?.endId ?? null;
    // Following the newest then: still so, unless more came meanwhile than the rows shown hold from where it was.
    const shown = model.shownIn(list);
    const from = shown.findIndex((m) => m.id >= place.startId);
    return from >= 0 && shown.length - from > MAX_ROWS ? shown[from + MAX_ROWS - 1]!.id : null;
  });
  const anchor = useRef<{ id: number; top: number } | null>(null);
  const atBottom = useRef(true);
  /** The rows are to be shown from the top after the next render (Home). */
  const toTop = useRef(false);
  const initialScrollDone = useRef(false);
  // (An edit in progress when the view was left, in a list kept between visits: open again, with its text.)
  const [editing, setEditing] = useState<{ id: number; text: string; error?: string; saving?: boolean } | null>(place?.editing ?? null);
  const [confirmDelete, setConfirmDelete] = useState<number | null>(null);
  const [picker, setPicker] = useState<number | null>(null);
  // Messages of muted senders shown anyway ("Show message").
  const [revealed, setRevealed] = useState<ReadonlySet<number>>(new Set());
  /** Long messages shown whole ("Show more"). */
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(new Set());
  /** Whether each message's content, as rendered, is long (measured after its render; see measureLong), with the content measured. */
  const measured = useRef(new Map<number, { content: string; long: boolean }>());
  /** Messages that were unread when first measured: they have the longer cutoff (longCutoffs). */
  const unreadWhenShown = useRef(new Set<number>());
  const [, setMeasures] = useState(0);
  /** The message whose "More actions" menu is open. */
  const [menu, setMenu] = useState<number | null>(null);
  const [historyOf, setHistoryOf] = useState<Message | null>(null);
  const [receiptsOf, setReceiptsOf] = useState<number | null>(null);
  /** One's uploaded files an edit just left in no message (its detached_uploads): offered for deletion. */
  const [detached, setDetached] = useState<Attachment[] | null>(null);
  /** The message whose original Markdown is shown (one the user cannot edit). */
  const [sourceOf, setSourceOf] = useState<number | null>(null);
  /** The message whose "Remind me" form is open. */
  const [remindOf, setRemindOf] = useState<number | null>(null);
  /** The message whose "Report" form is open. */
  const [reportOf, setReportOf] = useState<number | null>(null);
  /** The message whose "Move" form is open. */
  const [moveOf, setMoveOf] = useState<number | null>(null);
  /** The uploaded image shown whole (a click on its preview), if any. */
  const [viewing, setViewing] = useState<{ src: string; name: string; youtube?: string } | null>(null);
  /** The message whose link was just copied ("Copied" beside its menu). */
  const [copied, setCopied] = useState<number | null>(null);
  /**
   * After "Mark as unread from here": that message's ID. Messages from it on
   * are not marked read by being in view until the user scrolls, clicks or
   * presses a key in the list (as in Zulip's web app), or leaves the view:
   * a list shown again reads again (Zulip's resumes reading when it shows
   * its kept combined feed again).
   */
  const keepUnreadFrom = useRef<number | null>(null);
  /** Why unread messages in view stay unread, shown at the bottom with "Mark as read" (Zulip's unread banner); null when hidden. */
  const [unreadBanner, setUnreadBanner] = useState<Exclude<Reading, 'reads'> | null>(null);
  /** The user closed that banner: not shown again in this view. */
  const bannerClosed = useRef(false);
  const { error: actionError, setError: setActionError, run } = useRequest();
  /** Whether the list is scrolled away from its newest messages (a button then jumps back). */
  const [awayFromNewest, setAwayFromNewest] = useState(false);
  /** The message the keyboard acts on (Zulip's selected message), once a key has chosen one. */
  const [selected, setSelected] = useState<number | null>(place?.selected ?? null);
  /** How many times the list had asked for its newest messages when this view was made (newestWanted's later asks move it). */
  const newestSeen = useRef(list.newestWanted);

  // (Without those muting leaves out of this view.)
  const msgs = model.shownIn(list);
  let s = msgs.findIndex((m) => m.id >= startId);
  if (s < 0) s = msgs.length;
  let e = msgs.length;
  if (endId !== null) {
    const i = msgs.findIndex((m) => m.id > endId);
    e = i < 0 ? msgs.length : i;
  }
  if (endId === null && e - s > MAX_ROWS) s = e - MAX_ROWS;
  const rows = msgs.slice(s, e);

  /** The first row whose bottom is in view, and its top's offset from the pane's top. */
  function topRow(sc: HTMLElement): { id: number; top: number } | null {
    const top = sc.getBoundingClientRect().top;
    for (const el of sc.querySelectorAll<HTMLElement>('.message-row')) {
      const r = el.getBoundingClientRect();
      if (r.bottom > top) return { id: Number(el.dataset.id), top: r.top - top };
    }
    return null;
  }

  function captureAnchor(): void {
    const sc = scroller.current;
    if (sc) anchor.current = topRow(sc) ?? anchor.current;
  }

  // ---- where a list kept between visits was (list.place), taken after each render and scroll
  const placeTimer = useRef<number | null>(null);
  function savePlace(): void {
    const sc = scroller.current;
    // (Not once the pane is out of the page: nothing there to measure.)
    if (!model.keepsPlace(list) || !sc || !sc.isConnected || !sc.clientHeight || !initialScrollDone.current) return;
    const row = topRow(sc);
    list.place = {
      // (From the list's first message: 0, so that older ones it gets meanwhile show too.)
      startId: s === 0 ? 0 : (rows[0]?.id ?? startId),
      endId,
      top: row && { id: row.id, offset: row.top },
      selected,
      editing: editing && !editing.saving ? { id: editing.id, text: editing.text } : null,
    };
  }
  function schedulePlaceSave(): void {
    if (!model.keepsPlace(list) || placeTimer.current !== null) return;
    placeTimer.current = requestAnimationFrame(() => {
      placeTimer.current = null;
      savePlace();
    });
  }
  const savePlaceNow = useRef(savePlace);
  savePlaceNow.current = savePlace;
  useLayoutEffect(
    () => () => {
      if (placeTimer.current !== null) cancelAnimationFrame(placeTimer.current);
      savePlaceNow.current();
    },
    [],
  );

  /**
   * Measures the rendered messages not measured yet (or edited since): whether
   * each is long. True if one is, as it was then rendered whole: the list
   * renders again, condensed, before the browser paints.
   */
  function measureLong(sc: HTMLElement): boolean {
    let cutoffs: ReturnType<typeof longCutoffs> | undefined;
    let boxes: Map<number, HTMLElement> | undefined;
    let found = false;
    for (const m of rows) {
      const before = measured.current.get(m.id);
      if (before?.content === m.content) continue;
      if (!boxes) {
        boxes = new Map();
        for (const el of sc.querySelectorAll<HTMLElement>('.message-content:not(.me-message)')) {
          const id = Number(el.closest<HTMLElement>('.message-row')?.dataset.id);
          if (id && !boxes.has(id)) boxes.set(id, el);
        }
        cutoffs = longCutoffs();
      }
      // (Not for a message shown collapsed, hidden or as "/me": no content box to condense.)
      const el = boxes.get(m.id);
      if (!el || !cutoffs) continue;
      if (!before && !m.flags.includes('read')) unreadWhenShown.current.add(m.id);
      const long = el.scrollHeight > (unreadWhenShown.current.has(m.id) ? cutoffs.unread : cutoffs.read);
      measured.current.set(m.id, { content: m.content, long });
      found ||= long;
    }
    return found;
  }
  // Another text size or line spacing (the user's settings): measured again.
  const fontPx = model.settings.web_font_size_px;
  const linePercent = model.settings.web_line_height_percent;
  const density = useRef(`${fontPx}/${linePercent}`);
  if (density.current !== `${fontPx}/${linePercent}`) {
    density.current = `${fontPx}/${linePercent}`;
    measured.current.clear();
  }
  // A window of another size: measured again.
  useEffect(() => {
    let frame = 0;
    const f = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        measured.current.clear();
        setMeasures((n) => n + 1);
      });
    };
    addEventListener('resize', f);
    return () => {
      cancelAnimationFrame(frame);
      removeEventListener('resize', f);
    };
  }, []);

  useLayoutEffect(() => {
    const sc = scroller.current;
    if (!sc) return;
    // Long messages found: the scrolling below waits for them to be condensed (the next render, before the browser paints).
    if (measureLong(sc)) {
      setMeasures((n) => n + 1);
      return;
    }
    if (!initialScrollDone.current && msgs.length && place?.top && sc.querySelector(`.message-row[data-id="${place.top.id}"]`)) {
      // A list kept between visits: where it was.
      initialScrollDone.current = true;
      const el = sc.querySelector<HTMLElement>(`.message-row[data-id="${place.top.id}"]`)!;
      sc.scrollTop += el.getBoundingClientRect().top - sc.getBoundingClientRect().top - place.top.offset;
      atBottom.current = sc.scrollHeight - sc.scrollTop - sc.clientHeight < 40;
      setAwayFromNewest(sc.scrollHeight - sc.scrollTop - sc.clientHeight > sc.clientHeight);
    } else if (!initialScrollDone.current && msgs.length) {
      initialScrollDone.current = true;
      sc.scrollTop = sc.scrollHeight;
      atBottom.current = true;
      // A link to a message: that message in the middle of the pane. Else the first unread message a seventh of the pane's height from its top (Zulip's recenter_view for a message below the view), what comes before it above.
      const target = list.near === null ? null : sc.querySelector<HTMLElement>(`.message-row[data-id="${targetId}"]`);
      const firstUnread = list.firstUnread === null ? null : sc.querySelector<HTMLElement>(`.message-row[data-id="${list.firstUnread}"]`);
      if (target) target.scrollIntoView({ block: 'center' });
      else if (firstUnread) sc.scrollTop = Math.min(sc.scrollTop, sc.scrollTop + firstUnread.getBoundingClientRect().top - sc.getBoundingClientRect().top - Math.round(sc.clientHeight / 7));
      atBottom.current = sc.scrollHeight - sc.scrollTop - sc.clientHeight < 40;
      // For `npm run bench:web`: when the first list became usable.
      if (!performance.getEntriesByName('parley:list-ready').length) performance.mark('parley:list-ready');
    } else if (toTop.current) {
      toTop.current = false;
      sc.scrollTop = 0;
    } else if (anchor.current) {
      const el = sc.querySelector<HTMLElement>(`.message-row[data-id="${anchor.current.id}"]`);
      if (el) {
        const now = el.getBoundingClientRect().top - sc.getBoundingClientRect().top;
        sc.scrollTop += now - anchor.current.top;
      }
      anchor.current = null;
    } else if (atBottom.current && endId === null) {
      sc.scrollTop = sc.scrollHeight;
    }
    scheduleReadCheck();
    schedulePlaceSave();
    // After a render, a short list may not fill the pane: fetch more.
    if (sc.scrollHeight <= sc.clientHeight + 10 && !list.foundOldest && !list.loadingOlder && msgs.length) void extendUp();
  });

  async function extendUp(): Promise<void> {
    if (s > 0) {
      captureAnchor();
      const ns = Math.max(0, s - STEP);
      const ne = Math.min(e, ns + MAX_ROWS);
      setStartId(msgs[ns]!.id);
      setEndId(ne >= msgs.length ? null : msgs[ne - 1]!.id);
      return;
    }
    if (list.foundOldest || list.loadingOlder) return;
    const added = await list.loadOlder();
    if (!added) return;
    const cur = model.shownIn(list);
    const idx = cur.findIndex((m) => m.id >= (rows[0]?.id ?? 0));
    const ns = Math.max(0, idx - STEP);
    captureAnchor();
    setStartId(cur[ns]!.id);
    const curEnd = endId === null ? cur.length : cur.findIndex((m) => m.id > endId);
    const ne = Math.min(curEnd < 0 ? cur.length : curEnd, ns + MAX_ROWS);
    setEndId(ne >= cur.length ? null : cur[ne - 1]!.id);
  }

  function extendDown(): void {
    if (e >= msgs.length) {
      // A list opened at a linked message: the messages after those loaded.
      if (!list.foundNewest && !list.loadingNewer) {
        captureAnchor();
        void list.loadNewer();
      }
      return;
    }
    captureAnchor();
    const ne = Math.min(msgs.length, e + STEP);
    const ns = Math.max(s, ne - MAX_ROWS);
    setStartId(msgs[ns]!.id);
    setEndId(ne >= msgs.length ? null : msgs[ne - 1]!.id);
  }

  function onScroll(): void {
    const sc = scroller.current!;
    atBottom.current = sc.scrollHeight - sc.scrollTop - sc.clientHeight < 40;
    setAwayFromNewest(sc.scrollHeight - sc.scrollTop - sc.clientHeight > sc.clientHeight);
    if (sc.scrollTop < EDGE_PX) void extendUp();
    else if (sc.scrollHeight - sc.scrollTop - sc.clientHeight < EDGE_PX) extendDown();
    scheduleReadCheck();
    schedulePlaceSave();
  }

  // ---- marking messages read as they are seen
  const readTimer = useRef<number | null>(null);
  function scheduleReadCheck(): void {
    if (readTimer.current !== null) return;
    readTimer.current = window.setTimeout(() => {
      readTimer.current = null;
      const sc = scroller.current;
      if (!sc || document.visibilityState !== 'visible') return;
      const box = sc.getBoundingClientRect();
      const seen: number[] = [];
      for (const el of sc.querySelectorAll<HTMLElement>('.message-row.unread')) {
        const r = el.getBoundingClientRect();
        const visible = Math.min(r.bottom, box.bottom) - Math.max(r.top, box.top);
        if (visible > Math.min(r.height, box.height) * 0.5) seen.push(Number(el.dataset.id));
      }
      // Seen unread messages are marked read, but those from a "Mark as unread from here" on, and in views that do not read.
      const reading = readingIn(list);
      const kept = keepUnreadFrom.current;
      const read = reading === 'reads' ? seen.filter((id) => kept === null || id < kept) : [];
      if (read.length) void model.markRead(read);
      if (read.length < seen.length && !bannerClosed.current) setUnreadBanner(reading === 'reads' ? 'not-this-view' : reading);
    }, 250);
  }
  useEffect(() => {
    const f = () => scheduleReadCheck();
    document.addEventListener('visibilitychange', f);
    addEventListener('focus', f);
    return () => {
      document.removeEventListener('visibilitychange', f);
      removeEventListener('focus', f);
      if (readTimer.current !== null) clearTimeout(readTimer.current);
    };
  }, []);

  /**
   * The user moves in the list again (a key, a click, the wheel; not in a
   * message's actions): messages in view are marked read again.
   */
  function resumeReading(ev: Event): void {
    if (keepUnreadFrom.current === null || (ev.target as HTMLElement).closest('.msg-actions')) return;
    keepUnreadFrom.current = null;
    if (readingIn(list) === 'reads') setUnreadBanner(null);
    scheduleReadCheck();
  }

  /** The banner's "Mark as read": the list's loaded unread messages (as Zulip's), and reading resumes. */
  function markViewRead(): void {
    setUnreadBanner(null);
    keepUnreadFrom.current = null;
    void model.markRead(model.shownIn(list).filter((m) => !m.flags.includes('read')).map((m) => m.id));
  }

  // ---- actions
  async function markUnreadFrom(m: Message): Promise<void> {
    setMenu(null);
    keepUnreadFrom.current = m.id;
    if (!(await run(() => list.markUnreadFrom(m.id)))) keepUnreadFrom.current = null;
  }

  async function copyLink(m: Message): Promise<void> {
    setMenu(null);
    if (await run(() => navigator.clipboard.writeText(messageLink(m)))) {
      setCopied(m.id);
      setTimeout(() => setCopied((c) => (c === m.id ? null : c)), 2000);
    }
  }

  async function toggleReaction(m: Message, name: string, code: string, type: string): Promise<void> {
    const mine = m.reactions.some((r) => r.user_id === model.me.user_id && r.emoji_code === code && r.reaction_type === type);
    const params = { emoji_name: name, emoji_code: code, reaction_type: type };
    await run(() => api(mine ? 'DELETE' : 'POST', `/messages/${m.id}/reactions`, params));
  }

  /** An emoji picked for a message: a reaction added, or taken back where one has it already (as Zulip's picker toggles); `code` '' for a custom emoji or a name typed. */
  async function reactFromPicker(m: Message, name: string, code: string): Promise<void> {
    setPicker(null);
    if (code) return toggleReaction(m, name, code, 'unicode_emoji');
    const custom = [...model.realmEmoji.values()].find((e) => e.name === name && !e.deactivated);
    if (custom) return toggleReaction(m, name, custom.id, 'realm_emoji');
    await run(() => api('POST', `/messages/${m.id}/reactions`, { emoji_name: name }));
  }

  /** Whether one has reacted to a message with the emoji the picker offers. */
  function reactedWith(m: Message, name: string, code: string): boolean {
    return m.reactions.some((r) => r.user_id === model.me.user_id && (code ? r.reaction_type === 'unicode_emoji' && r.emoji_code === code : r.reaction_type === 'realm_emoji' && r.emoji_name === name));
  }

  async function rawContent(id: number): Promise<string> {
    const r = await api('GET', `/messages/${id}`, { apply_markdown: false });
    return r.raw_content ?? r.message?.content ?? '';
  }

  async function startEdit(m: Message): Promise<void> {
    await run(async () => setEditing({ id: m.id, text: await rawContent(m.id) }));
  }

  async function saveEdit(): Promise<void> {
    if (!editing) return;
    setEditing({ ...editing, saving: true, error: undefined });
    try {
      const r = await api('PATCH', `/messages/${editing.id}`, { content: editing.text });
      setEditing(null);
      if (Array.isArray(r.detached_uploads) && r.detached_uploads.length) setDetached(r.detached_uploads as Attachment[]);
    } catch (err) {
      setEditing({ ...editing, saving: false, error: failureText(err) });
    }
  }

  async function quote(m: Message): Promise<void> {
    await run(async () => {
      const raw = await rawContent(m.id);
      const link = messageLink(m);
      const fence = raw.includes('```') ? '````' : '```';
      onQuote({ text: `@_**${m.sender_full_name}|${m.sender_id}** [said](${link}):\n${fence}quote\n${raw}\n${fence}\n`, message: m });
    });
  }

  function onContentClick(ev: MouseEvent): void {
    const t = ev.target as HTMLElement;
    const copy = t.closest<HTMLButtonElement>('.copy-code');
    if (copy) {
      const code = copy.parentElement?.querySelector('pre')?.textContent ?? '';
      void navigator.clipboard.writeText(code).then(
        () => {
          copy.setAttribute('aria-label', 'Copied');
          copy.textContent = 'Copied';
          setTimeout(() => {
            copy.setAttribute('aria-label', 'Copy code');
            copy.textContent = 'Copy';
          }, 2000);
        },
        () => setActionError('The browser did not let the code be copied.'),
      );
      return;
    }
    // An uploaded image's preview opens the image over the app (a YouTube preview, its video).
    const preview = t.tagName === 'IMG' ? t.closest<HTMLAnchorElement>('.message_inline_image a') : null;
    if (preview && viewImage(preview)) {
      ev.preventDefault();
      return;
    }
    const header = t.closest('.spoiler-header');
    if (header) {
      header.parentElement?.classList.toggle('spoiler-open');
      const content = header.parentElement?.querySelector('.spoiler-content');
      content?.setAttribute('aria-hidden', header.parentElement?.classList.contains('spoiler-open') ? 'false' : 'true');
      return;
    }
    const a = t.closest('a');
    if (a && a.closest('.message-content')) {
      const href = a.getAttribute('href') ?? '';
      if (href.startsWith('#')) return;
      ev.preventDefault();
      // Links Zulip's Markdown makes to channels, topics and messages of this organization open here.
      if (href.startsWith('/#narrow/')) {
        location.hash = href.slice(1);
        return;
      }
      window.open(a.href, '_blank', 'noopener,noreferrer');
    }
  }

  /** Shows an uploaded image's preview (its link) whole over the app, or plays a YouTube preview's video there; false for another link. */
  function viewImage(preview: HTMLAnchorElement): boolean {
    const href = preview.getAttribute('href') ?? '';
    const youtube = preview.closest('.youtube-video') ? (preview.dataset.id ?? '') : '';
    if (/^[\w-]+$/.test(youtube)) {
      setViewing({ src: href, name: 'YouTube video', youtube });
      return true;
    }
    if (!href.startsWith('/user_uploads/')) return false;
    setViewing({ src: href, name: preview.title || decodeURIComponent(href.split('/').pop() ?? 'Image') });
    return true;
  }

  /** Collapses a message to a line or shows it again (the `collapsed` flag at the server, as Zulip's). */
  function setCollapsed(m: Message, on: boolean): Promise<boolean> {
    return run(() => api('POST', '/messages/flags', { messages: [m.id], op: on ? 'add' : 'remove', flag: 'collapsed' }));
  }

  /** Back to the newest messages: the rows at the end; a list not loaded to the end opened anew (at a linked message) or given its newest page (at the first unread one). */
  function jumpToNewest(): void {
    if (!list.foundNewest && list.near !== null) {
      // Opened at a linked message: the address without it. Else (Home went to the oldest) the same view at its newest.
      const linked = (hashToNarrow(location.hash) ?? []).some(isLinkTerm);
      if (linked) location.hash = narrowToHash(list.terms);
      else model.openList(list.terms);
      return;
    }
    // (Opened at its first unread message: the newest page is fetched, in place of the gap.)
    if (!list.foundNewest) void list.refresh();
    showNewestRows();
  }

  /** To the narrow's oldest message, selected (Zulip's Home): the first rows when it is loaded, else the narrow opened at it. */
  async function jumpToOldest(): Promise<void> {
    if (!list.foundOldest) {
      let id: number | null = null;
      await run(async () => (id = await list.oldestId()));
      // The same view opened at that message, the address unchanged (as Zulip's web app does).
      if (id !== null) model.openList(list.terms, id);
      return;
    }
    if (!msgs.length) return;
    anchor.current = null;
    atBottom.current = false;
    toTop.current = true;
    setStartId(msgs[0]!.id);
    setEndId(msgs.length > MAX_ROWS ? msgs[MAX_ROWS - 1]!.id : null);
    setSelected(msgs[0]!.id);
  }

  /** The rows at the end of what is loaded, scrolled to the bottom (and kept there as more arrive). */
  function showNewestRows(): void {
    // (Not kept where a row was: an anchor taken while loading is dropped.)
    anchor.current = null;
    atBottom.current = true;
    setEndId(null);
    setStartId(msgs[Math.max(0, msgs.length - MAX_ROWS)]?.id ?? 0);
    const sc = scroller.current;
    if (sc) sc.scrollTop = sc.scrollHeight;
    setAwayFromNewest(false);
  }

  // One's own message sent into the narrow: shown at the bottom (the list fetches the newest page itself when it must).
  useEffect(() => {
    if (list.newestWanted <= newestSeen.current) return;
    newestSeen.current = list.newestWanted;
    showNewestRows();
  }, [list.newestWanted]);

  // ---- the keyboard (Zulip's shortcuts for the selected message)
  const keys = useRef<(e: KeyboardEvent) => void>(() => {});
  keys.current = (e: KeyboardEvent) => {
    const el = e.target as HTMLElement;
    if (el.closest('input, textarea, select, [contenteditable], [role="menu"], .emoji-picker') || document.querySelector('[role="dialog"], [role="alertdialog"]')) return;
    // Enter on a focused link or button is theirs.
    if (e.key === 'Enter' && el.closest('a, button, summary')) return;
    const starKey = e.key === 's' && (e.ctrlKey || e.metaKey) && !e.altKey;
    if ((e.ctrlKey || e.metaKey || e.altKey) && !starKey) return;
    const shown = [...(scroller.current?.querySelectorAll<HTMLElement>('.message-row') ?? [])];
    if (!shown.length) return;
    const ids = shown.map((r) => Number(r.dataset.id));
    const select = (id: number) => {
      setSelected(id);
      shown[ids.indexOf(id)]?.scrollIntoView({ block: 'nearest' });
    };
    // With none selected yet, a key acts on the lowest message in view.
    const current = (): number => {
      if (selected !== null && ids.includes(selected)) return selected;
      const bottom = scroller.current!.getBoundingClientRect().bottom;
      const inView = shown.filter((r) => r.getBoundingClientRect().top < bottom);
      return Number((inView.at(-1) ?? shown.at(-1)!).dataset.id);
    };
    // The keys that act on the selected message (Zulip's).
    const place = (m: Message) => placeTerms(model.placeOf(m));
    const onMessage: Record<string, (m: Message) => void> = {
      Enter: (m) => onQuote({ text: '', message: m }),
      r: (m) => onQuote({ text: '', message: m }),
      R: (m) => onReplyPrivately(m.sender_id),
      '>': (m) => void quote(m),
      // "Edit or view source": one's own editable message is edited, any other's Markdown shown.
      e: (m) => (model.mayEdit(m) ? void startEdit(m) : setSourceOf(m.id)),
      '+': (m) => model.mayReact(m) && void toggleReaction(m, 'thumbs_up', '1f44d', 'unicode_emoji'),
      ':': (m) => model.mayReact(m) && (setSelected(m.id), setPicker(m.id)),
      i: (m) => (setSelected(m.id), setMenu(m.id)),
      u: (m) => onUser(m.sender_id),
      s: (m) => (location.hash = narrowToHash(place(m))),
      S: (m) => (location.hash = narrowToHash(m.type === 'stream' ? [place(m)[0]!] : place(m))),
      U: (m) => void markUnreadFrom(m),
      '-': (m) => void setCollapsed(m, !m.flags.includes('collapsed')),
      // A reply that mentions the sender (by ID too where another active user has the same name, as Zulip's mention syntax does).
      '@': (m) => onQuote({ text: `${model.mentionSyntax(m.sender_id, m.sender_full_name)} `, message: m }),
      // Zulip's "upvote": one's vote added to (or taken from) the message's first reaction.
      '=': (m) => {
        const first = m.reactions[0];
        if (first && model.mayReact(m)) void toggleReaction(m, first.emoji_name, first.emoji_code, first.reaction_type);
      },
      // The topic muted or unmuted, as its menu does (in a muted channel, unmuted there or back to the channel's muting).
      M: (m) => {
        if (m.type !== 'stream' || m.stream_id === undefined || !model.subs.has(m.stream_id)) return;
        const { visibility } = model.topicMuteAction(m.stream_id, m.subject);
        void run(() => api('POST', '/user_topics', { stream_id: m.stream_id, topic: m.subject, visibility_policy: visibility }));
      },
      H: (m) => hasVisibleHistory(m) && setHistoryOf(m),
      V: (m) => model.realm.realm_enable_read_receipts && setReceiptsOf(m.id),
      // The message's first uploaded image, whole.
      v: (m) => {
        const row = shown[ids.indexOf(m.id)];
        for (const a of row?.querySelectorAll<HTMLAnchorElement>('.message_inline_image a') ?? []) if (viewImage(a)) break;
      },
    };
    // A logged-out visitor changes nothing and writes nothing: of these keys only those that go somewhere or show.
    if (model.spectator && (starKey || NOT_FOR_VISITORS.has(e.key))) return;
    if (starKey) {
      const m = msgs.find((x) => x.id === current());
      if (m) void run(() => api('POST', '/messages/flags', { messages: [m.id], op: m.flags.includes('starred') ? 'remove' : 'add', flag: 'starred' }));
    } else if (e.key === 'ArrowDown' || e.key === 'j') {
      const i = selected !== null && ids.includes(selected) ? ids.indexOf(selected) + 1 : ids.indexOf(current());
      if (i < ids.length) select(ids[i]!);
      if (i >= ids.length - 1) extendDown();
    } else if (e.key === 'ArrowUp' || e.key === 'k') {
      const i = selected !== null && ids.includes(selected) ? ids.indexOf(selected) - 1 : ids.indexOf(current());
      if (i >= 0) select(ids[i]!);
      if (i <= 0) void extendUp();
    } else if (e.key === 'J' || e.key === 'K') {
      // Zulip's page down and up (as vim's).
      const sc = scroller.current!;
      sc.scrollBy({ top: (e.key === 'J' ? 1 : -1) * sc.clientHeight * 0.9 });
    } else if (e.key === 'Home') {
      void jumpToOldest();
    } else if (e.key === 'End' || e.key === 'G') {
      jumpToNewest();
      setSelected(list.foundNewest ? (msgs.at(-1)?.id ?? null) : null);
    } else if (e.key === 'ArrowLeft') {
      // Zulip's "edit your last message": the newest loaded message of one's own that may still be edited.
      const mine = [...msgs].reverse().find((m) => m.sender_id === model.me.user_id && model.mayEdit(m));
      if (mine) {
        if (ids.includes(mine.id)) select(mine.id);
        void startEdit(mine);
      }
    } else if (Object.hasOwn(onMessage, e.key)) {
      const m = msgs.find((x) => x.id === current());
      if (m) onMessage[e.key]!(m);
    } else return;
    e.preventDefault();
  };
  useEffect(() => {
    const f = (e: KeyboardEvent) => keys.current(e);
    addEventListener('keydown', f);
    return () => removeEventListener('keydown', f);
  }, []);

  const me = model.me.user_id;
  // The linked message the list opened at (or the first after it, if it is gone).
  const targetId = list.near === null ? null : (msgs.find((m) => m.id >= list.near!)?.id ?? null);
  const out: preact.JSX.Element[] = [];
  let prevKey = '';
  let prevDay = '';
  let prev: Message | undefined;
  let prevHidden = false;
  if (s > 0 || !list.foundOldest) {
    out.push(
      <div class="list-edge" key="top">
        {list.loadingOlder ? 'Loading older messages…' : s > 0 || !list.foundOldest ? '' : ''}
      </div>,
    );
  } else if (rows.length) {
    out.push(
      <div class="list-edge start" key="top">
        This is the beginning of the conversation.
      </div>,
    );
  }
  for (const m of rows) {
    const place = model.placeOf(m);
    const key = placeKey(place);
    const day = formatDay(m.timestamp);
    const newBar = key !== prevKey || day !== prevDay;
    if (newBar) {
      const sub = m.stream_id !== undefined ? model.subs.get(m.stream_id) : undefined;
      const terms = placeTerms(place);
      out.push(
        <div class={cx('recipient-bar', m.type === 'private' && 'dm')} key={`bar-${m.id}`} style={m.type === 'stream' ? { '--stream-color': sub?.color ?? '#999' } : undefined}>
          {m.type === 'stream' ? (
            <>
              <a class="bar-channel" href={narrowToHash([terms[0]!])}>
                {sub?.invite_only ? LOCK : '# '}
                {model.streamName(m.stream_id)}
              </a>
              <span class="bar-sep" aria-hidden="true">
                ›
              </span>
              <a class={cx('bar-topic', model.isGeneralChat(m.subject) && 'general-chat')} href={narrowToHash(terms)}>
                {m.subject || '(no topic)'}
              </a>
            </>
          ) : (
            <a class="bar-dm" href={narrowToHash(terms)}>
              {(() => {
                const ids = (terms[0]!.operand as number[]).filter((id) => id !== me);
                return ids.length ? `You and ${ids.map((id) => model.userName(id)).join(', ')}` : 'You (notes to self)';
              })()}
            </a>
          )}
          <span class="bar-date">{day}</span>
        </div>,
      );
    }
    // A muted sender's message in a channel or a group conversation shows collapsed, without their name or avatar, until revealed (as in Zulip).
    const hidden = model.isUserMuted(m.sender_id) && !revealed.has(m.id);
    const senderName = hidden ? 'Muted user' : model.withGuestMark(m.sender_id, m.sender_full_name);
    const continued = !newBar && prev && prev.sender_id === m.sender_id && prevHidden === hidden && m.timestamp - prev.timestamp < 600;
    const unread = !m.flags.includes('read');
    const starred = m.flags.includes('starred');
    const reactable = model.mayReact(m);
    const mentioned = m.flags.some((f) => /mentioned/.test(f));
    const groups = new Map<string, { name: string; code: string; type: string; users: number[] }>();
    for (const r of m.reactions) {
      const k = `${r.reaction_type}:${r.emoji_code}`;
      const g = groups.get(k) ?? { name: r.emoji_name, code: r.emoji_code, type: r.reaction_type, users: [] };
      g.users.push(r.user_id);
      groups.set(k, g);
    }
    const isEditing = editing?.id === m.id;
    const fit = measured.current.get(m.id);
    const long = fit?.content === m.content && fit.long;
    const collapsed = m.flags.includes('collapsed');
    // The sender's status emoji beside their name, as Zulip's.
    const senderStatus = hidden ? undefined : model.statuses.get(m.sender_id);
    const widget = widgetOf(m, me);
    out.push(
      <article
        key={m.id}
        data-id={m.id}
        class={cx('message-row', continued && 'continued', unread && 'unread', mentioned && 'mentioned', m.sender_id === me && 'own', m.id === targetId && 'linked', m.id === selected && 'selected')}
        aria-current={m.id === selected ? 'true' : undefined}
        // Once the keyboard has selected a message, a click selects the one clicked.
        onClick={() => selected !== null && selected !== m.id && setSelected(m.id)}
        aria-label={`${senderName}, ${formatTime(m.timestamp)}`}
      >
        <div class="gutter">
          {hidden && !continued ? (
            <span class="sender-avatar muted-sender" />
          ) : !continued ? (
            // The sender's name beside it is the button for the keyboard and screen readers.
            <span class="sender-avatar" onClick={() => onUser(m.sender_id)}>
              <Avatar userId={m.sender_id} name={m.sender_full_name} url={m.avatar_url} />
            </span>
          ) : (
            <time class="hover-time" dateTime={new Date(m.timestamp * 1000).toISOString()} title={fullTime(m.timestamp)}>
              {formatTime(m.timestamp)}
            </time>
          )}
        </div>
        <div class="body">
          {!continued && (
            <div class="msg-head">
              <button type="button" class="sender" aria-haspopup="dialog" onClick={() => onUser(m.sender_id)}>
                {senderName}
              </button>
              {senderStatus?.emoji_name && (
                <span class="sender-status" title={senderStatus.status_text || undefined}>
                  <StatusEmoji status={senderStatus} />
                </span>
              )}
              <time dateTime={new Date(m.timestamp * 1000).toISOString()} title={fullTime(m.timestamp)}>
                {formatTime(m.timestamp)}
              </time>
            </div>
          )}
          {isEditing ? (
            <EditBox
              text={editing.text}
              error={editing.error}
              saving={!!editing.saving}
              inChannel={m.type === 'stream'}
              channelId={m.stream_id}
              onUpdate={(change) => setEditing((e) => e && { ...e, text: change(e.text) })}
              onError={(error) => setEditing((e) => e && { ...e, error })}
              onSave={() => void saveEdit()}
              onCancel={() => setEditing(null)}
            />
          ) : hidden ? (
            <p class="message-content muted-message">
              This message was hidden because you muted the sender.{' '}
              <button type="button" class="btn small" onClick={() => setRevealed((r) => new Set(r).add(m.id))}>
                Show message
              </button>
            </p>
          ) : collapsed ? (
            <button type="button" class="btn small show-more" aria-expanded="false" onClick={() => void setCollapsed(m, false)}>
              Show more
            </button>
          ) : widget ? (
            <MessageWidget message={m} widget={widget} />
          ) : m.is_me_message ? (
            <div class="message-content rendered me-message" onClick={onContentClick}>
              <span class="me-sender">{senderName}</span> <span dangerouslySetInnerHTML={{ __html: contentHtml(m) }} />
            </div>
          ) : (
            <>
              <div class={cx('message-content rendered', long && !expanded.has(m.id) && 'condensed')} onClick={onContentClick} dangerouslySetInnerHTML={{ __html: contentHtml(m) }} />
              {long && (
                <button
                  type="button"
                  class="btn small show-more"
                  aria-expanded={expanded.has(m.id)}
                  onClick={() =>
                    setExpanded((x) => {
                      const next = new Set(x);
                      if (!next.delete(m.id)) next.add(m.id);
                      return next;
                    })
                  }
                >
                  {expanded.has(m.id) ? 'Show less' : 'Show more'}
                </button>
              )}
            </>
          )}
          {remindOf === m.id && <ReminderForm messageId={m.id} onClose={() => setRemindOf(null)} />}
          {reportOf === m.id && <ReportForm messageId={m.id} onClose={() => setReportOf(null)} />}
          {moveOf === m.id && <MoveForm message={m} onClose={() => setMoveOf(null)} />}
          {(m.last_edit_timestamp || m.last_moved_timestamp) && !isEditing && <EditNotice m={m} onOpen={() => setHistoryOf(m)} />}
          {groups.size > 0 && !hidden && (
            <div class="reactions">
              {[...groups.values()].map((g) => {
                // Names in place of the counts while there are few reactions (3 or fewer, as Zulip's web app), unless the user turned that off.
                const names = model.settings.display_emoji_reaction_users !== false && m.reactions.length <= 3;
                const mine = g.users.includes(me);
                const who = g.users.map((id) => (id === me ? 'You' : model.userName(id))).join(', ');
                return (
                  <button
                    type="button"
                    key={`${g.type}:${g.code}`}
                    class={cx('reaction', mine && 'mine', !reactable && 'disabled')}
                    aria-pressed={mine}
                    aria-disabled={!reactable || undefined}
                    aria-label={`${g.name} reaction, ${g.users.length}`}
                    title={`${who} reacted with :${g.name}:`}
                    onClick={() => reactable && void toggleReaction(m, g.name, g.code, g.type)}
                  >
                    <Emoji code={g.code} type={g.type} name={g.name} />
                    <span class="reaction-count">{names ? who : g.users.length}</span>
                  </button>
                );
              })}
            </div>
          )}
          {confirmDelete === m.id && (
            <div class="confirm" role="alertdialog" aria-label="Delete message?">
              <span>Delete this message for everyone?</span>
              <button
                class="btn danger small"
                type="button"
                onClick={async () => {
                  setConfirmDelete(null);
                  await run(() => api('DELETE', `/messages/${m.id}`));
                }}
              >
                Delete
              </button>
              <button class="btn small" type="button" onClick={() => setConfirmDelete(null)}>
                Cancel
              </button>
            </div>
          )}
        </div>
        {/* A spectator may change nothing: no actions (its reactions' buttons ask it to log in, through the server's 401). */}
        {!model.spectator && (
          <div class={cx('msg-actions', (picker === m.id || menu === m.id || copied === m.id) && 'open')} role="toolbar" aria-label="Actions">
            {reactable && (
              <button type="button" class="icon-btn" aria-label="Add reaction" title="Add reaction" aria-expanded={picker === m.id} onClick={() => setPicker(picker === m.id ? null : m.id)}>
                {ICON.react}
              </button>
            )}
            <button type="button" class="icon-btn" aria-label="Quote and reply" title="Quote and reply" onClick={() => void quote(m)}>
              {ICON.quote}
            </button>
            {model.mayEdit(m) && (
              <button type="button" class="icon-btn" aria-label="Edit" title="Edit" onClick={() => void startEdit(m)}>
                {ICON.edit}
              </button>
            )}
            {model.mayDelete(m) && (
              <button type="button" class="icon-btn" aria-label="Delete" title="Delete" onClick={() => setConfirmDelete(m.id)}>
                {ICON.trash}
              </button>
            )}
            <button
              type="button"
              class={cx('icon-btn', starred && 'starred')}
              aria-label={starred ? 'Unstar' : 'Star'}
              aria-pressed={starred}
              title={starred ? 'Unstar' : 'Star'}
              onClick={() => void run(() => api('POST', '/messages/flags', { messages: [m.id], op: starred ? 'remove' : 'add', flag: 'starred' }))}
            >
              {starred ? ICON.starOn : ICON.star}
            </button>
            <button type="button" class="icon-btn" aria-label="More actions" title="More actions" aria-haspopup="menu" aria-expanded={menu === m.id} onClick={() => setMenu(menu === m.id ? null : m.id)}>
              {ICON.more}
            </button>
            {copied === m.id && (
              <span class="copied" role="status">
                Copied
              </span>
            )}
            {picker === m.id && <EmojiPicker onPick={(name, code) => void reactFromPicker(m, name, code)} reacted={(name, code) => reactedWith(m, name, code)} onClose={() => setPicker(null)} />}
            {menu === m.id && (
              <Menu label="More actions" onClose={() => setMenu(null)}>
                {hasVisibleHistory(m) && (
                  <button type="button" role="menuitem" onClick={() => (setMenu(null), setHistoryOf(m))}>
                    View edit history
                  </button>
                )}
                {model.realm.realm_enable_read_receipts && (
                  <button type="button" role="menuitem" onClick={() => (setMenu(null), setReceiptsOf(m.id))}>
                    Read receipts
                  </button>
                )}
                {!model.mayEdit(m) && (
                  <button type="button" role="menuitem" onClick={() => (setMenu(null), setSourceOf(m.id))}>
                    View original message
                  </button>
                )}
                <button type="button" role="menuitem" onClick={() => void markUnreadFrom(m)}>
                  Mark as unread from here
                </button>
                <button type="button" role="menuitem" onClick={() => void copyLink(m)}>
                  Copy link to message
                </button>
                <button type="button" role="menuitem" onClick={() => (setMenu(null), setRemindOf(m.id))}>
                  Remind me about this
                </button>
                <button type="button" role="menuitem" onClick={() => (setMenu(null), void setCollapsed(m, !collapsed))}>
                  {collapsed ? 'Expand message' : 'Collapse message'}
                </button>
                {m.type === 'stream' && m.stream_id !== undefined && mayMove(m.stream_id) && (
                  <button type="button" role="menuitem" onClick={() => (setMenu(null), setMoveOf(m.id))}>
                    Move message
                  </button>
                )}
                {model.isUserMuted(m.sender_id) && revealed.has(m.id) && (
                  <button
                    type="button"
                    role="menuitem"
                    onClick={() => {
                      setMenu(null);
                      setRevealed((r) => {
                        const next = new Set(r);
                        next.delete(m.id);
                        return next;
                      });
                    }}
                  >
                    Hide muted message again
                  </button>
                )}
                {reportsEnabled() && m.sender_id !== me && (
                  <button type="button" role="menuitem" onClick={() => (setMenu(null), setReportOf(m.id))}>
                    Report message
                  </button>
                )}
              </Menu>
            )}
          </div>
        )}
      </article>,
    );
    prevKey = key;
    prevDay = day;
    prev = m;
    prevHidden = hidden;
  }

  const empty = !list.loading && !msgs.length;
  // What the view says when it has nothing to show; for a channel or person the user cannot see, instead of the server's refusal (as Zulip's).
  const emptyNotice = empty ? emptyView(list) : null;
  const shownError = list.error && !emptyNotice?.invalid ? list.error : null;
  // A view of one channel's messages (with or without other terms): its trailing bookend.
  const channelTerms = list.terms.filter((t) => t.operator === 'channel' && !t.negated);
  const bookendChannel = channelTerms.length === 1 && typeof channelTerms[0]!.operand === 'number' ? channelTerms[0]!.operand : null;
  return (
    <div class={cx('message-pane', unreadBanner && 'with-banner')}>
      {actionError && (
        <div class="toast" role="alert">
          {actionError}
          <button type="button" class="icon-btn" aria-label="Dismiss" onClick={() => setActionError(null)}>
            ×
          </button>
        </div>
      )}
      {historyOf && <EditHistory message={historyOf} onClose={() => setHistoryOf(null)} />}
      {viewing && <Lightbox src={viewing.src} name={viewing.name} youtube={viewing.youtube} onClose={() => setViewing(null)} />}
      {receiptsOf !== null && <ReadReceipts messageId={receiptsOf} onClose={() => setReceiptsOf(null)} />}
      {detached && <DetachedUploads files={detached} onClose={() => setDetached(null)} />}
      {sourceOf !== null && <MessageSource messageId={sourceOf} onClose={() => setSourceOf(null)} />}
      <div
        class="message-scroller"
        ref={scroller}
        onScroll={onScroll}
        onWheel={resumeReading}
        onKeyDown={resumeReading}
        onPointerDown={resumeReading}
        onMouseOver={(e) => animateOnHover(e.target, true)}
        onMouseOut={(e) => animateOnHover(e.target, false)}
        onLoadCapture={(e) => {
          // An image of a message not long when measured: measured again now that its size is known.
          const id = Number((e.target as HTMLElement).closest<HTMLElement>('.message-row')?.dataset.id);
          if (measured.current.get(id)?.long === false) {
            measured.current.delete(id);
            setMeasures((n) => n + 1);
          }
          if (atBottom.current && endId === null && scroller.current) scroller.current.scrollTop = scroller.current.scrollHeight;
        }}
        role="log"
        aria-label="History"
        aria-busy={list.loading}
      >
        {list.loading && !msgs.length && <div class="list-edge">Loading messages…</div>}
        {shownError && (
          <div class="form-error" role="alert">
            {shownError}
          </div>
        )}
        {emptyNotice && !shownError && <EmptyNotice view={emptyNotice} onStart={onStartConversation} />}
        {out}
        {bookendChannel !== null && list.foundNewest && !list.loading && e === msgs.length && !model.spectator && <TrailingBookend key={bookendChannel} streamId={bookendChannel} last={msgs.at(-1)} />}
      </div>
      {unreadBanner && (
        <div class="unread-banner" role="status">
          <p>{UNREAD_BANNER[unreadBanner]}</p>
          <button type="button" class="btn small" onClick={markViewRead}>
            Mark as read
          </button>
          <button
            type="button"
            class="icon-btn"
            aria-label="Close"
            onClick={() => {
              bannerClosed.current = true;
              setUnreadBanner(null);
            }}
          >
            ×
          </button>
        </div>
      )}
      {(awayFromNewest || endId !== null || !list.foundNewest) && msgs.length > 0 && !list.loading && (
        <button type="button" class="btn jump-newest" onClick={jumpToNewest}>
          {'\u2193 Jump to newest'}
        </button>
      )}
    </div>
  );
}

/**
 * Zulip's mark of a modified message: "(edited)" when its text was edited,
 * else "(moved)"; when each last happened in its title; a click shows its
 * history where the organization lets members see it.
 */
function EditNotice({ m, onOpen }: { m: Message; onOpen(): void }) {
  const label = m.last_edit_timestamp ? '(edited)' : '(moved)';
  const title = [m.last_edit_timestamp && `Last edited ${fullTime(m.last_edit_timestamp)}.`, m.last_moved_timestamp && `Last moved ${fullTime(m.last_moved_timestamp)}.`].filter(Boolean).join('\n');
  if (!hasVisibleHistory(m)) {
    return (
      <span class="edited" title={title}>
        {label}
      </span>
    );
  }
  return (
    <button type="button" class="edited" title={title} onClick={onOpen}>
      {label}
    </button>
  );
}

const svg = (d: preact.ComponentChildren) => (
  <svg viewBox="0 0 20 20" width="17" height="17" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round">
    {d}
  </svg>
);
const ICON = {
  react: svg(
    <>
      <circle cx="9" cy="10" r="6.5" />
      <path d="M6.5 11.5c.6 1 1.5 1.5 2.5 1.5s1.9-.5 2.5-1.5M7 8h.01M11 8h.01M16 2v4M14 4h4" />
    </>,
  ),
  quote: svg(<path d="M4 14V9.5A3.5 3.5 0 0 1 7.5 6M11 14V9.5A3.5 3.5 0 0 1 14.5 6M4 14h3v-3H4M11 14h3v-3h-3" />),
  edit: svg(<path d="M13.5 3.5l3 3L7 16H4v-3z" />),
  trash: svg(<path d="M4 6h12M8 6V4h4v2M6 6l1 10h6l1-10" />),
  more: svg(<path d="M5 10h.01M10 10h.01M15 10h.01" stroke-width="3" />),
  star: svg(<path d="M10 2.8l2.2 4.6 5 .7-3.6 3.5.9 5L10 14.2l-4.5 2.4.9-5L2.8 8.1l5-.7z" />),
  starOn: (
    <svg viewBox="0 0 20 20" width="17" height="17" aria-hidden="true">
      <path d="M10 2.8l2.2 4.6 5 .7-3.6 3.5.9 5L10 14.2l-4.5 2.4.9-5L2.8 8.1l5-.7z" fill="currentColor" />
    </svg>
  ),
};



/**
 * A message's edit: its text (Enter saves, Escape cancels; the compose box's
 * suggestions as one types), files uploaded into it by the paperclip, drag
 * and drop or paste, an emoji from the picker, the formatting buttons, a
 * preview of the text as it will show (as in the compose box, and as
 * Zulip's edit form), Save and Cancel. Saving waits for the uploads: their links are not in yet.
 */
function EditBox(props: {
  text: string;
  error?: string;
  saving: boolean;
  inChannel: boolean;
  /** The message's channel (the topics `#>` offers). */
  channelId?: number;
  onUpdate(change: (text: string) => string): void;
  onError(message: string): void;
  onSave(): void;
  onCancel(): void;
}) {
  const { text, error, saving, inChannel, channelId, onUpdate, onError, onCancel } = props;
  const ref = useRef<HTMLTextAreaElement>(null);
  const onText = (t: string) => onUpdate(() => t);
  const suggest = useSuggestions({ id: 'edit-suggestions', text, setText: onText, textRef: ref, inChannel, channelId });
  const uploads = useUploads({ update: onUpdate, onError, focus: () => ref.current?.focus() });
  const save = () => (uploads.count ? onError('Wait until the upload is done: its link goes in the message.') : props.onSave());
  /** The text rendered by the server (POST /messages/render) while previewing, else null. */
  const [preview, setPreview] = useState<string | null>(null);
  const [formatting, setFormatting] = useState(false);
  const uploadFiles = (files: FileList | File[]) => {
    setPreview(null);
    uploads.uploadFiles(files);
  };
  const pasting = usePaste({ textRef: ref, setText: onText, uploadFiles });
  async function togglePreview(): Promise<void> {
    if (preview !== null) {
      setPreview(null);
      return;
    }
    try {
      setPreview((await api('POST', '/messages/render', { content: text || ' ' })).rendered as string);
    } catch (err) {
      onError(failureText(err));
    }
  }
  return (
    <div
      class="edit-box"
      onDragOver={(e) => {
        if (e.dataTransfer?.types.includes('Files')) e.preventDefault();
      }}
      onDrop={(e) => {
        if (e.dataTransfer?.files.length) {
          e.preventDefault();
          e.stopPropagation();
          uploadFiles(e.dataTransfer.files);
        }
      }}
    >
      {uploads.banners}
      {pasting.banner}
      {preview !== null && <div class="preview message-content rendered" aria-label="Preview of the edit" dangerouslySetInnerHTML={{ __html: prepareHtml(preview) }} />}
      <div class="compose-text" hidden={preview !== null}>
        {suggest.list}
        <textarea
          aria-label="Edit content"
          {...suggest.textareaProps}
          value={text}
          ref={(el) => {
            ref.current = el;
            autoFocusOnce(el);
          }}
          onInput={(ev) => {
            onText(ev.currentTarget.value);
            pasting.onInput();
            suggest.follow(ev.currentTarget);
          }}
          onKeyDown={(ev) => {
            if (suggest.keyDown(ev) || formattingKey(ev, ev.currentTarget)) return;
            if (sendsMessage(ev)) {
              ev.preventDefault();
              save();
            } else if (ev.key === 'Escape') {
              ev.stopPropagation();
              onCancel();
            } else listEnter(ev, ev.currentTarget);
          }}
          onPaste={pasting.onPaste}
        />
      </div>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      {formatting && preview === null && <FormatBar textRef={ref} onInsert={(t) => suggest.insert(t)} />}
      <div class="edit-actions">
        <button class="btn primary small" type="button" onClick={save} disabled={saving || uploads.count > 0}>
          Save
        </button>
        <button class="btn small" type="button" onClick={onCancel}>
          Cancel
        </button>
        <UploadButton inputLabel="Attach files to the edit" buttonLabel="Upload files" onFiles={uploadFiles} />
        {preview === null && <InsertEmojiButton onInsert={(syntax) => suggest.insert(syntax)} onClosed={() => ref.current?.focus()} />}
        {preview === null && <FormattingToggle open={formatting} onToggle={() => setFormatting(!formatting)} />}
        <button type="button" class="btn ghost small" aria-pressed={preview !== null} onClick={() => void togglePreview()}>
          {preview !== null ? 'Exit preview' : 'Preview'}
        </button>
      </div>
    </div>
  );
}
