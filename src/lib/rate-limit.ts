/**
 * Fixed-window rate limits keyed by a string, through rate-limiter-flexible:
 * counters in this process's memory (one process), or in Redis when the
 * deployment has one, so every process counts against the same limit.
 */
import { createRequire } from 'node:module';
import type * as Flexible from 'rate-limiter-flexible';
import type { RedisLink } from './redis.ts';
import { rateLimited } from './errors.ts';
import { lazyModule } from './lazy.ts';

// The package's index loads every store it supports (36 modules); only these
// classes are used, each the export of its own file. RateLimiterRes is the
// class the limiters throw (the same file, so instanceof holds).
const require = createRequire(import.meta.url);
const RateLimiterMemory = require('rate-limiter-flexible/lib/RateLimiterMemory.js') as typeof Flexible.RateLimiterMemory;
const RateLimiterRes = require('rate-limiter-flexible/lib/RateLimiterRes.js') as typeof Flexible.RateLimiterRes;
const rateLimiterRedis = lazyModule<typeof Flexible.RateLimiterRedis>('rate-limiter-flexible/lib/RateLimiterRedis.js');

/** What a counted request leaves of its limit: Zulip's X-RateLimit-* headers tell it to the client. */
export interface LimitState {
  limit: number;
  remaining: number;
  /** Milliseconds until the window ends and the full limit is available again. */
  resetsInMs: number;
}

/**
 * Zulip's rate-limit headers: the limit, the requests left, and the time
 * (Unix seconds) at which none of the limit is used any more.
 */
export function rateLimitHeaders(state: LimitState, now = Date.now()): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': String(Math.floor((now + state.resetsInMs) / 1000)),
  };
}

export class RateLimit {
  private readonly limiter: Flexible.RateLimiterAbstract | null;
  private readonly limit: number;
  /** The Redis connection the counters are in, if any (see blockedFor). */
  private readonly redis: RedisLink | null;

  /** `name` keeps the counters of different limits apart; a limit of 0 disables. */
  constructor(redis: RedisLink | undefined, name: string, limit: number, windowSeconds: number) {
    this.limit = limit;
    this.redis = redis ?? null;
    const opts = { points: limit, duration: windowSeconds, keyPrefix: `${redis?.prefix ?? ''}rl:${name}` };
    this.limiter = limit <= 0 ? null : redis ? new (rateLimiterRedis())({ ...opts, storeClient: redis.cmd }) : new RateLimiterMemory(opts);
  }

  /** Seconds to wait if the key is over its limit, else 0 (counts nothing). */
  async blockedFor(key: string): Promise<number> {
    if (!this.limiter) return 0;
    if (this.redis) {
      // Asked before every authentication, so one GET of the counter (the
      // limiter's own get() is a MULTI of GET and PTTL, which cost a process
      // serving GET /users/me about half its throughput); the time left is
      // read only for a key over its limit.
      const rlKey = this.limiter.getKey(key);
      const consumed = await this.redis.cmd.get(rlKey);
      if (consumed === null || Number(consumed) < this.limit) return 0;
      const ms = await this.redis.cmd.pttl(rlKey);
      // (-2: the window ended meanwhile; -1 cannot last, the limiter sets the expiry with the counter.)
      return ms === -2 ? 0 : Math.max(ms, 1) / 1000;
    }
    const res = await this.limiter.get(key);
    return res && res.consumedPoints >= this.limit ? Math.max(res.msBeforeNext, 1) / 1000 : 0;
  }

  /** Counts one hit. */
  async hit(key: string): Promise<void> {
    await this.limiter?.consume(key).catch((e: unknown) => {
      if (!(e instanceof RateLimiterRes)) throw e;
    });
  }

  /**
   * Counts a hit and throws RATE_LIMIT_HIT when over the limit (with the
   * limit's headers); returns what is left of the limit, or null when there
   * is none.
   */
  async check(key: string): Promise<LimitState | null> {
    if (!this.limiter) return null;
    try {
      const res = await this.limiter.consume(key);
      return { limit: this.limit, remaining: res.remainingPoints, resetsInMs: res.msBeforeNext };
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      const wait = Math.max(e.msBeforeNext, 1);
      throw rateLimited(wait / 1000, rateLimitHeaders({ limit: this.limit, remaining: 0, resetsInMs: wait }));
    }
  }
}
