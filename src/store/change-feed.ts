/**
 * The changes the processes of a deployment (REDIS_URL) announce to each
 * other, so that each can keep the organization in memory (actions/cache.ts)
 * as one process does.
 *
 * One Redis hash holds a counter per announced table. A process adds 1 to
 * the counters of the tables a write changed once it has committed, and
 * before it answers or sends the write's events. Each request first reads
 * the hash (`refresh`): a counter that moved since this process last read it
 * drops what was kept from that table. So whatever another process has
 * answered for, or sent an event about, is seen by the next request,
 * whichever process serves it. PostgreSQL's NOTIFY (db.ts) still arrives
 * too, a moment later, for work that runs outside requests.
 *
 * The hash also holds an `epoch`, set by the first process to find none: a
 * Redis that lost its data starts its counters again from zero, and a new
 * epoch tells every process to drop everything.
 */
import { randomBytes } from 'node:crypto';
import type { RedisLink } from '../lib/redis.ts';
import type { ChangeFeedLink, TableChanges } from './changes.ts';

const EPOCH = 'epoch';

export class ChangeFeed implements ChangeFeedLink {
  readonly #changes: TableChanges;
  readonly #redis: RedisLink;
  readonly #key: string;
  /** Each field of the hash as this process last read or wrote it. */
  readonly #seen = new Map<string, string>();
  /** The read of the hash under way, if any. */
  #reading: Promise<void> | null = null;
  /** The read that callers who came during #reading wait for: it begins when #reading ends. */
  #following: Promise<void> | null = null;

  constructor(changes: TableChanges, redis: RedisLink) {
    this.#changes = changes;
    this.#redis = redis;
    this.#key = `${redis.prefix}table-changes`;
  }

  async announce(tables: string[]): Promise<void> {
    const pipeline = this.#redis.cmd.pipeline();
    for (const t of tables) pipeline.hincrby(this.#key, t, 1);
    const results = (await pipeline.exec()) ?? [];
    tables.forEach((t, i) => {
      const [err, value] = results[i] ?? [null, null];
      if (err || value === null) return;
      // Only this write since the last read: already dropped here, nothing to drop again.
      // (A table missing from the feed as last read has not changed since it began: 0.)
      const last = this.#seen.get(t) ?? (this.#seen.has(EPOCH) ? '0' : undefined);
      if (last === String(Number(value) - 1)) this.#seen.set(t, String(value));
    });
  }

  /**
   * Reads the hash. A read that began before this call may have missed an
   * announcement made just before the call, so the callers that come while
   * one is under way share the next one, which begins when it ends: busy,
   * one read serves several requests.
   */
  refresh(): Promise<void> {
    if (this.#reading === null) return this.#startRead();
    this.#following ??= this.#reading.then(() => {
      this.#following = null;
      return this.#startRead();
    });
    return this.#following;
  }

  #startRead(): Promise<void> {
    const read = this.#read().finally(() => {
      if (this.#reading === read) this.#reading = null;
    });
    this.#reading = read;
    return read;
  }

  async #read(): Promise<void> {
    let now: Record<string, string>;
    try {
      now = await this.#redis.cmd.hgetall(this.#key);
    } catch {
      // Unreadable: nothing kept can be trusted.
      this.#seen.clear();
      this.#changes.bumpAll();
      return;
    }
    const epoch = now[EPOCH];
    if (epoch === undefined || epoch !== this.#seen.get(EPOCH)) {
      this.#seen.clear();
      // No epoch yet: one is set, and the next refresh reads the feed afresh.
      if (epoch === undefined) await this.#redis.cmd.hsetnx(this.#key, EPOCH, randomBytes(8).toString('hex')).catch(() => {});
      else for (const [field, value] of Object.entries(now)) this.#seen.set(field, value);
      this.#changes.bumpAll();
      return;
    }
    const moved: string[] = [];
    for (const [field, value] of Object.entries(now)) {
      if (field === EPOCH || this.#seen.get(field) === value) continue;
      this.#seen.set(field, value);
      moved.push(field);
    }
    if (moved.length) this.#changes.bump(moved);
  }
}
