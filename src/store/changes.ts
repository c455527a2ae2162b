/**
 * Which tables have changed, so that data kept in memory (the organization,
 * its users, channels and groups) can tell whether it is still current.
 *
 * Every executed INSERT, UPDATE or DELETE is seen here (from Kysely's query
 * log, whichever query built it) and moves its table's version. A write
 * inside a transaction also marks the table "pending" until the transaction
 * ends, and moves the version again then: nothing read while a write is
 * uncommitted may be kept. Writes by other processes arrive through
 * `external` (SQLite's data_version, PostgreSQL's NOTIFY; see db.ts) and,
 * with several processes, through a shared feed (`useFeed`,
 * change-feed.ts) that each request reads first.
 */

import { AsyncLocalStorage } from 'node:async_hooks';

const WRITE_RE = /^\s*(?:insert\s+(?:or\s+\w+\s+)?into|update(?:\s+or\s+\w+)?|delete\s+from|replace\s+into)\s+(?:"[^"]+"\.)?"?([A-Za-z_][A-Za-z0-9_]*)"?/i;

/**
 * The tables that processes kept data of in memory (src/actions/cache.ts):
 * every process, the admin CLI included, announces its writes to these, so
 * the list lives here rather than with the caches.
 */
export const ANNOUNCED_TABLES: ReadonlySet<string> = new Set([
  'realm',
  'messages:rewritten',
  'reactions',
  'submessages',
  'users',
  'streams',
  'user_groups',
  'user_group_members',
  'user_group_subgroups',
  'realm_linkifiers',
  'realm_emoji',
  'custom_profile_fields',
  'custom_profile_field_values',
  'subscriptions',
  'muted_users',
  'alert_words',
  'user_topics',
]);

/**
 * What UPDATE and DELETE statements on `messages` count as: they change or
 * remove rows that may be kept in memory, while a new message (INSERT)
 * leaves every existing row as it was, so a send moves only `messages`.
 */
export const MESSAGE_REWRITES = 'messages:rewritten';

/** The table a statement writes (INSERT, UPDATE, DELETE or REPLACE), or null for anything else. */
export function writtenTableOf(sqlText: string): string | null {
  const m = WRITE_RE.exec(sqlText);
  return m ? m[1]!.toLowerCase() : null;
}

export class TableChanges {
  /** Bumped when every table must be treated as changed (another process wrote). */
  private epoch = 0;
  private readonly versions = new Map<string, number>();
  /** Tables written by open transactions, with how many such transactions. */
  private readonly pending = new Map<string, number>();
  /** The tables written so far by the transaction of the current async context. */
  private readonly scope = new AsyncLocalStorage<{ tables: Set<string>; open: boolean }>();
  private readonly tableOf = new Map<string, string | null>();
  private readonly autocommitListeners: Array<(tables: string[]) => void> = [];
  /** Checks for other processes' writes; returns true when there were some. */
  external: () => boolean = () => false;
  /** The feed shared with the other processes of a deployment (REDIS_URL), if any. */
  private feed: ChangeFeedLink | null = null;
  /** Announcements to the feed not yet acknowledged. */
  private readonly announcing = new Set<Promise<void>>();

  /** The written table of a statement (MESSAGE_REWRITES for a change to existing messages), or null for a read. */
  writtenTable(sqlText: string): string | null {
    let t = this.tableOf.get(sqlText);
    if (t === undefined) {
      t = writtenTableOf(sqlText);
      if (t === 'messages' && !/^\s*insert\b/i.test(sqlText)) t = MESSAGE_REWRITES;
      if (this.tableOf.size > 5000) this.tableOf.clear();
      this.tableOf.set(sqlText, t);
    }
    return t;
  }

  /** A statement ran (called for every executed query). */
  executed(sqlText: string): void {
    const table = this.writtenTable(sqlText);
    if (table === null) return;
    this.bump([table]);
    const tx = this.scope.getStore();
    // Outside a transaction (or after it ended, from work it started): committed already.
    if (!tx?.open) return this.notifyAutocommitted([table]);
    if (!tx.tables.has(table)) {
      tx.tables.add(table);
      this.pending.set(table, (this.pending.get(table) ?? 0) + 1);
    }
  }

  /** Runs a transaction: its writes stay pending until it ends (committed or rolled back). */
  async inTransaction<T>(run: () => Promise<T>): Promise<T> {
    const tx = { tables: new Set<string>(), open: true };
    const written = tx.tables;
    let committed = false;
    try {
      const result = await this.scope.run(tx, run);
      committed = true;
      return result;
    } finally {
      tx.open = false;
      if (written.size) {
        for (const t of written) {
          const n = this.pending.get(t)! - 1;
          if (n === 0) this.pending.delete(t);
          else this.pending.set(t, n);
        }
        this.bump(written);
        // Committed: the other processes hear of it before the caller goes on
        // (to answer, or to send the events that make clients read it again).
        if (committed && this.feed) await this.announce([...written]);
      }
    }
  }

  /** Marks tables changed (also used for changes other processes announce). */
  bump(tables: Iterable<string>): void {
    for (const t of tables) this.versions.set(t, (this.versions.get(t) ?? 0) + 1);
  }

  /** Everything may have changed. */
  bumpAll(): void {
    this.epoch++;
  }

  /**
   * A number that moves only when everything must count as changed (the
   * database written by something whose tables are not known): data kept
   * row by row is then loaded whole again. Read it after `stamp()`.
   */
  get everything(): number {
    return this.epoch;
  }

  /**
   * A number that grows whenever one of the tables changes. A value read
   * from the database may be kept under this stamp when `stamp` and
   * `settled` are unchanged after the read.
   */
  stamp(tables: readonly string[]): number {
    if (this.external()) this.epoch++;
    let s = this.epoch * tables.length;
    for (const t of tables) s += this.versions.get(t) ?? 0;
    return s;
  }

  /** Whether no open transaction has written any of the tables. */
  settled(tables: readonly string[]): boolean {
    if (this.pending.size === 0) return true;
    for (const t of tables) if (this.pending.has(t)) return false;
    return true;
  }

  /**
   * Calls `fn` with the announced tables of each write made outside a
   * transaction (committed at once), for telling other processes. A
   * transaction tells them itself before it commits (`writtenInTransaction`).
   */
  onAutocommitted(fn: (tables: string[]) => void): void {
    this.autocommitListeners.push(fn);
  }

  /** The announced tables the transaction of the current async context has written so far. */
  writtenInTransaction(): string[] {
    const tx = this.scope.getStore();
    if (!tx?.open) return [];
    return [...tx.tables].filter((t) => ANNOUNCED_TABLES.has(t));
  }

  /** Checks that data kept in memory depends only on announced tables. */
  watch(tables: readonly string[]): void {
    for (const t of tables) if (!ANNOUNCED_TABLES.has(t)) throw new Error(`table ${t} is not in ANNOUNCED_TABLES`);
  }

  /**
   * Shares changes with the other processes of a deployment: this process's
   * committed writes to announced tables are announced to `feed`, and
   * `refresh()` reads theirs.
   */
  useFeed(feed: ChangeFeedLink): void {
    this.feed = feed;
  }

  /**
   * Takes in the changes other processes have announced to the feed (none
   * without one). A request calls this before it reads anything kept in
   * memory: whatever another process has answered for, or sent events
   * about, is then seen.
   */
  refresh(): Promise<void> {
    return this.feed ? this.feed.refresh() : Promise.resolve();
  }

  /** Settles once every announcement to the feed begun so far is done (an answer waits for its writes' own). */
  async announced(): Promise<void> {
    if (this.announcing.size) await Promise.all([...this.announcing]);
  }

  private announce(tables: string[]): Promise<void> {
    const feed = this.feed;
    const relevant = tables.filter((t) => ANNOUNCED_TABLES.has(t));
    if (!feed || relevant.length === 0) return Promise.resolve();
    // A failed announcement must not fail a write that has committed; the
    // database's own notice (NOTIFY) still reaches the other processes.
    const p = feed.announce(relevant).catch(() => {});
    this.announcing.add(p);
    void p.finally(() => this.announcing.delete(p));
    return p;
  }

  private notifyAutocommitted(tables: string[]): void {
    const relevant = tables.filter((t) => ANNOUNCED_TABLES.has(t));
    if (relevant.length === 0) return;
    for (const fn of this.autocommitListeners) fn(relevant);
    void this.announce(relevant);
  }
}

/** What TableChanges needs of a feed shared by several processes (change-feed.ts). */
export interface ChangeFeedLink {
  /** Tells the other processes that these tables changed (after the commit). */
  announce(tables: string[]): Promise<void>;
  /** Takes in what the other processes have announced since the last call. */
  refresh(): Promise<void>;
}
