import { useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { model, type MessageList } from '../model.ts';

/**
 * Follow or mute the topic in view (POST /user_topics, Zulip's
 * visibility_policy: 3 followed, 1 muted, 0 neither). The buttons follow
 * the user_topic event.
 */
export function TopicActions({ streamId, topic }: { streamId: number; topic: string }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const policy = model.topicPolicy(streamId, topic);
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
