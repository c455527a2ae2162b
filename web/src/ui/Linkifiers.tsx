import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model, type Linkifier } from '../model.ts';
import { isAdministrator } from './Organization.tsx';
import { ErrorLine, FormButtons, useAction, useRequest } from './request.tsx';

/**
 * A linkifier's two fields, for adding one and for editing one: the pattern
 * and the URL template. `ids` keeps the labels' ids apart between the forms.
 */
function LinkifierFields({ ids, pattern, urlTemplate, setPattern, setUrlTemplate }: { ids: string; pattern: string; urlTemplate: string; setPattern(v: string): void; setUrlTemplate(v: string): void }) {
  return (
    <>
      <label for={`${ids}-pattern`}>Pattern</label>
      <input id={`${ids}-pattern`} type="text" value={pattern} required placeholder="#(?P<id>[0-9]+)" onInput={(e) => setPattern(e.currentTarget.value)} />
      <label for={`${ids}-url`}>URL template</label>
      <input id={`${ids}-url`} type="text" value={urlTemplate} required placeholder="https://github.com/zulip/zulip/issues/{id}" onInput={(e) => setUrlTemplate(e.currentTarget.value)} />
    </>
  );
}

/**
 * The organization's linkifiers (text matching a pattern becomes a link), in
 * the order the server applies them. Administrators add one (POST
 * /realm/filters), edit one's pattern and URL template (PATCH
 * /realm/filters/{id}; its reverse fields stay as they are) and delete one
 * (DELETE /realm/filters/{id}); others see the list. The list follows the
 * realm_linkifiers events; the server says why when it refuses a pattern or
 * a template.
 */
export function Linkifiers() {
  const [pattern, setPattern] = useState('');
  const [urlTemplate, setUrlTemplate] = useState('');
  const [editing, setEditing] = useState<number | null>(null);
  const add = useAction();
  const change = useRequest();
  const admin = isAdministrator(model.me);
  const linkifiers = model.linkifiers;

  return (
    <section aria-labelledby="linkifiers-title">
      <h2 id="linkifiers-title">Linkifiers</h2>
      {admin ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void add.run(async () => {
              await api('POST', '/realm/filters', { pattern, url_template: urlTemplate });
              setPattern('');
              setUrlTemplate('');
            }, 'Linkifier added.');
          }}
        >
          <LinkifierFields ids="linkifier-new" pattern={pattern} urlTemplate={urlTemplate} setPattern={setPattern} setUrlTemplate={setUrlTemplate} />
          <button type="submit" class="btn primary" disabled={add.busy || !pattern || !urlTemplate}>
            Add linkifier
          </button>
          {add.view}
        </form>
      ) : (
        <p class="muted-text">Only administrators can change the organization's linkifiers.</p>
      )}
      <ErrorLine error={change.error} />
      {linkifiers.length === 0 ? (
        <p class="muted-text">No linkifiers yet.</p>
      ) : (
        <ul class="linkifier-list" aria-label="Linkifiers">
          {linkifiers.map((l) => (
            <li key={l.id} aria-label={l.pattern}>
              <span class="org-person">
                <code>{l.pattern}</code> → <code>{l.url_template}</code>
              </span>
              {admin && (
                <span class="group-actions">
                  {/* The pattern is in the buttons' names, not their text: the row keeps its room for the pattern and template. */}
                  <button type="button" class="btn" aria-label={`Edit ${l.pattern}`} aria-expanded={editing === l.id} onClick={() => setEditing(editing === l.id ? null : l.id)}>
                    Edit
                  </button>
                  <button type="button" class="btn" aria-label={`Delete ${l.pattern}`} disabled={change.busy} onClick={() => void change.run(() => api('DELETE', `/realm/filters/${l.id}`))}>
                    Delete
                  </button>
                </span>
              )}
              {admin && editing === l.id && <EditLinkifier linkifier={l} onDone={() => setEditing(null)} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Editing one linkifier's pattern and URL template; closed once the server has taken them. */
function EditLinkifier({ linkifier, onDone }: { linkifier: Linkifier; onDone(): void }) {
  const [pattern, setPattern] = useState(linkifier.pattern);
  const [urlTemplate, setUrlTemplate] = useState(linkifier.url_template);
  const save = useRequest();
  return (
    <form
      class="group-editor"
      aria-label={`Edit ${linkifier.pattern}`}
      onSubmit={(e) => {
        e.preventDefault();
        void save.run(() => api('PATCH', `/realm/filters/${linkifier.id}`, { pattern, url_template: urlTemplate })).then((ok) => ok && onDone());
      }}
    >
      <LinkifierFields ids={`linkifier-${linkifier.id}`} pattern={pattern} urlTemplate={urlTemplate} setPattern={setPattern} setUrlTemplate={setUrlTemplate} />
      <FormButtons submit="Save linkifier" disabled={save.busy || !pattern || !urlTemplate} error={save.error} onCancel={onDone} />
    </form>
  );
}
