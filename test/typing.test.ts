/** Typing notifications: POST /typing (direct; channel errors), typing events, /register timing values. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, updateUser, type Account, type TestServer } from './helpers.ts';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(() => t.close());

const typingQueue = (a: Account) => openQueue(t.client(a), { event_types: ['typing'] });
const person = (a: Account) => ({ user_id: a.id, email: a.email });

test('direct typing start/stop: event to every participant, sender included', async () => {
  const [a, b, c, outsider] = [await t.makeUser(), await t.makeUser(), await t.makeUser(), await t.makeUser()];
  const qa = await typingQueue(a);
  const qb = await typingQueue(b);
  const qc = await typingQueue(c);
  const qo = await typingQueue(outsider);
  const res = await t.client(a).post('/typing', { op: 'start', to: [b.id, c.id] });
  assertSuccess(res);
  assertSchema(res, 'POST', '/typing');
  for (const q of [qa, qb, qc]) {
    const events = await q.ofType('typing');
    assert.equal(events.length, 1);
    const { id: _id, ...ev } = events[0];
    assert.deepEqual(ev, {
      type: 'typing',
      op: 'start',
      message_type: 'direct',
      sender: person(a),
      recipients: [person(b), person(c), person(a)],
    });
  }
  assert.deepEqual(await qo.drain(), []);

  // Explicit type=direct, op=stop, sender already listed: no duplicate.
  assertSuccess(await t.client(a).post('/typing', { type: 'direct', op: 'stop', to: [a.id, b.id] }));
  const [stop] = await qb.ofType('typing');
  assert.equal(stop.op, 'stop');
  assert.deepEqual(stop.recipients, [person(a), person(b)]);
  assert.deepEqual(await qc.ofType('typing'), [], 'not part of this conversation');
  assert.deepEqual(await qo.drain(), []);
});

test('typing to yourself only', async () => {
  const a = await t.makeUser();
  const qa = await typingQueue(a);
  assertSuccess(await t.client(a).post('/typing', { op: 'start', to: [a.id] }));
  const [ev] = await qa.ofType('typing');
  assert.deepEqual(ev.recipients, [person(a)]);
});

test('receives_typing_notifications off: that user gets no event, others still do', async () => {
  const [a, b, c] = [await t.makeUser(), await t.makeUser(), await t.makeUser()];
  await t.setUserSetting(b, 'receives_typing_notifications', false);
  const qa = await typingQueue(a);
  const qb = await typingQueue(b);
  const qc = await typingQueue(c);
  assertSuccess(await t.client(a).post('/typing', { op: 'start', to: [b.id, c.id] }));
  assert.deepEqual(await qb.drain(), []);
  const [ev] = await qc.ofType('typing');
  assert.deepEqual(ev.recipients, [person(b), person(c), person(a)], 'b is still a participant');
  assert.equal((await qa.ofType('typing')).length, 1);
});

test('sender with send_private_typing_notifications off: error, no events', async () => {
  const [a, b] = [await t.makeUser(), await t.makeUser()];
  await t.setUserSetting(a, 'send_private_typing_notifications', false);
  const qb = await typingQueue(b);
  assertError(await t.client(a).post('/typing', { op: 'start', to: [b.id] }), 400, 'BAD_REQUEST', 'User has disabled typing notifications for direct messages');
  assert.deepEqual(await qb.drain(), []);
});

test('deactivated participants are listed but not notified', async () => {
  const [a, b] = [await t.makeUser(), await t.makeUser()];
  const qb = await typingQueue(b);
  const qa = await typingQueue(a);
  await updateUser(t.server.svc.store.db, b.id, { is_active: 0 });
  assertSuccess(await t.client(a).post('/typing', { op: 'start', to: [b.id] }));
  // b can no longer poll; look at the queue itself.
  assert.deepEqual(await t.server.svc.queues.poll(qb.queueId, { lastEventId: -1, dontBlock: true, heartbeatSeconds: 1 }), { kind: 'events', events: [] });
  const [ev] = await qa.ofType('typing');
  assert.deepEqual(ev.recipients, [person(b), person(a)]);
});

test('direct typing errors', async () => {
  const a = await t.makeUser();
  const qa = await typingQueue(a);
  const c = t.client(a);
  assertError(await c.post('/typing', { to: [t.owner.id] }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'op' argument");
  assertError(await c.post('/typing', { op: 'begin', to: [t.owner.id] }), 400, 'BAD_REQUEST', 'Invalid op');
  assertError(await c.post('/typing', { op: 'start', type: 'private', to: [t.owner.id] }), 400, 'BAD_REQUEST', 'Invalid type');
  assertError(await c.post('/typing', { op: 'start' }), 400, 'BAD_REQUEST', "Missing 'to' argument");
  assertError(await c.post('/typing', { op: 'start', to: [] }), 400, 'BAD_REQUEST', "Empty 'to' list");
  assertError(await c.post('/typing', { op: 'start', to: [t.owner.id, 987654] }), 400, 'BAD_REQUEST', 'Invalid user ID 987654');
  assertError(await c.post('/typing', { op: 'start', to: 'x' }), 400, 'BAD_REQUEST', 'to is not valid JSON');
  assertError(await c.post('/typing', { op: 'start', to: t.owner.id }), 400, 'BAD_REQUEST', 'to is not a list');
  assert.deepEqual(await qa.drain(), [], 'a rejected request sends nothing');
});

async function channel(name: string, subscribers: Account[], opts: Record<string, unknown> = {}): Promise<number> {
  const res = await t.client(t.owner).post('/channels/create', { name, subscribers: subscribers.map((u) => u.id), ...opts });
  return assertSuccess(res).id as number;
}

test('channel typing: errors', async () => {
  const a = await t.makeUser();
  const c = t.client(a);
  const priv = await channel('typing-private', [t.owner as unknown as Account], { invite_only: true });
  for (const type of ['stream', 'channel']) {
    assertError(await c.post('/typing', { type, op: 'start', topic: 'x' }), 400, 'BAD_REQUEST', "Missing 'stream_id' argument");
    assertError(await c.post('/typing', { type, op: 'start', stream_id: 1 }), 400, 'BAD_REQUEST', 'Missing topic');
    assertError(await c.post('/typing', { type, op: 'start', stream_id: 987654, topic: 'x' }), 400, 'BAD_REQUEST', 'Invalid channel ID');
    assertError(await c.post('/typing', { type, op: 'start', stream_id: priv, topic: 'x' }), 400, 'BAD_REQUEST', 'Invalid channel ID');
  }
  await t.setUserSetting(a, 'send_stream_typing_notifications', false);
  assertError(await c.post('/typing', { type: 'channel', op: 'start', stream_id: priv, topic: 'x' }), 400, 'BAD_REQUEST', 'User has disabled typing notifications for channel messages');
});

test('channel typing: subscribers with the capability and the setting get it', async () => {
  const [a, b, c, d, e] = [await t.makeUser(), await t.makeUser(), await t.makeUser(), await t.makeUser(), await t.makeUser()];
  const sid = await channel('typing-channel', [a, b, c, e]);
  await t.setUserSetting(e, 'receives_typing_notifications', false);
  const caps = { stream_typing_notifications: true };
  const qb = await openQueue(t.client(b), { event_types: ['typing'], client_capabilities: caps });
  const qbEmpty = await openQueue(t.client(b), { event_types: ['typing'], client_capabilities: { ...caps, empty_topic_name: true } });
  const qc = await openQueue(t.client(c), { event_types: ['typing'] });
  const qd = await openQueue(t.client(d), { event_types: ['typing'], client_capabilities: caps });
  const qe = await openQueue(t.client(e), { event_types: ['typing'], client_capabilities: caps });

  assertSuccess(await t.client(a).post('/typing', { type: 'channel', op: 'start', stream_id: sid, topic: 'lunch' }));
  const [ev] = await qb.ofType('typing');
  const { id: _id, ...body } = ev;
  assert.deepEqual(body, { type: 'typing', op: 'start', message_type: 'stream', sender: person(a), stream_id: sid, topic: 'lunch' });
  assert.equal((await qbEmpty.ofType('typing')).length, 1);
  assert.deepEqual(await qc.drain(), [], 'no stream_typing_notifications capability');
  assert.deepEqual(await qd.drain(), [], 'not subscribed');
  assert.deepEqual(await qe.drain(), [], 'receives_typing_notifications off');

  // "(no topic)" means the empty topic, named for clients without empty_topic_name.
  assertSuccess(await t.client(a).post('/typing', { type: 'stream', op: 'stop', stream_id: sid, topic: '(no topic)' }));
  assert.equal((await qb.ofType('typing'))[0].topic, 'general chat');
  assert.equal((await qbEmpty.ofType('typing'))[0].topic, '');
});

test('typing while editing a message: typing_edit_message to those who would see the edit', async () => {
  const [a, b, c] = [await t.makeUser(), await t.makeUser(), await t.makeUser()];
  const sid = await channel('typing-edit', [a, b]);
  const msg = assertSuccess(await t.client(a).post('/messages', { type: 'channel', to: sid, topic: 'plans', content: 'draft' })).id;
  const dm = assertSuccess(await t.client(a).post('/messages', { type: 'direct', to: [b.id], content: 'hi' })).id;
  const qb = await openQueue(t.client(b), { event_types: ['typing_edit_message'] });
  const qc = await openQueue(t.client(c), { event_types: ['typing_edit_message'] });

  assertSuccess(await t.client(a).post(`/messages/${msg}/typing`, { op: 'start' }));
  const [ev] = await qb.ofType('typing_edit_message');
  const { id: _id, ...body } = ev;
  assert.deepEqual(body, { type: 'typing_edit_message', op: 'start', sender_id: a.id, message_id: msg, recipient: { type: 'channel', channel_id: sid, topic: 'plans' } });

  assertSuccess(await t.client(a).post(`/messages/${dm}/typing`, { op: 'stop' }));
  const [ev2] = await qb.ofType('typing_edit_message');
  assert.equal(ev2.op, 'stop');
  assert.equal(ev2.recipient.type, 'direct');
  assert.deepEqual([...ev2.recipient.user_ids].sort((x: number, y: number) => x - y), [a.id, b.id].sort((x, y) => x - y));
  assert.deepEqual(await qc.drain(), [], 'outsiders hear nothing');

  assertError(await t.client(b).post(`/messages/${msg}/typing`, { op: 'start' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
  assertError(await t.client(a).post('/messages/987654/typing', { op: 'start' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
  assertError(await t.client(a).post(`/messages/${msg}/typing`, { op: 'go' }), 400, 'BAD_REQUEST', 'Invalid op');
});

test('/register returns the typing timing values, configurable by environment', async () => {
  const q = await openQueue(t.client(t.owner), { fetch_event_types: ['realm'] });
  assert.equal(q.state.server_typing_started_wait_period_milliseconds, 10000);
  assert.equal(q.state.server_typing_stopped_wait_period_milliseconds, 5000);
  assert.equal(q.state.server_typing_started_expiry_period_milliseconds, 15000);
  const t2 = await startTestServer({
    TYPING_STARTED_WAIT_PERIOD_MILLISECONDS: '2000',
    TYPING_STOPPED_WAIT_PERIOD_MILLISECONDS: '1000',
    TYPING_STARTED_EXPIRY_PERIOD_MILLISECONDS: '3000',
  });
  try {
    const q2 = await openQueue(t2.client(t2.owner), { fetch_event_types: ['realm'] });
    assert.equal(q2.state.server_typing_started_wait_period_milliseconds, 2000);
    assert.equal(q2.state.server_typing_stopped_wait_period_milliseconds, 1000);
    assert.equal(q2.state.server_typing_started_expiry_period_milliseconds, 3000);
  } finally {
    await t2.close();
  }
});
