/** Deleting a deactivated user's messages (DELETE /users/{id} `actions`) and the delete_message events. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertSuccess, openQueue, type TestServer, type Account } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';

let t: TestServer;
let alice: Account, bob: Account;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
});
after(() => t.close());

async function send(from: Account, params: Record<string, unknown>): Promise<number> {
  return assertSuccess(await t.client(from).post('/messages', params)).id as number;
}

test('deactivation actions delete the chosen kinds of messages and tell the holders', async () => {
  const pub = await makeChannel(t, { name: 'pub', subscribers: [alice.id, bob.id, t.owner.id] });
  await makeChannel(t, { name: 'priv', inviteOnly: true, subscribers: [alice.id, bob.id] });
  const pubMsg = await send(alice, { type: 'stream', to: 'pub', topic: 'hello', content: 'public words' });
  const privMsg = await send(alice, { type: 'stream', to: 'priv', topic: 'secret', content: 'private words' });
  const dm = await send(alice, { type: 'direct', to: JSON.stringify([bob.id]), content: 'just us' });
  const keep = await send(bob, { type: 'stream', to: 'pub', topic: 'hello', content: 'still here' });

  const bulk = await openQueue(t.client(bob), { event_types: ['delete_message', 'stream'], client_capabilities: { bulk_message_deletion: true } });
  const legacy = await openQueue(t.client(bob), { event_types: ['delete_message'] });
  const outsider = await t.makeUser({ name: 'Carol' });
  const carol = await openQueue(t.client(outsider), { event_types: ['delete_message'], client_capabilities: { bulk_message_deletion: true } });

  assertSuccess(
    await t.client(t.owner).delete(`/users/${alice.id}`, {
      actions: { delete_public_channel_messages: true, delete_private_channel_messages: false, delete_direct_messages: true },
    }),
  );

  for (const gone of [pubMsg, dm]) {
    const r = await t.client(t.owner).get(`/messages/${gone}`);
    assert.equal(r.body.result, 'error', `message ${gone} should be deleted`);
    assert.equal(r.status, 400);
  }
  assertSuccess(await t.client(bob).get(`/messages/${privMsg}`));
  assertSuccess(await t.client(bob).get(`/messages/${keep}`));

  const events = await bulk.drain();
  const deletions = events.filter((e) => e.type === 'delete_message');
  assert.deepEqual(
    deletions.map(({ id: _id, ...e }) => e),
    [
      { type: 'delete_message', message_ids: [pubMsg], message_type: 'stream', stream_id: pub, topic: 'hello' },
      { type: 'delete_message', message_ids: [dm], message_type: 'private' },
    ],
  );
  // pub's oldest message changed: a stream update with the new first_message_id.
  const upd = events.filter((e) => e.type === 'stream');
  assert.equal(upd.length, 1);
  assert.equal(upd[0].property, 'first_message_id');
  assert.equal(upd[0].value, keep);
  assert.equal(upd[0].stream_id, pub);

  const old = (await legacy.drain()).map(({ id: _id, ...e }) => e);
  assert.deepEqual(old, [
    { type: 'delete_message', message_id: pubMsg, message_type: 'stream', stream_id: pub, topic: 'hello' },
    { type: 'delete_message', message_id: dm, message_type: 'private' },
  ]);
  assert.deepEqual(await carol.drain(), [], 'a user who held none of the messages hears nothing');
});
