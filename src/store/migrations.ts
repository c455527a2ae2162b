/**
 * Schema migrations, run on start for both backends. Append new migrations
 * to the list; never edit one that has shipped. `col` hides the few column
 * type differences between SQLite and PostgreSQL.
 */
import { Kysely, sql } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import type { DialectName, Store } from './db.ts';

export interface Cols {
  /** Auto-increment integer primary key. */
  id: 'integer' | 'serial';
  /** 64-bit integer (timestamps in ms, counters). */
  big: 'integer' | 'bigint';
  /** Floating point. */
  real: 'real' | 'double precision';
}

export function cols(dialect: DialectName): Cols {
  return dialect === 'postgres'
    ? { id: 'serial', big: 'bigint', real: 'double precision' }
    : { id: 'integer', big: 'integer', real: 'real' };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDb = Kysely<any>;
export type Step = (db: AnyDb, c: Cols, dialect: DialectName) => Promise<void>;

/** Adds an auto-increment `id` primary key column the way each backend wants it. */
export function idColumn(dialect: DialectName) {
  return (col: import('kysely').ColumnDefinitionBuilder) =>
    dialect === 'postgres' ? col.primaryKey() : col.primaryKey().autoIncrement();
}

const steps: Array<[string, Step]> = [];

/** Registers a migration; names sort in order (use a numeric prefix). */
export function migration(name: string, up: Step): void {
  steps.push([name, up]);
}

migration('0001_foundation', async (db, c, d) => {
  const id = idColumn(d);
  await db.schema
    .createTable('realm')
    .addColumn('id', c.id, id)
    .addColumn('string_id', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('date_created', c.big, (col) => col.notNull())
    .addColumn('deactivated', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('settings_json', 'text', (col) => col.notNull().defaultTo('{}'))
    .addColumn('user_defaults_json', 'text', (col) => col.notNull().defaultTo('{}'))
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', c.id, id)
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('email', 'text', (col) => col.notNull())
    .addColumn('delivery_email', 'text', (col) => col.notNull())
    .addColumn('full_name', 'text', (col) => col.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('api_key', 'text', (col) => col.notNull().unique())
    .addColumn('role', 'integer', (col) => col.notNull())
    .addColumn('is_active', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('is_bot', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('bot_type', 'integer')
    .addColumn('bot_owner_id', 'integer', (col) => col.references('users.id'))
    .addColumn('date_joined', c.big, (col) => col.notNull())
    .addColumn('timezone', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('avatar_source', 'text', (col) => col.notNull().defaultTo('G'))
    .addColumn('avatar_version', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('is_imported_stub', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('settings_json', 'text', (col) => col.notNull().defaultTo('{}'))
    .addColumn('default_sending_stream_id', 'integer')
    .addColumn('default_events_register_stream_id', 'integer')
    .addColumn('default_all_public_streams', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await sql`CREATE UNIQUE INDEX users_delivery_email_lower ON users (realm_id, lower(delivery_email))`.execute(db);

  await db.schema
    .createTable('custom_profile_fields')
    .addColumn('id', c.id, id)
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('hint', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('field_type', 'integer', (col) => col.notNull())
    .addColumn('field_data', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('sort_order', 'integer', (col) => col.notNull())
    .addColumn('display_in_profile_summary', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('required', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('editable_by_user', 'integer', (col) => col.notNull().defaultTo(1))
    .execute();

  await db.schema
    .createTable('custom_profile_field_values')
    .addColumn('id', c.id, id)
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id'))
    .addColumn('field_id', 'integer', (col) => col.notNull().references('custom_profile_fields.id').onDelete('cascade'))
    .addColumn('value', 'text', (col) => col.notNull())
    .addColumn('rendered_value', 'text')
    .addUniqueConstraint('cpfv_user_field', ['user_id', 'field_id'])
    .execute();

  await db.schema
    .createTable('user_status')
    .addColumn('user_id', 'integer', (col) => col.primaryKey().references('users.id'))
    .addColumn('status_text', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('emoji_name', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('emoji_code', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('reaction_type', 'text', (col) => col.notNull().defaultTo('unicode_emoji'))
    .addColumn('timestamp', c.big, (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('realm_emoji')
    .addColumn('id', c.id, id)
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('author_id', 'integer', (col) => col.references('users.id'))
    .addColumn('file_name', 'text', (col) => col.notNull())
    .addColumn('deactivated', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
});

export async function migrate(store: Store): Promise<void> {
  const c = cols(store.dialect);
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, up] of steps) out[name] = { up: (db) => up(db, c, store.dialect) };
      return out;
    },
  };
  const migrator = new Migrator({ db: store.db, provider, ...(store.schema ? { migrationTableSchema: store.schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}
