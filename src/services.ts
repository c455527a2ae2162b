/** The long-lived parts of a running server, handed to routes and actions. */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Store } from './store/db.ts';
import type { EventBus } from './events/bus.ts';
import type { QueueManager } from './events/queue.ts';

export interface Services {
  config: Config;
  store: Store;
  queues: QueueManager;
  bus: EventBus;
  log: FastifyBaseLogger;
  /** The organization this server hosts. */
  realmId: number;
}
