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

export interface EventSystem {
  queues: EventQueues;
  bus: EventBus;
  redis?: RedisLink;
  /** Stops the queues (answering waiting polls), delivers what is pending, closes connections. */
  close(): Promise<void>;
}

export async function openEventSystem(config: Config, log: FastifyBaseLogger): Promise<EventSystem> {
  if (!config.redisUrl) {
    const queues = new LocalQueues();
    const bus = new LocalBus(queues);
    return { queues, bus, close: () => queues.close() };
  }
  const redis = await openRedis(config.redisUrl, config.redisPrefix);
  const queues = await RedisQueues.open(redis);
  const bus = new BatchingBus(queues, log);
  return {
    queues,
    bus,
    redis,
    async close() {
      await queues.close();
      await bus.close();
      await redis.close();
    },
  };
}
