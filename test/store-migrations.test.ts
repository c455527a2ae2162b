/**
 * Migrations that rebuild a table keep its rows. SQLite only: PostgreSQL's
 * tables are not rebuilt.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
