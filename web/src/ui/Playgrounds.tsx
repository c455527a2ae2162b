import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model } from '../model.ts';
import { isAdministrator } from './Organization.tsx';
import { ErrorLine, useAction, useRequest } from './request.tsx';

/**
 * The organization's code playgrounds: a code block in a playground's
 * language (as Pygments names it, e.g. "Python") offers to open its code
 * there, at the URL template with `{code}` expanded. Administrators add one
 * (POST /realm/playgrounds) and delete one (DELETE /realm/playgrounds/{id});
 * others see the list. The list follows the realm_playgrounds events; the
 * server says why when it refuses a language or a template.
 */
export function Playgrounds() {
  const [name, setName] = useState('');
  const [language, setLanguage] = useState('');
  const [urlTemplate, setUrlTemplate] = useState('');
  const add = useAction();
  const remove = useRequest();
  const admin = isAdministrator(model.me);
  const playgrounds = model.playgrounds;

  return (
    <section aria-labelledby="playgrounds-title">
      <h2 id="playgrounds-title">Code playgrounds</h2>
      {admin ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void add.run(async () => {
              await api('POST', '/realm/playgrounds', { name, pygments_language: language, url_template: urlTemplate });
              setName('');
              setLanguage('');
              setUrlTemplate('');
            }, 'Playground added.');
          }}
        >
          <label for="playground-name">Name</label>
          <input id="playground-name" type="text" value={name} required placeholder="Python playground" onInput={(e) => setName(e.currentTarget.value)} />
          <label for="playground-language">Language (as Pygments names it)</label>
          <input id="playground-language" type="text" value={language} required placeholder="Python" onInput={(e) => setLanguage(e.currentTarget.value)} />
          <label for="playground-url">URL template</label>
          <input id="playground-url" type="text" value={urlTemplate} required placeholder="https://python.example.com/?code={code}" onInput={(e) => setUrlTemplate(e.currentTarget.value)} />
          <button type="submit" class="btn primary" disabled={add.busy || !name || !language || !urlTemplate}>
            Add playground
          </button>
          {add.view}
        </form>
      ) : (
        <p class="muted-text">Only administrators can change the organization's code playgrounds.</p>
      )}
      <ErrorLine error={remove.error} />
      {playgrounds.length === 0 ? (
        <p class="muted-text">No code playgrounds yet.</p>
      ) : (
        <ul class="linkifier-list" aria-label="Code playgrounds">
          {playgrounds.map((p) => (
            <li key={p.id} aria-label={`${p.name} (${p.pygments_language})`}>
              {/* A long template is cut short in the row; its title shows it whole. */}
              <span class="org-person" title={p.url_template}>
                {p.name} <span class="muted-text">({p.pygments_language})</span> <code>{p.url_template}</code>
              </span>
              {admin && (
                <button type="button" class="btn" aria-label={`Delete ${p.name} (${p.pygments_language})`} disabled={remove.busy} onClick={() => void remove.run(() => api('DELETE', `/realm/playgrounds/${p.id}`))}>
                  Delete
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
