import { useRef, useState } from 'preact/hooks';
import { api, apiWithFile } from '../api.ts';
import { model, type User } from '../model.ts';
import { isAdministrator } from './Organization.tsx';
import { BotKey, ManageBot } from './ManageBot.tsx';
import { Avatar } from './Avatar.tsx';
import { IntegrationUrl } from './IntegrationUrl.tsx';
import { ErrorLine, useAction, useRequest } from './request.tsx';

/** Zulip's bot types that a person creates. */
const BOT_TYPES: Array<[number, string]> = [
  [1, 'Generic bot'],
  [2, 'Incoming webhook'],
  [3, 'Outgoing webhook'],
];


/**
 * The bots one may manage (one's own; every bot for administrators: the IDs
 * in realm_bots, with the name, address and state of each bot's user
 * object, as Zulip's clients read them since feature level 474), each with
 * its avatar (and its owner, when not oneself): create one
 * (POST /bots, with an avatar image if one is chosen), manage one (its
 * "Manage bot" dialog, as from its card; an incoming webhook's integration
 * URL straight from the list, as Zulip's), show its API key (GET
 * /bots/{id}/api_key) and download its zuliprc, deactivate it (DELETE
 * /bots/{id}); administrators also reactivate
 * (POST /users/{id}/reactivate). The form offers the bots the
 * organization lets the user create (none: no form); the server decides,
 * and says why not.
 */
export function Bots() {
  const [name, setName] = useState('');
  const [shortName, setShortName] = useState('');
  const [type, setType] = useState(1);
  const [payloadUrl, setPayloadUrl] = useState('');
  const [keys, setKeys] = useState<Record<number, string>>({});
  const [managing, setManaging] = useState<number | null>(null);
  const [generating, setGenerating] = useState<number | null>(null);
  const avatarInput = useRef<HTMLInputElement>(null);
  const create = useAction();
  const change = useRequest();
  const admin = isAdministrator(model.me);
  // Which bots the user may create (Zulip's can_create_bots_group: any; can_create_write_only_bots_group: incoming webhooks), kept current by the realm events.
  const types = model.mayRealm('can_create_bots_group') ? BOT_TYPES : model.mayRealm('can_create_write_only_bots_group') ? BOT_TYPES.filter(([value]) => value === 2) : [];
  const botType = types.some(([value]) => value === type) ? type : (types[0]?.[0] ?? type);
  const bots = [...model.botIds]
    .map((id) => model.users.get(id))
    .filter((u): u is User => !!u)
    .sort((a, b) => Number(b.is_active) - Number(a.is_active) || a.full_name.localeCompare(b.full_name));
  const showKey = (id: number) =>
    void change.run(async () => {
      const r = await api('GET', `/bots/${id}/api_key`);
      setKeys((k) => ({ ...k, [id]: r.api_key as string }));
    });

  return (
    <section aria-labelledby="bots-title">
      <h2 id="bots-title">Bots</h2>
      {types.length > 0 && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void create.run(async () => {
              const params = {
                full_name: name.trim(),
                short_name: shortName.trim(),
                bot_type: botType,
                ...(botType === 3 ? { payload_url: JSON.stringify(payloadUrl.trim()) } : {}),
              };
              const avatar = avatarInput.current?.files?.[0];
              await (avatar ? apiWithFile('POST', '/bots', params, avatar) : api('POST', '/bots', params));
              if (avatarInput.current) avatarInput.current.value = '';
              setName('');
              setShortName('');
              setPayloadUrl('');
            }, 'Bot created.');
          }}
        >
          <label for="bot-name">Bot name</label>
          <input id="bot-name" type="text" value={name} required onInput={(e) => setName(e.currentTarget.value)} />
          <label for="bot-short-name">Bot email (before -bot@{model.realm.realm_bot_domain ?? ''})</label>
          <input id="bot-short-name" type="text" value={shortName} required onInput={(e) => setShortName(e.currentTarget.value)} />
          <label for="bot-type">Bot type</label>
          <select id="bot-type" value={String(botType)} onChange={(e) => setType(Number(e.currentTarget.value))}>
            {types.map(([value, label]) => (
              <option key={value} value={String(value)}>
                {label}
              </option>
            ))}
          </select>
          {botType === 3 && (
            <>
              <label for="bot-payload-url">Endpoint URL</label>
              <input id="bot-payload-url" type="url" value={payloadUrl} required onInput={(e) => setPayloadUrl(e.currentTarget.value)} />
            </>
          )}
          <label for="bot-avatar">Avatar (optional)</label>
          <input id="bot-avatar" ref={avatarInput} type="file" accept="image/*" />
          <button type="submit" class="btn primary" disabled={create.busy}>
            Create bot
          </button>
          {create.view}
        </form>
      )}
      <ErrorLine error={change.error} />
      <ul class="bot-list" aria-label="Your bots">
        {bots.map((b) => {
          const key = keys[b.user_id];
          return (
            <li key={b.user_id} aria-label={b.full_name} class={b.is_active ? '' : 'deactivated'}>
              <span class="org-person bot-person">
                <Avatar userId={b.user_id} name={b.full_name} size="small" />
                <span>
                  {b.full_name} <span class="muted-text">{b.email}</span>
                  {/* (An administrator's list holds others' bots too.) */}
                  {b.bot_owner_id && b.bot_owner_id !== model.me.user_id && <span class="muted-text"> · owned by {model.userName(b.bot_owner_id)}</span>}
                </span>
              </span>
              <span class="bot-key">
                {key === undefined ? (
                  <button type="button" class="btn" disabled={change.busy} onClick={() => showKey(b.user_id)}>
                    Show API key of {b.full_name}
                  </button>
                ) : (
                  <BotKey bot={b} apiKey={key} />
                )}
              </span>
              <span class="bot-actions">
                <button type="button" class="btn" onClick={() => setManaging(b.user_id)}>
                  Manage {b.full_name}
                </button>
                {b.is_active && b.bot_type === 2 && (
                  <button type="button" class="btn" aria-label={`Generate URL for an integration for ${b.full_name}`} onClick={() => setGenerating(b.user_id)}>
                    Generate URL
                  </button>
                )}
                {b.is_active ? (
                  <button type="button" class="btn" disabled={change.busy} onClick={() => void change.run(() => api('DELETE', `/bots/${b.user_id}`))}>
                    Deactivate {b.full_name}
                  </button>
                ) : (
                  admin && (
                    <button type="button" class="btn" disabled={change.busy} onClick={() => void change.run(() => api('POST', `/users/${b.user_id}/reactivate`))}>
                      Reactivate {b.full_name}
                    </button>
                  )
                )}
              </span>
            </li>
          );
        })}
      </ul>
      {managing !== null && <ManageBot userId={managing} onClose={() => setManaging(null)} />}
      {generating !== null && <IntegrationUrl botId={generating} onClose={() => setGenerating(null)} />}
    </section>
  );
}

