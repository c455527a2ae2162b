/**
 * Presence: POST /users/me/presence, GET /realm/presence,
 * GET /users/{user_id_or_email}/presence, `presence` events and the
 * /register `presences` state.
 *
 * Presence is the most frequent request a chat server receives, so the
 * current presence of the organization lives in memory (one entry per user,
 * loaded from the database on first use). A ping that does not move a
 * timestamp by more than Zulip's granularity (PRESENCE_UPDATE_MIN_FREQ_SECONDS)
 * is a memory operation only. A ping that does gets the next value of the
 * realm's presence sequence (its `last_update_id`, which makes polling
 * incremental) and is written through to the database; concurrent changes
 * are coalesced into one multi-row statement (see PresenceWriter).
 *
 * With one process the sequence is recovered on start as the largest stored
 * last_update_id. With several (REDIS_URL), each write takes the next values
 * of the sequence in the database, under a lock, and each process brings the
 * entries it keeps up to date by reading the rows changed since it last read
 * (SharedPresence).
 */
import type { Services } from '../services.ts';
import { ApiError, badRequest } from '../lib/errors.ts';
import { userSettings } from '../lib/user-settings.ts';
import { userByApiEmail, userById, type UserRow } from '../store/users.ts';
import { cachedActiveUserIds, cachedUsers } from './cache.ts';
import { presenceRowOfUser, presenceRowsOfRealm, presenceRowsOfRealmSince, upsertPresenceRows, upsertPresenceRowsInSequence, type PresenceRow } from '../store/presence.ts';
import { canAccessUser, userAccess, userIdsWhoCanAccess } from './user-access.ts';

/** Zulip's presence tuning (zproject/default_settings.py). */
export const PRESENCE = {
  /** How long clients wait before treating a user as offline. */
  OFFLINE_THRESHOLD_SECS: 200,
  /** How often clients ping. */
  PING_INTERVAL_SECS: 60,
  /** How much newer a report must be than the stored time to be recorded. */
  UPDATE_MIN_FREQ_SECONDS: 55,
  /** Legacy format: active when last active is within this of last connected. */
  LEGACY_EVENT_OFFSET_FOR_ACTIVITY_SECONDS: 70,
  /** Above this many recipients, "came online" events are not sent (unless forced). */
  USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS: 100,
  /** History returned when the client gives no limit. */
  DEFAULT_HISTORY_LIMIT_DAYS: 14,
} as const;

export type PresenceStatus = 'active' | 'idle';

interface Entry {
  userId: number;
  /** Last time a client reported the user active (seconds), null if never. */
  active: number | null;
  /** Last time the user had a client connected (seconds). */
  connected: number | null;
  updateId: number;
}

const nowSecs = (): number => Math.floor(Date.now() / 1000);

/**
 * Coalesces presence writes: rows changed while a write is running go into
 * the next single statement (`save`). Each caller's promise settles, with
 * the rows of that write by user, when the write holding its row is done.
 */
class PresenceWriter {
  private readonly svc: Services;
  private readonly save: (rows: PresenceRow[]) => Promise<void>;
  private pending = new Map<number, PresenceRow>();
  private chain: Promise<unknown> = Promise.resolve();
  private queued: Promise<ReadonlyMap<number, PresenceRow>> | null = null;

  constructor(svc: Services, save: (rows: PresenceRow[]) => Promise<void>) {
    this.svc = svc;
    this.save = save;
  }

  write(row: PresenceRow): Promise<ReadonlyMap<number, PresenceRow>> {
    this.pending.set(row.user_id, row);
    if (!this.queued) {
      const batch = this.chain.then(async () => {
        this.queued = null;
        const rows = this.pending;
        this.pending = new Map();
        await this.save([...rows.values()]);
        return rows;
      });
      this.queued = batch;
      this.chain = batch.catch((e: unknown) => this.svc.log.error({ err: e }, 'presence write failed'));
    }
    return this.queued;
  }

  /** Settles when every write asked for so far has been made. */
  flush(): Promise<unknown> {
    return this.queued ?? this.chain;
  }
}

const entryOf = (r: PresenceRow): Entry => ({ userId: r.user_id, active: r.last_active_time, connected: r.last_connected_time, updateId: r.last_update_id });

/**
 * Where the organization's presence lives: in this process's memory
 * (one process), or in the database with the sequence in Redis (several
 * processes, see SharedPresence).
 */
interface PresenceState {
  readonly writer: PresenceWriter;
  get(userId: number): Promise<Entry | undefined>;
  /** Keeps a new entry (before its first commit). */
  add(e: Entry): void;
  all(): Promise<Entry[]>;
  /** The entries changed after `updateId` (a larger update id), and `userId`'s own. */
  since(updateId: number, userId: number): Promise<Entry[]>;
  /** Gives the entry the next sequence value and writes it. */
  commit(svc: Services, e: Entry): Promise<void>;
}

/** The entries changed after `updateId` (a larger update id), and `userId`'s own (PresenceState.since). */
const changedSince = (entries: Iterable<Entry>, updateId: number, userId: number): Entry[] =>
  [...entries].filter((e) => e.updateId > updateId || e.userId === userId);

const rowOf = (svc: Services, e: Entry): PresenceRow => ({
  user_id: e.userId,
  realm_id: svc.realmId,
  last_active_time: e.active,
  last_connected_time: e.connected,
  last_update_id: e.updateId,
});

class RealmPresence implements PresenceState {
  readonly entries = new Map<number, Entry>();
  seq = 0;
  readonly writer: PresenceWriter;

  constructor(svc: Services, rows: PresenceRow[]) {
    this.writer = new PresenceWriter(svc, (batch) => upsertPresenceRows(svc.store.db, batch));
    for (const r of rows) {
      this.entries.set(r.user_id, entryOf(r));
      if (r.last_update_id > this.seq) this.seq = r.last_update_id;
    }
  }

  async get(userId: number): Promise<Entry | undefined> {
    return this.entries.get(userId);
  }

  add(e: Entry): void {
    this.entries.set(e.userId, e);
  }

  async all(): Promise<Entry[]> {
    return [...this.entries.values()];
  }

  async since(updateId: number, userId: number): Promise<Entry[]> {
    return changedSince(this.entries.values(), updateId, userId);
  }

  async commit(svc: Services, e: Entry): Promise<void> {
    e.updateId = ++this.seq;
    await this.writer.write(rowOf(svc, e));
  }
}

/**
 * Presence shared by every process: each write takes the organization's
 * next presence sequence values in the database, in a transaction that
 * holds the organization's presence lock (upsertPresenceRowsInSequence), so
 * values are unique and committed in increasing order, whichever process
 * writes. A process keeps the entries it has read and brings them up to
 * date by reading only the rows with a larger value than it has seen (none
 * can be skipped, as they commit in order); the first read reads them all.
 */
class SharedPresence implements PresenceState {
  readonly writer: PresenceWriter;
  private readonly svc: Services;
  /** The organization's entries as read so far, by user. */
  private readonly known = new Map<number, Entry>();
  /** The largest sequence value read (-1: none yet, so the first read takes every row). */
  private knownUpTo = -1;

  constructor(svc: Services) {
    this.svc = svc;
    this.writer = new PresenceWriter(svc, (batch) => upsertPresenceRowsInSequence(svc.store, svc.realmId, batch));
  }

  async get(userId: number): Promise<Entry | undefined> {
    const row = await presenceRowOfUser(this.svc.store.db, userId);
    return row && row.realm_id === this.svc.realmId ? entryOf(row) : undefined;
  }

  add(): void {}

  async all(): Promise<Entry[]> {
    await this.catchUp();
    return [...this.known.values()];
  }

  async since(updateId: number, userId: number): Promise<Entry[]> {
    await this.catchUp();
    return changedSince(this.known.values(), updateId, userId);
  }

  /** Reads the rows changed since the largest value read. */
  private async catchUp(): Promise<void> {
    const rows = await presenceRowsOfRealmSince(this.svc.store.db, this.svc.realmId, this.knownUpTo);
    for (const r of rows) {
      const kept = this.known.get(r.user_id);
      if (!kept || r.last_update_id > kept.updateId) this.known.set(r.user_id, entryOf(r));
      if (r.last_update_id > this.knownUpTo) this.knownUpTo = r.last_update_id;
    }
  }

  async commit(svc: Services, e: Entry): Promise<void> {
    const written = await this.writer.write(rowOf(svc, e));
    // The value the write gave the row (a later change of the same user in the same write gives both its value).
    e.updateId = written.get(e.userId)!.last_update_id;
  }
}

const states = new WeakMap<Services, Promise<PresenceState>>();

function realmPresence(svc: Services): Promise<PresenceState> {
  let p = states.get(svc);
  if (!p) {
    p = svc.redis
      ? Promise.resolve(new SharedPresence(svc))
      : presenceRowsOfRealm(svc.store.db, svc.realmId).then((rows) => new RealmPresence(svc, rows));
    p.catch(() => states.delete(svc));
    states.set(svc, p);
  }
  return p;
}

/**
 * Forgets the in-memory presence so the next use reloads it from the
 * database (what a restart does). Waits for pending writes first.
 */
export async function reloadPresence(svc: Services): Promise<void> {
  const p = states.get(svc);
  if (p) {
    const st = await p;
    await st.writer.flush().catch(() => {});
    states.delete(svc);
  }
}

// ---------------------------------------------------------------------------
// Who may see whose presence

/**
 * With CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE, presence follows user
 * access (src/actions/user-access.ts): a restricted guest sees only the
 * presence of users it may access, and only those who may access a user hear
 * of its presence. Otherwise everyone sees everyone's presence, as in Zulip.
 */
const presenceLimited = (svc: Services): boolean => svc.config.canAccessAllUsersGroupLimitsPresence;

// ---------------------------------------------------------------------------
// Formats

export interface LegacyClientPresence {
  client: string;
  status: PresenceStatus;
  timestamp: number;
  pushable: boolean;
}

/**
 * Zulip uses the date the user joined for a time that was never recorded.
 * A never-active time is also capped at the connected time, so a user who
 * hid their presence right after joining does not look active.
 */
function times(e: Entry, user: UserRow): { active: number; connected: number } {
  const connected = e.connected ?? user.date_joined;
  return { active: e.active ?? Math.min(user.date_joined, connected), connected };
}

export function modernPresence(e: Entry, user: UserRow): { active_timestamp: number; idle_timestamp: number } {
  const t = times(e, user);
  return { active_timestamp: t.active, idle_timestamp: t.connected };
}

/** The single-client legacy entry (since FL 178 the client is always "website"). */
export function legacyClientPresence(e: Entry, user: UserRow): LegacyClientPresence {
  const t = times(e, user);
  const active = t.active + PRESENCE.LEGACY_EVENT_OFFSET_FOR_ACTIVITY_SECONDS >= t.connected;
  return { client: 'website', status: active ? 'active' : 'idle', timestamp: active ? t.active : t.connected, pushable: false };
}

function legacyPresence(e: Entry, user: UserRow): Record<string, unknown> {
  const w = legacyClientPresence(e, user);
  return { aggregated: { client: w.client, status: w.status, timestamp: w.timestamp }, website: w };
}

// ---------------------------------------------------------------------------
// Invisible mode (presence_enabled off)

function presenceEnabled(user: UserRow): boolean {
  return userSettings(user.settings_json).presence_enabled !== false;
}

/** When a user hides presence they appear last online a while before. */
const hiddenTime = (now: number): number => now - PRESENCE.OFFLINE_THRESHOLD_SECS - 120;

function needsHiding(e: Entry, now: number): boolean {
  return e.active !== null || e.connected === null || e.connected > hiddenTime(now);
}

/**
 * Makes a user who turned presence_enabled off appear offline: their entry
 * becomes "connected a while ago, never active" (as Zulip does), and
 * everyone is told. Does nothing when the user is already hidden.
 */
async function hide(svc: Services, st: PresenceState, user: UserRow, now: number, e?: Entry): Promise<Entry | undefined> {
  e ??= await st.get(user.id);
  if (!e || !needsHiding(e, now)) return e;
  e.active = null;
  e.connected = hiddenTime(now);
  await st.commit(svc, e);
  await sendPresenceChanged(svc, user, e, true);
  return e;
}

/**
 * For the settings action: call after a user's presence_enabled changes.
 * Turning it off hides the user at once; turning it on marks them online.
 * Either way everyone is told (a forced presence event).
 */
export async function presenceEnabledChanged(svc: Services, user: UserRow, enabled: boolean): Promise<void> {
  const st = await realmPresence(svc);
  const now = nowSecs();
  if (enabled) {
    const r = applyReport(svc, st, user.id, await st.get(user.id), 'active', now);
    await r.write;
    await sendPresenceChanged(svc, user, r.entry, true);
  } else {
    await hide(svc, st, user, now);
  }
}

// ---------------------------------------------------------------------------
// Recording a report

interface ReportResult {
  entry: Entry;
  /** The user had no presence before, or came back online. */
  notify: boolean;
  write: Promise<void>;
}

/**
 * Zulip's update rule: timestamps move only when the report is more than
 * UPDATE_MIN_FREQ_SECONDS newer than what is stored; a user "came online"
 * (worth an immediate event) when active after missing a couple of pings.
 */
function applyReport(svc: Services, st: PresenceState, userId: number, e: Entry | undefined, status: PresenceStatus, now: number): ReportResult {
  const isActive = status === 'active';
  if (!e) {
    e = { userId, active: isActive ? now : null, connected: now, updateId: 0 };
    st.add(e);
    return { entry: e, notify: true, write: st.commit(svc, e) };
  }
  const sinceActive = e.active !== null ? now - e.active : 86400;
  const sinceConnected = e.connected !== null ? now - e.connected : 86400;
  const cameOnline = isActive && sinceActive > PRESENCE.OFFLINE_THRESHOLD_SECS - PRESENCE.PING_INTERVAL_SECS - 10;
  let changed = false;
  if (sinceConnected > PRESENCE.UPDATE_MIN_FREQ_SECONDS) {
    e.connected = now;
    changed = true;
  }
  if (isActive && sinceActive > PRESENCE.UPDATE_MIN_FREQ_SECONDS) {
    e.active = now;
    if (e.connected === null || now > e.connected) e.connected = now;
    changed = true;
  }
  return { entry: e, notify: cameOnline, write: changed ? st.commit(svc, e) : Promise.resolve() };
}

/** Tells the organization about a user's presence (Zulip's send_presence_changed). */
async function sendPresenceChanged(svc: Services, user: UserRow, e: Entry, force: boolean): Promise<void> {
  const recipients = presenceLimited(svc) ? await userIdsWhoCanAccess(svc, user) : await cachedActiveUserIds(svc);
  if (recipients.length > PRESENCE.USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS && !force) return;
  // Every format is carried; the queue filter keeps the one each client asked for.
  svc.bus.send(
    {
      type: 'presence',
      user_id: user.id,
      email: user.email,
      server_timestamp: Date.now() / 1000,
      presence: { website: legacyClientPresence(e, user) },
      presences: { [String(user.id)]: modernPresence(e, user) },
    },
    recipients,
  );
}

export interface UpdatePresenceInput {
  status: string;
  lastUpdateId?: number;
  historyLimitDays?: number;
  pingOnly: boolean;
  slimPresence: boolean;
  clientName: string;
}

export async function updatePresence(svc: Services, me: UserRow, input: UpdatePresenceInput): Promise<Record<string, unknown>> {
  if (me.is_bot) throw badRequest('This endpoint does not accept bot requests.');
  if (input.status !== 'active' && input.status !== 'idle') throw badRequest(`Invalid status: ${input.status}`);
  const st = await realmPresence(svc);
  const now = nowSecs();
  // The answer (unless only a ping is asked for) is made from the entries
  // it may show: everyone's on a first fetch; on an incremental one
  // only those changed since, which with several processes reads those rows
  // instead of the whole organization's. Either read has the caller's own
  // entry, if any.
  const shown = input.pingOnly ? null : isIncremental(input.lastUpdateId) ? await st.since(input.lastUpdateId, me.id) : await st.all();
  const listed = shown?.find((e) => e.userId === me.id);
  const mine = shown ? listed : await st.get(me.id);
  // The client name is not recorded: since FL 178 presence is per user, reported as "website".
  let after: Entry | undefined;
  if (presenceEnabled(me)) {
    const r = applyReport(svc, st, me.id, mine, input.status, now);
    await r.write;
    if (r.notify) await sendPresenceChanged(svc, me, r.entry, false);
    after = r.entry;
  } else {
    after = await hide(svc, st, me, now, mine);
  }
  // A new entry joins the answer's (which shows an entry only if it changed since the id sent).
  if (shown && after && !listed) shown.push(after);
  if (!shown) {
    return { presence_last_update_id: input.lastUpdateId ?? -1 };
  }
  // Sending last_update_id asks for the modern format.
  const slim = input.slimPresence || input.lastUpdateId !== undefined;
  const data = await presenceData(svc, me, { slim, lastUpdateId: input.lastUpdateId ?? null, historyLimitDays: input.historyLimitDays ?? null }, shown);
  return { presences: data.presences, server_timestamp: Date.now() / 1000, presence_last_update_id: data.lastUpdateId };
}

// ---------------------------------------------------------------------------
// Reading

/** A request with last_update_id > 0 asks only for what changed after it (the client has the rest). */
const isIncremental = (lastUpdateId: number | null | undefined): lastUpdateId is number => lastUpdateId != null && lastUpdateId > 0;

export interface PresenceQuery {
  slim: boolean;
  lastUpdateId: number | null;
  historyLimitDays: number | null;
}

/**
 * The organization's presence as `viewer` sees it: users with presence
 * changed after `lastUpdateId` (when given) and, on a first fetch, connected
 * within the history limit; active humans only.
 */
export async function presenceData(
  svc: Services,
  viewer: UserRow,
  q: PresenceQuery,
  /** The entries the answer may show, when the caller has just read them (all, or those changed after q.lastUpdateId). */
  everyone?: Entry[],
): Promise<{ presences: Record<string, unknown>; lastUpdateId: number }> {
  const now = nowSecs();
  const since = now - (q.historyLimitDays ?? PRESENCE.DEFAULT_HISTORY_LIMIT_DAYS) * 86400;
  const incremental = isIncremental(q.lastUpdateId);
  const pick = (e: Entry): boolean =>
    (q.lastUpdateId === null || e.updateId > q.lastUpdateId) && (incremental || (e.connected !== null && e.connected >= since));
  const picked = q.historyLimitDays === 0 ? [] : (everyone ?? (await (await realmPresence(svc)).all())).filter(pick);
  picked.sort((a, b) => a.userId - b.userId);
  const byId = (await cachedUsers(svc)).byId;
  // Users who turned presence off without a ping since are hidden now.
  const hidden = picked.filter((e) => {
    const u = byId.get(e.userId);
    return u !== undefined && !presenceEnabled(u);
  });
  if (hidden.length) {
    const st = await realmPresence(svc);
    await Promise.all(hidden.map((e) => hide(svc, st, byId.get(e.userId)!, now, e)));
  }
  const access = presenceLimited(svc) ? await userAccess(svc, viewer) : null;
  const presences: Record<string, unknown> = {};
  let maxId = -1;
  for (const e of picked) {
    const u = byId.get(e.userId);
    if (!u || !u.is_active || u.is_bot || (access && !access.can(u))) continue;
    // (A user hidden just now shows only if that is still news to the viewer.)
    if (!pick(e)) continue;
    presences[q.slim ? String(u.id) : u.email] = q.slim ? modernPresence(e, u) : legacyPresence(e, u);
    if (e.updateId > maxId) maxId = e.updateId;
  }
  const lastUpdateId = maxId >= 0 ? maxId : (q.lastUpdateId ?? -1);
  return { presences, lastUpdateId };
}

/** GET /realm/presence: the legacy format, two weeks of history. */
export async function realmPresenceResponse(svc: Services, viewer: UserRow): Promise<Record<string, unknown>> {
  const data = await presenceData(svc, viewer, { slim: false, lastUpdateId: null, historyLimitDays: null });
  return { presences: data.presences, server_timestamp: Date.now() / 1000 };
}

/** GET /users/{user_id_or_email}/presence. */
export async function userPresence(svc: Services, viewer: UserRow, userIdOrEmail: string): Promise<Record<string, unknown>> {
  const target = /^\d+$/.test(userIdOrEmail)
    ? await userById(svc.store.db, svc.realmId, Number(userIdOrEmail))
    : await userByApiEmail(svc.store.db, svc.realmId, userIdOrEmail); // Zulip's get_active_user: the API email only
  if (!target || !target.is_active) throw new ApiError('No such user');
  if (target.is_bot) throw badRequest('Presence is not supported for bot users.');
  if (presenceLimited(svc) && !(await canAccessUser(svc, viewer, target))) throw badRequest('Insufficient permission');
  const st = await realmPresence(svc);
  const now = nowSecs();
  const e = presenceEnabled(target) ? await st.get(target.id) : await hide(svc, st, target, now);
  if (!e) throw badRequest(`No presence data for ${userIdOrEmail}`);
  const w = legacyClientPresence(e, target);
  const aggregatedStatus = now - w.timestamp > PRESENCE.OFFLINE_THRESHOLD_SECS ? 'offline' : w.status;
  return {
    presence: {
      aggregated: { status: aggregatedStatus, timestamp: w.timestamp },
      website: { status: w.status, timestamp: w.timestamp },
    },
  };
}

/**
 * When each user last had a client connected or active (UNIX seconds; null
 * if never), whatever their presence_enabled setting: what notifications
 * use to tell whether someone is away.
 */
export async function lastClientActivity(svc: Services, userIds: number[]): Promise<Map<number, number | null>> {
  const st = await realmPresence(svc);
  const entries = new Map<number, Entry | undefined>();
  if (userIds.length > 20) for (const e of await st.all()) entries.set(e.userId, e);
  else for (const id of userIds) entries.set(id, await st.get(id));
  const out = new Map<number, number | null>();
  for (const id of userIds) {
    const e = entries.get(id);
    const t = Math.max(e?.active ?? -1, e?.connected ?? -1);
    out.set(id, t < 0 ? null : t);
  }
  return out;
}
