/**
 * Fixed-window rate limits keyed by a string, through rate-limiter-flexible:
 * counters in this process's memory (one process), or in Redis when the
 * deployment has one, so every process counts against the same limit.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisLink } from './redis.ts';
import { rateLimited } from './errors.ts';

export class RateLimit {
  private readonly limiter: RateLimiterAbstract | null;
  private readonly limit: number;

  /** `name` keeps the counters of different limits apart; a limit of 0 disables. */
  constructor(redis: RedisLink | undefined, name: string, limit: number, windowSeconds: number) {
    this.limit = limit;
    const opts = { points: limit, duration: windowSeconds, keyPrefix: `${redis?.prefix ?? ''}rl:${name}` };
    this.limiter = limit <= 0 ? null : redis ? new RateLimiterRedis({ ...opts, storeClient: redis.cmd }) : new RateLimiterMemory(opts);
  }

  /** Seconds to wait if the key is over its limit, else 0 (counts nothing). */
  async blockedFor(key: string): Promise<number> {
    if (!this.limiter) return 0;
    const res = await this.limiter.get(key);
    return res && res.consumedPoints >= this.limit ? Math.max(res.msBeforeNext, 1) / 1000 : 0;
  }

  /** Counts one hit. */
  async hit(key: string): Promise<void> {
    await this.limiter?.consume(key).catch((e: unknown) => {
      if (!(e instanceof RateLimiterRes)) throw e;
    });
  }

  /** Counts a hit and throws RATE_LIMIT_HIT when over the limit. */
  async check(key: string): Promise<void> {
    if (!this.limiter) return;
    try {
      await this.limiter.consume(key);
    } catch (e) {
      if (e instanceof RateLimiterRes) throw rateLimited(Math.max(e.msBeforeNext, 1) / 1000);
      throw e;
    }
  }
}
