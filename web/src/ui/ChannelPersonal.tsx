import { api } from '../api.ts';
import { model } from '../model.ts';
import { Confirm, ErrorLine, useRequest } from './request.tsx';

/** The notification overrides of a subscription, each with its label and the user's global setting it overrides. */
const OVERRIDES = [
  { property: 'desktop_notifications', label: 'Desktop notifications', global: 'enable_stream_desktop_notifications' },
  { property: 'audible_notifications', label: 'Sounds', global: 'enable_stream_audible_notifications' },
  { property: 'push_notifications', label: 'Mobile notifications', global: 'enable_stream_push_notifications' },
  { property: 'email_notifications', label: 'Email notifications', global: 'enable_stream_email_notifications' },
  { property: 'wildcard_mentions_notify', label: 'Notify for @all and @topic mentions', global: 'wildcard_mentions_notify' },
] as const;

/** A color as the color input takes it: `#rrggbb` (the server also keeps `#rgb`). */
function sixDigits(color: string): string {
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(color);
  return (short ? `#${short[1]}${short[1]}${short[2]}${short[2]}${short[3]}${short[3]}` : color).toLowerCase();
}

/** Sets one of one's own settings of a subscribed channel (POST /users/me/subscriptions/properties); the subscription event shows it. */
export function setSubscriptionProperty(streamId: number, property: string, value: unknown): Promise<unknown> {
  return api('POST', '/users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: streamId, property, value }]) });
}

/** Joins a channel (POST /users/me/subscriptions; the subscription events then show it). */
export function joinChannel(name: string): Promise<unknown> {
  return api('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name }]) });
}

/** Leaves a channel (the subscription events then take it out of the sidebar). */
export function unsubscribe(name: string): Promise<unknown> {
  return api('DELETE', '/users/me/subscriptions', { subscriptions: JSON.stringify([name]) });
}

/**
 * The question before leaving a private channel (as Zulip's): joining it
 * again needs someone in it. `onLeave` leaves it.
 */
export function ConfirmLeavePrivate({ name, busy, onLeave, onCancel }: { name: string; busy: boolean; onLeave(): void; onCancel(): void }) {
  return <Confirm label={`Unsubscribe from #${name}?`} text="It is private: only someone in it can add you back." action="Unsubscribe" busy={busy} onConfirm={onLeave} onCancel={onCancel} />;
}

/**
 * One's own settings for a channel one is subscribed to: its color, muted,
 * pinned, and the notification overrides, each "Default" (the user's global
 * setting for channels), "On" or "Off". Each change is one POST
 * /users/me/subscriptions/properties; what is shown is what the server has,
 * from the subscription update events. The server takes only true or false
 * for an override, so "Default" sends the global setting's value.
 */
export function PersonalSettings({ streamId }: { streamId: number }) {
  const { busy, error, run } = useRequest();
  const sub = model.subs.get(streamId);
  if (!sub) return <p class="muted-text">You are not subscribed to this channel.</p>;
  const id = `personal-${streamId}`;
  const set = (property: string, value: unknown) => run(() => setSubscriptionProperty(streamId, property, value));
  const onOff = (on: unknown) => (on === false ? 'Off' : 'On');

  return (
    <div class="group-editor personal-settings" role="group" aria-label={`Personal settings of #${sub.name}`}>
      <label for={`${id}-color`}>Color</label>
      <input id={`${id}-color`} type="color" value={sixDigits(sub.color)} disabled={busy} onChange={(e) => void set('color', e.currentTarget.value)} />
      <label class="check">
        <input type="checkbox" checked={sub.is_muted} disabled={busy} onChange={(e) => void set('is_muted', e.currentTarget.checked)} />
        Muted
      </label>
      <label class="check">
        <input type="checkbox" checked={sub.pin_to_top} disabled={busy} onChange={(e) => void set('pin_to_top', e.currentTarget.checked)} />
        Pinned to the top of the sidebar
      </label>
      {OVERRIDES.map((o) => {
        const value = sub[o.property];
        const globalOn = !!model.settings[o.global];
        return (
          <div class="row" key={o.property}>
            <label for={`${id}-${o.property}`}>{o.label}</label>
            <select
              id={`${id}-${o.property}`}
              value={value === null ? 'default' : value ? 'on' : 'off'}
              disabled={busy}
              onChange={(e) => {
                const chosen = e.currentTarget.value;
                void set(o.property, chosen === 'default' ? globalOn : chosen === 'on');
              }}
            >
              <option value="default">Default ({onOff(globalOn)})</option>
              <option value="on">On</option>
              <option value="off">Off</option>
            </select>
          </div>
        );
      })}
      <ErrorLine error={error} />
    </div>
  );
}
