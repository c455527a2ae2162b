/** POST/DELETE /users/me/muted_users/{id}, muted_users event and register state, messages from muted senders arrive read. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account, type Client, type Res } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';

let t: TestServer;
let alice: Account, bob: Account, carol: Account;
let A: Client, B: Client, C: Client;
let pub: number;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  carol = await t.makeUser({ name: 'Carol' });
  [A, B, C] = [alice, bob, carol].map((u) => t.client(u));
  pub = await makeChannel(t, { name: 'mutepub', subscribers: [alice.id, bob.id, carol.id] });
});
after(() => t.close());

const strip = ({ id: _id, ...e }: any) => e;
function assertEventSchema(event: any): void {
  const res: Res = { status: 200, body: { result: 'success', msg: '', queue_id: 'q', events: [event] }, headers: new Headers(), text: '' };
  assertSchema(res, 'GET', '/events');
}
async function send(c: Client, content: string): Promise<number> {
  return assertSuccess(await c.post('/messages', { type: 'stream', to: pub, topic: 'mute', content })).id;
}
async function flagsOf(c: Client, id: number): Promise<string[]> {
  const r = assertSuccess(await c.get('/messages', { anchor: id, num_before: 0, num_after: 0, narrow: [] }));
  return r.messages[0].flags;
}

test('mute: errors, response, event to the muter only, register state, unread messages marked read', async () => {
  const old = await send(B, 'before the mute');
  assert.ok(!(await flagsOf(A, old)).includes('read'));
  const qa = await openQueue(A, { event_types: ['muted_users', 'update_message_flags'] });
  const qb = await openQueue(B, { event_types: ['muted_users', 'update_message_flags'] });

  assertError(await A.post(`/users/me/muted_users/${alice.id}`), 400, 'BAD_REQUEST', 'Cannot mute self');
  assertError(await A.post('/users/me/muted_users/999999'), 400, 'BAD_REQUEST', 'No such user');

  const r = await A.post(`/users/me/muted_users/${bob.id}`);
  assertSuccess(r);
  assertSchema(r, 'POST', '/users/me/muted_users/{muted_user_id}');
  const evs = await qa.drain();
  assert.deepEqual(evs.map((e) => e.type), ['update_message_flags', 'muted_users']);
  assert.deepEqual(strip(evs[0]), { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: [old], all: false });
  const mu = evs[1];
  assert.equal(mu.muted_users.length, 1);
  assert.equal(mu.muted_users[0].id, bob.id);
  assert.ok(Number.isInteger(mu.muted_users[0].timestamp));
  assertEventSchema(mu);
  assert.deepEqual(await qb.drain(), []);
  assert.ok((await flagsOf(A, old)).includes('read'));

  assertError(await A.post(`/users/me/muted_users/${bob.id}`), 400, 'BAD_REQUEST', 'User already muted');

  const reg = assertSuccess(await A.post('/register', { fetch_event_types: ['muted_users'] }));
  assert.deepEqual(reg.muted_users, mu.muted_users);
  const regB = assertSuccess(await B.post('/register', { fetch_event_types: ['muted_users'] }));
  assert.deepEqual(regB.muted_users, []);

  // New messages from the muted user are still delivered, already read for the muter only.
  const msgs = await openQueue(A, { event_types: ['message'] });
  const id = await send(B, 'after the mute');
  const [ev] = await msgs.ofType('message');
  assert.equal(ev.message.id, id);
  assert.ok(ev.flags.includes('read'));
  assert.ok((await flagsOf(A, id)).includes('read'));
  assert.ok(!(await flagsOf(C, id)).includes('read'));
  // Other senders are unaffected.
  const fromCarol = await send(C, 'hello');
  assert.ok(!(await flagsOf(A, fromCarol)).includes('read'));
});

test('unmute: errors, event, state; bots and deactivated users can be muted', async () => {
  assertError(await C.delete(`/users/me/muted_users/${bob.id}`), 400, 'BAD_REQUEST', 'User is not muted');
  assertError(await C.delete('/users/me/muted_users/999999'), 400, 'BAD_REQUEST', 'No such user');
  assertError(await C.delete(`/users/me/muted_users/${carol.id}`), 400, 'BAD_REQUEST', 'User is not muted');

  const qc = await openQueue(C, { event_types: ['muted_users'] });
  assertSuccess(await C.post(`/users/me/muted_users/${alice.id}`));
  assertSuccess(await C.post(`/users/me/muted_users/${bob.id}`));
  const after2 = (await qc.drain()).at(-1)!;
  assert.deepEqual(after2.muted_users.map((m: any) => m.id), [alice.id, bob.id]);

  const r = await C.delete(`/users/me/muted_users/${alice.id}`);
  assertSuccess(r);
  assertSchema(r, 'DELETE', '/users/me/muted_users/{muted_user_id}');
  const evs = await qc.drain();
  assert.deepEqual(evs.map(strip), [{ type: 'muted_users', muted_users: [after2.muted_users[1]] }]);
  assertEventSchema(evs[0]);

  // After unmuting, messages arrive unread again.
  const id = await send(A, 'unmuted now');
  assert.ok(!(await flagsOf(C, id)).includes('read'));

  const bot = await t.makeUser({ name: 'Some Bot', isBot: true, botOwnerId: carol.id, botType: 1 });
  assertSuccess(await C.post(`/users/me/muted_users/${bot.id}`));
  const gone = await t.makeUser({ name: 'Gone' });
  assertSuccess(await t.client(t.owner).delete(`/users/${gone.id}`));
  assertSuccess(await C.post(`/users/me/muted_users/${gone.id}`));
  assertSuccess(await C.delete(`/users/me/muted_users/${gone.id}`));
});
