/**
 * Opens the database: embedded SQLite (a file under DATA_DIR) by default, or
 * PostgreSQL when DATABASE_URL is a postgres:// URL. Every dialect difference
 * of the store lives here and in migrations.ts (`Dialect` helpers).
 */
import { join } from 'node:path';
import { Kysely, sql, PostgresDialect, SqliteDialect, type LogEvent, type Transaction } from 'kysely';
import type pgTypes from 'pg';
import { lazyModule } from '../lib/lazy.ts';

const pgModule = lazyModule<typeof pgTypes>('pg');
import type { Database } from './schema.ts';
import { NodeSqliteDatabase } from './sqlite-driver.ts';
import { chmodPrivate, ensurePrivateDir } from '../lib/private-files.ts';

export type DialectName = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;
export type Tx = Transaction<Database> | Kysely<Database>;

export interface Store {
  db: Db;
  dialect: DialectName;
  /** PostgreSQL schema in use, when not the default. */
  schema?: string;
  close(): Promise<void>;
}


export function openStore(opts: { dataDir: string; databaseUrl?: string; pgSchema?: string; onQuery?: (durationMs: number) => void }): Store {
  const onQuery = opts.onQuery;
  const log = onQuery ? (event: LogEvent) => onQuery(event.queryDurationMillis) : undefined;
  if (opts.databaseUrl && /^postgres(ql)?:\/\//.test(opts.databaseUrl)) {
    const pg = pgModule();
    // int8 (COUNT(*), bigint columns) as JavaScript numbers; our values fit.
    pg.types.setTypeParser(20, (v: string) => Number.parseInt(v, 10));
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: 10,
      ...(opts.pgSchema ? { options: `-c search_path=${opts.pgSchema}` } : {}),
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log });
    return { db, dialect: 'postgres', schema: opts.pgSchema, close: () => db.destroy() };
  }
  ensurePrivateDir(opts.dataDir);
  const file = join(opts.dataDir, 'parley.sqlite3');
  const sqlite = new NodeSqliteDatabase(file);
  chmodPrivate(file); // it holds every API key
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: sqlite }),
    log,
  });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

/** Runs fn in one transaction. */
export function transaction<T>(store: Store, fn: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
  return store.db.transaction().execute(fn);
}

/** A trivial query: whether the database answers (health checks). */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`SELECT 1`.execute(db);
}
