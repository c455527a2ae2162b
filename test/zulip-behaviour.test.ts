/**
 * Zulip behaviour around existing endpoints: GET /streams
 * include_owner_subscribed, history_limited, channel and subscription events
 * on role changes and (re)activation, and personal topic policies following
 * a moved topic.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertSuccess, openQueue, type TestServer, type Account } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';

let t: TestServer;
let alice: Account, bob: Account, carol: Account;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  carol = await t.makeUser({ name: 'Carol' });
});
after(() => t.close());

test('GET /streams include_owner_subscribed: a bot sees its owner\'s channels, private ones included', async () => {
  const priv = await makeChannel(t, { name: 'owner-private', inviteOnly: true, subscribers: [alice.id] });
  const other = await makeChannel(t, { name: 'not-owner-private', inviteOnly: true, subscribers: [bob.id] });
  const bot = await t.makeUser({ name: 'Owned bot', isBot: true, botOwnerId: alice.id, botType: 1 });
  const ids = async (params: Record<string, unknown>) => (assertSuccess(await t.client(bot).get('/streams', params)).streams as any[]).map((s) => s.stream_id);
  const withOwner = await ids({ include_public: false, include_owner_subscribed: true });
  assert.ok(withOwner.includes(priv));
  assert.ok(!withOwner.includes(other));
  assert.ok(!(await ids({})).includes(priv));
  // Only bots have owners.
  const forHuman = (assertSuccess(await t.client(bob).get('/streams', { include_public: false, include_subscribed: false, include_owner_subscribed: true })).streams as any[]).map((s) => s.stream_id);
  assert.deepEqual(forHuman, []);
});

test('history_limited: messages older than the visibility limit are cut, and the response says so', async () => {
  const t2 = await startTestServer({ PARLEY_MESSAGE_VISIBILITY_LIMIT: '3' });
  try {
    const u = await t2.makeUser({ name: 'Limited' });
    const sid = await makeChannel(t2, { name: 'limited', subscribers: [u.id] });
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(assertSuccess(await t2.client(u).post('/messages', { type: 'stream', to: sid, topic: 't', content: `m${i}` })).id);
    const all = assertSuccess(await t2.client(u).get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'channel', operand: sid }] }));
    assert.deepEqual(all.messages.map((m: any) => m.id), ids.slice(2));
    assert.equal(all.found_oldest, true);
    assert.equal(all.history_limited, true);
    const recent = assertSuccess(await t2.client(u).get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'channel', operand: sid }] }));
    assert.equal(recent.found_oldest, false);
    assert.equal(recent.history_limited, false);
  } finally {
    await t2.close();
  }
  const free = assertSuccess(await t.client(alice).get('/messages', { anchor: 'newest', num_before: 10, num_after: 0 }));
  assert.equal(free.history_limited, false);
});

test('a role change sends stream create/delete (and peer_add) for channels gained or lost', async () => {
  const priv = await makeChannel(t, { name: 'role-private', inviteOnly: true, subscribers: [alice.id] });
  const user = await t.makeUser({ name: 'Promoted' });
  const q = await openQueue(t.client(user), { event_types: ['stream', 'subscription'] });
  assertSuccess(await t.client(t.owner).patch(`/users/${user.id}`, { role: 200 }));
  const evs = await q.drain();
  const create = evs.find((e) => e.type === 'stream' && e.op === 'create');
  assert.ok(create, JSON.stringify(evs));
  assert.ok(create.streams.some((s: any) => s.stream_id === priv));
  const peer = evs.find((e) => e.type === 'subscription' && e.op === 'peer_add' && e.stream_ids[0] === priv);
  assert.deepEqual(peer.user_ids, [alice.id]);
  assertSuccess(await t.client(t.owner).patch(`/users/${user.id}`, { role: 400 }));
  const del = (await q.drain()).find((e) => e.type === 'stream' && e.op === 'delete');
  assert.ok(del);
  assert.ok(del.stream_ids.includes(priv));
  // The promoted user's state agrees: the private channel is gone again.
  const reg = assertSuccess(await t.client(user).post('/register', { fetch_event_types: ['stream'] }));
  assert.ok(!reg.streams.some((s: any) => s.stream_id === priv));
});

test('deactivation and reactivation: peer_remove and peer_add to those who see the subscriber lists', async () => {
  const sid = await makeChannel(t, { name: 'peers', subscribers: [alice.id, carol.id] });
  const priv = await makeChannel(t, { name: 'peers-private', inviteOnly: true, subscribers: [carol.id, alice.id] });
  const leaving = await t.makeUser({ name: 'Leaving' });
  const { subscribe } = await import('./messages-fixtures.ts');
  await subscribe(t, sid, [leaving.id]);
  await subscribe(t, priv, [leaving.id]);
  const qAlice = await openQueue(t.client(alice), { event_types: ['subscription'] });
  const qBob = await openQueue(t.client(bob), { event_types: ['subscription'] });
  assertSuccess(await t.client(t.owner).delete(`/users/${leaving.id}`));
  const mine = (e: any) => e.stream_ids[0] === sid || e.stream_ids[0] === priv;
  const removed = (await qAlice.ofType('subscription')).filter((e) => e.op === 'peer_remove' && mine(e));
  assert.deepEqual(removed.map((e) => e.stream_ids[0]).sort(), [sid, priv].sort());
  for (const e of removed) assert.deepEqual(e.user_ids, [leaving.id]);
  // Bob sees the public channel's subscribers only.
  assert.deepEqual((await qBob.ofType('subscription')).filter(mine).map((e) => [e.op, e.stream_ids[0]]), [['peer_remove', sid]]);
  assertSuccess(await t.client(t.owner).post(`/users/${leaving.id}/reactivate`));
  const added = (await qAlice.ofType('subscription')).filter((e) => e.op === 'peer_add' && mine(e));
  assert.deepEqual(added.map((e) => e.stream_ids[0]).sort(), [sid, priv].sort());
});

test('personal topic policies move with the whole topic, merging into an existing one', async () => {
  const sid = await makeChannel(t, { name: 'policies', subscribers: [alice.id, bob.id, carol.id] });
  const a = t.client(alice);
  const first = assertSuccess(await a.post('/messages', { type: 'stream', to: sid, topic: 'old', content: 'x' })).id;
  assertSuccess(await a.post('/messages', { type: 'stream', to: sid, topic: 'existing', content: 'y' }));
  assertSuccess(await a.post('/user_topics', { stream_id: sid, topic: 'old', visibility_policy: 3 })); // followed
  assertSuccess(await t.client(bob).post('/user_topics', { stream_id: sid, topic: 'old', visibility_policy: 1 })); // muted
  assertSuccess(await t.client(bob).post('/user_topics', { stream_id: sid, topic: 'existing', visibility_policy: 2 })); // unmuted
  assertSuccess(await t.client(carol).post('/user_topics', { stream_id: sid, topic: 'old', visibility_policy: 1 }));
  const qAlice = await openQueue(a, { event_types: ['user_topic'] });

  // Renamed to a new topic: policies move unchanged.
  assertSuccess(await a.patch(`/messages/${first}`, { topic: 'renamed', propagate_mode: 'change_all', send_notification_to_old_thread: false, send_notification_to_new_thread: false }));
  const evs = await qAlice.ofType('user_topic');
  assert.deepEqual(evs.map((e) => [e.topic_name, e.visibility_policy]), [['old', 0], ['renamed', 3]]);
  const policies = async (acc: Account) =>
    (assertSuccess(await t.client(acc).post('/register', { fetch_event_types: ['user_topic'] })).user_topics as any[])
      .filter((r) => r.stream_id === sid)
      .map((r) => [r.topic_name, r.visibility_policy])
      .sort();
  assert.deepEqual(await policies(alice), [['renamed', 3]]);

  // Merged into a topic with messages: the more visible policy wins (unmuted over muted), muted+nothing → nothing.
  assertSuccess(await a.patch(`/messages/${first}`, { topic: 'existing', propagate_mode: 'change_all', send_notification_to_old_thread: false, send_notification_to_new_thread: false }));
  assert.deepEqual(await policies(bob), [['existing', 2]]);
  assert.deepEqual(await policies(carol), []);
  assert.deepEqual(await policies(alice), []);
});
