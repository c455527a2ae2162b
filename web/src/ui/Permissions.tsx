import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model, type GroupSettingValue } from '../model.ts';
import { GroupSettingSelect, permissionConfigs } from './GroupSetting.tsx';
import { isAdministrator } from './Organization.tsx';
import { useAction } from './request.tsx';

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

/** Changes an organization setting (PATCH /realm), shown at once (model.tentatively). */
function setRealm(property: string, value: unknown, param: unknown = value): Promise<void> {
  return model.tentatively(model.realm, `realm_${property}`, value, () => api('PATCH', '/realm', { [property]: param }));
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
  const configs = permissionConfigs('realm');
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
        <GroupSettingSelect
          key={name}
          id={`perm-${name}`}
          label={label}
          current={model.realm[`realm_${name}`] as GroupSettingValue | undefined}
          config={configs[name]}
          disabled={!mayChange(name) || who.busy}
          save={(next, change) => setRealm(name, next, change)}
          onChange={(change) => void who.run(change, 'Saved.')}
        />
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
