/**
 * Event queues: one per registered client (POST /register), long-polled by
 * GET /events. Modeled on Zulip's event queue: every event gets a
 * queue-local increasing `id`; a client acknowledges by sending the last id
 * it has seen; a poll with nothing to return waits, answering with a
 * heartbeat after `heartbeatSeconds`; unpolled queues are collected.
 *
 * `EventQueues` is the boundary: `LocalQueues` (below) holds the queues in
 * this process (one process, the default); `RedisQueues`
 * (redis-queues.ts) keeps them in Redis so any process can serve any queue.
 */
import { randomBytes } from 'node:crypto';
import type { Envelope, ZulipEvent, EventMeta } from './types.ts';

export interface QueueOptions {
  userId: number;
  /** Event types the client asked for; null means all. */
  eventTypes: Set<string> | null;
  clientCapabilities: Record<string, boolean>;
  applyMarkdown: boolean;
  clientGravatar: boolean;
  slimPresence: boolean;
  allPublicStreams: boolean;
  /** Narrow the client registered with (for message events), as [operator, operand] pairs. */
  narrow: Array<{ operator: string; operand: unknown; negated: boolean }>;
  /** Seconds the queue may go unpolled before collection. */
  lifespanSeconds: number;
  clientName: string;
}

/** What the per-type filters see of a queue: who registered it and how. */
export interface EventQueue {
  readonly id: string;
  readonly userId: number;
  readonly opts: QueueOptions;
}

/**
 * Per-event-type hooks that decide whether a queue receives an event and
 * shape the copy it gets (e.g. rendered vs raw content, narrow filtering).
 */
export type QueueFilter = (queue: EventQueue, event: ZulipEvent, meta: EventMeta) => ZulipEvent | ZulipEvent[] | null;

const NO_META: EventMeta = {};

/**
 * The outcome of GET /events on a queue: its events, or why the
 * acknowledgement is refused (Zulip's two errors), or no such queue.
 */
export type PollResult =
  | { kind: 'events'; events: ZulipEvent[] }
  | { kind: 'missing' }
  | { kind: 'pruned' }
  | { kind: 'not_in_queue' };

/**
 * Says that the client of a poll has gone (it disconnected): its wait ends
 * with no events. A poll's own small object where an AbortController would
 * do, as each of the long-polls waiting at any time keeps one (an
 * AbortController with its signal and listener kept about 350 bytes more).
 * Takes one listener: the queue that the poll waits on.
 */
export class PollCancel {
  #aborted = false;
  #listener: (() => void) | null = null;
  get aborted(): boolean {
    return this.#aborted;
  }
  /** Calls `fn` once the client has gone (at once if it already has). */
  onAbort(fn: () => void): void {
    if (this.#aborted) fn();
    else this.#listener = fn;
  }
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    const fn = this.#listener;
    this.#listener = null;
    fn?.();
  }
}

export interface PollRequest {
  lastEventId: number;
  dontBlock: boolean;
  heartbeatSeconds: number;
  /** Aborts when the client disconnects: the wait ends with no events. */
  signal?: PollCancel;
}

export interface EventQueues {
  /** Registers the hook for one event type (see QueueFilter). */
  setFilter(type: string, filter: QueueFilter): void;
  create(opts: QueueOptions): Promise<EventQueue>;
  get(id: string): Promise<EventQueue | undefined>;
  /**
   * GET /events: checks and applies the acknowledgement, then returns the
   * queued events or waits for the next ones. A newer poll replaces a
   * waiting one (the older returns empty, as its client has gone).
   */
  poll(id: string, req: PollRequest): Promise<PollResult>;
  /** Whether a poll of the queue is waiting (anywhere). */
  isWaiting(id: string): Promise<boolean>;
  delete(id: string): Promise<boolean>;
  /** Ends every queue of a user (deactivation). */
  deleteUserQueues(userId: number): Promise<void>;
  /** Delivers envelopes, in order, to the queues of their recipients. */
  deliver(envelopes: Envelope[]): Promise<void>;
  /** Collects queues unpolled for longer than their lifespan; returns how many. */
  gc(now?: number): Promise<number>;
  startGc(intervalSeconds: number): void;
  /** Answers every waiting poll and stops collection (shutdown). */
  close(): Promise<void>;
  /** For metrics: the queues this process knows and the polls waiting in it. */
  stats(): { queues: number; waiting: number };
}

/** A new queue's ID: creation time and randomness, unguessable. */
export function newQueueId(): string {
  return `${Date.now().toString(36)}:${randomBytes(9).toString('base64url')}`;
}

/**
 * The copies of `event` that one queue gets (none when it did not ask for
 * the type or its filter drops it).
 */
export function copiesFor(filters: Map<string, QueueFilter>, q: EventQueue, event: ZulipEvent, meta: EventMeta = NO_META): ZulipEvent[] {
  if (q.opts.eventTypes !== null && !q.opts.eventTypes.has(event.type)) return [];
  const filter = filters.get(event.type);
  const copy = filter ? filter(q, event, meta) : event;
  if (Array.isArray(copy)) return copy;
  return copy ? [copy] : [];
}

/**
 * Who gets an envelope: for each recipient, the event (with that user's
 * extra data); then, when asked, every all_public_streams queue of a user
 * not among the recipients (with no flags).
 */
export function* expand(env: Envelope, queuesOf: (userId: number) => Iterable<EventQueue>, publicQueues: () => Iterable<EventQueue>): Generator<[EventQueue, ZulipEvent]> {
  const reached = new Set<number>();
  for (const r of env.recipients) {
    const userId = typeof r === 'number' ? r : r.id;
    reached.add(userId);
    // The user's copy is made only if the user has a queue (most recipients of a large channel have none).
    let base: ZulipEvent | undefined;
    for (const q of queuesOf(userId)) {
      base ??= typeof r === 'number' ? env.event : { ...env.event, ...r.extra };
      yield [q, base];
    }
  }
  if (env.options?.allPublicStreamsQueues) {
    for (const q of publicQueues()) {
      if (q.opts.allPublicStreams && !reached.has(q.userId)) yield [q, { ...env.event, flags: [] }];
    }
  }
}

interface Waiter {
  resolve: (events: ZulipEvent[]) => void;
  timer: NodeJS.Timeout;
}

class LocalQueue implements EventQueue {
  readonly id: string;
  readonly opts: QueueOptions;
  lastAccess = Date.now();
  private nextEventId = 0;
  private events: ZulipEvent[] = [];
  private waiter: Waiter | null = null;
  /** The id of the newest event dropped by an acknowledgement (null when none yet). */
  newestPrunedId: number | null = null;

  constructor(opts: QueueOptions) {
    this.id = newQueueId();
    this.opts = opts;
  }

  get userId(): number {
    return this.opts.userId;
  }

  push(event: ZulipEvent): void {
    this.events.push({ ...event, id: this.nextEventId++ });
    if (this.waiter) this.flush();
  }

  /** Drops events the client has acknowledged. */
  prune(lastEventId: number): void {
    if (this.events.length && (this.events[0].id as number) <= lastEventId) {
      const kept = this.events.filter((e) => (e.id as number) > lastEventId);
      this.newestPrunedId = this.events[this.events.length - kept.length - 1].id as number;
      this.events = kept;
    }
  }

  poll(lastEventId: number, dontBlock: boolean, heartbeatSeconds: number, signal?: PollCancel): Promise<ZulipEvent[]> {
    this.lastAccess = Date.now();
    this.cancelWait();
    this.prune(lastEventId);
    if (this.events.length || dontBlock || signal?.aborted) return Promise.resolve(this.events.slice());
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.push({ type: 'heartbeat' }), heartbeatSeconds * 1000);
      timer.unref();
      const waiter: Waiter = { resolve, timer };
      this.waiter = waiter;
      signal?.onAbort(() => {
        if (this.waiter !== waiter) return;
        this.cancelWait();
        this.lastAccess = Date.now();
      });
    });
  }

  private flush(): void {
    const w = this.waiter;
    if (!w) return;
    this.waiter = null;
    clearTimeout(w.timer);
    this.lastAccess = Date.now();
    w.resolve(this.events.slice());
  }

  /** Ends a waiting poll with no events (client replaced or server stopping). */
  cancelWait(): void {
    const w = this.waiter;
    if (!w) return;
    this.waiter = null;
    clearTimeout(w.timer);
    w.resolve([]);
  }

  get isWaiting(): boolean {
    return this.waiter !== null;
  }

  expired(now: number): boolean {
    return !this.waiter && now - this.lastAccess > this.opts.lifespanSeconds * 1000;
  }
}

const eventsResult = (events: ZulipEvent[]): PollResult => ({ kind: 'events', events });

/** The queues of one process, in memory (the default, single-process deployment). */
export class LocalQueues implements EventQueues {
  private readonly queues = new Map<string, LocalQueue>();
  private readonly byUser = new Map<number, Set<LocalQueue>>();
  private readonly filters = new Map<string, QueueFilter>();
  private gcTimer: NodeJS.Timeout | null = null;

  setFilter(type: string, filter: QueueFilter): void {
    this.filters.set(type, filter);
  }

  async create(opts: QueueOptions): Promise<EventQueue> {
    const q = new LocalQueue(opts);
    this.queues.set(q.id, q);
    let set = this.byUser.get(opts.userId);
    if (!set) this.byUser.set(opts.userId, (set = new Set()));
    set.add(q);
    return q;
  }

  async get(id: string): Promise<EventQueue | undefined> {
    return this.queues.get(id);
  }

  // Not an async function: a waiting poll keeps no suspended frame here.
  poll(id: string, req: PollRequest): Promise<PollResult> {
    const q = this.queues.get(id);
    if (!q) return Promise.resolve({ kind: 'missing' });
    if (q.newestPrunedId !== null && req.lastEventId < q.newestPrunedId) return Promise.resolve({ kind: 'pruned' });
    q.prune(req.lastEventId);
    if (q.newestPrunedId !== null && req.lastEventId !== q.newestPrunedId) return Promise.resolve({ kind: 'not_in_queue' });
    return q.poll(req.lastEventId, req.dontBlock, req.heartbeatSeconds, req.signal).then(eventsResult);
  }

  async isWaiting(id: string): Promise<boolean> {
    return this.queues.get(id)?.isWaiting ?? false;
  }

  async delete(id: string): Promise<boolean> {
    return this.deleteNow(id);
  }

  private deleteNow(id: string): boolean {
    const q = this.queues.get(id);
    if (!q) return false;
    q.cancelWait();
    this.queues.delete(id);
    const set = this.byUser.get(q.userId);
    set?.delete(q);
    if (set && set.size === 0) this.byUser.delete(q.userId);
    return true;
  }

  async deleteUserQueues(userId: number): Promise<void> {
    for (const q of [...(this.byUser.get(userId) ?? [])]) this.deleteNow(q.id);
  }

  async deliver(envelopes: Envelope[]): Promise<void> {
    for (const env of envelopes) this.deliverNow(env);
  }

  /** Delivers one envelope synchronously (the in-process bus). */
  deliverNow(env: Envelope): void {
    const pairs = expand(env, (u) => this.byUser.get(u) ?? [], () => this.queues.values());
    for (const [q, base] of pairs) for (const copy of copiesFor(this.filters, q, base, env.options?.meta)) (q as LocalQueue).push(copy);
  }

  stats(): { queues: number; waiting: number } {
    let waiting = 0;
    for (const q of this.queues.values()) if (q.isWaiting) waiting++;
    return { queues: this.queues.size, waiting };
  }

  startGc(intervalSeconds: number): void {
    this.gcTimer = setInterval(() => void this.gc(), intervalSeconds * 1000);
    this.gcTimer.unref();
  }

  async gc(now = Date.now()): Promise<number> {
    let removed = 0;
    for (const q of this.queues.values()) {
      if (q.expired(now)) {
        this.deleteNow(q.id);
        removed++;
      }
    }
    return removed;
  }

  async close(): Promise<void> {
    if (this.gcTimer) clearInterval(this.gcTimer);
    for (const q of this.queues.values()) q.cancelWait();
  }
}
