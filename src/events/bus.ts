/**
 * The event fan-out. Actions call `bus.send(event, recipients)` after their
 * transaction commits. `LocalBus` hands events straight to this process's
 * queues; `BatchingBus` batches them into pipelined writes to the queues in
 * Redis, where every process's long-polls see them.
 *
 * A request's events reach their queues before its response is sent:
 * routes run inside `bus.duringRequest`. The synchronous local bus has
 * nothing to wait for; the batching bus waits for the deliveries that `send`
 * started in the request (`withDeliveries`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyBaseLogger } from 'fastify';
import type { LocalQueues, EventQueues } from './queue.ts';
import type { DeliveryOptions, Envelope, Recipient, ZulipEvent } from './types.ts';

export type EventWatcher = (event: ZulipEvent) => void;

export interface EventBus {
  /**
   * Runs a request's work (`fn`) and settles once the events it sent have
   * reached their queues, so that a request's events are queued before its
   * response is sent.
   */
  duringRequest<T>(fn: () => Promise<T>): Promise<T>;
  send(event: ZulipEvent, recipients: readonly Recipient[], options?: DeliveryOptions): void;
  /**
   * Calls `watcher` in every process with each event of these types sent by
   * any process (whoever its recipients): how in-process caches learn that
   * the change behind the event happened. The sending process calls it at
   * once; the others when the event's batch is written (before the sending
   * request is answered).
   */
  watch(types: string[], watcher: EventWatcher): void;
  /** Settles when every event sent so far has reached its queues. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** The watchers of a process, by event type. */
class Watchers {
  private readonly byType = new Map<string, EventWatcher[]>();
  add(types: string[], watcher: EventWatcher): void {
    for (const t of types) {
      let list = this.byType.get(t);
      if (!list) this.byType.set(t, (list = []));
      list.push(watcher);
    }
  }
  has(type: string): boolean {
    return this.byType.has(type);
  }
  notify(event: ZulipEvent): void {
    for (const w of this.byType.get(event.type) ?? []) w(event);
  }
}

export class LocalBus implements EventBus {
  private readonly queues: LocalQueues;
  private readonly watchers = new Watchers();
  constructor(queues: LocalQueues) {
    this.queues = queues;
  }
  watch(types: string[], watcher: EventWatcher): void {
    this.watchers.add(types, watcher);
  }
  /** `send` delivers before it returns: nothing to wait for, and no scope to open. */
  duringRequest<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }
  send(event: ZulipEvent, recipients: readonly Recipient[], options?: DeliveryOptions): void {
    this.watchers.notify(event);
    if (recipients.length === 0 && !options?.allPublicStreamsQueues) return;
    this.queues.deliverNow({ event, recipients, options });
  }
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}

/** The deliveries started in the current request (see withDeliveries). */
const scope = new AsyncLocalStorage<{ last: Promise<void> | null }>();

/** Runs `fn`, then waits until the events it sent have been delivered (BatchingBus). */
async function withDeliveries<T>(fn: () => Promise<T>): Promise<T> {
  const s = { last: null as Promise<void> | null };
  try {
    return await scope.run(s, fn);
  } finally {
    if (s.last) await s.last;
  }
}

/** Carries watched events to the other processes (see EventBus.watch). */
export interface Broadcast {
  publish(events: ZulipEvent[]): Promise<unknown>;
}

/**
 * Delivers through an asynchronous queue store (Redis). Envelopes sent while
 * a batch is being written wait and go together in the next batch, so
 * batches are written one after another and events keep their order.
 */
export class BatchingBus implements EventBus {
  private readonly queues: EventQueues;
  private readonly log: FastifyBaseLogger;
  private readonly broadcast: Broadcast | null;
  private readonly watchers = new Watchers();
  private pending: Envelope[] = [];
  private watched: ZulipEvent[] = [];
  /** The batch that has not started yet (new envelopes join it). */
  private next: Promise<void> | null = null;
  /** The last batch started; settles (never rejects) when written. */
  private tail: Promise<void> = Promise.resolve();
  /** What a batch waits for before it is written (see deliverAfter). */
  private gate: (() => Promise<void>) | null = null;

  constructor(queues: EventQueues, log: FastifyBaseLogger, broadcast: Broadcast | null = null) {
    this.queues = queues;
    this.log = log;
    this.broadcast = broadcast;
  }

  watch(types: string[], watcher: EventWatcher): void {
    this.watchers.add(types, watcher);
  }

  /**
   * Makes every batch wait for `gate` before it is written. The server passes
   * the wait for this process's announcements of its committed changes to the
   * other processes: a client that reads again on an event then finds the
   * change on whichever process it asks, also after a write made outside a
   * transaction, whose announcement is not awaited by the write itself.
   */
  deliverAfter(gate: () => Promise<void>): void {
    this.gate = gate;
  }

  duringRequest<T>(fn: () => Promise<T>): Promise<T> {
    return withDeliveries(fn);
  }

  /** A watched event another process sent. */
  received(event: ZulipEvent): void {
    this.watchers.notify(event);
  }

  send(event: ZulipEvent, recipients: readonly Recipient[], options?: DeliveryOptions): void {
    const watched = this.watchers.has(event.type);
    if (watched) {
      this.watchers.notify(event);
      if (this.broadcast) this.watched.push(event);
    } else if (recipients.length === 0 && !options?.allPublicStreamsQueues) return;
    if (recipients.length || options?.allPublicStreamsQueues) this.pending.push({ event, recipients, options });
    if (!this.next) {
      this.next = this.tail.then(this.gate).catch(() => {}).then(() => {
        const batch = this.pending;
        const watchedEvents = this.watched;
        this.pending = [];
        this.watched = [];
        this.next = null;
        return Promise.all([
          batch.length ? this.queues.deliver(batch) : null,
          watchedEvents.length ? this.broadcast?.publish(watchedEvents) : null,
        ]).then(
          () => {},
          (err: unknown) => {
            // The changes are committed; the events of this batch are lost. Say so loudly.
            this.log.error({ err, events: batch.length, watched: watchedEvents.length }, 'event delivery failed');
          },
        );
      });
      this.tail = this.next;
    }
    const s = scope.getStore();
    if (s) s.last = this.next;
  }

  flush(): Promise<void> {
    return this.next ?? this.tail;
  }

  async close(): Promise<void> {
    await this.flush();
  }
}
