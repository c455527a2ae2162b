import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model } from '../model.ts';
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
