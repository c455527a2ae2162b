/** POST /messages/flags, /messages/flags/narrow, /mark_*_as_read, update_message_flags events. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account, type Client } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';

let t: TestServer;
let alice: Account;
let bob: Account;
let A: Client;
let B: Client;
let general: number;
let lurk: number;
const m: number[] = [];
let lurkMsg: number;

const send = async (c: Client, p: Record<string, unknown>) => assertSuccess(await c.post('/messages', p)).id as number;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  A = t.client(alice);
  B = t.client(bob);
  general = await makeChannel(t, { name: 'general', subscribers: [alice.id, bob.id] });
  lurk = await makeChannel(t, { name: 'lurk', subscribers: [alice.id] });
  for (let i = 0; i < 4; i++) m.push(await send(A, { type: 'stream', to: 'general', topic: i < 2 ? 'a' : 'b', content: `m${i}` }));
  m.push(await send(A, { type: 'direct', to: JSON.stringify([bob.id]), content: 'dm' }));
  lurkMsg = await send(A, { type: 'stream', to: 'lurk', topic: 'x', content: 'not for bob yet' });
});
after(() => t.close());

test('flags: add/remove read and starred, events, errors', async () => {
  const q = await openQueue(B, { event_types: ['update_message_flags'] });
  const qa = await openQueue(A, { event_types: ['update_message_flags'] });
  let r = await B.post('/messages/flags', { messages: JSON.stringify([m[0], m[1]]), op: 'add', flag: 'read' });
  assertSuccess(r);
  assertSchema(r, 'POST', '/messages/flags');
  assert.deepEqual(r.body.messages, [m[0], m[1]]);
  let [e] = await q.ofType('update_message_flags');
  assert.deepEqual({ op: e.op, flag: e.flag, messages: e.messages, all: e.all }, { op: 'add', flag: 'read', messages: [m[0], m[1]], all: false });
  assert.deepEqual(await qa.ofType('update_message_flags'), []);
  // Already read: no change.
  assertSuccess(await B.post('/messages/flags', { messages: JSON.stringify([m[0]]), op: 'add', flag: 'read' }));
  [e] = await q.ofType('update_message_flags');
  assert.deepEqual(e.messages, []);
  // Mark unread: message_details.
  assertSuccess(await B.post('/messages/flags', { messages: JSON.stringify([m[4]]), op: 'add', flag: 'read' }));
  await q.drain();
  assertSuccess(await B.post('/messages/flags', { messages: JSON.stringify([m[0], m[4]]), op: 'remove', flag: 'read' }));
  [e] = await q.ofType('update_message_flags');
  assert.deepEqual(e.message_details[String(m[0])], { type: 'stream', stream_id: general, topic: 'a', unmuted_stream_msg: true });
  assert.deepEqual(e.message_details[String(m[4])], { type: 'private', user_ids: [alice.id] });
  assertSuccess(await B.post('/messages/flags', { messages: JSON.stringify([m[2]]), op: 'add', flag: 'starred' }));
  const g = await B.get(`/messages/${m[2]}`);
  assert.deepEqual(g.body.message.flags, ['starred']);
  const starred = await B.get('/messages', { anchor: 'newest', num_before: 10, narrow: JSON.stringify([{ operator: 'is', operand: 'starred' }]) });
  assert.deepEqual(starred.body.messages.map((x: any) => x.id), [m[2]]);
  assertError(await B.post('/messages/flags', { messages: '[1]', op: 'add', flag: 'bogus' }), 400, 'BAD_REQUEST', "Invalid flag: 'bogus'");
  assertError(await B.post('/messages/flags', { messages: '[1]', op: 'add', flag: 'mentioned' }), 400, 'BAD_REQUEST', "Flag not editable: 'mentioned'");
  assertError(await B.post('/messages/flags', { messages: '[1]', op: 'toggle', flag: 'read' }), 400, 'BAD_REQUEST', "Invalid message flag operation: 'toggle'");
});

test('flags on accessible history create historical rows; inaccessible messages fail', async () => {
  // Bob is not subscribed to the public channel "lurk" but may star its messages.
  assertSuccess(await B.post('/messages/flags', { messages: JSON.stringify([lurkMsg]), op: 'add', flag: 'starred' }));
  const g = await B.get(`/messages/${lurkMsg}`);
  assert.deepEqual(g.body.message.flags.sort(), ['historical', 'read', 'starred']);
  // Marking unread in an unsubscribed channel is ignored.
  const r = await B.post('/messages/flags', { messages: JSON.stringify([lurkMsg]), op: 'remove', flag: 'read' });
  assert.deepEqual(r.body.ignored_because_not_subscribed_channels, [lurk]);
  const priv = await makeChannel(t, { name: 'priv', inviteOnly: true, subscribers: [alice.id] });
  const pm = await send(A, { type: 'stream', to: String(priv), topic: 'x', content: 'secret' });
  assertError(await B.post('/messages/flags', { messages: JSON.stringify([pm]), op: 'add', flag: 'starred' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
});

test('flags/narrow', async () => {
  const r = await B.post('/messages/flags/narrow', {
    anchor: 'oldest',
    num_before: 0,
    num_after: 10,
    narrow: JSON.stringify([{ operator: 'channel', operand: general }, { operator: 'topic', operand: 'b' }]),
    op: 'add',
    flag: 'read',
  });
  assertSuccess(r);
  assertSchema(r, 'POST', '/messages/flags/narrow');
  assert.equal(r.body.processed_count, 2);
  assert.equal(r.body.updated_count, 2);
  assert.equal(r.body.first_processed_id, m[2]);
  assert.equal(r.body.last_processed_id, m[3]);
  assert.equal(r.body.found_oldest, true);
  assert.equal(r.body.found_newest, true);
  assertError(await B.post('/messages/flags/narrow', { anchor: 'newest', num_before: 1, num_after: 1, include_anchor: false, narrow: '[]', op: 'add', flag: 'read' }), 400, 'BAD_REQUEST', 'The anchor can only be excluded at an end of the range');
});

test('mark_topic/stream/all as read', async () => {
  const q = await openQueue(B, { event_types: ['update_message_flags'] });
  assertSuccess(await B.post('/messages/flags', { messages: JSON.stringify(m), op: 'remove', flag: 'read' }));
  await q.drain();
  let r = await B.post('/mark_topic_as_read', { stream_id: general, topic_name: 'a' });
  assertSuccess(r);
  assertSchema(r, 'POST', '/mark_topic_as_read');
  let [e] = await q.ofType('update_message_flags');
  assert.deepEqual(e.messages, [m[0], m[1]]);
  assertError(await B.post('/mark_topic_as_read', { stream_id: general, topic_name: 'nope' }), 400, 'BAD_REQUEST', "No such topic 'nope'");
  r = await B.post('/mark_stream_as_read', { stream_id: general });
  assertSuccess(r);
  [e] = await q.ofType('update_message_flags');
  assert.deepEqual(e.messages, [m[2], m[3]]);
  assertError(await B.post('/mark_stream_as_read', { stream_id: 999999 }), 400, 'BAD_REQUEST', 'Invalid channel ID');
  r = await B.post('/mark_all_as_read', {});
  assertSuccess(r);
  assert.equal(r.body.complete, true);
  [e] = await q.ofType('update_message_flags');
  assert.deepEqual({ all: e.all, messages: e.messages, flag: e.flag, op: e.op }, { all: true, messages: [], flag: 'read', op: 'add' });
  const reg = await openQueue(B, { fetch_event_types: ['message', 'update_message_flags'] });
  assert.equal(reg.state.unread_msgs.count, 0);
});

test('unread_msgs leaves out channels the user has left, and has them again after resubscribing; archiving keeps them', async () => {
  const leave = await makeChannel(t, { name: 'leave-me', subscribers: [alice.id, bob.id] });
  const sent = [await send(A, { type: 'stream', to: 'leave-me', topic: 't', content: 'one' }), await send(A, { type: 'stream', to: 'leave-me', topic: 't', content: 'two' })];
  const unreadIn = async () => {
    const reg = await openQueue(B, { fetch_event_types: ['message', 'update_message_flags'] });
    const u = reg.state.unread_msgs;
    return { ids: u.streams.filter((s: { stream_id: number }) => s.stream_id === leave).flatMap((s: { unread_message_ids: number[] }) => s.unread_message_ids), count: u.count };
  };
  const before = await unreadIn();
  assert.deepEqual(before.ids, sent);
  assertSuccess(await B.delete('/users/me/subscriptions', { subscriptions: JSON.stringify(['leave-me']) }));
  const left = await unreadIn();
  assert.deepEqual(left.ids, []);
  assert.equal(left.count, before.count - 2);
  assertSuccess(await B.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'leave-me' }]) }));
  assert.deepEqual((await unreadIn()).ids, sent);
  // An archived channel's subscribers stay subscribed, unread messages and all.
  assertSuccess(await t.client(t.owner).delete(`/streams/${leave}`));
  assert.deepEqual((await unreadIn()).ids, sent);
});

test('a message outside the user\'s channels starred by several requests at once: one historical row, every request answered', async () => {
  const id = await send(A, { type: 'stream', to: 'lurk', topic: 'double tap', content: 'star me twice' });
  const results = await Promise.all(Array.from({ length: 4 }, () => B.post('/messages/flags', { messages: JSON.stringify([id]), op: 'add', flag: 'starred' })));
  for (const r of results) assertSuccess(r);
  const g = assertSuccess(await B.get(`/messages/${id}`)).message;
  assert.deepEqual([...g.flags].sort(), ['historical', 'read', 'starred']);
});

test('the empty topic is named for clients without empty_topic_name: unread_msgs, message_details, delete_message', async () => {
  const empty = await send(A, { type: 'stream', to: 'general', topic: '', content: 'in general chat' });
  const unreadTopics = async (caps: Record<string, boolean>) => {
    const r = assertSuccess(await B.post('/register', { fetch_event_types: JSON.stringify(['message', 'update_message_flags']), client_capabilities: JSON.stringify(caps) }));
    return (r.unread_msgs.streams as Array<{ topic: string; unread_message_ids: number[] }>).filter((s) => s.unread_message_ids.includes(empty)).map((s) => s.topic);
  };
  assert.deepEqual(await unreadTopics({}), ['general chat']);
  assert.deepEqual(await unreadTopics({ empty_topic_name: true }), ['']);

  const old = await openQueue(B, { event_types: ['update_message_flags', 'delete_message'], client_capabilities: { bulk_message_deletion: true } });
  const modern = await openQueue(B, { event_types: ['update_message_flags', 'delete_message'], client_capabilities: { bulk_message_deletion: true, empty_topic_name: true } });
  assertSuccess(await B.post('/messages/flags', { messages: JSON.stringify([empty]), op: 'add', flag: 'read' }));
  assertSuccess(await B.post('/messages/flags', { messages: JSON.stringify([empty]), op: 'remove', flag: 'read' }));
  const detail = (e: { message_details?: Record<string, unknown> }) => e.message_details?.[String(empty)];
  assert.deepEqual(detail((await old.ofType('update_message_flags'))[1]), { type: 'stream', stream_id: general, topic: 'general chat', unmuted_stream_msg: true });
  assert.deepEqual(detail((await modern.ofType('update_message_flags'))[1]), { type: 'stream', stream_id: general, topic: '', unmuted_stream_msg: true });

  assertSuccess(await t.client(t.owner).delete(`/messages/${empty}`));
  const [d1] = await old.ofType('delete_message');
  const [d2] = await modern.ofType('delete_message');
  assert.deepEqual([d1.message_ids, d1.topic, d1.stream_id], [[empty], 'general chat', general]);
  assert.deepEqual([d2.message_ids, d2.topic, d2.stream_id], [[empty], '', general]);
});
