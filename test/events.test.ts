/**
 * The event queue contract over HTTP: POST /register, GET /events (long-poll,
 * heartbeat, acknowledgement), DELETE /events, queue errors, idle collection,
 * event_types filtering and clients that disconnect mid-poll.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startTestServer,
  assertError,
  assertSuccess,
  assertSchema,
  openQueue,
  sleep,
  type Account,
  type Client,
  type TestServer,
} from './helpers.ts';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(() => t.close());

/** Waits (without asserting on time) until `cond` holds. */
async function until(cond: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await cond()) return;
    await sleep(10);
  }
  assert.fail(`timed out waiting until ${what}`);
}

const isWaiting = (srv: TestServer, queueId: string): Promise<boolean> => srv.server.svc.queues.isWaiting(queueId);

/** Causes one event for every active user (a user_status change by `who`). */
async function causeEvent(srv: TestServer, who: Account, text: string): Promise<void> {
  assertSuccess(await srv.client(who).post('/users/me/status', { status_text: text }));
}

async function register(c: Client, params: Record<string, unknown> = {}) {
  const res = await c.post('/register', params);
  assertSuccess(res);
  return res;
}

test('register: queue id, last_event_id, versions and the whole initial state', async () => {
  const res = await register(t.client(t.owner));
  assertSchema(res, 'POST', '/register');
  const b = res.body;
  assert.equal(typeof b.queue_id, 'string');
  assert.ok(b.queue_id.length > 0);
  assert.equal(b.last_event_id, -1);
  assert.equal(b.zulip_feature_level, 483);
  assert.equal(typeof b.zulip_version, 'string');
  assert.equal(typeof b.zulip_merge_base, 'string');
  assert.ok('realm_users' in b && 'realm_name' in b && 'user_status' in b, 'all state without event_types');
});

test('register: only the requested state types', async () => {
  const c = t.client(t.owner);
  const base = new Set(['result', 'msg', 'queue_id', 'last_event_id', 'idle_queue_timeout_secs', 'zulip_version', 'zulip_feature_level', 'zulip_merge_base']);
  const extra = (body: Record<string, unknown>) => Object.keys(body).filter((k) => !base.has(k)).sort();

  const onlyStatus = await register(c, { fetch_event_types: ['user_status'] });
  assert.deepEqual(extra(onlyStatus.body), ['user_status']);
  assertSchema(onlyStatus, 'POST', '/register');

  // Without fetch_event_types, event_types decides both the events and the state.
  const viaEventTypes = await register(c, { event_types: ['user_status'] });
  assert.deepEqual(extra(viaEventTypes.body), ['user_status']);

  // fetch_event_types wins over event_types for the state.
  const both = await register(c, { event_types: ['user_status'], fetch_event_types: ['realm_user'] });
  const keys = extra(both.body);
  assert.ok(keys.includes('realm_users') && !keys.includes('user_status') && !keys.includes('realm_name'), keys.join(','));
  assertSchema(both, 'POST', '/register');

  const none = await register(c, { event_types: [] });
  assert.deepEqual(extra(none.body), []);
});

test('GET /events with dont_block answers at once; a blocking poll returns when an event arrives', async () => {
  const u = await t.makeUser();
  const c = t.client(u);
  const q = await openQueue(c, { event_types: ['user_status'] });

  const empty = await c.get('/events', { queue_id: q.queueId, last_event_id: -1, dont_block: true });
  assert.deepEqual(assertSuccess(empty).events, []);
  assert.equal(empty.body.queue_id, q.queueId);
  assertSchema(empty, 'GET', '/events');

  const poll = c.get('/events', { queue_id: q.queueId, last_event_id: -1 });
  await until(() => isWaiting(t, q.queueId), 'the poll waits');
  await causeEvent(t, t.owner, 'wake up');
  const res = await poll;
  assertSchema(res, 'GET', '/events');
  const events = assertSuccess(res).events;
  assert.equal(events.length, 1);
  assert.deepEqual(events[0], { type: 'user_status', user_id: t.owner.id, status_text: 'wake up', id: 0 });
  assert.equal(await isWaiting(t, q.queueId), false);
});

test('acknowledging by last_event_id drops older events; Zulip errors for bad acknowledgements', async () => {
  const u = await t.makeUser();
  const c = t.client(u);
  const q = await openQueue(c, { event_types: ['user_status'] });
  for (const s of ['one', 'two', 'three']) await causeEvent(t, u, s);

  const all = assertSuccess(await c.get('/events', { queue_id: q.queueId, last_event_id: -1, dont_block: true })).events;
  assert.deepEqual(all.map((e: any) => [e.id, e.status_text]), [[0, 'one'], [1, 'two'], [2, 'three']]);
  // Not acknowledged yet: asking again returns the same events.
  assert.equal(assertSuccess(await c.get('/events', { queue_id: q.queueId, last_event_id: -1, dont_block: true })).events.length, 3);

  const rest = assertSuccess(await c.get('/events', { queue_id: q.queueId, last_event_id: 1, dont_block: true })).events;
  assert.deepEqual(rest.map((e: any) => e.id), [2]);
  // Re-sending the same acknowledgement is fine.
  assert.deepEqual(assertSuccess(await c.get('/events', { queue_id: q.queueId, last_event_id: 1, dont_block: true })).events.map((e: any) => e.id), [2]);

  assertError(await c.get('/events', { queue_id: q.queueId, last_event_id: 0, dont_block: true }), 400, 'BAD_REQUEST', 'An event newer than 0 has already been pruned!');
  assertError(await c.get('/events', { queue_id: q.queueId, last_event_id: 7, dont_block: true }), 400, 'BAD_REQUEST', 'Event 7 was not in this queue');
  assertError(await c.get('/events', { queue_id: q.queueId, dont_block: true }), 400, 'BAD_REQUEST', "Missing 'last_event_id' argument");
  assertError(await c.get('/events', { last_event_id: -1 }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'queue_id' argument");

  assert.deepEqual(assertSuccess(await c.get('/events', { queue_id: q.queueId, last_event_id: 2, dont_block: true })).events, []);
  await causeEvent(t, u, 'four');
  const next = assertSuccess(await c.get('/events', { queue_id: q.queueId, last_event_id: 2, dont_block: true })).events;
  assert.deepEqual(next.map((e: any) => [e.id, e.status_text]), [[3, 'four']]);
});

test('event_types filters what a queue receives', async () => {
  const u = await t.makeUser();
  const c = t.client(u);
  const statusOnly = await openQueue(c, { event_types: ['user_status'] });
  const settingsOnly = await openQueue(c, { event_types: ['user_settings'] });
  const everything = await openQueue(c);
  assertSuccess(await c.post('/users/me/status', { away: true }));
  assert.deepEqual((await statusOnly.drain()).map((e) => e.type), ['user_status']);
  assert.deepEqual((await settingsOnly.drain()).map((e) => e.type), ['user_settings']);
  const types = (await everything.drain()).map((e) => e.type);
  assert.ok(types.includes('user_status') && types.includes('user_settings'), types.join(','));
});

test('DELETE /events removes the queue; unknown, foreign and deleted queues are BAD_EVENT_QUEUE_ID', async () => {
  const u = await t.makeUser();
  const other = await t.makeUser();
  const c = t.client(u);
  const q = await openQueue(c);

  const foreign = await t.client(other).get('/events', { queue_id: q.queueId, last_event_id: -1, dont_block: true });
  assertError(foreign, 400, 'BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${q.queueId}`);
  assert.equal(foreign.body.queue_id, q.queueId);
  assertSchema(foreign, 'GET', '/events');
  assertError(await t.client(other).delete('/events', { queue_id: q.queueId }), 400, 'BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${q.queueId}`);

  const unknown = await c.get('/events', { queue_id: 'no-such-queue', last_event_id: -1, dont_block: true });
  assertError(unknown, 400, 'BAD_EVENT_QUEUE_ID', 'Bad event queue ID: no-such-queue');
  assert.equal(unknown.body.queue_id, 'no-such-queue');

  const del = await c.delete('/events', { queue_id: q.queueId });
  assertSuccess(del);
  assertSchema(del, 'DELETE', '/events');
  assert.equal(await t.server.svc.queues.get(q.queueId), undefined);
  const after = await c.get('/events', { queue_id: q.queueId, last_event_id: -1, dont_block: true });
  assertError(after, 400, 'BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${q.queueId}`);
  assert.equal(after.body.queue_id, q.queueId);
  const again = await c.delete('/events', { queue_id: q.queueId });
  assertError(again, 400, 'BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${q.queueId}`);
  assert.equal(again.body.queue_id, q.queueId);
});

test('deleting a queue ends its waiting poll', async () => {
  const u = await t.makeUser();
  const c = t.client(u);
  const q = await openQueue(c);
  const poll = c.get('/events', { queue_id: q.queueId, last_event_id: -1 });
  await until(() => isWaiting(t, q.queueId), 'the poll waits');
  assertSuccess(await c.delete('/events', { queue_id: q.queueId }));
  assert.deepEqual(assertSuccess(await poll).events, []);
});

test('a newer poll replaces a waiting one', async () => {
  const u = await t.makeUser();
  const c = t.client(u);
  const q = await openQueue(c, { event_types: ['user_status'] });
  const first = c.get('/events', { queue_id: q.queueId, last_event_id: -1 });
  await until(() => isWaiting(t, q.queueId), 'the first poll waits');
  const second = c.get('/events', { queue_id: q.queueId, last_event_id: -1 });
  assert.deepEqual(assertSuccess(await first).events, []);
  await until(() => isWaiting(t, q.queueId), 'the second poll waits');
  await causeEvent(t, u, 'hello');
  assert.deepEqual(assertSuccess(await second).events.map((e: any) => e.status_text), ['hello']);
});

test('idle queues are collected; polled, waiting and long-lived ones are kept', async () => {
  const u = await t.makeUser();
  const c = t.client(u);
  const queues = t.server.svc.queues;
  const idle = await openQueue(c);
  const longLived = await openQueue(c, { queue_lifespan_secs: 3 * 3600 });
  const waiting = await openQueue(c);
  const poll = c.get('/events', { queue_id: waiting.queueId, last_event_id: -1 });
  await until(() => isWaiting(t, waiting.queueId), 'the poll waits');

  const idleSeconds = t.server.svc.config.queueIdleSeconds;
  await queues.gc(Date.now() + (idleSeconds - 5) * 1000);
  assert.ok(await queues.get(idle.queueId), 'not idle long enough yet');

  await queues.gc(Date.now() + (idleSeconds + 5) * 1000);
  assert.equal(await queues.get(idle.queueId), undefined, 'idle queue collected');
  assert.ok(await queues.get(longLived.queueId), 'queue_lifespan_secs extends the lifetime');
  assert.ok(await queues.get(waiting.queueId), 'a queue with a waiting poll is in use');
  assertError(await c.get('/events', { queue_id: idle.queueId, last_event_id: -1, dont_block: true }), 400, 'BAD_EVENT_QUEUE_ID');

  await queues.gc(Date.now() + 4 * 3600 * 1000);
  assert.equal(await queues.get(longLived.queueId), undefined);
  assertSuccess(await c.delete('/events', { queue_id: waiting.queueId }));
  await poll;
});

test('idle_queue_timeout: seconds or "mobile" (12 hours), at most 7 days; the answer says what was given', async () => {
  const u = await t.makeUser();
  const c = t.client(u);
  const queues = t.server.svc.queues;
  const idleSeconds = t.server.svc.config.queueIdleSeconds;
  const register = async (params: Record<string, unknown>) => {
    const body = assertSuccess(await c.post('/register', { event_types: ['heartbeat'], fetch_event_types: ['realm'], ...params }));
    assert.equal(body.ignored_parameters_unsupported, undefined);
    return body as { queue_id: string; idle_queue_timeout_secs: number };
  };
  const plain = await register({});
  assert.equal(plain.idle_queue_timeout_secs, idleSeconds);
  // The mobile app sends the JSON string "mobile".
  const mobile = await register({ idle_queue_timeout: '"mobile"' });
  assert.equal(mobile.idle_queue_timeout_secs, 12 * 3600);
  const short = await register({ idle_queue_timeout: 90 });
  assert.equal(short.idle_queue_timeout_secs, 90);
  const long = await register({ idle_queue_timeout: 30 * 24 * 3600 });
  assert.equal(long.idle_queue_timeout_secs, 7 * 24 * 3600);
  // It wins over the older queue_lifespan_secs.
  assert.equal((await register({ idle_queue_timeout: 120, queue_lifespan_secs: 3600 })).idle_queue_timeout_secs, 120);

  await queues.gc(Date.now() + 100 * 1000);
  assert.equal(await queues.get(short.queue_id), undefined, 'collected after its 90 seconds');
  assert.ok(await queues.get(plain.queue_id));
  await queues.gc(Date.now() + (idleSeconds + 5) * 1000);
  assert.equal(await queues.get(plain.queue_id), undefined);
  assert.ok(await queues.get(mobile.queue_id), 'a mobile queue outlives the default');
  await queues.gc(Date.now() + 11 * 3600 * 1000);
  assert.ok(await queues.get(mobile.queue_id));
  await queues.gc(Date.now() + 13 * 3600 * 1000);
  assert.equal(await queues.get(mobile.queue_id), undefined, 'collected after 12 hours');
  assert.ok(await queues.get(long.queue_id));
  await queues.gc(Date.now() + 8 * 24 * 3600 * 1000);
  assert.equal(await queues.get(long.queue_id), undefined);

  for (const bad of ['"desktop"', 0, -5, 1.5, true]) {
    const res = await c.post('/register', { event_types: ['heartbeat'], fetch_event_types: ['realm'], idle_queue_timeout: bad });
    assert.equal(res.status, 400, `idle_queue_timeout=${String(bad)}`);
    assert.equal(res.body.code, 'BAD_REQUEST');
    assert.match(res.body.msg, /idle_queue_timeout/);
  }
  // Not JSON at all.
  const raw = await c.request('POST', '/register', {}, { rawBody: 'idle_queue_timeout=mobile', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
  assertError(raw, 400, 'BAD_REQUEST', /idle_queue_timeout/);
});

test('idle collection runs on its own (PARLEY_QUEUE_IDLE_SECONDS, PARLEY_QUEUE_GC_SECONDS)', async () => {
  const t2 = await startTestServer({ PARLEY_QUEUE_IDLE_SECONDS: '1', PARLEY_QUEUE_GC_SECONDS: '1' });
  try {
    const c = t2.client(t2.owner);
    const q = await openQueue(c);
    await until(async () => (await t2.server.svc.queues.get(q.queueId)) === undefined, 'the idle queue is collected');
    assertError(await c.get('/events', { queue_id: q.queueId, last_event_id: -1, dont_block: true }), 400, 'BAD_EVENT_QUEUE_ID');
  } finally {
    await t2.close();
  }
});

test('a waiting poll gets a heartbeat after the heartbeat interval', async () => {
  const t2 = await startTestServer({ PARLEY_HEARTBEAT_SECONDS: '1' });
  try {
    const c = t2.client(t2.owner);
    const q = await openQueue(c, { event_types: ['user_status'] });
    const res = await c.get('/events', { queue_id: q.queueId, last_event_id: -1 });
    assertSchema(res, 'GET', '/events');
    assert.deepEqual(assertSuccess(res).events, [{ type: 'heartbeat', id: 0 }]);
    // The heartbeat is acknowledged like any event.
    const next = c.get('/events', { queue_id: q.queueId, last_event_id: 0 });
    await until(() => isWaiting(t2, q.queueId), 'the next poll waits');
    await causeEvent(t2, t2.owner, 'after heartbeat');
    assert.deepEqual(assertSuccess(await next).events.map((e: any) => [e.id, e.type]), [[1, 'user_status']]);
  } finally {
    await t2.close();
  }
});

test('a client disconnecting mid-poll releases the wait and leaves the queue working', async () => {
  const u = await t.makeUser();
  const c = t.client(u);
  const q = await openQueue(c, { event_types: ['user_status'] });
  const ac = new AbortController();
  const url = `${t.url}/api/v1/events?queue_id=${encodeURIComponent(q.queueId)}&last_event_id=-1`;
  const poll = fetch(url, { headers: { Authorization: c.auth! }, signal: ac.signal }).then(
    () => 'answered',
    (e: Error) => e.name,
  );
  await until(() => isWaiting(t, q.queueId), 'the poll waits');
  ac.abort();
  assert.equal(await poll, 'AbortError');
  await until(async () => !(await isWaiting(t, q.queueId)), 'the server releases the abandoned poll');

  await causeEvent(t, u, 'while away');
  const events = assertSuccess(await c.get('/events', { queue_id: q.queueId, last_event_id: -1, dont_block: true })).events;
  assert.deepEqual(events.map((e: any) => [e.id, e.status_text]), [[0, 'while away']]);
  // And a new blocking poll still works.
  const next = c.get('/events', { queue_id: q.queueId, last_event_id: 0 });
  await until(() => isWaiting(t, q.queueId), 'the next poll waits');
  await causeEvent(t, u, 'back');
  assert.deepEqual(assertSuccess(await next).events.map((e: any) => e.status_text), ['back']);
});

test('watched events reach every process, whoever receives them (cache invalidation)', async () => {
  const seen = t.nodes.map(() => [] as unknown[]);
  t.nodes.forEach((node, i) => node.svc.bus.watch(['user_status'], (e) => seen[i]!.push(e.status_text)));
  const loner = await t.makeUser();
  await causeEvent(t, loner, 'invalidate caches');
  await until(() => seen.every((s) => s.includes('invalidate caches')), 'every node saw the event');
  assert.deepEqual(seen.map((s) => s.filter((x) => x === 'invalidate caches').length), t.nodes.map(() => 1), 'once per node');
});
