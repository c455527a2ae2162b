/**
 * The SQL of a resolved narrow (see src/actions/narrow.ts): one condition
 * per term over `messages m` joined with the user's `user_messages um`, and
 * the anchored range queries of message fetching. Full-text search uses
 * SQLite FTS5 (table messages_fts) or PostgreSQL to_tsvector, falling back
 * to a tokenized LIKE when FTS5 is missing.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Store, Tx } from './db.ts';
import { FLAG, HISTORICAL_FLAGS, MENTION_MASK, RECIPIENT } from './messages.ts';
import { RESOLVED_TOPIC_PREFIX } from '../lib/topic.ts';

export type ResolvedTerm = { negated: boolean } & (
  | { kind: 'channel'; streamId: number }
  | { kind: 'channels'; which: 'public' | 'web-public' }
  | { kind: 'topic'; topic: string }
  | { kind: 'sender'; userId: number }
  /** A visible personal mention of the user in the rendered content. */
  | { kind: 'mentions'; userId: number }
  | { kind: 'id'; id: number }
  | { kind: 'dm'; me: number; others: number[]; groupId: number | null }
  /** userId -1: only direct-message groups (legacy group-pm-with). */
  | { kind: 'dm-including'; me: number; userId: number; groupIds: number[] }
  | { kind: 'is'; what: 'dm' | 'starred' | 'mentioned' | 'alerted' | 'unread' | 'resolved' | 'followed' | 'muted' }
  | { kind: 'has'; what: 'link' | 'attachment' | 'image' | 'reaction' }
  | { kind: 'search'; text: string }
  | { kind: 'in'; what: 'home' | 'all' }
);

type Cond = RawBuilder<unknown>;

export interface NarrowQuery {
  realmId: number;
  /**
   * The reader; null for a spectator (a logged-out visitor), whose query reads
   * no user's rows and sees every message as read (Zulip's web-public query).
   */
  userId: number | null;
  terms: ResolvedTerm[];
  /** Messages without a row of the user are included (channel history). */
  includeHistory: boolean;
}

const ftsCache = new WeakMap<object, boolean>();

/** Whether the SQLite FTS5 table exists (created by migration when FTS5 is compiled in). */
export async function ftsTableExists(db: Kysely<any>): Promise<boolean> {
  const r = await sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_master WHERE name = 'messages_fts'`.execute(db);
  return Number(r.rows[0]?.n ?? 0) > 0;
}

/** The same for a store, asked once per database (search is always there on PostgreSQL). */
export async function hasFts(store: Store): Promise<boolean> {
  if (store.dialect === 'postgres') return true;
  const cached = ftsCache.get(store.db);
  if (cached !== undefined) return cached;
  const ok = await ftsTableExists(store.db);
  ftsCache.set(store.db, ok);
  return ok;
}

const TRUE: Cond = sql`1 = 1`;
const FALSE: Cond = sql`1 = 0`;
const inList = (ids: number[]): Cond => (ids.length ? sql`(${sql.join(ids)})` : sql`(NULL)`);

function mutedCond(userId: number): Cond {
  return sql`(m.recipient_type = ${RECIPIENT.STREAM} AND (
    EXISTS (SELECT 1 FROM user_topics ut WHERE ut.user_id = ${userId} AND ut.stream_id = m.recipient_id AND lower(ut.topic) = lower(m.topic) AND ut.visibility_policy = 1)
    OR (EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = ${userId} AND s.stream_id = m.recipient_id AND s.active = 1 AND s.is_muted = 1)
        AND NOT EXISTS (SELECT 1 FROM user_topics ut2 WHERE ut2.user_id = ${userId} AND ut2.stream_id = m.recipient_id AND lower(ut2.topic) = lower(m.topic) AND ut2.visibility_policy IN (2, 3)))))`;
}

/** Search words: quoted phrases kept together, other words split on spaces. */
export function searchTerms(text: string): Array<{ phrase: boolean; text: string }> {
  const out: Array<{ phrase: boolean; text: string }> = [];
  for (const m of text.matchAll(/"([^"]+)"|(\S+)/g)) {
    if (m[1] !== undefined) out.push({ phrase: true, text: m[1] });
    else out.push({ phrase: false, text: m[2] });
  }
  return out.filter((t) => /[\p{L}\p{N}]/u.test(t.text));
}

function likeEscape(s: string): string {
  return s.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c);
}

function searchCond(dialect: 'sqlite' | 'postgres', fts: boolean, text: string): Cond {
  const terms = searchTerms(text);
  if (terms.length === 0) return TRUE;
  const likes = (words: string[]) =>
    words.map((w) => {
      const pat = `%${likeEscape(w)}%`;
      return sql`(lower(m.content) LIKE lower(${pat}) ESCAPE '\\' OR lower(m.topic) LIKE lower(${pat}) ESCAPE '\\')`;
    });
  if (dialect === 'postgres') {
    const conds: Cond[] = [sql`to_tsvector('english'::regconfig, m.topic || ' ' || m.content) @@ plainto_tsquery('english'::regconfig, ${text.replace(/"/g, ' ')})`];
    conds.push(...likes(terms.filter((t) => t.phrase).map((t) => t.text)));
    return sql`(${sql.join(conds, sql` AND `)})`;
  }
  if (fts) {
    const q = terms.map((t) => `"${t.text.replace(/"/g, '""')}"`).join(' ');
    return sql`m.id IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ${q})`;
  }
  return sql`(${sql.join(likes(terms.map((t) => t.text)), sql` AND `)})`;
}

function termCond(t: ResolvedTerm, q: NarrowQuery, flags: Cond, dialect: 'sqlite' | 'postgres', fts: boolean): Cond {
  // No user has ID 0: a spectator's narrow has no term about "me" (see src/actions/messages-fetch.ts).
  const me = q.userId ?? 0;
  switch (t.kind) {
    case 'channel':
      return sql`(m.recipient_type = ${RECIPIENT.STREAM} AND m.recipient_id = ${t.streamId})`;
    case 'channels':
      return t.which === 'public'
        ? sql`(m.recipient_type = ${RECIPIENT.STREAM} AND m.recipient_id IN (SELECT st.id FROM streams st WHERE st.realm_id = ${q.realmId} AND st.invite_only = 0))`
        : sql`(m.recipient_type = ${RECIPIENT.STREAM} AND m.recipient_id IN (SELECT st.id FROM streams st WHERE st.realm_id = ${q.realmId} AND st.is_web_public = 1))`;
    case 'topic':
      return sql`(m.recipient_type = ${RECIPIENT.STREAM} AND lower(m.topic) = lower(${t.topic}))`;
    case 'sender':
      return sql`m.sender_id = ${t.userId}`;
    case 'mentions': {
      // The renderer's span for a visible personal mention; silent, group and wildcard mentions differ from it.
      const pat = `%<span class="user-mention" data-user-id="${t.userId}">%`;
      return sql`m.rendered_content LIKE ${pat}`;
    }
    case 'id':
      return sql`m.id = ${t.id}`;
    case 'dm':
      if (t.others.length === 0) return sql`(m.recipient_type = ${RECIPIENT.PERSONAL} AND m.sender_id = ${me} AND m.recipient_id = ${me})`;
      if (t.others.length === 1) {
        const o = t.others[0];
        return sql`(m.recipient_type = ${RECIPIENT.PERSONAL} AND ((m.sender_id = ${o} AND m.recipient_id = ${me}) OR (m.sender_id = ${me} AND m.recipient_id = ${o})))`;
      }
      return t.groupId === null ? FALSE : sql`(m.recipient_type = ${RECIPIENT.GROUP} AND m.recipient_id = ${t.groupId})`;
    case 'dm-including': {
      const groups = sql`(m.recipient_type = ${RECIPIENT.GROUP} AND m.recipient_id IN ${inList(t.groupIds)})`;
      if (t.userId === -1) return groups;
      if (t.userId === me) return sql`m.recipient_type <> ${RECIPIENT.STREAM}`;
      const u = t.userId;
      return sql`((m.recipient_type = ${RECIPIENT.PERSONAL} AND ((m.sender_id = ${u} AND m.recipient_id = ${me}) OR (m.sender_id = ${me} AND m.recipient_id = ${u}))) OR ${groups})`;
    }
    case 'is':
      switch (t.what) {
        case 'dm':
          return sql`m.recipient_type <> ${RECIPIENT.STREAM}`;
        case 'starred':
          return sql`(${flags} & ${FLAG.starred}) <> 0`;
        case 'mentioned':
          return sql`(${flags} & ${MENTION_MASK}) <> 0`;
        case 'alerted':
          return sql`(${flags} & ${FLAG.has_alert_word}) <> 0`;
        case 'unread':
          return sql`(${flags} & ${FLAG.read}) = 0`;
        case 'resolved':
          return sql`(m.recipient_type = ${RECIPIENT.STREAM} AND m.topic LIKE ${RESOLVED_TOPIC_PREFIX + '%'})`;
        case 'followed':
          return sql`(m.recipient_type = ${RECIPIENT.STREAM} AND EXISTS (SELECT 1 FROM user_topics ut WHERE ut.user_id = ${me} AND ut.stream_id = m.recipient_id AND lower(ut.topic) = lower(m.topic) AND ut.visibility_policy = 3))`;
        case 'muted':
          return mutedCond(me);
      }
      break;
    case 'has':
      if (t.what === 'reaction') return sql`EXISTS (SELECT 1 FROM reactions r WHERE r.message_id = m.id)`;
      if (t.what === 'link') return sql`m.has_link = 1`;
      if (t.what === 'image') return sql`m.has_image = 1`;
      return sql`m.has_attachment = 1`;
    case 'in':
      return t.what === 'all' ? TRUE : sql`NOT ${mutedCond(me)}`;
    case 'search':
      return searchCond(dialect, fts, t.text);
  }
  return TRUE;
}

function flagsExpr(q: NarrowQuery): Cond {
  if (q.userId === null) return sql`${sql.lit(FLAG.read)}`;
  return q.includeHistory ? sql`COALESCE(um.flags, ${HISTORICAL_FLAGS})` : sql`um.flags`;
}

export async function narrowWhere(store: Store, q: NarrowQuery): Promise<Cond> {
  const fts = await hasFts(store);
  const flags = flagsExpr(q);
  // A channel term already confines the narrow to one of the organization's
  // channels; the realm condition would then only make the database read every
  // message row, where the channel's index alone answers (IDs in order).
  const inChannel = q.terms.some((t) => t.kind === 'channel' && !t.negated);
  const conds: Cond[] = inChannel ? [] : [sql`m.realm_id = ${q.realmId}`];
  for (const t of q.terms) {
    const c = termCond(t, q, flags, store.dialect, fts);
    conds.push(t.negated ? sql`NOT (${c})` : c);
  }
  return sql.join(conds, sql` AND `);
}

export interface IdFlags {
  id: number;
  flags: number;
}

/**
 * Message IDs (and the user's flags) matching the narrow, with an extra
 * condition, in `order`, at most `limit`.
 */
export async function narrowIds(db: Tx, store: Store, q: NarrowQuery, opts: { extra?: Cond; order: 'asc' | 'desc'; limit?: number }): Promise<IdFlags[]> {
  const where = await narrowWhere(store, q);
  const join = q.userId === null
    ? sql``
    : q.includeHistory
    ? sql`LEFT JOIN user_messages um ON um.message_id = m.id AND um.user_id = ${q.userId}`
    : sql`JOIN user_messages um ON um.message_id = m.id AND um.user_id = ${q.userId}`;
  const extra = opts.extra ? sql` AND ${opts.extra}` : sql``;
  const order = opts.order === 'asc' ? sql`ASC` : sql`DESC`;
  // A number in the SQL, not a parameter: SQLite prepares a statement with a bound LIMIT anew at each run (see db.ts).
  if (opts.limit !== undefined && !Number.isSafeInteger(opts.limit)) throw new Error(`narrowIds: bad limit ${opts.limit}`);
  const limit = opts.limit !== undefined ? sql` LIMIT ${sql.lit(opts.limit)}` : sql``;
  const r = await sql<{ id: number; flags: number }>`SELECT m.id AS id, ${flagsExpr(q)} AS flags FROM messages m ${join} WHERE ${where}${extra} ORDER BY m.id ${order}${limit}`.execute(db);
  return r.rows.map((row) => ({ id: Number(row.id), flags: Number(row.flags) }));
}

/** Which of the given message IDs match the narrow (ascending, with the user's flags). */
export async function narrowIdsAmong(db: Tx, store: Store, q: NarrowQuery, ids: number[]): Promise<IdFlags[]> {
  if (ids.length === 0) return [];
  return narrowIds(db, store, q, { extra: sql`m.id IN (${sql.join(ids)})`, order: 'asc' });
}

export const LARGER_THAN_MAX_MESSAGE_ID = 10000000000000000;

export interface RangeResult {
  rows: IdFlags[];
  foundAnchor: boolean;
  foundOldest: boolean;
  foundNewest: boolean;
  historyLimited: boolean;
}

/**
 * Where GET /messages with anchor "date" anchors: the first matching message
 * sent at or after `seconds`; when there is none, the newest end
 * (LARGER_THAN_MAX_MESSAGE_ID), as Zulip's API documentation describes.
 */
export async function messageAtOrAfterDate(db: Tx, store: Store, q: NarrowQuery, seconds: number): Promise<number> {
  const [after] = await narrowIds(db, store, q, { extra: sql`m.date_sent >= ${seconds}`, order: 'asc', limit: 1 });
  return after?.id ?? LARGER_THAN_MAX_MESSAGE_ID;
}

/** The anchored window of Zulip's message fetch (limit_query_to_range + post-processing). */
export async function narrowRange(
  db: Tx,
  store: Store,
  q: NarrowQuery,
  anchor: number,
  numBefore: number,
  numAfter: number,
  includeAnchor: boolean,
  firstVisibleMessageId = 0,
): Promise<RangeResult> {
  const left = anchor === 0;
  const right = anchor >= LARGER_THAN_MAX_MESSAGE_ID;
  if (right) numAfter = 0;
  const needBefore = !left && numBefore > 0;
  const needAfter = !right && numAfter > 0;
  let rows: IdFlags[] = [];
  if (needBefore && needAfter) {
    const before = await narrowIds(db, store, q, { extra: sql`m.id <= ${anchor - 1}`, order: 'desc', limit: numBefore });
    const after = await narrowIds(db, store, q, { extra: sql`m.id >= ${anchor}`, order: 'asc', limit: numAfter + 1 });
    rows = [...before, ...after];
  } else if (needBefore) {
    const bAnchor = anchor - (includeAnchor ? 0 : 1);
    const limit = numBefore + (!right && includeAnchor ? 1 : 0);
    rows = await narrowIds(db, store, q, { extra: right ? undefined : sql`m.id <= ${bAnchor}`, order: 'desc', limit });
  } else if (needAfter) {
    const aAnchor = anchor + (includeAnchor ? 0 : 1);
    rows = await narrowIds(db, store, q, { extra: left ? undefined : sql`m.id >= ${aAnchor}`, order: 'asc', limit: numAfter + (includeAnchor ? 1 : 0) });
  } else {
    rows = await narrowIds(db, store, q, { extra: sql`m.id = ${anchor}`, order: 'asc' });
  }
  rows.sort((a, b) => a.id - b.id);
  // Messages older than the organization's visibility limit are not shown (Zulip's first_visible_message_id).
  const visible = firstVisibleMessageId > 0 ? rows.filter((r) => r.id >= firstVisibleMessageId) : rows;
  const rowsLimited = visible.length !== rows.length;
  rows = visible;
  let beforeRows: IdFlags[];
  let anchorRows: IdFlags[];
  let afterRows: IdFlags[];
  if (right) {
    beforeRows = rows;
    anchorRows = [];
    afterRows = [];
  } else {
    beforeRows = rows.filter((r) => r.id < anchor);
    anchorRows = rows.filter((r) => r.id === anchor);
    afterRows = rows.filter((r) => r.id > anchor);
  }
  if (numBefore) beforeRows = beforeRows.slice(-numBefore);
  if (numAfter) afterRows = afterRows.slice(0, numAfter);
  const foundOldest = left || beforeRows.length < numBefore;
  return {
    rows: [...beforeRows, ...anchorRows, ...afterRows],
    foundAnchor: anchorRows.length === 1,
    foundOldest,
    foundNewest: right || afterRows.length < numAfter,
    // The oldest visible message was reached and older ones were hidden by the limit.
    historyLimited: rowsLimited && foundOldest,
  };
}

/**
 * Zulip's first_visible_message_id: with a message visibility limit of N,
 * the ID of the organization's N-th newest message (0: no limit, or fewer messages).
 */
export async function firstVisibleMessageId(db: Tx, realmId: number, limit: number | null): Promise<number> {
  if (limit === null || !(limit > 0)) return 0;
  const row = await db.selectFrom('messages').select('id').where('realm_id', '=', realmId).orderBy('id', 'desc').limit(1).offset(limit - 1).executeTakeFirst();
  return row ? Number(row.id) : 0;
}

/** The first unread message matching the narrow (muted conversations excluded), or none. */
export async function firstUnread(db: Tx, store: Store, q: NarrowQuery, streamNarrowId: number | null): Promise<number> {
  // A spectator has read everything.
  if (q.userId === null) return LARGER_THAN_MAX_MESSAGE_ID;
  const unmuted = streamNarrowId !== null
    ? sql`NOT EXISTS (SELECT 1 FROM user_topics ut WHERE ut.user_id = ${q.userId} AND ut.stream_id = m.recipient_id AND lower(ut.topic) = lower(m.topic) AND ut.visibility_policy = 1)`
    : sql`NOT ${mutedCond(q.userId)}`;
  const rows = await narrowIds(db, store, { ...q, includeHistory: false }, { extra: sql`(um.flags & ${FLAG.read}) = 0 AND ${unmuted}`, order: 'asc', limit: 1 });
  return rows.length ? rows[0].id : LARGER_THAN_MAX_MESSAGE_ID;
}
