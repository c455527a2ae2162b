import { useState } from 'preact/hooks';
import { model } from '../model.ts';
import { narrowToHash } from '../narrow.ts';
import { emojiChar } from '../util.ts';
import { Avatar } from './Avatar.tsx';

const ORDER = { active: 0, idle: 1, offline: 2 } as const;
const LABEL = { active: 'Active', idle: 'Idle', offline: 'Offline' } as const;

export function People() {
  const [filter, setFilter] = useState('');
  const q = filter.trim().toLowerCase();
  const people = [...model.users.values()]
    .filter((u) => u.is_active && !(u as any).is_system_bot && (!q || u.full_name.toLowerCase().includes(q) || u.email.toLowerCase().includes(q)))
    .map((u) => ({ u, p: model.presenceOf(u.user_id) }))
    .sort((a, b) => ORDER[a.p] - ORDER[b.p] || Number(a.u.is_bot) - Number(b.u.is_bot) || a.u.full_name.localeCompare(b.u.full_name));
  const groups = (['active', 'idle', 'offline'] as const).map((p) => [p, people.filter((x) => x.p === p)] as const).filter(([, l]) => l.length);
  return (
    <aside class="right-sidebar" aria-label="People">
      <h2 class="side-heading">People</h2>
      <input class="people-filter" type="search" aria-label="Filter people" placeholder="Filter people" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      {groups.map(([p, list]) => (
        <section key={p} aria-label={LABEL[p]}>
          <h3 class="people-group">
            {LABEL[p]} <span class="muted-text">{list.length}</span>
          </h3>
          <ul class="people">
            {list.map(({ u, p }) => {
              const st = model.statuses.get(u.user_id);
              const me = u.user_id === model.me.user_id;
              return (
                <li key={u.user_id}>
                  <a class="person" href={narrowToHash([{ operator: 'dm', operand: [u.user_id] }])} title={`${u.full_name} — ${LABEL[p]}`} data-presence={p}>
                    <Avatar userId={u.user_id} name={u.full_name} size="small">
                      <span class={`presence-dot ${p}`} />
                    </Avatar>
                    <span class="person-text">
                      <span class="person-name">
                        {u.full_name}
                        {me && <span class="muted-text"> (you)</span>}
                        <span class="visually-hidden">, {LABEL[p]}</span>
                      </span>
                      {(st?.status_text || st?.emoji_code) && (
                        <span class="status-text">
                          {st.emoji_code && st.emoji_code.match(/^[0-9a-f-]+$/) ? emojiChar(st.emoji_code) + ' ' : ''}
                          {st.status_text}
                        </span>
                      )}
                    </span>
                  </a>
                </li>
              );
            })}
          </ul>
        </section>
      ))}
    </aside>
  );
}
