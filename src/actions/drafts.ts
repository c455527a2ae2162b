/**
 * Draft synchronization (GET/POST /drafts, PATCH/DELETE /drafts/{id}):
 * Zulip's draft object (spec §2.7), its validation and error messages, and
 * `drafts` events (op add/update/remove) to all of the user's own queues.
 * Everything here requires the user's enable_drafts_synchronization; turning
 * that off deletes the stored drafts (see dropDraftsOnSyncDisabled).
 */
import type { Services } from '../services.ts';
import { transaction, type Tx } from '../store/db.ts';
import { ApiError, badRequest } from '../lib/errors.ts';
import { LIMITS, checkIntRange } from '../lib/limits.ts';
import { userSettings } from '../lib/user-settings.ts';
import { truncateContent, truncateTopic } from '../lib/topic.ts';
import { deleteAllDrafts, deleteDraft, draftOf, draftsOf, insertDraft, updateDraft, type DraftRow, type DraftValues } from '../store/drafts.ts';
import { usersByIds, type UserRow } from '../store/users.ts';
import { accessStreamById } from './access.ts';

/** Zulip's MAX_DRAFTS_IN_REGISTER_RESPONSE. */
export const MAX_DRAFTS_IN_REGISTER = 1000;

export const DRAFT_TYPES = ['', 'stream', 'private'] as const;

/** A draft as clients send it, after the type checks. */
export interface DraftInput {
  type: (typeof DRAFT_TYPES)[number];
  to: number[];
  topic: string;
  content: string;
  timestamp: number | null;
}

/** The draft object of responses, /register and events. */
export function formatDraft(row: DraftRow): Record<string, unknown> {
  return {
    id: row.id,
    type: row.type,
    to: JSON.parse(row.to_json) as number[],
    topic: row.topic,
    content: row.content,
    timestamp: Math.floor(Number(row.last_edit_time)),
  };
}

function checkEnabled(user: UserRow): void {
  if (!userSettings(user.settings_json).enable_drafts_synchronization) throw badRequest('User has disabled synchronizing drafts.');
}

const draftNotFound = (): ApiError => new ApiError('Draft does not exist', { status: 404 });

/** Parses a JSON parameter text (Zulip's "is not valid JSON"). */
function parseJsonParam(raw: string, name: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw badRequest(`${name} is not valid JSON`);
  }
}

/** Type checks of one draft object, with Zulip's (pydantic) messages; fields in declaration order, then unknown keys. */
export function checkDraftObject(x: unknown, name: string): DraftInput {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) throw badRequest(`${name} is not a dict`);
  const rec = x as Record<string, unknown>;
  const field = (key: string): string => `${name}[${JSON.stringify(key)}]`;
  const present = (key: string): unknown => {
    if (!(key in rec)) throw badRequest(`${field(key)} field is missing`);
    return rec[key];
  };
  const type = present('type');
  if (!DRAFT_TYPES.includes(type as DraftInput['type'])) throw badRequest(`Invalid ${field('type')}`);
  const to = present('to');
  if (!Array.isArray(to)) throw badRequest(`${field('to')} is not a list`);
  if (to.length > LIMITS.listMaxLength) throw badRequest(`${field('to')} is too long`);
  to.forEach((id, i) => {
    if (typeof id !== 'number' || !Number.isInteger(id)) throw badRequest(`${field('to')}[${i}] is not an integer`);
    checkIntRange(id, `${field('to')}[${i}]`);
  });
  const topic = present('topic');
  if (typeof topic !== 'string') throw badRequest(`${field('topic')} is not a string`);
  const rawContent = present('content');
  if (typeof rawContent !== 'string') throw badRequest(`${field('content')} is not a string`);
  // Zulip strips surrounding whitespace and requires something left.
  const content = rawContent.trim();
  if (content === '') throw badRequest(`${field('content')} cannot be blank`);
  let timestamp: number | null = null;
  if ('timestamp' in rec && rec.timestamp !== null) {
    if (typeof rec.timestamp !== 'number' || !Number.isFinite(rec.timestamp)) throw badRequest(`${field('timestamp')} is not a float`);
    timestamp = rec.timestamp;
  }
  for (const key of Object.keys(rec)) {
    if (!['type', 'to', 'topic', 'content', 'timestamp'].includes(key)) throw badRequest(`Argument "${key}" at ${field(key)} is unexpected`);
  }
  return { type: type as DraftInput['type'], to: to as number[], topic, content, timestamp };
}

/**
 * The stored form of a draft: normalized content, the server's timestamp
 * when none is given, the channel checked for access, direct-message
 * recipients resolved the way Zulip stores a conversation (the other
 * participants; yourself for a DM to yourself). A direct draft without
 * recipients is stored unaddressed, as Zulip does.
 */
async function resolveDraft(svc: Services, tx: Tx, user: UserRow, d: DraftInput): Promise<DraftValues> {
  if (d.content.includes('\0')) throw badRequest('Message must not contain null bytes');
  const content = truncateContent(d.content, svc.config.maxMessageLength);
  const ts = d.timestamp === null ? Date.now() / 1000 : Math.round(d.timestamp * 1e6) / 1e6;
  if (ts < 0) throw badRequest('Timestamp must not be negative.');
  if (d.type === 'stream') {
    const topic = truncateTopic(d.topic, svc.config.maxTopicLength);
    if (topic.includes('\0')) throw badRequest('Topic must not contain null bytes');
    if (d.to.length !== 1) throw badRequest('Must specify exactly 1 stream ID for stream messages');
    const access = await accessStreamById(svc, tx, user, d.to[0]);
    return { type: 'stream', to: [access.stream.id], topic, content, lastEditTime: ts };
  }
  if (d.type === 'private' && d.to.length > 0) {
    const ids = [...new Set(d.to)];
    const found = await usersByIds(tx, svc.realmId, ids);
    const byId = new Map(found.map((u) => [u.id, u]));
    for (const id of ids) if (!byId.has(id)) throw badRequest(`Invalid user ID ${id}`);
    for (const id of ids) {
      const u = byId.get(id)!;
      if (!u.is_active && u.id !== user.id) throw badRequest(`'${u.email}' is no longer using Zulip.`);
    }
    const all = [...new Set([...ids, user.id])].sort((a, b) => a - b);
    const to = all.length <= 2 ? [all.find((i) => i !== user.id) ?? user.id] : all.filter((i) => i !== user.id);
    return { type: 'private', to, topic: '', content, lastEditTime: ts };
  }
  return { type: '', to: [], topic: '', content, lastEditTime: ts };
}

export async function getDrafts(svc: Services, user: UserRow): Promise<{ count: number; drafts: Array<Record<string, unknown>> }> {
  checkEnabled(user);
  const rows = await draftsOf(svc.store.db, user.id);
  return { count: rows.length, drafts: rows.map(formatDraft) };
}

/** POST /drafts: `raw` is the `drafts` parameter text (checked after the sync setting, as in Zulip). */
export async function createDrafts(svc: Services, user: UserRow, raw: string | undefined): Promise<{ ids: number[] }> {
  checkEnabled(user);
  if (raw === undefined) throw new ApiError("Missing 'drafts' argument", { code: 'REQUEST_VARIABLE_MISSING', extra: { var_name: 'drafts' } });
  const value = parseJsonParam(raw, 'drafts');
  if (!Array.isArray(value)) throw badRequest('drafts is not a list');
  const inputs = value.map((x, i) => checkDraftObject(x, `drafts[${i}]`));
  const rows = await transaction(svc.store, async (tx) => {
    const out: DraftRow[] = [];
    for (const d of inputs) {
      const id = await insertDraft(tx, user.id, await resolveDraft(svc, tx, user, d));
      out.push((await draftOf(tx, user.id, id))!);
    }
    return out;
  });
  svc.bus.send({ type: 'drafts', op: 'add', drafts: rows.map(formatDraft) }, [user.id]);
  return { ids: rows.map((r) => r.id) };
}

export async function editDraft(svc: Services, user: UserRow, draftId: number, raw: string | undefined): Promise<void> {
  checkEnabled(user);
  if (raw === undefined) throw new ApiError("Missing 'draft' argument", { code: 'REQUEST_VARIABLE_MISSING', extra: { var_name: 'draft' } });
  const input = checkDraftObject(parseJsonParam(raw, 'draft'), 'draft');
  const row = await transaction(svc.store, async (tx) => {
    if (!(await draftOf(tx, user.id, draftId))) throw draftNotFound();
    await updateDraft(tx, user.id, draftId, await resolveDraft(svc, tx, user, input));
    return (await draftOf(tx, user.id, draftId))!;
  });
  svc.bus.send({ type: 'drafts', op: 'update', draft: formatDraft(row) }, [user.id]);
}

export async function removeDraft(svc: Services, user: UserRow, draftId: number): Promise<void> {
  checkEnabled(user);
  await transaction(svc.store, async (tx) => {
    if (!(await draftOf(tx, user.id, draftId))) throw draftNotFound();
    await deleteDraft(tx, user.id, draftId);
  });
  svc.bus.send({ type: 'drafts', op: 'remove', draft_id: draftId }, [user.id]);
}

/**
 * Called when a user turns enable_drafts_synchronization off: their stored
 * drafts are deleted. No events, as in Zulip: the clients keep their local
 * copies; only syncing stopped.
 */
export async function dropDraftsOnSyncDisabled(db: Tx, userId: number): Promise<void> {
  await deleteAllDrafts(db, userId);
}

/** The `drafts` section of /register: newest edits first, at most MAX_DRAFTS_IN_REGISTER. */
export async function registerDrafts(svc: Services, user: UserRow): Promise<Array<Record<string, unknown>>> {
  const rows = await draftsOf(svc.store.db, user.id, { newestFirst: true, limit: MAX_DRAFTS_IN_REGISTER });
  return rows.map(formatDraft);
}
