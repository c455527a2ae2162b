/** POST /streams/{stream_id}/delete_topic: administrators only, batches newest first, complete flag, events. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';
import { ROLE } from '../src/store/users.ts';
import { deleteTopicLimits } from '../src/actions/delete-topic.ts';

let t: TestServer;
let admin: Account, alice: Account, bob: Account;

before(async () => {
  t = await startTestServer();
  admin = await t.makeUser({ name: 'Admin', role: ROLE.ADMINISTRATOR });
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
});
after(() => t.close());

async function send(from: Account, stream: string, topic: string, content = 'words'): Promise<number> {
  return assertSuccess(await t.client(from).post('/messages', { type: 'stream', to: stream, topic, content })).id as number;
}

async function exists(id: number, viewer: Account = t.owner): Promise<boolean> {
  return (await t.client(viewer).get(`/messages/${id}`)).status === 200;
}

test('an administrator deletes every message of the topic (any case); other topics stay; events go out', async () => {
  const sid = await makeChannel(t, { name: 'dt-pub', subscribers: [alice.id, bob.id, admin.id, t.owner.id] });
  const keep = await send(alice, 'dt-pub', 'keep me');
  const a = await send(alice, 'dt-pub', 'Doomed');
  const b = await send(bob, 'dt-pub', 'doomed');
  const c = await send(alice, 'dt-pub', 'DOOMED');
  const qBob = await openQueue(t.client(bob), { event_types: ['delete_message', 'stream'], client_capabilities: { bulk_message_deletion: true } });

  const res = await t.client(admin).post(`/streams/${sid}/delete_topic`, { topic_name: 'doomed' });
  assertSuccess(res);
  assert.equal(res.body.complete, true);
  assertSchema(res, 'POST', '/streams/{stream_id}/delete_topic');
  for (const id of [a, b, c]) assert.equal(await exists(id), false);
  assert.equal(await exists(keep), true);

  const dels = await qBob.ofType('delete_message');
  assert.deepEqual(dels.flatMap((e) => e.message_ids).sort((x: number, y: number) => x - y), [a, b, c]);
  assert.ok(dels.every((e) => e.message_type === 'stream' && e.stream_id === sid));
});

test('deleting the oldest messages sends the stream update with the new first_message_id', async () => {
  const sid = await makeChannel(t, { name: 'dt-first', subscribers: [alice.id, admin.id] });
  await send(alice, 'dt-first', 'old');
  const second = await send(alice, 'dt-first', 'new');
  const q = await openQueue(t.client(alice), { event_types: ['stream'] });
  assertSuccess(await t.client(admin).post(`/streams/${sid}/delete_topic`, { topic_name: 'old' }));
  const ups = (await q.ofType('stream')).filter((e) => e.op === 'update' && e.property === 'first_message_id');
  assert.equal(ups.length, 1);
  assert.equal(ups[0].value, second);
  assert.equal(ups[0].stream_id, sid);
});

test('"(no topic)" and the empty-topic display name mean the empty topic', async () => {
  const sid = await makeChannel(t, { name: 'dt-empty', subscribers: [alice.id] });
  const e1 = await send(alice, 'dt-empty', '');
  assertSuccess(await t.client(admin).post(`/streams/${sid}/delete_topic`, { topic_name: '(no topic)' }));
  assert.equal(await exists(e1), false);
  const e2 = await send(alice, 'dt-empty', '');
  assertSuccess(await t.client(admin).post(`/streams/${sid}/delete_topic`, { topic_name: 'general chat' }));
  assert.equal(await exists(e2), false);
});

test('time budget: batches newest first, complete false until done, then the client repeats', async () => {
  const sid = await makeChannel(t, { name: 'dt-batch', subscribers: [alice.id] });
  const ids: number[] = [];
  for (let i = 0; i < 5; i++) ids.push(await send(alice, 'dt-batch', 'big'));
  const saved = { ...deleteTopicLimits };
  Object.assign(deleteTopicLimits, { batchSize: 2, timeBudgetMs: 0 });
  try {
    let res = await t.client(admin).post(`/streams/${sid}/delete_topic`, { topic_name: 'big' });
    assert.equal(assertSuccess(res).complete, false);
    // The newest batch went first.
    assert.deepEqual(await Promise.all(ids.map((id) => exists(id, alice))), [true, true, true, false, false]);
    res = await t.client(admin).post(`/streams/${sid}/delete_topic`, { topic_name: 'big' });
    assert.equal(assertSuccess(res).complete, false);
    res = await t.client(admin).post(`/streams/${sid}/delete_topic`, { topic_name: 'big' });
    assert.equal(assertSuccess(res).complete, true);
    assert.deepEqual(await Promise.all(ids.map((id) => exists(id, alice))), [false, false, false, false, false]);
  } finally {
    Object.assign(deleteTopicLimits, saved);
  }
});

test('errors: non-administrator, missing topic_name, invisible or unknown channel', async () => {
  const sid = await makeChannel(t, { name: 'dt-err', subscribers: [alice.id] });
  const m = await send(alice, 'dt-err', 'x');
  // The administrator check comes first, even before the missing parameter.
  assertError(await t.client(alice).post(`/streams/${sid}/delete_topic`, { topic_name: 'x' }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  assertError(await t.client(alice).post(`/streams/${sid}/delete_topic`, {}), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  assert.equal(await exists(m), true);
  assertError(await t.client(admin).post(`/streams/${sid}/delete_topic`, {}), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'topic_name' argument");
  assertError(await t.client(admin).post('/streams/999999/delete_topic', { topic_name: 'x' }), 400, 'BAD_REQUEST', 'Invalid channel ID');
});

test('private channel: an administrator who is not subscribed deletes only what they can see', async () => {
  // Private channel with shared history: the administrator (not subscribed) has metadata access only.
  const sid = await makeChannel(t, { name: 'dt-priv', inviteOnly: true, historyPublic: true, subscribers: [alice.id] });
  const m = await send(alice, 'dt-priv', 'secret');
  const res = await t.client(admin).post(`/streams/${sid}/delete_topic`, { topic_name: 'secret' });
  assert.equal(assertSuccess(res).complete, true);
  assert.equal(await exists(m, alice), true);
  // Once subscribed, the full shared history is visible and goes.
  const sub = await t.client(admin).post('/users/me/subscriptions', { subscriptions: [{ name: 'dt-priv' }] });
  assertSuccess(sub);
  assert.equal(assertSuccess(await t.client(admin).post(`/streams/${sid}/delete_topic`, { topic_name: 'secret' })).complete, true);
  assert.equal(await exists(m, alice), false);
});

test('messages moved out of the topic while it is being deleted stay where they went', async () => {
  const sid = await makeChannel(t, { name: 'dt-race', subscribers: [alice.id, admin.id, t.owner.id] });
  for (let round = 0; round < 4; round++) {
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) ids.push(await send(alice, 'dt-race', `doomed ${round}`, `m${i}`));
    // The owner moves the whole topic away at the moment the administrator deletes it.
    const [moved, deleted] = await Promise.all([
      t.client(t.owner).patch(`/messages/${ids[0]}`, { topic: `saved ${round}`, propagate_mode: 'change_all', send_notification_to_old_thread: false, send_notification_to_new_thread: false }),
      t.client(admin).post(`/streams/${sid}/delete_topic`, { topic_name: `doomed ${round}` }),
    ]);
    assertSuccess(deleted);
    const left = [];
    for (const id of ids) if (await exists(id)) left.push(id);
    if (moved.status === 200) {
      // Moved first: every message is in the new topic, none deleted.
      assert.deepEqual(left, ids, `round ${round}: the moved messages stay`);
      const r = assertSuccess(await t.client(t.owner).get('/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: sid }, { operator: 'topic', operand: `saved ${round}` }]) }));
      assert.equal(r.messages.length, ids.length);
    } else {
      // Deleted first: nothing left to move.
      assertError(moved, 400, 'BAD_REQUEST', 'Invalid message(s)');
      assert.deepEqual(left, [], `round ${round}: all deleted`);
    }
  }
});
