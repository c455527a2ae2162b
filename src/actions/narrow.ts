/**
 * Narrows (Zulip search filters): parsing client-sent terms, resolving
 * operands (channel/user names, emails, IDs) to IDs with Zulip's BAD_NARROW
 * errors, the `with` operator, and an in-memory predicate for event queues
 * registered with a narrow. The SQL for a resolved narrow is in
 * src/store/narrow.ts. Used by message fetch, flags-for-narrow,
 * matches_narrow and event filtering.
 */
import { cachedStreams } from './cache.ts';
import type { Services } from '../services.ts';
import type { Tx } from '../store/db.ts';
import { ApiError } from '../lib/errors.ts';
import { LIMITS, checkIntRange } from '../lib/limits.ts';
import type { StreamRow } from '../store/streams.ts';
import { userByApiEmail, userById, type UserRow } from '../store/users.ts';
import { directGroupByKey, directGroupsContaining, memberKey } from '../store/messages.ts';
import { NO_TOPIC, RESOLVED_TOPIC_PREFIX } from '../lib/topic.ts';
import type { ResolvedTerm } from '../store/narrow.ts';

export interface NarrowTerm {
  operator: string;
  operand: unknown;
  negated: boolean;
}

export type { ResolvedTerm } from '../store/narrow.ts';

export function badNarrow(desc: string): ApiError {
  return new ApiError(`Invalid narrow operator: ${desc}`, { code: 'BAD_NARROW', extra: { desc } });
}

const ID_OPERATORS = new Set(['id', 'channel', 'stream', 'sender', 'mentions', 'group-pm-with', 'dm-including', 'with']);
const IDS_OPERATORS = new Set(['dm', 'pm-with']);

/**
 * Validates the `narrow` parameter's decoded JSON: a list of
 * {operator, operand, negated?} objects or legacy [operator, operand] pairs.
 */
export function parseNarrow(value: unknown, name = 'narrow'): NarrowTerm[] {
  if (!Array.isArray(value)) throw new ApiError(`${name} is not a list`);
  if (value.length > LIMITS.narrowMaxTerms) throw new ApiError(`${name} is too long`);
  return value.map((elem, i): NarrowTerm => {
    const where = `${name}[${i}]`;
    if (Array.isArray(elem)) {
      if (elem.length !== 2 || elem.some((x) => typeof x !== 'string')) throw new ApiError(`Invalid ${name}: element is not a string pair`);
      return { operator: elem[0] as string, operand: elem[1], negated: false };
    }
    if (!elem || typeof elem !== 'object') throw new ApiError(`Invalid ${name}: dict or list required`);
    const o = elem as Record<string, unknown>;
    if (o.operand === undefined || o.operand === null) throw new ApiError(`Invalid ${name}: operand is missing`);
    if (o.operator === undefined || o.operator === null) throw new ApiError(`Invalid ${name}: operator is missing`);
    if (typeof o.operator !== 'string') throw new ApiError('operator is not a string');
    const op = o.operator;
    const operand = o.operand;
    if (ID_OPERATORS.has(op)) {
      if (typeof operand !== 'string' && !Number.isInteger(operand)) throw new ApiError('operand is not a string or an integer');
      if (typeof operand === 'number') checkIntRange(operand, 'operand');
    } else if (IDS_OPERATORS.has(op)) {
      if (typeof operand !== 'string' && !(Array.isArray(operand) && operand.every((x) => Number.isInteger(x)))) {
        throw new ApiError('operand is not a string or integer list');
      }
      if (Array.isArray(operand)) {
        if (operand.length > LIMITS.listMaxLength) throw new ApiError('operand is too long');
        for (const id of operand as number[]) checkIntRange(id, 'operand');
      }
    } else if (op === 'search') {
      if (typeof operand !== 'string') throw new ApiError('operand is not a string');
      if (operand.trim() === '') throw new ApiError('operand cannot be blank.');
    } else if (typeof operand !== 'string') {
      throw new ApiError('operand is not a string');
    }
    if (o.negated !== undefined && typeof o.negated !== 'boolean') throw new ApiError('negated is not a boolean');
    void where;
    return { operator: op, operand, negated: o.negated === true };
  });
}

async function userByOperand(svc: Services, db: Tx, operand: unknown): Promise<UserRow | undefined> {
  if (typeof operand === 'number') return userById(db, svc.realmId, operand);
  // By the address the API shows, as Zulip's get_user_including_cross_realm.
  if (typeof operand === 'string') return userByApiEmail(db, svc.realmId, operand.trim());
  return undefined;
}

export async function streamByOperand(svc: Services, db: Tx, operand: unknown): Promise<StreamRow | undefined> {
  const streams = await cachedStreams(svc, db);
  if (typeof operand === 'number') return streams.byId.get(operand);
  if (typeof operand === 'string') {
    const byName = streams.byName.get(operand.toLowerCase());
    if (byName) return byName;
    if (/^\d+$/.test(operand)) return streams.byId.get(Number(operand));
  }
  return undefined;
}

/** Zulip's topic operand substitutions: the empty-topic names mean "". */
export function cleanTopicOperand(topic: string, emptyTopicDisplayName: string): string {
  return topic === NO_TOPIC || topic === emptyTopicDisplayName ? '' : topic;
}

export interface ResolveContext {
  /** The reader; null for a spectator, whose narrow has no direct-message terms (see src/actions/messages-fetch.ts). */
  me: UserRow | null;
  emptyTopicDisplayName: string;
}

/** Resolves every term's operands; throws BAD_NARROW as Zulip does. */
export async function resolveNarrow(svc: Services, db: Tx, terms: NarrowTerm[], ctx: ResolveContext): Promise<ResolvedTerm[]> {
  const reader = (): UserRow => {
    if (!ctx.me) throw new Error('resolveNarrow: a direct-message term without a reader');
    return ctx.me;
  };
  const out: ResolvedTerm[] = [];
  let channel = false;
  let dm = false;
  const mark = (kind: 'channel' | 'dm') => {
    if (kind === 'channel') channel = true;
    else dm = true;
    if (channel && dm) throw badNarrow('No message can be both a channel message and direct message');
  };
  const searches: string[] = [];
  let searchNegated = false;
  for (const t of terms) {
    const negated = t.negated;
    switch (t.operator) {
      case 'channel':
      case 'stream': {
        mark('channel');
        const s = await streamByOperand(svc, db, t.operand);
        if (!s) throw badNarrow(`unknown channel ${String(t.operand)}`);
        out.push({ kind: 'channel', streamId: s.id, negated });
        break;
      }
      case 'channels':
      case 'streams': {
        mark('channel');
        if (t.operand !== 'public' && t.operand !== 'web-public') throw badNarrow(`unknown channels operand ${String(t.operand)}`);
        out.push({ kind: 'channels', which: t.operand, negated });
        break;
      }
      case 'topic':
        mark('channel');
        out.push({ kind: 'topic', topic: cleanTopicOperand(String(t.operand), ctx.emptyTopicDisplayName), negated });
        break;
      case 'sender': {
        const u = await userByOperand(svc, db, t.operand);
        if (!u) throw badNarrow(`unknown user ${String(t.operand)}`);
        out.push({ kind: 'sender', userId: u.id, negated });
        break;
      }
      case 'mentions': {
        // Feature level 446: a direct, visible personal mention (not silent, not a group or wildcard mention).
        const u = await userByOperand(svc, db, t.operand);
        if (!u) throw badNarrow(`unknown user ${String(t.operand)}`);
        out.push({ kind: 'mentions', userId: u.id, negated });
        break;
      }
      case 'id': {
        const s = String(t.operand);
        if (!/^\d+$/.test(s)) throw badNarrow('Invalid message ID');
        out.push({ kind: 'id', id: Number(s), negated });
        break;
      }
      case 'near':
        break;
      case 'dm':
      case 'pm-with':
      case 'pm_with': {
        mark('dm');
        const users: UserRow[] = [];
        const list = typeof t.operand === 'string' ? t.operand.split(',') : (t.operand as number[]);
        for (const x of list) {
          const u = await userByOperand(svc, db, x);
          if (!u) throw badNarrow(`unknown user in ${Array.isArray(t.operand) ? `[${t.operand.join(', ')}]` : String(t.operand)}`);
          users.push(u);
        }
        const me = reader();
        const ids = [...new Set([...users.map((u) => u.id), me.id])].sort((a, b) => a - b);
        const others = ids.filter((i) => i !== me.id);
        const groupId = ids.length >= 3 ? ((await directGroupByKey(db, memberKey(ids))) ?? null) : null;
        out.push({ kind: 'dm', me: me.id, others, groupId, negated });
        break;
      }
      case 'dm-including':
      case 'group-pm-with':
      case 'group_pm_with': {
        mark('dm');
        const u = await userByOperand(svc, db, t.operand);
        if (!u) throw badNarrow(`unknown user ${String(t.operand)}`);
        const me = reader();
        const groupIds = await directGroupsContaining(db, [me.id, u.id]);
        if (t.operator === 'dm-including') out.push({ kind: 'dm-including', me: me.id, userId: u.id, groupIds, negated });
        else out.push({ kind: 'dm-including', me: me.id, userId: -1, groupIds, negated });
        break;
      }
      case 'is': {
        const w = String(t.operand);
        const what = w === 'private' ? 'dm' : w;
        if (!['dm', 'starred', 'mentioned', 'alerted', 'unread', 'resolved', 'followed', 'muted'].includes(what)) {
          throw badNarrow(`unknown 'is' operand ${w}`);
        }
        if (what === 'dm') mark('dm');
        out.push({ kind: 'is', what: what as 'dm', negated });
        break;
      }
      case 'has': {
        const w = String(t.operand);
        if (!['link', 'attachment', 'image', 'reaction'].includes(w)) throw badNarrow(`unknown 'has' operand ${w}`);
        out.push({ kind: 'has', what: w as 'link', negated });
        break;
      }
      case 'in': {
        const w = String(t.operand);
        if (w !== 'home' && w !== 'all') throw badNarrow(`unknown 'in' operand ${w}`);
        out.push({ kind: 'in', what: w, negated });
        break;
      }
      case 'search':
        searches.push(String(t.operand));
        searchNegated ||= negated;
        break;
      default:
        throw badNarrow(`unknown operator ${t.operator}`);
    }
  }
  if (searches.length) out.push({ kind: 'search', text: searches.join(' '), negated: searchNegated });
  return out;
}

/**
 * Zulip's `with` operator (FL 271): a message ID whose conversation
 * replaces the narrow's channel/topic/dm terms when the user can access
 * it; otherwise the narrow is kept if it already names a conversation.
 */
export async function applyWithOperator(
  terms: NarrowTerm[],
  access: (messageId: number) => Promise<{ type: 'stream'; streamId: number; topic: string } | { type: 'dm'; userIds: number[] } | null>,
): Promise<NarrowTerm[]> {
  const withTerms = terms.filter((t) => t.operator === 'with');
  if (withTerms.length === 0) return terms;
  if (withTerms.length > 1) throw new ApiError("Duplicate 'with' operators.", { code: 'BAD_REQUEST' });
  const rest = terms.filter((t) => t.operator !== 'with');
  const s = String(withTerms[0].operand);
  if (!/^\d+$/.test(s)) throw badNarrow("Invalid 'with' operator");
  const conv = await access(Number(s));
  if (!conv) {
    const hasDm = rest.some((t) => t.operator === 'dm' || t.operator === 'pm-with');
    const hasChannel = rest.some((t) => t.operator === 'channel' || t.operator === 'stream');
    const hasTopic = rest.some((t) => t.operator === 'topic');
    if (hasDm || (hasChannel && hasTopic)) return rest;
    throw badNarrow("Invalid 'with' operator");
  }
  const kept = rest.filter((t) => !['stream', 'channel', 'topic', 'dm', 'pm-with'].includes(t.operator));
  if (conv.type === 'stream') {
    return [{ operator: 'channel', operand: conv.streamId, negated: false }, { operator: 'topic', operand: conv.topic, negated: false }, ...kept];
  }
  return [{ operator: 'dm', operand: conv.userIds, negated: false }, ...kept];
}

/**
 * A registration's narrow with the operands the event predicate compares
 * by ID resolved: a `mentions` email becomes the user's ID (an unknown
 * user fails as in GET /messages).
 */
export async function resolveEventNarrow(svc: Services, db: Tx, terms: NarrowTerm[]): Promise<NarrowTerm[]> {
  if (!terms.some((t) => t.operator === 'mentions')) return terms;
  const out: NarrowTerm[] = [];
  for (const t of terms) {
    if (t.operator !== 'mentions') {
      out.push(t);
      continue;
    }
    const u = await userByOperand(svc, db, t.operand);
    if (!u) throw badNarrow(`unknown user ${String(t.operand)}`);
    out.push({ ...t, operand: u.id });
  }
  return out;
}

/** Whether message history may be included (Zulip's ok_to_include_history). */
export function includesHistory(terms: NarrowTerm[], canAccessHistory: (streamOperand: unknown) => boolean, canAccessPublic: boolean): boolean {
  let include = false;
  for (const t of terms) {
    if ((t.operator === 'channel' || t.operator === 'stream') && !t.negated) include = canAccessHistory(t.operand);
    else if ((t.operator === 'channels' || t.operator === 'streams') && t.operand === 'public' && !t.negated && canAccessPublic) include = true;
  }
  if (terms.some((t) => t.operator === 'is')) include = false;
  return include;
}

// ---------------------------------------------------------------------------
// In-memory predicate (event queues registered with a narrow)

/** The fields of a message event the predicate reads. */
export interface MessageForPredicate {
  type: string;
  stream_id?: number;
  display_recipient: unknown;
  subject: string;
  sender_id: number;
  sender_email: string;
  content: string;
  /** The rendered HTML (for the mentions operator). */
  rendered_content?: string;
}

/** The HTML of a visible personal mention of a user, as the renderer writes it (silent ones carry the class `silent`). */
export function visibleMentionHtml(userId: number): string {
  return `<span class="user-mention" data-user-id="${userId}">`;
}

/**
 * Whether a message event matches a registered narrow, as Zulip's
 * narrow_predicate: channel, topic, sender, dm, is (dm/starred/mentioned/
 * alerted/unread/resolved) and search (substring) terms; others match.
 */
export function messageMatchesTerms(
  terms: Array<{ operator: string; operand: unknown; negated: boolean }>,
  msg: MessageForPredicate,
  flags: string[],
  meId: number,
  emptyTopicDisplayName: string,
): boolean {
  for (const { operator: op, operand, negated } of terms) {
    const low = (x: unknown) => String(x).toLowerCase();
    let ok = true;
    switch (op) {
      case 'channel':
      case 'stream':
        ok = msg.type === 'stream' && (typeof operand === 'number' ? msg.stream_id === operand : low(msg.display_recipient) === low(operand) || String(msg.stream_id) === String(operand));
        break;
      case 'topic':
        ok = msg.type === 'stream' && low(msg.subject) === low(cleanTopicOperand(String(operand), emptyTopicDisplayName));
        break;
      case 'sender':
        ok = typeof operand === 'number' ? msg.sender_id === operand : low(msg.sender_email) === low(operand);
        break;
      case 'dm':
      case 'pm-with': {
        if (msg.type !== 'private') {
          ok = false;
          break;
        }
        const people = (msg.display_recipient as Array<{ id: number; email: string }>) ?? [];
        const want = new Set<number>([meId]);
        for (const w of typeof operand === 'string' ? operand.split(',') : (operand as number[])) {
          const p = typeof w === 'number' ? people.find((x) => x.id === w) : people.find((x) => x.email.toLowerCase() === w.trim().toLowerCase());
          if (!p) ok = false;
          else want.add(p.id);
        }
        ok = ok && want.size === people.length && people.every((p) => want.has(p.id));
        break;
      }
      case 'is':
        if (operand === 'dm' || operand === 'private') ok = msg.type === 'private';
        else if (operand === 'starred') ok = flags.includes('starred');
        else if (operand === 'mentioned') ok = flags.some((f) => f.endsWith('mentioned'));
        else if (operand === 'alerted') ok = flags.includes('has_alert_word');
        else if (operand === 'unread') ok = !flags.includes('read');
        else if (operand === 'resolved') ok = msg.type === 'stream' && msg.subject.startsWith(RESOLVED_TOPIC_PREFIX);
        break;
      case 'mentions': {
        // An email operand was resolved to the user's ID at registration (resolveEventNarrow).
        ok = typeof operand === 'number' && (msg.rendered_content ?? '').includes(visibleMentionHtml(operand));
        break;
      }
      case 'search':
        ok = msg.content.toLowerCase().includes(String(operand).toLowerCase()) || msg.subject.toLowerCase().includes(String(operand).toLowerCase());
        break;
      default:
        ok = true;
    }
    if (negated) ok = !ok;
    if (!ok) return false;
  }
  return true;
}
