/**
 * PostgreSQL: the store's change listener (db.ts) never holds up a close for
 * long, even when the database stops answering.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { openStore } from '../src/store/db.ts';

const url = process.env.TEST_DATABASE_URL;

test('closing the store drops a listening connection that no longer answers, after about 3 s', { skip: url ? false : 'PostgreSQL only', timeout: 30_000 }, async () => {
  const target = new URL(url!);
  // A TCP relay to the database that can stop relaying, as a dead network would.
  const links: Array<{ client: Socket; server: Socket }> = [];
  const sockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
  const relay = createServer((client) => {
    const server = connect(Number(target.port || 5432), target.hostname);
    client.pipe(server);
    server.pipe(client);
    client.on('error', () => {});
    server.on('error', () => {});
    links.push({ client, server });
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const via = new URL(url!);
  via.hostname = '127.0.0.1';
  via.port = String((relay.address() as AddressInfo).port);

  const store = openStore({ dataDir: '', databaseUrl: via.toString() });
  try {
    // The listener is up once changes made elsewhere are no longer assumed.
    const t0 = Date.now();
    while (store.changes.external() && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 20));
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
    for (const { client, server } of links) {
      client.destroy();
      server.destroy();
    }
    relay.close();
  }
});
