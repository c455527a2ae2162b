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

test('a request that takes ended connections from the pool: a read or a transaction runs on a new one; a write outside a transaction is not sent again', { skip: url ? false : 'PostgreSQL only', timeout: 60_000 }, async () => {
  const schema = `ended_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: url, application_name: 'ended-connections test' });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(`CREATE TABLE ${schema}.alert_words (id integer)`);
  const r = await relay();
  const lost: Error[] = [];
  const store = openStore({ dataDir: '', databaseUrl: r.url, pgSchema: schema, pgPoolMax: 3, onConnectionLost: (e) => lost.push(e) });
  const name = `ended-${schema}`;
  try {
    // Three connections open and idle in the pool.
    await Promise.all([1, 2, 3].map(() => sql`SELECT pg_sleep(0.05), set_config('application_name', ${name}, false)`.execute(store.db)));
    const pids = (await admin.query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1`, [name])).rows.map((x) => x.pid as number);
    assert.equal(pids.length, 3);
    const end = async () => {
      r.hold();
      await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
      for (let i = 0; i < 200; i++) {
        const left = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY($1::int[])', [pids]);
        if (left.rows[0].n === 0) return;
        await new Promise((res) => setTimeout(res, 20));
      }
      assert.fail('the connections were not ended');
    };
    await end();
    assert.deepEqual(lost, [], 'the process has not heard of it yet');
    const one = await sql<{ n: number }>`SELECT 1::int AS n`.execute(store.db);
    assert.equal(one.rows[0].n, 1);
    assert.ok(lost.length >= 1, 'the ended connection it found is reported');

    // Again, with a transaction first.
    await Promise.all([1, 2, 3].map(() => sql`SELECT pg_sleep(0.05), set_config('application_name', ${name}, false)`.execute(store.db)));
    pids.splice(0, pids.length, ...(await admin.query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1`, [name])).rows.map((x) => x.pid as number));
    await end();
    await store.db.transaction().execute((tx) => sql`INSERT INTO alert_words VALUES (1)`.execute(tx));
    assert.deepEqual((await admin.query(`SELECT id FROM ${schema}.alert_words`)).rows, [{ id: 1 }]);

    // A write outside a transaction whose connection ended fails rather than being sent twice.
    await Promise.all([1, 2, 3].map(() => sql`SELECT pg_sleep(0.05), set_config('application_name', ${name}, false)`.execute(store.db)));
    pids.splice(0, pids.length, ...(await admin.query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1`, [name])).rows.map((x) => x.pid as number));
    await end();
    await assert.rejects(sql`INSERT INTO alert_words VALUES (2)`.execute(store.db), (e: { code?: string }) => e.code === '57P01');
    assert.deepEqual((await admin.query(`SELECT id FROM ${schema}.alert_words`)).rows, [{ id: 1 }]);
    // The pool serves again.
    assert.equal((await sql<{ n: number }>`SELECT 2::int AS n`.execute(store.db)).rows[0].n, 2);
  } finally {
    await Promise.race([store.close(), new Promise((res) => setTimeout(res, 2_000).unref())]);
    r.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
});
