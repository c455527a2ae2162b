/**
 * PostgreSQL: the store's change listener (db.ts) never holds up a close for
 * long, even when the database stops answering.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { openStore } from '../src/store/db.ts';
import { databaseRelay } from './helpers.ts';

const url = process.env.TEST_DATABASE_URL;

type Store = ReturnType<typeof openStore>;

/** Waits (up to 10 s) until each store's listener is up: changes made elsewhere are then no longer assumed. */
async function listening(...stores: Store[]): Promise<void> {
  const t0 = Date.now();
  while (stores.some((s) => s.changes.external()) && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 20));
}

// First in this file: Node prints a warning once per process.
test('writes that commit close together announce themselves one query at a time (pg warns of overlapping queries, which pg 9 refuses)', { skip: url ? false : 'PostgreSQL only', timeout: 30_000 }, async () => {
  const { default: pg } = await import('pg');
  const schema = `lst_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  // A table whose writes are announced (ANNOUNCED_TABLES in changes.ts); only the name matters here.
  await admin.query(`CREATE TABLE ${schema}.alert_words (id integer)`);
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.message);
  process.on('warning', onWarning);
  const store = openStore({ dataDir: '', databaseUrl: url!, pgSchema: schema });
  // Another process listening on the same channel sees every notice.
  const other = openStore({ dataDir: '', databaseUrl: url!, pgSchema: schema });
  try {
    await listening(store, other);
    const before = other.changes.stamp(['alert_words']);
    await Promise.all(Array.from({ length: 20 }, (_, i) => sql`INSERT INTO alert_words VALUES (${i})`.execute(store.db)));
    for (let i = 0; i < 100 && other.changes.stamp(['alert_words']) === before; i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(other.changes.stamp(['alert_words']) > before, 'the other store heard of the writes');
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(warnings.filter((m) => /client\.query/.test(m)), []);
  } finally {
    process.off('warning', onWarning);
    await store.close();
    await other.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
});

test('closing the store drops a listening connection that no longer answers, after about 3 s', { skip: url ? false : 'PostgreSQL only', timeout: 30_000 }, async () => {
  // A TCP relay to the database that can stop relaying, as a dead network would.
  const relay = await databaseRelay(url!);
  const links = relay.links;
  const sockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;

  const store = openStore({ dataDir: '', databaseUrl: relay.url });
  try {
    await listening(store);
    assert.equal(store.changes.external(), false, 'the listener connected');
    assert.equal(links.length, 1, 'only the listener has connected (the pool connects on its first query)');

    // Paused, the relay reads nothing more: neither the goodbye nor the end of the stream, as over a dead network.
    for (const { client, server } of links) {
      client.unpipe(server);
      server.unpipe(client);
      client.pause();
      server.pause();
    }
    const open = sockets(); // the listener's, and the relay's two
    const started = Date.now();
    await store.close();
    const took = Date.now() - started;
    assert.ok(took >= 2_500 && took < 6_000, `close took ${took} ms`);
    for (let i = 0; i < 50 && sockets() >= open; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(sockets(), open - 1, "the listener's socket was dropped");
  } finally {
    relay.close();
  }
});
