/**
 * The presence sequence written by several processes
 * (upsertPresenceRowsInSequence, what SharedPresence writes with): values
 * are unique and committed in increasing order, so an incremental reader
 * (a client polling with last_update_id) never skips a change. Two stores
 * on their own connections stand for two processes on PostgreSQL
 * (TEST_DATABASE_URL); on SQLite one store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { openStore, type Store } from '../src/store/db.ts';
import { migrate } from '../src/store/migrations.ts';
import { presenceRowsOfRealmSince, upsertPresenceRowsInSequence } from '../src/store/presence.ts';

const dbUrl = process.env.TEST_DATABASE_URL;
const USERS = 80;

/** Stores on a new database (PostgreSQL: a new schema, `count` stores; SQLite: one), with a realm and USERS users. */
async function withStores(count: number, fn: (stores: Store[], realmId: number, userIds: number[]) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-presence-seq-'));
  const schema = `presence_seq_${process.pid}_${randomBytes(3).toString('hex')}`;
  if (dbUrl) {
    const c = new pg.Client({ connectionString: dbUrl });
    await c.connect();
    await c.query(`CREATE SCHEMA ${schema}`);
    await c.end();
  }
  const stores: Store[] = [];
  try {
    for (let i = 0; i < (dbUrl ? count : 1); i++) stores.push(openStore({ dataDir, databaseUrl: dbUrl, pgSchema: dbUrl ? schema : undefined }));
    const db = stores[0]!.db;
    await migrate(stores[0]!);
    const now = Math.floor(Date.now() / 1000);
    const realm = await db.insertInto('realm').values({ string_id: 'seq', name: 'Sequence', date_created: now }).returning('id').executeTakeFirstOrThrow();
    const users = await db
      .insertInto('users')
      .values(
        Array.from({ length: USERS }, (_, i) => ({
          realm_id: realm.id,
          email: `u${i}@example.com`,
          delivery_email: `u${i}@example.com`,
          full_name: `User ${i}`,
          api_key: randomBytes(16).toString('hex'),
          role: 400,
          date_joined: now,
          settings_json: '{}',
        })),
      )
      .returning('id')
      .execute();
    await fn(stores, realm.id, users.map((u) => u.id));
  } finally {
    await Promise.all(stores.map((s) => s.close()));
    if (dbUrl) {
      const c = new pg.Client({ connectionString: dbUrl });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

test('presence sequence: concurrent writers commit unique values in order; an incremental reader misses none', async () => {
  await withStores(2, async (stores, realmId, userIds) => {
    const now = Math.floor(Date.now() / 1000);
    const row = (userId: number) => ({ user_id: userId, realm_id: realmId, last_active_time: now, last_connected_time: now, last_update_id: 0 });
    // Each user's row written once, in writes of one to three rows, all at once from every store.
    const writes: Array<ReturnType<typeof row>[]> = [];
    for (let i = 0; i < userIds.length; ) {
      const n = 1 + (i % 3);
      writes.push(userIds.slice(i, i + n).map(row));
      i += n;
    }
    let writing = true;
    const seen = new Map<number, number>(); // update id -> user id
    let watermark = 0;
    const poll = async () => {
      const rows = await presenceRowsOfRealmSince(stores[stores.length - 1]!.db, realmId, watermark);
      for (const r of rows) {
        assert.ok(!seen.has(r.last_update_id) || seen.get(r.last_update_id) === r.user_id, `update id ${r.last_update_id} given twice`);
        seen.set(r.last_update_id, r.user_id);
        // What a client polling with last_update_id keeps: the largest value it was given.
        if (r.last_update_id > watermark) watermark = r.last_update_id;
      }
    };
    const reader = (async () => {
      while (writing) {
        await poll();
        await new Promise((r) => setImmediate(r));
      }
    })();
    await Promise.all(writes.map((rows, i) => upsertPresenceRowsInSequence(stores[i % stores.length]!, realmId, rows)));
    writing = false;
    await reader;
    await poll();

    // The values the writes set on their rows: 1..USERS, each once.
    const given = writes.flat().map((r) => r.last_update_id);
    assert.deepEqual([...given].sort((a, b) => a - b), Array.from({ length: USERS }, (_, i) => i + 1));
    const stored = await stores[0]!.db.selectFrom('user_presence').select(['user_id', 'last_update_id']).where('realm_id', '=', realmId).execute();
    assert.equal(stored.length, USERS);
    for (const r of stored) assert.equal(seen.get(Number(r.last_update_id)), r.user_id, `the reader skipped update ${r.last_update_id}`);
  });
});

test('presence sequence: a write continues from the largest stored value', async () => {
  await withStores(1, async ([store], realmId, [a, b]) => {
    const now = Math.floor(Date.now() / 1000);
    await sql`INSERT INTO user_presence (user_id, realm_id, last_active_time, last_connected_time, last_update_id) VALUES (${a}, ${realmId}, ${now}, ${now}, 41)`.execute(store!.db);
    const rows = [{ user_id: b!, realm_id: realmId, last_active_time: null, last_connected_time: now, last_update_id: 0 }];
    await upsertPresenceRowsInSequence(store!, realmId, rows);
    assert.equal(rows[0]!.last_update_id, 42);
    const again = [{ user_id: a!, realm_id: realmId, last_active_time: now + 60, last_connected_time: now + 60, last_update_id: 0 }];
    await upsertPresenceRowsInSequence(store!, realmId, again);
    assert.equal(again[0]!.last_update_id, 43);
    const stored = await store!.db.selectFrom('user_presence').select(['user_id', 'last_active_time', 'last_update_id']).where('realm_id', '=', realmId).orderBy('user_id').execute();
    assert.deepEqual(
      stored.map((r) => [r.user_id, Number(r.last_active_time ?? 0), Number(r.last_update_id)]),
      [
        [a, now + 60, 43],
        [b, 0, 42],
      ],
    );
  });
});
