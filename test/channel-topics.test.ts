/** GET /users/me/{stream_id}/topics and GET /streams/{stream_id}/email_address. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, type TestServer, type Account } from './helpers.ts';
import { makeChannel, subscribe } from './messages-fixtures.ts';

let t: TestServer;
let alice: Account, bob: Account, carol: Account, guest: Account;

before(async () => {
  t = await startTestServer({ EMAIL_GATEWAY_PATTERN: '%s@mail.example.com' });
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  carol = await t.makeUser({ name: 'Carol' });
  guest = await t.makeUser({ name: 'Guest', role: 600 });
});
after(() => t.close());

async function send(a: Account, streamId: number, topic: string, content = 'hi'): Promise<number> {
  return assertSuccess(await t.client(a).post('/messages', { type: 'stream', to: streamId, topic, content })).id as number;
}

test('topics of a public channel: newest first, one entry per topic ignoring case, most recent spelling', async () => {
  const sid = await makeChannel(t, { name: 'topics-pub', subscribers: [alice.id, bob.id] });
  const m1 = await send(alice, sid, 'Lunch');
  const m2 = await send(bob, sid, 'plans');
  const m3 = await send(alice, sid, 'lunch');
  const m4 = await send(alice, sid, '');
  void m1;
  const res = await t.client(carol).get(`/users/me/${sid}/topics`);
  assertSuccess(res);
  assertSchema(res, 'GET', '/users/me/{stream_id}/topics');
  assert.deepEqual(res.body.topics, [
    { name: 'general chat', max_id: m4 },
    { name: 'lunch', max_id: m3 },
    { name: 'plans', max_id: m2 },
  ]);
  const allow = assertSuccess(await t.client(alice).get(`/users/me/${sid}/topics`, { allow_empty_topic_name: true }));
  assert.equal(allow.topics[0].name, '');
  // Guests cannot read public channels they are not subscribed to.
  assertError(await t.client(guest).get(`/users/me/${sid}/topics`), 400, 'BAD_REQUEST', 'Invalid channel ID');
  assertError(await t.client(alice).get('/users/me/999999/topics'), 400, 'BAD_REQUEST', 'Invalid channel ID');
});

test('private channel with protected history: only topics of messages the user received', async () => {
  const sid = await makeChannel(t, { name: 'topics-priv', inviteOnly: true, historyPublic: false, subscribers: [alice.id] });
  const early = await send(alice, sid, 'before bob');
  await subscribe(t, sid, [bob.id]);
  const later = await send(alice, sid, 'after bob');
  assert.deepEqual(assertSuccess(await t.client(alice).get(`/users/me/${sid}/topics`)).topics, [
    { name: 'after bob', max_id: later },
    { name: 'before bob', max_id: early },
  ]);
  assert.deepEqual(assertSuccess(await t.client(bob).get(`/users/me/${sid}/topics`)).topics, [{ name: 'after bob', max_id: later }]);
  // Not subscribed: the channel does not exist for them, owner (admin) included.
  assertError(await t.client(carol).get(`/users/me/${sid}/topics`), 400, 'BAD_REQUEST', 'Invalid channel ID');
  assertError(await t.client(t.owner).get(`/users/me/${sid}/topics`), 400, 'BAD_REQUEST', 'Invalid channel ID');

  // Public history: a new subscriber sees every topic.
  const sid2 = await makeChannel(t, { name: 'topics-priv-public-history', inviteOnly: true, historyPublic: true, subscribers: [alice.id] });
  const old = await send(alice, sid2, 'old');
  await subscribe(t, sid2, [bob.id]);
  assert.deepEqual(assertSuccess(await t.client(bob).get(`/users/me/${sid2}/topics`)).topics, [{ name: 'old', max_id: old }]);
});

test('channel email address: stable per user and sender, only for users who may post', async () => {
  const sid = await makeChannel(t, { name: 'Mail Room!', subscribers: [alice.id] });
  const res = await t.client(alice).get(`/streams/${sid}/email_address`);
  assertSuccess(res);
  assertSchema(res, 'GET', '/streams/{stream_id}/email_address');
  assert.match(res.body.email, /^mail-room\.[0-9a-f]{32}\.show-sender@mail\.example\.com$/);
  assert.equal(assertSuccess(await t.client(alice).get(`/streams/${sid}/email_address`)).email, res.body.email);
  const self = assertSuccess(await t.client(alice).get(`/streams/${sid}/email_address`, { sender_id: alice.id })).email;
  assert.notEqual(self, res.body.email);
  assert.notEqual(assertSuccess(await t.client(bob).get(`/streams/${sid}/email_address`)).email, res.body.email);
  // Someone else's bot, or a non-bot, cannot be the sender.
  assertError(await t.client(alice).get(`/streams/${sid}/email_address`, { sender_id: bob.id }), 400, 'BAD_REQUEST', 'No such bot');
  const bot = await t.makeUser({ name: 'Bobs bot', isBot: true, botOwnerId: bob.id, botType: 1 });
  assertError(await t.client(alice).get(`/streams/${sid}/email_address`, { sender_id: bot.id }), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertSuccess(await t.client(bob).get(`/streams/${sid}/email_address`, { sender_id: bot.id }));

  const priv = await makeChannel(t, { name: 'mail-priv', inviteOnly: true, subscribers: [alice.id] });
  assertError(await t.client(bob).get(`/streams/${priv}/email_address`), 400, 'BAD_REQUEST', 'Invalid channel ID');
  const announce = await makeChannel(t, { name: 'mail-announce', subscribers: [alice.id, bob.id], sendGroup: 'role:administrators' });
  assertError(await t.client(bob).get(`/streams/${announce}/email_address`), 400, 'BAD_REQUEST', 'You do not have permission to post in this channel.');
  assertSuccess(await t.client(t.owner).get(`/streams/${announce}/email_address`));
});

test('without an email gateway the address is empty, as in Zulip', async () => {
  const t2 = await startTestServer();
  try {
    const u = await t2.makeUser();
    const sid = await makeChannel(t2, { name: 'no-gateway', subscribers: [u.id] });
    assert.deepEqual(assertSuccess(await t2.client(u).get(`/streams/${sid}/email_address`)).email, '');
  } finally {
    await t2.close();
  }
});
