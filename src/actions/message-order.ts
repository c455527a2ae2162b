/**
 * Message events in the order of the messages' IDs, within a process.
 *
 * On PostgreSQL several sends run at once, each in its own transaction: a
 * message can get its ID before another, yet commit and send its event
 * after it. Clients take the events in the order they come (the mobile app
 * adds a new message at the end of the list), so they showed such a message
 * out of order. Each send takes a slot before its transaction, gives it the
 * message's ID once the message row is inserted, and, after the commit,
 * waits for its turn: until every send that started before it got its ID
 * and either got a larger one or has sent its event (or failed). A send
 * that is slow to finish holds the later ones back for at most
 * MAX_WAIT_MS. SQLite runs one writing transaction at a time, so IDs
 * come in commit order there; the slots still keep the work between a
 * send's commit and its event (it waits on reads) from letting a later
 * send's event go first.
 *
 * Between processes (a cluster) the order is not kept, as it is not in
 * Zulip, whose events are ordered as its processes send them.
 */
import type { Store } from '../store/db.ts';

const MAX_WAIT_MS = 1000;

export class MessageSlot {
  id: number | null = null;
  ended = false;
  /** The sends that may have a smaller ID: live when this one got its ID. */
  before: MessageSlot[] = [];
  private waiters: Array<() => void> = [];
  /** Settles at the next change of this slot (its ID, or its end). */
  changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }
  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

export class MessageOrder {
  private readonly live = new Set<MessageSlot>();

  /** Before a send's transaction. */
  begin(): MessageSlot {
    const slot = new MessageSlot();
    this.live.add(slot);
    return slot;
  }

  /** Once the message row is inserted (again, if the transaction is run again). */
  assigned(slot: MessageSlot, id: number): void {
    slot.id = id;
    slot.before = [];
    for (const other of this.live) if (other !== slot && (other.id === null || other.id < id)) slot.before.push(other);
    slot.notify();
  }

  /** After the commit, before the message's event: waits for the sends that come first. */
  async turn(slot: MessageSlot): Promise<void> {
    const id = slot.id;
    if (id === null || !slot.before.some((x) => !x.ended)) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, MAX_WAIT_MS)));
    let late = false;
    void timedOut.then(() => (late = true));
    try {
      for (const other of slot.before) {
        while (!late && !other.ended && (other.id === null || other.id < id)) await Promise.race([other.changed(), timedOut]);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** After the send's event, or when the send failed. */
  end(slot: MessageSlot): void {
    slot.ended = true;
    slot.before = [];
    this.live.delete(slot);
    slot.notify();
  }
}

const orders = new WeakMap<Store, MessageOrder>();

/** The message order of a server (one per store: tests run several servers in a process). */
export function messageOrder(store: Store): MessageOrder {
  let order = orders.get(store);
  if (!order) orders.set(store, (order = new MessageOrder()));
  return order;
}
