/**
 * The organization kept in memory: its row and settings, its users, channels
 * and group graph, linkifiers, custom emoji and custom profile field values. Nearly every request needs
 * some of these, and they change rarely.
 *
 * Each part is reloaded when one of the tables it comes from has changed
 * (`store.changes`: every write is seen there, whoever made it, including
 * other processes on the same database). A part read inside a transaction
 * that has written its tables is read from that transaction and not kept.
 * Users are the exception: they are brought up to date row by row, only
 * the rows changed since being loaded again (KeptUsers), as a change to one
 * user would otherwise have every user read again.
 *
 * Message rows, reactions and submessages are kept too, by message ID, for
 * reading messages (GET /messages asks for the same recent messages again
 * and again). Rows are dropped all together when any existing message
 * changes (an edit, a move, a deletion: MESSAGE_REWRITES), as reactions and
 * submessages are when any is added or removed; new messages leave them.
 *
 * With several processes sharing the work (REDIS_URL), each request first
 * reads what the other processes have changed (`store.changes.refresh()`,
 * see store/change-feed.ts), so another process's change is seen by the
 * very next request, whichever process serves it. Background jobs do the
 * same at the start of each pass (`refreshingFirst`).
 *
 * Values handed out are shared and frozen: never modify them.
 */
import type { Services } from '../services.ts';
import type { Store, Tx } from '../store/db.ts';
import { MESSAGE_REWRITES, type TableChanges } from '../store/changes.ts';
import { messagesByIds, reactionsFor, type MessageRow, type ReactionRow } from '../store/messages.ts';
import { submessagesFor, type SubmessageRow } from '../store/submessages.ts';
import { allUsers, userRowVersions, usersByIds, type UserRow } from '../store/users.ts';
import { realmById, type RealmRow } from '../store/realm.ts';
import { allStreams, subscribedStreamIds, subscribersWithNotificationSettings, type StreamRow, type SubscriberNotificationRow } from '../store/streams.ts';
import { mutingUserIds } from '../store/muted-users.ts';
import { channelTopicPolicyRows } from '../store/user-topics.ts';
import { realmAlertWords } from '../store/alert-words.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import type { Linkifier } from '../markdown/linkifiers.ts';
import { activeIdsOf, Groups } from './group-settings.ts';
import { activeEmojiForRendering, linkifiersForRendering } from './rendering-data.ts';
import { loadProfileData, type ProfileData } from './profile-data.ts';

/**
 * Values kept while the tables they come from are unchanged: what Part,
 * ByKey and ByMessage share. Any change to `tables` drops every kept value;
 * a value loaded while they changed, or while a write to them is pending,
 * is handed out but not kept. Past `limit` values, the oldest kept goes first.
 */
class Kept<K, V> {
  protected readonly kept = new Map<K, V>();
  private stamp = -1;
  protected readonly changes: TableChanges;
  private readonly tables: readonly string[];
  private readonly limit: number;

  constructor(changes: TableChanges, tables: readonly string[], limit: number) {
    this.changes = changes;
    this.tables = tables;
    this.limit = limit;
    changes.watch(tables);
  }

  /** The tables' stamp now, dropping what was kept under an older one. */
  protected begin(): number {
    const stamp = this.changes.stamp(this.tables);
    if (stamp !== this.stamp) {
      this.kept.clear();
      this.stamp = stamp;
    }
    return stamp;
  }

  /** Keeps a value loaded since `begin()` returned `stamp`, unless the tables changed meanwhile or have a write pending; whether it was kept. */
  protected keep(stamp: number, key: K, value: V): boolean {
    if (this.stamp !== stamp || this.changes.stamp(this.tables) !== stamp || !this.changes.settled(this.tables)) return false;
    this.kept.set(key, value);
    if (this.kept.size > this.limit) this.kept.delete(this.kept.keys().next().value as K);
    return true;
  }

  /** The stamp the kept values were loaded under. */
  protected get keptStamp(): number {
    return this.stamp;
  }
}

/** One value (a snapshot of a whole table or a few). */
class Part<T> extends Kept<0, T> {
  private readonly load: (db: Tx) => Promise<T>;

  constructor(changes: TableChanges, tables: readonly string[], load: (db: Tx) => Promise<T>) {
    super(changes, tables, 1);
    this.load = load;
  }

  async get(db: Tx): Promise<T> {
    const stamp = this.begin();
    const kept = this.kept.get(0);
    if (kept !== undefined) return kept;
    const value = await this.load(db);
    this.keep(stamp, 0, value);
    return value;
  }
}

/**
 * The organization's users, kept by row. When the table changes, each
 * user's row version (moved by every change to the row, see migration 1050)
 * is read and only the rows added or changed since the last snapshot kept
 * are loaded; the others are the same frozen rows as before. The whole table
 * is loaded again only when there is no such snapshot, when everything
 * counts as changed (`TableChanges.everything`: another process wrote,
 * tables unknown), or when most rows changed.
 */
class KeptUsers extends Kept<0, UsersSnapshot> {
  private readonly realmId: number;
  /** The last snapshot kept (what the database held, committed), with the `everything` it was loaded under. */
  private base: { snapshot: UsersSnapshot; everything: number } | null = null;

  constructor(changes: TableChanges, realmId: number) {
    super(changes, ['users'], 1);
    this.realmId = realmId;
  }

  async get(db: Tx): Promise<UsersSnapshot> {
    const stamp = this.begin();
    const kept = this.kept.get(0);
    if (kept !== undefined) return kept;
    const everything = this.changes.everything;
    const base = this.base?.everything === everything ? this.base.snapshot : null;
    const value = base ? await this.update(db, base) : usersSnapshot((await allUsers(db, this.realmId)).map((u) => Object.freeze(u)));
    if (this.keep(stamp, 0, value)) this.base = { snapshot: value, everything };
    return value;
  }

  private async update(db: Tx, base: UsersSnapshot): Promise<UsersSnapshot> {
    const versions = await userRowVersions(db, this.realmId);
    const changed = new Set<number>();
    for (const v of versions) if (base.byId.get(v.id)?.row_version !== v.row_version) changed.add(v.id);
    if (changed.size === 0 && versions.length === base.list.length) return base;
    if (changed.size > versions.length / 2) return usersSnapshot((await allUsers(db, this.realmId)).map((u) => Object.freeze(u)));
    const fresh = new Map((await usersByIds(db, this.realmId, [...changed])).map((u) => [u.id, Object.freeze(u)]));
    const list: UserRow[] = [];
    for (const v of versions) {
      // A row changed between the two reads is as the second found it (its
      // own version with it); one deleted between them is left out.
      const u = fresh.get(v.id) ?? (changed.has(v.id) ? undefined : base.byId.get(v.id));
      if (u) list.push(u);
    }
    return usersSnapshot(list);
  }
}

function usersSnapshot(list: UserRow[]): UsersSnapshot {
  return {
    list: Object.freeze(list),
    byId: new Map(list.map((u) => [u.id, u])),
    byApiKey: new Map(list.map((u) => [u.api_key, u])),
  };
}

/** The most keys a ByKey keeps; past it, the oldest kept is dropped first. */
const KEYS_KEPT = 1000;

/** A value per key (a channel's subscribers, a user's muters), loaded on first use. */
class ByKey<K, T> extends Kept<K, T> {
  private readonly load: (db: Tx, key: K) => Promise<T>;

  constructor(changes: TableChanges, tables: readonly string[], load: (db: Tx, key: K) => Promise<T>) {
    super(changes, tables, KEYS_KEPT);
    this.load = load;
  }

  async get(db: Tx, key: K): Promise<T> {
    const stamp = this.begin();
    const kept = this.kept.get(key);
    if (kept !== undefined) return kept;
    const value = await this.load(db, key);
    this.keep(stamp, key, value);
    return value;
  }
}

/** The most messages whose rows (or reactions, or submessages) are kept; past it, the oldest kept are dropped first. */
const MESSAGES_KEPT = 2000;

/**
 * Something of each message (its row, its reactions), by message ID.
 * `absent` is what a message without any has (kept as well), or undefined
 * when such a message is not kept (a message that does not exist).
 */
class ByMessage<T> extends Kept<number, T> {
  private readonly load: (db: Tx, ids: number[]) => Promise<Map<number, T>>;
  private readonly absent: T | undefined;

  constructor(changes: TableChanges, tables: readonly string[], load: (db: Tx, ids: number[]) => Promise<Map<number, T>>, absent: T | undefined) {
    super(changes, tables, MESSAGES_KEPT);
    this.load = load;
    this.absent = absent;
  }

  async get(db: Tx, ids: readonly number[]): Promise<Map<number, T>> {
    const stamp = this.begin();
    const out = new Map<number, T>();
    const missing: number[] = [];
    for (const id of ids) {
      const v = this.kept.get(id);
      if (v !== undefined) out.set(id, v);
      else missing.push(id);
    }
    if (missing.length === 0) return out;
    const loaded = await this.load(db, missing);
    for (const id of missing) {
      const v = loaded.get(id) ?? this.absent;
      if (v === undefined) continue;
      out.set(id, v);
      this.keep(stamp, id, v);
    }
    return out;
  }

  /** Keeps a value known without a query (a new message's), unless `tables` changed since the last read or have a write pending. */
  prime(id: number, value: T): void {
    this.keep(this.keptStamp, id, value);
  }
}

async function messageRowsById(db: Tx, realmId: number, ids: number[]): Promise<Map<number, MessageRow>> {
  return new Map((await messagesByIds(db, realmId, ids)).map((r) => [r.id, Object.freeze(r)]));
}

/** Freezes each list and its rows (values kept by ByMessage are shared). */
function frozenLists<R extends object>(lists: Map<number, R[]>): Map<number, readonly R[]> {
  for (const list of lists.values()) {
    for (const r of list) Object.freeze(r);
    Object.freeze(list);
  }
  return lists;
}

const NONE: readonly never[] = Object.freeze([]);

export interface UsersSnapshot {
  /** Every account of the organization (active or not, bots included), by ID order. */
  list: readonly UserRow[];
  byId: ReadonlyMap<number, UserRow>;
  byApiKey: ReadonlyMap<string, UserRow>;
}

export interface RealmSnapshot {
  row: RealmRow;
  settings: Readonly<Record<string, unknown>>;
}

export interface StreamsSnapshot {
  list: readonly StreamRow[];
  byId: ReadonlyMap<number, StreamRow>;
  /** By lower-cased name. */
  byName: ReadonlyMap<string, StreamRow>;
}

/** A channel's active subscribers (active users only, by user ID order) with their notification settings. */
export interface ChannelSubscribers {
  list: readonly SubscriberNotificationRow[];
  byUserId: ReadonlyMap<number, SubscriberNotificationRow>;
}

export type CustomEmoji = ReadonlyMap<string, { id: string; name: string; source_url: string }>;

class RealmCache {
  readonly users: KeptUsers;
  readonly realm: Part<RealmSnapshot>;
  readonly streams: Part<StreamsSnapshot>;
  readonly groups: Part<Groups>;
  readonly linkifiers: Part<Linkifier[]>;
  readonly emoji: Part<CustomEmoji>;
  readonly profileData: Part<ReadonlyMap<number, ProfileData>>;
  /** Each channel's active subscriptions, deactivated users' included (cachedSubscribers leaves those out). */
  readonly subscriptions: ByKey<number, readonly SubscriberNotificationRow[]>;
  readonly muters: ByKey<number, ReadonlySet<number>>;
  readonly subscribedChannels: ByKey<number, ReadonlySet<number>>;
  readonly topicPolicies: ByKey<number, ReadonlyMap<string, ReadonlyMap<number, number>>>;
  readonly alertWords: Part<ReadonlyMap<number, readonly string[]>>;
  readonly messageRows: ByMessage<MessageRow>;
  readonly reactions: ByMessage<readonly ReactionRow[]>;
  readonly submessages: ByMessage<readonly SubmessageRow[]>;

  constructor(changes: TableChanges, realmId: number) {
    this.messageRows = new ByMessage(changes, [MESSAGE_REWRITES], (db, ids) => messageRowsById(db, realmId, ids), undefined);
    this.reactions = new ByMessage(changes, ['reactions'], async (db, ids) => frozenLists(await reactionsFor(db, ids)), NONE);
    this.submessages = new ByMessage(changes, ['submessages'], async (db, ids) => frozenLists(await submessagesFor(db, ids)), NONE);
    this.users = new KeptUsers(changes, realmId);
    this.realm = new Part(changes, ['realm'], async (db) => {
      const row = Object.freeze(await realmById(db, realmId));
      return { row, settings: Object.freeze(realmSettings(row.settings_json)) };
    });
    this.streams = new Part(changes, ['streams'], async (db) => {
      const list = (await allStreams(db, realmId)).map((s) => Object.freeze(s));
      return {
        list: Object.freeze(list),
        byId: new Map(list.map((s) => [s.id, s])),
        byName: new Map(list.map((s) => [s.name.toLowerCase(), s])),
      };
    });
    this.groups = new Part(changes, ['user_groups', 'user_group_members', 'user_group_subgroups', 'realm'], (db) => Groups.load(db, realmId));
    this.linkifiers = new Part(changes, ['realm_linkifiers'], async (db) => Object.freeze(await linkifiersForRendering(db, realmId)) as Linkifier[]);
    this.emoji = new Part(changes, ['realm_emoji'], (db) => activeEmojiForRendering(db, realmId));
    this.profileData = new Part(changes, ['custom_profile_field_values', 'custom_profile_fields'], (db) => loadProfileData(db, realmId));
    this.subscriptions = new ByKey(changes, ['subscriptions'], async (db, streamId) =>
      Object.freeze((await subscribersWithNotificationSettings(db, streamId)).map((s) => Object.freeze(s))),
    );
    this.subscribedChannels = new ByKey(changes, ['subscriptions'], async (db, userId) => new Set(await subscribedStreamIds(db, userId)));
    this.topicPolicies = new ByKey(changes, ['user_topics'], async (db, streamId) => {
      const byTopic = new Map<string, Map<number, number>>();
      for (const r of await channelTopicPolicyRows(db, streamId)) {
        const key = r.topic.toLowerCase();
        let users = byTopic.get(key);
        if (!users) byTopic.set(key, (users = new Map()));
        users.set(r.user_id, r.visibility_policy);
      }
      return byTopic;
    });
    this.muters = new ByKey(changes, ['muted_users'], async (db, userId) => new Set(await mutingUserIds(db, userId)));
    this.alertWords = new Part(changes, ['alert_words', 'users'], async (db) => {
      const byUser = await realmAlertWords(db, realmId);
      for (const words of byUser.values()) Object.freeze(words);
      return byUser;
    });
  }
}

const caches = new WeakMap<Store, Map<number, RealmCache>>();

function cacheOf(svc: Services): RealmCache {
  let byRealm = caches.get(svc.store);
  if (!byRealm) caches.set(svc.store, (byRealm = new Map()));
  let c = byRealm.get(svc.realmId);
  if (!c) byRealm.set(svc.realmId, (c = new RealmCache(svc.store.changes, svc.realmId)));
  return c;
}

function get<T>(svc: Services, db: Tx, pick: (c: RealmCache) => { get(db: Tx): Promise<T> }): Promise<T> {
  return pick(cacheOf(svc)).get(db);
}

/** The organization's row and parsed settings. */
export const cachedRealm = (svc: Services, db: Tx = svc.store.db): Promise<RealmSnapshot> => get(svc, db, (c) => c.realm);
/** Every account of the organization. */
export const cachedUsers = (svc: Services, db: Tx = svc.store.db): Promise<UsersSnapshot> => get(svc, db, (c) => c.users);
const activeIdLists = new WeakMap<UsersSnapshot, readonly number[]>();

/**
 * The IDs of the organization's active users (bots included), by ID order:
 * the recipients of an event for everyone. Inside a transaction, pass it as
 * `db`. Shared: never modify it.
 */
export async function cachedActiveUserIds(svc: Services, db: Tx = svc.store.db): Promise<readonly number[]> {
  const users = await cachedUsers(svc, db);
  let ids = activeIdLists.get(users);
  if (!ids) activeIdLists.set(users, (ids = Object.freeze(users.list.filter((u) => u.is_active).map((u) => u.id))));
  return ids;
}

/** The same IDs as a set: a user ID sent for a group setting must be one of them. Inside a transaction, pass it as `db`. Shared: never modify it. */
export async function cachedActiveUserIdSet(svc: Services, db: Tx = svc.store.db): Promise<ReadonlySet<number>> {
  return activeIdsOf((await cachedUsers(svc, db)).list);
}

/**
 * The organization's bots (active or not), or those one user owns, by ID
 * order; not the system bots (Zulip keeps those in a realm of their own).
 */
export async function cachedBots(svc: Services, ownerId?: number): Promise<UserRow[]> {
  return (await cachedUsers(svc)).list.filter((u) => u.is_bot && !u.is_system_bot && (ownerId === undefined || u.bot_owner_id === ownerId));
}
/** Every channel of the organization (archived ones included). */
export const cachedStreams = (svc: Services, db: Tx = svc.store.db): Promise<StreamsSnapshot> => get(svc, db, (c) => c.streams);
/** The organization's group graph. */
export const cachedGroups = (svc: Services, db: Tx = svc.store.db): Promise<Groups> => get(svc, db, (c) => c.groups);
/** The organization's linkifiers, for rendering. */
export const cachedLinkifiers = (svc: Services, db: Tx = svc.store.db): Promise<Linkifier[]> => get(svc, db, (c) => c.linkifiers);
/** Active custom emoji by name, for rendering. */
export const cachedCustomEmoji = (svc: Services, db: Tx = svc.store.db): Promise<CustomEmoji> => get(svc, db, (c) => c.emoji);

/** Every user's custom profile field values (`profile_data`), by user ID; users without any are absent. */
export const cachedProfileData = (svc: Services, db: Tx = svc.store.db): Promise<ReadonlyMap<number, ProfileData>> => get(svc, db, (c) => c.profileData);

/** Each channel's subscribers as last filtered, with the users and subscriptions they were filtered from. */
const activeSubscribers = new WeakMap<readonly SubscriberNotificationRow[], { users: UsersSnapshot; value: ChannelSubscribers }>();

/**
 * A channel's active subscribers (active users only) with their notification
 * settings. Frozen and shared. The subscriptions are kept per channel and
 * the users row by row, and a change to either filters them again: a change
 * to one user does not read every channel's subscriptions again.
 */
export async function cachedSubscribers(svc: Services, streamId: number, db: Tx = svc.store.db): Promise<ChannelSubscribers> {
  const subscriptions = await cacheOf(svc).subscriptions.get(db, streamId);
  const users = await cachedUsers(svc, db);
  const kept = activeSubscribers.get(subscriptions);
  if (kept?.users === users) return kept.value;
  const list = Object.freeze(subscriptions.filter((s) => users.byId.get(s.user_id)?.is_active));
  const value = { list, byUserId: new Map(list.map((s) => [s.user_id, s])) };
  activeSubscribers.set(subscriptions, { users, value });
  return value;
}

/** The IDs of the channels a user is subscribed to (active subscriptions). Shared: never modify it. */
export const cachedSubscribedChannels = (svc: Services, userId: number, db: Tx = svc.store.db): Promise<ReadonlySet<number>> =>
  cacheOf(svc).subscribedChannels.get(db, userId);

const NO_POLICIES: ReadonlyMap<number, number> = new Map();

/**
 * Each user's visibility policy for a topic of a channel (topics compared
 * case-insensitively, as Zulip does), by user ID; users without one are
 * absent. Shared: never modify it.
 */
export async function cachedTopicPolicies(svc: Services, streamId: number, topic: string, db: Tx = svc.store.db): Promise<ReadonlyMap<number, number>> {
  return (await cacheOf(svc).topicPolicies.get(db, streamId)).get(topic.toLowerCase()) ?? NO_POLICIES;
}

/** The users who have muted this user. Shared: never modify it. */
export const cachedMuters = (svc: Services, userId: number, db: Tx = svc.store.db): Promise<ReadonlySet<number>> => cacheOf(svc).muters.get(db, userId);

/** The alert words of the organization's active users, by user ID. Frozen and shared. */
export const cachedAlertWords = (svc: Services, db: Tx = svc.store.db): Promise<ReadonlyMap<number, readonly string[]>> => get(svc, db, (c) => c.alertWords);

/**
 * The rows of these messages (those that exist), by ID order. Frozen and
 * shared: never modify them. Read from `db` itself when it is a transaction
 * that has changed messages.
 */
export async function cachedMessageRows(svc: Services, ids: readonly number[], db: Tx = svc.store.db): Promise<MessageRow[]> {
  const rows = await cacheOf(svc).messageRows.get(db, ids);
  return [...rows.values()].sort((a, b) => a.id - b.id);
}

/** The reactions of each of these messages, in the order they were added (every ID has a list). Frozen and shared. */
export const cachedReactions = (svc: Services, ids: readonly number[], db: Tx = svc.store.db): Promise<Map<number, readonly ReactionRow[]>> =>
  cacheOf(svc).reactions.get(db, ids);

/** The submessages of each of these messages, by ID order (every ID has a list). Frozen and shared. */
export const cachedSubmessages = (svc: Services, ids: readonly number[], db: Tx = svc.store.db): Promise<Map<number, readonly SubmessageRow[]>> =>
  cacheOf(svc).submessages.get(db, ids);

/**
 * A message just stored has no reactions nor submessages yet (a widget's
 * first submessage is a write to `submessages`, which this then leaves
 * alone): formatting it needs no query for them.
 */
export function primeNewMessage(svc: Services, id: number): void {
  const c = cacheOf(svc);
  c.reactions.prime(id, NONE);
  c.submessages.prime(id, NONE);
}

/**
 * The account of this organization with this API key, and whether the
 * organization is deactivated (authentication on every request).
 */
export async function accountByApiKey(svc: Services, apiKey: string): Promise<{ user: UserRow; realmDeactivated: boolean } | undefined> {
  const user = (await cachedUsers(svc)).byApiKey.get(apiKey);
  if (!user) return undefined;
  return { user, realmDeactivated: !!(await cachedRealm(svc)).row.deactivated };
}

/**
 * Takes in the changes other processes have made (several processes share
 * the work): for work that runs outside requests, at the start of each pass.
 * Requests do it before anything else (http/app.ts). Does nothing for one
 * process.
 */
export function refreshKept(svc: Services): Promise<void> {
  return svc.store.changes.refresh();
}

/** A background job's pass that first takes in the other processes' changes (`refreshKept`). */
export function refreshingFirst(svc: Services, pass: () => Promise<unknown>): () => Promise<unknown> {
  return async () => {
    await refreshKept(svc);
    return pass();
  };
}

/** Settles once this process's writes so far are announced to the other processes (an answer waits for its own). */
export function changesAnnounced(svc: Services): Promise<void> {
  return svc.store.changes.announced();
}
