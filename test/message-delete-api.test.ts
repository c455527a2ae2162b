/** DELETE /messages/{message_id}: Zulip's permission rules, errors and delete_message events. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account, type Client } from './helpers.ts';
import { makeChannel, setRealmSetting } from './messages-fixtures.ts';
import { ROLE } from '../src/store/users.ts';
import { systemGroupIds } from '../src/store/groups.ts';

let t: TestServer;
let alice: Account, bob: Account, carol: Account, mod: Account;
let A: Client, B: Client, C: Client, O: Client, M: Client;
let pub: number;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  carol = await t.makeUser({ name: 'Carol' });
  mod = await t.makeUser({ name: 'Mod', role: ROLE.MODERATOR });
  [A, B, C, M] = [alice, bob, carol, mod].map((u) => t.client(u));
  O = t.client(t.owner);
  pub = await makeChannel(t, { name: 'pub', subscribers: [alice.id, bob.id, t.owner.id, mod.id] });
  await makeChannel(t, { name: 'priv', inviteOnly: true, subscribers: [alice.id, bob.id] });
});
after(() => t.close());

const send = async (c: Client, params: Record<string, unknown>) => assertSuccess(await c.post('/messages', params)).id as number;
const toPub = (c: Client, content = 'x') => send(c, { type: 'stream', to: 'pub', topic: 'del', content });
const del = (c: Client, id: number) => c.delete(`/messages/${id}`);

async function groupId(name: string): Promise<number> {
  return (await systemGroupIds(t.server.svc.store.db, t.server.svc.realmId)).get(name)!;
}

test('register reports the defaults Parley enforces', async () => {
  const s = assertSuccess(await A.post('/register', { fetch_event_types: JSON.stringify(['realm']) }));
  assert.equal(s.realm_can_delete_any_message_group, await groupId('role:administrators'));
  assert.equal(s.realm_can_delete_own_message_group, await groupId('role:everyone'));
  assert.equal(s.realm_message_content_delete_limit_seconds, 600);
});

/** The recipients' rows (user_messages) of these messages, as stored. */
const recipientRows = async (ids: number[]) =>
  (await t.server.svc.store.db.selectFrom('user_messages').select(['message_id', 'user_id']).where('message_id', 'in', ids).orderBy('message_id').orderBy('user_id').execute()).map(
    (r) => [r.message_id, r.user_id],
  );

test('own message: success shape and delete_message events to holders only', async () => {
  const id = await toPub(A, 'mine');
  const other = await toPub(B, 'stays');
  const holders = [alice.id, bob.id, t.owner.id, mod.id].sort((a, b) => a - b);
  assert.deepEqual(await recipientRows([id, other]), [...holders.map((u) => [id, u]), ...holders.map((u) => [other, u])]);
  const qb = await openQueue(B, { event_types: ['delete_message'], client_capabilities: { bulk_message_deletion: true } });
  const qc = await openQueue(C, { event_types: ['delete_message'], client_capabilities: { bulk_message_deletion: true } });
  const r = await del(A, id);
  assertSuccess(r);
  assertSchema(r, 'DELETE', '/messages/{message_id}');
  const evs = (await qb.drain()).map(({ id: _id, ...e }) => e);
  assert.deepEqual(evs, [{ type: 'delete_message', message_ids: [id], message_type: 'stream', stream_id: pub, topic: 'del' }]);
  assert.deepEqual(await qc.drain(), [], 'Carol held nothing and is not subscribed');
  assertError(await A.get(`/messages/${id}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
  // Its recipients' rows went with it; the other message's stay.
  assert.deepEqual(await recipientRows([id, other]), holders.map((u) => [other, u]));
  // Already gone.
  assertError(await del(A, id), 400, 'BAD_REQUEST', 'Invalid message(s)');
});

test('others\' messages: members no, administrators yes; inaccessible messages are invalid', async () => {
  const id = await toPub(A);
  assertError(await del(B, id), 400, 'BAD_REQUEST', "You don't have permission to delete this message");
  assertError(await del(M, id), 400, 'BAD_REQUEST', "You don't have permission to delete this message");
  const dm = await send(A, { type: 'direct', to: JSON.stringify([bob.id]), content: 'psst' });
  assertError(await del(C, dm), 400, 'BAD_REQUEST', 'Invalid message(s)');
  assertError(await del(O, dm), 400, 'BAD_REQUEST', 'Invalid message(s)');
  const privMsg = await send(A, { type: 'stream', to: 'priv', topic: 't', content: 'secret' });
  assertError(await del(O, privMsg), 400, 'BAD_REQUEST', 'Invalid message(s)');
  assertError(await del(A, 987654), 400, 'BAD_REQUEST', 'Invalid message(s)');
  assertSuccess(await del(O, id));
  // The owner's bot's messages count as the owner's own.
  const bot = await t.makeUser({ name: 'Bot', isBot: true, botOwnerId: alice.id });
  const botMsg = await send(t.client(bot), { type: 'direct', to: JSON.stringify([alice.id]), content: 'beep' });
  assertSuccess(await del(A, botMsg));
});

test('time limit for own messages; administrators are not limited', async () => {
  const id = await toPub(A);
  const old = await toPub(A);
  await t.server.svc.store.db.updateTable('messages').set({ date_sent: Date.now() / 1000 - 3600 }).where('id', 'in', [id, old]).execute();
  assertError(await del(A, id), 400, 'BAD_REQUEST', 'The time limit for deleting this message has passed');
  await setRealmSetting(t, 'message_content_delete_limit_seconds', null);
  assertSuccess(await del(A, id));
  await setRealmSetting(t, 'message_content_delete_limit_seconds', 600);
  const mine = await toPub(O);
  await t.server.svc.store.db.updateTable('messages').set({ date_sent: Date.now() / 1000 - 3600 }).where('id', '=', mine).execute();
  assertSuccess(await del(O, mine));
  assertSuccess(await del(O, old));
});

test('organization and channel group settings', async () => {
  await setRealmSetting(t, 'can_delete_own_message_group', await groupId('role:administrators'));
  const db = t.server.svc.store.db;
  const row = await db.selectFrom('streams').select('group_settings_json').where('id', '=', pub).executeTakeFirstOrThrow();
  const gs = { ...JSON.parse(row.group_settings_json), can_delete_own_message_group: await groupId('role:nobody') };
  await db.updateTable('streams').set({ group_settings_json: JSON.stringify(gs) }).where('id', '=', pub).execute();
  const id = await toPub(A);
  assertError(await del(A, id), 400, 'BAD_REQUEST', "You don't have permission to delete this message");
  const dmOwn = await send(A, { type: 'direct', to: JSON.stringify([bob.id]), content: 'mine' });
  assertError(await del(A, dmOwn), 400, 'BAD_REQUEST', "You don't have permission to delete this message");
  // The channel's can_delete_own_message_group grants it back in that channel.
  await db.updateTable('streams').set({ group_settings_json: JSON.stringify({ ...gs, can_delete_own_message_group: await groupId('role:members') }) }).where('id', '=', pub).execute();
  assertSuccess(await del(A, id));
  // The channel's can_delete_any_message_group lets moderators delete anyone's messages there.
  const other = await toPub(B);
  assertError(await del(M, other), 400, 'BAD_REQUEST', "You don't have permission to delete this message");
  await db.updateTable('streams').set({ group_settings_json: JSON.stringify({ ...gs, can_delete_any_message_group: await groupId('role:moderators') }) }).where('id', '=', pub).execute();
  assertSuccess(await del(M, other));
  // The organization's can_delete_any_message_group.
  await setRealmSetting(t, 'can_delete_any_message_group', await groupId('role:members'));
  const dm = await send(B, { type: 'direct', to: JSON.stringify([alice.id]), content: 'hi' });
  assertSuccess(await del(A, dm));
});

test('a message moved to another channel while a deletion is being checked is judged where it went', async () => {
  await setRealmSetting(t, 'can_delete_any_message_group', await groupId('role:administrators'));
  await setRealmSetting(t, 'can_delete_own_message_group', await groupId('role:everyone'));
  // Moderators may delete anyone's messages in "moderated", not in "elsewhere".
  const moderated = await makeChannel(t, { name: 'moderated', subscribers: [alice.id, bob.id, t.owner.id, mod.id] });
  const elsewhere = await makeChannel(t, { name: 'elsewhere', subscribers: [alice.id, bob.id, t.owner.id, mod.id] });
  const db = t.server.svc.store.db;
  const row = await db.selectFrom('streams').select('group_settings_json').where('id', '=', moderated).executeTakeFirstOrThrow();
  const gs = { ...JSON.parse(row.group_settings_json), can_delete_any_message_group: await groupId('role:moderators') };
  await db.updateTable('streams').set({ group_settings_json: JSON.stringify(gs) }).where('id', '=', moderated).execute();
  for (let round = 0; round < 6; round++) {
    const id = await send(B, { type: 'stream', to: 'moderated', topic: 'race', content: `spam ${round}` });
    // The owner moves it to "elsewhere" at the moment the moderator deletes it.
    const [moved, deleted] = await Promise.all([O.patch(`/messages/${id}`, { stream_id: elsewhere, propagate_mode: 'change_one' }), del(M, id)]);
    if (moved.status === 200) {
      // Moved first: there the moderator may not delete it, and it stays.
      assertError(deleted, 400, 'BAD_REQUEST', "You don't have permission to delete this message");
      const m = assertSuccess(await O.get(`/messages/${id}`)).message;
      assert.equal(m.stream_id, elsewhere);
    } else {
      // Deleted first: nothing left to move.
      assertSuccess(deleted);
      assertError(moved, 400, 'BAD_REQUEST', 'Invalid message(s)');
      assertError(await O.get(`/messages/${id}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
    }
  }
});
