/**
 * Several Parley processes on one PostgreSQL database and one Redis, as
 * separate child processes: a scheduled message goes out once with three
 * live nodes; a queue outlives the node that registered it (kill -9).
 * Needs TEST_DATABASE_URL and TEST_REDIS_URL (skipped otherwise).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Client, assertSuccess, createPgSchema, dropPgSchema, redisProxy, settledWithin, sleep, spawnNode, stopNode, zuliprcAccount, type NodeProcess, streamIdOf } from './helpers.ts';
import { deleteKeysWithPrefix } from '../src/lib/redis.ts';

const dbUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const skip = !dbUrl || !redisUrl ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL' : false;

const unique = `${process.pid}_${randomBytes(3).toString('hex')}`;
const schema = `cluster_${unique}`;
const prefix = `parley-test:cluster_${unique}:`;
let dataDir: string;
let nodes: NodeProcess[] = [];
let account: { email: string; apiKey: string };

const env = (): Record<string, string> => ({
  DATA_DIR: dataDir,
  DATABASE_URL: dbUrl!,
  PARLEY_PG_SCHEMA: schema,
  REDIS_URL: redisUrl!,
  PARLEY_REDIS_PREFIX: prefix,
  PARLEY_OWNER_EMAIL: 'owner@example.com',
  PARLEY_OWNER_PASSWORD: 'owner-password-123',
  PARLEY_API_RATE_LIMIT_PER_MINUTE: '0',
});

before(async () => {
  if (skip) return;
  dataDir = mkdtempSync(join(tmpdir(), 'parley-cluster-'));
  await createPgSchema(dbUrl!, schema);
  // The first node creates the organization; the others find it.
  nodes.push(await spawnNode(env()));
  nodes.push(...(await Promise.all([spawnNode(env()), spawnNode(env())])));
  account = zuliprcAccount(dataDir);
});

after(async () => {
  if (skip) return;
  await Promise.all(nodes.map((n) => stopNode(n)));
  await dropPgSchema(dbUrl!, schema);
  await deleteKeysWithPrefix(redisUrl!, prefix);
  rmSync(dataDir, { recursive: true, force: true });
});

/** Polls a queue until `count` message events have arrived (or 60 polls). */
async function collectMessages(c: Client, queueId: string, count: number): Promise<any[]> {
  const got: any[] = [];
  let last = -1;
  for (let i = 0; i < 60 && got.filter((e) => e.type === 'message').length < count; i++) {
    const r = assertSuccess(await c.get('/events', { queue_id: queueId, last_event_id: last, dont_block: i > 0 ? false : true }));
    for (const e of r.events) got.push(e);
    if (r.events.length) last = r.events[r.events.length - 1].id;
  }
  return got;
}

test('a scheduled message is delivered exactly once with three live nodes', { skip }, async () => {
  const [a, b, c] = nodes.map((n) => new Client(n.url, account));
  const q = assertSuccess(await c.post('/register', { event_types: ['message'] }));
  const content = `scheduled once ${randomBytes(4).toString('hex')}`;
  const when = Math.floor(Date.now() / 1000) + 2;
  const general = await streamIdOf(a, 'general');
  assertSuccess(await a.post('/scheduled_messages', { type: 'stream', to: general, topic: 'cluster', content, scheduled_delivery_timestamp: when }));
  const events = await collectMessages(b, q.queue_id, 1);
  assert.deepEqual(events.filter((e) => e.type === 'message').map((e) => e.message.content), [content]);
  // Every node's timer has had several chances to send it again by now.
  await sleep(2500);
  const narrow = JSON.stringify([{ operator: 'search', operand: content.split(' ').pop() }]);
  const found = assertSuccess(await c.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow }));
  assert.equal(found.messages.length, 1, 'one message in the channel');
  const more = assertSuccess(await a.get('/events', { queue_id: q.queue_id, last_event_id: events[events.length - 1].id, dont_block: true }));
  assert.deepEqual(more.events.filter((e: any) => e.type === 'message'), [], 'no second message event');
});

test('a queue outlives the node that registered it (kill -9): all events arrive in order, once', { skip }, async () => {
  const [nodeA, nodeB, nodeC] = nodes;
  const a = new Client(nodeA.url, account);
  const q = assertSuccess(await a.post('/register', { event_types: ['message'] }));
  nodeA.proc.kill('SIGKILL');
  await nodeA.exited;
  const b = new Client(nodeB.url, account);
  const sent: number[] = [];
  for (let i = 0; i < 20; i++) {
    const r = assertSuccess(await b.post('/messages', { type: 'stream', to: 'general', topic: 'failover', content: `message ${i}` }));
    sent.push(r.id);
  }
  const c = new Client(nodeC.url, account);
  const events = (await collectMessages(c, q.queue_id, 20)).filter((e) => e.type === 'message');
  assert.deepEqual(events.map((e) => e.message.id), sent);
  const ids = events.map((e) => e.id);
  assert.deepEqual(ids, [...ids].sort((x, y) => x - y), 'event ids increase');
  assert.equal(new Set(ids).size, ids.length, 'no duplicate events');
});

test('PARLEY_WORKERS=2: two worker processes on one port, registered as nodes, stopped by SIGTERM', { skip }, async () => {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  const pids = async (): Promise<number[]> => (await db.query(`SELECT pid FROM ${schema}.cluster_nodes ORDER BY pid`)).rows.map((r) => Number(r.pid));
  try {
    const before = await pids();
    let workers: number[] = [];
    const primary = await spawnNode({ ...env(), PARLEY_WORKERS: '2' });
    try {
      assert.match(primary.output(), /Parley listening on http:\/\/127\.0\.0\.1:\d+ \(postgres, 2 workers\)/);
      workers = (await pids()).filter((p) => !before.includes(p));
      assert.equal(workers.length, 2, 'two worker nodes');
      assert.ok(!workers.includes(primary.proc.pid!), 'the primary serves nothing itself');
      // Both workers answer on the one port and share queues.
      const c = new Client(primary.url, account);
      const q = assertSuccess(await c.post('/register', { event_types: ['message'] }));
      for (let i = 0; i < 6; i++) assertSuccess(await c.post('/messages', { type: 'stream', to: 'general', topic: 'workers', content: `w ${i}` }));
      const events = (await collectMessages(c, q.queue_id, 6)).filter((e) => e.type === 'message');
      assert.deepEqual(events.map((e) => e.message.content), [0, 1, 2, 3, 4, 5].map((i) => `w ${i}`));
    } finally {
      await stopNode(primary);
    }
    assert.equal((await primary.exited).code, 0, primary.output());
    assert.deepEqual((await pids()).filter((p) => workers.includes(p)), [], 'the workers deregistered');
  } finally {
    await db.end();
  }
});

test('PARLEY_WORKERS without REDIS_URL refuses to start and says why', { skip }, async () => {
  const { REDIS_URL: _, ...noRedis } = env();
  const message = await spawnNode({ ...noRedis, PARLEY_WORKERS: '2' }).then(
    async (n) => (await stopNode(n), 'started'),
    (e: Error) => e.message,
  );
  assert.match(message, /exited before listening \(code 1/);
  assert.match(message, /Parley cannot start: PARLEY_WORKERS needs DATABASE_URL \(PostgreSQL\) and REDIS_URL/);
});

/** `p`, or a failure with the node's log if it has not settled within 15 s. */
async function answer<T>(node: NodeProcess, what: string, p: Promise<T>): Promise<T> {
  const got = await settledWithin(p, 15_000);
  if (got === 'pending') assert.fail(`${what}: no answer within 15 s\n${node.output()}`);
  if (got.error) throw got.error;
  return got.value as T;
}

/** Asks for GET /users/me every 100 ms until it succeeds (100 tries at most). */
async function servingAgain(c: Client, node: NodeProcess): Promise<void> {
  let status = 0;
  for (let i = 0; i < 100 && status !== 200; i++) {
    status = (await c.get('/users/me')).status;
    if (status !== 200) await sleep(100);
  }
  assert.equal(status, 200, node.output());
}

test('Redis cut off and back: the node logs it once per connection, then serves and delivers again', { skip }, async () => {
  const proxy = await redisProxy(redisUrl!);
  const node = await spawnNode({ ...env(), REDIS_URL: proxy.url });
  nodes.push(node);
  const viaProxy = new Client(node.url, account);
  const q = assertSuccess(await viaProxy.post('/register', { event_types: ['message'] }));

  proxy.cut();
  const lost = () => node.output().match(/Redis connection lost/g)?.length ?? 0;
  for (let i = 0; i < 200 && lost() === 0; i++) await sleep(50);
  assert.ok(lost() >= 1, node.output());
  await sleep(1000); // ioredis keeps trying meanwhile
  proxy.restore();
  try {
    await servingAgain(viaProxy, node);
    // A message sent through another node reaches the queue read through this one.
    const other = new Client(nodes.find((n) => n !== node && n.proc.exitCode === null && n.proc.signalCode === null)!.url, account);
    const content = `after the cut ${randomBytes(4).toString('hex')}`;
    assertSuccess(await other.post('/messages', { type: 'stream', to: 'general', topic: 'redis', content }));
    const events = await collectMessages(viaProxy, q.queue_id, 1);
    assert.deepEqual(events.filter((e) => e.type === 'message').map((e) => e.message.content), [content]);
    assert.ok(lost() <= 2, `one line per connection (commands, subscriber):\n${node.output()}`);
    assert.doesNotMatch(node.output(), /Unhandled error event/);
  } finally {
    await stopNode(node);
    await proxy.close();
  }
});

test('a Redis blip: requests that come while the node connects again wait for it and succeed; in a longer outage they fail within seconds', { skip }, async () => {
  const proxy = await redisProxy(redisUrl!);
  const node = await spawnNode({ ...env(), REDIS_URL: proxy.url });
  nodes.push(node);
  const c = new Client(node.url, account);
  const q = assertSuccess(await c.post('/register', { event_types: ['message'] }));
  const lost = () => node.output().match(/Redis connection lost/g)?.length ?? 0;
  const cutAndWait = async () => {
    const before = lost();
    proxy.cut();
    for (let i = 0; i < 200 && lost() === before; i++) await sleep(10);
    assert.ok(lost() > before, node.output());
  };
  try {
    await cutAndWait();
    const content = `during the blip ${randomBytes(4).toString('hex')}`;
    const during = Promise.all([answer(node, 'GET /users/me in the blip', c.get('/users/me')), answer(node, 'the send in the blip', c.post('/messages', { type: 'stream', to: 'general', topic: 'redis', content }))]);
    await sleep(300);
    proxy.restore();
    const [me, sent] = await during;
    assert.equal(me.status, 200, node.output());
    assertSuccess(sent);
    const events = await answer(node, 'the message event', collectMessages(c, q.queue_id, 1));
    assert.deepEqual(events.filter((e) => e.type === 'message').map((e) => e.message.content), [content]);

    // Redis stays away: requests wait for it two seconds from the loss, then fail with the server's error; later ones at once.
    await cutAndWait();
    const cut = Date.now();
    const r = await answer(node, 'GET /users/me in the outage', c.get('/users/me'));
    assert.equal(r.status, 500, node.output());
    assert.ok(Date.now() - cut < 4000, `answered ${Date.now() - cut} ms after the cut`);
    const again = Date.now();
    assert.equal((await answer(node, 'the next GET /users/me', c.get('/users/me'))).status, 500);
    assert.ok(Date.now() - again < 1000, `answered after ${Date.now() - again} ms`);
    proxy.restore();
  } finally {
    await stopNode(node);
    await proxy.close();
  }
});

test('Redis gone with the node\'s reads of it unanswered: its requests still fail within seconds, and succeed once it is back', { skip }, async () => {
  const proxy = await redisProxy(redisUrl!);
  const node = await spawnNode({ ...env(), REDIS_URL: proxy.url });
  nodes.push(node);
  const c = new Client(node.url, account);
  try {
    assertSuccess(await c.get('/users/me'));
    // What the node sends from now on goes unanswered: the scheduled-message
    // pass's read of the change feed (every second), which the requests that
    // come after it wait for. Then the connection drops and Redis stays away.
    proxy.hold();
    await sleep(1500);
    proxy.cut();
    const cut = Date.now();
    const r = await answer(node, 'GET /users/me after the cut', c.get('/users/me'));
    assert.equal(r.status, 500, node.output());
    assert.ok(Date.now() - cut < 4000, `answered ${Date.now() - cut} ms after the cut`);
    proxy.restore();
    await servingAgain(c, node);
  } finally {
    await stopNode(node);
    await proxy.close();
  }
});

test('SIGTERM while Redis is unreachable: the node still exits within seconds', { skip }, async () => {
  const proxy = await redisProxy(redisUrl!);
  const node = await spawnNode({ ...env(), REDIS_URL: proxy.url });
  nodes.push(node);
  try {
    assertSuccess(await new Client(node.url, account).get('/users/me'));
    proxy.cut();
    // Long enough for ioredis's reconnection attempts to be seconds apart, as in a real outage.
    await sleep(5000);
    node.proc.kill('SIGTERM');
    // Commands to a Redis that is down fail at once instead of waiting for
    // ioredis's reconnection attempts (a periodic job's pass held the shutdown
    // 20 s and more), and the shutdown drops such connections instead of
    // sending them a last command.
    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([node.exited, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 20_000)))]);
    clearTimeout(timer);
    assert.ok(exit, `still running 20 s after SIGTERM:\n${node.output()}`);
    assert.equal(exit.code, 0, node.output());
  } finally {
    await stopNode(node);
    await proxy.close();
  }
});
