/** POST /user_topics, PATCH /users/me/subscriptions/muted_topics, user_topic/muted_topics events, register state, is:followed / is:muted. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account, type Client, type Res } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';

let t: TestServer;
let alice: Account, bob: Account;
let A: Client, B: Client;
let pub: number, priv: number;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  // The policies here are the ones the tests set (starting a topic would follow it).
  for (const u of [alice, bob]) await t.setUserSetting(u, 'automatically_follow_topics_policy', 4);
  [A, B] = [alice, bob].map((u) => t.client(u));
  pub = await makeChannel(t, { name: 'pub', subscribers: [alice.id, bob.id] });
  priv = await makeChannel(t, { name: 'priv', inviteOnly: true, subscribers: [bob.id] });
});
after(() => t.close());

const setPolicy = (c: Client, stream_id: number, topic: string, visibility_policy: number) => c.post('/user_topics', { stream_id, topic, visibility_policy });
const strip = ({ id: _id, ...e }: any) => e;
function assertEventSchema(event: any): void {
  const res: Res = { status: 200, body: { result: 'success', msg: '', queue_id: 'q', events: [event] }, headers: new Headers(), text: '' };
  assertSchema(res, 'GET', '/events');
}

test('set, change and clear a policy: response, events to the user only, register state', async () => {
  const modern = await openQueue(A, { event_types: ['user_topic', 'muted_topics'], client_capabilities: { empty_topic_name: true } });
  const legacy = await openQueue(A, { event_types: ['muted_topics'] });
  const other = await openQueue(B, { event_types: ['user_topic', 'muted_topics'] });

  const r = await setPolicy(A, pub, 'Lunch', 1);
  assertSuccess(r);
  assertSchema(r, 'POST', '/user_topics');
  const evs = await modern.drain();
  assert.equal(evs.length, 1, 'no muted_topics copy for a queue that asked for user_topic');
  assert.equal(evs[0].type, 'user_topic');
  assert.equal(typeof evs[0].last_updated, 'number');
  assert.deepEqual(strip(evs[0]), { type: 'user_topic', stream_id: pub, topic_name: 'Lunch', last_updated: evs[0].last_updated, visibility_policy: 1 });
  assertEventSchema(evs[0]);
  const old = await legacy.drain();
  assert.deepEqual(old.map(strip), [{ type: 'muted_topics', muted_topics: [['pub', 'Lunch', evs[0].last_updated]] }]);
  assertEventSchema(old[0]);
  assert.deepEqual(await other.drain(), []);

  // Same policy again (any case): no change, no event.
  assertSuccess(await setPolicy(A, pub, 'lunch', 1));
  assert.deepEqual(await modern.drain(), []);

  // Follow: the row keeps its spelling; the muted list empties.
  assertSuccess(await setPolicy(A, pub, 'LUNCH', 3));
  const follow = await modern.ofType('user_topic');
  assert.equal(follow.length, 1);
  assert.equal(follow[0].visibility_policy, 3);
  assert.deepEqual((await legacy.drain()).map(strip), [{ type: 'muted_topics', muted_topics: [] }]);

  const reg = assertSuccess(await A.post('/register', { fetch_event_types: JSON.stringify(['user_topic']) }));
  assert.deepEqual(reg.user_topics, [{ stream_id: pub, topic_name: 'Lunch', last_updated: follow[0].last_updated, visibility_policy: 3 }]);

  // Clearing removes the row; clearing again is a no-op.
  assertSuccess(await setPolicy(A, pub, 'lunch', 0));
  assert.deepEqual((await modern.ofType('user_topic')).map((e) => [e.topic_name, e.visibility_policy]), [['lunch', 0]]);
  assertSuccess(await setPolicy(A, pub, 'lunch', 0));
  assert.deepEqual(await modern.drain(), []);
  const reg2 = assertSuccess(await A.post('/register', { fetch_event_types: JSON.stringify(['user_topic']) }));
  assert.deepEqual(reg2.user_topics, []);
});

test('the empty topic: "(no topic)" and the display name mean "", named for clients without empty_topic_name', async () => {
  const modern = await openQueue(A, { event_types: ['user_topic'], client_capabilities: { empty_topic_name: true } });
  const plain = await openQueue(A, { event_types: ['user_topic'] });
  assertSuccess(await setPolicy(A, pub, '(no topic)', 1));
  assert.equal((await modern.ofType('user_topic'))[0].topic_name, '');
  assert.equal((await plain.ofType('user_topic'))[0].topic_name, 'general chat');
  assertSuccess(await setPolicy(A, pub, 'general chat', 2));
  assert.equal((await modern.ofType('user_topic'))[0].visibility_policy, 2);
  const withCap = assertSuccess(await A.post('/register', { fetch_event_types: JSON.stringify(['user_topic']), client_capabilities: JSON.stringify({ empty_topic_name: true }) }));
  assert.deepEqual(withCap.user_topics.map((u: any) => u.topic_name), ['']);
  const without = assertSuccess(await A.post('/register', { fetch_event_types: JSON.stringify(['user_topic']) }));
  assert.deepEqual(without.user_topics.map((u: any) => u.topic_name), ['general chat']);
  assertSuccess(await setPolicy(A, pub, '', 0));
});

test('errors: policy, channel access, topic length', async () => {
  assertError(await setPolicy(A, pub, 'x', 4), 400, 'BAD_REQUEST', 'Invalid visibility_policy');
  assertError(await setPolicy(A, priv, 'x', 1), 400, 'BAD_REQUEST', 'Invalid channel ID');
  assertError(await setPolicy(A, 99999, 'x', 1), 400, 'BAD_REQUEST', 'Invalid channel ID');
  assertError(await setPolicy(A, 99999, 'x', 0), 400, 'BAD_REQUEST', 'Invalid channel ID');
  assertError(await setPolicy(A, pub, 'x'.repeat(61), 1), 400, 'BAD_REQUEST', 'topic is too long (limit: 60 characters)');
  assertError(await A.post('/user_topics', { stream_id: pub, topic: 'x' }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'visibility_policy' argument");
  // Removing a policy needs no access to the channel.
  assertSuccess(await setPolicy(A, priv, 'x', 0));
});

test('legacy PATCH /users/me/subscriptions/muted_topics', async () => {
  const q = await openQueue(A, { event_types: ['user_topic'] });
  const r = await A.patch('/users/me/subscriptions/muted_topics', { stream: 'pub', topic: 'old way', op: 'add' });
  assertSuccess(r);
  assertSchema(r, 'PATCH', '/users/me/subscriptions/muted_topics');
  assert.equal((await q.ofType('user_topic'))[0].visibility_policy, 1);
  assertSuccess(await A.patch('/users/me/subscriptions/muted_topics', { stream_id: pub, topic: 'old way', op: 'remove' }));
  assert.equal((await q.ofType('user_topic'))[0].visibility_policy, 0);
  assertError(await A.patch('/users/me/subscriptions/muted_topics', { topic: 't', op: 'add' }), 400, 'BAD_REQUEST', "Please supply 'stream'.");
  assertError(await A.patch('/users/me/subscriptions/muted_topics', { stream: 'pub', stream_id: pub, topic: 't', op: 'add' }), 400, 'BAD_REQUEST', "Please choose one: 'stream' or 'stream_id'.");
  assertError(await A.patch('/users/me/subscriptions/muted_topics', { stream: 'nope', topic: 't', op: 'remove' }), 400, 'BAD_REQUEST', 'Topic is not muted');
  assertError(await A.patch('/users/me/subscriptions/muted_topics', { stream: 'priv', topic: 't', op: 'add' }), 400, 'BAD_REQUEST', "Invalid channel name 'priv'");
  assertError(await A.patch('/users/me/subscriptions/muted_topics', { stream: 'pub', topic: 't', op: 'toggle' }), 400, 'BAD_REQUEST', 'Invalid op');
});

test('narrows is:followed and is:muted follow the policies', async () => {
  const send = async (topic: string) => assertSuccess(await B.post('/messages', { type: 'stream', to: 'pub', topic, content: `in ${topic}` })).id as number;
  const f = await send('followme');
  const m = await send('muteme');
  const n = await send('neutral');
  assertSuccess(await setPolicy(A, pub, 'followme', 3));
  assertSuccess(await setPolicy(A, pub, 'muteme', 1));
  const ids = async (narrow: unknown) => assertSuccess(await A.get('/messages', { anchor: 'newest', num_before: 100, narrow })).messages.map((x: any) => x.id);
  assert.deepEqual(await ids([{ operator: 'is', operand: 'followed' }]), [f]);
  assert.deepEqual(await ids([{ operator: 'is', operand: 'muted' }, { operator: 'channel', operand: 'pub' }]), [m]);
  const notMuted = await ids([{ operator: 'is', operand: 'muted', negated: true }, { operator: 'channel', operand: 'pub' }]);
  assert.ok(notMuted.includes(f) && notMuted.includes(n) && !notMuted.includes(m));
  // Bob set nothing.
  assert.deepEqual(assertSuccess(await B.get('/messages', { anchor: 'newest', num_before: 100, narrow: [{ operator: 'is', operand: 'followed' }] })).messages, []);
});

test('a mention follows the topic for the mentioned user unless they muted it, by the policy set just before the message', async () => {
  const send = async (content: string) => assertSuccess(await A.post('/messages', { type: 'stream', to: String(pub), topic: 'mention policy', content }));
  const policyOf = async () =>
    (assertSuccess(await B.post('/register', { fetch_event_types: ['user_topic'] })).user_topics as any[]).find((u) => u.stream_id === pub && u.topic_name.toLowerCase() === 'mention policy')?.visibility_policy;
  await send('no mention yet');
  assertSuccess(await setPolicy(B, pub, 'Mention Policy', 1)); // muted (the topic in another case)
  const q = await openQueue(B, { event_types: ['user_topic'] });
  await send('@**Bob** while muted');
  assert.deepEqual(await q.drain(), []);
  assert.equal(await policyOf(), 1);
  assertSuccess(await setPolicy(B, pub, 'mention policy', 0)); // back to inherit
  await q.drain();
  await send('@**Bob** now');
  const events = await q.drain();
  assert.deepEqual(events.map((e) => [e.type, e.visibility_policy]), [['user_topic', 3]]);
  assert.equal(await policyOf(), 3);
});
