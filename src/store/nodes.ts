/**
 * The node table (PostgreSQL): every server process registers itself and
 * beats every few seconds; a row whose beat is older than NODE_STALE_MS is a
 * dead process. A process without REDIS_URL must be alone on its database
 * (its event queues and presence are in its memory), so it refuses to start
 * beside a live node, and a node with REDIS_URL refuses to start beside one
 * without.
 */
import { hostname } from 'node:os';
import type { Store } from './db.ts';
import { withClusterLock } from './locks.ts';

export const NODE_HEARTBEAT_MS = 5_000;
export const NODE_STALE_MS = 15_000;

export class NodeConflictError extends Error {}

export interface NodeRegistration {
  id: string;
  stop(): Promise<void>;
}

const describe = (n: { host: string; pid: number }): string => `pid ${n.pid} on ${n.host}`;

export async function registerNode(store: Store, id: string, hasRedis: boolean): Promise<NodeRegistration> {
  const db = store.db;
  await withClusterLock(store, 'node-registration', { wait: true }, async () => {
    const now = Date.now();
    await db.deleteFrom('cluster_nodes').where('heartbeat_at', '<', now - NODE_STALE_MS).execute();
    const live = await db.selectFrom('cluster_nodes').selectAll().execute();
    const other = live.find((n) => !hasRedis || !n.has_redis);
    if (other && !hasRedis) {
      throw new NodeConflictError(
        `Another Parley process (${describe(other)}) is serving this PostgreSQL database. Several processes need REDIS_URL ` +
          `(set it on every process; see "Running several processes" in README.md). If that process has stopped, start again in ${NODE_STALE_MS / 1000} s.`,
      );
    }
    if (other) {
      throw new NodeConflictError(
        `A Parley process without REDIS_URL (${describe(other)}) is serving this PostgreSQL database. Stop it, or restart it with REDIS_URL, before starting more processes.`,
      );
    }
    await db
      .insertInto('cluster_nodes')
      .values({ id, host: hostname(), pid: process.pid, has_redis: hasRedis ? 1 : 0, started_at: now, heartbeat_at: now })
      .execute();
  });
  const timer = setInterval(() => {
    void db.updateTable('cluster_nodes').set({ heartbeat_at: Date.now() }).where('id', '=', id).execute().catch(() => {});
  }, NODE_HEARTBEAT_MS);
  timer.unref();
  return {
    id,
    async stop() {
      clearInterval(timer);
      await db.deleteFrom('cluster_nodes').where('id', '=', id).execute();
    },
  };
}
