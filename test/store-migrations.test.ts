/**
 * Migrations that rebuild a table keep its rows (SQLite only: PostgreSQL's
 * tables are not rebuilt), and PostgreSQL migrations of one schema do not
 * trip over another schema's changes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { sql } from 'kysely';
import { openStore } from '../src/store/db.ts';
import { migrate } from '../src/store/migrations.ts';

const skip = process.env.TEST_DATABASE_URL ? 'the rebuild is SQLite only' : false;

test('0950: user_messages becomes a WITHOUT ROWID table with the same rows, key and index', { skip }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-migrate-'));
  const store = openStore({ dataDir });
  try {
    await migrate(store, { until: '0940_user_topics_stream' });
    // The rows alone (no users or messages behind them): foreign keys off for the fixture and the rebuild.
    await sql`PRAGMA foreign_keys = OFF`.execute(store.db);
    const rows = [];
    for (let user = 1; user <= 30; user++) for (let message = 1; message <= 40; message += 1 + (user % 3)) rows.push({ user_id: user, message_id: message, flags: (user * message) % 64 });
    for (let i = 0; i < rows.length; i += 200) await store.db.insertInto('user_messages').values(rows.slice(i, i + 200)).execute();
    await migrate(store);
    await sql`PRAGMA foreign_keys = ON`.execute(store.db);

    const table = await sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'user_messages'`.execute(store.db);
    assert.match(table.rows[0]!.sql, /WITHOUT ROWID\s*$/);
    const indexes = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'user_messages' AND sql IS NOT NULL`.execute(store.db);
    assert.deepEqual(indexes.rows.map((r) => r.name), ['user_messages_message']);
    const after = await store.db.selectFrom('user_messages').select(['user_id', 'message_id', 'flags']).orderBy('user_id').orderBy('message_id').execute();
    assert.deepEqual(after, rows);
    // The key still refuses a second row for the same user and message.
    await assert.rejects(store.db.insertInto('user_messages').values({ user_id: 1, message_id: 1, flags: 0 }).execute(), /UNIQUE constraint failed/);
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/**
 * A database migrated up to 0950, opened as before 0960: with SQLite's own
 * lower(), which leaves letters outside ASCII as they are, and without
 * foreign keys (the rows stand alone).
 */
async function before0960(dataDir: string) {
  const store = openStore({ dataDir });
  await migrate(store, { until: '0950_user_messages_without_rowid' });
  await store.close();
  const old = new DatabaseSync(join(dataDir, 'parley.sqlite3'));
  old.exec('PRAGMA foreign_keys = OFF');
  const addUser = old.prepare(`INSERT INTO users (id, realm_id, email, delivery_email, full_name, api_key, role, date_joined) VALUES (?, 1, ?, ?, 'U', ?, 400, 1700000000)`);
  return { old, addUser };
}

test('0960: the indexes on lower() are rebuilt for Unicode case; names that now collide are settled', { skip }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-migrate-'));
  try {
    const { old, addUser } = await before0960(dataDir);
    const now = 1_700_000_000;
    addUser.run(1, 'user1@x.test', 'Ümit@x.test', 'k1');
    addUser.run(2, 'user2@x.test', 'other@x.test', 'k2');
    const addChannel = old.prepare(`INSERT INTO streams (id, realm_id, name, date_created) VALUES (?, 1, ?, ${now})`);
    addChannel.run(10, 'Россия');
    addChannel.run(11, 'россия');
    addChannel.run(12, 'РОССИЯ');
    old.prepare(`INSERT INTO messages (id, realm_id, sender_id, recipient_type, recipient_id, topic, content, rendered_content, date_sent) VALUES (100, 1, 1, 2, 10, 'РОССИЯ', 'x', '<p>x</p>', ${now})`).run();
    const addPolicy = old.prepare('INSERT INTO user_topics (user_id, stream_id, topic, visibility_policy, last_updated) VALUES (1, 10, ?, ?, ?)');
    addPolicy.run('Россия', 1, now);
    addPolicy.run('россия', 3, now + 5);
    addPolicy.run('РОССИЯ', 2, now + 2);
    old.close();

    const store = openStore({ dataDir });
    try {
      await migrate(store);
      const db = store.db;
      const channels = await db.selectFrom('streams').select(['id', 'name']).orderBy('id').execute();
      assert.deepEqual(channels, [{ id: 10, name: 'Россия' }, { id: 11, name: 'россия (11)' }, { id: 12, name: 'РОССИЯ (12)' }]);
      // The latest of the three policies is kept.
      assert.deepEqual(await db.selectFrom('user_topics').select(['topic', 'visibility_policy']).execute(), [{ topic: 'россия', visibility_policy: 3 }]);
      // Lookups in any case go through the rebuilt indexes.
      const plan = await sql<{ detail: string }>`EXPLAIN QUERY PLAN SELECT id FROM messages WHERE recipient_id = 10 AND lower(topic) = lower(${'Россия'})`.execute(db);
      assert.match(plan.rows.map((r) => r.detail).join('\n'), /messages_topic/);
      assert.deepEqual((await sql<{ id: number }>`SELECT id FROM messages WHERE recipient_id = 10 AND lower(topic) = lower(${'россия'})`.execute(db)).rows, [{ id: 100 }]);
      assert.deepEqual((await sql<{ id: number }>`SELECT id FROM users WHERE realm_id = 1 AND lower(delivery_email) = lower(${'ümit@X.TEST'})`.execute(db)).rows, [{ id: 1 }]);
      assert.deepEqual((await sql<{ id: number }>`SELECT id FROM streams WHERE realm_id = 1 AND lower(name) = lower(${'роССИЯ'})`.execute(db)).rows, [{ id: 10 }]);
      await assert.rejects(db.insertInto('streams').values({ realm_id: 1, name: 'РОССИя', date_created: now } as never).execute(), /UNIQUE constraint failed/);
      assert.deepEqual((await sql<{ integrity_check: string }>`PRAGMA integrity_check`.execute(db)).rows, [{ integrity_check: 'ok' }]);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('0960: two accounts whose addresses differ only in case stop the upgrade, changing nothing', { skip }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-migrate-'));
  try {
    const { old, addUser } = await before0960(dataDir);
    addUser.run(1, 'user1@x.test', 'Ümit@x.test', 'k1');
    addUser.run(2, 'user2@x.test', 'ümit@x.test', 'k2');
    old.close();
    const store = openStore({ dataDir });
    try {
      await assert.rejects(migrate(store), /users 1 and 2 have e-mail addresses that differ only in case/);
      // The migration's transaction was rolled back: its indexes are still there, and it can be run again.
      const indexes = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND name IN ('users_delivery_email_lower', 'messages_topic')`.execute(store.db);
      assert.equal(indexes.rows.length, 2);
      const applied = await sql<{ name: string }>`SELECT name FROM kysely_migration WHERE name LIKE '0960%'`.execute(store.db);
      assert.deepEqual(applied.rows, []);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('0970: the search index keeps no copy of the messages and finds what it found before; later inserts, edits and deletes reach it', { skip }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-migrate-'));
  const store = openStore({ dataDir });
  try {
    await migrate(store, { until: '0960_unicode_lower_indexes' });
    await sql`PRAGMA foreign_keys = OFF`.execute(store.db);
    const add = (id: number, topic: string, content: string) =>
      sql`INSERT INTO messages (id, realm_id, sender_id, recipient_type, recipient_id, topic, content, rendered_content, date_sent) VALUES (${id}, 1, 1, 2, 10, ${topic}, ${content}, '', 1700000000)`.execute(store.db);
    await add(1, 'lunch', 'pizza is running late');
    await add(2, 'plans', 'sushi tomorrow');
    await add(3, 'lunch', 'pizza again');
    const found = async (q: string) => (await sql<{ rowid: number }>`SELECT rowid FROM messages_fts WHERE messages_fts MATCH ${q} ORDER BY rowid`.execute(store.db)).rows.map((r) => r.rowid);
    const shadowTables = async () => (await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE name LIKE 'messages_fts%' AND type = 'table' ORDER BY name`.execute(store.db)).rows.map((r) => r.name);
    assert.ok((await shadowTables()).includes('messages_fts_content'), 'before: a copy of the text');
    assert.deepEqual(await found('"pizza"'), [1, 3]);

    await migrate(store);
    assert.ok(!(await shadowTables()).includes('messages_fts_content'), 'after: no copy');
    assert.deepEqual(await found('"pizza"'), [1, 3]);
    assert.deepEqual(await found('"run"'), [1], 'stemmed as before');
    assert.deepEqual(await found('"lunch"'), [1, 3], 'topics too');
    assert.deepEqual(await found('"pizza is"'), [1], 'phrases');

    await add(4, 'dinner', 'pizza tonight');
    await sql`UPDATE messages SET content = 'pasta instead' WHERE id = 3`.execute(store.db);
    await sql`UPDATE messages SET topic = 'brunch' WHERE id = 1`.execute(store.db);
    await sql`DELETE FROM messages WHERE id = 2`.execute(store.db);
    assert.deepEqual(await found('"pizza"'), [1, 4]);
    assert.deepEqual(await found('"pasta"'), [3]);
    assert.deepEqual(await found('"lunch"'), [3]);
    assert.deepEqual(await found('"brunch"'), [1]);
    assert.deepEqual(await found('"sushi"'), []);
    const check = await sql<{ integrity_check: string }>`PRAGMA integrity_check`.execute(store.db);
    assert.deepEqual(check.rows, [{ integrity_check: 'ok' }]);
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('1070: user_messages keeps its rows, key and index without foreign keys; deleting a message still deletes its rows', { skip }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-migrate-'));
  const store = openStore({ dataDir });
  try {
    await migrate(store, { until: '1060_users_email_lower' });
    const db = store.db;
    const before = await sql<{ table: string }>`SELECT "table" FROM pragma_foreign_key_list('user_messages') ORDER BY "table"`.execute(db);
    assert.deepEqual(before.rows.map((r) => r.table), ['messages', 'users']);
    await sql`PRAGMA foreign_keys = OFF`.execute(db);
    const addMessage = (id: number) =>
      sql`INSERT INTO messages (id, realm_id, sender_id, recipient_type, recipient_id, topic, content, rendered_content, date_sent) VALUES (${id}, 1, 1, 2, 10, 't', 'x', '<p>x</p>', 1700000000)`.execute(db);
    for (let id = 1; id <= 5; id++) await addMessage(id);
    const rows = [];
    for (let user = 1; user <= 20; user++) for (let message = 1; message <= 5; message++) rows.push({ user_id: user, message_id: message, flags: (user + message) % 8 });
    await db.insertInto('user_messages').values(rows).execute();
    await sql`PRAGMA foreign_keys = ON`.execute(db);

    await migrate(store);
    const table = await sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'user_messages'`.execute(db);
    assert.match(table.rows[0]!.sql, /WITHOUT ROWID\s*$/);
    assert.doesNotMatch(table.rows[0]!.sql, /REFERENCES/);
    assert.deepEqual((await sql`SELECT * FROM pragma_foreign_key_list('user_messages')`.execute(db)).rows, []);
    const indexes = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'user_messages' AND sql IS NOT NULL`.execute(db);
    assert.deepEqual(indexes.rows.map((r) => r.name), ['user_messages_message']);
    const all = () => db.selectFrom('user_messages').select(['user_id', 'message_id', 'flags']).orderBy('user_id').orderBy('message_id').execute();
    assert.deepEqual(await all(), rows);
    await assert.rejects(db.insertInto('user_messages').values({ user_id: 1, message_id: 1, flags: 0 }).execute(), /UNIQUE constraint failed/);

    // A message deleted by any SQL takes its recipients' rows with it, and only its own.
    await sql`DELETE FROM messages WHERE id IN (2, 4)`.execute(db);
    assert.deepEqual(await all(), rows.filter((r) => r.message_id !== 2 && r.message_id !== 4));
    assert.deepEqual((await sql<{ integrity_check: string }>`PRAGMA integrity_check`.execute(db)).rows, [{ integrity_check: 'ok' }]);
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('PostgreSQL: migrations on a fresh schema succeed while another schema\'s tables change', { skip: process.env.TEST_DATABASE_URL ? false : 'PostgreSQL only' }, async () => {
  const url = process.env.TEST_DATABASE_URL!;
  const { default: pg } = await import('pg');
  const suffix = `${process.pid}_${Date.now().toString(36)}`;
  const ours = `mig_${suffix}`;
  const other = `churn_${suffix}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${ours}`);
  await admin.query(`CREATE SCHEMA ${other}`);
  // Another deployment migrating at the same time: its tables appear, grow columns and go.
  const churner = new pg.Client({ connectionString: url });
  await churner.connect();
  let churning = true;
  let churns = 0;
  const churn = (async () => {
    for (let i = 0; churning; i++) {
      await churner.query(`CREATE TABLE ${other}.t${i} (id serial PRIMARY KEY)`);
      await churner.query(`ALTER TABLE ${other}.t${i} ADD COLUMN c integer`);
      await churner.query(`DROP TABLE ${other}.t${i}`);
      churns++;
    }
  })();
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-migrate-'));
  const store = openStore({ dataDir, databaseUrl: url, pgSchema: ours });
  try {
    // Each run asks whether the migrator's tables exist; the first also creates everything.
    for (let i = 0; i < 40; i++) await migrate(store);
    const applied = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(store.db);
    // The same migrations as a fresh SQLite store records.
    const lite = openStore({ dataDir });
    await migrate(lite);
    const expected = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(lite.db);
    await lite.close();
    assert.ok(expected.rows.length > 20);
    assert.deepEqual(applied.rows, expected.rows);
    const { rows } = await admin.query(`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'bot_services' AND column_name = 'base_url'`, [ours]);
    assert.equal(rows[0].n, 1);
  } finally {
    churning = false;
    await churn;
    await churner.end();
    await store.close();
    await admin.query(`DROP SCHEMA ${ours} CASCADE`);
    await admin.query(`DROP SCHEMA ${other} CASCADE`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
  assert.ok(churns > 0);
});

test('1010: web_home_view "recent_topics" becomes "recent" in users\' settings and the organization\'s defaults', async () => {
  const url = process.env.TEST_DATABASE_URL;
  const schema = `mig1010_${process.pid}_${Date.now().toString(36)}`;
  const admin = url ? new (await import('pg')).default.Client({ connectionString: url }) : undefined;
  if (admin) {
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-migrate-'));
  const store = openStore(url ? { dataDir, databaseUrl: url, pgSchema: schema } : { dataDir });
  try {
    await migrate(store, { until: '1000_profile_field_user_matching' });
    const recentTopics = { web_home_view: 'recent_topics', enter_sends: true };
    const others = [{ web_home_view: 'inbox' }, { web_home_view: 'all_messages', emojiset: 'text' }, {}];
    const realm = await store.db.insertInto('realm').values({ string_id: '', name: 'R', date_created: 0, user_defaults_json: JSON.stringify(recentTopics) })
      .returning('id').executeTakeFirstOrThrow();
    const users = [recentTopics, ...others].map((s, i) => ({
      realm_id: realm.id, email: `u${i}@example.com`, delivery_email: `u${i}@example.com`, full_name: `U${i}`, api_key: `key${i}`, role: 400, date_joined: 0,
      settings_json: JSON.stringify(s),
    }));
    await store.db.insertInto('users').values(users).execute();
    await migrate(store);
    const rows = await store.db.selectFrom('users').select('settings_json').orderBy('id').execute();
    assert.deepEqual(rows.map((r) => JSON.parse(r.settings_json)), [{ web_home_view: 'recent', enter_sends: true }, ...others]);
    const r = await store.db.selectFrom('realm').select('user_defaults_json').executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(r.user_defaults_json), { web_home_view: 'recent', enter_sends: true });
  } finally {
    await store.close();
    if (admin) {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
});
