/**
 * The event fan-out. Actions call `bus.send(event, recipients)` after their
 * transaction commits. `LocalBus` hands events straight to this process's
 * queues; `RedisBus` batches them into pipelined writes to the queues in
 * Redis, where every process's long-polls see them.
 *
 * A request's events reach their queues before its response is sent:
 * routes run inside `withDeliveries`, which waits for the deliveries that
 * `send` started in the request (a no-op for the synchronous local bus).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyBaseLogger } from 'fastify';
import type { LocalQueues, EventQueues } from './queue.ts';
import type { DeliveryOptions, Envelope, Recipient, ZulipEvent } from './types.ts';

export interface EventBus {
  send(event: ZulipEvent, recipients: Recipient[], options?: DeliveryOptions): void;
  /** Settles when every event sent so far has reached its queues. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export class LocalBus implements EventBus {
  private readonly queues: LocalQueues;
  constructor(queues: LocalQueues) {
    this.queues = queues;
  }
  send(event: ZulipEvent, recipients: Recipient[], options?: DeliveryOptions): void {
    if (recipients.length === 0 && !options?.allPublicStreamsQueues) return;
    this.queues.deliverNow({ event, recipients, options });
  }
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}

/** The deliveries started in the current request (see withDeliveries). */
const scope = new AsyncLocalStorage<{ last: Promise<void> | null }>();

/** Runs `fn`, then waits until the events it sent have been delivered. */
export async function withDeliveries<T>(fn: () => Promise<T>): Promise<T> {
  const s = { last: null as Promise<void> | null };
  try {
    return await scope.run(s, fn);
  } finally {
    if (s.last) await s.last;
  }
}

/**
 * Delivers through an asynchronous queue store (Redis). Envelopes sent while
 * a batch is being written wait and go together in the next batch, so
 * batches are written one after another and events keep their order.
 */
export class BatchingBus implements EventBus {
  private readonly queues: EventQueues;
  private readonly log: FastifyBaseLogger;
  private pending: Envelope[] = [];
  /** The batch that has not started yet (new envelopes join it). */
  private next: Promise<void> | null = null;
  /** The last batch started; settles (never rejects) when written. */
  private tail: Promise<void> = Promise.resolve();

  constructor(queues: EventQueues, log: FastifyBaseLogger) {
    this.queues = queues;
    this.log = log;
  }

  send(event: ZulipEvent, recipients: Recipient[], options?: DeliveryOptions): void {
    if (recipients.length === 0 && !options?.allPublicStreamsQueues) return;
    this.pending.push({ event, recipients, options });
    if (!this.next) {
      this.next = this.tail.then(() => {
        const batch = this.pending;
        this.pending = [];
        this.next = null;
        return this.queues.deliver(batch).catch((err: unknown) => {
          // The changes are committed; the events of this batch are lost. Say so loudly.
          this.log.error({ err, events: batch.length }, 'event delivery failed');
        });
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
