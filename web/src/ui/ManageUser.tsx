import { Fragment, type ComponentChildren, type RefObject } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model } from '../model.ts';
import { Dialog } from './Dialog.tsx';
import { RoleOptions } from './Organization.tsx';
import { ProfileFieldInput, profileChanges, profileValueOf } from './ProfileFields.tsx';
import { Confirm, ErrorLine, FormButtons, useRequest } from './request.tsx';

/**
 * "Manage user" (an administrator's, from someone else's card, as Zulip's):
 * their name, role and custom profile fields, saved together in one PATCH
 * /users/{id} (only what changed is sent; an emptied field is cleared); their
 * deactivation, after a question, with an email to them when a note is
 * written for it; or their reactivation. The server decides who may do what
 * (only owners make or unmake owners, the last owner stays) and says why not,
 * shown in the dialog; the realm_user events bring each change to every view.
 * A change saved or a deactivation done closes the dialog.
 */
export function ManageUser({ userId, onClose }: { userId: number; onClose(): void }) {
  const u = model.users.get(userId);
  // What is typed or chosen; null until then, so a change made elsewhere meanwhile shows and is not sent back.
  const [typedName, setName] = useState<string | null>(null);
  const [chosenRole, setRole] = useState<number | null>(null);
  /** Profile field values typed, by field ID (a field not typed in shows its value). */
  const [typed, setTyped] = useState<Record<number, string>>({});
  /** Deactivation asked for: the question shows. */
  const [confirming, setConfirming] = useState(false);
  /** The note of the email telling them of their deactivation; null for no email. */
  const [note, setNote] = useState<string | null>(null);
  const req = useRequest();
  const first = useRef<HTMLInputElement & HTMLButtonElement>(null);
  // It takes the card's place: the focus goes to its first field (the name, or Reactivate).
  useLayoutEffect(() => first.current?.focus(), []);
  if (!u) return null;
  const name = typedName ?? u.full_name;
  const role = chosenRole ?? u.role;
  const act = (fn: () => Promise<unknown>) => void req.run(fn).then((ok) => ok && onClose());
  return (
    <Dialog id="manage-user-title" title="Manage user" onClose={onClose}>
      <p>
        <strong>{u.full_name}</strong> <span class="muted-text">{u.delivery_email || u.email}</span>
      </p>
      <p class="muted-text">User ID: {u.user_id}</p>
      {u.is_active ? (
        <form
          aria-label={`Manage ${u.full_name}`}
          onSubmit={(e) => {
            e.preventDefault();
            const changes: Record<string, unknown> = {};
            if (name.trim() !== u.full_name) changes.full_name = name.trim();
            if (role !== u.role) changes.role = role;
            const fields = profileChanges(u, typed);
            if (fields.length) changes.profile_data = fields;
            if (Object.keys(changes).length === 0) onClose();
            else act(() => api('PATCH', `/users/${u.user_id}`, changes));
          }}
        >
          <label for="manage-user-name">Name</label>
          <input id="manage-user-name" ref={first} type="text" value={name} required maxLength={60} onInput={(e) => setName(e.currentTarget.value)} />
          <label for="manage-user-role">User role</label>
          <select id="manage-user-role" value={String(role)} onChange={(e) => setRole(Number(e.currentTarget.value))}>
            <RoleOptions of={u} />
          </select>
          {model.profileFields.map((f) => (
            <Fragment key={f.id}>
              <label for={`manage-field-${f.id}`}>{f.name}</label>
              <ProfileFieldInput field={f} id={`manage-field-${f.id}`} value={typed[f.id] ?? profileValueOf(u, f)} disabled={false} onValue={(v) => setTyped({ ...typed, [f.id]: v })} />
              {f.hint && (
                <span id={`manage-field-${f.id}-hint`} class="muted-text">
                  {f.hint}
                </span>
              )}
            </Fragment>
          ))}
          <FormButtons submit="Save changes" disabled={req.busy} error={confirming ? null : req.error} onCancel={onClose} />
        </form>
      ) : (
        <p>This user is deactivated.</p>
      )}
      <Deactivation
        kind="user"
        name={u.full_name}
        active={u.is_active}
        busy={req.busy}
        error={req.error}
        confirming={confirming}
        onConfirming={setConfirming}
        question={`Deactivate ${u.full_name}? They will be logged out at once.`}
        onDeactivate={() => act(() => api('DELETE', `/users/${u.user_id}`, note === null ? {} : { deactivation_notification_comment: note }))}
        onReactivate={() => act(() => api('POST', `/users/${u.user_id}/reactivate`))}
        reactivateRef={first}
      >
        <label class="check">
          <input type="checkbox" checked={note !== null} onChange={(e) => setNote(e.currentTarget.checked ? '' : null)} /> Notify this user by email
        </label>
        {note !== null && (
          <>
            <label for="manage-user-note">A note for the email (optional)</label>
            <textarea id="manage-user-note" rows={3} maxLength={2000} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
          </>
        )}
      </Deactivation>
    </Dialog>
  );
}

/**
 * The end of "Manage user" and "Manage bot": Deactivate, after a question
 * (with `children` above it, such as the email's note), or, for a
 * deactivated account, Reactivate (when `onReactivate` is given: who may);
 * the request's error under them.
 */
export function Deactivation(props: {
  kind: 'user' | 'bot';
  name: string;
  active: boolean;
  busy: boolean;
  error: string | null;
  confirming: boolean;
  onConfirming(on: boolean): void;
  question: string;
  children?: ComponentChildren;
  onDeactivate(): void;
  onReactivate?: () => void;
  reactivateRef: RefObject<HTMLButtonElement | null>;
}) {
  const { kind, active, confirming } = props;
  return (
    <div class="settings-group manage-user-deactivation">
      {active && !confirming && (
        <div class="group-actions">
          <button type="button" class="btn danger" onClick={() => props.onConfirming(true)}>
            Deactivate {kind}
          </button>
        </div>
      )}
      {confirming && (
        <>
          {props.children}
          <Confirm label={`Deactivate ${props.name}?`} text={props.question} action="Deactivate" busy={props.busy} onConfirm={props.onDeactivate} onCancel={() => props.onConfirming(false)} />
        </>
      )}
      {!active && props.onReactivate && (
        <div class="group-actions">
          <button type="button" class="btn primary" ref={props.reactivateRef} disabled={props.busy} onClick={props.onReactivate}>
            Reactivate {kind}
          </button>
        </div>
      )}
      {(confirming || !active) && <ErrorLine error={props.error} />}
    </div>
  );
}
