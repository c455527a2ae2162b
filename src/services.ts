/** The long-lived parts of a running server, handed to routes and actions. */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Store } from './store/db.ts';
import { ChangeFeed } from './store/change-feed.ts';
import type { EventBus } from './events/bus.ts';
import type { EventSystem } from './events/setup.ts';
import type { EventQueues } from './events/queue.ts';
import type { RedisLink } from './lib/redis.ts';
import type { MarkdownRenderer } from './markdown/pool.ts';
import type { Metrics } from './lib/metrics.ts';

export interface Services {
  config: Config;
  store: Store;
  queues: EventQueues;
  bus: EventBus;
  /** The shared Redis of a multi-process deployment (REDIS_URL); absent for one process. */
  redis?: RedisLink;
  log: FastifyBaseLogger;
  /** Message rendering in worker threads, with its time budget. */
  markdown: MarkdownRenderer;
  /** Prometheus metrics, when METRICS_PORT is set. */
  metrics?: Metrics;
  /** The organization this server hosts. */
  realmId: number;
}

/**
 * Several processes (REDIS_URL): this process announces the changes it
 * commits to the others through the change feed, and reads theirs, so that
 * each can keep the organization in memory; its events go out only once the
 * changes they follow are announced. The server and the admin command line
 * both call this once the store and the event system are open.
 */
export function shareChanges(store: Store, events: EventSystem): void {
  if (!events.redis) return;
  store.changes.useFeed(new ChangeFeed(store.changes, events.redis));
  events.deliverAfter(() => store.changes.announced());
}
