import { useRef, useState } from 'preact/hooks';
import { model, type Message } from '../model.ts';
import { ConfirmLeavePrivate, joinChannel, unsubscribe } from './ChannelPersonal.tsx';
import { ErrorLine, useRequest } from './request.tsx';
import { LOCK } from './Sidebar.tsx';

/**
 * Zulip's trailing bookend, under the newest message of a channel's view:
 * whether the user is in the channel, with Subscribe or Unsubscribe. Shown
 * when they are not in it (and may join it), when they joined after its
 * newest message (that message is "historical" to them), once they join or
 * leave it or it is archived (or unarchived) while it is in view, and for an
 * archived channel. Not shown to someone in the channel otherwise, nor to
 * someone who may not join it.
 */
export function TrailingBookend({ streamId, last }: { streamId: number; last: Message | undefined }) {
  const subscribed = model.subs.has(streamId);
  const channel = model.streams.get(streamId);
  const archived = !channel || !!channel.is_archived;
  // Joined, left, archived or unarchived while the view is open: said until the view is left (Zulip's force_render).
  const atOpen = useRef({ subscribed, archived });
  const changedHere = subscribed !== atOpen.current.subscribed || archived !== atOpen.current.archived;
  const { busy, error, run } = useRequest();
  const [confirming, setConfirming] = useState(false);
  const lastHistorical = last?.flags.includes('historical') ?? false;
  if (channel && !model.mayJoin(streamId)) return null;
  if (subscribed && !lastHistorical && !changedHere) return null;
  const name = (
    <strong>
      {channel?.invite_only ? LOCK : '#'}
      {channel?.name ?? model.streamName(streamId)}
    </strong>
  );
  const status = archived ? (
    'This channel has been archived.'
  ) : subscribed ? (
    <>You subscribed to channel {name}.</>
  ) : !lastHistorical && last !== undefined ? (
    <>You unsubscribed from channel {name}.</>
  ) : (
    <>You are not subscribed to channel {name}.</>
  );
  const leave = () => run(() => unsubscribe(channel!.name));
  return (
    <div class="bookend" role="status">
      <span>{status}</span>
      {!archived &&
        (subscribed ? (
          // As the sidebar's Unsubscribe: a private channel once confirmed.
          <button type="button" class="btn small" disabled={busy} onClick={() => (channel!.invite_only ? setConfirming(true) : void leave())}>
            Unsubscribe
          </button>
        ) : (
          <button type="button" class="btn primary small" disabled={busy} onClick={() => void run(() => joinChannel(channel!.name))}>
            Subscribe
          </button>
        ))}
      {confirming && subscribed && (
        <ConfirmLeavePrivate
          name={channel!.name}
          busy={busy}
          onLeave={() => {
            setConfirming(false);
            void leave();
          }}
          onCancel={() => setConfirming(false)}
        />
      )}
      <ErrorLine error={error} />
    </div>
  );
}
