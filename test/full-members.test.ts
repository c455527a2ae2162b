/**
 * Full members as time passes: the promotion job announces members who
 * passed the organization's waiting period (user_group add_members for
 * role:fullmembers, to everyone), once, and permissions given to full
 * members follow.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, openQueue, type Account, type TestServer } from './helpers.ts';
import { ROLE } from '../src/store/users.ts';
import { promoteNewFullMembers } from '../src/actions/full-members.ts';

let t: TestServer;
let watcher: Account;
let guest: Account;
let fullId: number;
let membersId: number;
const DAY = 86400;

before(async () => {
  t = await startTestServer();
  watcher = await t.makeUser({ role: ROLE.MEMBER });
  guest = await t.makeUser({ role: ROLE.GUEST });
  const groups = assertSuccess(await t.client(t.owner).get('/user_groups')).user_groups;
  fullId = groups.find((g: any) => g.name === 'role:fullmembers').id;
  membersId = groups.find((g: any) => g.name === 'role:members').id;
});
after(() => t.close());

const now = () => Date.now() / 1000;
const setJoined = (id: number, when: number) => t.server.svc.store.db.updateTable('users').set({ date_joined: Math.floor(when) }).where('id', '=', id).execute();
const groupMembers = async (a: Account, id: number) =>
  (assertSuccess(await t.client(a).post('/register', { fetch_event_types: ['realm_user_groups'] })).realm_user_groups.find((g: any) => g.id === id).members as number[]);

test('members become full members as time passes: the job announces each once, to everyone', async () => {
  assertSuccess(await t.client(t.owner).patch('/realm', { waiting_period_threshold: 10, can_create_public_channel_group: { new: fullId } }));
  const newbie = await t.makeUser({ role: ROLE.MEMBER });
  const veteran = await t.makeUser({ role: ROLE.MEMBER });
  const start = Math.floor(now());
  // The job last ran two minutes ago; newbie passed the waiting period one
  // minute ago, veteran long before.
  await t.server.svc.store.db.updateTable('full_member_promotions').set({ checked_until: start - 120 }).execute();
  await setJoined(veteran.id, start - 30 * DAY);
  await setJoined(newbie.id, start - 10 * DAY - 60);

  const qWatcher = await openQueue(t.client(watcher), { event_types: ['user_group'] });
  const qGuest = await openQueue(t.client(guest), { event_types: ['user_group'] });
  // A pass before newbie's time promotes nobody.
  assert.deepEqual(await promoteNewFullMembers(t.server.svc, start - 90), []);
  await t.eventsDelivered();
  assert.deepEqual(await qWatcher.ofType('user_group'), []);
  // Two passes at once after it (as two processes would run them): one announcement.
  const passes = await Promise.all([promoteNewFullMembers(t.server.svc, start), promoteNewFullMembers(t.server.svc, start)]);
  assert.deepEqual(passes.flat(), [newbie.id]);
  await t.eventsDelivered();
  for (const q of [qWatcher, qGuest]) {
    assert.deepEqual(
      (await q.ofType('user_group')).map(({ id: _id, ...e }) => e),
      [{ type: 'user_group', op: 'add_members', group_id: fullId, user_ids: [newbie.id] }],
    );
  }
  assert.deepEqual(await promoteNewFullMembers(t.server.svc, start + 5), []);
  await t.eventsDelivered();
  assert.deepEqual(await qWatcher.ofType('user_group'), []);

  // The new state: a full member, still a member, with the full members' permission (new members lack it).
  const fresh = await t.makeUser({ role: ROLE.MEMBER });
  assertError(await t.client(fresh).post('/users/me/subscriptions', { subscriptions: [{ name: 'too-early' }] }), 400, 'BAD_REQUEST', 'Insufficient permission');
  assert.ok(!(await groupMembers(watcher, fullId)).includes(fresh.id));
  assert.ok((await groupMembers(watcher, membersId)).includes(fresh.id));
  assert.ok((await groupMembers(watcher, fullId)).includes(newbie.id));
  assert.ok((await groupMembers(watcher, membersId)).includes(newbie.id));
  assertSuccess(await t.client(newbie).post('/users/me/subscriptions', { subscriptions: [{ name: 'now-allowed' }] }));
});

test('a new waiting period is announced at once, and the job continues from it', async () => {
  const recent = await t.makeUser({ role: ROLE.MEMBER });
  await setJoined(recent.id, now() - 5 * DAY);
  const q = await openQueue(t.client(watcher), { event_types: ['user_group'] });
  // Shorter: recent (5 days old) becomes a full member.
  assertSuccess(await t.client(t.owner).patch('/realm', { waiting_period_threshold: 3 }));
  const [promoted] = (await q.ofType('user_group')).map(({ id: _id, ...e }) => e);
  assert.equal(promoted.op, 'add_members');
  assert.equal(promoted.group_id, fullId);
  assert.ok((promoted.user_ids as number[]).includes(recent.id));
  // The job does not announce it again.
  assert.deepEqual(await promoteNewFullMembers(t.server.svc, now() + 20), []);
  // Longer again: recent is no longer a full member.
  assertSuccess(await t.client(t.owner).patch('/realm', { waiting_period_threshold: 7 }));
  const [demoted] = (await q.ofType('user_group')).map(({ id: _id, ...e }) => e);
  assert.deepEqual({ ...demoted, user_ids: (demoted.user_ids as number[]).includes(recent.id) }, { type: 'user_group', op: 'remove_members', group_id: fullId, user_ids: true });
  // Without a waiting period everyone is a full member at once and the job has nothing to do.
  assertSuccess(await t.client(t.owner).patch('/realm', { waiting_period_threshold: 0 }));
  assert.equal((await q.ofType('user_group')).length, 1);
  assert.deepEqual(await promoteNewFullMembers(t.server.svc, now() + 40), []);
});
