/**
 * Opens the database: embedded SQLite (a file under DATA_DIR) by default, or
 * PostgreSQL when DATABASE_URL is a postgres:// URL. Every dialect difference
 * of the store lives here and in migrations.ts (`Dialect` helpers).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { Kysely, sql, PostgresDialect, type PostgresPool, type PostgresPoolClient, SqliteDialect, SqliteQueryCompiler, ValueNode, type DatabaseIntrospector, type LimitNode, type LogEvent, type OffsetNode, type QueryCompiler, type SchemaMetadata, type TableMetadata, type Transaction } from 'kysely';
import type pgTypes from 'pg';
import { lazyModule } from '../lib/lazy.ts';

const pgModule = lazyModule<typeof pgTypes>('pg');
import type { Database } from './schema.ts';
import { NodeSqliteDatabase } from './sqlite-driver.ts';
import { TableChanges } from './changes.ts';
import { chmodPrivate, ensurePrivateDir } from '../lib/private-files.ts';

export type DialectName = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;
export type Tx = Transaction<Database> | Kysely<Database>;

export interface Store {
  db: Db;
  dialect: DialectName;
  /** PostgreSQL schema in use, when not the default. */
  schema?: string;
  /** PostgreSQL: most connections in the pool (locks.ts keeps one free of cluster locks). */
  poolMax?: number;
  /** Which tables changed, for data kept in memory (see changes.ts). */
  changes: TableChanges;
  /** Runs inside every transaction of `transaction()` just before it commits. */
  beforeCommit?: (tx: Transaction<Database>) => Promise<void>;
  /** SQLite: the group commit that `transaction()` goes through. */
  group?: GroupCommit;
  close(): Promise<void>;
}


/** The application_name of this process's PostgreSQL connections: `parley <pid>`. */
export const applicationName = (): string => `parley ${process.pid}`;

export function openStore(opts: {
  dataDir: string;
  databaseUrl?: string;
  pgSchema?: string;
  /** Most connections in the PostgreSQL pool (default 10). */
  pgPoolMax?: number;
  onQuery?: (durationMs: number) => void;
  /**
   * PostgreSQL: an idle pooled connection was lost (the server restarted or
   * ended it). The pool drops it and opens a new one when next needed.
   */
  onConnectionLost?: (err: Error) => void;
  /** SQLite: the log's size at which it is started over (see sqlite-driver.ts); tests set it low. */
  walRestartBytes?: number;
}): Store {
  const onQuery = opts.onQuery;
  const changes = new TableChanges();
  const log = (event: LogEvent) => {
    changes.executed(event.query.sql);
    onQuery?.(event.queryDurationMillis);
  };
  if (opts.databaseUrl && /^postgres(ql)?:\/\//.test(opts.databaseUrl)) {
    const pg = pgModule();
    // int8 (COUNT(*), bigint columns) as JavaScript numbers; our values fit.
    pg.types.setTypeParser(20, (v: string) => Number.parseInt(v, 10));
    // Two at least: a job holding a cluster lock on one connection queries on another (locks.ts).
    const poolMax = Math.max(2, opts.pgPoolMax ?? 10);
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      // Which process a connection is, in pg_stat_activity.
      application_name: applicationName(),
      max: poolMax,
      ...(opts.pgSchema ? { options: `-c search_path=${opts.pgSchema}` } : {}),
    });
    // Without a listener, a connection's error (PostgreSQL restarted, or the
    // connection ended by an administrator or a proxy) would end the process.
    // The pool listens on its idle connections only, and passes their errors
    // on as its own; a connection checked out and idle between queries (a
    // cluster lock's, held for a whole job; a transaction's, between its
    // statements) emits them itself. So each connection gets a listener of
    // its own when made, and the pool's are only absorbed (each error is
    // reported once, by the connection's).
    const lost = opts.onConnectionLost;
    pool.on('connect', (client) => client.on('error', (err) => lost?.(err)));
    pool.on('error', () => {});
    const db = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool: retryingEndedConnections(pool, lost) }), log });
    const listener = listenForChanges(pg, opts.databaseUrl, opts.pgSchema, changes);
    return {
      db,
      dialect: 'postgres',
      schema: opts.pgSchema,
      poolMax,
      changes,
      beforeCommit: listener.beforeCommit,
      close: async () => {
        await listener.close();
        await db.destroy();
      },
    };
  }
  ensurePrivateDir(opts.dataDir);
  const file = join(opts.dataDir, 'parley.sqlite3');
  const sqlite = new NodeSqliteDatabase(file, { walRestartBytes: opts.walRestartBytes });
  chmodPrivate(file); // it holds every API key
  const db = new Kysely<Database>({
    dialect: new LiteralLimitSqliteDialect({ database: sqlite }),
    log,
  });
  // Another process (the admin CLI) committing to the file: everything may have changed.
  // Checked at most every 2 ms: a request asks many times, another process's commit is rare.
  let dataVersion = sqlite.dataVersion();
  let checkedAt = performance.now();
  changes.external = () => {
    const t = performance.now();
    if (t - checkedAt < 2) return false;
    checkedAt = t;
    const now = sqlite.dataVersion();
    if (now === dataVersion) return false;
    dataVersion = now;
    return true;
  };
  return {
    db,
    dialect: 'sqlite',
    changes,
    group: new GroupCommit(db, () => sqlite.beforeTransaction()),
    close: async () => {
      await sqlite.stopBackground();
      await db.destroy();
    },
  };
}

/**
 * A pooled connection that PostgreSQL has ended (a restart, an administrator)
 * stays in the pool until its socket's goodbye has been read; a request that
 * takes it first would fail. Each checkout's first statement therefore runs
 * again on another connection when it failed because its connection had
 * ended before running it: a statement never sent (the connection was known
 * to be broken), or a `BEGIN` or `SELECT` whose connection ended (PostgreSQL's
 * shutdown errors, or the socket closed) before answering. Ending a session
 * rolls back what it had not committed, so such a statement left nothing
 * behind; a write outside a transaction is never sent twice.
 *
 * The same holds for the statement right after a transaction's `BEGIN`: a
 * connection ended between the two took nothing with it but the empty
 * transaction, so a new connection begins again and runs the statement (the
 * transaction's code sees one answer, as if nothing had happened). Once a
 * transaction has run a statement, its loss still fails it.
 */
function retryingEndedConnections(pool: pgTypes.Pool, lost?: (err: Error) => void): PostgresPool {
  return {
    connect: async () => new CheckoutClient(pool, await pool.connect(), lost),
    end: () => pool.end(),
    options: pool.options,
  };
}

const NEVER_SENT = /not queryable/;
/** admin_shutdown, crash_shutdown, cannot_connect_now; or the socket closed. */
const ENDED = (err: { code?: unknown; message?: unknown }) =>
  ['57P01', '57P02', '57P03'].includes(String(err.code)) || /Connection terminated unexpectedly/.test(String(err.message));
const HARMLESS_TWICE = /^\s*(select|begin|start transaction)\b/i;
const BEGINS = /^\s*(begin|start transaction)\b/i;

class CheckoutClient implements PostgresPoolClient {
  private used = false;
  private dropped = false;
  /** The arguments of the transaction's BEGIN, while it is the only statement this checkout has run. */
  private begun: unknown[] | null = null;
  private readonly pool: pgTypes.Pool;
  private client: pgTypes.PoolClient;
  private readonly lost?: (err: Error) => void;
  constructor(pool: pgTypes.Pool, client: pgTypes.PoolClient, lost?: (err: Error) => void) {
    this.pool = pool;
    this.client = client;
    this.lost = lost;
  }
  get processID(): number | undefined {
    return (this.client as unknown as { processID?: number }).processID;
  }
  query(...args: unknown[]): any {
    const text = typeof args[0] === 'string' ? args[0] : null;
    const first = !this.used && text !== null;
    this.used = true;
    const begun = this.begun;
    this.begun = null;
    if (first) return this.firstQuery(text, args);
    if (begun && text !== null) return this.afterBegin(begun, args);
    return (this.client.query as (...a: unknown[]) => any)(...args);
  }
  private async firstQuery(text: string, args: unknown[]): Promise<unknown> {
    // Several idle connections may have ended together: each one found is dropped, then a new one is made.
    for (let tries = (this.pool.options.max ?? 10) + 1; ; tries--) {
      try {
        const result = await (this.client.query as (...a: unknown[]) => Promise<unknown>)(...args);
        if (BEGINS.test(text)) this.begun = args;
        return result;
      } catch (err) {
        if (tries <= 1 || !this.endedBefore(err, HARMLESS_TWICE.test(text))) throw err;
        await this.replace(err);
      }
    }
  }
  private async afterBegin(begin: unknown[], args: unknown[]): Promise<unknown> {
    try {
      return await (this.client.query as (...a: unknown[]) => Promise<unknown>)(...args);
    } catch (err) {
      if (!this.endedBefore(err, true)) throw err;
      await this.replace(err);
      await this.firstQuery(begin[0] as string, begin);
      this.begun = null;
      return await (this.client.query as (...a: unknown[]) => Promise<unknown>)(...args);
    }
  }
  /** Whether err says the connection was gone before the statement could leave anything behind. */
  private endedBefore(err: unknown, harmlessTwice: boolean): boolean {
    const e = (err ?? {}) as { code?: unknown; message?: unknown };
    return NEVER_SENT.test(String(e.message)) || (harmlessTwice && ENDED(e));
  }
  /** Drops the checked-out connection after err and checks out another. */
  private async replace(err: unknown): Promise<void> {
    // (A connection's error during a query goes to that query, not to its listener.)
    if (!NEVER_SENT.test(String((err as { message?: unknown } | null)?.message))) this.lost?.(err as Error);
    this.client.release(err as Error);
    this.dropped = true;
    this.client = await this.pool.connect();
    this.dropped = false;
  }
  release(destroy?: boolean): void {
    // (Not again when no other connection could be had after dropping one.)
    if (!this.dropped) this.client.release(destroy);
  }
}

/**
 * Kysely's PostgreSQL introspector (which its migrator asks whether its own
 * tables exist) reads every column of every schema of the database, calling
 * functions that fail when another schema's tables change meanwhile: another
 * deployment's or test process's DDL then failed this one's migrations
 * ("relation ... does not exist", "column ... of relation ... does not exist").
 * It also matched the migrator's tables in any schema when none was named.
 * This one lists only the tables of the schema in use, by name.
 */
class OwnSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new OwnSchemaIntrospector(db);
  }
}

class OwnSchemaIntrospector implements DatabaseIntrospector {
  private readonly db: Kysely<any>;
  constructor(db: Kysely<any>) {
    this.db = db;
  }
  async getSchemas(): Promise<SchemaMetadata[]> {
    const r = await sql<{ name: string }>`SELECT nspname AS name FROM pg_catalog.pg_namespace`.execute(this.db);
    return r.rows;
  }
  async getTables(): Promise<TableMetadata[]> {
    const r = await sql<{ name: string; schema: string; kind: string }>`
      SELECT c.relname AS name, ns.nspname AS schema, c.relkind AS kind
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace ns ON ns.oid = c.relnamespace
      WHERE ns.nspname = current_schema() AND c.relkind IN ('r', 'v', 'p', 'f')`.execute(this.db);
    return r.rows.map((t) => ({ name: t.name, schema: t.schema, isView: t.kind === 'v', isForeign: t.kind === 'f', columns: [] }));
  }
}

/**
 * SQLite with LIMIT and OFFSET written into the SQL as numbers. SQLite's
 * planner reads a bound LIMIT's value, so it prepares such a statement anew
 * each time the parameter is bound: about 40% of the cost of the 100-message
 * narrow query (measured on the benchmark machine). Only safe integers are
 * written out; anything else stays a parameter.
 */
class LiteralLimitSqliteDialect extends SqliteDialect {
  override createQueryCompiler(): QueryCompiler {
    return new LiteralLimitSqliteCompiler();
  }
}

class LiteralLimitSqliteCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    this.append('limit ');
    this.visitNode(literalInteger(node.limit));
  }
  protected override visitOffset(node: OffsetNode): void {
    this.append('offset ');
    this.visitNode(literalInteger(node.offset));
  }
}

const literalInteger = (node: LimitNode['limit']) =>
  ValueNode.is(node) && !node.immediate && Number.isSafeInteger(node.value) ? ValueNode.createImmediate(node.value) : node;

/** The longest a store's close waits for its change listener's last notices and goodbye. */
const LISTENER_CLOSE_MS = 3000;

/**
 * PostgreSQL: every process announces the tables its committed writes
 * touched with NOTIFY and listens for the others' (one connection each), so
 * data kept in memory never outlives a change made elsewhere (another server
 * process, the admin CLI). Until the listening connection is up, and after
 * it drops, everything counts as changed.
 */
function listenForChanges(
  pg: typeof pgTypes,
  url: string,
  schema: string | undefined,
  changes: TableChanges,
): { beforeCommit(tx: Transaction<Database>): Promise<void>; close(): Promise<void> } {
  const channel = `parley_changes_${(schema ?? 'public').replace(/[^a-z0-9_]/gi, '_')}`.slice(0, 63);
  const origin = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  let client: pgTypes.Client | null = null;
  /** The client's socket (given to it, so that close() can drop it). */
  let socket: Socket | null = null;
  let closed = false;
  let connected = false;
  /**
   * The listening connection's queries run one after another: pg queues a
   * query sent while another runs, but warns that pg 9 will refuse it (the
   * notices of writes that commit close together would overlap).
   */
  let tail: Promise<unknown> = Promise.resolve();
  const query = (c: pgTypes.Client, text: string, values?: unknown[]): Promise<unknown> => {
    const p = tail.then(() => c.query(text, values));
    tail = p.catch(() => {});
    return p;
  };
  changes.external = () => !connected;
  const connect = () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: url, application_name: applicationName(), stream: () => (socket = new Socket()) });
    client = c;
    // A new connection's queries do not wait for those left on the old one.
    tail = c.connect();
    c.on('notification', (n) => {
      const [from, tables] = (n.payload ?? '').split(' ');
      if (from !== origin) changes.bump((tables ?? '').split(','));
    });
    c.on('error', () => {
      connected = false;
      void c.end().catch(() => {});
      if (!closed) setTimeout(connect, 500).unref();
    });
    query(c, `LISTEN ${channel}`)
      .then(() => {
        connected = true;
        changes.bumpAll();
      })
      .catch(() => c.emit('error', new Error('listen failed')));
  };
  connect();
  const payload = (tables: string[]) => `${origin} ${tables.join(',')}`;
  // A write outside a transaction has committed: announce it at once (close() waits for these).
  const sending = new Set<Promise<unknown>>();
  changes.onAutocommitted((tables) => {
    if (closed || !client) return;
    const p: Promise<unknown> = query(client, 'SELECT pg_notify($1, $2)', [channel, payload(tables)]).catch(() => {});
    sending.add(p);
    void p.finally(() => sending.delete(p));
  });
  return {
    // A transaction announces its writes itself, so that the notice is delivered with its commit.
    async beforeCommit(tx: Transaction<Database>) {
      const tables = changes.writtenInTransaction();
      if (tables.length) await sql`SELECT pg_notify(${channel}, ${payload(tables)})`.execute(tx);
    },
    async close() {
      closed = true;
      connected = false;
      const c = client;
      // Neither the notices still being sent nor the goodbye may hold up a shutdown for long:
      // past LISTENER_CLOSE_MS the connection is dropped.
      let timer: NodeJS.Timeout | undefined;
      const ended = (async () => {
        await Promise.all(sending);
        await c?.end().catch(() => {});
        return true;
      })();
      const inTime = await Promise.race([ended, new Promise<boolean>((r) => (timer = setTimeout(() => r(false), LISTENER_CLOSE_MS)))]);
      clearTimeout(timer);
      if (!inTime) socket?.destroy();
    },
  };
}

/**
 * Runs fn in one transaction: all of its writes commit, or none do. On
 * SQLite, transactions that arrive while one runs share its commit (see
 * GroupCommit); the promise settles only after the commit.
 */
export function transaction<T>(store: Store, fn: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
  const before = store.beforeCommit;
  const run = before
    ? async (tx: Transaction<Database>) => {
        const result = await fn(tx);
        await before(tx);
        return result;
      }
    : fn;
  const group = store.group;
  if (group) return store.changes.inTransaction(() => group.run(run));
  return store.changes.inTransaction(() => store.db.transaction().execute(run));
}

interface GroupJob {
  fn: (tx: Transaction<Database>) => Promise<unknown>;
  /** Runs a function in the async context of whoever asked for the transaction. */
  inCallerContext: <R>(fn: () => R) => R;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

/**
 * Group commit for SQLite. Its one connection runs one transaction at a
 * time, and most of a small write transaction's cost is the commit: every
 * page it touched is written to the log (a message to a 100-member channel
 * touches a page of the per-user index for each member). So each transaction
 * runs inside a SAVEPOINT of a shared outer transaction; those that arrive
 * while it runs, or before the event loop's next turn, join it, and one
 * COMMIT ends the group. A transaction that fails is rolled back to its
 * savepoint alone. No caller hears of success before the commit; if the
 * commit fails, every transaction of the group fails with it.
 */
class GroupCommit {
  static readonly MAX_JOBS = 64;
  readonly #db: Db;
  /** Run before each outer transaction begins; a promise it returns is waited for (the log's restart). */
  readonly #beforeBegin: () => Promise<void> | undefined;
  #queue: GroupJob[] = [];
  #running = false;

  constructor(db: Db, beforeBegin: () => Promise<void> | undefined) {
    this.#db = db;
    this.#beforeBegin = beforeBegin;
  }

  run<T>(fn: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ fn, inCallerContext: AsyncLocalStorage.snapshot(), resolve: resolve as (v: unknown) => void, reject });
      if (!this.#running) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    try {
      while (this.#queue.length) {
        const done: Array<{ job: GroupJob; value: unknown }> = [];
        const wait = this.#beforeBegin();
        if (wait) await wait;
        try {
          await this.#db.transaction().execute(async (tx) => {
            for (;;) {
              let job = this.#queue.shift();
              if (!job && done.length < GroupCommit.MAX_JOBS) {
                // Let requests that are ready this turn of the event loop join the group.
                await new Promise((r) => setImmediate(r));
                job = this.#queue.shift();
              }
              if (!job) return;
              await sql`SAVEPOINT parley_group`.execute(tx);
              try {
                const value = await job.inCallerContext(() => job.fn(tx));
                await sql`RELEASE parley_group`.execute(tx);
                done.push({ job, value });
              } catch (e) {
                job.reject(e);
                try {
                  await sql`ROLLBACK TO parley_group`.execute(tx);
                  await sql`RELEASE parley_group`.execute(tx);
                } catch {
                  // The whole transaction is gone (SQLite rolls it all back on some
                  // errors, a full disk among them): the group fails with this job's error.
                  throw e;
                }
              }
              if (done.length >= GroupCommit.MAX_JOBS) return;
            }
          });
        } catch (e) {
          for (const d of done) d.job.reject(e);
          continue;
        }
        for (const d of done) d.job.resolve(d.value);
      }
    } finally {
      this.#running = false;
    }
  }
}

/** A trivial query: whether the database answers (health checks). */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`SELECT 1`.execute(db);
}
