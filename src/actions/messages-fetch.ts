/**
 * Reading messages: GET /messages (anchored windows over a narrow, or
 * message_ids), GET /messages/{id}, GET /messages/matches_narrow and
 * POST /messages/render. Users see their own user_messages rows, plus the
 * history of channels whose history they may access (Zulip's
 * include_history), which comes flagged read + historical. Spectators
 * (logged-out visitors, where the organization allows them) read web-public
 * channels only, every message flagged read.
 */
import { cachedGroups, cachedMessageRows } from './cache.ts';
import type { Services } from '../services.ts';
import type { Tx } from '../store/db.ts';
import { ApiError, badRequest, unauthorized } from '../lib/errors.ts';
import { escapeText } from '../markdown/tree.ts';
import { truncateContent } from '../lib/topic.ts';
import { ROLE, type UserRow } from '../store/users.ts';
import { flagList, messagesByIds, RECIPIENT, type MessageRow } from '../store/messages.ts';
import { firstUnread, firstVisibleMessageId, LARGER_THAN_MAX_MESSAGE_ID, messageAtOrAfterDate, narrowIdsAmong, narrowRange, type NarrowQuery } from '../store/narrow.ts';
import { applyWithOperator, badNarrow, includesHistory, resolveNarrow, streamByOperand, type NarrowTerm } from './narrow.ts';
import { accessMessage, canAccessHistory, invalidMessage, isSubscribed, readableBySpectators } from './access.ts';
import { dmParticipants, formatMessages, formatMessagesJson, loadDirectory, render, type Directory } from './messages-format.ts';
import { hideInaccessibleSenders, userAccess } from './user-access.ts';
import { spectatorAccessEnabled } from './users-read.ts';
import { HAS_JSON_TEXT, JsonList } from '../lib/json-text.ts';

export const MAX_MESSAGES_PER_FETCH = 5000;

/**
 * Where GET /messages anchors its window: a message ID, null for the first
 * unread message, or a date (anchor "date", with `anchor_date`), in seconds
 * since the epoch: the first message sent at or after it.
 */
export type Anchor = number | null | { date: number };

/**
 * `anchor_date`: an ISO 8601 date, or date and time (UTC when it names no
 * offset), as the web client sends it (`Date.toISOString()`).
 */
const ISO_DATE = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i;

function parseAnchorDate(text: string | undefined): { date: number } {
  if (text === undefined) throw badRequest("Missing 'anchor_date' argument.");
  const m = ISO_DATE.exec(text.trim());
  // A date alone (which Date.parse reads as UTC), or a time without an offset, is UTC.
  const ms = m ? Date.parse(m[2] ? `${m[1]}T${m[2]}${m[3] ?? 'Z'}` : m[1]!) : NaN;
  if (!Number.isFinite(ms)) throw badRequest('Invalid anchor_date');
  return { date: ms / 1000 };
}

/** Zulip's parse_anchor_value (the "date" anchor of GET /messages is read by getMessages). */
export function parseAnchor(anchor: string | undefined, useFirstUnread: boolean): number | null {
  if (useFirstUnread) return null;
  if (anchor === undefined) throw badRequest("Missing 'anchor' argument.");
  if (anchor === 'oldest') return 0;
  if (anchor === 'newest') return LARGER_THAN_MAX_MESSAGE_ID;
  if (anchor === 'first_unread') return null;
  if (!/^-?\d+$/.test(anchor.trim())) throw badRequest('Invalid anchor');
  const n = Number(anchor.trim());
  if (n < 0) return 0;
  return Math.min(n, LARGER_THAN_MAX_MESSAGE_ID);
}

export interface PreparedNarrow {
  query: NarrowQuery;
  /** The single channel the narrow names, for first-unread muting rules. */
  streamId: number | null;
}

/** Applies `with`, decides history inclusion and resolves operands. */
export async function prepareNarrow(svc: Services, db: Tx, user: UserRow, terms: NarrowTerm[], dir: Directory, opts: { allowHistory: boolean }): Promise<PreparedNarrow> {
  const expanded = await applyWithOperator(terms, async (id) => {
    const a = await accessMessage(svc, db, user, id);
    if (!a) return null;
    if (a.row.recipient_type === RECIPIENT.STREAM) return { type: 'stream', streamId: a.row.recipient_id, topic: a.row.topic };
    const parts = (await dmParticipants(db, [a.row])).get(a.row.id) ?? [];
    return { type: 'dm', userIds: parts };
  });
  const groups = await cachedGroups(svc, db);
  const historyByOperand = new Map<unknown, boolean>();
  let streamId: number | null = null;
  for (const t of expanded) {
    if (t.operator !== 'channel' && t.operator !== 'stream') continue;
    const s = await streamByOperand(svc, db, t.operand);
    if (!s) continue;
    if (!t.negated) streamId = s.id;
    historyByOperand.set(t.operand, canAccessHistory(user, s, await isSubscribed(svc, db, user.id, s.id), groups));
  }
  const includeHistory = opts.allowHistory && includesHistory(expanded, (op) => historyByOperand.get(op) === true, user.role !== ROLE.GUEST);
  const resolved = await resolveNarrow(svc, db, expanded, { me: user, emptyTopicDisplayName: dir.emptyTopicDisplayName });
  return { query: { realmId: svc.realmId, userId: user.id, terms: resolved, includeHistory }, streamId };
}

/** The operators a spectator's narrow may use (Zulip's is_spectator_compatible). */
const SPECTATOR_OPERATORS = new Set(['channel', 'stream', 'channels', 'streams', 'topic', 'sender', 'has', 'search', 'near', 'id', 'with']);

/**
 * A spectator's narrow, as Zulip checks one: the organization must allow
 * logged-out visitors, `in:home` is dropped, and what is left must name
 * `channels:web-public` and use only the operators above; otherwise the
 * caller must log in (401), as for a client whose credentials went missing.
 */
async function spectatorNarrow(svc: Services, terms: NarrowTerm[] | null): Promise<NarrowTerm[]> {
  if (!(await spectatorAccessEnabled(svc))) throw unauthorized();
  const kept = (terms ?? []).filter((t) => !(t.operator === 'in' && t.operand === 'home' && !t.negated));
  const webPublic = kept.some((t) => (t.operator === 'channels' || t.operator === 'streams') && t.operand === 'web-public' && !t.negated);
  if (!webPublic || kept.some((t) => !SPECTATOR_OPERATORS.has(t.operator))) throw unauthorized();
  return kept;
}

/** A message spectators may read (of a channel readableBySpectators), if the ID names one. */
async function spectatorMessage(svc: Services, db: Tx, id: number): Promise<MessageRow | undefined> {
  const [row] = await messagesByIds(db, svc.realmId, [id]);
  if (row?.recipient_type !== RECIPIENT.STREAM) return undefined;
  const stream = await streamByOperand(svc, db, row.recipient_id);
  return stream && readableBySpectators(stream) ? row : undefined;
}

/** A spectator's narrow resolved: its channels must be web-public, and so must a `with` message's. */
async function prepareSpectatorNarrow(svc: Services, db: Tx, terms: NarrowTerm[], dir: Directory): Promise<PreparedNarrow> {
  const expanded = await applyWithOperator(terms, async (id) => {
    const row = await spectatorMessage(svc, db, id);
    return row ? { type: 'stream', streamId: row.recipient_id, topic: row.topic } : null;
  });
  let streamId: number | null = null;
  for (const t of expanded) {
    if (t.operator !== 'channel' && t.operator !== 'stream') continue;
    const s = await streamByOperand(svc, db, t.operand);
    // An unknown channel is refused as such below.
    if (s && !readableBySpectators(s)) throw badNarrow(`unknown web-public channel ${String(t.operand)}`);
    if (s && !t.negated) streamId = s.id;
  }
  const resolved = await resolveNarrow(svc, db, expanded, { me: null, emptyTopicDisplayName: dir.emptyTopicDisplayName });
  return { query: { realmId: svc.realmId, userId: null, terms: resolved, includeHistory: true }, streamId };
}

export interface GetMessagesInput {
  anchor: string | undefined;
  /** With anchor "date": the date to anchor at. */
  anchorDate: string | undefined;
  useFirstUnreadAnchor: boolean;
  includeAnchor: boolean;
  numBefore: number;
  numAfter: number;
  narrow: NarrowTerm[] | null;
  messageIds: number[] | undefined;
  applyMarkdown: boolean;
  clientGravatar: boolean;
  allowEmptyTopicName: boolean;
}

export interface Window {
  ids: Array<{ id: number; flags: number }>;
  anchor: number | null;
  foundAnchor: boolean;
  foundOldest: boolean;
  foundNewest: boolean;
  historyLimited: boolean;
  /** The words of the narrow's keyword search, if it has one (for match_content and match_subject). */
  searchWords: string[] | null;
}

/** The words a narrow's (non-negated) keyword search highlights; null without one. */
function searchWords(prep: PreparedNarrow): string[] | null {
  const search = prep.query.terms.find((t) => t.kind === 'search' && !t.negated);
  return search && search.kind === 'search' ? search.text.replace(/"/g, ' ').split(/\s+/).filter(Boolean) : null;
}

/** The shared core of GET /messages and POST /messages/flags/narrow; `user` null: a spectator's (narrow checked by spectatorNarrow). */
export async function fetchWindow(
  svc: Services,
  db: Tx,
  user: UserRow | null,
  dir: Directory,
  narrow: NarrowTerm[],
  anchor: Anchor,
  numBefore: number,
  numAfter: number,
  includeAnchor: boolean,
  messageIds?: number[],
): Promise<Window> {
  const prep = user ? await prepareNarrow(svc, db, user, narrow, dir, { allowHistory: true }) : await prepareSpectatorNarrow(svc, db, narrow, dir);
  if (messageIds) {
    const ids = await narrowIdsAmong(db, svc.store, prep.query, messageIds);
    return { ids, anchor: null, foundAnchor: false, foundOldest: false, foundNewest: false, historyLimited: false, searchWords: searchWords(prep) };
  }
  const a =
    anchor === null ? await firstUnread(db, svc.store, prep.query, prep.streamId) : typeof anchor === 'number' ? anchor : await messageAtOrAfterDate(db, svc.store, prep.query, anchor.date);
  const firstVisible = await firstVisibleMessageId(db, svc.realmId, svc.config.messageVisibilityLimit);
  const r = await narrowRange(db, svc.store, prep.query, a, numBefore, numAfter, includeAnchor, firstVisible);
  return { ids: r.rows, anchor: a, foundAnchor: r.foundAnchor, foundOldest: r.foundOldest, foundNewest: r.foundNewest, historyLimited: r.historyLimited, searchWords: searchWords(prep) };
}

/** `,"flags":[...]}` in UTF-8 for each flag bitmask, which ends a kept message object (a few dozen distinct ones occur). */
const flagsEndByBits = new Map<number, Buffer>();

function flagsEnd(bits: number): Buffer {
  let end = flagsEndByBits.get(bits);
  if (end === undefined) {
    end = Buffer.from(`,"flags":${JSON.stringify(flagList(bits))}}`);
    if (flagsEndByBits.size < 1024) flagsEndByBits.set(bits, end);
  }
  return end;
}

/** GET /messages; `user` null: a spectator (a logged-out visitor), as Zulip's get_messages_backend. */
export async function getMessages(svc: Services, user: UserRow | null, input: GetMessagesInput): Promise<Record<string, unknown>> {
  let includeAnchor = input.includeAnchor;
  if (input.messageIds !== undefined && (input.numBefore || input.numAfter || input.anchor !== undefined || input.useFirstUnreadAnchor)) {
    throw new ApiError('Unsupported parameter combination: num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor', {
      code: 'BAD_REQUEST',
    });
  }
  if (input.messageIds !== undefined) includeAnchor = false;
  const anchor: Anchor =
    input.messageIds !== undefined
      ? null
      : input.anchor === 'date' && !input.useFirstUnreadAnchor
        ? parseAnchorDate(input.anchorDate)
        : parseAnchor(input.anchor, input.useFirstUnreadAnchor);
  const requested = input.messageIds !== undefined ? input.messageIds.length : input.numBefore + input.numAfter;
  if (requested > MAX_MESSAGES_PER_FETCH) throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
  if (input.numBefore > 0 && input.numAfter > 0 && !includeAnchor) throw badRequest('The anchor can only be excluded at an end of the range');

  let narrow = input.narrow ?? [];
  if (!user) {
    narrow = await spectatorNarrow(svc, input.narrow);
    // Avatars as URLs: a spectator does not know who uses a gravatar.
    input = { ...input, clientGravatar: false };
  }
  const db = svc.store.db;
  const dir = await loadDirectory(svc, db);
  const w = await fetchWindow(svc, db, user, dir, narrow, anchor, input.numBefore, input.numAfter, includeAnchor, input.messageIds);
  const rows = await cachedMessageRows(svc, w.ids.map((r) => r.id), db);
  const flags = new Map(w.ids.map((r) => [r.id, r.flags]));
  let messages: JsonList | Array<Record<string, unknown>>;
  const access = await userAccess(svc, user, db);
  if (access.all && w.searchWords === null) {
    // Each message's JSON is kept (formatMessagesJson); only its flags are added here.
    const kept = await formatMessagesJson(svc, db, rows, dir, input);
    messages = new JsonList(kept.map((json, i) => [json, flagsEnd(flags.get(rows[i]!.id) ?? 0)]));
  } else {
    // The dicts are this request's own (formatMessages makes new ones): flags, and a search's highlights, go on in place.
    messages = await hideInaccessibleSenders(svc, user, await formatMessages(svc, db, rows, dir, input), db, access);
    const words = w.searchWords;
    const byId = words ? new Map(rows.map((r) => [r.id, r])) : null;
    for (const d of messages) {
      d.flags = flagList(flags.get(d.id as number) ?? 0);
      const r = byId?.get(d.id as number);
      if (words && r) {
        d.match_content = highlightHtml(r.rendered_content, words);
        d.match_subject = highlightHtml(escapeText(r.topic), words);
      }
    }
  }
  if (input.messageIds !== undefined) {
    return { messages, history_limited: w.historyLimited, found_anchor: false, found_oldest: false, found_newest: false, [HAS_JSON_TEXT]: true };
  }
  return {
    [HAS_JSON_TEXT]: true,
    messages,
    found_anchor: w.foundAnchor,
    found_oldest: w.foundOldest,
    found_newest: w.foundNewest,
    history_limited: w.historyLimited,
    anchor: w.anchor,
  };
}

/**
 * GET /messages/{id}. A spectator (`user` null) may fetch a message of a
 * web-public channel, flagged read; any other is refused as Zulip refuses it
 * (access_web_public_message: a 401 that says nothing of whether it exists).
 */
export async function getMessage(svc: Services, user: UserRow | null, id: number, opts: { applyMarkdown: boolean; allowEmptyTopicName: boolean }): Promise<Record<string, unknown>> {
  const db = svc.store.db;
  if (!user) {
    if (!(await spectatorAccessEnabled(svc))) throw unauthorized();
    const row = await spectatorMessage(svc, db, id);
    if (!row) throw unauthorized();
    const dir = await loadDirectory(svc, db);
    const [dict] = await formatMessages(svc, db, [row], dir, { applyMarkdown: opts.applyMarkdown, clientGravatar: false, allowEmptyTopicName: opts.allowEmptyTopicName });
    return { raw_content: row.content, message: { ...dict, flags: ['read'] } };
  }
  const a = await accessMessage(svc, db, user, id);
  if (!a) throw invalidMessage();
  const dir = await loadDirectory(svc, db);
  const [dict] = await hideInaccessibleSenders(svc, user, await formatMessages(svc, db, [a.row], dir, { applyMarkdown: opts.applyMarkdown, clientGravatar: false, allowEmptyTopicName: opts.allowEmptyTopicName }), db);
  return { raw_content: a.row.content, message: { ...dict, flags: flagList(a.flags) } };
}

/** GET /messages/matches_narrow: which of the user's messages match, with search highlights. */
export async function matchesNarrow(svc: Services, user: UserRow, msgIds: number[], narrow: NarrowTerm[]): Promise<Record<string, unknown>> {
  const db = svc.store.db;
  const dir = await loadDirectory(svc, db);
  const prep = await prepareNarrow(svc, db, user, narrow, dir, { allowHistory: false });
  const hits = await narrowIdsAmong(db, svc.store, prep.query, msgIds);
  const rows = await messagesByIds(db, svc.realmId, hits.map((h) => h.id));
  const words = searchWords(prep) ?? [];
  const out: Record<string, { match_content: string; match_subject: string }> = {};
  for (const r of rows) {
    out[String(r.id)] = { match_content: highlightHtml(r.rendered_content, words), match_subject: highlightHtml(escapeText(r.topic), words) };
  }
  return { messages: out };
}

/** Wraps search words found in text nodes of HTML in <span class="highlight">. */
export function highlightHtml(html: string, words: string[]): string {
  if (words.length === 0) return html;
  const re = new RegExp(`(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`, 'giu');
  return html.replace(/(<[^>]*>)|([^<]+)/g, (_m, tag: string | undefined, text: string | undefined) => tag ?? text!.replace(re, '<span class="highlight">$1</span>'));
}

export async function renderMessage(svc: Services, content: string): Promise<Record<string, unknown>> {
  // The same length limit as sending: longer content is truncated, as a sent message would be.
  const r = await render(svc, svc.store.db, truncateContent(content, svc.config.maxMessageLength));
  return { rendered: r.html };
}
