import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model, type GroupSettingValue } from '../model.ts';
import { GroupSettingSelect, permissionConfigs } from './GroupSetting.tsx';
import { isAdministrator, setRealm } from './Organization.tsx';
import { useAction } from './request.tsx';

/** The organization group settings offered here, with what they let people do. */
const GROUP_SETTINGS: Array<[string, string]> = [
  // Joining.
  ['can_invite_users_group', 'Who can invite people'],
  ['create_multiuse_invite_group', 'Who can create reusable invitation links'],
  ['can_access_all_users_group', 'Who can view all other users in the organization'],
  // Channels.
  ['can_create_public_channel_group', 'Who can create public channels'],
  ['can_create_private_channel_group', 'Who can create private channels'],
  ['can_create_web_public_channel_group', 'Who can create web-public channels'],
  ['can_add_subscribers_group', 'Who can subscribe others to channels'],
  ['can_set_topics_policy_group', 'Who can set the topics policy for channels'],
  // Messages.
  ['can_mention_many_users_group', 'Who can notify a large number of users with a wildcard mention'],
  ['direct_message_permission_group', 'Who can authorize a direct message conversation'],
  ['direct_message_initiator_group', 'Who can start a direct message conversation'],
  ['can_move_messages_between_topics_group', 'Who can move messages to another topic'],
  ['can_move_messages_between_channels_group', 'Who can move messages to another channel'],
  ['can_resolve_topics_group', 'Who can resolve topics'],
  ['can_delete_any_message_group', 'Who can delete any message'],
  ['can_delete_own_message_group', 'Who can delete their own messages'],
  ['can_set_delete_message_policy_group', 'Who can allow users to delete messages in channels they administer'],
  // Groups, emoji, bots.
  ['can_create_groups', 'Who can create user groups'],
  ['can_manage_all_groups', 'Who can administer all user groups'],
  ['can_add_custom_emoji_group', 'Who can add custom emoji'],
  ['can_create_bots_group', 'Who can create any bot'],
  ['can_create_write_only_bots_group', 'Who can create bots that send messages into the organization'],
];

/** Settings only owners may change (as Zulip's server decides; it does not say so in /register). */
const OWNER_ONLY = new Set([
  'can_invite_users_group',
  'create_multiuse_invite_group',
  'can_create_groups',
  'can_manage_all_groups',
  'invite_required',
  'waiting_period_threshold',
  'emails_restricted_to_domains',
  'disallow_disposable_email_addresses',
  'realm_domains',
]);

/**
 * Who may do what in the organization: its group settings (each a system
 * group, one of its user groups, or an anonymous group made elsewhere,
 * shown as "Custom"), whether joining needs an invitation, the waiting period
 * before new members become full members, whether guests' names say so,
 * and message editing. Everyone
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
  const topics = useAction();
  const who = useAction();
  const guests = useAction();

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
      <RealmCheck
        property="emails_restricted_to_domains"
        checked={!!model.realm.realm_emails_restricted_to_domains}
        disabled={!mayChange('emails_restricted_to_domains')}
        run={(change) => void joining.run(change, 'Saved.')}
      >
        Only email addresses in the organization's domains (below) can join
      </RealmCheck>
      <RealmCheck
        property="disallow_disposable_email_addresses"
        checked={!!model.realm.realm_disallow_disposable_email_addresses}
        disabled={!mayChange('disallow_disposable_email_addresses')}
        run={(change) => void joining.run(change, 'Saved.')}
      >
        Disposable email addresses cannot join
      </RealmCheck>
      <RealmDomains canChange={mayChange('realm_domains')} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const days = Number(waiting);
          const typed = typedWaiting;
          void joining.run(async () => {
            await setRealm('waiting_period_threshold', days);
            // Back to the organization's value, unless something else was typed meanwhile.
            setWaiting((now) => (now === typed ? null : now));
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
      <h3>Guests</h3>
      <RealmCheck
        property="enable_guest_user_indicator"
        checked={model.realm.realm_enable_guest_user_indicator !== false}
        disabled={!mayChange('enable_guest_user_indicator')}
        run={(change) => void guests.run(change, 'Saved.')}
      >
        Show "(guest)" after guests' names
      </RealmCheck>
      <RealmCheck
        property="enable_guest_user_dm_warning"
        checked={model.realm.realm_enable_guest_user_dm_warning !== false}
        disabled={!mayChange('enable_guest_user_dm_warning')}
        run={(change) => void guests.run(change, 'Saved.')}
      >
        Warn when a direct message is being written to a guest
      </RealmCheck>
      {guests.view}
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
          const typed = typedLimit;
          void editing.run(async () => {
            await setRealm('message_content_edit_limit_seconds', seconds, seconds ?? 'unlimited');
            // Back to the organization's value, unless something else was typed meanwhile.
            setLimit((now) => (now === typed ? null : now));
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
      <h3>Topics</h3>
      <label for="perm-topics">Channel messages without a topic</label>
      <select
        id="perm-topics"
        value={String(model.realm.realm_topics_policy ?? 'allow_empty_topic')}
        disabled={!admin}
        onChange={(e) => {
          const value = e.currentTarget.value;
          void topics.run(() => setRealm('topics_policy', value), 'Saved.');
        }}
      >
        <option value="allow_empty_topic">Allowed (shown as “{model.generalChatName()}”)</option>
        <option value="disable_empty_topic">Not allowed: every channel message needs a topic</option>
      </select>
      {topics.view}
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

/**
 * The organization's email domains (realm_domains): each with whether its
 * subdomains count, changed or removed there, and a new one added. Owners
 * change them; everyone sees them.
 */
function RealmDomains({ canChange }: { canChange: boolean }) {
  const [domain, setDomain] = useState('');
  const [subdomains, setSubdomains] = useState(false);
  const change = useAction();
  const path = (d: string) => `/realm/domains/${encodeURIComponent(d)}`;
  return (
    <div class="settings-group" role="group" aria-label="Email domains">
      <span class="group-label">Email domains</span>
      {model.realmDomains.length === 0 ? (
        <p class="muted-text">None yet.</p>
      ) : (
        <ul class="domain-list" aria-label="Email domains">
          {model.realmDomains.map((d) => (
            <li key={d.domain}>
              <strong>{d.domain}</strong>
              <label class="check">
                <input
                  type="checkbox"
                  checked={d.allow_subdomains}
                  disabled={!canChange || change.busy}
                  onChange={(e) => {
                    const allow = e.currentTarget.checked;
                    // Shown at once; the realm_domains event confirms it.
                    void change.run(() => model.tentatively(d, 'allow_subdomains', allow, () => api('PATCH', path(d.domain), { allow_subdomains: allow })), 'Saved.');
                  }}
                />
                and its subdomains
              </label>
              {canChange && (
                <button type="button" class="btn small" aria-label={`Remove ${d.domain}`} disabled={change.busy} onClick={() => void change.run(() => api('DELETE', path(d.domain)), 'Removed.')}>
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {canChange && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void change.run(async () => {
              await api('POST', '/realm/domains', { domain: domain.trim(), allow_subdomains: subdomains });
              setDomain('');
              setSubdomains(false);
            }, 'Added.');
          }}
        >
          <label for="perm-domain">New domain</label>
          <div class="row">
            <input id="perm-domain" type="text" placeholder="example.com" value={domain} required onInput={(e) => setDomain(e.currentTarget.value)} />
            <button type="submit" class="btn" disabled={change.busy}>
              Add domain
            </button>
          </div>
          <label class="check">
            <input type="checkbox" checked={subdomains} onChange={(e) => setSubdomains(e.currentTarget.checked)} />
            Its subdomains too
          </label>
        </form>
      )}
      {change.view}
    </div>
  );
}
