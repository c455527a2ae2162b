import { useState } from 'preact/hooks';
import { model, type Status } from '../model.ts';
import { Emoji } from './Emoji.tsx';
import { Avatar } from './Avatar.tsx';

const ORDER = { active: 0, idle: 1, offline: 2 } as const;
export const LABEL = { active: 'Active', idle: 'Idle', offline: 'Offline' } as const;

/** The organization's people by presence (muted users left out, as in Zulip); a click (or Enter) on one opens their card (`onUser`). */
export function People({ onUser, inLeft = false }: { onUser(userId: number): void; inLeft?: boolean }) {
  const [filter, setFilter] = useState('');
  const q = filter.trim().toLowerCase();
  const people = [...model.users.values()]
    .filter((u) => u.is_active && !u.is_system_bot && !model.isUserMuted(u.user_id) && (!q || u.full_name.toLowerCase().includes(q) || u.email.toLowerCase().includes(q)))
    .map((u) => ({ u, p: model.presenceOf(u.user_id) }))
    .sort((a, b) => ORDER[a.p] - ORDER[b.p] || Number(a.u.is_bot) - Number(b.u.is_bot) || a.u.full_name.localeCompare(b.u.full_name));
  // Zulip's user_list_style: 1 compact (names, a status's emoji beside them), 2 with status text, 3 (the default) with avatars too.
  const style = Number(model.settings.user_list_style ?? 3);
  const groups = (['active', 'idle', 'offline'] as const).map((p) => [p, people.filter((x) => x.p === p)] as const).filter(([, l]) => l.length);
  return (
    // In the left sidebar (the user's left_side_userlist), shown only in narrow windows, where the right one is aside.
    <aside class={inLeft ? 'people-in-left' : 'right-sidebar'} aria-label="People">
      <h2 class="side-heading">People</h2>
      <input class="people-filter" type="search" aria-label="Filter people" placeholder="Filter people" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      {groups.map(([p, list]) => (
        <section key={p} aria-label={LABEL[p]}>
          <h3 class="people-group">
            {LABEL[p]} <span class="muted-text">{list.length}</span>
          </h3>
          <ul class="people">
            {list.map(({ u, p }) => {
              const me = u.user_id === model.me.user_id;
              return (
                <li key={u.user_id}>
                  <button type="button" class="person" aria-haspopup="dialog" onClick={() => onUser(u.user_id)} title={`${u.full_name} — ${LABEL[p]}`} data-presence={p}>
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
            })}
          </ul>
        </section>
      ))}
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
