/**
 * Personal message flags: POST /messages/flags, /messages/flags/narrow,
 * /mark_all_as_read, /mark_stream_as_read, /mark_topic_as_read, and the
 * `update_message_flags` event. Messages the user can see without a row of
 * their own (channel history) get a "historical" row when a flag is set.
 */
import { lockUserRowsOf } from '../store/locks.ts';
import type { Services } from '../services.ts';
import { transaction, type Tx } from '../store/db.ts';
import { badRequest } from '../lib/errors.ts';
import type { UserRow } from '../store/users.ts';
import { mutedStreamIds, subscribedStreamIds } from '../store/streams.ts';
import {
  allUnreadIds,
  API_FLAGS,
  FLAG,
  HISTORICAL_FLAGS,
  insertUserMessages,
  messagesByIds,
  NON_EDITABLE_FLAGS,
  RECIPIENT,
  setFlagBits,
  unreadInStream,
  unreadRows,
  userFlags,
  userHasTopic,
  userTopicPolicies,
  type UnreadRow,
  type FlagName,
} from '../store/messages.ts';
import { directGroupMembers } from '../store/messages.ts';
import { accessMessage, accessStreamById } from './access.ts';
import { cachedRealm } from './cache.ts';
import { fetchWindow, parseAnchor } from './messages-fetch.ts';
import { loadDirectory } from './messages-format.ts';
import { cleanTopicOperand, type NarrowTerm } from './narrow.ts';
import type { ZulipEvent } from '../events/types.ts';

export const MAX_MESSAGES_PER_UPDATE = 5000;

function checkFlag(flag: string, op: string): number {
  if (!(API_FLAGS as string[]).includes(flag)) throw badRequest(`Invalid flag: '${flag}'`);
  if (NON_EDITABLE_FLAGS.has(flag)) throw badRequest(`Flag not editable: '${flag}'`);
  if (op !== 'add' && op !== 'remove') throw badRequest(`Invalid message flag operation: '${op}'`);
  return FLAG[flag as FlagName];
}

/** Whether the user has muted the channel or topic of an unread row (Zulip's is_row_muted). */
async function mutedChecker(db: Tx, user: UserRow): Promise<(streamId: number, topic: string) => boolean> {
  const mutedStreams = await mutedStreamIds(db, user.id);
  const policies = await userTopicPolicies(db, user.id);
  return (streamId, topic) => {
    const p = policies.get(`${streamId}\n${topic.toLowerCase()}`) ?? 0;
    if (mutedStreams.has(streamId)) return !(p === 2 || p === 3);
    return p === 1;
  };
}

/** Details of messages being marked unread, for update_message_flags (remove read). */
export async function unreadMessageDetails(db: Tx, user: UserRow, rows: UnreadRow[]): Promise<Record<string, Record<string, unknown>>> {
  const isMuted = await mutedChecker(db, user);
  const groups = await directGroupMembers(db, rows.filter((r) => r.recipient_type === RECIPIENT.GROUP).map((r) => r.recipient_id));
  const out: Record<string, Record<string, unknown>> = {};
  for (const r of rows) {
    let d: Record<string, unknown>;
    if (r.recipient_type === RECIPIENT.STREAM) {
      d = { type: 'stream', stream_id: r.recipient_id, topic: r.topic, unmuted_stream_msg: !isMuted(r.recipient_id, r.topic) };
    } else if (r.recipient_type === RECIPIENT.PERSONAL) {
      const other = r.sender_id === user.id ? r.recipient_id : r.sender_id;
      d = { type: 'private', user_ids: other === user.id ? [] : [other] };
    } else {
      d = { type: 'private', user_ids: (groups.get(r.recipient_id) ?? []).filter((u) => u !== user.id) };
    }
    if (r.flags & FLAG.mentioned) d.mentioned = true;
    out[String(r.message_id)] = d;
  }
  return out;
}

/** Zulip's do_update_message_flags: returns the messages that changed. */
export async function updateFlags(svc: Services, user: UserRow, op: string, flag: string, messageIds: number[]): Promise<{ changed: number[]; ignoredChannels: number[] }> {
  const bit = checkFlag(flag, op);
  const adding = op === 'add';
  const target = adding ? bit : 0;
  const res = await transaction(svc.store, async (tx) => {
    // One user's flag changes run one after another (PostgreSQL): two that
    // create the same historical row would otherwise both insert it.
    await lockUserRowsOf(svc.store, tx, user.id);
    let ids = [...messageIds];
    const ignored = new Set<number>();
    if (flag === 'read' && !adding) {
      const subscribed = new Set(await subscribedStreamIds(tx, user.id));
      const rows = await messagesByIds(tx, svc.realmId, ids);
      const drop = new Set<number>();
      for (const r of rows) {
        if (r.recipient_type === RECIPIENT.STREAM && !subscribed.has(r.recipient_id)) {
          drop.add(r.id);
          ignored.add(r.recipient_id);
        }
      }
      ids = ids.filter((i) => !drop.has(i));
    }
    const have = await userFlags(tx, user.id, ids);
    const changed = [...new Set(ids)].filter((i) => ((have.get(i) ?? HISTORICAL_FLAGS) & bit) !== target);
    if ((HISTORICAL_FLAGS & bit) !== target) {
      const missing = changed.filter((i) => !have.has(i));
      for (const i of missing) {
        if (!(await accessMessage(svc, tx, user, i))) throw badRequest('Invalid message(s)');
      }
      if (missing.length) {
        await insertUserMessages(tx, missing.map((i) => ({ user_id: user.id, message_id: i, flags: adding ? HISTORICAL_FLAGS | bit : HISTORICAL_FLAGS & ~bit })));
      }
    }
    await setFlagBits(tx, user.id, changed.filter((i) => have.has(i)), bit, adding);
    const details = flag === 'read' && !adding ? await unreadMessageDetails(tx, user, await unreadRows(tx, user.id, 50000, changed)) : undefined;
    return { changed, ignored: [...ignored].sort((a, b) => a - b), details };
  });
  const event: ZulipEvent = { type: 'update_message_flags', op, operation: op, flag, messages: res.changed, all: false };
  if (res.details) event.message_details = res.details;
  // The details name the empty topic for clients without empty_topic_name (the filter in src/state/messages.ts).
  const meta = res.details ? { emptyTopicName: String((await cachedRealm(svc)).settings.empty_topic_display_name) } : undefined;
  svc.bus.send(event, [user.id], meta && { meta });
  return { changed: res.changed, ignoredChannels: res.ignored };
}

export async function updateFlagsForNarrow(
  svc: Services,
  user: UserRow,
  input: { anchor: string; includeAnchor: boolean; numBefore: number; numAfter: number; narrow: NarrowTerm[] | null; op: string; flag: string },
): Promise<Record<string, unknown>> {
  const anchor = parseAnchor(input.anchor, false);
  if (input.numBefore > 0 && input.numAfter > 0 && !input.includeAnchor) throw badRequest('The anchor can only be excluded at an end of the range');
  checkFlag(input.flag, input.op);
  const numBefore = Math.min(input.numBefore, Math.max(MAX_MESSAGES_PER_UPDATE - input.numAfter, MAX_MESSAGES_PER_UPDATE / 2));
  const numAfter = Math.min(input.numAfter, MAX_MESSAGES_PER_UPDATE - numBefore);
  const db = svc.store.db;
  const dir = await loadDirectory(svc, db);
  const w = await fetchWindow(svc, db, user, dir, input.narrow ?? [], anchor, numBefore, numAfter, input.includeAnchor);
  const ids = w.ids.map((r) => r.id);
  const { changed, ignoredChannels } = await updateFlags(svc, user, input.op, input.flag, ids);
  return {
    processed_count: ids.length,
    updated_count: changed.length,
    first_processed_id: ids.length ? ids[0] : null,
    last_processed_id: ids.length ? ids[ids.length - 1] : null,
    found_oldest: w.foundOldest,
    found_newest: w.foundNewest,
    ignored_because_not_subscribed_channels: ignoredChannels,
  };
}

async function markRead(svc: Services, user: UserRow, ids: number[], all: boolean): Promise<number> {
  await transaction(svc.store, (tx) => setFlagBits(tx, user.id, ids, FLAG.read, true));
  if (ids.length || all) {
    svc.bus.send({ type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: all ? [] : ids, all }, [user.id]);
  }
  return ids.length;
}

export async function markAllAsRead(svc: Services, user: UserRow): Promise<Record<string, unknown>> {
  await markRead(svc, user, await allUnreadIds(svc.store.db, user.id), true);
  return { complete: true };
}

export async function markStreamAsRead(svc: Services, user: UserRow, streamId: number): Promise<void> {
  const a = await accessStreamById(svc, svc.store.db, user, streamId);
  await markRead(svc, user, await unreadInStream(svc.store.db, user.id, a.stream.id), false);
}

export async function markTopicAsRead(svc: Services, user: UserRow, streamId: number, topicName: string): Promise<void> {
  const db = svc.store.db;
  const a = await accessStreamById(svc, db, user, streamId);
  const dir = await loadDirectory(svc, db);
  const topic = cleanTopicOperand(topicName, dir.emptyTopicDisplayName);
  if (topic && !(await userHasTopic(db, user.id, a.stream.id, topic))) throw badRequest(`No such topic '${topicName}'`);
  await markRead(svc, user, await unreadInStream(db, user.id, a.stream.id, topic), false);
}
