/**
 * PostgreSQL: idle pooled connections that the database has ended, when the
 * process has not yet read their goodbye (db.ts, retryingEndedConnections).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import pg from 'pg';
import { openStore } from '../src/store/db.ts';
import { databaseRelay } from './helpers.ts';

const url = process.env.TEST_DATABASE_URL;

/**
 * A TCP relay to the database that can hold back what the database sends
 * (its goodbye to an ended connection, and the connection's end) until the
 * process next writes on that connection, as when the goodbye is still in
 * flight when a request takes the connection.
 */
async function relay() {
  const r = await databaseRelay(url!);
  return {
    url: r.url,
    hold() {
      for (const { client, server: upstream } of r.links) {
        // (What the process then writes is not passed on: the database's answer, a reset, would drop the goodbye.)
        client.unpipe(upstream);
        upstream.unpipe(client);
        upstream.pause();
        client.once('data', () => {
          upstream.pipe(client);
          upstream.resume();
        });
        client.resume();
      }
    },
    close: r.close,
  };
}

/** A store on its own schema, through a relay, whose idle connections a test can end. */
async function endedConnections() {
  const schema = `ended_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: url, application_name: 'ended-connections test' });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(`CREATE TABLE ${schema}.alert_words (id integer)`);
  const r = await relay();
  const lost: Error[] = [];
  const store = openStore({ dataDir: '', databaseUrl: r.url, pgSchema: schema, pgPoolMax: 3, onConnectionLost: (e) => lost.push(e) });
  const name = `ended-${schema}`;
  const pids: number[] = [];
  return {
    store,
    lost,
    /** Three connections open and idle in the pool. */
    async warm() {
      await Promise.all([1, 2, 3].map(() => sql`SELECT pg_sleep(0.05), set_config('application_name', ${name}, false)`.execute(store.db)));
      pids.splice(0, pids.length, ...(await admin.query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1`, [name])).rows.map((x) => x.pid as number));
      assert.equal(pids.length, 3);
    },
    /** Ends the warmed connections; the process hears of it only when it next writes on one. */
    async end() {
      r.hold();
      await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
      for (let i = 0; i < 200; i++) {
        const left = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY($1::int[])', [pids]);
        if (left.rows[0].n === 0) return;
        await new Promise((res) => setTimeout(res, 20));
      }
      assert.fail('the connections were not ended');
    },
    async rows() {
      return (await admin.query(`SELECT id FROM ${schema}.alert_words ORDER BY id`)).rows.map((x) => x.id as number);
    },
    async close() {
      await Promise.race([store.close(), new Promise((res) => setTimeout(res, 2_000).unref())]);
      r.close();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

test('a request that takes ended connections from the pool: a read or a transaction runs on a new one; a write outside a transaction is not sent again', { skip: url ? false : 'PostgreSQL only', timeout: 60_000 }, async () => {
  const t = await endedConnections();
  const { store, lost } = t;
  try {
    await t.warm();
    await t.end();
    assert.deepEqual(lost, [], 'the process has not heard of it yet');
    const one = await sql<{ n: number }>`SELECT 1::int AS n`.execute(store.db);
    assert.equal(one.rows[0].n, 1);
    assert.ok(lost.length >= 1, 'the ended connection it found is reported');

    // Again, with a transaction first.
    await t.warm();
    await t.end();
    await store.db.transaction().execute((tx) => sql`INSERT INTO alert_words VALUES (1)`.execute(tx));
    assert.deepEqual(await t.rows(), [1]);

    // A write outside a transaction whose connection ended fails rather than being sent twice.
    await t.warm();
    await t.end();
    await assert.rejects(sql`INSERT INTO alert_words VALUES (2)`.execute(store.db), (e: { code?: string }) => e.code === '57P01');
    assert.deepEqual(await t.rows(), [1]);
    // The pool serves again.
    assert.equal((await sql<{ n: number }>`SELECT 2::int AS n`.execute(store.db)).rows[0].n, 2);
  } finally {
    await t.close();
  }
});

test('a connection ended right after a transaction began: the transaction begins again on a new one; after its first statement, it fails', { skip: url ? false : 'PostgreSQL only', timeout: 60_000 }, async () => {
  const t = await endedConnections();
  const { store, lost } = t;
  try {
    await t.warm();
    const answered: number[] = [];
    await store.db.transaction().execute(async (tx) => {
      // BEGIN has run on the connection; it ends before the transaction's first statement.
      await t.end();
      const a = await sql<{ id: number }>`INSERT INTO alert_words VALUES (3) RETURNING id`.execute(tx);
      const b = await sql<{ id: number }>`INSERT INTO alert_words VALUES (4) RETURNING id`.execute(tx);
      answered.push(a.rows[0].id, b.rows[0].id);
    });
    assert.deepEqual(answered, [3, 4]);
    assert.deepEqual(await t.rows(), [3, 4], 'each statement ran once, in one committed transaction');
    assert.ok(lost.length >= 1, 'the ended connection is reported');

    // A transaction that has run a statement is not begun again: its loss fails it, and it leaves nothing.
    await t.warm();
    await assert.rejects(
      store.db.transaction().execute(async (tx) => {
        await sql`INSERT INTO alert_words VALUES (5)`.execute(tx);
        await t.end();
        await sql`INSERT INTO alert_words VALUES (6)`.execute(tx);
      }),
      // (The failed ROLLBACK's error, the connection's end, is what Kysely reports.)
      (e: { code?: string; message?: string }) => e.code === '57P01' || /Connection terminated/.test(String(e.message)),
    );
    assert.deepEqual(await t.rows(), [3, 4]);
    assert.equal((await sql<{ n: number }>`SELECT 3::int AS n`.execute(store.db)).rows[0].n, 3);
  } finally {
    await t.close();
  }
});
