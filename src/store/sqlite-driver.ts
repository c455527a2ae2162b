/**
 * Adapts Node's built-in SQLite (`node:sqlite`) to the interface Kysely's
 * SqliteDialect expects, so the embedded backend needs no native addon.
 * Prepared statements are cached by SQL text.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

type Bindable = null | number | bigint | string | Uint8Array;

function bindable(v: unknown): Bindable {
  if (v === undefined || v === null) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'string') return v;
  if (v instanceof Uint8Array) return v;
  if (v instanceof Date) return v.toISOString();
  return JSON.stringify(v);
}

class Statement implements SqliteStatement {
  readonly reader: boolean;
  readonly #stmt: StatementSync;
  constructor(stmt: StatementSync) {
    this.#stmt = stmt;
    this.reader = stmt.columns().length > 0;
  }
  all(parameters: ReadonlyArray<unknown>): unknown[] {
    return this.#stmt.all(...parameters.map(bindable));
  }
  run(parameters: ReadonlyArray<unknown>): { changes: number | bigint; lastInsertRowid: number | bigint } {
    return this.#stmt.run(...parameters.map(bindable));
  }
  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    return this.#stmt.iterate(...parameters.map(bindable)) as IterableIterator<unknown>;
  }
}

export class NodeSqliteDatabase implements SqliteDatabase {
  readonly #db: DatabaseSync;
  readonly #cache = new Map<string, Statement>();
  #dataVersion: StatementSync | undefined;

  constructor(path: string) {
    this.#db = new DatabaseSync(path);
    this.#db.exec('PRAGMA journal_mode = WAL');
    this.#db.exec('PRAGMA synchronous = NORMAL');
    this.#db.exec('PRAGMA foreign_keys = ON');
    this.#db.exec('PRAGMA busy_timeout = 5000');
  }

  prepare(sql: string): SqliteStatement {
    let stmt = this.#cache.get(sql);
    if (!stmt) {
      stmt = new Statement(this.#db.prepare(sql));
      if (this.#cache.size >= 1000) this.#cache.delete(this.#cache.keys().next().value as string);
      this.#cache.set(sql, stmt);
    }
    return stmt;
  }

  /** SQLite's data_version: changes when another connection (process) commits to the file. */
  dataVersion(): number {
    this.#dataVersion ??= this.#db.prepare('PRAGMA data_version');
    return Number((this.#dataVersion.get() as { data_version: number }).data_version);
  }

  close(): void {
    this.#cache.clear();
    this.#db.close();
  }
}
