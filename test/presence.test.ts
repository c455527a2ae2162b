/** Presence: POST /users/me/presence, GET /realm/presence, GET /users/{id}/presence, events, /register state. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startTestServer,
  assertError,
  assertSuccess,
  assertSchema,
  openQueue,
  updateUser,
  type Account,
  type TestServer,
} from './helpers.ts';
import { reloadPresence, PRESENCE } from '../src/actions/presence.ts';
import { BOT_TYPE } from '../src/store/users.ts';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(() => t.close());

const now = () => Math.floor(Date.now() / 1000);
const DAY = 86400;

/** Replaces a user's stored presence (as if written long ago) and reloads the in-memory copy. */
async function seedPresence(srv: TestServer, userId: number, active: number | null, connected: number | null): Promise<number> {
  const svc = srv.server.svc;
  await reloadPresence(svc);
  const db = svc.store.db;
  const row = await db.selectFrom('user_presence').select((eb) => eb.fn.max('last_update_id').as('m')).executeTakeFirst();
  const id = Number(row?.m ?? 0) + 1;
  await db.deleteFrom('user_presence').where('user_id', '=', userId).execute();
  await db
    .insertInto('user_presence')
    .values({ user_id: userId, realm_id: svc.realmId, last_active_time: active, last_connected_time: connected, last_update_id: id })
    .execute();
  await reloadPresence(svc);
  return id;
}

async function storedUpdateId(srv: TestServer, userId: number): Promise<number | undefined> {
  await reloadPresence(srv.server.svc);
  const r = await srv.server.svc.store.db.selectFrom('user_presence').select('last_update_id').where('user_id', '=', userId).executeTakeFirst();
  return r?.last_update_id;
}

test('POST /users/me/presence: errors', async () => {
  const c = t.client(t.owner);
  assertError(await c.post('/users/me/presence', { status: 'away' }), 400, 'BAD_REQUEST', 'Invalid status: away');
  const missing = await c.post('/users/me/presence', {});
  assertError(missing, 400, 'REQUEST_VARIABLE_MISSING', "Missing 'status' argument");
  assertError(await c.post('/users/me/presence', { status: 'active', ping_only: 'yes' }), 400, 'BAD_REQUEST', 'ping_only is not valid JSON');
  assertError(await c.post('/users/me/presence', { status: 'active', last_update_id: 'x' }), 400, 'BAD_REQUEST');
  const bot = await t.makeUser({ isBot: true, botOwnerId: t.owner.id, botType: BOT_TYPE.GENERIC });
  assertError(await t.client(bot).post('/users/me/presence', { status: 'active' }), 400, 'BAD_REQUEST', 'This endpoint does not accept bot requests.');
});

test('legacy format: keyed by email, aggregated + website entries', async () => {
  const a = await t.makeUser();
  const res = await t.client(a).post('/users/me/presence', { status: 'active' });
  const body = assertSuccess(res);
  assert.equal(typeof body.server_timestamp, 'number');
  assert.equal(typeof body.presence_last_update_id, 'number');
  const mine = body.presences[a.email];
  assert.ok(mine, 'own presence keyed by email');
  assert.deepEqual(Object.keys(mine).sort(), ['aggregated', 'website']);
  assert.deepEqual(Object.keys(mine.aggregated).sort(), ['client', 'status', 'timestamp']);
  assert.equal(mine.website.client, 'website');
  assert.equal(mine.website.status, 'active');
  assert.equal(mine.website.pushable, false);
  assert.ok(Math.abs(mine.website.timestamp - now()) < 60);
  assert.equal(mine.aggregated.status, 'active');
  assert.equal(mine.aggregated.timestamp, mine.website.timestamp);
  assert.equal(body.presences[String(a.id)], undefined);
});

test('modern format with slim_presence, or whenever last_update_id is sent', async () => {
  const a = await t.makeUser();
  const c = t.client(a);
  const slim = assertSuccess(await c.post('/users/me/presence', { status: 'idle', slim_presence: true }));
  const mine = slim.presences[String(a.id)];
  assert.deepEqual(Object.keys(mine).sort(), ['active_timestamp', 'idle_timestamp']);
  // Never active: the active time defaults to the date the user joined.
  assert.equal(mine.active_timestamp, a.row.date_joined);
  assert.ok(Math.abs(mine.idle_timestamp - now()) < 60);
  assert.equal(slim.presences[a.email], undefined);
  const modern = assertSuccess(await c.post('/users/me/presence', { status: 'idle', last_update_id: -1, slim_presence: false }));
  assert.ok(modern.presences[String(a.id)]);
  assert.equal(modern.presences[a.email], undefined);
});

test('incremental polling with last_update_id', async () => {
  const t2 = await startTestServer();
  try {
    const [a, b, c] = [await t2.makeUser(), await t2.makeUser(), await t2.makeUser()];
    const ca = t2.client(a);
    const cb = t2.client(b);
    // Nothing yet and no last_update_id: -1.
    const none = assertSuccess(await t2.client(t2.owner).post('/users/me/presence', { status: 'idle', history_limit_days: 0 }));
    assert.equal(none.presence_last_update_id, -1);
    assert.deepEqual(none.presences, {});

    assertSuccess(await ca.post('/users/me/presence', { status: 'active' }));
    const first = assertSuccess(await cb.post('/users/me/presence', { status: 'active', last_update_id: -1 }));
    assert.ok(first.presences[String(a.id)]);
    assert.ok(first.presences[String(b.id)]);
    const n1 = first.presence_last_update_id;
    assert.ok(n1 > 0);

    // Nothing changed since n1: empty and the same id back.
    const again = assertSuccess(await cb.post('/users/me/presence', { status: 'active', last_update_id: n1 }));
    assert.deepEqual(again.presences, {});
    assert.equal(again.presence_last_update_id, n1);
    // A repeated ping by a (within the granularity) is no change either.
    assertSuccess(await ca.post('/users/me/presence', { status: 'active', ping_only: true }));
    const still = assertSuccess(await cb.post('/users/me/presence', { status: 'active', last_update_id: n1 }));
    assert.deepEqual(still.presences, {});
    assert.equal(still.presence_last_update_id, n1);

    // c comes online: only c is new.
    assertSuccess(await t2.client(c).post('/users/me/presence', { status: 'idle' }));
    const delta = assertSuccess(await cb.post('/users/me/presence', { status: 'active', last_update_id: n1 }));
    assert.deepEqual(Object.keys(delta.presences), [String(c.id)]);
    assert.ok(delta.presence_last_update_id > n1);

    // The caller's own entry is in an incremental answer when its ping changed
    // it, though it had not changed since the id sent.
    const [d, e] = [await t2.makeUser(), await t2.makeUser()];
    assertSuccess(await t2.client(d).post('/users/me/presence', { status: 'idle' }));
    const n2 = assertSuccess(await t2.client(e).post('/users/me/presence', { status: 'idle', last_update_id: -1 })).presence_last_update_id;
    // Unchanged (a repeated idle ping): nothing.
    const same = assertSuccess(await t2.client(d).post('/users/me/presence', { status: 'idle', last_update_id: n2 }));
    assert.deepEqual(same.presences, {});
    assert.equal(same.presence_last_update_id, n2);
    // Now active: d's entry changes, and the answer has it (and only it).
    const own = assertSuccess(await t2.client(d).post('/users/me/presence', { status: 'active', last_update_id: n2 }));
    assert.deepEqual(Object.keys(own.presences), [String(d.id)]);
    assert.ok(own.presence_last_update_id > n2);
    assert.ok(own.presences[String(d.id)].active_timestamp >= now() - 5);

    // Never less than what was sent, even past the newest.
    const ahead = assertSuccess(await cb.post('/users/me/presence', { status: 'active', last_update_id: n1 + 1000 }));
    assert.equal(ahead.presence_last_update_id, n1 + 1000);
    assert.deepEqual(ahead.presences, {});
  } finally {
    await t2.close();
  }
});

test('ping_only: status recorded, no presence data returned', async () => {
  const a = await t.makeUser();
  const r1 = assertSuccess(await t.client(a).post('/users/me/presence', { status: 'active', ping_only: true }));
  assert.equal(r1.presences, undefined);
  assert.equal(r1.server_timestamp, undefined);
  assert.equal(r1.presence_last_update_id, -1);
  const r2 = assertSuccess(await t.client(a).post('/users/me/presence', { status: 'active', ping_only: true, last_update_id: 7 }));
  assert.equal(r2.presence_last_update_id, 7);
  const seen = assertSuccess(await t.client(t.owner).post('/users/me/presence', { status: 'idle', slim_presence: true }));
  assert.ok(seen.presences[String(a.id)], 'the ping was recorded');
});

test('history_limit_days: default 14, explicit, 0, ignored when last_update_id > 0', async () => {
  const old = await t.makeUser();
  const seeded = await seedPresence(t, old.id, now() - 20 * DAY, now() - 20 * DAY);
  const c = t.client(t.owner);
  const dflt = assertSuccess(await c.post('/users/me/presence', { status: 'active', last_update_id: -1 }));
  assert.equal(dflt.presences[String(old.id)], undefined);
  const legacy = assertSuccess(await c.post('/users/me/presence', { status: 'active' }));
  assert.equal(legacy.presences[old.email], undefined);
  const wide = assertSuccess(await c.post('/users/me/presence', { status: 'active', last_update_id: -1, history_limit_days: 30 }));
  assert.deepEqual(Object.keys(wide.presences[String(old.id)]).sort(), ['active_timestamp', 'idle_timestamp']);
  assert.ok(Math.abs(wide.presences[String(old.id)].idle_timestamp - (now() - 20 * DAY)) < 60);
  const zero = assertSuccess(await c.post('/users/me/presence', { status: 'active', last_update_id: -1, history_limit_days: 0 }));
  assert.deepEqual(zero.presences, {});
  assert.equal(zero.presence_last_update_id, -1);
  // With last_update_id > 0 the client already has data; the history limit no longer applies.
  const inc = assertSuccess(await c.post('/users/me/presence', { status: 'active', last_update_id: seeded - 1, history_limit_days: 1 }));
  assert.ok(inc.presences[String(old.id)]);
  // /register honors presence_history_limit_days.
  const q1 = await openQueue(c, { fetch_event_types: ['presence'], slim_presence: true });
  assert.equal(q1.state.presences[String(old.id)], undefined);
  const q2 = await openQueue(c, { fetch_event_types: ['presence'], slim_presence: true, presence_history_limit_days: 30 });
  assert.ok(q2.state.presences[String(old.id)]);
});

test('deactivated users and bots are not listed', async () => {
  const gone = await t.makeUser();
  assertSuccess(await t.client(gone).post('/users/me/presence', { status: 'active' }));
  await updateUser(t.server.svc.store.db, gone.id, { is_active: 0 });
  const res = assertSuccess(await t.client(t.owner).post('/users/me/presence', { status: 'active', last_update_id: -1 }));
  assert.equal(res.presences[String(gone.id)], undefined);
});

test('a repeated ping within the granularity writes nothing; data survives a restart', async () => {
  const a = await t.makeUser();
  const c = t.client(a);
  assertSuccess(await c.post('/users/me/presence', { status: 'active' }));
  const id1 = await storedUpdateId(t, a.id);
  assert.ok(id1 !== undefined);
  for (let i = 0; i < 3; i++) assertSuccess(await c.post('/users/me/presence', { status: i % 2 ? 'idle' : 'active', ping_only: true }));
  assert.equal(await storedUpdateId(t, a.id), id1);
  // After reloading from the database (what a restart does) the data and sequence are intact.
  await reloadPresence(t.server.svc);
  const res = assertSuccess(await t.client(t.owner).post('/users/me/presence', { status: 'active', last_update_id: id1! - 1 }));
  assert.ok(res.presences[String(a.id)]);
  assert.ok(res.presence_last_update_id >= id1!);
  // A change after the reload continues the sequence.
  const b = await t.makeUser();
  assertSuccess(await t.client(b).post('/users/me/presence', { status: 'active' }));
  assert.ok((await storedUpdateId(t, b.id))! > res.presence_last_update_id - 1);
});

test('restart: a new server on the same database keeps presence', async () => {
  const { loadConfig } = await import('../src/config.ts');
  const { startServer } = await import('../src/server.ts');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  if (process.env.TEST_DATABASE_URL) return; // the PostgreSQL schema lifecycle belongs to the harness; covered by the reload test
  const dir = mkdtempSync(join(tmpdir(), 'parley-presence-'));
  const env = { HOST: '127.0.0.1', PORT: '0', DATA_DIR: dir, PARLEY_OWNER_EMAIL: 'o@example.com', PARLEY_OWNER_PASSWORD: 'pw-123456789', LOG_LEVEL: 'warn', PARLEY_API_RATE_LIMIT_PER_MINUTE: '0' } as NodeJS.ProcessEnv;
  try {
    const s1 = await startServer(loadConfig(env));
    const owner = s1.bootstrap.created!.owner;
    const { Client } = await import('./helpers.ts');
    const r1 = assertSuccess(await new Client(s1.url, { email: owner.delivery_email, apiKey: owner.api_key }).post('/users/me/presence', { status: 'active', last_update_id: -1 }));
    await s1.close();
    const s2 = await startServer(loadConfig(env));
    const r2 = assertSuccess(await new Client(s2.url, { email: owner.delivery_email, apiKey: owner.api_key }).post('/users/me/presence', { status: 'active', last_update_id: -1 }));
    assert.deepEqual(r2.presences[String(owner.id)], r1.presences[String(owner.id)]);
    assert.equal(r2.presence_last_update_id, r1.presence_last_update_id);
    await s2.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('presence_enabled off: the user appears offline to others', async () => {
  const a = await t.makeUser();
  assertSuccess(await t.client(a).post('/users/me/presence', { status: 'active' }));
  await t.setUserSetting(a, 'presence_enabled', false);
  const watcher = await openQueue(t.client(t.owner), { event_types: ['presence'], client_capabilities: { simplified_presence_events: true } });
  // The user's own next ping hides them (and tells everyone).
  assertSuccess(await t.client(a).post('/users/me/presence', { status: 'active', ping_only: true }));
  const res = assertSuccess(await t.client(t.owner).post('/users/me/presence', { status: 'active', last_update_id: -1 }));
  const p = res.presences[String(a.id)];
  // Never active, connected long ago (a user who just joined is not shown active either).
  assert.ok(p.active_timestamp <= p.idle_timestamp);
  assert.ok(p.idle_timestamp <= now() - PRESENCE.OFFLINE_THRESHOLD_SECS, 'last connected long enough ago to be offline');
  const events = await watcher.ofType('presence');
  assert.equal(events.length, 1);
  assert.deepEqual(events[0].presences, { [String(a.id)]: p });
  // Further pings change nothing.
  assertSuccess(await t.client(a).post('/users/me/presence', { status: 'active', ping_only: true }));
  const inc = assertSuccess(await t.client(t.owner).post('/users/me/presence', { status: 'active', last_update_id: res.presence_last_update_id }));
  assert.equal(inc.presences[String(a.id)], undefined);
  assert.deepEqual(await watcher.ofType('presence'), []);
  const legacy = assertSuccess(await t.client(t.owner).get(`/users/${a.id}/presence`));
  assert.equal(legacy.presence.aggregated.status, 'offline');

  // Hidden even when the user has not pinged since turning presence off.
  const b = await t.makeUser();
  assertSuccess(await t.client(b).post('/users/me/presence', { status: 'active' }));
  assert.equal((await watcher.ofType('presence')).length, 1, 'b came online');
  await t.setUserSetting(b, 'presence_enabled', false);
  const seen = assertSuccess(await t.client(t.owner).post('/users/me/presence', { status: 'active', last_update_id: -1 }));
  assert.ok(seen.presences[String(b.id)].idle_timestamp <= now() - PRESENCE.OFFLINE_THRESHOLD_SECS);
  const hidden = await watcher.ofType('presence');
  assert.deepEqual(hidden.map((e) => Object.keys(e.presences)), [[String(b.id)]], 'everyone is told when the user is hidden');

  // Turning presence back on through PATCH /settings marks the user online with a forced event.
  assertSuccess(await t.client(b).patch('/settings', { presence_enabled: true }));
  const on = await watcher.ofType('presence');
  assert.equal(on.length, 1);
  assert.ok(Math.abs(on[0].presences[String(b.id)].active_timestamp - now()) < 60);
});

test('presence events: sent when a user first appears or comes back online, in each queue\'s format', async () => {
  const t2 = await startTestServer();
  try {
    const a = await t2.makeUser();
    const b = await t2.makeUser();
    const legacyQ = await openQueue(t2.client(b), { event_types: ['presence'] });
    const slimQ = await openQueue(t2.client(b), { event_types: ['presence'], slim_presence: true });
    const modernQ = await openQueue(t2.client(b), { event_types: ['presence'], client_capabilities: { simplified_presence_events: true } });
    const selfQ = await openQueue(t2.client(a), { event_types: ['presence'] });
    const otherTypes = await openQueue(t2.client(t2.owner), { event_types: ['typing'] });

    assertSuccess(await t2.client(a).post('/users/me/presence', { status: 'active' }));
    const [legacy] = await legacyQ.ofType('presence');
    assert.deepEqual(Object.keys(legacy).sort(), ['email', 'id', 'presence', 'server_timestamp', 'type', 'user_id']);
    assert.equal(legacy.user_id, a.id);
    assert.equal(legacy.email, a.email);
    assert.equal(typeof legacy.server_timestamp, 'number');
    assert.deepEqual(Object.keys(legacy.presence), ['website']);
    assert.equal(legacy.presence.website.client, 'website');
    assert.equal(legacy.presence.website.status, 'active');
    assert.equal(legacy.presence.website.pushable, false);
    const [slim] = await slimQ.ofType('presence');
    assert.equal(slim.email, undefined);
    assert.equal(slim.user_id, a.id);
    assert.deepEqual(slim.presence, legacy.presence);
    const [modern] = await modernQ.ofType('presence');
    assert.deepEqual(Object.keys(modern).sort(), ['id', 'presences', 'type']);
    assert.deepEqual(Object.keys(modern.presences), [String(a.id)]);
    assert.equal(modern.presences[String(a.id)].active_timestamp, legacy.presence.website.timestamp);
    assert.equal((await selfQ.ofType('presence')).length, 1, 'the user is told too');
    assert.deepEqual(await otherTypes.drain(), []);

    // Already online: no event.
    assertSuccess(await t2.client(a).post('/users/me/presence', { status: 'active' }));
    assertSuccess(await t2.client(a).post('/users/me/presence', { status: 'idle' }));
    assert.deepEqual(await legacyQ.ofType('presence'), []);

    // Back after missing a few pings (last active 10 minutes ago): event.
    await seedPresence(t2, a.id, now() - 600, now() - 600);
    assertSuccess(await t2.client(a).post('/users/me/presence', { status: 'active' }));
    const back = await legacyQ.ofType('presence');
    assert.equal(back.length, 1);
    assert.equal(back[0].presence.website.status, 'active');
    // An idle report after being away is not "coming online".
    await seedPresence(t2, a.id, now() - 600, now() - 600);
    assertSuccess(await t2.client(a).post('/users/me/presence', { status: 'idle' }));
    assert.deepEqual(await legacyQ.ofType('presence'), []);
  } finally {
    await t2.close();
  }
});

test('presence events stop above the user limit for large organizations', async () => {
  const t2 = await startTestServer();
  try {
    for (let i = 0; i < PRESENCE.USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS; i++) await t2.makeUser();
    const q = await openQueue(t2.client(t2.owner), { event_types: ['presence'] });
    const a = await t2.makeUser();
    assertSuccess(await t2.client(a).post('/users/me/presence', { status: 'active' }));
    assert.deepEqual(await q.ofType('presence'), []);
  } finally {
    await t2.close();
  }
});

test('GET /realm/presence: legacy format', async () => {
  const a = await t.makeUser();
  assertSuccess(await t.client(a).post('/users/me/presence', { status: 'active' }));
  const res = await t.client(t.owner).get('/realm/presence');
  const body = assertSuccess(res);
  assert.equal(typeof body.server_timestamp, 'number');
  assert.equal(body.presence_last_update_id, undefined);
  assert.equal(body.presences[a.email].website.status, 'active');
  assertSchema(res, 'GET', '/realm/presence');
});

test('GET /users/{user_id_or_email}/presence', async () => {
  const a = await t.makeUser();
  const c = t.client(t.owner);
  assertError(await c.get(`/users/${a.id}/presence`), 400, 'BAD_REQUEST', `No presence data for ${a.id}`);
  assertError(await c.get(`/users/${a.email}/presence`), 400, 'BAD_REQUEST', `No presence data for ${a.email}`);
  assertSuccess(await t.client(a).post('/users/me/presence', { status: 'active' }));
  for (const key of [String(a.id), a.email]) {
    const res = await c.get(`/users/${key}/presence`);
    const body = assertSuccess(res);
    assert.deepEqual(Object.keys(body.presence).sort(), ['aggregated', 'website']);
    assert.equal(body.presence.aggregated.status, 'active');
    assert.deepEqual(body.presence.website, body.presence.aggregated);
    assertSchema(res, 'GET', '/users/{user_id_or_email}/presence');
  }
  // Long gone: aggregated says offline; the client entry keeps its status.
  await seedPresence(t, a.id, now() - 3 * DAY, now() - 3 * DAY);
  const old = assertSuccess(await c.get(`/users/${a.id}/presence`));
  assert.equal(old.presence.aggregated.status, 'offline');
  assert.equal(old.presence.website.status, 'active');

  assertError(await c.get('/users/999999/presence'), 400, 'BAD_REQUEST', 'No such user');
  assertError(await c.get('/users/nobody@example.com/presence'), 400, 'BAD_REQUEST', 'No such user');
  const bot = await t.makeUser({ isBot: true, botOwnerId: t.owner.id, botType: BOT_TYPE.GENERIC });
  assertError(await c.get(`/users/${bot.id}/presence`), 400, 'BAD_REQUEST', 'Presence is not supported for bot users.');
  const gone = await t.makeUser();
  assertSuccess(await t.client(gone).post('/users/me/presence', { status: 'active' }));
  await updateUser(t.server.svc.store.db, gone.id, { is_active: 0 });
  assertError(await c.get(`/users/${gone.id}/presence`), 400, 'BAD_REQUEST', 'No such user');

  // By email: the API email only (a dummy one for a hidden address), never the real address behind it.
  assertSuccess(await c.patch('/realm/user_settings_defaults', { email_address_visibility: 3 }));
  const hidden = await t.makeUser();
  assertSuccess(await c.patch('/realm/user_settings_defaults', { email_address_visibility: 1 }));
  const host = new URL(t.url).hostname;
  const shown = assertSuccess(await c.get(`/users/${hidden.id}`)).user;
  assert.equal(shown.email, `user${hidden.id}@${host}`);
  assertSuccess(await t.client(hidden).post('/users/me/presence', { status: 'active' }));
  assertError(await c.get(`/users/${encodeURIComponent(shown.delivery_email)}/presence`), 400, 'BAD_REQUEST', 'No such user');
  assert.equal(assertSuccess(await c.get(`/users/${shown.email}/presence`)).presence.aggregated.status, 'active');
});

test('/register presence state: legacy, slim, modern capability; last update id and timestamp', async () => {
  const a = await t.makeUser();
  const ping = assertSuccess(await t.client(a).post('/users/me/presence', { status: 'active', last_update_id: -1 }));
  const c = t.client(t.owner);
  const legacy = await openQueue(c, { fetch_event_types: ['presence'] });
  assert.equal(legacy.state.presences[a.email].website.status, 'active');
  assert.equal(typeof legacy.state.server_timestamp, 'number');
  assert.ok(legacy.state.presence_last_update_id >= ping.presence_last_update_id);
  const slim = await openQueue(c, { fetch_event_types: ['presence'], slim_presence: true });
  assert.deepEqual(slim.state.presences[String(a.id)], ping.presences[String(a.id)]);
  const modern = await openQueue(c, { fetch_event_types: ['presence'], client_capabilities: { simplified_presence_events: true } });
  assert.ok(modern.state.presences[String(a.id)]);
  const without = await openQueue(c, { fetch_event_types: ['realm_user'] });
  assert.equal(without.state.presences, undefined);
  assert.equal(without.state.presence_last_update_id, undefined);
});

test('CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE: everyone is accessible until access restrictions exist', async () => {
  const t2 = await startTestServer({ CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE: 'true' });
  try {
    assert.equal(t2.server.svc.config.canAccessAllUsersGroupLimitsPresence, true);
    const a = await t2.makeUser();
    const q = await openQueue(t2.client(t2.owner), { event_types: ['presence'] });
    assertSuccess(await t2.client(a).post('/users/me/presence', { status: 'active' }));
    assert.equal((await q.ofType('presence')).length, 1);
    const res = assertSuccess(await t2.client(t2.owner).post('/users/me/presence', { status: 'active', last_update_id: -1 }));
    assert.ok(res.presences[String(a.id)]);
    assertSuccess(await t2.client(t2.owner).get(`/users/${a.id}/presence`));
  } finally {
    await t2.close();
  }
});
