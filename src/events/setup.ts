/**
 * Chooses the event system from the configuration: in-process queues and
 * bus by default, or queues in Redis with a batching bus when REDIS_URL is
 * set (every process then serves every queue).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import { openRedis, type RedisLink } from '../lib/redis.ts';
import { BatchingBus, LocalBus, type EventBus } from './bus.ts';
import { LocalQueues, type EventQueues } from './queue.ts';
import { RedisQueues } from './redis-queues.ts';
import type { ZulipEvent } from './types.ts';

export interface EventSystem {
  queues: EventQueues;
  bus: EventBus;
  redis?: RedisLink;
  /** Makes event delivery wait for `gate` first (BatchingBus.deliverAfter); one process has nothing to wait for. */
  deliverAfter(gate: () => Promise<void>): void;
  /** Stops the queues (answering waiting polls), delivers what is pending, closes connections. */
  close(): Promise<void>;
}

export async function openEventSystem(config: Config, log: FastifyBaseLogger): Promise<EventSystem> {
  if (!config.redisUrl) {
    const queues = new LocalQueues();
    const bus = new LocalBus(queues);
    return { queues, bus, deliverAfter: () => {}, close: () => queues.close() };
  }
  const redis = await openRedis(config.redisUrl, config.redisPrefix, (err, connection) =>
    log.warn({ err, connection }, 'Redis connection lost (reconnecting)'),
  );
  const queues = await RedisQueues.open(redis);
  // Watched events (cache invalidation) go to every process over one channel: "<node id>\n<JSON list>".
  const channel = `${redis.prefix}watched`;
  const bus = new BatchingBus(queues, log, {
    publish: (events) => redis.cmd.publish(channel, `${redis.nodeId}\n${JSON.stringify(events)}`),
  });
  const sub = redis.subscriber();
  sub.on('message', (ch: string, message: string) => {
    if (ch !== channel) return;
    const nl = message.indexOf('\n');
    if (message.slice(0, nl) === redis.nodeId) return;
    for (const event of JSON.parse(message.slice(nl + 1)) as ZulipEvent[]) {
      try {
        bus.received(event);
      } catch (err) {
        log.error({ err, type: event.type }, 'event watcher failed');
      }
    }
  });
  await sub.subscribe(channel);
  return {
    queues,
    bus,
    redis,
    deliverAfter: (gate) => bus.deliverAfter(gate),
    async close() {
      await queues.close();
      await bus.close();
      await redis.close();
    },
  };
}
