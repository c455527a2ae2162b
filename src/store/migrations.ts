/**
 * Schema migrations, run on start for both backends. Append new migrations
 * to the list; never edit one that has shipped. `col` hides the few column
 * type differences between SQLite and PostgreSQL.
 */
import { Kysely, sql } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import type { DialectName, Store } from './db.ts';
import { ftsTableExists } from './narrow.ts';

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

migration('0010_channels_messages', async (db, c, d) => {
  const id = idColumn(d);
  // User groups. System groups (role:*) get their members from users' roles;
  // other groups have direct members and subgroups. Group-setting values are
  // stored as JSON text: a group ID, or {"direct_members":[...],"direct_subgroups":[...]}.
  await db.schema
    .createTable('user_groups')
    .addColumn('id', c.id, id)
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('is_system_group', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('creator_id', 'integer')
    .addColumn('date_created', c.big)
    .addColumn('deactivated', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('settings_json', 'text', (col) => col.notNull().defaultTo('{}'))
    .execute();
  await db.schema
    .createTable('user_group_members')
    .addColumn('group_id', 'integer', (col) => col.notNull().references('user_groups.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id'))
    .addPrimaryKeyConstraint('user_group_members_pk', ['group_id', 'user_id'])
    .execute();
  await db.schema
    .createTable('user_group_subgroups')
    .addColumn('group_id', 'integer', (col) => col.notNull().references('user_groups.id').onDelete('cascade'))
    .addColumn('subgroup_id', 'integer', (col) => col.notNull().references('user_groups.id'))
    .addPrimaryKeyConstraint('user_group_subgroups_pk', ['group_id', 'subgroup_id'])
    .execute();

  await db.schema
    .createTable('streams')
    .addColumn('id', c.id, id)
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('rendered_description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('invite_only', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('is_web_public', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('history_public_to_subscribers', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('message_retention_days', 'integer')
    .addColumn('date_created', c.big, (col) => col.notNull())
    .addColumn('creator_id', 'integer')
    .addColumn('is_archived', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('first_message_id', 'integer')
    .addColumn('folder_id', 'integer')
    .addColumn('topics_policy', 'text', (col) => col.notNull().defaultTo('inherit'))
    .addColumn('is_default', 'integer', (col) => col.notNull().defaultTo(0))
    /** JSON object: the can_*_group settings (group-setting values). */
    .addColumn('group_settings_json', 'text', (col) => col.notNull().defaultTo('{}'))
    .execute();
  await sql`CREATE UNIQUE INDEX streams_name_lower ON streams (realm_id, lower(name))`.execute(db);

  await db.schema
    .createTable('subscriptions')
    .addColumn('id', c.id, id)
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id'))
    .addColumn('stream_id', 'integer', (col) => col.notNull().references('streams.id'))
    .addColumn('active', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('is_muted', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('pin_to_top', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('color', 'text', (col) => col.notNull())
    .addColumn('desktop_notifications', 'integer')
    .addColumn('audible_notifications', 'integer')
    .addColumn('push_notifications', 'integer')
    .addColumn('email_notifications', 'integer')
    .addColumn('wildcard_mentions_notify', 'integer')
    .addUniqueConstraint('subscriptions_user_stream', ['user_id', 'stream_id'])
    .execute();
  await db.schema.createIndex('subscriptions_stream').on('subscriptions').columns(['stream_id', 'active']).execute();

  // Direct-message groups of three or more people (Zulip's "huddles"): key is the sorted member IDs.
  await db.schema
    .createTable('direct_groups')
    .addColumn('id', c.id, id)
    .addColumn('member_key', 'text', (col) => col.notNull().unique())
    .execute();
  await db.schema
    .createTable('direct_group_members')
    .addColumn('group_id', 'integer', (col) => col.notNull().references('direct_groups.id'))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id'))
    .addPrimaryKeyConstraint('direct_group_members_pk', ['group_id', 'user_id'])
    .execute();

  // Messages. recipient_type: 1 direct to one user (recipient_id = that user; for
  // a message to oneself, the sender), 2 channel (recipient_id = stream id),
  // 3 direct-message group (recipient_id = direct_groups.id).
  await db.schema
    .createTable('messages')
    .addColumn('id', c.id, id)
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('sender_id', 'integer', (col) => col.notNull().references('users.id'))
    .addColumn('recipient_type', 'integer', (col) => col.notNull())
    .addColumn('recipient_id', 'integer', (col) => col.notNull())
    .addColumn('topic', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('content', 'text', (col) => col.notNull())
    .addColumn('rendered_content', 'text', (col) => col.notNull())
    .addColumn('date_sent', c.real, (col) => col.notNull())
    .addColumn('last_edit_time', c.real)
    .addColumn('edit_history_json', 'text')
    .addColumn('sending_client', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('has_link', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('has_image', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('has_attachment', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('is_me_message', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('messages_recipient').on('messages').columns(['recipient_type', 'recipient_id', 'id']).execute();
  await sql`CREATE INDEX messages_topic ON messages (recipient_id, lower(topic), id) `.execute(db);
  await db.schema.createIndex('messages_sender').on('messages').columns(['sender_id', 'id']).execute();

  // Per-user message rows with Zulip's flags as a bitmask (see src/store/messages.ts).
  await db.schema
    .createTable('user_messages')
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id'))
    .addColumn('message_id', 'integer', (col) => col.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('flags', 'integer', (col) => col.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('user_messages_pk', ['user_id', 'message_id'])
    .execute();
  await db.schema.createIndex('user_messages_message').on('user_messages').column('message_id').execute();

  await db.schema
    .createTable('reactions')
    .addColumn('id', c.id, id)
    .addColumn('message_id', 'integer', (col) => col.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id'))
    .addColumn('emoji_name', 'text', (col) => col.notNull())
    .addColumn('emoji_code', 'text', (col) => col.notNull())
    .addColumn('reaction_type', 'text', (col) => col.notNull())
    .addUniqueConstraint('reactions_unique', ['message_id', 'user_id', 'emoji_code', 'reaction_type'])
    .execute();

  // Personal topic preferences (visibility_policy 0 none, 1 muted, 2 unmuted, 3 followed).
  await db.schema
    .createTable('user_topics')
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id'))
    .addColumn('stream_id', 'integer', (col) => col.notNull().references('streams.id'))
    .addColumn('topic', 'text', (col) => col.notNull())
    .addColumn('visibility_policy', 'integer', (col) => col.notNull())
    .addColumn('last_updated', c.big, (col) => col.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX user_topics_unique ON user_topics (user_id, stream_id, lower(topic))`.execute(db);
});

// Bot services: outgoing webhook (base_url, interface, token) and embedded bot entries.
migration('0030_bot_services', async (db, c, d) => {
  await db.schema
    .createTable('bot_services')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('base_url', 'text', (col) => col.notNull())
    .addColumn('interface', 'integer', (col) => col.notNull())
    .addColumn('token', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('bot_services_user').on('bot_services').column('user_id').execute();
});

// System bots (Notification Bot): Zulip keeps these outside the organization
// and lists them as cross_realm_bots, never among realm_users.
migration('0060_system_bots', async (db) => {
  await db.schema.alterTable('users').addColumn('is_system_bot', 'integer', (col) => col.notNull().defaultTo(0)).execute();
});

// Email invitations (POST /invites): one row per invited address.
migration('0100_invitations', async (db, c, d) => {
  await db.schema
    .createTable('invitations')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('email', 'text', (col) => col.notNull())
    .addColumn('referred_by', 'integer', (col) => col.notNull().references('users.id'))
    .addColumn('invited_as', 'integer', (col) => col.notNull())
    .addColumn('invited_at', c.big, (col) => col.notNull())
    .addColumn('expiry_date', c.big)
    .addColumn('confirmation_key', 'text', (col) => col.notNull().unique())
    .addColumn('stream_ids_json', 'text', (col) => col.notNull().defaultTo('[]'))
    .addColumn('group_ids_json', 'text', (col) => col.notNull().defaultTo('[]'))
    .addColumn('include_realm_default_subscriptions', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('notify_referrer_on_join', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('welcome_message_custom_text', 'text')
    .execute();
  await db.schema.createIndex('invitations_realm').on('invitations').columns(['realm_id', 'referred_by']).execute();
});

/** Applies every migration not yet applied, or (tests of a migration) those up to and including `until`. */
export async function migrate(store: Store, opts: { until?: string } = {}): Promise<void> {
  const c = cols(store.dialect);
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, up] of steps) out[name] = { up: (db) => up(db, c, store.dialect) };
      return out;
    },
  };
  const migrator = new Migrator({ db: store.db, provider, allowUnorderedMigrations: true, ...(store.schema ? { migrationTableSchema: store.schema } : {}) });
  const { error, results } = opts.until ? await migrator.migrateTo(opts.until) : await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
}

// Presence: one row per user (last connected/active times, UNIX seconds) with
// the realm-wide presence sequence number of its latest change.
migration('0002_presence', async (db, c) => {
  await db.schema
    .createTable('user_presence')
    .addColumn('user_id', 'integer', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('last_connected_time', c.big)
    .addColumn('last_active_time', c.big)
    .addColumn('last_update_id', c.big, (col) => col.notNull())
    .execute();
  await db.schema.createIndex('user_presence_realm_update').on('user_presence').columns(['realm_id', 'last_update_id']).execute();
});

// Full-text search of messages (narrow operator `search`): an FTS5 index
// kept in step by triggers on SQLite (skipped where FTS5 is not compiled in;
// search then falls back to LIKE), an expression GIN index on PostgreSQL.
migration('0050_message_search', async (db, _c, d) => {
  if (d === 'postgres') {
    await sql`CREATE INDEX messages_search ON messages USING gin (to_tsvector('english'::regconfig, topic || ' ' || content))`.execute(db);
    return;
  }
  try {
    await sql`CREATE VIRTUAL TABLE messages_fts USING fts5(topic, content, tokenize = 'porter unicode61')`.execute(db);
  } catch {
    return;
  }
  await sql`INSERT INTO messages_fts (rowid, topic, content) SELECT id, topic, content FROM messages`.execute(db);
  await sql`CREATE TRIGGER messages_fts_ai AFTER INSERT ON messages BEGIN INSERT INTO messages_fts (rowid, topic, content) VALUES (new.id, new.topic, new.content); END`.execute(db);
  await sql`CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages BEGIN DELETE FROM messages_fts WHERE rowid = old.id; END`.execute(db);
  await sql`CREATE TRIGGER messages_fts_au AFTER UPDATE OF topic, content ON messages BEGIN UPDATE messages_fts SET topic = new.topic, content = new.content WHERE rowid = new.id; END`.execute(db);
});

// Drafts synchronized between a user's clients (GET/POST /drafts).
migration('0070_drafts', async (db, c, d) => {
  await db.schema
    .createTable('drafts')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('to_json', 'text', (col) => col.notNull().defaultTo('[]'))
    .addColumn('topic', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('content', 'text', (col) => col.notNull())
    .addColumn('last_edit_time', c.real, (col) => col.notNull())
    .execute();
  await db.schema.createIndex('drafts_user').on('drafts').column('user_id').execute();
});

// Scheduled messages: one row per scheduled message of a sender, delivered by
// the server's delivery timer (rows stay, marked delivered, once sent).
migration('0080_scheduled_messages', async (db, c, d) => {
  await db.schema
    .createTable('scheduled_messages')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('sender_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('recipient_type', 'text', (col) => col.notNull())
    .addColumn('stream_id', 'integer', (col) => col.references('streams.id').onDelete('cascade'))
    .addColumn('to_json', 'text', (col) => col.notNull())
    .addColumn('topic', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('content', 'text', (col) => col.notNull())
    .addColumn('rendered_content', 'text', (col) => col.notNull())
    .addColumn('scheduled_timestamp', c.big, (col) => col.notNull())
    .addColumn('read_by_sender', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('sending_client', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('failed', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('failure_message', 'text')
    .addColumn('delivered', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('delivered_message_id', 'integer')
    .execute();
  await db.schema.createIndex('scheduled_messages_sender').on('scheduled_messages').columns(['sender_id', 'delivered']).execute();
  await db.schema.createIndex('scheduled_messages_due').on('scheduled_messages').columns(['delivered', 'failed', 'scheduled_timestamp']).execute();
});

// Uploaded files (POST /user_uploads): one row per file, stored under
// $DATA_DIR/uploads/<path_id>; attachment_messages links the messages whose
// content references it (no foreign key to messages: deleting a message
// leaves a stale link that readers ignore by joining messages).
migration('0090_attachments', async (db, c, d) => {
  await db.schema
    .createTable('attachments')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('path_id', 'text', (col) => col.notNull().unique())
    .addColumn('file_name', 'text', (col) => col.notNull())
    .addColumn('content_type', 'text', (col) => col.notNull())
    .addColumn('owner_id', 'integer', (col) => col.notNull().references('users.id'))
    .addColumn('size', c.big, (col) => col.notNull())
    .addColumn('create_time', c.big, (col) => col.notNull())
    .execute();
  await db.schema.createIndex('attachments_owner').on('attachments').column('owner_id').execute();
  await db.schema
    .createTable('attachment_messages')
    .addColumn('attachment_id', 'integer', (col) => col.notNull().references('attachments.id').onDelete('cascade'))
    .addColumn('message_id', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('attachment_messages_pk', ['attachment_id', 'message_id'])
    .execute();
  await db.schema.createIndex('attachment_messages_message').on('attachment_messages').column('message_id').execute();
});

// Invitations accepted through /accounts/do_confirm: used (1) or revoked (2)
// rows are kept, as Zulip keeps its PreregistrationUser rows.
migration('0110_invitation_status', async (db) => {
  await db.schema.alterTable('invitations').addColumn('status', 'integer', (col) => col.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('invitations').addColumn('created_user_id', 'integer').execute();
});

// Muted users (one row per muter and muted user) and personal alert words
// (kept in the order added, with the spelling given).
migration('0120_muted_users_alert_words', async (db, c, d) => {
  await db.schema
    .createTable('muted_users')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id'))
    .addColumn('muted_user_id', 'integer', (col) => col.notNull().references('users.id'))
    .addColumn('date_muted', c.big, (col) => col.notNull())
    .addUniqueConstraint('muted_users_pair', ['user_id', 'muted_user_id'])
    .execute();
  await db.schema.createIndex('muted_users_muted').on('muted_users').column('muted_user_id').execute();
  await db.schema
    .createTable('alert_words')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id'))
    .addColumn('word', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('alert_words_user').on('alert_words').column('user_id').execute();
  await db.schema.createIndex('alert_words_realm').on('alert_words').column('realm_id').execute();
});

// Saved snippets (reusable message text of one user), submessages (widget
// data attached to a message: polls, to-do lists), client devices (the IDs
// /mobile_push/register refers to), legacy push tokens (APNs/FCM, stored and
// removable; nothing is delivered) and channel email addresses (one token
// per channel, creator and sender, as Zulip's ChannelEmailAddress).
migration('0600_snippets_submessages_devices', async (db, c, d) => {
  await db.schema
    .createTable('saved_snippets')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('title', 'text', (col) => col.notNull())
    .addColumn('content', 'text', (col) => col.notNull())
    .addColumn('date_created', c.big, (col) => col.notNull())
    .execute();
  await db.schema.createIndex('saved_snippets_user').on('saved_snippets').column('user_id').execute();
  await db.schema
    .createTable('submessages')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('message_id', 'integer', (col) => col.notNull())
    .addColumn('sender_id', 'integer', (col) => col.notNull().references('users.id'))
    .addColumn('msg_type', 'text', (col) => col.notNull())
    .addColumn('content', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('submessages_message').on('submessages').column('message_id').execute();
  await db.schema
    .createTable('client_devices')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('date_created', c.big, (col) => col.notNull())
    .execute();
  await db.schema.createIndex('client_devices_user').on('client_devices').column('user_id').execute();
  await db.schema
    .createTable('push_device_tokens')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'integer', (col) => col.notNull())
    .addColumn('token', 'text', (col) => col.notNull())
    .addColumn('ios_app_id', 'text')
    .addColumn('last_updated', c.big, (col) => col.notNull())
    .addUniqueConstraint('push_device_tokens_unique', ['user_id', 'kind', 'token'])
    .execute();
  await db.schema
    .createTable('channel_email_addresses')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('stream_id', 'integer', (col) => col.notNull().references('streams.id').onDelete('cascade'))
    .addColumn('creator_id', 'integer', (col) => col.notNull().references('users.id'))
    .addColumn('sender_id', 'integer', (col) => col.notNull().references('users.id'))
    .addColumn('email_token', 'text', (col) => col.notNull().unique())
    .addColumn('date_created', c.big, (col) => col.notNull())
    .addUniqueConstraint('channel_email_addresses_unique', ['stream_id', 'creator_id', 'sender_id'])
    .execute();
});

// Browser login sessions (the web client's HttpOnly cookie), by hash of the session id.
migration('0300_sessions', async (db, c) => {
  await db.schema
    .createTable('sessions')
    .addColumn('id_hash', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id'))
    .addColumn('csrf_token', 'text', (col) => col.notNull())
    .addColumn('date_created', c.big, (col) => col.notNull())
    .addColumn('expires', c.big, (col) => col.notNull())
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
  await db.schema.createIndex('sessions_expires').on('sessions').column('expires').execute();
});

// Organization linkifiers (Zulip's RealmFilter): applied in `order`, one
// pattern per organization.
migration('0700_linkifiers', async (db, c, d) => {
  await db.schema
    .createTable('realm_linkifiers')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('pattern', 'text', (col) => col.notNull())
    .addColumn('url_template', 'text', (col) => col.notNull())
    .addColumn('order', 'integer', (col) => col.notNull().defaultTo(0))
    .addUniqueConstraint('realm_linkifiers_pattern', ['realm_id', 'pattern'])
    .execute();
});

// Custom emoji uploads: whether the image is animated (then a still PNG of
// its first frame is stored beside it).
migration('0710_realm_emoji_animated', async (db) => {
  await db.schema.alterTable('realm_emoji').addColumn('is_animated', 'integer', (col) => col.notNull().defaultTo(0)).execute();
});

// The processes serving this database, with heartbeats (PostgreSQL): a
// second process without REDIS_URL refuses to start while another is alive.
migration('0500_cluster_nodes', async (db, c) => {
  await db.schema
    .createTable('cluster_nodes')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('host', 'text', (col) => col.notNull())
    .addColumn('pid', 'integer', (col) => col.notNull())
    .addColumn('has_redis', 'integer', (col) => col.notNull())
    .addColumn('started_at', c.big, (col) => col.notNull())
    .addColumn('heartbeat_at', c.big, (col) => col.notNull())
    .execute();
});

// The organization's allowed email domains (Zulip's RealmDomain), used when
// emails_restricted_to_domains is on.
migration('0900_realm_domains', async (db, c, d) => {
  await db.schema
    .createTable('realm_domains')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('domain', 'text', (col) => col.notNull())
    .addColumn('allow_subdomains', 'integer', (col) => col.notNull().defaultTo(0))
    .addUniqueConstraint('realm_domains_domain', ['realm_id', 'domain'])
    .execute();
});

// Reusable invitation links (Zulip's multiuse invites). A sign-up through one
// becomes an `invitations` row pointing at it (multiuse_id), confirmed by email
// through /accounts/do_confirm/ like an email invitation, but not listed as one.
migration('0610_multiuse_invites', async (db, c, d) => {
  await db.schema
    .createTable('multiuse_invites')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('referred_by', 'integer', (col) => col.notNull().references('users.id'))
    .addColumn('invited_as', 'integer', (col) => col.notNull())
    .addColumn('date_created', c.big, (col) => col.notNull())
    .addColumn('expiry_date', c.big)
    .addColumn('confirmation_key', 'text', (col) => col.notNull().unique())
    .addColumn('stream_ids_json', 'text', (col) => col.notNull().defaultTo('[]'))
    .addColumn('group_ids_json', 'text', (col) => col.notNull().defaultTo('[]'))
    .addColumn('include_realm_default_subscriptions', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('welcome_message_custom_text', 'text')
    .addColumn('status', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('invitations').addColumn('multiuse_id', 'integer').execute();
});

// Pending email address changes (PATCH /settings email): confirmed through
// the link mailed to the new address; status 0 pending, 1 used.
migration('0620_email_changes', async (db, c, d) => {
  await db.schema
    .createTable('email_changes')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('old_email', 'text', (col) => col.notNull())
    .addColumn('new_email', 'text', (col) => col.notNull())
    .addColumn('confirmation_key', 'text', (col) => col.notNull().unique())
    .addColumn('created', c.big, (col) => col.notNull())
    .addColumn('status', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
});
// Channel folders (Zulip's ChannelFolder): names unique per organization
// (case-insensitively, checked by the action), shown in `order`.
migration('0720_channel_folders', async (db, c, d) => {
  await db.schema
    .createTable('channel_folders')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('rendered_description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('order', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('date_created', c.big, (col) => col.notNull())
    .addColumn('creator_id', 'integer', (col) => col.references('users.id'))
    .addColumn('is_archived', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('channel_folders_realm').on('channel_folders').column('realm_id').execute();
});

// Uploaded organization icon and logos: their versions (for cache-busting
// URLs); whether one is uploaded is the icon_source/logo_source setting.
migration('0730_realm_image_versions', async (db) => {
  for (const col of ['icon_version', 'logo_version', 'night_logo_version']) {
    await db.schema.alterTable('realm').addColumn(col, 'integer', (c) => c.notNull().defaultTo(1)).execute();
  }
});

// Code playgrounds (Zulip's RealmPlayground), saved navigation views (one
// per user and fragment) and bot storage (string keys and values per bot).
migration('0740_playgrounds_navigation_views_bot_storage', async (db, c, d) => {
  await db.schema
    .createTable('realm_playgrounds')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('pygments_language', 'text', (col) => col.notNull())
    .addColumn('url_template', 'text', (col) => col.notNull())
    .addUniqueConstraint('realm_playgrounds_unique', ['realm_id', 'pygments_language', 'name'])
    .execute();
  await db.schema
    .createTable('navigation_views')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('fragment', 'text', (col) => col.notNull())
    .addColumn('is_pinned', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('name', 'text')
    .addUniqueConstraint('navigation_views_fragment', ['user_id', 'fragment'])
    .execute();
  await db.schema
    .createTable('bot_storage')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('value', 'text', (col) => col.notNull())
    .addUniqueConstraint('bot_storage_key', ['user_id', 'key'])
    .execute();
});

// Message reminders are scheduled messages of delivery type 2 (Zulip's
// ScheduledMessage.REMIND), pointing at the message they remind about.
migration('0750_reminders', async (db) => {
  await db.schema.alterTable('scheduled_messages').addColumn('delivery_type', 'integer', (col) => col.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('scheduled_messages').addColumn('reminder_target_message_id', 'integer').execute();
});
// Notifications: outgoing-webhook deliveries, pending missed-message emails,
// digest bookkeeping and email unsubscribe keys.
migration('0800_notifications', async (db, c, d) => {
  await db.schema
    .createTable('outgoing_webhook_jobs')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('bot_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('message_id', 'integer', (col) => col.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('trigger', 'text', (col) => col.notNull())
    .addColumn('failed_tries', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('run_at', c.big, (col) => col.notNull())
    .addColumn('locked_until', c.big)
    .addColumn('done_at', c.big)
    .execute();
  await db.schema.createIndex('outgoing_webhook_jobs_due').on('outgoing_webhook_jobs').columns(['done_at', 'run_at']).execute();
  await db.schema
    .createTable('missed_message_emails')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('message_id', 'integer', (col) => col.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('trigger', 'text', (col) => col.notNull())
    .addColumn('mentioned_user_group_id', 'integer')
    .addColumn('scheduled_at', c.big, (col) => col.notNull())
    .addColumn('sent_at', c.big)
    .execute();
  await db.schema.createIndex('missed_message_emails_pending').on('missed_message_emails').columns(['sent_at', 'scheduled_at']).execute();
  await db.schema.createIndex('missed_message_emails_user').on('missed_message_emails').columns(['user_id', 'sent_at']).execute();
  await db.schema
    .createTable('digest_emails')
    .addColumn('user_id', 'integer', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('last_sent_at', c.big, (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('email_unsubscribe_keys')
    .addColumn('key', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('email_type', 'text', (col) => col.notNull())
    .addColumn('date_created', c.big, (col) => col.notNull())
    .addUniqueConstraint('email_unsubscribe_keys_user_type', ['user_id', 'email_type'])
    .execute();
});

// Full-member promotion: up to when (UNIX seconds) members who passed the
// organization's waiting period have been announced (user_group events).
migration('0910_full_member_promotions', async (db, c) => {
  await db.schema
    .createTable('full_member_promotions')
    .addColumn('realm_id', 'integer', (col) => col.primaryKey().references('realm.id'))
    .addColumn('checked_until', c.big, (col) => col.notNull())
    .execute();
});

// Organization data exports (Zulip's RealmExport): who asked, which kind,
// and the status with its times (UNIX seconds); export_path is the archive
// under DATA_DIR/exports once it succeeded.
migration('0930_realm_exports', async (db, c, d) => {
  await db.schema
    .createTable('realm_exports')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('acting_user_id', 'integer', (col) => col.references('users.id'))
    .addColumn('export_type', 'text', (col) => col.notNull())
    .addColumn('status', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('date_requested', c.real, (col) => col.notNull())
    .addColumn('date_started', c.real)
    .addColumn('date_succeeded', c.real)
    .addColumn('date_failed', c.real)
    .addColumn('date_deleted', c.real)
    .addColumn('export_path', 'text')
    .addColumn('tarball_size_bytes', c.big)
    .execute();
  await db.schema.createIndex('realm_exports_realm').on('realm_exports').columns(['realm_id', 'date_requested']).execute();
});

// Every user's policy for one topic of a channel is read on each message sent
// to it (who is emailed): by channel, not by user.
migration('0940_user_topics_stream', async (db) => {
  await db.schema.createIndex('user_topics_stream').on('user_topics').column('stream_id').execute();
});

// SQLite: user_messages as a WITHOUT ROWID table, its rows stored in the
// (user_id, message_id) key itself. Before, the key was an index beside the
// table, so reading a user's flags for a message took two B-tree searches
// and a send inserted into both. Measured on a copy of the benchmark's
// shape (100 recipients per message): the newest-100 narrow query went from
// about 61 to 41 µs, a 100-recipient send from about 710-780 to 645 µs.
// PostgreSQL keeps its table as it is.
migration('0950_user_messages_without_rowid', async (db, _c, d) => {
  if (d === 'postgres') return;
  await sql`CREATE TABLE user_messages_new (
    user_id integer NOT NULL REFERENCES users (id),
    message_id integer NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    flags integer NOT NULL DEFAULT 0,
    CONSTRAINT user_messages_pk PRIMARY KEY (user_id, message_id)
  ) WITHOUT ROWID`.execute(db);
  await sql`INSERT INTO user_messages_new (user_id, message_id, flags) SELECT user_id, message_id, flags FROM user_messages ORDER BY user_id, message_id`.execute(db);
  await sql`DROP TABLE user_messages`.execute(db);
  await sql`ALTER TABLE user_messages_new RENAME TO user_messages`.execute(db);
  await db.schema.createIndex('user_messages_message').on('user_messages').column('message_id').execute();
});

// SQLite: lower() now folds every script (useUnicodeLower in sqlite-driver.ts),
// so the indexes on lower() are built again. Rows that only now compare equal
// would break the unique ones: of a user's policies for one topic the latest
// is kept; a channel whose name equals an older one's gets its ID appended.
// Two accounts whose addresses differ only in case stop the upgrade, to be
// settled by hand. PostgreSQL's lower() already folded every script.
migration('0960_unicode_lower_indexes', async (migrating, _c, d) => {
  if (d === 'postgres') return;
  // Kysely runs SQLite's migrations outside a transaction; this one needs its own, all or nothing.
  await migrating.transaction().execute(async (db) => {
    for (const index of ['users_delivery_email_lower', 'streams_name_lower', 'messages_topic', 'user_topics_unique']) await sql`DROP INDEX ${sql.id(index)}`.execute(db);

    const users = await sql<{ id: number; realm_id: number; delivery_email: string }>`SELECT id, realm_id, delivery_email FROM users ORDER BY id`.execute(db);
    const emails = new Map<string, number>();
    for (const u of users.rows) {
      const key = `${u.realm_id}\n${u.delivery_email.toLowerCase()}`;
      const other = emails.get(key);
      if (other !== undefined) throw new Error(`users ${other} and ${u.id} have e-mail addresses that differ only in case (${u.delivery_email}); change one of them with an older version before upgrading`);
      emails.set(key, u.id);
    }

    const streams = await sql<{ id: number; realm_id: number; name: string }>`SELECT id, realm_id, name FROM streams ORDER BY id`.execute(db);
    const names = new Set(streams.rows.map((s) => `${s.realm_id}\n${s.name.toLowerCase()}`));
    const seen = new Set<string>();
    for (const s of streams.rows) {
      const key = `${s.realm_id}\n${s.name.toLowerCase()}`;
      if (!seen.has(key)) {
        seen.add(key);
        continue;
      }
      const suffix = ` (${s.id})`;
      const name = `${s.name.slice(0, 60 - suffix.length)}${suffix}`;
      const renamed = `${s.realm_id}\n${name.toLowerCase()}`;
      if (names.has(renamed)) throw new Error(`channels named like "${s.name}" could not be told apart; rename channel ${s.id} with an older version before upgrading`);
      names.add(renamed);
      seen.add(renamed);
      await sql`UPDATE streams SET name = ${name} WHERE id = ${s.id}`.execute(db);
    }

    await sql`DELETE FROM user_topics WHERE rowid IN (
      SELECT rowid FROM (SELECT rowid, row_number() OVER (PARTITION BY user_id, stream_id, lower(topic) ORDER BY last_updated DESC, rowid DESC) AS n FROM user_topics)
      WHERE n > 1)`.execute(db);

    await sql`CREATE UNIQUE INDEX users_delivery_email_lower ON users (realm_id, lower(delivery_email))`.execute(db);
    await sql`CREATE UNIQUE INDEX streams_name_lower ON streams (realm_id, lower(name))`.execute(db);
    await sql`CREATE INDEX messages_topic ON messages (recipient_id, lower(topic), id)`.execute(db);
    await sql`CREATE UNIQUE INDEX user_topics_unique ON user_topics (user_id, stream_id, lower(topic))`.execute(db);
  });
});

// SQLite: the search index keeps no copy of the text it indexes. An FTS5
// table stores each indexed value beside its index unless told otherwise,
// and search only ever reads the rowid back (matches are highlighted in
// rendered_content, from the messages table), so every message's topic and
// content were stored twice. With content='' the table keeps only the
// index, and contentless_delete (SQLite 3.43 and later) lets the triggers
// delete and replace rows as before. Measured on 100,000 messages of 25
// words each: a database file of 47 MB against 64, and about 51 us per
// insert against 64. The upgrade indexes the messages again, once, at the
// first start: about 6 s a million messages of that size.
migration('0970_contentless_search_index', async (migrating, _c, d) => {
  if (d === 'postgres') return;
  if (!(await ftsTableExists(migrating))) return; // no FTS5 here (0050): search uses LIKE
  // Kysely runs SQLite's migrations outside a transaction; this one needs its own, all or nothing.
  await migrating.transaction().execute(async (db) => {
    for (const trigger of ['messages_fts_ai', 'messages_fts_ad', 'messages_fts_au']) await sql`DROP TRIGGER ${sql.id(trigger)}`.execute(db);
    await sql`DROP TABLE messages_fts`.execute(db);
    await sql`CREATE VIRTUAL TABLE messages_fts USING fts5(topic, content, content = '', contentless_delete = 1, tokenize = 'porter unicode61')`.execute(db);
    await sql`INSERT INTO messages_fts (rowid, topic, content) SELECT id, topic, content FROM messages`.execute(db);
    await sql`CREATE TRIGGER messages_fts_ai AFTER INSERT ON messages BEGIN INSERT INTO messages_fts (rowid, topic, content) VALUES (new.id, new.topic, new.content); END`.execute(db);
    await sql`CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages BEGIN DELETE FROM messages_fts WHERE rowid = old.id; END`.execute(db);
    // A contentless table takes an update only of all its columns, which this is.
    await sql`CREATE TRIGGER messages_fts_au AFTER UPDATE OF topic, content ON messages BEGIN UPDATE messages_fts SET topic = new.topic, content = new.content WHERE rowid = new.id; END`.execute(db);
  });
});

// Uploaded images: their size as shown and frame count, read when uploaded,
// when their thumbnails are made (Zulip's ImageAttachment). image_frames is
// null for files uploaded before (their previews link the file itself) and
// 0 for a file that is not an image libvips reads (no preview).
migration('0980_attachment_images', async (db) => {
  for (const col of ['image_width', 'image_height', 'image_frames']) {
    await db.schema.alterTable('attachments').addColumn(col, 'integer').execute();
  }
});

// Reverse linkifiers (Zulip's feature levels 471 and 478): an example of
// the text a linkifier matches, the template that turns a matched URL back
// into such text, and further URL templates (a JSON list of strings) that
// only reverse linkification reads.
migration('0990_linkifier_reverse', async (db) => {
  await db.schema.alterTable('realm_linkifiers').addColumn('example_input', 'text').execute();
  await db.schema.alterTable('realm_linkifiers').addColumn('reverse_template', 'text').execute();
  await db.schema.alterTable('realm_linkifiers').addColumn('alternative_url_templates', 'text', (col) => col.notNull().defaultTo('[]')).execute();
});

// Custom profile fields used to match users in typeahead (Zulip's
// use_for_user_matching, feature level 455): off for every existing field.
migration('1000_profile_field_user_matching', async (db) => {
  await db.schema
    .alterTable('custom_profile_fields')
    .addColumn('use_for_user_matching', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
});

// web_home_view: Zulip renamed the recent conversations view's value from
// 'recent_topics' to 'recent' (feature level 454), and no longer accepts the
// old one. Users' settings and the organization's defaults for new users
// are JSON text written by JSON.stringify (no spaces), so the stored pair
// is replaced as text.
migration('1010_web_home_view_recent', async (db) => {
  const from = '"web_home_view":"recent_topics"';
  const to = '"web_home_view":"recent"';
  await sql`UPDATE users SET settings_json = replace(settings_json, ${from}, ${to}) WHERE settings_json LIKE ${'%' + from + '%'}`.execute(db);
  await sql`UPDATE realm SET user_defaults_json = replace(user_defaults_json, ${from}, ${to}) WHERE user_defaults_json LIKE ${'%' + from + '%'}`.execute(db);
});

// Accounts made through the API (POST /users) take their date_joined from
// their first login (Zulip's feature level 475): marked until then.
migration('1020_date_joined_on_first_login', async (db) => {
  await db.schema
    .alterTable('users')
    .addColumn('joins_on_first_login', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
});

// The settings each user changed themselves (PATCH /settings), so that an
// administrator's change of a setting for many users (target_users with
// skip_if_already_edited, feature level 444) can leave those users' own
// choices alone. Changes made before this migration are not known.
migration('1030_user_setting_edits', async (db) => {
  await db.schema
    .createTable('user_setting_edits')
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id'))
    .addColumn('setting', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('user_setting_edits_pkey', ['user_id', 'setting'])
    .execute();
});

// Password resets (the "Forgot your password?" link of the login page): the
// link mailed to the account's address carries a random key, of which only
// its SHA-256 is kept; `password_marker` is a digest of the password hash
// when the link was made (a link stops working once the password changes);
// status 0 pending, 1 used.
migration('1040_password_resets', async (db, c, d) => {
  await db.schema
    .createTable('password_resets')
    .addColumn('id', c.id, idColumn(d))
    .addColumn('realm_id', 'integer', (col) => col.notNull().references('realm.id'))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('key_hash', 'text', (col) => col.notNull().unique())
    .addColumn('password_marker', 'text', (col) => col.notNull())
    .addColumn('created', c.big, (col) => col.notNull())
    .addColumn('status', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
});

// Each user's row carries a version that every change to the row moves, by
// a trigger, so that no write (the admin command line's, an import's, a
// migration's) can leave it behind. The users kept in memory
// (actions/cache.ts) are brought up to date after a change to the table by
// reading every user's version, a small query, and loading only the rows
// added or changed since, instead of every user's whole row again.
migration('1050_users_row_version', async (db, _c, d) => {
  await db.schema.alterTable('users').addColumn('row_version', 'integer', (col) => col.notNull().defaultTo(0)).execute();
  // The versions are read from this index alone: SQLite would otherwise read
  // each row whole, settings and all, to reach its last column.
  await db.schema.createIndex('users_row_versions').on('users').columns(['realm_id', 'id', 'row_version']).execute();
  if (d === 'postgres') {
    await sql`CREATE FUNCTION users_row_version() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.row_version := OLD.row_version + 1; RETURN NEW; END $$`.execute(db);
    await sql`CREATE TRIGGER users_row_version BEFORE UPDATE ON users FOR EACH ROW EXECUTE FUNCTION users_row_version()`.execute(db);
  } else {
    // SQLite's triggers cannot change the row being written: a second update
    // of it, which fires no trigger (recursive triggers are off).
    await sql`CREATE TRIGGER users_row_version AFTER UPDATE ON users BEGIN UPDATE users SET row_version = old.row_version + 1 WHERE id = new.id; END`.execute(db);
  }
});

// Finding an account by the email the API shows (`userByEmail`: logins,
// new accounts, invitations) asks for lower(delivery_email) or lower(email):
// the first had an index, the second none, so every such lookup read the
// whole users table.
migration('1060_users_email_lower', async (db) => {
  await sql`CREATE INDEX users_email_lower ON users (realm_id, lower(email))`.execute(db);
});

// SQLite: user_messages without its two foreign keys. With foreign keys on,
// SQLite looked up the user and the message of every row it inserted: two
// B-tree searches per recipient, about a fifth of the write work of a send
// to 100 members (a standalone copy of the benchmark's shape: 286 against
// 355 µs of CPU per send, three alternating runs each). Every row is written
// right after its message, in the same transaction, for users read from the
// organization's own tables, and users are never deleted. Deleting a message
// still deletes its rows: a trigger does what ON DELETE CASCADE did.
// PostgreSQL keeps its foreign keys.
migration('1070_user_messages_without_foreign_keys', async (db, _c, d) => {
  if (d === 'postgres') return;
  await sql`CREATE TABLE user_messages_new (
    user_id integer NOT NULL,
    message_id integer NOT NULL,
    flags integer NOT NULL DEFAULT 0,
    CONSTRAINT user_messages_pk PRIMARY KEY (user_id, message_id)
  ) WITHOUT ROWID`.execute(db);
  await sql`INSERT INTO user_messages_new (user_id, message_id, flags) SELECT user_id, message_id, flags FROM user_messages ORDER BY user_id, message_id`.execute(db);
  await sql`DROP TABLE user_messages`.execute(db);
  await sql`ALTER TABLE user_messages_new RENAME TO user_messages`.execute(db);
  await db.schema.createIndex('user_messages_message').on('user_messages').column('message_id').execute();
  await sql`CREATE TRIGGER user_messages_cascade AFTER DELETE ON messages BEGIN DELETE FROM user_messages WHERE message_id = old.id; END`.execute(db);
});
