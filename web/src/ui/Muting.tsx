import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model } from '../model.ts';
import { narrowToHash } from '../narrow.ts';
import { ErrorLine, useAction, useRequest } from './request.tsx';

/**
 * The users one muted (from the muted_users events), with when, each with
 * Unmute (DELETE /users/me/muted_users/{id}); one mutes from a user's card.
 */
export function MutedUsers() {
  const unmute = useRequest();
  const muted = [...model.mutedUsers.entries()].sort((a, b) => model.userName(a[0]).localeCompare(model.userName(b[0])));
  return (
    <section aria-labelledby="muted-users-title">
      <h2 id="muted-users-title">Muted users</h2>
      <ErrorLine error={unmute.error} />
      {muted.length === 0 ? (
        <p class="muted-text">You have not muted anyone. Mute someone from their card.</p>
      ) : (
        <ul class="linkifier-list" aria-label="Muted users">
          {muted.map(([id, since]) => {
            const name = model.userName(id);
            return (
              <li key={id} aria-label={name}>
                <span class="org-person">
                  {name} <span class="muted-text">(muted since {new Date(since * 1000).toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric' })})</span>
                </span>
                <button type="button" class="btn" aria-label={`Unmute ${name}`} disabled={unmute.busy} onClick={() => void unmute.run(() => api('DELETE', `/users/me/muted_users/${id}`))}>
                  Unmute
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

/** The visibility policies a topic can have, as Zulip's topic settings name them (0: none of them). */
const POLICIES: Array<[number, string]> = [
  [0, 'Default'],
  [1, 'Muted'],
  [2, 'Unmuted'],
  [3, 'Followed'],
];

/**
 * The topics one muted, unmuted or followed (Zulip's "Topics" settings, from
 * user_topics and its events): newest change first, filtered by channel or
 * topic name, each with its state to change (POST /user_topics; Default
 * takes the topic off the list).
 */
export function Topics() {
  const change = useRequest();
  const [filter, setFilter] = useState('');
  const words = filter.trim().toLowerCase();
  const topics = [...model.userTopics.values()]
    .filter((t) => !words || `${model.streamName(t.streamId)} ${t.topic}`.toLowerCase().includes(words))
    .sort((a, b) => b.since - a.since);
  return (
    <section aria-labelledby="topics-title">
      <h2 id="topics-title">Topics</h2>
      <ErrorLine error={change.error} />
      {model.userTopics.size === 0 ? (
        <p class="muted-text">You have not muted, unmuted or followed any topic. The topic's menu does that.</p>
      ) : (
        <>
          <label for="topics-filter">Find a topic</label>
          <input id="topics-filter" type="search" value={filter} placeholder="Channel or topic" onInput={(e) => setFilter(e.currentTarget.value)} />
          {topics.length === 0 && <p class="muted-text">No topics match.</p>}
          <ul class="linkifier-list" aria-label="Topics">
            {topics.map((t) => {
              const name = `#${model.streamName(t.streamId)} > ${t.topic || model.generalChatName()}`;
              return (
                <li key={`${t.streamId}:${t.topic}`} aria-label={name}>
                  <span class="topic-setting">
                    <a href={narrowToHash([{ operator: 'channel', operand: t.streamId }, { operator: 'topic', operand: t.topic }])}>{name}</a>{' '}
                    {t.since > 0 && <span class="muted-text">(since {new Date(t.since * 1000).toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric' })})</span>}
                  </span>
                  <select
                    aria-label={`State of ${name}`}
                    value={t.policy}
                    disabled={change.busy}
                    onChange={(e) => {
                      const visibility = Number(e.currentTarget.value);
                      void change.run(() => api('POST', '/user_topics', { stream_id: t.streamId, topic: t.topic, visibility_policy: visibility }));
                    }}
                  >
                    {POLICIES.map(([value, label]) => (
                      <option key={value} value={value}>
                        {label}
                      </option>
                    ))}
                  </select>
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}

/** Alert words typed in one field: separated by commas, one in double quotes kept whole (commas and all). */
export function splitAlertWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let quoted = false;
  for (const ch of text + ',') {
    if (ch === '"') quoted = !quoted;
    else if (ch === ',' && !quoted) {
      if (word.trim()) words.push(word.trim());
      word = '';
    } else word += ch;
  }
  return words;
}

/**
 * The user's alert words: messages containing one have them highlighted and
 * notify as mentions do. Several can be added at once, separated by commas
 * (POST /users/me/alert_words); each is removed on its own (DELETE). The
 * list follows the alert_words events.
 */
export function AlertWords() {
  const [words, setWords] = useState('');
  const add = useAction();
  const remove = useRequest();
  return (
    <section aria-labelledby="alert-words-title">
      <h2 id="alert-words-title">Alert words</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const list = splitAlertWords(words);
          void add.run(async () => {
            await api('POST', '/users/me/alert_words', { alert_words: list });
            setWords('');
          }, list.length > 1 ? 'Alert words added.' : 'Alert word added.');
        }}
      >
        <label for="alert-word-new">New alert words (separated by commas; one with a comma in double quotes)</label>
        <div class="row">
          <input id="alert-word-new" type="text" value={words} onInput={(e) => setWords(e.currentTarget.value)} />
          <button type="submit" class="btn primary" disabled={add.busy || !words.trim()}>
            Add
          </button>
        </div>
        {add.view}
      </form>
      <ErrorLine error={remove.error} />
      {model.alertWords.length === 0 ? (
        <p class="muted-text">No alert words yet.</p>
      ) : (
        <ul class="linkifier-list" aria-label="Alert words">
          {model.alertWords.map((w) => (
            <li key={w} aria-label={w}>
              <span class="org-person">{w}</span>
              <button type="button" class="btn" aria-label={`Remove ${w}`} disabled={remove.busy} onClick={() => void remove.run(() => api('DELETE', '/users/me/alert_words', { alert_words: [w] }))}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
