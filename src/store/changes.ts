/**
 * Which tables have changed, so that data kept in memory (the organization,
 * its users, channels and groups) can tell whether it is still current.
 *
 * Every executed INSERT, UPDATE or DELETE is seen here (from Kysely's query
 * log, whichever query built it) and moves its table's version. A write
 * inside a transaction also marks the table "pending" until the transaction
 * ends, and moves the version again then: nothing read while a write is
 * uncommitted may be kept. Writes by other processes arrive through
 * `external` (SQLite's data_version, PostgreSQL's NOTIFY; see db.ts).
 */

import { AsyncLocalStorage } from 'node:async_hooks';

const WRITE_RE = /^\s*(?:insert\s+(?:or\s+\w+\s+)?into|update(?:\s+or\s+\w+)?|delete\s+from|replace\s+into)\s+(?:"[^"]+"\.)?"?([A-Za-z_][A-Za-z0-9_]*)"?/i;

export class TableChanges {
  /** Bumped when every table must be treated as changed (another process wrote). */
  private epoch = 0;
  private readonly versions = new Map<string, number>();
  /** Tables written by open transactions, with how many such transactions. */
  private readonly pending = new Map<string, number>();
  /** The tables written so far by the transaction of the current async context. */
  private readonly scope = new AsyncLocalStorage<{ tables: Set<string>; open: boolean }>();
  private readonly tableOf = new Map<string, string | null>();
  private readonly committedListeners: Array<(tables: string[]) => void> = [];
  /** Checks for other processes' writes; returns true when there were some. */
  external: () => boolean = () => false;

  /** The written table of a statement, or null for a read. */
  writtenTable(sqlText: string): string | null {
    let t = this.tableOf.get(sqlText);
    if (t === undefined) {
      const m = WRITE_RE.exec(sqlText);
      t = m ? m[1]!.toLowerCase() : null;
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
    if (!tx?.open) return this.notifyCommitted([table]);
    if (!tx.tables.has(table)) {
      tx.tables.add(table);
      this.pending.set(table, (this.pending.get(table) ?? 0) + 1);
    }
  }

  /** Runs a transaction: its writes stay pending until it ends (committed or rolled back). */
  async inTransaction<T>(run: () => Promise<T>): Promise<T> {
    const tx = { tables: new Set<string>(), open: true };
    const written = tx.tables;
    try {
      return await this.scope.run(tx, run);
    } finally {
      tx.open = false;
      if (written.size) {
        for (const t of written) {
          const n = this.pending.get(t)! - 1;
          if (n === 0) this.pending.delete(t);
          else this.pending.set(t, n);
        }
        const tables = [...written];
        this.bump(tables);
        this.notifyCommitted(tables);
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

  /** Calls `fn` with the tables of each committed write (for telling other processes). */
  onCommitted(fn: (tables: string[]) => void): void {
    this.committedListeners.push(fn);
  }

  /** Tables whose changes matter to someone (only these are announced to other processes). */
  private readonly watched = new Set<string>();

  watch(tables: readonly string[]): void {
    for (const t of tables) this.watched.add(t);
  }

  private notifyCommitted(tables: string[]): void {
    const relevant = tables.filter((t) => this.watched.has(t));
    if (relevant.length === 0) return;
    for (const fn of this.committedListeners) fn(relevant);
  }
}
