/**
 * PostgreSQL: cluster locks (store/locks.ts) hold pool connections while
 * the locked work queries on others of the same pool; at most all but one
 * connection hold such locks at once, so that work never waits for ever.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import pg from 'pg';
import { applicationName, openStore } from '../src/store/db.ts';
import { withClusterLock } from '../src/store/locks.ts';

const url = process.env.TEST_DATABASE_URL;

test('more jobs than the pool has connections take their locks and query at once: all finish', { skip: url ? false : 'PostgreSQL only', timeout: 60_000 }, async () => {
  // A pool of two, and three jobs (the server runs four such jobs; PARLEY_PG_POOL_MAX may be as low).
  const store = openStore({ dataDir: '', databaseUrl: url!, pgPoolMax: 2, pgSchema: `locks_${process.pid}` });
  const prefix = `cluster-locks-test-${process.pid}-${Date.now()}`;
  try {
    let holding = 0;
    let most = 0;
    const job = (i: number) =>
      withClusterLock(store, `${prefix}-${i}`, { wait: false }, async () => {
        most = Math.max(most, ++holding);
        // Each job queries only after the others had time to take their locks, as jobs started by one timer tick may.
        await new Promise((r) => setTimeout(r, 200));
        const r = await sql<{ n: number }>`SELECT ${i}::int AS n`.execute(store.db);
        holding--;
        return r.rows[0].n;
      });
    let timer!: NodeJS.Timeout;
    const stuck = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the jobs wait for ever for a connection')), 10_000)));
    const results = await Promise.race([Promise.all([job(0), job(1), job(2)]), stuck]).finally(() => clearTimeout(timer));
    assert.deepEqual(results, [0, 1, 2]);
    assert.equal(most, 1, 'one of the two connections stays free of locks');
    // The locks were released: another taker gets each at once.
    for (let i = 0; i < 3; i++) assert.equal(await withClusterLock(store, `${prefix}-${i}`, { wait: false }, async () => 'taken'), 'taken');
  } finally {
    // (Bounded: with jobs stuck on the pool, closing it would wait for them too.)
    await Promise.race([store.close(), new Promise((r) => setTimeout(r, 2_000).unref())]);
  }
});

test('PostgreSQL ending the connection that holds a lock: the process carries on, reports the loss, and the pool serves again', { skip: url ? false : 'PostgreSQL only', timeout: 60_000 }, async () => {
  const lost: Error[] = [];
  const store = openStore({ dataDir: '', databaseUrl: url!, pgPoolMax: 2, pgSchema: `locks_${process.pid}`, onConnectionLost: (e) => lost.push(e) });
  const name = `cluster-locks-ended-${process.pid}-${Date.now()}`;
  const outside = new pg.Client({ connectionString: url!, application_name: 'cluster-locks test' });
  await outside.connect();
  try {
    // While the job runs, its lock's connection is checked out of the pool and idle: an administrator (or a restart) ends it.
    const held = withClusterLock(store, name, { wait: false }, async () => {
      await outside.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [applicationName()]);
      await new Promise((r) => setTimeout(r, 500));
      return 'ran';
    });
    // Releasing the lock on the ended connection fails; the job's caller hears of it, the process does not end.
    await assert.rejects(held);
    assert.ok(lost.length >= 1, 'the loss is reported');
    const r = await sql<{ n: number }>`SELECT 1::int AS n`.execute(store.db);
    assert.equal(r.rows[0].n, 1);
    // The ended session's lock went with it.
    assert.equal(await withClusterLock(store, name, { wait: false }, async () => 'taken'), 'taken');
  } finally {
    await outside.end();
    await Promise.race([store.close(), new Promise((r) => setTimeout(r, 2_000).unref())]);
  }
});
