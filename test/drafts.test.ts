/** Draft synchronization: /drafts endpoints, validation errors, drafts events, /register state, disabling sync. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';

let t: TestServer;
let alice: Account, bob: Account, carol: Account;
let sid: number, privId: number;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  carol = await t.makeUser({ name: 'Carol' });
  sid = await makeChannel(t, { name: 'drafts-pub', subscribers: [alice.id, bob.id] });
  privId = await makeChannel(t, { name: 'drafts-priv', inviteOnly: true, subscribers: [bob.id] });
});
after(() => t.close());

const streamDraft = (extra: Record<string, unknown> = {}) => ({ type: 'stream', to: [sid], topic: 'plans', content: 'hello there', timestamp: 1595479019, ...extra });

test('create, list, edit and delete drafts with events to all of the user\'s queues only', async () => {
  const a = t.client(alice);
  const q1 = await openQueue(a, { event_types: ['drafts'] });
  const q2 = await openQueue(a, { event_types: ['drafts'] });
  const qBob = await openQueue(t.client(bob), { event_types: ['drafts'] });

  const created = await a.post('/drafts', {
    drafts: [streamDraft(), { type: 'private', to: [bob.id], topic: '', content: '  dm text \n' }, { type: '', to: [], topic: '', content: 'loose' }],
  });
  assertSuccess(created);
  assertSchema(created, 'POST', '/drafts');
  const ids = created.body.ids as number[];
  assert.equal(ids.length, 3);

  for (const q of [q1, q2]) {
    const evs = await q.ofType('drafts');
    assert.equal(evs.length, 1);
    assert.equal(evs[0].op, 'add');
    assert.deepEqual(evs[0].drafts.map((d: any) => d.id), ids);
    assert.deepEqual(evs[0].drafts[0], { id: ids[0], type: 'stream', to: [sid], topic: 'plans', content: 'hello there', timestamp: 1595479019 });
    assert.equal(evs[0].drafts[1].content, 'dm text');
    assert.deepEqual(evs[0].drafts[1].to, [bob.id]);
    assert.ok(Number.isInteger(evs[0].drafts[2].timestamp) && evs[0].drafts[2].timestamp > 1595479019);
  }
  assert.deepEqual(await qBob.ofType('drafts'), []);

  const list = await a.get('/drafts');
  assertSuccess(list);
  assertSchema(list, 'GET', '/drafts');
  assert.equal(list.body.count, 3);
  assert.equal(list.body.drafts[0].id, ids[0]); // oldest edit first
  assert.deepEqual((assertSuccess(await t.client(bob).get('/drafts'))).drafts, []);

  const edit = await a.patch(`/drafts/${ids[0]}`, { draft: streamDraft({ topic: 'new plans', timestamp: 1600000000 }) });
  assertSuccess(edit);
  assertSchema(edit, 'PATCH', '/drafts/{draft_id}');
  const up = await q1.ofType('drafts');
  assert.deepEqual(up, [{ type: 'drafts', op: 'update', id: up[0].id, draft: { id: ids[0], type: 'stream', to: [sid], topic: 'new plans', content: 'hello there', timestamp: 1600000000 } }]);
  assert.equal((await q2.ofType('drafts')).length, 1);

  const del = await a.delete(`/drafts/${ids[1]}`);
  assertSuccess(del);
  assertSchema(del, 'DELETE', '/drafts/{draft_id}');
  const rm = await q1.ofType('drafts');
  assert.deepEqual(rm.map((e) => [e.op, e.draft_id]), [['remove', ids[1]]]);
  assert.deepEqual(await qBob.ofType('drafts'), []);

  // Someone else's draft does not exist for you.
  assertError(await t.client(bob).delete(`/drafts/${ids[0]}`), 404, 'BAD_REQUEST', 'Draft does not exist');
  assertError(await t.client(bob).patch(`/drafts/${ids[0]}`, { draft: streamDraft() }), 404, 'BAD_REQUEST', 'Draft does not exist');
  assertError(await a.delete(`/drafts/${ids[1]}`), 404, 'BAD_REQUEST', 'Draft does not exist');
  assertError(await a.patch('/drafts/999999', { draft: streamDraft() }), 404, 'BAD_REQUEST', 'Draft does not exist');

  // /register: the user's drafts, newest edit first.
  const reg = assertSuccess(await a.post('/register', { fetch_event_types: ['drafts'] }));
  assert.deepEqual(reg.drafts.map((d: any) => d.id), [ids[2], ids[0]]);
  const regBob = assertSuccess(await t.client(bob).post('/register', { fetch_event_types: ['drafts'] }));
  assert.deepEqual(regBob.drafts, []);
});

test('direct-message drafts: recipients stored like the conversation', async () => {
  const a = t.client(alice);
  const res = assertSuccess(await a.post('/drafts', {
    drafts: [
      { type: 'private', to: [carol.id, bob.id, alice.id], topic: 'ignored', content: 'group' },
      { type: 'private', to: [alice.id], topic: '', content: 'note to self' },
      { type: 'private', to: [], topic: '', content: 'nobody yet' },
    ],
  }));
  const all = assertSuccess(await a.get('/drafts')).drafts as any[];
  const byId = new Map(all.map((d) => [d.id, d]));
  assert.deepEqual(byId.get(res.ids[0]), { ...byId.get(res.ids[0]), type: 'private', to: [bob.id, carol.id].sort((x, y) => x - y), topic: '' });
  assert.deepEqual(byId.get(res.ids[1]).to, [alice.id]);
  assert.equal(byId.get(res.ids[2]).type, '');
  assert.deepEqual(byId.get(res.ids[2]).to, []);
});

test('validation errors use Zulip\'s messages and create nothing', async () => {
  const a = t.client(alice);
  const before = assertSuccess(await a.get('/drafts')).count;
  const bad = async (drafts: unknown, msg: string, code = 'BAD_REQUEST') => {
    assertError(await a.post('/drafts', { drafts }), 400, code, msg);
  };
  await bad([streamDraft({ type: 'channel' })], 'Invalid drafts[0]["type"]');
  await bad([streamDraft({ to: [sid, sid] })], 'Must specify exactly 1 stream ID for stream messages');
  await bad([streamDraft({ to: [] })], 'Must specify exactly 1 stream ID for stream messages');
  await bad([streamDraft({ to: [privId] })], 'Invalid channel ID');
  await bad([streamDraft({ to: [999999] })], 'Invalid channel ID');
  await bad([streamDraft({ topic: 'a\u0000b' })], 'Topic must not contain null bytes');
  await bad([streamDraft({ content: 'a\u0000b' })], 'Message must not contain null bytes');
  await bad([streamDraft({ content: '   ' })], 'drafts[0]["content"] cannot be blank');
  await bad([streamDraft({ timestamp: -5 })], 'Timestamp must not be negative.');
  await bad([streamDraft({ timestamp: 'soon' })], 'drafts[0]["timestamp"] is not a float');
  await bad([streamDraft({ to: ['x'] })], 'drafts[0]["to"][0] is not an integer');
  await bad([streamDraft({ topic: 5 })], 'drafts[0]["topic"] is not a string');
  await bad([{ type: 'stream', to: [sid], content: 'x' }], 'drafts[0]["topic"] field is missing');
  await bad([streamDraft({ id: 3 })], 'Argument "id" at drafts[0]["id"] is unexpected');
  await bad([streamDraft(), 'nope'], 'drafts[1] is not a dict');
  await bad({ type: 'stream' }, 'drafts is not a list');
  await bad('[not json', 'drafts is not valid JSON');
  await bad([{ type: 'private', to: [999999], topic: '', content: 'x' }], 'Invalid user ID 999999');
  assertError(await a.post('/drafts', {}), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'drafts' argument");
  // A partly valid batch stores nothing.
  await bad([streamDraft(), streamDraft({ to: [999999] })], 'Invalid channel ID');
  assert.equal(assertSuccess(await a.get('/drafts')).count, before);

  const id = assertSuccess(await a.post('/drafts', { drafts: [streamDraft()] })).ids[0];
  assertError(await a.patch(`/drafts/${id}`, { draft: { ...streamDraft(), type: 'x' } }), 400, 'BAD_REQUEST', 'Invalid draft["type"]');
  assertError(await a.patch(`/drafts/${id}`, {}), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'draft' argument");
});

test('deactivated recipients are refused', async () => {
  const gone = await t.makeUser({ name: 'Gone' });
  assertSuccess(await t.client(t.owner).delete(`/users/${gone.id}`));
  assertError(await t.client(alice).post('/drafts', { drafts: [{ type: 'private', to: [gone.id], topic: '', content: 'x' }] }), 400, 'BAD_REQUEST', `'${gone.email}' is no longer using Zulip.`);
});

test('turning enable_drafts_synchronization off deletes the stored drafts; the endpoints then refuse', async () => {
  const dave = await t.makeUser({ name: 'Dave' });
  const d = t.client(dave);
  assertSuccess(await d.post('/drafts', { drafts: [streamDraft({ to: [sid] }), { type: '', to: [], topic: '', content: 'x' }] }));
  assertSuccess(await t.client(alice).post('/drafts', { drafts: [{ type: '', to: [], topic: '', content: 'alice keeps' }] }));
  const aliceCount = assertSuccess(await t.client(alice).get('/drafts')).count;
  const q = await openQueue(d, { event_types: ['drafts'] });

  assertSuccess(await d.patch('/settings', { enable_drafts_synchronization: false }));
  // No drafts events: only syncing stopped (as Zulip).
  assert.deepEqual(await q.ofType('drafts'), []);
  const msg = 'User has disabled synchronizing drafts.';
  assertError(await d.get('/drafts'), 400, 'BAD_REQUEST', msg);
  // The setting is checked before the parameters.
  assertError(await d.post('/drafts', {}), 400, 'BAD_REQUEST', msg);
  assertError(await d.post('/drafts', { drafts: [streamDraft()] }), 400, 'BAD_REQUEST', msg);
  assertError(await d.patch('/drafts/1', { draft: 'junk' }), 400, 'BAD_REQUEST', msg);
  assertError(await d.delete('/drafts/1'), 400, 'BAD_REQUEST', msg);
  assert.deepEqual(assertSuccess(await d.post('/register', { fetch_event_types: ['drafts'] })).drafts, []);

  assertSuccess(await d.patch('/settings', { enable_drafts_synchronization: true }));
  assert.equal(assertSuccess(await d.get('/drafts')).count, 0);
  // Other users' drafts are untouched.
  assert.equal(assertSuccess(await t.client(alice).get('/drafts')).count, aliceCount);
});
