import { Fragment, type ComponentChildren, type RefObject } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model, type User } from '../model.ts';
import { Dialog, Tabs } from './Dialog.tsx';
import { RoleOptions } from './Organization.tsx';
import { subscribeUser, unsubscribeUser } from './Channels.tsx';
import { changeMembers, mayAddMembers, mayRemoveMembers, PickToAdd } from './UserGroups.tsx';
import { ProfileFieldInput, profileChanges, profileValueOf } from './ProfileFields.tsx';
import { Confirm, ErrorLine, FormButtons, useRequest } from './request.tsx';

/** The tabs of "Manage user" for an active user, as Zulip's. */
type ManageTab = 'profile' | 'channels' | 'groups';
const TABS: Array<[ManageTab, string]> = [
  ['profile', 'Profile'],
  ['channels', 'Channels'],
  ['groups', 'User groups'],
];

/**
 * "Manage user" (an administrator's, from someone else's card, as Zulip's):
 * their name, role and custom profile fields, saved together in one PATCH
 * /users/{id} (only what changed is sent; an emptied field is cleared); their
 * deactivation, after a question, with an email to them when a note is
 * written for it; or their reactivation. Its Channels and User groups tabs
 * list the channels (of those the administrator can see) and groups the
 * user is in, to take them out of or put them in (UserChannels,
 * UserGroupsOf). The server decides who may do what (only owners make or
 * unmake owners, the last owner stays) and says why not,
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
  const [tab, setTab] = useState<ManageTab>('profile');
  const req = useRequest();
  const first = useRef<HTMLInputElement & HTMLButtonElement>(null);
  // It takes the card's place: the focus goes to its first field (the name, or Reactivate).
  useLayoutEffect(() => first.current?.focus(), []);
  if (!u) return null;
  const name = typedName ?? u.full_name;
  const role = chosenRole ?? u.role;
  const act = (fn: () => Promise<unknown>) => void req.run(fn).then((ok) => ok && onClose());
  return (
    <Dialog id="manage-user-title" title="Manage user" wide="tabbed-dialog" onClose={onClose}>
      <p>
        <strong>{u.full_name}</strong> <span class="muted-text">{u.delivery_email || u.email}</span>
      </p>
      <p class="muted-text">User ID: {u.user_id}</p>
      {u.is_active && <Tabs label="Manage user" tabs={TABS} current={tab} onChoose={(t: ManageTab) => setTab(t)} />}
      {u.is_active && tab === 'channels' ? (
        <UserChannels user={u} />
      ) : u.is_active && tab === 'groups' ? (
        <UserGroupsOf user={u} />
      ) : u.is_active ? (
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
      {/* (A user deactivated meanwhile, whatever the tab, shows Reactivate.) */}
      {(tab === 'profile' || !u.is_active) && (
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
      )}
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

/** Channel names, sorted as the sidebar sorts them. */
const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);

/**
 * "Manage user"'s Channels tab: the channels the user is subscribed to, of
 * those the administrator can see (each channel's subscribers, fetched once
 * and kept current by the subscription events), with Unsubscribe where the
 * channel lets one remove subscribers, and a channel to subscribe them to
 * (POST and DELETE /users/me/subscriptions with principals).
 */
function UserChannels({ user: u }: { user: User }) {
  const change = useRequest();
  const [loaded, setLoaded] = useState(false);
  const channels = [...model.streams.values()].filter((c) => !c.is_archived).sort(byName);
  useEffect(() => {
    // (A channel whose subscribers the server refuses is left out.)
    void Promise.all(channels.map((c) => model.subscribersOf(c.stream_id))).then(() => setLoaded(true));
  }, [channels.length]);
  if (!loaded) return <p class="muted-text">Loading channels…</p>;
  const theirs = channels.filter((c) => model.subscribers.get(c.stream_id)?.has(u.user_id));
  const others = channels.filter((c) => model.subscribers.get(c.stream_id)?.has(u.user_id) === false && model.maySubscribeOthers(c.stream_id));
  return (
    <>
      <ul class="org-people" aria-label={`Channels of ${u.full_name}`}>
        {theirs.map((c) => (
          <li key={c.stream_id} aria-label={`#${c.name}`}>
            <span class="org-person">#{c.name}</span>
            {model.mayUnsubscribeOthers(c.stream_id) && (
              <button
                type="button"
                class="btn"
                disabled={change.busy}
                aria-label={`Unsubscribe ${u.full_name} from #${c.name}`}
                onClick={() => void change.run(() => unsubscribeUser(c.name, u.user_id))}
              >
                Unsubscribe
              </button>
            )}
          </li>
        ))}
      </ul>
      {theirs.length === 0 && <p class="muted-text">Not subscribed to any channel.</p>}
      {others.length > 0 && (
        <PickToAdd
          id="manage-user-subscribe"
          label="Subscribe to a channel"
          placeholder="Choose a channel…"
          button="Subscribe"
          options={others.map((c) => ({ value: c.stream_id, label: `#${c.name}` }))}
          busy={change.busy}
          add={(id) => change.run(() => subscribeUser(model.streams.get(id)!.name, u.user_id))}
        />
      )}
      <ErrorLine error={change.error} />
    </>
  );
}

/**
 * "Manage user"'s User groups tab: the groups (not the system groups, which
 * the role decides) the user is a member of, with Remove where the group
 * lets one remove members, and a group to add them to (POST
 * /user_groups/{id}/members).
 */
function UserGroupsOf({ user: u }: { user: User }) {
  const change = useRequest();
  const groups = [...model.groups.values()].filter((g) => !g.is_system_group && !g.deactivated).sort(byName);
  const theirs = groups.filter((g) => g.members.includes(u.user_id));
  const others = groups.filter((g) => !g.members.includes(u.user_id) && mayAddMembers(g));
  return (
    <>
      <ul class="org-people" aria-label={`Groups of ${u.full_name}`}>
        {theirs.map((g) => (
          <li key={g.id} aria-label={g.name}>
            <span class="org-person">{g.name}</span>
            {mayRemoveMembers(g) && (
              <button type="button" class="btn" disabled={change.busy} aria-label={`Remove ${u.full_name} from ${g.name}`} onClick={() => void change.run(() => changeMembers(g, 'delete', [u.user_id]))}>
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
      {theirs.length === 0 && <p class="muted-text">Not a member of any group.</p>}
      {others.length > 0 && (
        <PickToAdd
          id="manage-user-add-group"
          label="Add to a group"
          placeholder="Choose a group…"
          button="Add"
          options={others.map((g) => ({ value: g.id, label: g.name }))}
          busy={change.busy}
          add={(id) => change.run(() => changeMembers(model.groups.get(id)!, 'add', [u.user_id]))}
        />
      )}
      <ErrorLine error={change.error} />
    </>
  );
}
