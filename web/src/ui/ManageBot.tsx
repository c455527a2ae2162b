import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, apiWithFile } from '../api.ts';
import { model, type User } from '../model.ts';
import { zuliprc } from '../util.ts';
import { Avatar } from './Avatar.tsx';
import { Dialog } from './Dialog.tsx';
import { isAdministrator, RoleOptions } from './Organization.tsx';
import { Deactivation } from './ManageUser.tsx';
import { IntegrationUrl } from './IntegrationUrl.tsx';
import { FormButtons, useRequest } from './request.tsx';

/** Zulip's bot types of an incoming and an outgoing webhook. */
const INCOMING_WEBHOOK = 2;
const OUTGOING_WEBHOOK = 3;

/** Zulip's outgoing webhook message formats (a service's interface). */
const WEBHOOK_FORMATS: Array<[number, string]> = [
  [1, 'Zulip'],
  [2, 'Slack compatible'],
];

/** Whether the user may manage a bot from its card: its owner and administrators (as Zulip's), not a bot without an owner (the organization's own, such as Notification Bot). */
export function mayManageBot(botId: number): boolean {
  const b = model.users.get(botId);
  if (!b?.is_bot || !b.bot_owner_id) return false;
  return b.bot_owner_id === model.me.user_id || isAdministrator(model.me);
}

/**
 * "Manage bot" (from a bot's card or Settings' bots, for its owner and
 * administrators, as Zulip's): its name, its role (administrators), its
 * owner (an active person of the organization), its avatar (an image
 * file, sent with the rest as multipart form data) and, for an outgoing
 * webhook, its endpoint and message format, saved together in one
 * PATCH /bots/{id} (only what changed is sent); for an incoming webhook,
 * "Generate URL for an integration" (IntegrationUrl); for its owner, its API
 * key and zuliprc (as Zulip's "Zuliprc configuration"); its
 * deactivation, after a question (DELETE /bots/{id}); or, for
 * administrators, its reactivation. The server decides who may do what and
 * says why not, shown in the dialog; the realm_user and realm_bot events
 * bring each change to every view. A change saved or a deactivation done
 * closes the dialog.
 */
export function ManageBot({ userId, onClose }: { userId: number; onClose(): void }) {
  const b = model.users.get(userId);
  // What is typed or chosen; null until then, so a change made elsewhere meanwhile shows and is not sent back.
  const [typedName, setName] = useState<string | null>(null);
  const [chosenOwner, setOwner] = useState<number | null>(null);
  const [typedUrl, setUrl] = useState<string | null>(null);
  const [chosenFormat, setFormat] = useState<number | null>(null);
  const [chosenRole, setRole] = useState<number | null>(null);
  const [avatarFile, setAvatarFile] = useState<File | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [generating, setGenerating] = useState(false);
  const [apiKey, setApiKey] = useState<string | null>(null);
  const req = useRequest();
  const first = useRef<HTMLInputElement & HTMLButtonElement>(null);
  // It takes the card's place: the focus goes to its first field (the name, or Reactivate).
  useLayoutEffect(() => first.current?.focus(), []);
  if (!b) return null;
  const name = typedName ?? b.full_name;
  const owner = chosenOwner ?? b.bot_owner_id ?? null;
  const role = chosenRole ?? b.role;
  const admin = isAdministrator(model.me);
  // An outgoing webhook's endpoint and message format (its one service).
  const service = b.bot_type === OUTGOING_WEBHOOK ? model.botSettings.get(b.user_id)?.services?.[0] : undefined;
  const url = typedUrl ?? service?.base_url ?? '';
  const format = chosenFormat ?? service?.interface ?? 1;
  // Those who may own it: the active people (the owner it has, whoever that is, stays offered).
  const people = [...model.users.values()]
    .filter((u) => !u.is_bot && (u.is_active || u.user_id === b.bot_owner_id))
    .sort((x, y) => x.full_name.localeCompare(y.full_name));
  const act = (fn: () => Promise<unknown>) => void req.run(fn).then((ok) => ok && onClose());
  return (
    <Dialog id="manage-bot-title" title="Manage bot" onClose={onClose}>
      <p>
        <strong>{b.full_name}</strong> <span class="muted-text">{b.email}</span>
      </p>
      <p class="muted-text">User ID: {b.user_id}</p>
      {b.is_active ? (
        <form
          aria-label={`Manage ${b.full_name}`}
          onSubmit={(e) => {
            e.preventDefault();
            const changes: Record<string, unknown> = {};
            if (name.trim() !== b.full_name) changes.full_name = name.trim();
            if (owner !== null && owner !== b.bot_owner_id) changes.bot_owner_id = owner;
            if (role !== b.role) changes.role = role;
            // (The format is sent with the endpoint, as the server reads it.)
            if (service && (url.trim() !== service.base_url || format !== service.interface)) {
              changes.service_payload_url = JSON.stringify(url.trim());
              changes.service_interface = format;
            }
            if (avatarFile) act(() => apiWithFile('PATCH', `/bots/${b.user_id}`, changes, avatarFile));
            else if (Object.keys(changes).length === 0) onClose();
            else act(() => api('PATCH', `/bots/${b.user_id}`, changes));
          }}
        >
          <label for="manage-bot-name">Name</label>
          <input id="manage-bot-name" ref={first} type="text" value={name} required maxLength={60} onInput={(e) => setName(e.currentTarget.value)} />
          {admin && (
            <>
              <label for="manage-bot-role">Role</label>
              <select id="manage-bot-role" value={String(role)} onChange={(e) => setRole(Number(e.currentTarget.value))}>
                <RoleOptions of={b} />
              </select>
            </>
          )}
          <label for="manage-bot-owner">Bot owner</label>
          <select id="manage-bot-owner" value={String(owner ?? '')} onChange={(e) => setOwner(Number(e.currentTarget.value))}>
            {people.map((u) => (
              <option key={u.user_id} value={String(u.user_id)}>
                {u.full_name}
              </option>
            ))}
          </select>
          {service && (
            <>
              <label for="manage-bot-url">Endpoint URL</label>
              <input id="manage-bot-url" type="url" value={url} required onInput={(e) => setUrl(e.currentTarget.value)} />
              <label for="manage-bot-format">Outgoing webhook message format</label>
              <select id="manage-bot-format" value={String(format)} onChange={(e) => setFormat(Number(e.currentTarget.value))}>
                {WEBHOOK_FORMATS.map(([value, label]) => (
                  <option key={value} value={String(value)}>
                    {label}
                  </option>
                ))}
              </select>
            </>
          )}
          <label for="manage-bot-avatar">Avatar</label>
          <div class="row avatar-row">
            <Avatar userId={b.user_id} name={b.full_name} size="large" />
            <input id="manage-bot-avatar" type="file" accept="image/*" onChange={(e) => setAvatarFile(e.currentTarget.files?.[0] ?? null)} />
          </div>
          <FormButtons submit="Save changes" disabled={req.busy} error={confirming ? null : req.error} onCancel={onClose} />
        </form>
      ) : (
        <p>This bot is deactivated.</p>
      )}
      {b.is_active && b.bot_type === INCOMING_WEBHOOK && (
        <div class="group-actions">
          <button type="button" class="btn" onClick={() => setGenerating(true)}>
            Generate URL for an integration
          </button>
        </div>
      )}
      {b.is_active && b.bot_owner_id === model.me.user_id && (
        <div class="settings-group">
          <span class="group-label">Zuliprc configuration</span>
          <p class="bot-key">
            {apiKey === null ? (
              <button type="button" class="btn" disabled={req.busy} onClick={() => void req.run(async () => setApiKey((await api('GET', `/bots/${b.user_id}/api_key`)).api_key as string))}>
                Show API key of {b.full_name}
              </button>
            ) : (
              <BotKey bot={b} apiKey={apiKey} />
            )}
          </p>
        </div>
      )}
      {generating && <IntegrationUrl botId={b.user_id} onClose={() => setGenerating(false)} />}
      <Deactivation
        kind="bot"
        name={b.full_name}
        active={b.is_active}
        busy={req.busy}
        error={req.error}
        confirming={confirming}
        onConfirming={setConfirming}
        question={`Deactivate ${b.full_name}? It can no longer send messages or use the API.`}
        onDeactivate={() => act(() => api('DELETE', `/bots/${b.user_id}`))}
        onReactivate={isAdministrator(model.me) ? () => act(() => api('POST', `/users/${b.user_id}/reactivate`)) : undefined}
        reactivateRef={first}
      />
    </Dialog>
  );
}

/** A bot's API key, shown, and its zuliprc (the Python bindings' configuration) to download. */
export function BotKey({ bot: b, apiKey }: { bot: User; apiKey: string }) {
  return (
    <>
      API key: <code aria-label={`API key of ${b.full_name}`}>{apiKey}</code>{' '}
      <a href={`data:text/plain;charset=utf-8,${encodeURIComponent(zuliprc(b.email, apiKey))}`} download="zuliprc">
        Download zuliprc
      </a>
    </>
  );
}
