/**
 * Messages, per-user message rows (flags), direct-message groups: the SQL.
 *
 * user_messages.flags is Zulip's UserMessage bitfield, bit for bit (FLAG).
 * The API's `recipient_id` is derived from (recipient_type, recipient_id):
 * Zulip's recipients are their own table; we encode them as
 * 3 × id + (type - 1), which is stable and unique across the three kinds.
 */
import { sql, type CompiledQuery, type Selectable } from 'kysely';
import type { Tx } from './db.ts';
import { dialectKey, prepared, preparedIn } from './prepared.ts';
import type { MessagesTable } from './schema.ts';

export type MessageRow = Selectable<MessagesTable>;

export const RECIPIENT = { PERSONAL: 1, STREAM: 2, GROUP: 3 } as const;

export const FLAG = {
  read: 1,
  starred: 2,
  collapsed: 4,
  mentioned: 8,
  stream_wildcard_mentioned: 16,
  topic_wildcard_mentioned: 32,
  group_mentioned: 64,
  force_expand: 128,
  force_collapse: 256,
  has_alert_word: 512,
  historical: 1024,
  is_private: 2048,
  active_mobile_push_notification: 4096,
} as const;
export type FlagName = keyof typeof FLAG;

const NON_API_FLAGS = new Set<string>(['is_private', 'active_mobile_push_notification']);
export const NON_EDITABLE_FLAGS = new Set<string>([
  'has_alert_word',
  'mentioned',
  'stream_wildcard_mentioned',
  'topic_wildcard_mentioned',
  'group_mentioned',
  'historical',
  'force_expand',
  'force_collapse',
]);
export const API_FLAGS = (Object.keys(FLAG) as FlagName[]).filter((f) => !NON_API_FLAGS.has(f));

/** Any mention flag (is:mentioned). */
export const MENTION_MASK = FLAG.mentioned | FLAG.stream_wildcard_mentioned | FLAG.topic_wildcard_mentioned | FLAG.group_mentioned;

/** Flags a user has on a message they can see without a row of their own. */
export const HISTORICAL_FLAGS = FLAG.read | FLAG.historical;

/** The API list of a bitmask. */
export function flagList(bits: number): string[] {
  const out: string[] = [];
  for (const name of Object.keys(FLAG) as FlagName[]) {
    if (bits & FLAG[name] && !NON_API_FLAGS.has(name)) out.push(name);
  }
  // Zulip keeps the deprecated wildcard_mentioned flag for older clients.
  if (bits & (FLAG.stream_wildcard_mentioned | FLAG.topic_wildcard_mentioned)) out.push('wildcard_mentioned');
  return out;
}

export function apiRecipientId(type: number, id: number): number {
  return 3 * id + (type - 1);
}

/** The columns a new message's row is written with, in the order of the compiled INSERT's parameters. */
const MESSAGE_COLUMNS = [
  'realm_id',
  'sender_id',
  'recipient_type',
  'recipient_id',
  'topic',
  'content',
  'rendered_content',
  'date_sent',
  'last_edit_time',
  'edit_history_json',
  'sending_client',
  'has_link',
  'has_image',
  'has_attachment',
  'is_me_message',
] as const satisfies ReadonlyArray<keyof Omit<MessageRow, 'id'>>;
/** Fails to typecheck when a column of the messages table is missing from MESSAGE_COLUMNS. */
const allMessageColumns: Exclude<keyof Omit<MessageRow, 'id'>, (typeof MESSAGE_COLUMNS)[number]> extends never ? true : never = true;
void allMessageColumns;

/** The message INSERT, compiled once per SQL dialect (every send runs it). */
const insertMessageQuery = prepared((db) =>
  db
    .insertInto('messages')
    .values(Object.fromEntries(MESSAGE_COLUMNS.map((c) => [c, 0])) as unknown as Omit<MessageRow, 'id'>)
    .returningAll(),
);

/** Stores a message; returns its row as stored (with its ID). */
export async function insertMessage(db: Tx, row: Omit<MessageRow, 'id'>): Promise<MessageRow> {
  const [stored] = await insertMessageQuery(db, ...MESSAGE_COLUMNS.map((c) => row[c]));
  if (!stored) throw new Error('insertMessage: no row returned');
  return stored;
}

/** The multi-row INSERT of user_messages, compiled once per SQL dialect and row count. */
const userMessagesInserts = new WeakMap<object, Map<number, CompiledQuery>>();

function userMessagesInsert(db: Tx, n: number): CompiledQuery {
  const key = dialectKey(db);
  let byCount = userMessagesInserts.get(key);
  if (!byCount) userMessagesInserts.set(key, (byCount = new Map()));
  let q = byCount.get(n);
  if (!q) {
    q = db.insertInto('user_messages').values(Array.from({ length: n }, () => ({ user_id: 0, message_id: 0, flags: 0 }))).compile();
    if (byCount.size >= 200) byCount.clear();
    byCount.set(n, q);
  }
  return q;
}

/** One row per recipient, in multi-row inserts of up to 500 rows. */
export async function insertUserMessages(db: Tx, rows: Array<{ user_id: number; message_id: number; flags: number }>): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    const parameters: number[] = [];
    for (const r of chunk) parameters.push(r.user_id, r.message_id, r.flags);
    await db.executeQuery({ ...userMessagesInsert(db, chunk.length), parameters });
  }
}

const messageByIdQuery = prepared((db) => db.selectFrom('messages').selectAll().where('realm_id', '=', 0).where('id', '=', 0));

export async function messageById(db: Tx, realmId: number, id: number): Promise<MessageRow | undefined> {
  return (await messageByIdQuery(db, realmId, id))[0];
}

const messagesByIdsQuery = preparedIn((db, ids) => db.selectFrom('messages').selectAll().where('realm_id', '=', 0).where('id', 'in', ids));

export async function messagesByIds(db: Tx, realmId: number, ids: number[]): Promise<MessageRow[]> {
  if (ids.length === 0) return [];
  const out = await messagesByIdsQuery(db, [realmId], ids);
  return out.sort((a, b) => a.id - b.id);
}

/** The user's flag bits for these messages (absent: no row). */
export async function userFlags(db: Tx, userId: number, ids: number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await db
      .selectFrom('user_messages')
      .select(['message_id', 'flags'])
      .where('user_id', '=', userId)
      .where('message_id', 'in', ids.slice(i, i + 1000))
      .execute();
    for (const r of rows) out.set(r.message_id, r.flags);
  }
  return out;
}

export async function setFlagBits(db: Tx, userId: number, ids: number[], bit: number, on: boolean): Promise<void> {
  for (let i = 0; i < ids.length; i += 1000) {
    const chunk = ids.slice(i, i + 1000);
    const q = db.updateTable('user_messages').where('user_id', '=', userId).where('message_id', 'in', chunk);
    if (on) await q.set({ flags: sql`flags | ${bit}` }).execute();
    else await q.set({ flags: sql`flags & ${~bit}` }).execute();
  }
}

export interface ReactionRow {
  message_id: number;
  user_id: number;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

const reactionsForQuery = preparedIn(
  (db, ids) => db.selectFrom('reactions').select(['id', 'message_id', 'user_id', 'emoji_name', 'emoji_code', 'reaction_type']).where('message_id', 'in', ids),
  10000,
);

/** The reactions of each of these messages that has any, in the order they were added. */
export async function reactionsFor(db: Tx, ids: number[]): Promise<Map<number, ReactionRow[]>> {
  const out = new Map<number, ReactionRow[]>();
  if (ids.length === 0) return out;
  const rows = (await reactionsForQuery(db, [], ids)).sort((a, b) => a.id - b.id);
  for (const { id: _id, ...r } of rows) {
    const list = out.get(r.message_id);
    if (list) list.push(r);
    else out.set(r.message_id, [r]);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Direct-message groups

export const memberKey = (ids: number[]): string => [...new Set(ids)].sort((a, b) => a - b).join(',');

export async function directGroupByKey(db: Tx, key: string): Promise<number | undefined> {
  const r = await db.selectFrom('direct_groups').select('id').where('member_key', '=', key).executeTakeFirst();
  return r?.id;
}

export async function getOrCreateDirectGroup(db: Tx, ids: number[]): Promise<number> {
  const key = memberKey(ids);
  const found = await directGroupByKey(db, key);
  if (found !== undefined) return found;
  // Two first messages to one new group at once (PostgreSQL): the second waits for the first's row and uses it.
  const r = await db.insertInto('direct_groups').values({ member_key: key }).onConflict((oc) => oc.column('member_key').doNothing()).returning('id').executeTakeFirst();
  if (!r) {
    const made = await directGroupByKey(db, key);
    if (made === undefined) throw new Error(`direct message group ${key} neither made nor found`);
    return made;
  }
  await db
    .insertInto('direct_group_members')
    .values(key.split(',').map((u) => ({ group_id: r.id, user_id: Number(u) })))
    .execute();
  return r.id;
}

/** Member IDs of direct-message groups, sorted. */
export async function directGroupMembers(db: Tx, groupIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (groupIds.length === 0) return out;
  const rows = await db.selectFrom('direct_groups').select(['id', 'member_key']).where('id', 'in', [...new Set(groupIds)]).execute();
  for (const r of rows) out.set(r.id, r.member_key.split(',').map(Number));
  return out;
}

/** Groups that contain every one of these users. */
export async function directGroupsContaining(db: Tx, userIds: number[]): Promise<number[]> {
  const ids = [...new Set(userIds)];
  const rows = await db
    .selectFrom('direct_group_members')
    .select('group_id')
    .where('user_id', 'in', ids)
    .groupBy('group_id')
    .having((eb) => eb.fn.count('user_id'), '=', ids.length)
    .execute();
  return rows.map((r) => r.group_id);
}

// ---------------------------------------------------------------------------
// Unread and recent conversations (register state)

export interface UnreadRow {
  message_id: number;
  flags: number;
  sender_id: number;
  recipient_type: number;
  recipient_id: number;
  topic: string;
}

/** The user's unread rows (or those of `ids`, read or not), newest `limit` of them, oldest first. */
export async function unreadRows(db: Tx, userId: number, limit: number, ids?: number[]): Promise<UnreadRow[]> {
  let q = db
    .selectFrom('user_messages as um')
    .innerJoin('messages as m', 'm.id', 'um.message_id')
    .select(['um.message_id', 'um.flags', 'm.sender_id', 'm.recipient_type', 'm.recipient_id', 'm.topic'])
    .where('um.user_id', '=', userId);
  if (ids) q = q.where('um.message_id', 'in', ids.length ? ids : [-1]);
  else {
    q = q.where(sql<boolean>`(um.flags & ${FLAG.read}) = 0`);
    // Not those of channels the user has left (Zulip's get_inactive_recipient_ids).
    q = q.where((eb) =>
      eb.or([
        eb('m.recipient_type', '!=', RECIPIENT.STREAM),
        eb('m.recipient_id', 'not in', eb.selectFrom('subscriptions').select('stream_id').where('user_id', '=', userId).where('active', '=', 0)),
      ]),
    );
  }
  const rows = await q.orderBy('um.message_id', 'desc').limit(limit).execute();
  return rows.reverse();
}

/** The newest `limit` message IDs of the channels taken together, newest first (each channel read newest first through its index). */
export async function newestChannelMessageIds(db: Tx, streamIds: number[], limit: number): Promise<number[]> {
  const ids: number[] = [];
  for (const streamId of streamIds) {
    const rows = await db
      .selectFrom('messages')
      .select('id')
      .where('recipient_type', '=', RECIPIENT.STREAM)
      .where('recipient_id', '=', streamId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    for (const r of rows) ids.push(r.id);
  }
  return ids.sort((a, b) => b - a).slice(0, limit);
}

export async function maxMessageIdFor(db: Tx, userId: number): Promise<number> {
  const r = await db.selectFrom('user_messages').select((eb) => eb.fn.max('message_id').as('m')).where('user_id', '=', userId).executeTakeFirst();
  return r?.m == null ? -1 : Number(r.m);
}

/** The user's newest direct messages (for recent_private_conversations). */
export async function recentDirectMessages(db: Tx, userId: number, limit: number): Promise<Array<{ id: number; sender_id: number; recipient_type: number; recipient_id: number }>> {
  return db
    .selectFrom('user_messages as um')
    .innerJoin('messages as m', 'm.id', 'um.message_id')
    .select(['m.id', 'm.sender_id', 'm.recipient_type', 'm.recipient_id'])
    .where('um.user_id', '=', userId)
    .where(sql<boolean>`(um.flags & ${FLAG.is_private}) <> 0`)
    .orderBy('m.id', 'desc')
    .limit(limit)
    .execute();
}

/** Unread message IDs of the user in a channel (optionally one topic). */
export async function unreadInStream(db: Tx, userId: number, streamId: number, topic?: string): Promise<number[]> {
  let q = db
    .selectFrom('user_messages as um')
    .innerJoin('messages as m', 'm.id', 'um.message_id')
    .select('um.message_id')
    .where('um.user_id', '=', userId)
    .where('m.recipient_type', '=', RECIPIENT.STREAM)
    .where('m.recipient_id', '=', streamId)
    .where(sql<boolean>`(um.flags & ${FLAG.read}) = 0`);
  if (topic !== undefined) q = q.where(sql`lower(m.topic)`, '=', sql`lower(${topic})`);
  const rows = await q.orderBy('um.message_id').execute();
  return rows.map((r) => r.message_id);
}

export async function userHasTopic(db: Tx, userId: number, streamId: number, topic: string): Promise<boolean> {
  const r = await db
    .selectFrom('user_messages as um')
    .innerJoin('messages as m', 'm.id', 'um.message_id')
    .select('um.message_id')
    .where('um.user_id', '=', userId)
    .where('m.recipient_type', '=', RECIPIENT.STREAM)
    .where('m.recipient_id', '=', streamId)
    .where(sql`lower(m.topic)`, '=', sql`lower(${topic})`)
    .limit(1)
    .executeTakeFirst();
  return r !== undefined;
}

export async function allUnreadIds(db: Tx, userId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('user_messages')
    .select('message_id')
    .where('user_id', '=', userId)
    .where(sql<boolean>`(flags & ${FLAG.read}) = 0`)
    .orderBy('message_id')
    .execute();
  return rows.map((r) => r.message_id);
}

/** Topic visibility policies of a user: key `${stream_id}\n${lower(topic)}`. */
export async function userTopicPolicies(db: Tx, userId: number): Promise<Map<string, number>> {
  const rows = await db.selectFrom('user_topics').select(['stream_id', 'topic', 'visibility_policy']).where('user_id', '=', userId).execute();
  return new Map(rows.map((r) => [`${r.stream_id}\n${r.topic.toLowerCase()}`, r.visibility_policy]));
}

/** IDs of messages sent by these users, by kind (for deactivation's deletion actions). */
export async function messageIdsBySenders(
  db: Tx,
  realmId: number,
  senderIds: number[],
  kinds: { publicChannels: boolean; privateChannels: boolean; directMessages: boolean },
): Promise<number[]> {
  if (senderIds.length === 0) return [];
  const ids: number[] = [];
  if (kinds.publicChannels || kinds.privateChannels) {
    let q = db
      .selectFrom('messages')
      .innerJoin('streams', 'streams.id', 'messages.recipient_id')
      .select('messages.id')
      .where('messages.realm_id', '=', realmId)
      .where('messages.recipient_type', '=', RECIPIENT.STREAM)
      .where('messages.sender_id', 'in', senderIds);
    if (!(kinds.publicChannels && kinds.privateChannels)) q = q.where('streams.invite_only', '=', kinds.privateChannels ? 1 : 0);
    ids.push(...(await q.execute()).map((r) => r.id));
  }
  if (kinds.directMessages) {
    const rows = await db
      .selectFrom('messages')
      .select('id')
      .where('realm_id', '=', realmId)
      .where('recipient_type', '!=', RECIPIENT.STREAM)
      .where('sender_id', 'in', senderIds)
      .execute();
    ids.push(...rows.map((r) => r.id));
  }
  return ids.sort((a, b) => a - b);
}

/** User IDs holding each message (their user_messages rows). */
export async function messageHolders(db: Tx, ids: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (ids.length === 0) return out;
  const rows = await db.selectFrom('user_messages').select(['message_id', 'user_id']).where('message_id', 'in', ids).execute();
  for (const r of rows) {
    let list = out.get(r.message_id);
    if (!list) out.set(r.message_id, (list = []));
    list.push(r.user_id);
  }
  return out;
}

/** The oldest message ID of each channel (absent when it has none). */
export async function firstMessageIds(db: Tx, streamIds: number[]): Promise<Map<number, number>> {
  if (streamIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('messages')
    .select(['recipient_id', (eb) => eb.fn.min<number>('id').as('first')])
    .where('recipient_type', '=', RECIPIENT.STREAM)
    .where('recipient_id', 'in', streamIds)
    .groupBy('recipient_id')
    .execute();
  return new Map(rows.map((r) => [r.recipient_id, Number(r.first)]));
}

/** Deletes messages with their per-user rows, reactions and submessages. */
export async function deleteMessageRows(db: Tx, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('reactions').where('message_id', 'in', ids).execute();
  await db.deleteFrom('submessages').where('message_id', 'in', ids).execute();
  await db.deleteFrom('user_messages').where('message_id', 'in', ids).execute();
  await db.deleteFrom('messages').where('id', 'in', ids).execute();
}

/** IDs of the messages a user has starred, ascending (register's starred_messages). */
export async function starredMessageIds(db: Tx, userId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('user_messages')
    .select('message_id')
    .where('user_id', '=', userId)
    .where(sql<boolean>`(flags & ${FLAG.starred}) <> 0`)
    .orderBy('message_id')
    .execute();
  return rows.map((r) => r.message_id);
}

/** A user's topic visibility rows with the channel's name (register's user_topics / muted_topics). */
export async function userTopicRows(db: Tx, userId: number) {
  return db
    .selectFrom('user_topics as ut')
    .innerJoin('streams as s', 's.id', 'ut.stream_id')
    .select(['ut.stream_id', 's.name as stream_name', 'ut.topic', 'ut.visibility_policy', 'ut.last_updated'])
    .where('ut.user_id', '=', userId)
    .orderBy('ut.last_updated')
    .orderBy('ut.stream_id')
    .execute();
}

/** The newest message ID of a channel topic (topic names compare case-insensitively), through the messages_topic index. */
export async function latestTopicMessageId(db: Tx, streamId: number, topic: string): Promise<number | undefined> {
  const r = await db
    .selectFrom('messages')
    .select('id')
    .where('recipient_id', '=', streamId)
    .where(sql`lower(topic)`, '=', sql`lower(${topic})`)
    .where('recipient_type', '=', RECIPIENT.STREAM)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r?.id;
}

/** Whether a channel has a message in the topic (case-insensitive), i.e. the topic exists. */
export async function topicHasMessages(db: Tx, streamId: number, topic: string): Promise<boolean> {
  return (await latestTopicMessageId(db, streamId, topic)) !== undefined;
}

/** Distinct senders of a channel topic (topic wildcard mentions reach these). */
export async function topicSenderIds(db: Tx, streamId: number, topic: string): Promise<number[]> {
  const rows = await db
    .selectFrom('messages')
    .select('sender_id')
    .distinct()
    .where('recipient_type', '=', RECIPIENT.STREAM)
    .where('recipient_id', '=', streamId)
    .where(sql`lower(topic)`, '=', sql`lower(${topic})`)
    .execute();
  return rows.map((r) => r.sender_id);
}
