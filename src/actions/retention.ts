/**
 * Message retention: messages older than their retention period are deleted,
 * with Zulip's events (delete_message to those who held them, and a `stream`
 * update of first_message_id), by a periodic job.
 *
 * A channel's period is its own message_retention_days, or the organization's
 * when the channel has none (null); -1 means forever. Direct messages follow
 * the organization's setting.
 *
 * `deleteExpiredMessages` is a plain function; `startRetentionJob` only
 * calls it on a timer. One process at a time runs a pass (a cluster-wide
 * lock; a pass another process is running is skipped).
 */
import { refreshingFirst } from './cache.ts';
import type { Services } from '../services.ts';
import { realmById } from '../store/realm.ts';
import { allStreams } from '../store/streams.ts';
import { expiredMessageIds } from '../store/retention.ts';
import { withClusterLock } from '../store/locks.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { startPeriodicJob } from '../lib/periodic.ts';
import { deleteMessages } from './message-delete.ts';

const RETENTION_LOCK = 'message-retention';
/** Messages deleted per transaction. */
const BATCH = 500;
const DAY = 86400;

/** The effective retention of a channel in days (null: forever). */
export function channelRetentionDays(channelDays: number | null, realmDays: number): number | null {
  const days = channelDays ?? realmDays;
  return days > 0 ? days : null;
}

/** Deletes every message past its retention period as of `now` (UNIX seconds). Returns how many. */
export async function deleteExpiredMessages(svc: Services, now = Date.now() / 1000, opts = { wait: true }): Promise<number> {
  let deleted = 0;
  await withClusterLock(svc.store, RETENTION_LOCK, opts, async () => {
    const db = svc.store.db;
    const realmDays = Number(realmSettings((await realmById(db, svc.realmId)).settings_json).message_retention_days);
    const purge = async (next: () => Promise<number[]>) => {
      for (;;) {
        const ids = await next();
        if (!ids.length) return;
        await deleteMessages(svc, ids);
        deleted += ids.length;
      }
    };
    for (const stream of await allStreams(db, svc.realmId)) {
      const days = channelRetentionDays(stream.message_retention_days, realmDays);
      if (days !== null) await purge(() => expiredMessageIds(db, svc.realmId, stream.id, now - days * DAY, BATCH));
    }
    if (realmDays > 0) await purge(() => expiredMessageIds(db, svc.realmId, null, now - realmDays * DAY, BATCH));
  });
  return deleted;
}

/** The retention timer: a pass every `intervalMs` (hourly by default) and one at start; never keeps the process alive. */
export function startRetentionJob(svc: Services, intervalMs = 3600_000): { stop(): Promise<void> } {
  return startPeriodicJob(svc.log, 'message retention pass', intervalMs, refreshingFirst(svc, () => deleteExpiredMessages(svc, Date.now() / 1000, { wait: false })));
}
