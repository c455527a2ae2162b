import { useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { model, type MessageList } from '../model.ts';
import { narrowToHash } from '../narrow.ts';

/**
 * Follow or mute the topic in view (POST /user_topics, Zulip's
 * visibility_policy: 3 followed, 1 muted, 0 neither; the buttons follow the
 * user_topic event), or rename it (PATCH /messages/{id} of one of its
 * messages with propagate_mode change_all, as Zulip's web app does; the
 * server says who may).
 */
export function TopicActions({ streamId, topic }: { streamId: number; topic: string }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [renaming, setRenaming] = useState<string | null>(null);
  const policy = model.topicPolicy(streamId, topic);
  const rename = async (e: Event) => {
    e.preventDefault();
    const to = (renaming ?? '').trim();
    const anyMessage = model.list?.messages.at(-1);
    if (!to || to === topic) {
      setRenaming(null);
      return;
    }
    if (!anyMessage) {
      setError('This topic has no message to rename it by.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await api('PATCH', `/messages/${anyMessage.id}`, { topic: to, propagate_mode: 'change_all' });
      setRenaming(null);
      location.hash = narrowToHash([
        { operator: 'channel', operand: streamId },
        { operator: 'topic', operand: to },
      ]);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'The server could not be reached.');
    } finally {
      setBusy(false);
    }
  };
  const set = async (visibility: number) => {
    setBusy(true);
    setError(null);
    try {
      await api('POST', '/user_topics', { stream_id: streamId, topic, visibility_policy: visibility });
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'The server could not be reached.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="topic-actions" role="group" aria-label="This topic">
      <button type="button" class="btn" disabled={busy} aria-pressed={policy === 3} onClick={() => void set(policy === 3 ? 0 : 3)}>
        {policy === 3 ? 'Unfollow topic' : 'Follow topic'}
      </button>
      <button type="button" class="btn" disabled={busy} aria-pressed={policy === 1} onClick={() => void set(policy === 1 ? 0 : 1)}>
        {policy === 1 ? 'Unmute topic' : 'Mute topic'}
      </button>
      {renaming === null ? (
        <button type="button" class="btn" disabled={busy} onClick={() => setRenaming(topic)}>
          Rename topic
        </button>
      ) : (
        <form class="topic-rename" onSubmit={(e) => void rename(e)}>
          <input
            type="text"
            aria-label="New topic name"
            value={renaming}
            maxLength={model.realm.max_topic_length ?? 60}
            onInput={(e) => setRenaming(e.currentTarget.value)}
            onKeyDown={(e) => e.key === 'Escape' && (e.stopPropagation(), setRenaming(null))}
          />
          <button type="submit" class="btn primary" disabled={busy}>
            Save
          </button>
        </form>
      )}
      {error && (
        <span class="form-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

/** Marks every message of the narrow in view read (see MessageList.markAllRead). */
export function MarkAllRead({ list }: { list: MessageList }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <>
      <button
        type="button"
        class="btn"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          setError(null);
          list
            .markAllRead()
            .catch((err: unknown) => setError(err instanceof ApiError ? err.message : 'The server could not be reached.'))
            .finally(() => setBusy(false));
        }}
      >
        Mark all as read
      </button>
      {error && (
        <span class="form-error" role="alert">
          {error}
        </span>
      )}
    </>
  );
}
