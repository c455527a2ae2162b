/**
 * The live connection: register an event queue, long-poll it, and when the
 * queue is gone (BAD_EVENT_QUEUE_ID after a restart or expiry) or the server
 * was unreachable, register again and refetch — no page reload, nothing lost.
 */
import { api, ApiError, NetworkError } from './api.ts';
import { model } from './model.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let queueId: string | null = null;
let lastEventId = -1;
let stopped = false;
let abort: AbortController | null = null;

function setConn(state: typeof model.conn, error: string | null = null): void {
  if (model.conn === state && model.connError === error) return;
  model.conn = state;
  model.connError = error;
  model.changed();
}

async function register(): Promise<void> {
  const r = await api('POST', '/register', {
    apply_markdown: true,
    client_gravatar: false,
    slim_presence: true,
    include_subscribers: false,
    client_capabilities: {
      notification_settings_null: true,
      bulk_message_deletion: true,
      user_avatar_url_field_optional: false,
      stream_typing_notifications: true,
      user_settings_object: true,
      simplified_presence_events: true,
      include_deactivated_groups: true,
      // realm_linkifiers come only to clients that read URL templates (Settings lists them).
      linkifier_url_template: true,
      // Archived channels stay known (their names in messages and searches), marked is_archived, as Zulip's web app asks.
      archived_channels: true,
    },
  });
  queueId = r.queue_id;
  lastEventId = r.last_event_id;
  model.loadRegister(r);
}

/** Runs until stop(): one registration, then polling; repeats on queue loss. */
export async function run(onFirstRegister: () => void): Promise<void> {
  let first = true;
  let backoff = 500;
  while (!stopped) {
    try {
      await register();
      if (first) {
        first = false;
        onFirstRegister();
      } else {
        // Anything that happened while the queue was gone: fetch it again.
        await model.refreshAfterReconnect();
        for (const id of model.topics.keys()) void model.loadTopics(id);
        for (const r of model.recentScopes()) if (r.messages) void r.load();
      }
      setConn('live');
      // A spectator gets no event queue (as from Zulip): it sees the channels as they were when it loaded them.
      if (model.spectator) return;
      backoff = 500;
      await poll();
    } catch (err) {
      if (stopped) return;
      if (err instanceof ApiError && err.status === 401) return;
      setConn('reconnecting', err instanceof ApiError ? err.message : null);
      await sleep(err instanceof ApiError && err.retryAfter ? err.retryAfter * 1000 : backoff);
      backoff = Math.min(backoff * 2, 10_000);
    }
  }
}

async function poll(): Promise<void> {
  let backoff = 500;
  while (!stopped) {
    abort = new AbortController();
    let r: Record<string, any>;
    try {
      r = await api('GET', '/events', { queue_id: queueId!, last_event_id: lastEventId }, { signal: abort.signal });
    } catch (err) {
      if (stopped) return;
      if (err instanceof ApiError && err.code === 'BAD_EVENT_QUEUE_ID') {
        setConn('reconnecting');
        return; // register again
      }
      if (err instanceof ApiError && err.status === 401) throw err;
      setConn('reconnecting', err instanceof NetworkError ? null : (err as Error).message);
      await sleep(err instanceof ApiError && err.retryAfter ? err.retryAfter * 1000 : backoff);
      backoff = Math.min(backoff * 2, 10_000);
      continue;
    }
    backoff = 500;
    setConn('live');
    for (const ev of r.events as Record<string, any>[]) {
      if (typeof ev.id === 'number' && ev.id > lastEventId) lastEventId = ev.id;
      try {
        model.apply(ev);
      } catch (e) {
        console.error('event', ev, e);
      }
    }
  }
}

export function stop(): void {
  stopped = true;
  abort?.abort();
  if (queueId) void api('DELETE', '/events', { queue_id: queueId }).catch(() => {});
}

// ------------------------------------------------------------------ presence

let lastInput = Date.now();
for (const t of ['mousemove', 'keydown', 'pointerdown', 'focus']) addEventListener(t, () => (lastInput = Date.now()), { passive: true });

async function sendPresence(newUserInput: boolean): Promise<void> {
  const active = document.visibilityState === 'visible' && Date.now() - lastInput < 5 * 60_000;
  try {
    // Only the presence changed since the last answer (or /register) comes back.
    const r = await api('POST', '/users/me/presence', {
      status: active ? 'active' : 'idle',
      new_user_input: newUserInput,
      last_update_id: model.presenceLastUpdateId,
      slim_presence: true,
    });
    if (r.presences) {
      model.loadPresences(r.presences);
      model.changed();
    }
    if (typeof r.presence_last_update_id === 'number' && r.presence_last_update_id > model.presenceLastUpdateId) model.presenceLastUpdateId = r.presence_last_update_id;
    if (typeof r.server_timestamp === 'number') model.serverTimeOffset = r.server_timestamp - Date.now() / 1000;
  } catch {
    // Next beat.
  }
}

export function startPresence(): void {
  void sendPresence(true);
  setInterval(() => void sendPresence(Date.now() - lastInput < 60_000), 50_000);
  // Refresh the idle/offline display as time passes.
  setInterval(() => model.changed(), 30_000);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') void sendPresence(true);
  });
}
