import { useEffect, useState } from 'preact/hooks';
import { MessageList, model, type RecentData, type RecentMessage } from '../model.ts';
import { narrowToHash, placeKey, placeTerms, type Place, type Term } from '../narrow.ts';
import { cx, formatDay, formatTime, fullTime, useStoredSet } from '../util.ts';
import { Avatar } from './Avatar.tsx';
import { ErrorLine, useRequest } from './request.tsx';

/** One conversation of the view: a channel's topic or a direct-message conversation. */
interface Conversation {
  key: string;
  terms: Term[];
  /** The channel and topic, or the people. */
  label: string;
  /** What its row shows: the label, or in one channel's list its topic only. */
  shown: string;
  muted: boolean;
  newest: RecentMessage;
  /** The latest senders first, each once. */
  senders: number[];
  participated: boolean;
  unread: number;
}

/** A listed message's conversation. */
const placeOf = (m: RecentMessage): Place => (m.type === 'stream' ? { kind: 'stream', streamId: m.streamId, topic: m.topic } : { kind: 'dm', dmKey: m.dmKey });

/** A direct-message conversation's people, other than the user, by name (the user's own, with itself). */
export function dmLabel(dmKey: string): { label: string } {
  const others = dmKey
    .split(',')
    .map(Number)
    .filter((id) => id !== model.me.user_id);
  return { label: others.length ? others.map((id) => model.userName(id)).join(', ') : `${model.me.full_name} (you)` };
}

/** The loaded messages grouped by conversation, newest activity first (in one channel's list: its topics). */
function conversations(data: RecentData): Conversation[] {
  const channelSub = data.streamId === null ? undefined : model.subs.get(data.streamId);
  const unread = new Map<string, number>();
  for (const u of model.unread.values()) {
    const k = placeKey(u);
    unread.set(k, (unread.get(k) ?? 0) + 1);
  }
  const byKey = new Map<string, Conversation>();
  const newestFirst = [...(data.messages?.values() ?? [])].sort((a, b) => b.id - a.id);
  for (const m of newestFirst) {
    // Channels one is not (or no longer) subscribed to are left out, as in Zulip (but for the one channel listed).
    if (data.streamId === null && m.type === 'stream' && !model.subs.has(m.streamId!)) continue;
    const place = placeOf(m);
    const key = placeKey(place);
    let c = byKey.get(key);
    if (!c) {
      const stream = m.type === 'stream';
      const label = stream ? `#${model.streamName(m.streamId)} \u203a ${m.topic || '(no topic)'}` : dmLabel(m.dmKey).label;
      // In a muted channel's own list, only the topics muted themselves count as muted.
      const muted =
        channelSub?.is_muted
          ? model.topicPolicy(data.streamId!, m.topic) === 1
          : stream
            ? model.isMuted({ type: 'stream', stream_id: m.streamId, subject: m.topic })
            : model.onlyMutedIn(m.dmKey);
      const shown = data.streamId !== null ? m.topic || '(no topic)' : label;
      c = { key, terms: placeTerms(place), label, shown, muted, newest: m, senders: [], participated: false, unread: unread.get(key) ?? 0 };
      byKey.set(key, c);
    }
    if (!c.senders.includes(m.senderId)) c.senders.push(m.senderId);
    if (m.senderId === model.me.user_id) c.participated = true;
  }
  return [...byKey.values()];
}

/** A conversation's unread count, with a button marking the whole conversation read at the server (the events then update the count). */
export function UnreadCell({ label, terms, unread }: { label: string; terms: Term[]; unread: number }) {
  const request = useRequest();
  if (unread === 0) return null;
  return (
    <>
      <span class="count" aria-label={`${unread} unread`}>
        {unread}
      </span>{' '}
      <button type="button" class="btn small" aria-label={`Mark ${label} as read`} title="Mark as read" disabled={request.busy} onClick={() => void request.run(() => new MessageList(model, terms).markAllRead())}>
        {'\u2713'}
      </button>
      <ErrorLine error={request.error} />
    </>
  );
}

/** A keydown handler moving the focus among the links matching `selector` inside the element with the up and down arrows. */
export function arrowsBetween(selector: string) {
  return (e: KeyboardEvent) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const links = [...(e.currentTarget as HTMLElement).querySelectorAll<HTMLAnchorElement>(selector)];
    const i = links.indexOf(document.activeElement as HTMLAnchorElement);
    const next = links[e.key === 'ArrowDown' ? Math.min(i + 1, links.length - 1) : Math.max(i - 1, 0)];
    if (next) {
      e.preventDefault();
      next.focus();
    }
  };
}

function lastTime(ts: number): string {
  const day = formatDay(ts);
  return day === 'Today' ? formatTime(ts) : day;
}

/**
 * Recent conversations (#recent): the latest channel topics and direct-message
 * conversations, newest activity first, with their unread counts, latest
 * senders and last message's time; filters for direct messages, unread
 * ones, ones the user sent to, the topics shown (Zulip's standard view, all
 * topics, followed topics), kept in the browser, and a text;
 * older conversations load on asking
 * ("Load more conversations"). The arrow keys move between rows.
 * With `streamId`: that channel's topics alike (Zulip's "List of topics",
 * #topics/channel/<id>).
 */
export function Recent({ streamId }: { streamId?: number }) {
  // The filters chosen are kept in the browser, as Zulip keeps them; direct messages are included at first.
  const [filters, toggleFilter] = useStoredSet(`parley-recent-filters:${model.me.user_id}`, ['include_private']);
  const unreadOnly = filters.has('unread') && !model.spectator;
  const participated = filters.has('participated') && !model.spectator;
  // Zulip's choice of topics: the standard view (muted ones left out), all (muted ones too), or followed ones only.
  const topicsKey = `parley-recent-topics:${model.me.user_id}`;
  const [topicsShown, setTopicsShown] = useState(() => localStorage.getItem(topicsKey) ?? 'unmuted_topics');
  const chooseTopics = (value: string) => {
    setTopicsShown(value);
    localStorage.setItem(topicsKey, value);
  };
  const includeMuted = topicsShown === 'all_topics';
  const followedOnly = topicsShown === 'followed_topics' && !model.spectator;
  const includeDms = streamId !== undefined || filters.has('include_private');
  const [text, setText] = useState('');
  // (What a logged-out visitor's disabled filters say.)
  const loginFirst = model.spectator ? 'Log in to use this filter' : undefined;

  const data = streamId === undefined ? model.recent : model.recentOfChannel(streamId);
  useEffect(() => {
    void data.load();
  }, [data]);

  const needle = text.trim().toLowerCase();
  const rows = conversations(data).filter(
    (c) =>
      (!unreadOnly || c.unread > 0) &&
      (!participated || c.participated) &&
      (includeMuted || !c.muted) &&
      (!followedOnly || c.newest.type !== 'stream' || model.isTopicFollowed(c.newest.streamId!, c.newest.topic)) &&
      (includeDms || c.newest.type === 'stream') &&
      (!needle || c.label.toLowerCase().includes(needle) || c.senders.some((id) => model.userName(id).toLowerCase().includes(needle))),
  );

  const onKey = arrowsBetween('a.recent-link');
  const what = streamId === undefined ? 'conversations' : 'topics';

  return (
    <section class="recent" aria-label={streamId === undefined ? 'Recent conversations' : `Topics of #${model.streamName(streamId)}`}>
      <div class="recent-filters">
        {/* (A logged-out visitor has nothing unread and took part in nothing: shown disabled, as in Zulip.) */}
        {streamId === undefined && (
          <label title={loginFirst}>
            <input type="checkbox" checked={includeDms} disabled={model.spectator} onChange={() => toggleFilter('include_private')} /> Include DMs
          </label>
        )}
        <label title={loginFirst}>
          <input type="checkbox" checked={unreadOnly} disabled={model.spectator} onChange={() => toggleFilter('unread')} /> Unread
        </label>
        <label title={loginFirst}>
          <input type="checkbox" checked={participated} disabled={model.spectator} onChange={() => toggleFilter('participated')} /> Participated
        </label>
        <select aria-label="Topics shown" value={topicsShown} onChange={(e) => chooseTopics(e.currentTarget.value)}>
          <option value="unmuted_topics">Standard view</option>
          <option value="all_topics" title={streamId === undefined ? 'Includes muted channels and topics' : 'Includes muted topics'}>
            All topics
          </option>
          {!model.spectator && <option value="followed_topics">Followed topics</option>}
        </select>
        <input type="search" aria-label={`Filter ${what}`} placeholder={`Filter ${what}`} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      </div>
      <ErrorLine error={data.error} />
      {data.messages === null && !data.error && <p role="status">{'Loading\u2026'}</p>}
      {data.messages !== null && (
        <table class="recent-table" aria-label={streamId === undefined ? 'Conversations' : 'Topics'}>
          <thead>
            <tr>
              <th scope="col">{streamId === undefined ? 'Conversation' : 'Topic'}</th>
              <th scope="col">Unread</th>
              <th scope="col" class="recent-participants">Participants</th>
              <th scope="col">Last message</th>
            </tr>
          </thead>
          <tbody onKeyDown={onKey}>
            {rows.map((c) => (
              <tr key={c.key} class={c.muted ? 'is-muted' : undefined}>
                <td>
                  <a class={cx('recent-link', streamId !== undefined && model.isGeneralChat(c.shown) && 'general-chat')} href={narrowToHash(c.terms)}>
                    {c.shown}
                  </a>
                  {c.muted && <span class="visually-hidden"> (muted)</span>}
                </td>
                <td>
                  <UnreadCell label={c.label} terms={c.terms} unread={c.unread} />
                </td>
                <td class="recent-participants">
                  <span class="recent-senders">
                    {c.senders.slice(0, 4).map((id) => (
                      <span key={id} title={model.userName(id)}>
                        <Avatar userId={id} name={model.userName(id)} size="small" />
                      </span>
                    ))}
                  </span>
                  <span class="visually-hidden">{c.senders.map((id) => model.userName(id)).join(', ')}</span>
                </td>
                <td>
                  <time dateTime={new Date(c.newest.timestamp * 1000).toISOString()} title={fullTime(c.newest.timestamp)}>
                    {lastTime(c.newest.timestamp)}
                  </time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data.messages !== null && rows.length === 0 && <p class="side-empty">{`No ${what} match.`}</p>}
      {data.messages !== null && !data.foundOldest && (
        <p class="recent-more">
          <button type="button" class="btn" disabled={data.loadingOlder} onClick={() => void data.loadOlder()}>
            {data.loadingOlder ? 'Loading\u2026' : `Load more ${what}`}
          </button>
        </p>
      )}
    </section>
  );
}
