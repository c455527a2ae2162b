/**
 * The event fan-out. Actions call `bus.send(event, recipients)` after their
 * transaction commits. The local bus hands events straight to this process's
 * queues; a multi-process deployment swaps in a bus that carries envelopes
 * between processes (each then delivers to its own queues).
 */
import type { QueueManager } from './queue.ts';
import type { DeliveryOptions, Envelope, Recipient, ZulipEvent } from './types.ts';

export interface EventBus {
  send(event: ZulipEvent, recipients: Recipient[], options?: DeliveryOptions): void;
  close(): Promise<void>;
}

export class LocalBus implements EventBus {
  private readonly queues: QueueManager;
  constructor(queues: QueueManager) {
    this.queues = queues;
  }
  send(event: ZulipEvent, recipients: Recipient[], options?: DeliveryOptions): void {
    if (recipients.length === 0 && !options?.allPublicStreamsQueues) return;
    this.deliver({ event, recipients, options });
  }
  protected deliver(env: Envelope): void {
    this.queues.deliver(env.event, env.recipients, env.options);
  }
  async close(): Promise<void> {}
}
