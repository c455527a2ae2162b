import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model, type GroupSettingValue, type UserGroup } from '../model.ts';
import { isAdministrator } from './Organization.tsx';
import { useAction } from './request.tsx';

/** What server_supported_permission_settings says of one setting (the fields used here). */
interface PermissionConfig {
  require_system_group?: boolean;
  allow_internet_group?: boolean;
  allow_nobody_group?: boolean;
  allow_everyone_group?: boolean;
  allowed_system_groups?: string[];
}

/** The organization group settings offered here, with what they let people do. */
const GROUP_SETTINGS: Array<[string, string]> = [
  ['can_create_public_channel_group', 'Who can create public channels'],
  ['can_create_private_channel_group', 'Who can create private channels'],
  ['can_invite_users_group', 'Who can invite people'],
  ['can_create_groups', 'Who can create user groups'],
  ['can_add_custom_emoji_group', 'Who can add custom emoji'],
  ['can_delete_own_message_group', 'Who can delete their own messages'],
  ['can_move_messages_between_channels_group', 'Who can move messages to another channel'],
];

/** Settings only owners may change (as Zulip's server decides; it does not say so in /register). */
const OWNER_ONLY = new Set(['can_invite_users_group', 'can_create_groups', 'invite_required', 'waiting_period_threshold']);

/** The system groups, in the order offered (each role takes in the ones above it). */
const SYSTEM_GROUPS: Array<[string, string]> = [
  ['role:owners', 'Owners'],
  ['role:administrators', 'Administrators'],
  ['role:moderators', 'Moderators'],
  ['role:fullmembers', 'Full members'],
  ['role:members', 'Members'],
  ['role:everyone', 'Everyone, guests included'],
  ['role:nobody', 'Nobody'],
];

const CUSTOM = 'custom';

/** A group's name as shown: the system groups by their role. */
function groupLabel(g: UserGroup): string {
  if (!g.is_system_group) return g.deactivated ? `${g.name} (deactivated)` : g.name;
  return SYSTEM_GROUPS.find(([name]) => name === g.name)?.[1] ?? g.name;
}

/** The groups a setting may be set to: the system groups its configuration allows, then the active user groups (unless only system groups are allowed). */
function choices(config: PermissionConfig | undefined): UserGroup[] {
  const groups = [...model.groups.values()];
  const system = SYSTEM_GROUPS.map(([name]) => groups.find((g) => g.is_system_group && g.name === name)).filter((g): g is UserGroup => {
    if (!g) return false;
    if (!config) return true;
    if (config.allowed_system_groups?.length) return config.allowed_system_groups.includes(g.name);
    if (g.name === 'role:nobody') return config.allow_nobody_group !== false;
    if (g.name === 'role:everyone') return !!config.allow_everyone_group;
    return true;
  });
  if (config?.require_system_group) return system;
  const own = groups.filter((g) => !g.is_system_group && !g.deactivated).sort((a, b) => a.name.localeCompare(b.name));
  return [...system, ...own];
}

/** An anonymous group, described: its groups, then its people. */
function describeCustom(value: Exclude<GroupSettingValue, number>): string {
  const names = [
    ...value.direct_subgroups.map((id) => {
      const g = model.groups.get(id);
      return g ? groupLabel(g) : `Group ${id}`;
    }),
    ...value.direct_members.map((id) => model.userName(id)),
  ];
  return names.length ? `Custom: ${names.join(', ')}` : 'Custom: nobody';
}

/**
 * Changes an organization setting (PATCH /realm). Shown at once; the realm
 * event confirms it, and a refusal puts back what was there (unless an event
 * has changed it meanwhile).
 */
async function setRealm(property: string, value: unknown, param: unknown = value): Promise<void> {
  const key = `realm_${property}`;
  const before = model.realm[key];
  model.realm[key] = value;
  model.changed();
  try {
    await api('PATCH', '/realm', { [property]: param });
  } catch (err) {
    if (model.realm[key] === value) {
      model.realm[key] = before;
      model.changed();
    }
    throw err;
  }
}

/**
 * Who may do what in the organization: its group settings (each a system
 * group, one of its user groups, or an anonymous group made elsewhere,
 * shown as "Custom"), whether joining needs an invitation, the waiting period
 * before new members become full members, and message editing. Everyone
 * sees them; administrators change them, owners the owner-only ones, as
 * Zulip's web app does. The values follow the realm events, so a change made
 * elsewhere shows at once; the server says why when it refuses one.
 */
export function Permissions() {
  const admin = isAdministrator(model.me);
  const owner = model.me.role === 100;
  const mayChange = (name: string) => (OWNER_ONLY.has(name) ? owner : admin);
  const configs = (model.realm.server_supported_permission_settings as { realm?: Record<string, PermissionConfig> } | undefined)?.realm ?? {};
  const joining = useAction();
  const editing = useAction();
  const who = useAction();

  // Typed and not yet saved; null shows the organization's value.
  const [typedWaiting, setWaiting] = useState<string | null>(null);
  const [typedLimit, setLimit] = useState<string | null>(null);
  const waiting = typedWaiting ?? String(model.realm.realm_waiting_period_threshold ?? 0);
  const limitSeconds = model.realm.realm_message_content_edit_limit_seconds as number | null | undefined;
  const limit = typedLimit ?? (typeof limitSeconds === 'number' ? String(Math.round(limitSeconds / 60)) : '');
  const editingAllowed = model.realm.realm_allow_message_editing !== false;

  return (
    <section aria-labelledby="perm-title">
      <h2 id="perm-title">Organization permissions</h2>
      {!admin ? (
        <p class="muted-text">Only organization administrators can change these.</p>
      ) : (
        !owner && <p class="muted-text">Some of these only organization owners can change.</p>
      )}
      <h3>Joining</h3>
      <RealmCheck property="invite_required" checked={!!model.realm.realm_invite_required} disabled={!mayChange('invite_required')} run={(change) => void joining.run(change, 'Saved.')}>
        Invitations are required for joining
      </RealmCheck>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const days = Number(waiting);
          void joining.run(async () => {
            await setRealm('waiting_period_threshold', days);
            setWaiting(null);
          }, 'Saved.');
        }}
      >
        <label for="perm-waiting">Days before new members become full members</label>
        <div class="row">
          <input id="perm-waiting" type="number" min={0} step={1} required value={waiting} disabled={!mayChange('waiting_period_threshold')} onInput={(e) => setWaiting(e.currentTarget.value)} />
          {mayChange('waiting_period_threshold') && (
            <button type="submit" class="btn" disabled={joining.busy}>
              Save waiting period
            </button>
          )}
        </div>
      </form>
      {joining.view}
      <h3>Message editing</h3>
      <RealmCheck property="allow_message_editing" checked={editingAllowed} disabled={!admin} run={(change) => void editing.run(change, 'Saved.')}>
        People can edit their messages
      </RealmCheck>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const minutes = limit.trim();
          // No limit is Zulip's "unlimited" (null in /register and the events).
          const seconds = minutes === '' ? null : Math.round(Number(minutes) * 60);
          void editing.run(async () => {
            await setRealm('message_content_edit_limit_seconds', seconds, seconds ?? 'unlimited');
            setLimit(null);
          }, 'Saved.');
        }}
      >
        <label for="perm-edit-limit">Time limit for editing, in minutes (empty for none)</label>
        <div class="row">
          <input id="perm-edit-limit" type="number" min={1} step={1} value={limit} disabled={!admin || !editingAllowed} onInput={(e) => setLimit(e.currentTarget.value)} />
          {admin && (
            <button type="submit" class="btn" disabled={editing.busy || !editingAllowed}>
              Save time limit
            </button>
          )}
        </div>
      </form>
      {editing.view}
      <h3>Who can do what</h3>
      {GROUP_SETTINGS.map(([name, label]) => (
        <GroupSettingSelect key={name} name={name} label={label} config={configs[name]} disabled={!mayChange(name) || who.busy} onChange={(change) => void who.run(change, 'Saved.')} />
      ))}
      {who.view}
    </section>
  );
}

/** A yes-or-no organization setting, changed as soon as it is clicked. */
function RealmCheck({ property, checked, disabled, run, children }: { property: string; checked: boolean; disabled: boolean; run(change: () => Promise<void>): void; children: ComponentChildren }) {
  return (
    <label class="check">
      <input type="checkbox" checked={checked} disabled={disabled} onChange={(e) => run(() => setRealm(property, e.currentTarget.checked))} />
      {children}
    </label>
  );
}

/** One group setting as a select: its allowed groups, plus what it is now when that is not among them (a custom group, say). */
function GroupSettingSelect({ name, label, config, disabled, onChange }: { name: string; label: string; config: PermissionConfig | undefined; disabled: boolean; onChange(change: () => Promise<void>): void }) {
  const current = model.realm[`realm_${name}`] as GroupSettingValue | undefined;
  const options = choices(config);
  const currentGroup = typeof current === 'number' ? model.groups.get(current) : undefined;
  if (currentGroup && !options.includes(currentGroup)) options.push(currentGroup);
  const value = current === undefined ? '' : typeof current === 'number' ? String(current) : CUSTOM;
  const id = `perm-${name}`;
  return (
    <>
      <label for={id}>{label}</label>
      <select
        id={id}
        value={value}
        disabled={disabled || current === undefined}
        onChange={(e) => {
          const next = Number(e.currentTarget.value);
          if (!Number.isInteger(next)) return;
          // Zulip's group-setting change: the new value, and the one it replaces (refused if that is no longer so).
          onChange(() => setRealm(name, next, current === undefined ? { new: next } : { new: next, old: current }));
        }}
      >
        {options.map((g) => (
          <option key={g.id} value={String(g.id)}>
            {groupLabel(g)}
          </option>
        ))}
        {typeof current === 'object' && (
          <option value={CUSTOM} disabled>
            {describeCustom(current)}
          </option>
        )}
        {current === undefined && <option value="">Not available</option>}
      </select>
    </>
  );
}
