import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model, setProfileValue, type ProfileField, type User } from '../model.ts';
import { ifChanged, prepareHtml } from '../util.ts';
import { isAdministrator } from './Organization.tsx';
import { Confirm, ErrorLine, FormButtons, useAction, useRequest } from './request.tsx';

/** Zulip's custom profile field types, as offered here (the order of the choice). */
const TYPES: Array<[number, string]> = [
  [1, 'Short text'],
  [2, 'Paragraph'],
  [3, 'List of options'],
  [4, 'Date'],
  [5, 'Link'],
  [6, 'Person'],
  [7, 'External account'],
  [8, 'Pronouns'],
];
const TYPE = { SHORT_TEXT: 1, LONG_TEXT: 2, SELECT: 3, DATE: 4, URL: 5, USER: 6, EXTERNAL_ACCOUNT: 7, PRONOUNS: 8 } as const;

function typeName(type: number): string {
  return TYPES.find(([id]) => id === type)?.[1] ?? `Type ${type}`;
}

/** A field's field_data, parsed (an empty object when it has none). */
function fieldData(f: ProfileField): Record<string, any> {
  try {
    const d = f.field_data ? JSON.parse(f.field_data) : {};
    return d && typeof d === 'object' ? d : {};
  } catch {
    return {};
  }
}

/** A list-of-options field's options, in their order: [key, text]. */
function options(f: ProfileField): Array<[string, string]> {
  return Object.entries(fieldData(f) as Record<string, { text: string; order: string }>)
    .sort(([, a], [, b]) => Number(a.order) - Number(b.order))
    .map(([key, o]) => [key, o.text]);
}

/**
 * field_data for a list of options typed one a line: an option whose text
 * was there before keeps its key (users who chose it keep their choice), a
 * new one gets a key not used yet.
 */
function optionsData(lines: string, before: Array<[string, string]> = []): Record<string, { text: string; order: string }> {
  const keyOf = new Map(before.map(([key, text]) => [text, key]));
  let next = Math.max(-1, ...before.map(([key]) => Number(key)).filter(Number.isInteger)) + 1;
  const texts = [...new Set(lines.split('\n').map((l) => l.trim()).filter(Boolean))];
  return Object.fromEntries(texts.map((text, i) => [keyOf.get(text) ?? String(next++), { text, order: String(i + 1) }]));
}

/** The external accounts Zulip knows (realm_default_external_accounts), and "custom". */
function externalAccountKinds(): Array<[string, string]> {
  const known = Object.entries((model.realm.realm_default_external_accounts ?? {}) as Record<string, { text: string }>).map(([key, a]): [string, string] => [key, a.text]);
  return [...known, ['custom', 'Custom']];
}

/** An external account field's link for a user name, from its subtype's URL pattern (or its own). */
function externalAccountUrl(f: ProfileField, username: string): string | null {
  const d = fieldData(f);
  const pattern: unknown = d.subtype === 'custom' ? d.url_pattern : model.realm.realm_default_external_accounts?.[d.subtype]?.url_pattern;
  return typeof pattern === 'string' ? pattern.replace('%(username)s', encodeURIComponent(username)) : null;
}

/** A person field's value: the user IDs of its JSON list. */
function userIds(value: string | undefined): number[] {
  try {
    const ids: unknown = JSON.parse(value ?? '[]');
    return Array.isArray(ids) ? ids.filter((id): id is number => typeof id === 'number') : [];
  } catch {
    return [];
  }
}

/** The user's value of a field ('' when none), as ProfileFieldInput shows it. */
export function profileValueOf(u: User, f: ProfileField): string {
  return u.profile_data?.[String(f.id)]?.value ?? '';
}

/** A field's settings as typed in a form (a list's options one a line). */
interface Draft {
  name: string;
  hint: string;
  options: string;
  summary: boolean;
  required: boolean;
  editable: boolean;
}

/**
 * A field's settings, for adding one and for editing one: name (not for a
 * known external account, which the server names), hint, a list's options,
 * and whether it is shown in the profile summary, required, and editable
 * by users. `ids` keeps the labels' ids apart between the forms.
 */
function FieldSettings({ ids, type, draft, set, nameFixed }: { ids: string; type: number; draft: Draft; set(d: Partial<Draft>): void; nameFixed?: boolean }) {
  return (
    <>
      {!nameFixed && (
        <>
          <label for={`${ids}-name`}>Name</label>
          <input id={`${ids}-name`} type="text" value={draft.name} required maxLength={40} onInput={(e) => set({ name: e.currentTarget.value })} />
        </>
      )}
      <label for={`${ids}-hint`}>Hint</label>
      <input id={`${ids}-hint`} type="text" value={draft.hint} maxLength={80} onInput={(e) => set({ hint: e.currentTarget.value })} />
      {type === TYPE.SELECT && (
        <>
          <label for={`${ids}-options`}>Options (one a line)</label>
          <textarea id={`${ids}-options`} rows={4} value={draft.options} required onInput={(e) => set({ options: e.currentTarget.value })} />
        </>
      )}
      <label class="check">
        <input type="checkbox" checked={draft.summary} onChange={(e) => set({ summary: e.currentTarget.checked })} />
        Display in profile summary
      </label>
      <label class="check">
        <input type="checkbox" checked={draft.required} onChange={(e) => set({ required: e.currentTarget.checked })} />
        Required
      </label>
      <label class="check">
        <input type="checkbox" checked={draft.editable} onChange={(e) => set({ editable: e.currentTarget.checked })} />
        Users can change their own value
      </label>
    </>
  );
}

/** A form's draft of a field's settings: `set` changes some of them, `reset` goes back to `initial`. */
function useDraft(initial: Draft) {
  const [draft, setDraft] = useState(initial);
  return { draft, set: (d: Partial<Draft>) => setDraft({ ...draft, ...d }), reset: () => setDraft(initial) };
}

const EMPTY: Draft = { name: '', hint: '', options: '', summary: false, required: false, editable: true };

/**
 * For administrators: the organization's custom profile fields, in their
 * order, each with its type and hint; adding one (POST
 * /realm/profile_fields), editing one (PATCH /realm/profile_fields/{id},
 * only what changed), moving one up or down (PATCH /realm/profile_fields
 * with the whole order) and deleting one, once confirmed (DELETE
 * /realm/profile_fields/{id}). Others see nothing of it. The list follows
 * the custom_profile_fields events; the server says why when it refuses.
 */
export function ProfileFields() {
  const [type, setType] = useState<number>(TYPE.SHORT_TEXT);
  const [account, setAccount] = useState('github');
  const [urlPattern, setUrlPattern] = useState('');
  const [editing, setEditing] = useState<number | null>(null);
  const [confirming, setConfirming] = useState<number | null>(null);
  const { draft, set, reset } = useDraft(EMPTY);
  const add = useAction();
  const change = useRequest();
  if (!isAdministrator(model.me)) return null;
  const fields = model.profileFields;
  // A known external account's name is the server's ("GitHub username").
  const knownAccount = type === TYPE.EXTERNAL_ACCOUNT && account !== 'custom';

  const move = (i: number, by: number) => {
    const order = fields.map((f) => f.id);
    [order[i], order[i + by]] = [order[i + by]!, order[i]!];
    const reordered = order.map((id) => fields.find((f) => f.id === id)!);
    void change.run(() => model.tentatively(model, 'profileFields', reordered, () => api('PATCH', '/realm/profile_fields', { order })));
  };

  return (
    <section aria-labelledby="profile-fields-title">
      <h2 id="profile-fields-title">Custom profile fields</h2>
      <form
        aria-label="Add a profile field"
        onSubmit={(e) => {
          e.preventDefault();
          const data = type === TYPE.SELECT ? optionsData(draft.options) : type === TYPE.EXTERNAL_ACCOUNT ? { subtype: account, ...(account === 'custom' ? { url_pattern: urlPattern } : {}) } : undefined;
          void add.run(async () => {
            await api('POST', '/realm/profile_fields', {
              name: knownAccount ? '' : draft.name,
              hint: draft.hint,
              field_type: type,
              field_data: data,
              display_in_profile_summary: draft.summary,
              required: draft.required,
              editable_by_user: draft.editable,
            });
            reset();
            setUrlPattern('');
          }, 'Field added.');
        }}
      >
        <label for="profile-field-new-type">Type</label>
        <select id="profile-field-new-type" value={String(type)} onChange={(e) => setType(Number(e.currentTarget.value))}>
          {TYPES.map(([id, name]) => (
            <option key={id} value={String(id)}>
              {name}
            </option>
          ))}
        </select>
        {type === TYPE.EXTERNAL_ACCOUNT && (
          <>
            <label for="profile-field-new-account">Account</label>
            <select id="profile-field-new-account" value={account} onChange={(e) => setAccount(e.currentTarget.value)}>
              {externalAccountKinds().map(([key, text]) => (
                <option key={key} value={key}>
                  {text}
                </option>
              ))}
            </select>
            {account === 'custom' && (
              <>
                <label for="profile-field-new-pattern">URL pattern</label>
                <input id="profile-field-new-pattern" type="text" value={urlPattern} required placeholder="https://example.com/%(username)s" onInput={(e) => setUrlPattern(e.currentTarget.value)} />
              </>
            )}
          </>
        )}
        <FieldSettings ids="profile-field-new" type={type} draft={draft} set={set} nameFixed={knownAccount} />
        <button type="submit" class="btn primary" disabled={add.busy}>
          Add field
        </button>
        {add.view}
      </form>
      <ErrorLine error={change.error} />
      {fields.length === 0 ? (
        <p class="muted-text">No custom profile fields yet.</p>
      ) : (
        <ol class="linkifier-list profile-field-list" aria-label="Custom profile fields">
          {fields.map((f, i) => (
            <li key={f.id} aria-label={f.name}>
              <span class="group-summary">
                <span class="org-person">{f.name}</span>
                <span class="muted-text">
                  {typeName(f.type)}
                  {f.required ? ', required' : ''}
                  {f.display_in_profile_summary ? ', in the profile summary' : ''}
                  {f.hint ? ` \u00b7 ${f.hint}` : ''}
                </span>
              </span>
              <span class="group-actions">
                <button type="button" class="btn" aria-label={`Move ${f.name} up`} disabled={change.busy || i === 0} onClick={() => move(i, -1)}>
                  Up
                </button>
                <button type="button" class="btn" aria-label={`Move ${f.name} down`} disabled={change.busy || i === fields.length - 1} onClick={() => move(i, 1)}>
                  Down
                </button>
                <button type="button" class="btn" aria-label={`Edit ${f.name}`} aria-expanded={editing === f.id} onClick={() => setEditing(editing === f.id ? null : f.id)}>
                  Edit
                </button>
                <button type="button" class="btn" aria-label={`Delete ${f.name}`} disabled={change.busy} onClick={() => setConfirming(f.id)}>
                  Delete
                </button>
              </span>
              {confirming === f.id && (
                <Confirm
                  label={`Delete ${f.name}?`}
                  text={`Delete ${f.name}? Everyone's value for it goes too.`}
                  action="Delete"
                  busy={change.busy}
                  onConfirm={() => {
                    setConfirming(null);
                    void change.run(() => api('DELETE', `/realm/profile_fields/${f.id}`));
                  }}
                  onCancel={() => setConfirming(null)}
                />
              )}
              {editing === f.id && <EditProfileField field={f} onDone={() => setEditing(null)} />}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** Editing one field's settings; only what changed is sent, and the editor closes once the server has taken it. */
function EditProfileField({ field: f, onDone }: { field: ProfileField; onDone(): void }) {
  const before = options(f);
  const initial: Draft = {
    name: f.name,
    hint: f.hint,
    options: before.map(([, text]) => text).join('\n'),
    summary: !!f.display_in_profile_summary,
    required: !!f.required,
    editable: f.editable_by_user !== false,
  };
  const { draft, set } = useDraft(initial);
  const save = useRequest();
  const d = fieldData(f);
  // A custom external account's URL pattern is its own field data.
  const customAccount = f.type === TYPE.EXTERNAL_ACCOUNT && d.subtype === 'custom';
  const [urlPattern, setUrlPattern] = useState(typeof d.url_pattern === 'string' ? d.url_pattern : '');
  return (
    <form
      class="group-editor"
      aria-label={`Edit ${f.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        const params = {
          name: ifChanged(draft.name, initial.name),
          hint: ifChanged(draft.hint, initial.hint),
          field_data:
            f.type === TYPE.SELECT && draft.options !== initial.options
              ? optionsData(draft.options, before)
              : customAccount && urlPattern !== d.url_pattern
                ? { subtype: 'custom', url_pattern: urlPattern }
                : undefined,
          display_in_profile_summary: ifChanged(draft.summary, initial.summary),
          required: ifChanged(draft.required, initial.required),
          editable_by_user: ifChanged(draft.editable, initial.editable),
        };
        void save.run(() => api('PATCH', `/realm/profile_fields/${f.id}`, params)).then((ok) => ok && onDone());
      }}
    >
      {customAccount && (
        <>
          <label for={`profile-field-${f.id}-pattern`}>URL pattern</label>
          <input id={`profile-field-${f.id}-pattern`} type="text" value={urlPattern} required onInput={(e) => setUrlPattern(e.currentTarget.value)} />
        </>
      )}
      <FieldSettings ids={`profile-field-${f.id}`} type={f.type} draft={draft} set={set} nameFixed={f.type === TYPE.EXTERNAL_ACCOUNT && !customAccount} />
      <FormButtons submit="Save field" disabled={save.busy} error={save.error} onCancel={onDone} />
    </form>
  );
}

/**
 * One's own values for the organization's fields, each with an input that
 * fits its type, saved together: new values with PATCH
 * /users/me/profile_data, cleared ones with DELETE /users/me/profile_data.
 * What is not being typed shows the value as it is (a change made in
 * another tab or by an administrator shows); a field users may not change
 * is read-only for all but administrators. Below, how others see it.
 */
export function OwnProfileFields() {
  // What is typed, by field ID; a field not typed in shows its value.
  const [typed, setTyped] = useState<Record<number, string>>({});
  const save = useAction();
  const me = model.me;
  const fields = model.profileFields;
  if (!fields.length) return null;
  const admin = isAdministrator(me);
  const shown = (f: ProfileField) => typed[f.id] ?? profileValueOf(me, f);
  const type = (f: ProfileField, value: string) => setTyped({ ...typed, [f.id]: value });
  return (
    <section aria-labelledby="own-fields-title">
      <h2 id="own-fields-title">Profile fields</h2>
      <form
        aria-label="Profile fields"
        onSubmit={(e) => {
          e.preventDefault();
          const changes = profileChanges(me, typed);
          const set = changes.filter((c) => c.value !== null);
          const cleared = changes.filter((c) => c.value === null);
          void save.run(async () => {
            if (set.length) await api('PATCH', '/users/me/profile_data', { data: set });
            if (cleared.length) await api('DELETE', '/users/me/profile_data', { data: cleared.map((c) => c.id) });
            // Shown at once; the realm_user events bring the rendered text.
            for (const c of changes) setProfileValue(me, { id: c.id, value: c.value === null ? null : typed[c.id]! });
            setTyped({});
            model.changed();
          }, 'Profile fields saved.');
        }}
      >
        {fields.map((f) => {
          const id = `own-field-${f.id}`;
          const locked = f.editable_by_user === false && !admin;
          const value = shown(f);
          return (
            <div key={f.id} class="own-field">
              <label for={id}>
                {f.name}
                {f.required && <span class="muted-text"> (required)</span>}
              </label>
              <ProfileFieldInput field={f} id={id} value={value} disabled={locked} onValue={(v) => type(f, v)} />
              {f.hint && (
                <span id={`${id}-hint`} class="muted-text">
                  {f.hint}
                </span>
              )}
              {locked && <span class="muted-text">Only administrators can change this.</span>}
            </div>
          );
        })}
        <button type="submit" class="btn primary" disabled={save.busy}>
          Save profile fields
        </button>
        {save.view}
      </form>
      <h3>How others see it</h3>
      {fields.some((f) => profileValueOf(me, f) !== '') ? <ProfileFieldValues userId={me.user_id} /> : <p class="muted-text">Nothing filled in yet.</p>}
    </section>
  );
}

/**
 * What `typed` (text by field ID, as ProfileFieldInput writes it) changes of
 * `u`'s values: each field typed differently from its value, with its new
 * value (a person field's as user IDs), or null where it was emptied.
 */
export function profileChanges(u: User, typed: Record<number, string>): Array<{ id: number; value: string | number[] | null }> {
  return model.profileFields
    .filter((f) => f.id in typed && typed[f.id] !== profileValueOf(u, f))
    .map((f) => {
      const text = typed[f.id]!;
      if (text === '' || (f.type === TYPE.USER && userIds(text).length === 0)) return { id: f.id, value: null };
      return { id: f.id, value: f.type === TYPE.USER ? userIds(text) : text };
    });
}

/**
 * The input for a value of the custom profile field `f`, fitting its type (a
 * list's options, the organization's people, a date, a link, text): `value` as the field's
 * value is written (a person field's is a JSON list of user IDs), and
 * `onValue` with what is typed or chosen, written the same way.
 */
export function ProfileFieldInput({ field: f, id, value, disabled, onValue }: { field: ProfileField; id: string; value: string; disabled: boolean; onValue(v: string): void }) {
  const people = f.type === TYPE.USER ? [...model.users.values()].filter((u) => u.is_active && !u.is_bot).sort((a, b) => a.full_name.localeCompare(b.full_name)) : [];
  const common = { id, disabled, 'aria-describedby': f.hint ? `${id}-hint` : undefined };
  return f.type === TYPE.LONG_TEXT ? (
    <textarea {...common} rows={3} maxLength={500} value={value} onInput={(e) => onValue(e.currentTarget.value)} />
  ) : f.type === TYPE.SELECT ? (
    <select {...common} value={value} onChange={(e) => onValue(e.currentTarget.value)}>
      <option value="">(none)</option>
      {options(f).map(([key, text]) => (
        <option key={key} value={key}>
          {text}
        </option>
      ))}
    </select>
  ) : f.type === TYPE.USER ? (
    <select {...common} multiple size={Math.min(6, Math.max(3, people.length))} onChange={(e) => onValue(JSON.stringify([...e.currentTarget.selectedOptions].map((o) => Number(o.value))))}>
      {people.map((u) => (
        <option key={u.user_id} value={String(u.user_id)} selected={userIds(value).includes(u.user_id)}>
          {u.full_name}
        </option>
      ))}
    </select>
  ) : f.type === TYPE.DATE ? (
    <input {...common} type="date" value={value} onInput={(e) => onValue(e.currentTarget.value)} />
  ) : f.type === TYPE.URL ? (
    <input {...common} type="url" placeholder="https://" value={value} onInput={(e) => onValue(e.currentTarget.value)} />
  ) : (
    <input {...common} type="text" maxLength={50} placeholder={f.type === TYPE.PRONOUNS ? 'they/them' : undefined} value={value} onInput={(e) => onValue(e.currentTarget.value)} />
  );
}

/**
 * A user's values of the organization's fields, for a profile card: each
 * non-empty one with its field's name, in the fields' order. Text the
 * server renders is shown as rendered (as messages are); links, external
 * accounts as links; people by name; an option by its text; a date as a
 * date. Nothing when the user has no values.
 */
export function ProfileFieldValues({ userId }: { userId: number }) {
  const u = model.users.get(userId) ?? (model.me.user_id === userId ? model.me : undefined);
  const values = u ? model.profileFields.filter((f) => profileValueOf(u, f) !== '') : [];
  if (!u || !values.length) return null;
  return (
    <dl class="profile-field-values" aria-label={`Profile fields of ${u.full_name}`}>
      {values.map((f) => (
        <div key={f.id} class="profile-field-value">
          <dt>{f.name}</dt>
          <dd>
            <FieldValue field={f} value={u.profile_data![String(f.id)]!} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

function FieldValue({ field: f, value: { value, rendered_value } }: { field: ProfileField; value: { value: string; rendered_value?: string } }) {
  switch (f.type) {
    case TYPE.SELECT:
      return <>{options(f).find(([key]) => key === value)?.[1] ?? value}</>;
    case TYPE.USER:
      return <>{userIds(value).map((id) => model.userName(id)).join(', ')}</>;
    case TYPE.DATE: {
      const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00`) : null;
      return <time dateTime={value}>{date && !Number.isNaN(date.getTime()) ? date.toLocaleDateString(undefined, { dateStyle: 'long' }) : value}</time>;
    }
    case TYPE.URL:
      return /^https?:\/\//i.test(value) ? <a href={value} target="_blank" rel="noopener noreferrer">{value}</a> : <>{value}</>;
    case TYPE.EXTERNAL_ACCOUNT: {
      const url = externalAccountUrl(f, value);
      return url && /^https?:\/\//i.test(url) ? <a href={url} target="_blank" rel="noopener noreferrer">{value}</a> : <>{value}</>;
    }
    default:
      return rendered_value !== undefined ? <div class="rendered" dangerouslySetInnerHTML={{ __html: prepareHtml(rendered_value) }} /> : <>{value}</>;
  }
}
