/** The long-lived parts of a running server, handed to routes and actions. */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Store } from './store/db.ts';
import type { EventBus } from './events/bus.ts';
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
