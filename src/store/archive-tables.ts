/**
 * The database side of organization archives (export and import): every
 * table of the schema, found in the database's own catalog so a table added
 * by a later migration is carried without a list to keep up to date; rows
 * read in primary-key order, one bounded batch at a time (keyset pagination,
 * never the whole table in memory); rows written back with their IDs, and
 * PostgreSQL's sequences moved past them.
 *
 * What a scoped export (Zulip's public and consent exports) leaves out is
 * described here too, as SQL conditions on each table.
 */
import { sql, type RawBuilder } from 'kysely';
import type { AnyDb } from './migrations.ts';
import type { DialectName, Tx } from './db.ts';

export type Row = Record<string, unknown>;

export interface TableInfo {
  name: string;
  columns: string[];
  /** Primary-key columns, in key order (empty: the table has none; all columns order it). */
  primaryKey: string[];
  /** Tables this one references (foreign keys), itself excluded. */
  parents: string[];
  /** A PostgreSQL serial column (its sequence is set after an import). */
  serial: string | null;
}

/** Never archived: migration bookkeeping, the live processes, and the exports themselves (their files stay on the server). */
const NOT_ARCHIVED = new Set(['kysely_migration', 'kysely_migration_lock', 'cluster_nodes', 'realm_exports']);

function any(db: Tx): AnyDb {
  return db as unknown as AnyDb;
}

async function rows<T>(db: Tx, query: RawBuilder<T>): Promise<T[]> {
  return (await query.execute(any(db))).rows;
}

/** Every archived table with its columns, key and references, parents before children. */
export async function archivedTables(db: Tx, dialect: DialectName): Promise<TableInfo[]> {
  const names =
    dialect === 'sqlite'
      ? // Ordinary tables only: the full-text index (a virtual table and its shadow tables) is rebuilt by the triggers on messages.
        (await rows(db, sql<{ name: string }>`SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)).map(
          (r) => r.name,
        )
      : (
          await rows(
            db,
            sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
          )
        ).map((r) => r.name);
  const infos: TableInfo[] = [];
  for (const name of names) {
    if (NOT_ARCHIVED.has(name)) continue;
    infos.push(dialect === 'sqlite' ? await sqliteTable(db, name) : await postgresTable(db, name));
  }
  return topologicalOrder(infos);
}

async function sqliteTable(db: Tx, name: string): Promise<TableInfo> {
  const cols = await rows(db, sql<{ name: string; pk: number }>`SELECT name, pk FROM pragma_table_info(${name})`);
  const fks = await rows(db, sql<{ parent: string }>`SELECT DISTINCT "table" AS parent FROM pragma_foreign_key_list(${name})`);
  return {
    name,
    columns: cols.map((c) => c.name),
    primaryKey: cols.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name),
    parents: fks.map((f) => f.parent).filter((p) => p !== name),
    serial: null,
  };
}

async function postgresTable(db: Tx, name: string): Promise<TableInfo> {
  const cols = await rows(
    db,
    sql<{ name: string; dflt: string | null }>`SELECT column_name AS name, column_default AS dflt FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = ${name} ORDER BY ordinal_position`,
  );
  const pk = await rows(
    db,
    sql<{ name: string }>`SELECT kcu.column_name AS name FROM information_schema.table_constraints tc
      JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema
      WHERE tc.table_schema = current_schema() AND tc.table_name = ${name} AND tc.constraint_type = 'PRIMARY KEY'
      ORDER BY kcu.ordinal_position`,
  );
  const fks = await rows(
    db,
    sql<{ parent: string }>`SELECT DISTINCT ccu.table_name AS parent FROM information_schema.table_constraints tc
      JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = tc.constraint_name AND ccu.table_schema = tc.table_schema
      WHERE tc.table_schema = current_schema() AND tc.table_name = ${name} AND tc.constraint_type = 'FOREIGN KEY'`,
  );
  return {
    name,
    columns: cols.map((c) => c.name),
    primaryKey: pk.map((c) => c.name),
    parents: fks.map((f) => f.parent).filter((p) => p !== name),
    serial: cols.find((c) => c.dflt?.startsWith('nextval('))?.name ?? null,
  };
}

/** Parents first (Kahn's algorithm; names break ties, so the order is stable). */
function topologicalOrder(tables: TableInfo[]): TableInfo[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const done = new Set<string>();
  const out: TableInfo[] = [];
  while (out.length < tables.length) {
    const ready = tables.filter((t) => !done.has(t.name) && t.parents.every((p) => done.has(p) || !byName.has(p)));
    // A reference cycle (none in the schema today): take the rest by name; SQLite defers the checks, PostgreSQL would report it.
    const next = ready.length ? ready : tables.filter((t) => !done.has(t.name));
    for (const t of next) {
      done.add(t.name);
      out.push(t);
    }
  }
  return out;
}

/** The migrations applied to this database, in order (an archive records them; an import needs the same). */
export async function appliedMigrations(db: Tx): Promise<string[]> {
  return (await rows(db, sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`)).map((r) => r.name);
}

/** Whether the database holds no organization and no account (a fresh Parley an archive may be imported into). */
export async function databaseIsEmpty(db: Tx): Promise<boolean> {
  const realms = await rows(db, sql<{ n: number }>`SELECT COUNT(*) AS n FROM realm`);
  const users = await rows(db, sql<{ n: number }>`SELECT COUNT(*) AS n FROM users`);
  return Number(realms[0]!.n) === 0 && Number(users[0]!.n) === 0;
}

// ---------------------------------------------------------------------------
// Scopes

/**
 * What an export holds. `full`: everything (the command line's export).
 * `public`: Zulip's public export -- public channels and their messages,
 * the organization's users, groups and settings, no direct messages, no
 * private channels and nobody's private data (drafts, alert words, muted
 * users, sessions, devices, ...). `consent`: the public part plus the private
 * data of the users who allow it (their direct messages and private
 * channels included).
 */
export type ArchiveScope = { kind: 'full' } | { kind: 'public' } | { kind: 'consent'; userIds: number[] };

/** Per-user private data: left out of a public export, kept for the consenting users of a consent export. */
const PRIVATE_BY_USER: Record<string, string> = {
  drafts: 'user_id',
  saved_snippets: 'user_id',
  alert_words: 'user_id',
  muted_users: 'user_id',
  navigation_views: 'user_id',
  scheduled_messages: 'sender_id',
  push_device_tokens: 'user_id',
  client_devices: 'user_id',
};

/**
 * Carried whole by a scoped export: the organization, its users (their API
 * keys are replaced by the writer), groups, profile fields, custom emoji
 * and settings. A table in none of these lists is left out of scoped
 * exports (credentials such as sessions, channel email tokens and bot
 * service tokens; invitations; work queues), so a new table holding private
 * data cannot leak into them by default.
 */
const WHOLE = new Set([
  'realm',
  'users',
  'custom_profile_fields',
  'custom_profile_field_values',
  'user_status',
  'user_presence',
  'realm_emoji',
  'user_groups',
  'user_group_members',
  'user_group_subgroups',
  'realm_linkifiers',
  'realm_domains',
  'realm_playgrounds',
  'channel_folders',
]);

function idList(ids: number[]): RawBuilder<unknown> {
  // An empty IN () is not valid SQL; -1 is no one's ID.
  return sql.join((ids.length ? ids : [-1]).map((id) => sql.lit(Math.trunc(id))));
}

/**
 * The condition a table's rows must meet to be in an export of this scope:
 * null for every row, false to leave the table out.
 */
export function scopeCondition(scope: ArchiveScope, table: string): RawBuilder<unknown> | null | false {
  if (scope.kind === 'full' || WHOLE.has(table)) return null;
  const consent = scope.kind === 'consent' ? idList(scope.userIds) : null;
  const publicStreams = sql`SELECT id FROM streams WHERE invite_only = 0`;
  const streams = consent
    ? sql`SELECT id FROM streams WHERE invite_only = 0 OR id IN (SELECT stream_id FROM subscriptions WHERE user_id IN (${consent}))`
    : publicStreams;
  const messageCond = consent
    ? sql`(recipient_type = 2 AND recipient_id IN (${publicStreams})) OR id IN (SELECT message_id FROM user_messages WHERE user_id IN (${consent}))`
    : sql`recipient_type = 2 AND recipient_id IN (${publicStreams})`;
  const messages = sql`SELECT id FROM messages WHERE ${messageCond}`;
  const directGroups = consent ? sql`SELECT group_id FROM direct_group_members WHERE user_id IN (${consent})` : null;
  if (table in PRIVATE_BY_USER) return consent ? sql`${sql.ref(PRIVATE_BY_USER[table]!)} IN (${consent})` : false;
  switch (table) {
    case 'streams':
      return sql`id IN (${streams})`;
    case 'subscriptions':
      return sql`stream_id IN (${streams})`;
    case 'user_topics':
      return consent ? sql`user_id IN (${consent}) AND stream_id IN (${streams})` : false;
    case 'messages':
      return messageCond;
    case 'user_messages':
    case 'reactions':
    case 'submessages':
    case 'attachment_messages':
      return sql`message_id IN (${messages})`;
    case 'attachments':
      return sql`id IN (SELECT attachment_id FROM attachment_messages WHERE message_id IN (${messages}))`;
    case 'direct_groups':
      return directGroups ? sql`id IN (${directGroups})` : false;
    case 'direct_group_members':
      return directGroups ? sql`group_id IN (${directGroups})` : false;
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------
// Reading and writing rows

function where(cond: RawBuilder<unknown> | null, after: RawBuilder<unknown> | null): RawBuilder<unknown> {
  const parts = [cond ? sql`(${cond})` : null, after].filter((p): p is RawBuilder<unknown> => p !== null);
  return parts.length ? sql`WHERE ${sql.join(parts, sql` AND `)}` : sql``;
}

/** How many rows of the table an export takes. */
export async function countRows(db: Tx, table: TableInfo, cond: RawBuilder<unknown> | null): Promise<number> {
  const r = await rows(db, sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${sql.table(table.name)} ${where(cond, null)}`);
  return Number(r[0]!.n);
}

/** The table's rows in key order, `batch` at a time. */
export async function* readRows(db: Tx, table: TableInfo, cond: RawBuilder<unknown> | null, batch: number): AsyncGenerator<Row[]> {
  const key = table.primaryKey.length ? table.primaryKey : table.columns;
  const order = sql.join(key.map((c) => sql.ref(c)));
  if (!table.primaryKey.length) {
    // No key to continue from: pages by offset (only small tables lack a key).
    for (let offset = 0; ; offset += batch) {
      const page = await rows(db, sql<Row>`SELECT * FROM ${sql.table(table.name)} ${where(cond, null)} ORDER BY ${order} LIMIT ${sql.lit(batch)} OFFSET ${sql.lit(offset)}`);
      if (page.length) yield page;
      if (page.length < batch) return;
    }
  }
  let last: Row | null = null;
  for (;;) {
    const after: RawBuilder<unknown> | null = last ? sql`(${order}) > (${sql.join(key.map((c) => sql`${last![c]}`))})` : null;
    const page: Row[] = await rows(db, sql<Row>`SELECT * FROM ${sql.table(table.name)} ${where(cond, after)} ORDER BY ${order} LIMIT ${sql.lit(batch)}`);
    if (page.length) yield page;
    if (page.length < batch) return;
    last = page[page.length - 1]!;
  }
}

/** One column of a table's rows under a condition, in batches (the files of a scoped export). */
export async function* readColumn(db: Tx, table: TableInfo, column: string, cond: RawBuilder<unknown> | null, batch: number): AsyncGenerator<string[]> {
  for await (const page of readRows(db, table, cond, batch)) yield page.map((r) => String(r[column]));
}

/** Inserts rows as they are (IDs included), in statements small enough for either backend's parameter limit. */
export async function insertRows(db: Tx, table: TableInfo, list: Row[]): Promise<void> {
  if (!list.length) return;
  const known = new Set(table.columns);
  for (const r of list) {
    for (const c of Object.keys(r)) if (!known.has(c)) throw new Error(`table ${table.name} has no column ${c}`);
  }
  const perStatement = Math.max(1, Math.floor(30000 / Math.max(1, table.columns.length)));
  for (let i = 0; i < list.length; i += perStatement) {
    await any(db).insertInto(table.name).values(list.slice(i, i + perStatement)).execute();
  }
}

/** PostgreSQL: moves each serial column's sequence past the largest imported ID (explicit IDs do not advance it). */
export async function resetSequences(db: Tx, dialect: DialectName, tables: TableInfo[]): Promise<void> {
  if (dialect !== 'postgres') return;
  for (const t of tables) {
    if (!t.serial) continue;
    await sql`SELECT setval(pg_get_serial_sequence(${t.name}, ${t.serial}), COALESCE((SELECT MAX(${sql.ref(t.serial)}) FROM ${sql.table(t.name)}), 0) + 1, false)`.execute(any(db));
  }
}

/** SQLite: foreign keys checked at commit rather than per row, so a reference cycle cannot stop an import. */
export async function deferForeignKeys(db: Tx, dialect: DialectName): Promise<void> {
  if (dialect === 'sqlite') await sql`PRAGMA defer_foreign_keys = ON`.execute(any(db));
}
