/** Message reminders: POST/GET /reminders, DELETE /reminders/{id}, reminders events and state, delivery as a Notification Bot DM by the scheduled-message timer. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, openQueue, type TestServer, type Account, type Client } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';
import { deliverDueScheduledMessages } from '../src/actions/scheduled-messages.ts';

let t: TestServer;
let alice: Account, bob: Account;
let A: Client, B: Client;
let chan: number, secret: number;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  [A, B] = [alice, bob].map((u) => t.client(u));
  chan = await makeChannel(t, { name: 'remind me', subscribers: [alice.id, bob.id] });
  secret = await makeChannel(t, { name: 'secret', inviteOnly: true, subscribers: [bob.id] });
});
after(() => t.close());

const now = () => Math.floor(Date.now() / 1000);
const strip = ({ id: _id, ...e }: any) => e;

test('reminders: create with events and state, listed apart from scheduled messages, delivered by Notification Bot', async () => {
  const msg = assertSuccess(await B.post('/messages', { type: 'stream', to: chan, topic: 'plans', content: 'Ship it **today**' })).id as number;
  const q = await openQueue(A, { event_types: ['reminders', 'scheduled_messages', 'message'] });
  const at = now() + 3600;
  const r = assertSuccess(await A.post('/reminders', { message_id: msg, scheduled_delivery_timestamp: at, note: '\ncheck this  \n\n' }));
  const id = r.reminder_id as number;

  const base = t.url;
  const expectedContent =
    `You requested a reminder for #**remind me>plans@${msg}**. Note:\n > check this\n\n` +
    `@_**Bob|${bob.id}** [said](${base}/#narrow/channel/${chan}-remind-me/topic/plans/near/${msg}):\n` +
    '```quote\nShip it **today**\n```';
  const list = assertSuccess(await A.get('/reminders')).reminders as any[];
  assert.equal(list.length, 1);
  assert.deepEqual({ ...list[0], rendered_content: '' }, {
    reminder_id: id,
    type: 'private',
    to: [alice.id],
    content: expectedContent,
    rendered_content: '',
    scheduled_delivery_timestamp: at,
    failed: false,
    reminder_target_message_id: msg,
  });
  assert.match(list[0].rendered_content, /<blockquote>/);
  assert.deepEqual(assertSuccess(await A.get('/scheduled_messages')).scheduled_messages, []);
  assert.deepEqual(assertSuccess(await B.get('/reminders')).reminders, []);
  const reg = assertSuccess(await A.post('/register', { fetch_event_types: ['reminders', 'scheduled_messages', 'realm'] }));
  assert.deepEqual(reg.reminders, list);
  assert.deepEqual(reg.scheduled_messages, []);
  assert.equal(reg.max_reminder_note_length, 1000);
  assert.deepEqual((await q.drain()).map(strip), [{ type: 'reminders', op: 'add', reminders: list }]);

  await deliverDueScheduledMessages(t.server.svc, at + 1);
  await t.eventsDelivered();
  const evs = await q.drain();
  const delivered = evs.find((e) => e.type === 'message');
  assert.equal(delivered.message.sender_email, 'notification-bot@zulip.com');
  assert.equal(delivered.message.type, 'private');
  assert.deepEqual(delivered.message.display_recipient.map((u: any) => u.id).sort(), [alice.id, delivered.message.sender_id].sort((x: number, y: number) => x - y));
  assert.equal(delivered.message.content, list[0].content);
  assert.deepEqual(strip(evs.find((e) => e.type === 'reminders')), { type: 'reminders', op: 'remove', reminder_id: id });
  assert.ok(!evs.some((e) => e.type === 'scheduled_messages'));
  assert.deepEqual(assertSuccess(await A.get('/reminders')).reminders, []);
});

test('reminders: direct messages, deletion and errors', async () => {
  const dm = assertSuccess(await B.post('/messages', { type: 'private', to: [alice.id], content: 'psst' })).id as number;
  const id = assertSuccess(await A.post('/reminders', { message_id: dm, scheduled_delivery_timestamp: now() + 60 })).reminder_id as number;
  const content = (assertSuccess(await A.get('/reminders')).reminders as any[])[0].content as string;
  const ids = [alice.id, bob.id].sort((x, y) => x - y).join(',');
  assert.equal(content, `You requested a reminder for the following direct message.\n\n@_**Bob|${bob.id}** [said](${t.url}/#narrow/dm/${ids}-dm/near/${dm}):\n\`\`\`quote\npsst\n\`\`\``);

  const q = await openQueue(A, { event_types: ['reminders'] });
  assertError(await B.delete(`/reminders/${id}`), 404, 'BAD_REQUEST', 'Reminder does not exist');
  assertSuccess(await A.delete(`/reminders/${id}`));
  assert.deepEqual((await q.drain()).map(strip), [{ type: 'reminders', op: 'remove', reminder_id: id }]);
  assertError(await A.delete(`/reminders/${id}`), 404, 'BAD_REQUEST', 'Reminder does not exist');

  const hidden = assertSuccess(await B.post('/messages', { type: 'stream', to: secret, topic: 'x', content: 'hidden' })).id as number;
  assertError(await A.post('/reminders', { message_id: hidden, scheduled_delivery_timestamp: now() + 60 }), 400, 'BAD_REQUEST', 'Invalid message(s)');
  assertError(await A.post('/reminders', { message_id: dm, scheduled_delivery_timestamp: now() - 1 }), 400, 'BAD_REQUEST', 'Scheduled delivery time must be in the future.');
  assertError(await A.post('/reminders', { message_id: dm, scheduled_delivery_timestamp: now() + 60, note: 'x'.repeat(1001) }), 400, 'BAD_REQUEST', 'Maximum reminder note length: 1000 characters');
  assertError(await A.post('/reminders', { message_id: dm }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'scheduled_delivery_timestamp' argument");
});
