import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ifChanged } from '../util.ts';
import { model, type User, type UserGroup } from '../model.ts';
import { GroupSettingSelect, permissionConfigs, type GroupSettingChange } from './GroupSetting.tsx';
import { isAdministrator } from './Organization.tsx';
import { ErrorLine, NameAndDescription, useAction, useRequest } from './request.tsx';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Whether the user may change the group's name, description and settings, or deactivate it (as the server decides). */
function canManage(g: UserGroup): boolean {
  const me = model.me.user_id;
  return isAdministrator(model.me) || model.allows(me, model.realm.realm_can_manage_all_groups) || model.allows(me, g.can_manage_group);
}

/** Whether the user may add members to the group (as the server decides). */
export function mayAddMembers(g: UserGroup): boolean {
  return canManage(g) || model.allows(model.me.user_id, g.can_add_members_group);
}

/** Whether the user may remove members from the group (as the server decides). */
export function mayRemoveMembers(g: UserGroup): boolean {
  return canManage(g) || model.allows(model.me.user_id, g.can_remove_members_group);
}

type GroupSettingName = 'can_manage_group' | 'can_join_group' | 'can_leave_group' | 'can_add_members_group' | 'can_remove_members_group' | 'can_mention_group';

/** The group's own settings offered in an opened group, with what they let people do. */
const GROUP_SETTINGS: Array<[GroupSettingName, string]> = [
  ['can_manage_group', 'Who can manage this group'],
  ['can_join_group', 'Who can join'],
  ['can_leave_group', 'Who can leave'],
  ['can_add_members_group', 'Who can add members'],
  ['can_remove_members_group', 'Who can remove members'],
  ['can_mention_group', 'Who can mention this group'],
];

/** Changes one of the group's settings (PATCH /user_groups/{id}), shown at once (model.tentatively). */
function setGroupSetting(g: UserGroup, name: GroupSettingName, next: number, change: GroupSettingChange): Promise<void> {
  return model.tentatively<UserGroup, GroupSettingName>(g, name, next, () => api('PATCH', `/user_groups/${g.id}`, { [name]: change }));
}

/** Adds (`add`) or removes (`delete`) members: POST /user_groups/{id}/members. */
export function changeMembers(g: UserGroup, op: 'add' | 'delete', userIds: number[]) {
  return api('POST', `/user_groups/${g.id}/members`, { [op]: userIds });
}

/** Adds (`add`) or removes (`delete`) subgroups: POST /user_groups/{id}/subgroups. */
function changeSubgroups(g: UserGroup, op: 'add' | 'delete', groupIds: number[]) {
  return api('POST', `/user_groups/${g.id}/subgroups`, { [op]: groupIds });
}

/**
 * The organization's user groups (not the system groups), from
 * realm_user_groups and the user_group events: create one (POST
 * /user_groups/create, with oneself as its first member), join or leave
 * one, and, where the group's settings allow, rename it (PATCH
 * /user_groups/{id}), add and remove members (POST
 * /user_groups/{id}/members) and deactivate it (POST
 * /user_groups/{id}/deactivate). Deactivated groups are listed apart, and
 * reactivated by those who may manage them (PATCH /user_groups/{id} with
 * deactivated=false); they can still be opened, renamed and have their
 * members changed, as Zulip allows. An opened group lists its subgroups,
 * which may be added (as members may) and removed (by those who may
 * manage the group): POST /user_groups/{id}/subgroups. Its own
 * permission settings (who can manage, join, leave, add and remove
 * members, mention it) are selects for those who may manage it (PATCH
 * /user_groups/{id} with Zulip's {new, old}), read-only for others. The
 * server decides who may do what, and says why not.
 */
export function UserGroups() {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [open, setOpen] = useState<number | null>(null);
  const create = useAction();
  const change = useRequest();
  const me = model.me.user_id;
  const groups = [...model.groups.values()].filter((g) => !g.is_system_group).sort((a, b) => a.name.localeCompare(b.name));
  const active = groups.filter((g) => !g.deactivated);
  const deactivated = groups.filter((g) => g.deactivated);
  const mayCreate = model.realm.realm_can_create_groups === undefined || model.allows(me, model.realm.realm_can_create_groups);

  return (
    <section aria-labelledby="groups-title">
      <h2 id="groups-title">User groups</h2>
      {mayCreate && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void create.run(async () => {
              await api('POST', '/user_groups/create', { name: name.trim(), description: description.trim(), members: [me] });
              setName('');
              setDescription('');
            }, 'Group created.');
          }}
        >
          <NameAndDescription id="group" noun="Group" name={name} description={description} maxName={100} onName={setName} onDescription={setDescription} />
          <button type="submit" class="btn primary" disabled={create.busy}>
            Create group
          </button>
          {create.view}
        </form>
      )}
      <ErrorLine error={change.error} />
      <ul class="group-list" aria-label="User groups">
        {active.map((g) => {
          const member = g.members.includes(me);
          const mayJoin = !member && (canManage(g) || model.allows(me, g.can_join_group) || model.allows(me, g.can_add_members_group));
          const mayLeave = member && (canManage(g) || model.allows(me, g.can_leave_group) || model.allows(me, g.can_remove_members_group));
          return (
            <li key={g.id} aria-label={g.name}>
              <GroupSummary group={g} />
              <span class="group-actions">
                {mayJoin && (
                  <button type="button" class="btn" disabled={change.busy} onClick={() => void change.run(() => changeMembers(g, 'add', [me]))}>
                    Join {g.name}
                  </button>
                )}
                {mayLeave && (
                  <button type="button" class="btn" disabled={change.busy} onClick={() => void change.run(() => changeMembers(g, 'delete', [me]))}>
                    Leave {g.name}
                  </button>
                )}
                <button type="button" class="btn" aria-expanded={open === g.id} onClick={() => setOpen(open === g.id ? null : g.id)}>
                  {open === g.id ? 'Close' : 'Open'} {g.name}
                </button>
              </span>
              {open === g.id && <GroupEditor key={g.id} group={g} />}
            </li>
          );
        })}
      </ul>
      {active.length === 0 && <p class="muted-text">No user groups yet.</p>}
      {deactivated.length > 0 && (
        <>
          <h3 id="groups-deactivated-title">Deactivated</h3>
          <ul class="group-list" aria-labelledby="groups-deactivated-title">
            {deactivated.map((g) => (
              <li key={g.id} aria-label={g.name} class="deactivated">
                <GroupSummary group={g} />
                <span class="group-actions">
                  {canManage(g) && (
                    <button type="button" class="btn" disabled={change.busy} onClick={() => void change.run(() => api('PATCH', `/user_groups/${g.id}`, { deactivated: false }))}>
                      Reactivate {g.name}
                    </button>
                  )}
                  <button type="button" class="btn" aria-expanded={open === g.id} onClick={() => setOpen(open === g.id ? null : g.id)}>
                    {open === g.id ? 'Close' : 'Open'} {g.name}
                  </button>
                </span>
                {open === g.id && <GroupEditor key={g.id} group={g} />}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function GroupSummary({ group: g }: { group: UserGroup }) {
  return (
    <span class="group-summary">
      <span class="org-person">{g.name}</span>
      <span class="muted-text">
        {plural(g.members.length, 'member', 'members')}
        {g.direct_subgroup_ids.length > 0 && `, ${plural(g.direct_subgroup_ids.length, 'subgroup', 'subgroups')}`}
      </span>
      {g.description && <span class="group-description">{g.description}</span>}
    </span>
  );
}

/** One group opened: its members, and what the user may change. */
function GroupEditor({ group: g }: { group: UserGroup }) {
  // What is typed here; null until then, so a change made elsewhere shows.
  const [typedName, setName] = useState<string | null>(null);
  const [typedDescription, setDescription] = useState<string | null>(null);
  const save = useAction();
  const change = useRequest();
  const me = model.me.user_id;
  const manage = canManage(g);
  const mayAdd = mayAddMembers(g);
  const mayRemove = mayRemoveMembers(g);
  const members = g.members.map((id) => model.users.get(id) ?? { user_id: id, full_name: model.userName(id), email: '' }).sort((a, b) => a.full_name.localeCompare(b.full_name));
  const candidates = ([...model.users.values()] as User[]).filter((u) => u.is_active && !u.is_bot && !g.members.includes(u.user_id)).sort((a, b) => a.full_name.localeCompare(b.full_name));
  const subgroups = g.direct_subgroup_ids.map((id) => ({ id, name: model.groups.get(id)?.name ?? `Group ${id}` })).sort((a, b) => a.name.localeCompare(b.name));
  // Active groups of the organization that are not this one nor already its subgroups (the server refuses a cycle, and says so).
  const subgroupCandidates = [...model.groups.values()]
    .filter((c) => !c.is_system_group && !c.deactivated && c.id !== g.id && !g.direct_subgroup_ids.includes(c.id))
    .sort((a, b) => a.name.localeCompare(b.name));

  return (
    <div class="group-editor">
      {manage && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const name = (typedName ?? g.name).trim();
            const description = typedDescription ?? g.description;
            void save.run(async () => {
              await api('PATCH', `/user_groups/${g.id}`, { name: ifChanged(name, g.name), description: ifChanged(description, g.description) });
              setName(null);
              setDescription(null);
            }, 'Group saved.');
          }}
        >
          <label for={`group-${g.id}-name`}>Name</label>
          <input id={`group-${g.id}-name`} type="text" value={typedName ?? g.name} required maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
          <label for={`group-${g.id}-description`}>Description</label>
          <input id={`group-${g.id}-description`} type="text" value={typedDescription ?? g.description} onInput={(e) => setDescription(e.currentTarget.value)} />
          <button type="submit" class="btn primary" disabled={save.busy}>
            Save group
          </button>
          {save.view}
        </form>
      )}
      <h4>Members</h4>
      <ul class="org-people" aria-label={`Members of ${g.name}`}>
        {members.map((u) => (
          <li key={u.user_id} aria-label={u.full_name}>
            <span class="org-person">{u.full_name}</span>
            {mayRemove && (
              <button type="button" class="btn" disabled={change.busy} aria-label={`Remove ${u.full_name} from ${g.name}`} onClick={() => void change.run(() => changeMembers(g, 'delete', [u.user_id]))}>
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
      {members.length === 0 && <p class="muted-text">No direct members.</p>}
      {mayAdd && (
        <PickToAdd
          id={`group-${g.id}-add`}
          label="Add a member"
          placeholder="Choose a person…"
          button="Add"
          options={candidates.map((u) => ({ value: u.user_id, label: u.full_name }))}
          busy={change.busy}
          add={(userId) => change.run(() => changeMembers(g, 'add', [userId]))}
        />
      )}
      <h4>Subgroups</h4>
      <ul class="org-people" aria-label={`Subgroups of ${g.name}`}>
        {subgroups.map((sg) => (
          <li key={sg.id} aria-label={sg.name}>
            <span class="org-person">{sg.name}</span>
            {manage && (
              <button type="button" class="btn" disabled={change.busy} aria-label={`Remove subgroup ${sg.name} from ${g.name}`} onClick={() => void change.run(() => changeSubgroups(g, 'delete', [sg.id]))}>
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
      {subgroups.length === 0 && <p class="muted-text">No subgroups.</p>}
      {mayAdd && subgroupCandidates.length > 0 && (
        <PickToAdd
          id={`group-${g.id}-add-subgroup`}
          label="Add a subgroup"
          placeholder="Choose a group…"
          button="Add subgroup"
          options={subgroupCandidates.map((c) => ({ value: c.id, label: c.name }))}
          busy={change.busy}
          add={(groupId) => change.run(() => changeSubgroups(g, 'add', [groupId]))}
        />
      )}
      <GroupSettings group={g} manage={manage} />
      {manage && !g.deactivated && (
        <button type="button" class="btn" disabled={change.busy} onClick={() => void change.run(() => api('POST', `/user_groups/${g.id}/deactivate`))}>
          Deactivate {g.name}
        </button>
      )}
      <ErrorLine error={change.error} />
    </div>
  );
}

/**
 * The group's own settings: selects for those who may manage it, shown
 * read-only to others, and to everyone while the group is deactivated (the
 * server refuses changes to them then, as Zulip does).
 */
function GroupSettings({ group: g, manage }: { group: UserGroup; manage: boolean }) {
  const save = useAction();
  const configs = permissionConfigs('group');
  const editable = manage && !g.deactivated;
  return (
    <div class="group-settings">
      <h4>Permissions</h4>
      {!manage && <p class="muted-text">Only those who can manage this group can change these.</p>}
      {manage && g.deactivated && <p class="muted-text">A deactivated group's permissions cannot be changed; reactivate it first.</p>}
      {GROUP_SETTINGS.map(([name, label]) => (
        <GroupSettingSelect
          key={name}
          id={`group-${g.id}-${name}`}
          label={label}
          current={g[name]}
          config={configs[name]}
          disabled={!editable || save.busy}
          save={(next, change) => setGroupSetting(g, name, next, change)}
          onChange={(change) => void save.run(change, 'Saved.')}
        />
      ))}
      {save.view}
    </div>
  );
}

/** A labelled choice of one person or group, and a button that adds it (the choice is cleared once added). */
export function PickToAdd(props: { id: string; label: string; placeholder: string; button: string; options: Array<{ value: number; label: string }>; busy: boolean; add: (value: number) => Promise<boolean> }) {
  const [picked, setPicked] = useState('');
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (!picked) return;
        // Cleared once added; a refused choice stays, next to the server's reason.
        void props.add(Number(picked)).then((ok) => ok !== false && setPicked(''));
      }}
    >
      <label for={props.id}>{props.label}</label>
      <div class="row">
        <select id={props.id} value={picked} onChange={(e) => setPicked(e.currentTarget.value)}>
          <option value="">{props.placeholder}</option>
          {props.options.map((o) => (
            <option key={o.value} value={String(o.value)}>
              {o.label}
            </option>
          ))}
        </select>
        <button type="submit" class="btn" disabled={props.busy || !picked}>
          {props.button}
        </button>
      </div>
    </form>
  );
}
