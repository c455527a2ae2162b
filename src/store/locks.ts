/**
 * Cluster-wide mutual exclusion for work that must run once across all
 * processes (timers such as scheduled-message delivery). On PostgreSQL a
 * session advisory lock held on one connection of the pool for the duration
 * (released by PostgreSQL if the process dies); SQLite serves one process
 * only (the DATA_DIR lock), so the work just runs.
 */
import { sql } from 'kysely';
import pLimit, { type LimitFunction } from 'p-limit';
import type { Store, Tx } from './db.ts';

/** A lock's name within the deployment: schemas sharing one PostgreSQL database lock apart. */
const lockKey = (store: Store, name: string): string => `${store.schema ?? 'public'}:${name}`;

/**
 * How many of a process's pool connections may hold cluster locks at once:
 * all but one. Locked work queries on other connections of the same pool,
 * one at a time; were every connection holding a lock, that work (and so
 * the locks) would wait for ever. Later takers wait their turn.
 */
const holdersOf = new WeakMap<Store, LimitFunction>();

/**
 * Runs `fn` holding the named lock. With `wait: false` it returns undefined
 * at once when another process holds the lock; otherwise it waits its turn.
 */
export async function withClusterLock<T>(store: Store, name: string, opts: { wait: boolean }, fn: () => Promise<T>): Promise<T | undefined> {
  if (store.dialect !== 'postgres') return fn();
  const key = lockKey(store, name);
  let holders = holdersOf.get(store);
  if (!holders) holdersOf.set(store, (holders = pLimit(Math.max(1, (store.poolMax ?? 10) - 1))));
  return holders(() =>
    store.db.connection().execute(async (conn) => {
      if (opts.wait) {
        await sql`SELECT pg_advisory_lock(hashtext(${key}))`.execute(conn);
      } else {
        const r = await sql<{ ok: boolean }>`SELECT pg_try_advisory_lock(hashtext(${key})) AS ok`.execute(conn);
        if (!r.rows[0]?.ok) return undefined;
      }
      try {
        return await fn();
      } finally {
        await sql`SELECT pg_advisory_unlock(hashtext(${key}))`.execute(conn);
      }
    }),
  );
}

/**
 * Takes the named lock inside transaction `tx` until it commits or rolls
 * back: transactions that take it run one after another, across processes.
 * On PostgreSQL a transaction advisory lock; SQLite's transactions already
 * run one at a time.
 */
export async function lockUntilCommit(store: Store, tx: Tx, name: string): Promise<void> {
  if (store.dialect !== 'postgres') return;
  await sql`SELECT pg_advisory_xact_lock(hashtext(${lockKey(store, name)}))`.execute(tx);
}

/**
 * Taken before reading a row whose JSON settings column the transaction then
 * rewrites whole (an organization's, a user's, a channel's or a group's), or
 * whose settings it checks against each other (a default channel is never
 * private), so that two changes of different settings both stay: on
 * PostgreSQL each transaction reads committed rows, and the second would
 * write back the first one's row without its change. The row must be read
 * from the database after this, not from what the process keeps in memory.
 */
export function lockSettingsOf(store: Store, tx: Tx, kind: 'realm' | 'user' | 'stream' | 'group', id: number): Promise<void> {
  return lockUntilCommit(store, tx, `settings:${kind}:${id}`);
}

/**
 * Taken before checking that a new name is free (group names, custom emoji,
 * channel folders, profile field labels: no unique index can say it;
 * users' email addresses, linkifier patterns and playgrounds: one would, but
 * with a 500 instead of Zulip's error): of two requests taking one name at
 * the same moment, the second sees the first's row.
 */
export function lockNamesOf(
  store: Store,
  tx: Tx,
  kind: 'users' | 'user_groups' | 'realm_emoji' | 'channel_folders' | 'realm_linkifiers' | 'realm_playgrounds' | 'custom_profile_fields',
): Promise<void> {
  return lockUntilCommit(store, tx, `names:${kind}`);
}

/**
 * Taken by a user's changes to rows of their own: message flags (which may
 * first create the user's historical user_messages row), reactions, topic
 * policies, mutes, status, push tokens, saved views and a bot's storage. Two
 * at once would both insert the same row (a 500 from its unique key instead
 * of Zulip's error) or both miss the other.
 */
export function lockUserRowsOf(store: Store, tx: Tx, userId: number): Promise<void> {
  return lockUntilCommit(store, tx, `user-rows:${userId}`);
}

/**
 * Taken by subscribing and unsubscribing (which may create channels) and by
 * creating a channel: of two requests subscribing one user to one channel,
 * or creating one channel, at the same moment, the second sees the first's
 * rows.
 */
export function lockSubscriptionsOf(store: Store, tx: Tx): Promise<void> {
  return lockUntilCommit(store, tx, 'subscriptions');
}
