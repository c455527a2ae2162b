import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model } from '../model.ts';
import { narrowToHash } from '../narrow.ts';
import { LOCK } from './Sidebar.tsx';
import { Dialog } from './Dialog.tsx';
import { ErrorLine, useRequest } from './request.tsx';

interface Channel {
  stream_id: number;
  name: string;
  description?: string;
  invite_only?: boolean;
}

/** The ID of the channel of this name, once the client knows it (at most 10 s). */
function channelNamed(name: string): Promise<number | undefined> {
  const find = () => ([...model.streams.values()] as Channel[]).find((c) => c.name.toLowerCase() === name.toLowerCase())?.stream_id;
  return new Promise((resolve) => {
    const done = (id: number | undefined) => {
      unsubscribe();
      clearTimeout(timer);
      resolve(id);
    };
    const unsubscribe = model.subscribe(() => {
      const id = find();
      if (id !== undefined) done(id);
    });
    const timer = setTimeout(() => done(find()), 10_000);
    const now = find();
    if (now !== undefined) done(now);
  });
}

/**
 * The organization's channels this user can see: join, pin, mute, leave, open; and a
 * form to create one (the creator is subscribed). Everything through
 * /users/me/subscriptions, as Zulip's web app does; the lists follow the
 * server's events.
 */
export function Channels({ onClose }: { onClose(): void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [isPrivate, setPrivate] = useState(false);
  const { busy, error, setError, run } = useRequest();

  const channels = [...model.streams.values()] as Channel[];
  channels.sort((a, b) => a.name.localeCompare(b.name));

  const join = (c: Channel) => run(() => api('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: c.name }]) }));
  const leave = (c: Channel) => run(() => api('DELETE', '/users/me/subscriptions', { subscriptions: JSON.stringify([c.name]) }));
  const setProperty = (c: Channel, property: 'is_muted' | 'pin_to_top', value: boolean) =>
    run(() =>
      api('POST', '/users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: c.stream_id, property, value }]) }),
    );

  /** The button that turns a subscription's property on or off, named for what it does. */
  const toggle = (c: Channel, property: 'is_muted' | 'pin_to_top', [turnOn, turnOff]: [string, string]) => {
    const on = model.subs.get(c.stream_id)![property];
    const label = on ? turnOff : turnOn;
    return (
      <button type="button" class="btn" disabled={busy} aria-label={`${label} #${c.name}`} onClick={() => void setProperty(c, property, !on)}>
        {label}
      </button>
    );
  };

  async function create(e: Event): Promise<void> {
    e.preventDefault();
    const wanted = name.trim();
    if (!wanted) {
      setError('Give the channel a name.');
      return;
    }
    // Subscribing by name would join the existing one instead.
    if (channels.some((c) => c.name.toLowerCase() === wanted.toLowerCase())) {
      setError('A channel with this name already exists.');
      return;
    }
    const made = await run(() =>
      api('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: wanted, description: description.trim() }]), invite_only: isPrivate }),
    );
    if (!made) return;
    setName('');
    setDescription('');
    setPrivate(false);
    // Straight to the new channel, once its event has come in.
    const id = await channelNamed(wanted);
    if (id !== undefined) location.hash = narrowToHash([{ operator: 'channel', operand: id }]);
  }

  return (
    <Dialog id="channels-title" title="Channels" wide="channels-dialog" onClose={onClose}>
      <ErrorLine error={error} />
      <section>
        <h2>All channels</h2>
        <ul class="channel-browser" aria-label="All channels">
          {channels.map((c) => {
            const subscribed = model.subs.has(c.stream_id);
            return (
              <li key={c.stream_id}>
                <div class="channel-info">
                  <a href={narrowToHash([{ operator: 'channel', operand: c.stream_id }])} class="channel-name">
                    {c.invite_only && LOCK}#{c.name}
                  </a>
                  {c.description && <span class="channel-description">{c.description}</span>}
                </div>
                {subscribed ? (
                  <span class="channel-actions">
                    {toggle(c, 'pin_to_top', ['Pin', 'Unpin'])}
                    {toggle(c, 'is_muted', ['Mute', 'Unmute'])}
                    <button type="button" class="btn" disabled={busy} aria-label={`Leave #${c.name}`} onClick={() => void leave(c)}>
                      Leave
                    </button>
                  </span>
                ) : (
                  <button type="button" class="btn primary" disabled={busy} aria-label={`Join #${c.name}`} onClick={() => void join(c)}>
                    Join
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      </section>
      <form onSubmit={(e) => void create(e)}>
        <h2>New channel</h2>
        <label for="new-channel-name">Name</label>
        <input id="new-channel-name" type="text" value={name} maxLength={model.realm.max_stream_name_length ?? 60} onInput={(e) => setName(e.currentTarget.value)} />
        <label for="new-channel-description">Description</label>
        <input
          id="new-channel-description"
          type="text"
          value={description}
          maxLength={model.realm.max_stream_description_length ?? 1024}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
        <label class="check">
          <input type="checkbox" checked={isPrivate} onChange={(e) => setPrivate(e.currentTarget.checked)} />
          Private: only people added to it can see it
        </label>
        <button type="submit" class="btn primary" disabled={busy}>
          Create channel
        </button>
      </form>
    </Dialog>
  );
}
