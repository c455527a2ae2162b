/**
 * Deleting messages: one transaction, then Zulip's `delete_message` events
 * (one per conversation, with `message_ids`; clients without the
 * bulk_message_deletion capability get one event per message, see
 * src/state/messages.ts) and a `stream` update when a channel's
 * first_message_id changes (spec §6.4).
 */
import type { Services } from '../services.ts';
import { cachedActiveUserIds, cachedRealm } from './cache.ts';
import { transaction, type Tx } from '../store/db.ts';
import { lockUntilCommit } from '../store/locks.ts';
import { deleteMessageRows, firstMessageIds, messageHolders, messagesByIds, RECIPIENT, type MessageRow } from '../store/messages.ts';
import { streamsByIds, subscriberIds } from '../store/streams.ts';
import type { ZulipEvent } from '../events/types.ts';

/**
 * Deletes the messages `pick` chooses, and returns how many it chose. `pick`
 * runs inside the deleting transaction, after edits and moves of other
 * requests have committed (the lock they take), so that a message is
 * deleted only where it was chosen (and its deletion permitted): not after a
 * concurrent move took it to another topic or channel. An error thrown by
 * `pick` deletes nothing.
 */
export async function deleteMessages(svc: Services, pick: number[] | ((tx: Tx) => Promise<number[]>)): Promise<number> {
  if (Array.isArray(pick) && pick.length === 0) return 0;
  const result = await transaction(svc.store, async (tx) => {
    await lockUntilCommit(svc.store, tx, 'message-edits');
    const ids = Array.isArray(pick) ? pick : await pick(tx);
    if (ids.length === 0) return null;
    const rows = await messagesByIds(tx, svc.realmId, ids);
    const holders = await messageHolders(tx, rows.map((m) => m.id));
    const streamIds = [...new Set(rows.filter((m) => m.recipient_type === RECIPIENT.STREAM).map((m) => m.recipient_id))];
    const before = await firstMessageIds(tx, streamIds);
    await deleteMessageRows(tx, rows.map((m) => m.id));
    const after = await firstMessageIds(tx, streamIds);
    const subscribers = new Map<number, number[]>();
    for (const sid of streamIds) subscribers.set(sid, await subscriberIds(tx, sid));
    const streams = await streamsByIds(tx, svc.realmId, streamIds);
    return { rows, holders, before, after, subscribers, streams };
  });
  if (result === null) return 0;

  // One event per conversation, to everyone who held one of its messages
  // (and, for channels, the current subscribers).
  const groups = new Map<string, MessageRow[]>();
  for (const m of result.rows) {
    const key = m.recipient_type === RECIPIENT.STREAM ? `s:${m.recipient_id}:${m.topic.toLowerCase()}` : `d:${m.recipient_type}:${m.recipient_id}`;
    let list = groups.get(key);
    if (!list) groups.set(key, (list = []));
    list.push(m);
  }
  // The empty topic is named per queue for clients without empty_topic_name (the filter in src/state/messages.ts).
  const emptyTopicName = String((await cachedRealm(svc)).settings.empty_topic_display_name);
  for (const list of groups.values()) {
    const first = list[0];
    const users = new Set<number>();
    for (const m of list) for (const u of result.holders.get(m.id) ?? []) users.add(u);
    const ids = list.map((m) => m.id);
    let event: ZulipEvent;
    if (first.recipient_type === RECIPIENT.STREAM) {
      for (const u of result.subscribers.get(first.recipient_id) ?? []) users.add(u);
      event = { type: 'delete_message', message_ids: ids, message_type: 'stream', stream_id: first.recipient_id, topic: first.topic };
    } else {
      event = { type: 'delete_message', message_ids: ids, message_type: 'private' };
    }
    svc.bus.send(event, [...users], first.recipient_type === RECIPIENT.STREAM ? { meta: { emptyTopicName } } : undefined);
  }

  const everyone = result.streams.some((s) => !s.invite_only) ? await cachedActiveUserIds(svc) : [];
  for (const stream of result.streams) {
    const before = result.before.get(stream.id) ?? null;
    const after = result.after.get(stream.id) ?? null;
    if (before === after) continue;
    svc.bus.send(
      { type: 'stream', op: 'update', property: 'first_message_id', value: after, stream_id: stream.id, name: stream.name },
      stream.invite_only ? (result.subscribers.get(stream.id) ?? []) : everyone,
    );
  }
  return result.rows.length;
}
