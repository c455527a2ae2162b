/** Scheduled messages: POST/GET/PATCH/DELETE /scheduled_messages, events, /register state and delivery. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, sleep, type TestServer, type Account, type Client, type Res } from './helpers.ts';
import { makeChannel, setRealmSetting } from './messages-fixtures.ts';
import { deliverDueScheduledMessages, deliverOne, LATE_CUTOFF_SECONDS } from '../src/actions/scheduled-messages.ts';
import { scheduledMessageById } from '../src/store/scheduled-messages.ts';
import { NOTIFICATION_BOT_EMAIL } from '../src/actions/system-bots.ts';

let t: TestServer;
let alice: Account, bob: Account, carol: Account;
let A: Client, B: Client, C: Client;
let pub: number, secret: number;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  carol = await t.makeUser({ name: 'Carol' });
  [A, B, C] = [alice, bob, carol].map((u) => t.client(u));
  pub = await makeChannel(t, { name: 'pub', subscribers: [alice.id, bob.id] });
  secret = await makeChannel(t, { name: 'secret', inviteOnly: true, subscribers: [bob.id] });
});
after(() => t.close());

const now = () => Math.floor(Date.now() / 1000);
/** Far enough ahead that the server's own timer never delivers it during the test. */
const later = () => now() + 3600;
const schedule = (c: Client, params: Record<string, unknown>) => c.post('/scheduled_messages', { scheduled_delivery_timestamp: later(), ...params });
const scheduleOk = async (c: Client, params: Record<string, unknown>) => assertSuccess(await schedule(c, params)).scheduled_message_id as number;
const list = async (c: Client) => assertSuccess(await c.get('/scheduled_messages')).scheduled_messages as any[];
const find = async (c: Client, id: number) => (await list(c)).find((m) => m.scheduled_message_id === id);

function assertEventSchema(event: Record<string, any>): void {
  const res: Res = { status: 200, body: { result: 'success', msg: '', queue_id: 'q', events: [event] }, headers: new Headers(), text: '' };
  assertSchema(res, 'GET', '/events');
}

async function lastMessages(c: Client, n = 5): Promise<any[]> {
  return assertSuccess(await c.get('/messages', { anchor: 'newest', num_before: n, num_after: 0, apply_markdown: false })).messages as any[];
}

test('create a channel message: response, GET shape, add event to the sender only, /register state', async () => {
  const qa = await openQueue(A, { event_types: ['scheduled_messages'] });
  const qb = await openQueue(B, { event_types: ['scheduled_messages'] });
  const ts = later();
  const r = await A.post('/scheduled_messages', { type: 'stream', to: pub, topic: 'plans', content: 'hello **all**', scheduled_delivery_timestamp: ts });
  assertSuccess(r);
  assertSchema(r, 'POST', '/scheduled_messages');
  const id = r.body.scheduled_message_id;
  assert.equal(typeof id, 'number');

  const g = await A.get('/scheduled_messages');
  assertSuccess(g);
  assertSchema(g, 'GET', '/scheduled_messages');
  const m = g.body.scheduled_messages.find((x: any) => x.scheduled_message_id === id);
  assert.deepEqual(m, { scheduled_message_id: id, to: pub, type: 'stream', content: 'hello **all**', rendered_content: '<p>hello <strong>all</strong></p>', topic: 'plans', scheduled_delivery_timestamp: ts, failed: false });
  assert.equal(await find(B, id), undefined, 'not in another user\'s list');

  const [ev] = await qa.ofType('scheduled_messages');
  assertEventSchema(ev);
  assert.equal(ev.op, 'add');
  assert.deepEqual(ev.scheduled_messages, [m]);
  assert.deepEqual(await qb.ofType('scheduled_messages'), [], 'other users get no event');

  const reg = assertSuccess(await A.post('/register', { fetch_event_types: ['scheduled_messages'] }));
  assert.ok(reg.scheduled_messages.some((x: any) => x.scheduled_message_id === id));
  const regB = assertSuccess(await B.post('/register', { fetch_event_types: ['scheduled_messages'] }));
  assert.ok(!regB.scheduled_messages.some((x: any) => x.scheduled_message_id === id));
  assertSuccess(await A.delete(`/scheduled_messages/${id}`));
});

test('create direct messages: type private, to lists the other participants (or the sender alone)', async () => {
  for (const type of ['direct', 'private']) {
    const id = await scheduleOk(A, { type, to: JSON.stringify([bob.id, carol.id]), content: 'group' });
    const m = await find(A, id);
    assert.equal(m.type, 'private');
    assert.deepEqual([...m.to].sort((a: number, b: number) => a - b), [bob.id, carol.id].sort((a, b) => a - b));
    assert.ok(!('topic' in m));
    assertSuccess(await A.delete(`/scheduled_messages/${id}`));
  }
  const self = await scheduleOk(A, { type: 'direct', to: JSON.stringify([alice.id]), content: 'note to self', topic: 'ignored' });
  assert.deepEqual((await find(A, self)).to, [alice.id]);
  const one = await scheduleOk(A, { type: 'direct', to: JSON.stringify([bob.id, bob.id]), content: 'hi' });
  assert.deepEqual((await find(A, one)).to, [bob.id]);
  const ch = await scheduleOk(A, { type: 'channel', to: String(pub), topic: 'x', content: 'channel type' });
  assert.equal((await find(A, ch)).type, 'stream');
  for (const id of [self, one, ch]) assertSuccess(await A.delete(`/scheduled_messages/${id}`));
});

test('topics: "(no topic)" and the display name mean the empty topic; truncation; topics policy', async () => {
  const q = await openQueue(A, { event_types: ['scheduled_messages'], client_capabilities: { empty_topic_name: true } });
  const qOld = await openQueue(A, { event_types: ['scheduled_messages'] });
  const a = await scheduleOk(A, { type: 'stream', to: pub, topic: '(no topic)', content: 'x' });
  assert.equal((await find(A, a)).topic, '');
  const [ev] = await q.ofType('scheduled_messages');
  assert.equal(ev.scheduled_messages[0].topic, '');
  const [evOld] = await qOld.ofType('scheduled_messages');
  assert.equal(evOld.scheduled_messages[0].topic, 'general chat', 'named for clients without empty_topic_name');
  const regOld = assertSuccess(await A.post('/register', { fetch_event_types: ['scheduled_messages'] }));
  assert.equal(regOld.scheduled_messages.find((x: any) => x.scheduled_message_id === a).topic, 'general chat');
  const regNew = assertSuccess(await A.post('/register', { fetch_event_types: ['scheduled_messages'], client_capabilities: JSON.stringify({ empty_topic_name: true }) }));
  assert.equal(regNew.scheduled_messages.find((x: any) => x.scheduled_message_id === a).topic, '');

  const b = await scheduleOk(A, { type: 'stream', to: pub, topic: 'general chat', content: 'x' });
  assert.equal((await find(A, b)).topic, '');
  const c = await scheduleOk(A, { type: 'stream', to: pub, topic: 'y'.repeat(70), content: 'x' });
  assert.equal((await find(A, c)).topic, 'y'.repeat(57) + '...');

  const strict = await makeChannel(t, { name: 'strict', subscribers: [alice.id], topicsPolicy: 'disable_empty_topic' });
  assertError(await schedule(A, { type: 'stream', to: strict, topic: '(no topic)', content: 'x' }), 400, 'BAD_REQUEST', 'Sending messages to the general chat is not allowed in this channel.');
  for (const id of [a, b, c]) assertSuccess(await A.delete(`/scheduled_messages/${id}`));
});

test('create errors: codes and messages, the same permission checks as sending now', async () => {
  assertError(await A.post('/scheduled_messages', { type: 'stream', to: pub, topic: 'x', content: 'x', scheduled_delivery_timestamp: now() - 10 }), 400, 'BAD_REQUEST', 'Scheduled delivery time must be in the future.');
  assertError(await A.post('/scheduled_messages', { type: 'stream', to: pub, topic: 'x', content: 'x' }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'scheduled_delivery_timestamp' argument");
  const missing = await schedule(A, { type: 'stream', to: 99999, topic: 'x', content: 'x' });
  assertError(missing, 400, 'STREAM_DOES_NOT_EXIST', "Channel with ID '99999' does not exist");
  assert.equal(missing.body.stream_id, 99999);
  assertError(await schedule(A, { type: 'direct', to: JSON.stringify([bob.id, 99999]), content: 'x' }), 400, 'BAD_REQUEST', 'Invalid user ID 99999');
  assertError(await schedule(A, { type: 'stream', to: 'pub', topic: 'x', content: 'x' }), 400, 'BAD_REQUEST', 'Invalid data type for channel ID');
  assertError(await schedule(A, { type: 'direct', to: JSON.stringify([bob.email]), content: 'x' }), 400, 'BAD_REQUEST', 'Recipient list may only contain user IDs');
  assertError(await schedule(A, { type: 'direct', to: '7', content: 'x' }), 400, 'BAD_REQUEST', 'Invalid data type for recipients');
  assertError(await schedule(A, { type: 'direct', to: bob.email, content: 'x' }), 400, 'BAD_REQUEST', 'Invalid data type for recipients');
  assertError(await schedule(A, { type: 'direct', to: 'null', content: 'x' }), 400, 'BAD_REQUEST', 'Invalid data type for recipients');
  assertError(await schedule(A, { type: 'direct', to: '[]', content: 'x' }), 400, 'BAD_REQUEST', 'Message must have recipients');
  assertError(await schedule(A, { type: 'stream', to: pub, content: 'x' }), 400, 'BAD_REQUEST', 'Missing topic');
  assertError(await schedule(A, { type: 'stream', to: pub, topic: 'x', content: '  ' }), 400, 'BAD_REQUEST', 'Message must not be empty');
  assertError(await schedule(A, { type: 'nope', to: pub, topic: 'x', content: 'x' }), 400, 'BAD_REQUEST');

  // Permission: the same answer as POST /messages gives for the same message.
  const now1 = await A.post('/messages', { type: 'stream', to: String(secret), topic: 'x', content: 'x' });
  assert.equal(now1.body.result, 'error');
  const sch1 = await schedule(A, { type: 'stream', to: secret, topic: 'x', content: 'x' });
  assertError(sch1, now1.status, now1.body.code, now1.body.msg);
  const ann = await makeChannel(t, { name: 'announce-only', subscribers: [alice.id, bob.id], sendGroup: 'role:administrators' });
  assertError(await schedule(A, { type: 'stream', to: ann, topic: 'x', content: 'x' }), 400, 'BAD_REQUEST', 'You do not have permission to post in this channel.');
  assert.deepEqual((await list(A)).length, 0, 'nothing was scheduled');
});

test('PATCH: rules, errors, and the update event', async () => {
  const id = await scheduleOk(A, { type: 'stream', to: pub, topic: 'old', content: 'before' });
  const q = await openQueue(A, { event_types: ['scheduled_messages'] });
  const qb = await openQueue(B, { event_types: ['scheduled_messages'] });
  const path = `/scheduled_messages/${id}`;

  assertError(await A.patch(path, {}), 400, 'BAD_REQUEST', 'Nothing to change');
  assertError(await A.patch(path, { type: 'direct' }), 400, 'BAD_REQUEST', 'Recipient required when updating type of scheduled message.');
  assertError(await A.patch(path, { type: 'stream', to: pub }), 400, 'BAD_REQUEST', 'Topic required when updating scheduled message type to channel.');
  assertError(await A.patch(path, { scheduled_delivery_timestamp: now() - 5 }), 400, 'BAD_REQUEST', 'Scheduled delivery time must be in the future.');
  assertError(await A.patch('/scheduled_messages/999999', { content: 'x' }), 404, 'BAD_REQUEST', 'Scheduled message does not exist');
  assertError(await B.patch(path, { content: 'x' }), 404, 'BAD_REQUEST', 'Scheduled message does not exist');
  assertError(await A.patch(path, { to: secret }), 400, 'BAD_REQUEST');
  assertError(await A.patch(path, { content: '' }), 400, 'BAD_REQUEST', 'Message must not be empty');

  const r = await A.patch(path, { content: 'after *now*' });
  assertSuccess(r);
  assertSchema(r, 'PATCH', '/scheduled_messages/{scheduled_message_id}');
  let m = await find(A, id);
  assert.equal(m.content, 'after *now*');
  assert.equal(m.rendered_content, '<p>after <em>now</em></p>');
  assert.equal(m.topic, 'old');
  const evs = await q.ofType('scheduled_messages');
  assert.equal(evs.length, 1);
  assertEventSchema(evs[0]);
  assert.equal(evs[0].op, 'update');
  assert.deepEqual(evs[0].scheduled_message, m);
  assert.deepEqual(await qb.ofType('scheduled_messages'), []);

  assertSuccess(await A.patch(path, { topic: '(no topic)' }));
  assert.equal((await find(A, id)).topic, '');
  const ts = later() + 100;
  assertSuccess(await A.patch(path, { scheduled_delivery_timestamp: ts }));
  assert.equal((await find(A, id)).scheduled_delivery_timestamp, ts);

  assertSuccess(await A.patch(path, { type: 'direct', to: JSON.stringify([bob.id]) }));
  m = await find(A, id);
  assert.equal(m.type, 'private');
  assert.deepEqual(m.to, [bob.id]);
  assert.equal(m.content, 'after *now*');
  // A topic alone is ignored for direct messages.
  assertSuccess(await A.patch(path, { topic: 'ignored' }));
  assert.ok(!('topic' in (await find(A, id))));
  assertSuccess(await A.patch(path, { type: 'stream', to: pub, topic: 'back' }));
  m = await find(A, id);
  assert.deepEqual([m.type, m.to, m.topic], ['stream', pub, 'back']);
  assertSuccess(await A.delete(path));
});

test('DELETE: unknown and other users\' IDs, remove event to the sender only', async () => {
  const id = await scheduleOk(A, { type: 'direct', to: JSON.stringify([bob.id]), content: 'x' });
  const q = await openQueue(A, { event_types: ['scheduled_messages'] });
  const qb = await openQueue(B, { event_types: ['scheduled_messages'] });
  assertError(await A.delete('/scheduled_messages/999999'), 404, 'BAD_REQUEST', 'Scheduled message does not exist');
  assertError(await B.delete(`/scheduled_messages/${id}`), 404, 'BAD_REQUEST', 'Scheduled message does not exist');
  const r = await A.delete(`/scheduled_messages/${id}`);
  assertSuccess(r);
  assertSchema(r, 'DELETE', '/scheduled_messages/{scheduled_message_id}');
  const [ev] = await q.ofType('scheduled_messages');
  assertEventSchema(ev);
  assert.deepEqual({ ...ev, id: undefined }, { id: undefined, type: 'scheduled_messages', op: 'remove', scheduled_message_id: id });
  assert.deepEqual(await qb.ofType('scheduled_messages'), []);
  assert.equal(await find(A, id), undefined);
  assertError(await A.delete(`/scheduled_messages/${id}`), 404, 'BAD_REQUEST', 'Scheduled message does not exist');
});

test('delivery by the server timer: sent as the sender within seconds, removed from the list', async () => {
  const q = await openQueue(A, { event_types: ['scheduled_messages', 'message'] });
  const qb = await openQueue(B, { event_types: ['message'] });
  const id = await scheduleOk(A, { type: 'stream', to: pub, topic: 'timer', content: 'delivered by timer', scheduled_delivery_timestamp: now() + 2 });
  let sent: any;
  for (let i = 0; i < 40 && !sent; i++) {
    await sleep(250);
    sent = (await lastMessages(B)).find((m) => m.content === 'delivered by timer');
  }
  assert.ok(sent, 'delivered within 10 seconds');
  assert.equal(sent.sender_id, alice.id);
  assert.equal(sent.stream_id, pub);
  assert.equal(sent.subject, 'timer');
  assert.notEqual(sent.id, id);
  assert.equal(await find(A, id), undefined, 'no longer listed');
  // Deleting is no longer possible... (the row is kept as delivered, like Zulip) but editing is refused.
  assertError(await A.patch(`/scheduled_messages/${id}`, { content: 'late edit' }), 400, 'BAD_REQUEST', 'Scheduled message was already sent');
  // Events reach queues after the commit, asynchronously to other requests: read until the remove event is in.
  const evs: any[] = [];
  for (let i = 0; i < 40 && !evs.some((e) => e.type === 'scheduled_messages' && e.op === 'remove'); i++) {
    if (i) await sleep(100);
    evs.push(...(await q.drain()));
  }
  const sm = evs.filter((e) => e.type === 'scheduled_messages');
  assert.deepEqual(sm.map((e) => e.op), ['add', 'remove']);
  assert.equal(sm[1].scheduled_message_id, id);
  const msgAt = evs.findIndex((e) => e.type === 'message' && e.message.id === sent.id);
  assert.ok(msgAt >= 0 && msgAt < evs.indexOf(sm[1]), 'the message event, then the remove event');
  assert.ok((await qb.ofType('message')).some((e) => e.message.id === sent.id));
});

test('delivery with a fake now: read_by_sender, direct messages, due rows found at start', async () => {
  const ts = later();
  const readId = await scheduleOk(A, { type: 'direct', to: JSON.stringify([bob.id]), content: 'read by me', read_by_sender: true, scheduled_delivery_timestamp: ts });
  const unreadId = await scheduleOk(A, { type: 'direct', to: JSON.stringify([bob.id]), content: 'unread by me', scheduled_delivery_timestamp: ts + 1 });
  assert.deepEqual(await deliverDueScheduledMessages(t.server.svc, ts - 1), { delivered: 0, failed: 0 }, 'nothing due yet');
  assert.deepEqual(await deliverDueScheduledMessages(t.server.svc, ts + 2), { delivered: 2, failed: 0 });
  assert.deepEqual(await deliverDueScheduledMessages(t.server.svc, ts + 3), { delivered: 0, failed: 0 }, 'never sent twice');
  const msgs = await lastMessages(A);
  const read = msgs.find((m) => m.content === 'read by me');
  const unread = msgs.find((m) => m.content === 'unread by me');
  assert.ok(read.flags.includes('read'));
  assert.ok(!unread.flags.includes('read'), 'API clients: not read by default');
  assert.equal(read.type, 'private');
  assert.deepEqual(read.display_recipient.map((u: any) => u.id).sort(), [alice.id, bob.id].sort());
  for (const id of [readId, unreadId]) assert.equal(await find(A, id), undefined);

  // A row already due in the store (as after a restart) goes out on the next pass of the timer.
  const id = await scheduleOk(A, { type: 'stream', to: pub, topic: 'restart', content: 'came due while down', scheduled_delivery_timestamp: later() });
  await t.server.svc.store.db.updateTable('scheduled_messages').set({ scheduled_timestamp: now() - 30 }).where('id', '=', id).execute();
  let sent: any;
  for (let i = 0; i < 40 && !sent; i++) {
    await sleep(250);
    sent = (await lastMessages(A)).find((m) => m.content === 'came due while down');
  }
  assert.ok(sent, 'delivered within 10 seconds');
});

test('a row deleted or edited after it was read as due is not sent as it was read: the send rolls back with it', async () => {
  const svc = t.server.svc;
  const ts = later();
  const gone = await scheduleOk(A, { type: 'stream', to: pub, topic: 'race', content: 'deleted meanwhile', scheduled_delivery_timestamp: ts });
  const edited = await scheduleOk(A, { type: 'stream', to: pub, topic: 'race', content: 'old words', scheduled_delivery_timestamp: ts });
  const staleGone = (await scheduledMessageById(svc.store.db, gone))!;
  const staleEdited = (await scheduledMessageById(svc.store.db, edited))!;
  assertSuccess(await A.delete(`/scheduled_messages/${gone}`));
  assertSuccess(await A.patch(`/scheduled_messages/${edited}`, { content: 'new words' }));
  const q = await openQueue(A, { event_types: ['scheduled_messages', 'message'] });
  assert.equal(await deliverOne(svc, staleGone, ts + 1), 'skipped');
  assert.equal(await deliverOne(svc, staleEdited, ts + 1), 'skipped');
  await t.eventsDelivered();
  const contents = (await lastMessages(B, 20)).map((m) => m.content);
  assert.ok(!contents.includes('deleted meanwhile') && !contents.includes('old words'), 'no message committed');
  assert.deepEqual(await q.drain(), [], 'no events for a send that rolled back');
  assert.equal((await find(A, edited)).content, 'new words', 'still listed, as edited');
  // The next pass reads the row as it is now and sends it once.
  assert.deepEqual(await deliverDueScheduledMessages(svc, ts + 1), { delivered: 1, failed: 0 });
  const sent = (await lastMessages(B, 20)).filter((m) => m.topic === 'race' || m.subject === 'race');
  assert.deepEqual(sent.map((m) => m.content), ['new words']);
  assert.equal((await scheduledMessageById(svc.store.db, edited))!.delivered_message_id, sent[0].id);
});

test('failed delivery: failed true, update event, Notification Bot notice; editing requires a new time', async () => {
  const ch = await makeChannel(t, { name: 'closing', subscribers: [alice.id, bob.id] });
  const ts = later();
  const id = await scheduleOk(A, { type: 'stream', to: ch, topic: 'x', content: 'will fail', scheduled_delivery_timestamp: ts });
  // Permissions change after scheduling: Alice may no longer post there.
  await makeChannel(t, { name: 'closing', subscribers: [alice.id, bob.id], sendGroup: 'role:administrators' });
  const q = await openQueue(A, { event_types: ['scheduled_messages', 'message'] });
  const qb = await openQueue(B, { event_types: ['scheduled_messages', 'message'] });
  assert.deepEqual(await deliverDueScheduledMessages(t.server.svc, ts + 1), { delivered: 0, failed: 1 });
  await t.eventsDelivered();
  const m = await find(A, id);
  assert.equal(m.failed, true, 'kept in the list, marked failed');
  const evs = await q.drain();
  const upd = evs.filter((e) => e.type === 'scheduled_messages');
  assert.equal(upd.length, 1);
  assertEventSchema(upd[0]);
  assert.equal(upd[0].op, 'update');
  assert.equal(upd[0].scheduled_message.failed, true);
  const notice = evs.find((e) => e.type === 'message');
  assert.ok(notice, 'Notification Bot tells the sender');
  assert.equal(notice.message.sender_email, NOTIFICATION_BOT_EMAIL);
  assert.equal(notice.message.type, 'private');
  assert.match(notice.message.content, /You do not have permission to post in this channel\./);
  assert.deepEqual(await qb.drain(), [], 'nothing reaches other users');
  assert.deepEqual(await deliverDueScheduledMessages(t.server.svc, ts + 2), { delivered: 0, failed: 0 }, 'failed messages are not retried');

  assertError(await A.patch(`/scheduled_messages/${id}`, { content: 'retry' }), 400, 'BAD_REQUEST', 'Scheduled delivery time must be in the future.');
  await makeChannel(t, { name: 'closing', subscribers: [alice.id, bob.id] });
  const ts2 = later() + 50;
  assertSuccess(await A.patch(`/scheduled_messages/${id}`, { scheduled_delivery_timestamp: ts2 }));
  assert.equal((await find(A, id)).failed, false);
  assert.deepEqual(await deliverDueScheduledMessages(t.server.svc, ts2 + 1), { delivered: 1, failed: 0 });

  // Too late (the server was down past the cutoff): failed with Zulip's reason.
  const late = await scheduleOk(A, { type: 'direct', to: JSON.stringify([bob.id]), content: 'too late', scheduled_delivery_timestamp: ts });
  assert.deepEqual(await deliverDueScheduledMessages(t.server.svc, ts + LATE_CUTOFF_SECONDS + 1), { delivered: 0, failed: 1 });
  assert.equal((await find(A, late)).failed, true);
  const bot = (await lastMessages(A)).find((x) => x.sender_email === NOTIFICATION_BOT_EMAIL && /could not be sent at the scheduled time/.test(x.content));
  assert.ok(bot);
  assertSuccess(await A.delete(`/scheduled_messages/${late}`));
});

test('a deactivated sender\'s message fails without a notice', async () => {
  const dave = await t.makeUser({ name: 'Dave' });
  const D = t.client(dave);
  const ts = later();
  const id = await scheduleOk(D, { type: 'direct', to: JSON.stringify([bob.id]), content: 'from dave', scheduled_delivery_timestamp: ts });
  await t.server.svc.store.db.updateTable('users').set({ is_active: 0 }).where('id', '=', dave.id).execute();
  assert.deepEqual(await deliverDueScheduledMessages(t.server.svc, ts + 1), { delivered: 0, failed: 1 });
  const row = await t.server.svc.store.db.selectFrom('scheduled_messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  assert.equal(row.failed, 1);
  assert.equal(row.delivered, 0);
  const notices = await t.server.svc.store.db.selectFrom('messages').select('id').where('content', 'like', '%from dave%').execute();
  assert.equal(notices.length, 0);
});

test('realm setting: an organization-wide empty topic ban applies to scheduled messages', async () => {
  await setRealmSetting(t, 'topics_policy', 'disable_empty_topic');
  try {
    assertError(await schedule(A, { type: 'stream', to: pub, topic: '', content: 'x' }), 400, 'BAD_REQUEST', 'Sending messages to the general chat is not allowed in this organization.');
  } finally {
    await setRealmSetting(t, 'topics_policy', 'allow_empty_topic');
  }
});
