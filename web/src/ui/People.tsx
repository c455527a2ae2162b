import { useEffect, useRef, useState } from 'preact/hooks';
import { model, type Status } from '../model.ts';
import { channelSettingsHash, sameNarrow, type Term } from '../narrow.ts';
import { Emoji } from './Emoji.tsx';
import { Avatar } from './Avatar.tsx';

const ORDER = { active: 0, idle: 1, offline: 2 } as const;
export const LABEL = { active: 'Active', idle: 'Idle', offline: 'Offline' } as const;

/**
 * The conversation in view, for the people list's sections (Zulip's buddy
 * list): a channel or one of its topics (`participants`: who sent the
 * topic's messages loaded), or a direct message conversation (`dm`: its
 * people).
 */
export interface PeopleScope {
  channel: number | null;
  dm: number[] | null;
  participants: Set<number>;
}

/** The scope of the people list for a view (`view`: a view that is no narrow, like the Inbox; then none). */
export function peopleScope(terms: Term[], view: string | null): PeopleScope | null {
  if (view) return null;
  const channel = terms.find((t) => t.operator === 'channel' && !t.negated);
  const topic = terms.find((t) => t.operator === 'topic' && !t.negated);
  if (channel && typeof channel.operand === 'number' && model.streams.has(channel.operand) && terms.length === (topic ? 2 : 1)) {
    // A topic's participants: those who sent its messages loaded (as Zulip's); a channel's whole feed has none.
    const participants = new Set<number>();
    if (topic && model.list && sameNarrow(model.list.terms, terms)) for (const m of model.list.messages) participants.add(m.sender_id);
    return { channel: channel.operand, dm: null, participants };
  }
  const dm = terms.length === 1 && terms[0]!.operator === 'dm' && !terms[0]!.negated ? terms[0]!.operand : null;
  return Array.isArray(dm) ? { channel: null, dm: dm.map(Number), participants: new Set() } : null;
}

type Row = { u: { user_id: number; full_name: string; is_bot?: boolean }; p: keyof typeof ORDER };

/**
 * How many people the list shows at first, and how many more each time its
 * end scrolls into view (as Zulip's buddy list renders progressively): an
 * organization of thousands would otherwise cost every event a render of
 * them all.
 */
export const PEOPLE_PAGE = 100;

/**
 * The organization's people (muted users left out, as in Zulip); a click (or
 * Enter) on one opens their card (`onUser`). In a channel, a topic or a
 * direct message conversation, Zulip's sections: This conversation (a
 * topic's participants), This channel (its other subscribers; the people of
 * a direct message conversation, named This conversation), and Others,
 * folded until opened (and open while filtering); elsewhere, by presence.
 * Each by presence, then bots last, then by name. In a channel, "View all
 * subscribers" under them opens the channel's Subscribers settings. The
 * first PEOPLE_PAGE rows show, more as the list's end comes into view (the
 * sections' counts are of everyone).
 */
export function People({ onUser, inLeft = false, scope = null }: { onUser(userId: number): void; inLeft?: boolean; scope?: PeopleScope | null }) {
  const [filter, setFilter] = useState('');
  const [othersOpen, setOthersOpen] = useState(false);
  const [shown, setShown] = useState(PEOPLE_PAGE);
  const end = useRef<HTMLDivElement>(null);
  const q = filter.trim().toLowerCase();
  const channel = scope?.channel ?? null;
  const subscribers = channel !== null ? model.subscribers.get(channel) : undefined;
  useEffect(() => {
    if (channel !== null && subscribers === undefined && model.ready) model.loadSubscribers(channel).catch(() => undefined);
  }, [channel, subscribers === undefined]);
  const people: Row[] = [...model.users.values()]
    .filter((u) => u.is_active && !u.is_system_bot && !model.isUserMuted(u.user_id) && (!q || u.full_name.toLowerCase().includes(q) || u.email.toLowerCase().includes(q)))
    .map((u) => ({ u, p: model.presenceOf(u.user_id) }))
    .sort((a, b) => ORDER[a.p] - ORDER[b.p] || Number(a.u.is_bot) - Number(b.u.is_bot) || a.u.full_name.localeCompare(b.u.full_name));
  // Zulip's user_list_style: 1 compact (names, a status's emoji beside them), 2 with status text, 3 (the default) with avatars too.
  const style = Number(model.settings.user_list_style ?? 3);
  // The view's people: a channel's subscribers (once known), a direct message conversation's people and oneself.
  const inView = scope?.dm ? new Set([...scope.dm, model.me.user_id]) : subscribers;
  const sections: Array<{ label: string; list: Row[]; foldable?: boolean; always?: boolean }> = [];
  if (scope && inView) {
    const participants = scope.participants;
    if (participants.size) sections.push({ label: 'This conversation', list: people.filter((x) => participants.has(x.u.user_id)) });
    // (Shown even when empty, as Zulip's: the others make no sense without it.)
    sections.push({ label: scope.dm ? 'This conversation' : 'This channel', list: people.filter((x) => !participants.has(x.u.user_id) && inView.has(x.u.user_id)), always: true });
    sections.push({ label: 'Others', list: people.filter((x) => !participants.has(x.u.user_id) && !inView.has(x.u.user_id)), foldable: true });
  } else {
    for (const p of ['active', 'idle', 'offline'] as const) sections.push({ label: LABEL[p], list: people.filter((x) => x.p === p) });
  }
  // The rows shown, in the sections' order: at most `shown`; what is cut waits for the end to scroll into view.
  let budget = shown;
  const cut = (list: Row[]) => {
    const part = list.slice(0, Math.max(0, budget));
    budget -= part.length;
    return part;
  };
  const rows = sections.map((sec) => (sec.foldable && !othersOpen && !q ? [] : cut(sec.list)));
  const more = rows.some((part, i) => part.length < sections[i]!.list.length && !(sections[i]!.foldable && !othersOpen && !q));
  useEffect(() => {
    const el = end.current;
    if (!more || !el || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) setShown((n) => n + PEOPLE_PAGE);
    });
    io.observe(el);
    return () => io.disconnect();
  }, [more, shown]);
  const row = ({ u, p }: Row) => {
    const me = u.user_id === model.me.user_id;
    return (
      <li key={u.user_id}>
        <button type="button" class="person" aria-haspopup="dialog" onClick={() => onUser(u.user_id)} title={`${u.full_name} \u2014 ${LABEL[p]}`} data-presence={p}>
          {style === 3 ? (
            <Avatar userId={u.user_id} name={u.full_name} size="small">
              <span class={`presence-dot ${p}`} />
            </Avatar>
          ) : (
            <span class={`presence-dot ${p}`} />
          )}
          <span class="person-text">
            <span class="person-name">
              {model.withGuestMark(u.user_id, u.full_name)}
              {me && <span class="muted-text"> (you)</span>}
              <span class="visually-hidden">, {LABEL[p]}</span>
              {style === 1 && <StatusText userId={u.user_id} emojiOnly />}
            </span>
            {style !== 1 && <StatusText userId={u.user_id} />}
          </span>
        </button>
      </li>
    );
  };
  return (
    // In the left sidebar (the user's left_side_userlist), shown only in narrow windows, where the right one is aside.
    <aside class={inLeft ? 'people-in-left' : 'right-sidebar'} aria-label="People">
      <h2 class="side-heading">People</h2>
      <input class="people-filter" type="search" aria-label="Filter people" placeholder="Filter people" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      {sections.map(({ label, list, foldable, always }, i) => {
        if (!list.length && !always) return null;
        const folded = foldable && !othersOpen && !q;
        // (A section whose rows all wait for the end to scroll into view shows with them.)
        if (!folded && list.length && !rows[i]!.length) return null;
        return (
          <section key={`${label}-${always}`} aria-label={label}>
            <h3 class="people-group">
              {foldable ? (
                <button type="button" class="people-fold" aria-expanded={!folded} onClick={() => setOthersOpen(!othersOpen)}>
                  <span aria-hidden="true">{folded ? '\u25b8' : '\u25be'}</span> {label} <span class="muted-text">{list.length}</span>
                </button>
              ) : (
                <>
                  {label} <span class="muted-text">{list.length}</span>
                </>
              )}
            </h3>
            {!folded && (list.length ? <ul class="people">{rows[i]!.map(row)}</ul> : <p class="muted-text people-none">{q ? 'No one matches.' : scope?.participants.size ? 'No other subscribers.' : 'No subscribers.'}</p>)}
          </section>
        );
      })}
      {more && <div ref={end} class="people-more" aria-hidden="true" />}
      {channel !== null && model.streams.has(channel) && (
        <a class="people-all" href={channelSettingsHash(channel, model.streams.get(channel)!.name, 'subscribers')}>
          View all subscribers
        </a>
      )}
    </aside>
  );
}

/** A user's status (its emoji and its text; `emojiOnly`: its emoji, beside a name), or nothing without one. */
export function StatusText({ userId, emojiOnly }: { userId: number; emojiOnly?: boolean }) {
  const st = model.statuses.get(userId);
  if (emojiOnly) return st?.emoji_name ? <> <StatusEmoji status={st} /></> : null;
  if (!st?.status_text && !st?.emoji_name) return null;
  return (
    <span class="status-text">
      {st.emoji_name && (
        <>
          <StatusEmoji status={st} />{' '}
        </>
      )}
      {st.status_text}
    </span>
  );
}

/** A status's emoji. */
export function StatusEmoji({ status: st }: { status: Status }) {
  return <Emoji code={st.emoji_code ?? ''} type={st.reaction_type ?? ''} name={st.emoji_name ?? ''} />;
}
