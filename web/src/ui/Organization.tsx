import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model, type User } from '../model.ts';
import { ErrorLine, useAction, useRequest } from './request.tsx';

/** Zulip's roles, highest first. */
export const ROLES: Array<[number, string]> = [
  [100, 'Owner'],
  [200, 'Administrator'],
  [300, 'Moderator'],
  [400, 'Member'],
  [600, 'Guest'],
];

/** How many people the list shows at once (the filter finds the others). */
const SHOWN = 50;

/** Whether the user is an administrator or owner (Zulip's roles 200 and 100). */
export function isAdministrator(u: { role: number }): boolean {
  return u.role <= 200;
}

/**
 * For administrators: the organization's name and description (PATCH
 * /realm), and its people: their roles (PATCH /users/{id}), deactivating and
 * reactivating accounts (DELETE /users/{id}, POST /users/{id}/reactivate).
 * The server decides who may do what (only owners make owners, the last
 * owner stays) and says why not; the list follows the realm_user events.
 */
export function Organization() {
  // What is typed here; null until then, and again once saved, so the fields
  // show the organization's values as they are (a change made elsewhere shows).
  const [typedName, setName] = useState<string | null>(null);
  const [typedDescription, setDescription] = useState<string | null>(null);
  const name = typedName ?? model.realm.realm_name ?? '';
  const description = typedDescription ?? model.realm.realm_description ?? '';
  const [filter, setFilter] = useState('');
  const profile = useAction();
  const people = useRequest();

  const wanted = filter.trim().toLowerCase();
  const humans = ([...model.users.values()] as User[])
    .filter((u) => !u.is_bot && (!wanted || u.full_name.toLowerCase().includes(wanted) || u.email.toLowerCase().includes(wanted)))
    .sort((a, b) => Number(b.is_active) - Number(a.is_active) || a.full_name.localeCompare(b.full_name));
  const iAmOwner = model.me.role === 100;

  return (
    <section aria-labelledby="org-title">
      <h2 id="org-title">Organization</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void profile.run(async () => {
            await api('PATCH', '/realm', { name: name.trim(), description });
            setName(null);
            setDescription(null);
          }, 'Organization saved.');
        }}
      >
        <label for="org-name">Organization name</label>
        <input id="org-name" type="text" value={name} maxLength={40} required onInput={(e) => setName(e.currentTarget.value)} />
        <label for="org-description">Description</label>
        <textarea id="org-description" rows={2} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        <button type="submit" class="btn primary" disabled={profile.busy}>
          Save organization
        </button>
        {profile.view}
      </form>
      <h3>People</h3>
      <label for="org-filter">Find a person</label>
      <input id="org-filter" type="search" value={filter} placeholder="Name or email" onInput={(e) => setFilter(e.currentTarget.value)} />
      <ErrorLine error={people.error} />
      <ul class="org-people" aria-label="People in the organization">
        {humans.slice(0, SHOWN).map((u) => {
          const self = u.user_id === model.me.user_id;
          return (
            <li key={u.user_id} aria-label={u.full_name} class={u.is_active ? '' : 'deactivated'}>
              <span class="org-person">
                {u.full_name} <span class="muted-text">{u.email}</span>
              </span>
              <select
                aria-label={`Role of ${u.full_name}`}
                value={String(u.role)}
                disabled={self || !u.is_active || people.busy}
                onChange={(e) => {
                  const role = Number(e.currentTarget.value);
                  const select = e.currentTarget;
                  void people.run(() => api('PATCH', `/users/${u.user_id}`, { role })).then((ok) => {
                    // Refused: back to the role the user still has.
                    if (!ok) select.value = String(u.role);
                  });
                }}
              >
                {ROLES.filter(([r]) => iAmOwner || r !== 100 || u.role === 100).map(([r, label]) => (
                  <option key={r} value={String(r)}>
                    {label}
                  </option>
                ))}
              </select>
              {!self &&
                (u.is_active ? (
                  <button type="button" class="btn" disabled={people.busy} aria-label={`Deactivate ${u.full_name}`} onClick={() => void people.run(() => api('DELETE', `/users/${u.user_id}`))}>
                    Deactivate
                  </button>
                ) : (
                  <button type="button" class="btn" disabled={people.busy} aria-label={`Reactivate ${u.full_name}`} onClick={() => void people.run(() => api('POST', `/users/${u.user_id}/reactivate`))}>
                    Reactivate
                  </button>
                ))}
            </li>
          );
        })}
      </ul>
      {humans.length > SHOWN && <p class="muted-text">{humans.length - SHOWN} more: narrow the list with the search above.</p>}
    </section>
  );
}
