/**
 * Adapts Node's built-in SQLite (`node:sqlite`) to the interface Kysely's
 * SqliteDialect expects, so the embedded backend needs no native addon.
 * Prepared statements are cached by SQL text.
 *
 * The write-ahead log is checkpointed by a worker thread with its own
 * connection (checkpoint-worker.js) instead of by whichever commit crosses
 * SQLite's threshold: a checkpoint writes pages and waits for fsync, which
 * would otherwise stall every request queued behind that commit. Should the
 * worker stop, SQLite's own automatic checkpoints take over again.
 *
 * The checkpointer also keeps the log from growing without end under steady
 * writes: see checkpoint-worker.js and `beforeTransaction`.
 *
 * A worker thread is a whole JavaScript engine (about 15 MiB), so it starts
 * only once the server has run CHECKPOINTER_AFTER_WRITES write statements
 * that changed rows (the background jobs' statements that find nothing to
 * change, one a second, once started it again and again in a quiet server):
 * the few writes of a start or of a quiet server never fill SQLite's
 * threshold (1000 pages), and as soon as writes are steady the worker takes
 * over well before it. For the same reason it ends once it has had nothing
 * to copy for CHECKPOINTER_IDLE_MS, and starts again after as many writes
 * (on the development machine a server's resident memory fell by 4.5 MiB
 * when it ended, 10 seconds after 400 sends).
 */

const CHECKPOINT_INTERVAL_MS = 250;
const CHECKPOINTER_AFTER_WRITES = 100;
const CHECKPOINTER_IDLE_MS = 10_000;
/** The log's size at which the next transaction waits for a checkpoint that lets it start the log over. */
const WAL_RESTART_BYTES = 32 * 1024 * 1024;
/** The longest that transaction waits for it. */
const WAL_RESTART_WAIT_MS = 500;
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { writtenTableOf } from './changes.ts';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * Replaces SQLite's lower(), which folds ASCII letters only, with Unicode
 * lower-casing (JavaScript's toLowerCase, as PostgreSQL's lower() folds
 * under a UTF-8 locale): channel names, topics and e-mail addresses compare
 * without regard to case in every script, as in Zulip ("État" is "état",
 * and so are Cyrillic or Greek capitals and their small letters). The expression indexes on lower() (migration 0960
 * rebuilt them) depend on it, so every connection that writes to those
 * tables or checks their indexes must call this first.
 */
export function useUnicodeLower(db: DatabaseSync): void {
  db.function('lower', { deterministic: true }, (value) => {
    if (typeof value === 'string') return value.toLowerCase();
    return typeof value === 'number' || typeof value === 'bigint' ? String(value) : value;
  });
}

type Bindable = null | number | bigint | string | Uint8Array;

function bindable(v: unknown): Bindable {
  if (v === undefined || v === null) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'string') return v;
  if (v instanceof Uint8Array) return v;
  if (v instanceof Date) return v.toISOString();
  return JSON.stringify(v);
}

/**
 * A prepared statement. Rows come from node:sqlite as arrays and become
 * objects here: node:sqlite builds each row object property by property
 * through V8's API, which made `SELECT *` of 100 messages take about 200 µs
 * against about 130 µs for arrays turned into objects by the loop below
 * (measured on the benchmark machine). As with node:sqlite's own objects, a
 * name that occurs twice among the columns keeps its last value.
 */
class Statement implements SqliteStatement {
  readonly reader: boolean;
  /** INSERT, UPDATE, DELETE or REPLACE. */
  readonly writes: boolean;
  readonly #stmt: StatementSync;
  readonly #columns: string[];
  /** Called after a write that changed rows. */
  readonly #changed: () => void;
  constructor(stmt: StatementSync, writes: boolean, changed: () => void) {
    this.#stmt = stmt;
    this.#columns = stmt.columns().map((c) => c.name);
    this.reader = this.#columns.length > 0;
    this.writes = writes;
    this.#changed = changed;
    if (this.reader) stmt.setReturnArrays(true);
  }
  all(parameters: ReadonlyArray<unknown>): unknown[] {
    const rows = this.#stmt.all(...parameters.map(bindable)) as unknown as unknown[][];
    // A write that returns rows (RETURNING) returns those it changed.
    if (this.writes && rows.length > 0) this.#changed();
    const out = new Array<Record<string, unknown>>(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = this.#object(rows[i]!);
    return out;
  }
  run(parameters: ReadonlyArray<unknown>): { changes: number | bigint; lastInsertRowid: number | bigint } {
    const result = this.#stmt.run(...parameters.map(bindable));
    if (this.writes && Number(result.changes) > 0) this.#changed();
    return result;
  }
  *iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    for (const row of this.#stmt.iterate(...parameters.map(bindable))) yield this.#object(row as unknown as unknown[]);
  }
  #object(row: unknown[]): Record<string, unknown> {
    const names = this.#columns;
    const o: Record<string, unknown> = {};
    for (let j = 0; j < names.length; j++) o[names[j]!] = row[j];
    return o;
  }
}

export class NodeSqliteDatabase implements SqliteDatabase {
  readonly #db: DatabaseSync;
  readonly #path: string;
  readonly #cache = new Map<string, Statement>();
  #dataVersion: StatementSync | undefined;
  #checkpointer: Worker | null = null;
  /** Write statements that changed rows since the checkpointer last stopped (or since the start). */
  #writes = 0;
  #closed = false;
  readonly #walRestartBytes: number;
  readonly #checkpointerIdleMs: number;
  /** The checkpointer said the log is long: the next transaction waits for a checkpoint. */
  #logFull = false;
  /** Settles the wait for the checkpoint asked for, given the number of the checkpoint done. */
  #checkpointed: ((n: number) => void) | null = null;
  /** Numbers the checkpoints asked for (an answer after its wait timed out settles nothing). */
  #checkpointsAsked = 0;

  constructor(path: string, opts: { walRestartBytes?: number; checkpointerIdleMs?: number } = {}) {
    this.#path = path;
    this.#walRestartBytes = opts.walRestartBytes ?? WAL_RESTART_BYTES;
    this.#checkpointerIdleMs = opts.checkpointerIdleMs ?? CHECKPOINTER_IDLE_MS;
    this.#db = new DatabaseSync(path);
    useUnicodeLower(this.#db);
    this.#db.exec('PRAGMA journal_mode = WAL');
    this.#db.exec('PRAGMA synchronous = NORMAL');
    this.#db.exec('PRAGMA foreign_keys = ON');
    this.#db.exec('PRAGMA busy_timeout = 5000');
    // SQLite keeps the original of every page a statement or savepoint changes
    // (to undo it on an error) in a "statement journal", which goes to a
    // temporary file once it passes 64 KiB. A message to a 100-member channel
    // changes about 100 pages of user_messages' index, inside the savepoint
    // of a group commit (db.ts), so each send wrote about 100 pages to that
    // file: a multi-row INSERT of 100 user_messages rows took about 800 µs,
    // against about 200 µs with the journal in memory (the benchmark's
    // send-100 on the development machine). With temp_store = MEMORY the
    // statement journal, like temporary tables and large sorts, stays in
    // memory; it lives only as long as its statement or transaction.
    this.#db.exec('PRAGMA temp_store = MEMORY');
    // The log is reused from its start after each complete checkpoint; this caps what it keeps on disk.
    this.#db.exec('PRAGMA journal_size_limit = 67108864');
  }

  prepare(sql: string): SqliteStatement {
    if (sql === 'rollback') return this.#rollback;
    let stmt = this.#cache.get(sql);
    if (!stmt) {
      stmt = new Statement(this.#db.prepare(sql), writtenTableOf(sql) !== null, this.#wrote);
      if (this.#cache.size >= 1000) this.#cache.delete(this.#cache.keys().next().value as string);
      this.#cache.set(sql, stmt);
    }
    return stmt;
  }

  /**
   * Kysely's ROLLBACK after a failed transaction. SQLite rolls a transaction
   * back by itself on some errors (a full disk, SQLITE_FULL, among them): a
   * ROLLBACK then fails with "no transaction is active", and that error
   * would replace the one that says what went wrong. So it rolls back only
   * a transaction still open.
   */
  readonly #rollback: SqliteStatement = {
    reader: false,
    all: () => [],
    run: () => {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      return { changes: 0, lastInsertRowid: 0 };
    },
    iterate: function* () {},
  };

  /** A write statement changed rows: the checkpointer starts at the CHECKPOINTER_AFTER_WRITES-th. */
  readonly #wrote = (): void => {
    if (!this.#checkpointer && ++this.#writes >= CHECKPOINTER_AFTER_WRITES) this.#startCheckpointer();
  };

  /** SQLite's data_version: changes when another connection (process) commits to the file. */
  dataVersion(): number {
    this.#dataVersion ??= this.#db.prepare('PRAGMA data_version');
    return Number((this.#dataVersion.get() as { data_version: number }).data_version);
  }

  /**
   * To be called with no transaction open, before beginning one. Usually
   * returns nothing. Once the checkpointer has said that the log is long,
   * returns a promise that settles when it has copied the rest of the log (or
   * after WAL_RESTART_WAIT_MS): the transaction begun then finds every frame
   * copied, and SQLite writes it at the start of the log again.
   */
  beforeTransaction(): Promise<void> | undefined {
    const worker = this.#checkpointer;
    if (!this.#logFull || !worker) return undefined;
    this.#logFull = false;
    const asked = ++this.#checkpointsAsked;
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.#checkpointed === settle) this.#checkpointed = null;
        resolve();
      };
      const settle = (n: number) => {
        if (n === asked) done();
      };
      const timer = setTimeout(done, WAL_RESTART_WAIT_MS);
      this.#checkpointed = settle;
      worker.postMessage({ checkpoint: asked });
    });
  }

  #startCheckpointer(): void {
    const worker = new Worker(new URL('./checkpoint-worker.js', import.meta.url), {
      workerData: { path: this.#path, intervalMs: CHECKPOINT_INTERVAL_MS, restartBytes: this.#walRestartBytes, idleMs: this.#checkpointerIdleMs },
    });
    worker.unref();
    this.#checkpointer = worker;
    this.#db.exec('PRAGMA wal_autocheckpoint = 0');
    worker.on('message', (msg: unknown) => {
      if (msg === 'full') this.#logFull = true;
      else if (typeof msg === 'object' && msg !== null && 'checkpointed' in msg) this.#checkpointed?.(Number(msg.checkpointed));
    });
    worker.on('error', () => {});
    worker.on('exit', () => {
      this.#checkpointer = null;
      this.#writes = 0; // it starts again after as many writes as the first time
      this.#logFull = false;
      this.#checkpointed?.(this.#checkpointsAsked);
      if (!this.#closed) this.#db.exec('PRAGMA wal_autocheckpoint = 1000');
    });
  }

  /** Whether the checkpoint thread runs (for tests). */
  get checkpointerRunning(): boolean {
    return this.#checkpointer !== null;
  }

  /** Stops the checkpointer (before close): the last checkpoint is the closing connection's. */
  async stopBackground(): Promise<void> {
    const worker = this.#checkpointer;
    if (!worker) return;
    this.#closed = true;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref(); // keeps this process alive until the worker has gone
    worker.postMessage('stop');
    await exited;
  }

  close(): void {
    this.#closed = true;
    void this.#checkpointer?.terminate();
    this.#cache.clear();
    this.#db.close();
  }
}
