/**
 * Event queues: one per registered client (POST /register), held in this
 * process, long-polled by GET /events. Modeled on Zulip's event queue: every
 * event gets a queue-local increasing `id`; a client acknowledges by sending
 * the last id it has seen; a poll with nothing to return waits, answering
 * with a heartbeat after `heartbeatSeconds`; unpolled queues are collected.
 */
import { randomBytes } from 'node:crypto';
import type { DeliveryOptions, Recipient, ZulipEvent } from './types.ts';

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

interface Waiter {
  resolve: (events: ZulipEvent[]) => void;
  timer: NodeJS.Timeout;
}

/**
 * Per-event-type hooks that decide whether a queue receives an event and
 * shape the copy it gets (e.g. rendered vs raw content, narrow filtering).
 */
export type QueueFilter = (queue: EventQueue, event: ZulipEvent) => ZulipEvent | ZulipEvent[] | null;

export class EventQueue {
  readonly id: string;
  readonly opts: QueueOptions;
  lastAccess = Date.now();
  private nextEventId = 0;
  private events: ZulipEvent[] = [];
  private waiter: Waiter | null = null;

  constructor(opts: QueueOptions) {
    this.id = `${Date.now().toString(36)}:${randomBytes(9).toString('base64url')}`;
    this.opts = opts;
  }

  get userId(): number {
    return this.opts.userId;
  }

  /** The id of the newest event ever queued (-1 when none). */
  get lastEventId(): number {
    return this.nextEventId - 1;
  }

  wants(type: string): boolean {
    return this.opts.eventTypes === null || this.opts.eventTypes.has(type);
  }

  push(event: ZulipEvent): void {
    this.events.push({ ...event, id: this.nextEventId++ });
    if (this.waiter) this.flush();
  }

  /** The id of the newest event dropped by an acknowledgement (null when none yet). */
  newestPrunedId: number | null = null;

  /** Drops events the client has acknowledged. */
  prune(lastEventId: number): void {
    if (this.events.length && (this.events[0].id as number) <= lastEventId) {
      const kept = this.events.filter((e) => (e.id as number) > lastEventId);
      this.newestPrunedId = this.events[this.events.length - kept.length - 1].id as number;
      this.events = kept;
    }
  }

  /**
   * Returns queued events, or waits for the next ones. A newer poll replaces
   * a waiting one (the older returns empty, as its client has gone). An
   * aborted `signal` (the client disconnected) ends the wait with no events.
   */
  poll(lastEventId: number, dontBlock: boolean, heartbeatSeconds: number, signal?: AbortSignal): Promise<ZulipEvent[]> {
    this.lastAccess = Date.now();
    this.cancelWait();
    this.prune(lastEventId);
    if (this.events.length || dontBlock || signal?.aborted) return Promise.resolve(this.events.slice());
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.push({ type: 'heartbeat' }), heartbeatSeconds * 1000);
      timer.unref();
      const waiter: Waiter = { resolve, timer };
      this.waiter = waiter;
      signal?.addEventListener(
        'abort',
        () => {
          if (this.waiter !== waiter) return;
          this.cancelWait();
          this.lastAccess = Date.now();
        },
        { once: true },
      );
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

export class QueueManager {
  private readonly queues = new Map<string, EventQueue>();
  private readonly byUser = new Map<number, Set<EventQueue>>();
  private readonly filters = new Map<string, QueueFilter>();
  private gcTimer: NodeJS.Timeout | null = null;

  /** Registers the hook for one event type (see QueueFilter). */
  setFilter(type: string, filter: QueueFilter): void {
    this.filters.set(type, filter);
  }

  create(opts: QueueOptions): EventQueue {
    const q = new EventQueue(opts);
    this.queues.set(q.id, q);
    let set = this.byUser.get(opts.userId);
    if (!set) this.byUser.set(opts.userId, (set = new Set()));
    set.add(q);
    return q;
  }

  get(id: string): EventQueue | undefined {
    return this.queues.get(id);
  }

  delete(id: string): boolean {
    const q = this.queues.get(id);
    if (!q) return false;
    q.cancelWait();
    this.queues.delete(id);
    const set = this.byUser.get(q.userId);
    set?.delete(q);
    if (set && set.size === 0) this.byUser.delete(q.userId);
    return true;
  }

  queuesOf(userId: number): Iterable<EventQueue> {
    return this.byUser.get(userId) ?? [];
  }

  /** Delivers one event to the local queues of its recipients. */
  deliver(event: ZulipEvent, recipients: Recipient[], options?: DeliveryOptions): void {
    const filter = this.filters.get(event.type);
    const give = (q: EventQueue, base: ZulipEvent) => {
      if (!q.wants(event.type)) return;
      const copy = filter ? filter(q, base) : base;
      if (Array.isArray(copy)) for (const c of copy) q.push(c);
      else if (copy) q.push(copy);
    };
    const reached = new Set<number>();
    for (const r of recipients) {
      const userId = typeof r === 'number' ? r : r.id;
      reached.add(userId);
      const set = this.byUser.get(userId);
      if (!set) continue;
      const base = typeof r === 'number' ? event : { ...event, ...r.extra };
      for (const q of set) give(q, base);
    }
    if (options?.allPublicStreamsQueues) {
      for (const q of this.queues.values()) {
        if (q.opts.allPublicStreams && !reached.has(q.userId)) give(q, { ...event, flags: [] });
      }
    }
  }

  /** Every user with at least one queue here (for presence of clients). */
  get size(): number {
    return this.queues.size;
  }

  startGc(intervalSeconds: number): void {
    this.gcTimer = setInterval(() => this.gc(), intervalSeconds * 1000);
    this.gcTimer.unref();
  }

  gc(now = Date.now()): number {
    let removed = 0;
    for (const q of this.queues.values()) {
      if (q.expired(now)) {
        this.delete(q.id);
        removed++;
      }
    }
    return removed;
  }

  /** Answers every waiting poll and stops collection (shutdown). */
  close(): void {
    if (this.gcTimer) clearInterval(this.gcTimer);
    for (const q of this.queues.values()) q.cancelWait();
  }
}
