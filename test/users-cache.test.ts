/**
 * The users kept in memory are brought up to date row by row: a change to
 * one user loads that user's row again, not every user's (actions/cache.ts,
 * KeptUsers). Each row's version is moved by a trigger on every change to
 * it, whatever wrote it. Runs on every backend, and on a cluster (a change
 * made through one node, read through another).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { assertError, assertSuccess, Client, startTestServer, type Account, type TestServer, streamIdOf } from './helpers.ts';
import { cachedUsers } from '../src/actions/cache.ts';
import { transaction } from '../src/store/db.ts';
import { updateUser, userById } from '../src/store/users.ts';

let t: TestServer;
let ann: Account;
let bob: Account;

before(async () => {
  t = await startTestServer();
  ann = await t.makeUser({ name: 'Ann Kept' });
  bob = await t.makeUser({ name: 'Bob Kept' });
});

after(async () => {
  await t.close();
});

/** A client of this account on every node of the deployment (one when not a cluster). */
const onEveryNode = (account: { email: string; apiKey: string }) => t.nodes.map((n) => new Client(n.url, account));

const rowVersion = async (id: number) => (await userById(t.server.svc.store.db, t.server.svc.realmId, id))!.row_version;

test('every change to a user row moves its version, whatever wrote it', async () => {
  const db = t.server.svc.store.db;
  const v0 = await rowVersion(ann.id);
  assertSuccess(await t.client(ann).patch('/settings', { full_name: 'Ann Renamed' }));
  const v1 = await rowVersion(ann.id);
  assert.ok(v1 > v0, `the version moved with a change through the API (${v0} → ${v1})`);
  // SQL written by hand, outside the store's functions, moves it too.
  await sql`UPDATE users SET timezone = ${'Europe/Paris'} WHERE id = ${ann.id}`.execute(db);
  assert.equal(await rowVersion(ann.id), v1 + 1);
  // Other users' rows are left as they were.
  const bobBefore = await rowVersion(bob.id);
  await updateUser(db, ann.id, { timezone: 'Asia/Tokyo' });
  assert.equal(await rowVersion(ann.id), v1 + 2);
  assert.equal(await rowVersion(bob.id), bobBefore);
  for (const c of onEveryNode(t.owner)) {
    const shown = assertSuccess(await c.get(`/users/${ann.id}`)).user;
    assert.equal(shown.full_name, 'Ann Renamed');
    assert.equal(shown.timezone, 'Asia/Tokyo');
  }
});

test('a change to one user loads that row again and keeps the others', async () => {
  const svc = t.server.svc;
  assertSuccess(await new Client(t.nodes[0]!.url, t.owner).get('/users/me'));
  const before = await cachedUsers(svc);
  assertSuccess(await t.client(bob).patch('/settings', { full_name: 'Bob Renamed' }));
  // The change is seen by the very next request, on every node.
  for (const c of onEveryNode(t.owner)) assert.equal(assertSuccess(await c.get(`/users/${bob.id}`)).user.full_name, 'Bob Renamed');
  const after = await cachedUsers(svc);
  assert.notEqual(after, before);
  assert.equal(after.byId.get(bob.id)!.full_name, 'Bob Renamed');
  assert.ok(Object.isFrozen(after.byId.get(bob.id)));
  // Every other user is the very row kept before, not one read again.
  for (const u of before.list) if (u.id !== bob.id) assert.equal(after.byId.get(u.id), u, `user ${u.id} was read again`);
  assert.deepEqual(
    after.list.map((u) => u.id),
    before.list.map((u) => u.id),
  );
  // Nothing changed since: the same snapshot.
  assert.equal(await cachedUsers(svc), after);
});

test('new users, new API keys and deactivations are seen at once by every node', async () => {
  const carl = await t.makeUser({ name: 'Carl Kept' });
  await t.eventsDelivered();
  for (const c of onEveryNode(carl)) assert.equal(assertSuccess(await c.get('/users/me')).full_name, 'Carl Kept');
  const users = await cachedUsers(t.server.svc);
  assert.deepEqual(
    users.list.map((u) => u.id),
    [...users.list.map((u) => u.id)].sort((a, b) => a - b),
    'the list stays in ID order',
  );
  assert.equal(users.list.at(-1)!.id, carl.id);

  const fresh = assertSuccess(await t.client(carl).post('/users/me/api_key/regenerate')).api_key as string;
  for (const c of onEveryNode(carl)) assertError(await c.get('/users/me'), 401, 'UNAUTHORIZED');
  const renewed = { email: carl.email, apiKey: fresh };
  for (const c of onEveryNode(renewed)) assertSuccess(await c.get('/users/me'));

  assertSuccess(await t.client(t.owner).delete(`/users/${carl.id}`));
  for (const c of onEveryNode(renewed)) assertError(await c.get('/users/me'), 401, 'USER_DEACTIVATED');
  assertSuccess(await t.client(t.owner).post(`/users/${carl.id}/reactivate`));
  for (const c of onEveryNode(renewed)) assertSuccess(await c.get('/users/me'));
});

test('a change read inside a transaction that is rolled back is not kept', async () => {
  const svc = t.server.svc;
  const before = await cachedUsers(svc);
  await assert.rejects(
    transaction(svc.store, async (tx) => {
      await updateUser(tx, ann.id, { full_name: 'Never Committed' });
      assert.equal((await cachedUsers(svc, tx)).byId.get(ann.id)!.full_name, 'Never Committed');
      throw new Error('rolled back');
    }),
    /rolled back/,
  );
  const now = await cachedUsers(svc);
  assert.equal(now.byId.get(ann.id)!.full_name, before.byId.get(ann.id)!.full_name);
  for (const c of onEveryNode(t.owner)) assert.equal(assertSuccess(await c.get(`/users/${ann.id}`)).user.full_name, 'Ann Renamed');
});

test('an account is found by its delivery email or the email others see, in any case', async () => {
  const dana = await t.makeUser({ name: 'Dana Kept', email: 'Dana.Kept@Example.com', password: 'dana-pass-4242' });
  // Others see a dummy address for her (Zulip's user<ID>@<host>): both log her in.
  assertSuccess(await t.client(dana).patch('/settings', { email_address_visibility: 4 }));
  const shown = assertSuccess(await t.client(t.owner).get(`/users/${dana.id}`)).user.email as string;
  assert.notEqual(shown.toLowerCase(), 'dana.kept@example.com');
  for (const username of ['dana.kept@example.com', 'DANA.KEPT@EXAMPLE.COM', shown, shown.toUpperCase()]) {
    const login = assertSuccess(await t.client(null).post('/fetch_api_key', { username, password: 'dana-pass-4242' }));
    assert.equal(login.user_id, dana.id, username);
  }
  assertError(await t.client(null).post('/fetch_api_key', { username: 'dana.kept@example.org', password: 'dana-pass-4242' }), 401, 'AUTHENTICATION_FAILED');
  // Neither address can be taken again, whatever its case.
  for (const email of ['DANA.kept@example.COM', shown.toUpperCase()]) {
    assertError(await t.client(t.owner).post('/users', { email, password: 'x-pass-4242', full_name: 'Other Dana' }), 400, 'BAD_REQUEST', `Email '${email}' already in use`);
  }
});

test("a channel's messages skip a deactivated subscriber and reach them again once reactivated", async () => {
  const erin = await t.makeUser({ name: 'Erin Kept' });
  const owner = t.client(t.owner);
  const channel = `kept-${Date.now()}`;
  assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: channel }]), principals: JSON.stringify([t.owner.id, erin.id]) }));
  const streamId = await streamIdOf(owner, channel);
  const send = async (content: string) => assertSuccess(await owner.post('/messages', { type: 'stream', to: streamId, topic: 'kept', content })).id as number;
  const received = async (messageId: number) =>
    (await t.server.svc.store.db.selectFrom('user_messages').select('user_id').where('message_id', '=', messageId).where('user_id', '=', erin.id).execute()).length === 1;
  assert.equal(await received(await send('one')), true);
  assertSuccess(await owner.delete(`/users/${erin.id}`));
  assert.equal(await received(await send('two')), false, 'a deactivated subscriber gets no copy');
  assertSuccess(await owner.post(`/users/${erin.id}/reactivate`));
  assert.equal(await received(await send('three')), true, 'reactivated, they get it again');
  const subscribed = assertSuccess(await t.client(erin).get('/users/me/subscriptions')).subscriptions.map((s: { name: string }) => s.name);
  assert.ok(subscribed.includes(channel));
});
