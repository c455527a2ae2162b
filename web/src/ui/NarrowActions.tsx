import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ifChanged } from '../util.ts';
import { model, type MessageList } from '../model.ts';
import { narrowToHash } from '../narrow.ts';
import { Confirm, ErrorLine, useRequest } from './request.tsx';
import { isAdministrator } from './Organization.tsx';
import { PersonalSettings } from './ChannelPersonal.tsx';
import { closeOnEscape } from './Dialog.tsx';
import { mayMove, moveTargets } from './MessageActions.tsx';
import { MoveTopicField } from './Typeahead.tsx';

/** What Zulip puts before a resolved topic's name: a heavy check mark and a space. */
const RESOLVED_PREFIX = '\u2714 ';

/** Whether a topic is resolved (its name starts with Zulip's check mark). */
export const isResolved = (topic: string): boolean => topic.startsWith(RESOLVED_PREFIX);

/** A resolved topic's name without its mark (Zulip drops every leading check mark and space). */
export function unresolvedName(topic: string): string {
  return topic.replace(/^[\u2714 ]+/, '');
}

/** Moves a whole topic by one of its messages (PATCH /messages/{id}, propagate_mode change_all, as Zulip's web app does): a new name, another channel, or both. */
export function moveTopic(messageId: number, change: { topic?: string; stream_id?: number }): Promise<unknown> {
  return api('PATCH', `/messages/${messageId}`, { propagate_mode: 'change_all', ...change });
}

/**
 * The ID of one message of a topic, to move it by: the newest of it in view,
 * or (the view still loading, or showing something else) the newest the
 * server has; null if it has none. (Not the sidebar's topic list: just after
 * a move it can still hold the topic's name with a message moved away.)
 */
export async function messageOfTopic(streamId: number, topic: string): Promise<number | null> {
  const name = topic.toLowerCase();
  const inView = model.list?.messages.findLast((m) => m.type === 'stream' && m.stream_id === streamId && m.subject.toLowerCase() === name);
  if (inView) return inView.id;
  const narrow = [
    { operator: 'channel', operand: streamId },
    { operator: 'topic', operand: topic },
  ];
  const r = await api('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow, apply_markdown: false });
  const newest = (r.messages as Array<{ id: number }>).at(-1);
  return newest ? newest.id : null;
}

/** Marking a topic resolved or unresolved: the action's name, and the topic's name after it (Zulip's check mark added or dropped). */
export function resolveAction(topic: string): { label: string; to: string } {
  return isResolved(topic) ? { label: 'Mark as unresolved', to: unresolvedName(topic) } : { label: 'Mark as resolved', to: RESOLVED_PREFIX + topic };
}

/**
 * Follow or mute the topic in view (POST /user_topics, Zulip's
 * visibility_policy: 3 followed, 1 muted, 0 neither; the buttons follow the
 * user_topic event), or move it to another channel and/or rename it (PATCH
 * /messages/{id} of one of its messages with propagate_mode change_all, as
 * Zulip's web app does; the server says who may), or mark it resolved or
 * unresolved (a rename that adds or drops Zulip's check mark prefix; the
 * server then has Notification Bot say so in the topic). Administrators
 * delete it, once confirmed (POST /streams/{id}/delete_topic, repeated
 * until the server says it is complete).
 */
export function TopicActions({ streamId, topic }: { streamId: number; topic: string }) {
  const { busy, error, setError, run } = useRequest();
  const [moving, setMoving] = useState<{ channel: number; topic: string } | null>(null);
  const policy = model.topicPolicy(streamId, topic);
  const mute = model.topicMuteAction(streamId, topic);
  const channels = moveTargets(streamId);
  /** Moves the whole topic to `to` in `channel`, and the view with it. */
  const moveTo = async (channel: number, to: string) => {
    let none = false;
    await run(async () => {
      const anyMessage = await messageOfTopic(streamId, topic);
      if (anyMessage === null) {
        none = true;
        return;
      }
      await moveTopic(anyMessage, { topic: ifChanged(to, topic), stream_id: ifChanged(channel, streamId) });
      setMoving(null);
      location.hash = narrowToHash([
        { operator: 'channel', operand: channel },
        { operator: 'topic', operand: to },
      ]);
    });
    if (none) setError('This topic has no message to move it by.');
  };
  const move = async (e: Event) => {
    e.preventDefault();
    if (!moving) return;
    const to = moving.topic.trim();
    if (!to || (to === topic && moving.channel === streamId)) {
      setMoving(null);
      return;
    }
    await moveTo(moving.channel, to);
  };
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  /** Every message of the topic deleted (administrators): the server deletes in batches and says whether it is done; then the channel's view. */
  const deleteTopic = () =>
    run(async () => {
      let complete = false;
      while (!complete) complete = !!(await api('POST', `/streams/${streamId}/delete_topic`, { topic_name: topic })).complete;
      setConfirmingDelete(false);
      location.hash = narrowToHash([{ operator: 'channel', operand: streamId }]);
    });
  const resolve = resolveAction(topic);
  const set = (visibility: number) => run(() => api('POST', '/user_topics', { stream_id: streamId, topic, visibility_policy: visibility }));
  return (
    <div class="topic-actions" role="group" aria-label="This topic">
      <button type="button" class="btn" disabled={busy} aria-pressed={policy === 3} onClick={() => void set(policy === 3 ? 0 : 3)}>
        {policy === 3 ? 'Unfollow topic' : 'Follow topic'}
      </button>
      <button type="button" class="btn" disabled={busy} aria-pressed={mute.muted} onClick={() => void set(mute.visibility)}>
        {mute.label}
      </button>
      {/* (Not the general chat, which Zulip does not resolve; for those who may resolve topics here.) */}
      {!model.isGeneralChat(topic) && model.mayResolveIn(streamId) && (
        <button type="button" class="btn" disabled={busy} onClick={() => void moveTo(streamId, resolve.to)}>
          {resolve.label}
        </button>
      )}
      {!mayMove(streamId) ? null : moving === null ? (
        <button type="button" class="btn" disabled={busy} onClick={() => setMoving({ channel: streamId, topic })}>
          Move or rename topic
        </button>
      ) : (
        <form class="topic-rename" onSubmit={(e) => void move(e)} onKeyDown={closeOnEscape(() => setMoving(null))}>
          <select aria-label="Channel" value={String(moving.channel)} onChange={(e) => setMoving({ ...moving, channel: Number(e.currentTarget.value) })}>
            {channels.map((c) => (
              <option key={c.stream_id} value={String(c.stream_id)}>
                #{c.name}
              </option>
            ))}
          </select>
          <MoveTopicField
            aria-label="New topic name"
            listId="rename-topics"
            channel={moving.channel}
            value={moving.topic}
            setValue={(topic) => setMoving({ ...moving, topic })}
            disabled={!model.mayMoveWithin(streamId)}
            maxLength={model.realm.max_topic_length ?? 60}
          />
          <button type="submit" class="btn primary" disabled={busy}>
            Save
          </button>
        </form>
      )}
      {isAdministrator(model.me) &&
        (confirmingDelete ? (
          <Confirm
            label="Delete this topic?"
            text="Delete every message of this topic, for everyone?"
            action="Delete topic"
            busy={busy}
            onConfirm={() => void deleteTopic()}
            onCancel={() => setConfirmingDelete(false)}
          />
        ) : (
          <button type="button" class="btn" disabled={busy} onClick={() => setConfirmingDelete(true)}>
            Delete topic
          </button>
        ))}
      <ErrorLine error={error} inline />
    </div>
  );
}

/**
 * Marks every message of the narrow in view read (see MessageList.markAllRead).
 * With nothing unread (`idle`) the button keeps its place, unseen and out of
 * reach: the actions beside it do not move (nor the row wrap differently)
 * as messages in view are read while the user aims at one of them.
 */
export function MarkAllRead({ list, idle }: { list: MessageList; idle: boolean }) {
  const { busy, error, run } = useRequest();
  return (
    <>
      <button type="button" class={idle ? 'btn keeps-place' : 'btn'} disabled={busy || idle} onClick={() => void run(() => list.markAllRead())}>
        Mark all as read
      </button>
      <ErrorLine error={error} inline />
    </>
  );
}

/** The button that opens one's own settings of the channel in view (PersonalSettings) under the narrow's title. */
export function ChannelPersonalButton({ streamId }: { streamId: number }) {
  const [open, setOpen] = useState(false);
  const name = model.streamName(streamId);
  return (
    <span class="personal-popover-anchor">
      <button type="button" class="btn" aria-expanded={open} aria-label={`${open ? 'Close' : 'Open'} personal settings of #${name}`} onClick={() => setOpen(!open)}>
        Personal settings
      </button>
      {open && (
        <div class="personal-popover" onKeyDown={closeOnEscape(() => setOpen(false))}>
          <PersonalSettings key={streamId} streamId={streamId} />
        </div>
      )}
    </span>
  );
}
