/** GET /messages/{message_id}/read_receipts: realm setting, send_read_receipts, sender and muting exclusions, access. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, type TestServer, type Account, type Client } from './helpers.ts';
import { makeChannel, setRealmSetting } from './messages-fixtures.ts';

let t: TestServer;
let alice: Account, bob: Account, carol: Account, dave: Account, erin: Account, outsider: Account;
let A: Client, B: Client, C: Client, D: Client, E: Client, O: Client;
let pub: number, priv: number;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  carol = await t.makeUser({ name: 'Carol' });
  dave = await t.makeUser({ name: 'Dave' });
  erin = await t.makeUser({ name: 'Erin' });
  outsider = await t.makeUser({ name: 'Outsider' });
  [A, B, C, D, E, O] = [alice, bob, carol, dave, erin, outsider].map((u) => t.client(u));
  pub = await makeChannel(t, { name: 'rrpub', subscribers: [alice.id, bob.id, carol.id, dave.id, erin.id] });
  priv = await makeChannel(t, { name: 'rrpriv', inviteOnly: true, subscribers: [alice.id, bob.id] });
});
after(() => t.close());

const receipts = (c: Client, id: number) => c.get(`/messages/${id}/read_receipts`);
const read = async (c: Client, id: number) => assertSuccess(await c.post('/messages/flags', { messages: [id], op: 'add', flag: 'read' }));

test('on in a new organization (it needs invitations to join), as Zulip has it; turned off: the organization error', async () => {
  assert.equal(assertSuccess(await A.post('/register', { fetch_event_types: ['realm'] })).realm_enable_read_receipts, true);
  await setRealmSetting(t, 'enable_read_receipts', false);
  const id = assertSuccess(await A.post('/messages', { type: 'stream', to: pub, topic: 'rr', content: 'hi' })).id;
  assertError(await receipts(B, id), 400, 'BAD_REQUEST', 'Read receipts are disabled in this organization.');
  // Access is checked first.
  assertError(await receipts(B, 999999), 400, 'BAD_REQUEST', 'Invalid message(s)');
});

test('enabled: readers only; sender, send_read_receipts off, deactivated and muting users excluded', async () => {
  await setRealmSetting(t, 'enable_read_receipts', true);
  const id = assertSuccess(await A.post('/messages', { type: 'stream', to: pub, topic: 'rr', content: 'hello all' })).id;
  let r = await receipts(B, id);
  assertSchema(r, 'GET', '/messages/{message_id}/read_receipts');
  assert.deepEqual(assertSuccess(r).user_ids, []);

  await read(A, id); // the sender never appears
  await read(B, id);
  await read(C, id);
  await read(D, id);
  r = await receipts(A, id);
  assertSchema(r, 'GET', '/messages/{message_id}/read_receipts');
  assert.deepEqual(assertSuccess(r).user_ids, [bob.id, carol.id, dave.id]);

  // Marking unread removes the receipt.
  assertSuccess(await D.post('/messages/flags', { messages: [id], op: 'remove', flag: 'read' }));
  assert.deepEqual(assertSuccess(await receipts(A, id)).user_ids, [bob.id, carol.id]);

  // send_read_receipts off hides the user.
  await t.setUserSetting(carol, 'send_read_receipts', false);
  assert.deepEqual(assertSuccess(await receipts(A, id)).user_ids, [bob.id]);
  await t.setUserSetting(carol, 'send_read_receipts', true);

  // A user who muted the requester is hidden from the requester (not from others); so is a user the requester muted.
  assertSuccess(await B.post(`/users/me/muted_users/${erin.id}`));
  await read(E, id);
  // (The requester's own receipt is listed; only the sender is left out.)
  assert.deepEqual(assertSuccess(await receipts(E, id)).user_ids, [carol.id, erin.id]);
  assert.deepEqual(assertSuccess(await receipts(B, id)).user_ids, [bob.id, carol.id]);
  assert.deepEqual(assertSuccess(await receipts(A, id)).user_ids, [bob.id, carol.id, erin.id]);

  // Deactivated users are excluded.
  assertSuccess(await t.client(t.owner).delete(`/users/${carol.id}`));
  assert.deepEqual(assertSuccess(await receipts(A, id)).user_ids, [bob.id, erin.id]);
});

test('enabled: a message the requester cannot access is an invalid message', async () => {
  const id = assertSuccess(await A.post('/messages', { type: 'stream', to: priv, topic: 'rr', content: 'secret' })).id;
  assertError(await receipts(O, id), 400, 'BAD_REQUEST', 'Invalid message(s)');
  const dm = assertSuccess(await A.post('/messages', { type: 'private', to: [bob.id], content: 'dm' })).id;
  assertError(await receipts(O, dm), 400, 'BAD_REQUEST', 'Invalid message(s)');
  await read(B, dm);
  assert.deepEqual(assertSuccess(await receipts(A, dm)).user_ids, [bob.id]);
});
