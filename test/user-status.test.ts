/** User status: POST /users/me/status, GET /users/{user_id}/status, user_status events and state. */
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
import { userSettings } from '../src/lib/user-settings.ts';
import { userById } from '../src/store/users.ts';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(() => t.close());

async function addRealmEmoji(name: string, deactivated = false): Promise<number> {
  const row = await t.server.svc.store.db
    .insertInto('realm_emoji')
    .values({ realm_id: t.server.svc.realmId, name, author_id: t.owner.id, file_name: `${name}.png`, deactivated: deactivated ? 1 : 0 })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function presenceEnabled(a: Account): Promise<unknown> {
  const row = await userById(t.server.svc.store.db, t.server.svc.realmId, a.id);
  return userSettings(row!.settings_json).presence_enabled;
}

test('setting a status: stored, announced to every active user, readable by ID', async () => {
  const u = await t.makeUser();
  const other = await t.makeUser();
  const gone = await t.makeUser();
  const c = t.client(u);
  const mine = await openQueue(c, { event_types: ['user_status'] });
  const theirs = await openQueue(t.client(other), { event_types: ['user_status'] });
  const goneQ = await openQueue(t.client(gone), { event_types: ['user_status'] });
  await updateUser(t.server.svc.store.db, gone.id, { is_active: 0 });

  const res = await c.post('/users/me/status', { status_text: 'on vacation', emoji_name: 'car' });
  assertSuccess(res);
  assertSchema(res, 'POST', '/users/me/status');

  const expected = { type: 'user_status', user_id: u.id, status_text: 'on vacation', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' };
  for (const q of [mine, theirs]) {
    const r = await t.client(q === mine ? u : other).get('/events', { queue_id: q.queueId, last_event_id: -1, dont_block: true });
    assertSchema(r, 'GET', '/events');
    const events = r.body.events.filter((e: any) => e.type === 'user_status');
    assert.equal(events.length, 1);
    const { id: _id, ...ev } = events[0];
    assert.deepEqual(ev, expected);
  }
  await updateUser(t.server.svc.store.db, gone.id, { is_active: 1 });
  assert.deepEqual(await goneQ.ofType('user_status'), [], 'deactivated users get no event');

  const got = await t.client(other).get(`/users/${u.id}/status`);
  assert.deepEqual(assertSuccess(got).status, { status_text: 'on vacation', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });
});

test('only the passed parameters change; the event carries only them', async () => {
  const u = await t.makeUser();
  const c = t.client(u);
  assertSuccess(await c.post('/users/me/status', { status_text: 'busy', emoji_name: 'smile', emoji_code: '1f642', reaction_type: 'unicode_emoji' }));
  const q = await openQueue(c, { event_types: ['user_status', 'user_settings'] });

  assertSuccess(await c.post('/users/me/status', { status_text: '  lunch  ' }));
  let events = await q.drain();
  assert.deepEqual(events.map(({ id: _id, ...e }) => e), [{ type: 'user_status', user_id: u.id, status_text: 'lunch' }]);
  assert.deepEqual(assertSuccess(await c.get(`/users/${u.id}/status`)).status, {
    status_text: 'lunch',
    emoji_name: 'smile',
    emoji_code: '1f642',
    reaction_type: 'unicode_emoji',
  });

  // An empty emoji_name clears the emoji, leaving the text.
  assertSuccess(await c.post('/users/me/status', { emoji_name: '' }));
  events = await q.drain();
  assert.deepEqual(events.map(({ id: _id, ...e }) => e), [
    { type: 'user_status', user_id: u.id, emoji_name: '', emoji_code: '', reaction_type: 'unicode_emoji' },
  ]);
  assert.deepEqual(assertSuccess(await c.get(`/users/${u.id}/status`)).status, { status_text: 'lunch' });

  // An empty status_text clears the text.
  assertSuccess(await c.post('/users/me/status', { status_text: '' }));
  assert.deepEqual((await q.drain()).map(({ id: _id, ...e }) => e), [{ type: 'user_status', user_id: u.id, status_text: '' }]);
  assert.deepEqual(assertSuccess(await c.get(`/users/${u.id}/status`)).status, {});
});

test('away is the inverse of presence_enabled and sends the user_settings event', async () => {
  const u = await t.makeUser();
  const other = await t.makeUser();
  const c = t.client(u);
  const q = await openQueue(c, { event_types: ['user_status', 'user_settings'] });
  const oq = await openQueue(t.client(other), { event_types: ['user_status', 'user_settings'] });
  const all = await openQueue(c);

  assertSuccess(await c.post('/users/me/status', { away: true }));
  assert.equal(await presenceEnabled(u), false);
  const r = await c.get('/events', { queue_id: q.queueId, last_event_id: -1, dont_block: true });
  assertSchema(r, 'GET', '/events');
  assert.deepEqual(r.body.events.map(({ id: _id, ...e }: any) => e), [
    { type: 'user_settings', op: 'update', property: 'presence_enabled', value: false },
    { type: 'user_status', user_id: u.id, away: true },
  ]);
  assert.deepEqual((await oq.drain()).map(({ id: _id, ...e }) => e), [{ type: 'user_status', user_id: u.id, away: true }], 'settings event only to the user');
  assert.deepEqual(assertSuccess(await c.get(`/users/${u.id}/status`)).status, { away: true });
  // A client without user_settings_object gets the user_settings event too, and no legacy update_global_notifications (feature level 439).
  assert.deepEqual((await all.drain()).map((e) => e.type).filter((type) => type !== 'presence'), ['user_settings', 'user_status']);

  const reg = await openQueue(t.client(other), { fetch_event_types: ['user_status'], event_types: ['user_status'] });
  assert.deepEqual(reg.state.user_status[String(u.id)], { away: true });

  const pq = await openQueue(t.client(other), { event_types: ['presence'] });
  assertSuccess(await c.post('/users/me/status', { away: false, status_text: 'back' }));
  assert.ok((await pq.ofType('presence')).some((e) => e.user_id === u.id), 'presence follows presence_enabled');
  assert.equal(await presenceEnabled(u), true);
  assert.deepEqual(assertSuccess(await c.get(`/users/${u.id}/status`)).status, { status_text: 'back' });
  assert.deepEqual((await oq.drain()).map(({ id: _id, ...e }) => e), [{ type: 'user_status', user_id: u.id, away: false, status_text: 'back' }]);
});

test('register state: keyed by user ID, only users with a status, only set fields', async () => {
  const a = await t.makeUser();
  const b = await t.makeUser();
  const cleared = await t.makeUser();
  const gone = await t.makeUser();
  assertSuccess(await t.client(a).post('/users/me/status', { status_text: 'coding' }));
  assertSuccess(await t.client(b).post('/users/me/status', { emoji_name: 'zulip' }));
  assertSuccess(await t.client(cleared).post('/users/me/status', { status_text: 'x', emoji_name: 'car' }));
  assertSuccess(await t.client(cleared).post('/users/me/status', { status_text: '', emoji_name: '' }));
  assertSuccess(await t.client(gone).post('/users/me/status', { status_text: 'gone' }));
  await updateUser(t.server.svc.store.db, gone.id, { is_active: 0 });

  const res = await t.client(t.owner).post('/register', { fetch_event_types: ['user_status'] });
  assertSuccess(res);
  assertSchema(res, 'POST', '/register');
  const state = res.body.user_status;
  assert.deepEqual(state[String(a.id)], { status_text: 'coding' });
  assert.deepEqual(state[String(b.id)], { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' });
  assert.ok(!(String(cleared.id) in state), 'cleared status is absent');
  assert.ok(!(String(gone.id) in state), 'deactivated users are absent');
  assert.ok(!('realm_users' in res.body), 'only the requested state');
});

test('custom emoji: by name, by ID, and their errors', async () => {
  const u = await t.makeUser();
  const c = t.client(u);
  const id = await addRealmEmoji('parrot');
  const oldId = await addRealmEmoji('retired', true);

  assertSuccess(await c.post('/users/me/status', { emoji_name: 'parrot' }));
  assert.deepEqual(assertSuccess(await c.get(`/users/${u.id}/status`)).status, { emoji_name: 'parrot', emoji_code: String(id), reaction_type: 'realm_emoji' });
  assertSuccess(await c.post('/users/me/status', { emoji_name: 'parrot', emoji_code: String(id), reaction_type: 'realm_emoji' }));

  assertError(await c.post('/users/me/status', { emoji_name: 'parrot', emoji_code: '999999', reaction_type: 'realm_emoji' }), 400, 'BAD_REQUEST', 'Invalid custom emoji.');
  assertError(await c.post('/users/me/status', { emoji_name: 'parrot', emoji_code: 'abc', reaction_type: 'realm_emoji' }), 400, 'BAD_REQUEST', 'Invalid custom emoji.');
  assertError(await c.post('/users/me/status', { emoji_name: 'other', emoji_code: String(id), reaction_type: 'realm_emoji' }), 400, 'BAD_REQUEST', 'Invalid custom emoji name.');
  assertError(await c.post('/users/me/status', { emoji_name: 'retired', emoji_code: String(oldId), reaction_type: 'realm_emoji' }), 400, 'BAD_REQUEST', 'This custom emoji has been deactivated.');
  // A deactivated custom emoji is not found by name.
  assertError(await c.post('/users/me/status', { emoji_name: 'retired' }), 400, 'BAD_REQUEST', "Emoji 'retired' does not exist");
  assert.deepEqual(assertSuccess(await c.get(`/users/${u.id}/status`)).status, { emoji_name: 'parrot', emoji_code: String(id), reaction_type: 'realm_emoji' }, 'failed requests change nothing');
});

test('validation errors use Zulip messages', async () => {
  const u = await t.makeUser();
  const c = t.client(u);
  const bad = (params: Record<string, unknown>, msg: string) =>
    c.post('/users/me/status', params).then((r) => assertError(r, 400, 'BAD_REQUEST', msg));

  await bad({}, 'Client did not pass any new values.');
  // emoji_code without emoji_name gets the specific error, not "no new values".
  await bad({ emoji_code: '1f697' }, 'Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  await bad({ reaction_type: 'unicode_emoji' }, 'Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  await bad({ status_text: 'x'.repeat(61) }, 'status_text is too long (limit: 60 characters)');
  await bad({ status_text: 'x', emoji_code: '1f697' }, 'Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  await bad({ away: false, reaction_type: 'unicode_emoji' }, 'Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  await bad({ emoji_name: 'invalid' }, "Emoji 'invalid' does not exist");
  await bad({ emoji_name: 'car', emoji_code: 'ffff1', reaction_type: 'unicode_emoji' }, 'Invalid emoji code.');
  await bad({ emoji_name: 'smile', emoji_code: '1f697', reaction_type: 'unicode_emoji' }, 'Invalid emoji name.');
  await bad({ emoji_name: 'car', emoji_code: '1f697', reaction_type: 'nonsense' }, 'Invalid emoji type.');
  await bad({ emoji_name: 'zulip', emoji_code: 'car', reaction_type: 'zulip_extra_emoji' }, 'Invalid emoji code.');
  await bad({ emoji_name: 'car', emoji_code: 'zulip', reaction_type: 'service_extra_emoji' }, 'Invalid emoji name.');
  await bad({ emoji_name: 'car', emoji_code: '1f697', reaction_type: 'realm_emoji' }, 'Invalid custom emoji.');
  await c.post('/users/me/status', { away: 'yes' }).then((r) => assertError(r, 400, 'BAD_REQUEST', 'away is not valid JSON'));

  // Limits count code points, after surrounding whitespace is stripped.
  assertSuccess(await c.post('/users/me/status', { status_text: '🙂'.repeat(60) }));
  assertSuccess(await c.post('/users/me/status', { status_text: `  ${'y'.repeat(60)}  ` }));
  // Spec name for Zulip's extra emoji type, and an alias name for a unicode emoji.
  assertSuccess(await c.post('/users/me/status', { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'service_extra_emoji' }));
  assertSuccess(await c.post('/users/me/status', { emoji_name: 'thumbs_up' }));
  assert.deepEqual(assertSuccess(await c.get(`/users/${u.id}/status`)).status, {
    status_text: 'y'.repeat(60),
    emoji_name: 'thumbs_up',
    emoji_code: '1f44d',
    reaction_type: 'unicode_emoji',
  });
});

test('GET /users/{user_id}/status: unknown users, bots, deactivated users, no status', async () => {
  const c = t.client(t.owner);
  const fresh = await t.makeUser();
  assert.deepEqual(assertSuccess(await c.get(`/users/${fresh.id}/status`)), { result: 'success', msg: '', status: {} });
  assertError(await c.get('/users/999999/status'), 400, 'BAD_REQUEST', 'No such user');
  const bot = await t.makeUser({ isBot: true, botOwnerId: t.owner.id, botType: 1 });
  assertError(await c.get(`/users/${bot.id}/status`), 400, 'BAD_REQUEST', 'No such user');
  const gone = await t.makeUser();
  await updateUser(t.server.svc.store.db, gone.id, { is_active: 0 });
  assertError(await c.get(`/users/${gone.id}/status`), 400, 'BAD_REQUEST', 'User is deactivated');
});

test('bots cannot set a status', async () => {
  const bot = await t.makeUser({ isBot: true, botOwnerId: t.owner.id, botType: 1 });
  assertError(await t.client(bot).post('/users/me/status', { status_text: 'beep' }), 400, 'BAD_REQUEST', 'This endpoint does not accept bot requests.');
});

test("/register's user_status: active users with a status or away; a deactivated user's status left out until reactivated", async () => {
  const shown = await t.makeUser();
  const away = await t.makeUser();
  const gone = await t.makeUser();
  assertSuccess(await t.client(shown).post('/users/me/status', { status_text: 'in the lab', emoji_name: 'car' }));
  assertSuccess(await t.client(away).post('/users/me/status', { away: true }));
  assertSuccess(await t.client(gone).post('/users/me/status', { status_text: 'leaving' }));
  const stateOf = async () => assertSuccess(await t.client(t.owner).post('/register', { event_types: JSON.stringify(['user_status']) })).user_status;
  let state = await stateOf();
  assert.deepEqual(state[String(shown.id)], { status_text: 'in the lab', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });
  assert.deepEqual(state[String(away.id)], { away: true });
  assert.deepEqual(state[String(gone.id)], { status_text: 'leaving' });
  assertSuccess(await t.client(t.owner).delete(`/users/${gone.id}`));
  state = await stateOf();
  assert.equal(state[String(gone.id)], undefined);
  assert.deepEqual(state[String(shown.id)], { status_text: 'in the lab', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });
  assertSuccess(await t.client(t.owner).post(`/users/${gone.id}/reactivate`));
  assert.deepEqual((await stateOf())[String(gone.id)], { status_text: 'leaving' });
});
