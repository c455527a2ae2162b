/**
 * can_access_all_users_group: a guest outside it (the setting at
 * role:members) accesses only itself, bots and the users who share a channel
 * or a direct-message group with it, or has exchanged a one-to-one direct
 * message with it. Others are left out of user lists (or
 * are "Unknown user" placeholders for clients without the
 * user_list_incomplete capability), refused by GET /users/{id}, and the guest
 * is not told about them, until a subscription makes them accessible.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, openQueue, type Account, type TestServer, streamIdOf } from './helpers.ts';
import { ROLE } from '../src/store/users.ts';

let t: TestServer;
let member: Account;
let friend: Account;
let stranger: Account;
let guest: Account;
let bot: Account;
let group: (name: string) => number;

const c = (a: Account) => t.client(a);
const ids = (users: any[]) => users.map((u) => u.user_id);

before(async () => {
  t = await startTestServer();
  member = await t.makeUser({ role: ROLE.MEMBER });
  friend = await t.makeUser({ role: ROLE.MEMBER, name: 'Friend' });
  stranger = await t.makeUser({ role: ROLE.MEMBER, name: 'Stranger' });
  guest = await t.makeUser({ role: ROLE.GUEST, name: 'Guest' });
  bot = await t.makeUser({ isBot: true, botOwnerId: member.id, name: 'Helper bot' });
  // The guest leaves the channels every new user joins, then shares one channel with `friend`.
  const subs = assertSuccess(await c(guest).get('/users/me/subscriptions')).subscriptions;
  if (subs.length) assertSuccess(await c(guest).delete('/users/me/subscriptions', { subscriptions: subs.map((s: any) => s.name) }));
  assertSuccess(await c(t.owner).post('/users/me/subscriptions', { subscriptions: [{ name: 'guests welcome' }], principals: [guest.id, friend.id] }));
  const groups = assertSuccess(await c(t.owner).get('/user_groups')).user_groups;
  group = (name: string) => groups.find((g: any) => g.name === name).id;
  assertSuccess(await c(t.owner).patch('/realm', { can_access_all_users_group: { new: group('role:members') } }));
});
after(() => t.close());

test("only role:everyone and role:members are allowed, with Zulip's errors", async () => {
  const bad = async (value: unknown, msg: string) =>
    assertError(await c(t.owner).patch('/realm', { can_access_all_users_group: { new: value } }), 400, 'BAD_REQUEST', msg);
  await bad(group('role:moderators'), "'can_access_all_users_group' setting cannot be set to 'role:moderators' group.");
  await bad(group('role:nobody'), "'can_access_all_users_group' setting cannot be set to 'role:nobody' group.");
  await bad(group('role:internet'), "'can_access_all_users_group' setting cannot be set to 'role:internet' group.");
  await bad({ direct_members: [member.id], direct_subgroups: [group('role:members')] }, "'can_access_all_users_group' must be a system user group.");
  const custom = assertSuccess(await c(t.owner).post('/user_groups/create', { name: 'staff', description: 'Staff', members: [member.id] }));
  await bad(custom.group_id, "'can_access_all_users_group' must be a system user group.");
  const reg = assertSuccess(await c(member).post('/register', { fetch_event_types: ['realm'] }));
  assert.equal(reg.realm_can_access_all_users_group, group('role:members'));
});

test('GET /users and GET /users/{id}: a restricted guest sees who shares a channel with it, and bots', async () => {
  const seen = ids(assertSuccess(await c(guest).get('/users')).members);
  assert.ok(seen.includes(guest.id) && seen.includes(friend.id) && seen.includes(bot.id));
  assert.ok(!seen.includes(stranger.id));
  assert.ok(!seen.includes(member.id));
  // A member is not restricted.
  assert.ok(ids(assertSuccess(await c(member).get('/users')).members).includes(stranger.id));
  // By ID list, too.
  assert.deepEqual(ids(assertSuccess(await c(guest).get('/users', { user_ids: JSON.stringify([friend.id, stranger.id]) })).members), [friend.id]);

  assertError(await c(guest).get(`/users/${stranger.id}`), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertError(await c(guest).get(`/users/${encodeURIComponent(stranger.email)}`), 400, 'BAD_REQUEST', 'Insufficient permission');
  assert.equal(assertSuccess(await c(guest).get(`/users/${friend.id}`)).user.full_name, 'Friend');
  assert.equal(assertSuccess(await c(guest).get(`/users/${bot.id}`)).user.full_name, 'Helper bot');
  assert.equal(assertSuccess(await c(member).get(`/users/${stranger.id}`)).user.full_name, 'Stranger');
  // Nor what channels an inaccessible user is in.
  const channelId = await streamIdOf(c(guest), 'guests welcome');
  assertError(await c(guest).get(`/users/${stranger.id}/subscriptions/${channelId}`), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertError(await c(guest).get(`/users/${stranger.id}/channels`), 400, 'BAD_REQUEST', 'Insufficient permission');
  assert.equal(assertSuccess(await c(guest).get(`/users/${friend.id}/subscriptions/${channelId}`)).is_subscribed, true);
  assertError(await c(guest).post(`/users/me/muted_users/${stranger.id}`), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertSuccess(await c(guest).post(`/users/me/muted_users/${friend.id}`));
  assertSuccess(await c(guest).delete(`/users/me/muted_users/${friend.id}`));
});

test('/register: placeholders without user_list_incomplete, nothing with it', async () => {
  const old = assertSuccess(await c(guest).post('/register', { fetch_event_types: ['realm_user'] }));
  const placeholder = old.realm_users.find((u: any) => u.user_id === stranger.id);
  assert.equal(placeholder.full_name, 'Unknown user');
  assert.equal(placeholder.email, `user${stranger.id}@${new URL(t.url).hostname}`);
  assert.equal(placeholder.delivery_email, null);
  assert.equal(placeholder.is_active, true);
  assert.equal(placeholder.role, ROLE.MEMBER);
  assert.equal(old.realm_users.find((u: any) => u.user_id === friend.id).full_name, 'Friend');
  // The placeholder's picture is served.
  const picture = await fetch(new URL(placeholder.avatar_url, t.url));
  assert.equal(picture.status, 200);
  assert.equal(picture.headers.get('content-type'), 'image/png');
  await picture.arrayBuffer();

  const modern = assertSuccess(
    await c(guest).post('/register', { fetch_event_types: ['realm_user'], client_capabilities: { user_list_incomplete: true } }),
  );
  assert.ok(!ids(modern.realm_users).includes(stranger.id));
  assert.ok(ids(modern.realm_users).includes(friend.id));
  assert.ok(ids(modern.realm_users).includes(bot.id));

  const full = assertSuccess(await c(member).post('/register', { fetch_event_types: ['realm_user'], client_capabilities: { user_list_incomplete: true } }));
  assert.equal(full.realm_users.find((u: any) => u.user_id === stranger.id).full_name, 'Stranger');
});

test('events: new users and changes to users the guest may not access', async () => {
  const oldQ = await openQueue(c(guest), { event_types: ['realm_user'] });
  const modernQ = await openQueue(c(guest), { event_types: ['realm_user'], client_capabilities: { user_list_incomplete: true } });
  const memberQ = await openQueue(c(member), { event_types: ['realm_user'] });

  const newcomer = await t.makeUser({ role: ROLE.MEMBER, name: 'Newcomer' });
  const oldAdds = (await oldQ.ofType('realm_user')).filter((e) => e.op === 'add');
  assert.equal(oldAdds.length, 1);
  assert.equal(oldAdds[0].person.user_id, newcomer.id);
  assert.equal(oldAdds[0].person.full_name, 'Unknown user');
  assert.deepEqual(await modernQ.ofType('realm_user'), []);
  const memberAdds = (await memberQ.ofType('realm_user')).filter((e) => e.op === 'add');
  assert.equal(memberAdds[0].person.full_name, 'Newcomer');

  // A name change of an inaccessible user is not sent to the guest; one of an accessible user is.
  assertSuccess(await c(stranger).patch('/settings', { full_name: 'Stranger Renamed' }));
  assertSuccess(await c(friend).patch('/settings', { full_name: 'Friend Renamed' }));
  const guestUpdates = (await modernQ.ofType('realm_user')).map((e) => e.person.user_id);
  assert.deepEqual(guestUpdates, [friend.id]);
  const memberUpdates = (await memberQ.ofType('realm_user')).map((e) => e.person.user_id);
  assert.deepEqual(memberUpdates, [stranger.id, friend.id]);
  await oldQ.drain();

  // Joining the guest's channel makes the stranger accessible: the guest is told with a realm_user add.
  assertSuccess(await c(t.owner).post('/users/me/subscriptions', { subscriptions: [{ name: 'guests welcome' }], principals: [stranger.id] }));
  const adds = (await modernQ.ofType('realm_user')).filter((e) => e.op === 'add');
  assert.equal(adds.length, 1);
  assert.equal(adds[0].person.user_id, stranger.id);
  assert.equal(adds[0].person.full_name, 'Stranger Renamed');
  assert.equal(assertSuccess(await c(guest).get(`/users/${stranger.id}`)).user.full_name, 'Stranger Renamed');

  // Leaving it again makes the stranger an "Unknown user" for the guest: realm_user remove.
  assertSuccess(await c(stranger).delete('/users/me/subscriptions', { subscriptions: ['guests welcome'] }));
  const removes = (await modernQ.ofType('realm_user')).filter((e) => e.op === 'remove');
  assert.deepEqual(removes.map(({ id: _id, ...e }) => e), [{ type: 'realm_user', op: 'remove', person: { user_id: stranger.id, full_name: 'Unknown user' } }]);
  assertError(await c(guest).get(`/users/${stranger.id}`), 400, 'BAD_REQUEST', 'Insufficient permission');
  assert.deepEqual((await memberQ.ofType('realm_user')).filter((e) => e.op === 'remove'), []);
});

test("messages from a sender the guest may not access show an \"Unknown user\" as sender", async () => {
  const guestQ = await openQueue(c(guest), { event_types: ['message'] });
  const friendQ = await openQueue(c(friend), { event_types: ['message'] });
  // The stranger is not subscribed, but may post to the public channel.
  const id = assertSuccess(await c(stranger).post('/messages', { type: 'stream', to: 'guests welcome', topic: 'drive-by', content: 'hello from outside' })).id;
  const hidden = { sender_full_name: 'Unknown user', sender_email: `user${stranger.id}@${new URL(t.url).hostname}`, avatar_url: '/static/images/unknown-user-avatar.png' };
  const [ev] = await guestQ.ofType('message');
  assert.deepEqual({ sender_full_name: ev.message.sender_full_name, sender_email: ev.message.sender_email, avatar_url: ev.message.avatar_url }, hidden);
  assert.equal(ev.message.sender_id, stranger.id);
  const [seen] = await friendQ.ofType('message');
  assert.equal(seen.message.sender_full_name, 'Stranger Renamed');
  const fetched = assertSuccess(await c(guest).get(`/messages/${id}`)).message;
  assert.equal(fetched.sender_full_name, 'Unknown user');
  assert.equal(fetched.sender_email, hidden.sender_email);
  const listed = assertSuccess(await c(guest).get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: 'guests welcome' }]) })).messages;
  assert.equal(listed.find((m: any) => m.id === id).sender_full_name, 'Unknown user');
  assert.equal(assertSuccess(await c(friend).get(`/messages/${id}`)).message.sender_full_name, 'Stranger Renamed');
});

test('user_status events reach only those who may access the user', async () => {
  const q = await openQueue(c(guest), { event_types: ['user_status'] });
  assertSuccess(await c(stranger).post('/users/me/status', { status_text: 'away from desk' }));
  assertSuccess(await c(friend).post('/users/me/status', { status_text: 'lunch' }));
  assert.deepEqual((await q.ofType('user_status')).map((e) => e.user_id), [friend.id]);
});

test('direct messages: only to accessible users; a new group conversation makes its members accessible', async () => {
  const dm = (from: Account, to: Account[], content: string) => c(from).post('/messages', { type: 'direct', to: JSON.stringify(to.map((u) => u.id)), content });
  const denied = 'You do not have permission to access some of the recipients.';
  assertError(await dm(guest, [stranger], 'hello?'), 400, 'BAD_REQUEST', denied);
  assertError(await dm(guest, [friend, stranger], 'hello?'), 400, 'BAD_REQUEST', denied);
  assertSuccess(await dm(guest, [friend], 'hello friend'));
  assertSuccess(await dm(guest, [bot], 'hello bot'));

  assertError(await c(guest).get(`/users/${member.id}`), 400, 'BAD_REQUEST', 'Insufficient permission');
  const q = await openQueue(c(guest), { event_types: ['realm_user', 'message'], client_capabilities: { user_list_incomplete: true } });
  // The member starts a group conversation with the guest and the friend.
  assertSuccess(await dm(member, [guest, friend], 'hello both'));
  const events = await q.drain();
  assert.deepEqual(events.map((e) => e.type), ['realm_user', 'message']);
  assert.equal(events[0].op, 'add');
  assert.equal(events[0].person.user_id, member.id);
  assertSuccess(await c(guest).get(`/users/${member.id}`));
  assertSuccess(await dm(guest, [member], 'hello member'));
});

test('one-to-one direct messages: a member who writes to the guest becomes accessible to it, and stays so without a shared channel', async () => {
  const dm = (from: Account, to: Account, content: string) => c(from).post('/messages', { type: 'direct', to: JSON.stringify([to.id]), content });
  const writer = await t.makeUser({ role: ROLE.MEMBER, name: 'Writer' });
  assertError(await c(guest).get(`/users/${writer.id}`), 400, 'BAD_REQUEST', 'Insufficient permission');
  const q = await openQueue(c(guest), { event_types: ['realm_user', 'message', 'user_status'], client_capabilities: { user_list_incomplete: true } });

  // The first message: the guest hears of the writer (realm_user add, with the real name) before the message.
  assertSuccess(await dm(writer, guest, 'hello guest'));
  const first = await q.drain();
  assert.deepEqual(first.map((e) => [e.type, e.op]), [['realm_user', 'add'], ['message', undefined]]);
  assert.equal(first[0].person.user_id, writer.id);
  assert.equal(first[0].person.full_name, 'Writer');
  assert.equal(first[1].message.sender_full_name, 'Writer');
  assert.equal(assertSuccess(await c(guest).get(`/users/${writer.id}`)).user.full_name, 'Writer');
  assert.ok(ids(assertSuccess(await c(guest).get('/users')).members).includes(writer.id));
  // Later messages announce nothing more; the guest may answer; events about the writer reach the guest.
  assertSuccess(await dm(writer, guest, 'again'));
  assertSuccess(await dm(guest, writer, 'hello writer'));
  assertSuccess(await c(writer).post('/users/me/status', { status_text: 'writing' }));
  const later = await q.drain();
  assert.deepEqual(later.map((e) => e.type), ['message', 'message', 'user_status']);
  assert.equal(later[2].user_id, writer.id);

  // A member the guest wrote to while they shared a channel stays accessible after the guest leaves it; one it only shared the channel with does not.
  const pal = await t.makeUser({ role: ROLE.MEMBER, name: 'Pal' });
  const passerby = await t.makeUser({ role: ROLE.MEMBER, name: 'Passerby' });
  assertSuccess(await c(t.owner).post('/users/me/subscriptions', { subscriptions: [{ name: 'short stay' }], principals: [guest.id, pal.id, passerby.id] }));
  assertSuccess(await dm(guest, pal, 'hello pal'));
  await q.drain();
  assertSuccess(await c(guest).delete('/users/me/subscriptions', { subscriptions: ['short stay'] }));
  const removed = (await q.ofType('realm_user')).filter((e) => e.op === 'remove').map((e) => e.person.user_id);
  assert.deepEqual(removed, [passerby.id]);
  assertSuccess(await c(guest).get(`/users/${pal.id}`));
  assertError(await c(guest).get(`/users/${passerby.id}`), 400, 'BAD_REQUEST', 'Insufficient permission');
});

test('role:everyone lifts the restriction', async () => {
  const other = await t.makeUser({ role: ROLE.MEMBER, name: 'Other' });
  assertError(await c(guest).get(`/users/${other.id}`), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertSuccess(await c(t.owner).patch('/realm', { can_access_all_users_group: { new: group('role:everyone') } }));
  assert.equal(assertSuccess(await c(guest).get(`/users/${other.id}`)).user.full_name, 'Other');
  assert.ok(ids(assertSuccess(await c(guest).get('/users')).members).includes(other.id));
  assertSuccess(await c(t.owner).patch('/realm', { can_access_all_users_group: { new: group('role:members') } }));
});

test('presence follows user access with CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE', async () => {
  const s = await startTestServer({ CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE: 'true' });
  try {
    const cc = (a: Account) => s.client(a);
    const g = await s.makeUser({ role: ROLE.GUEST });
    const seen = await s.makeUser({ role: ROLE.MEMBER });
    const unseen = await s.makeUser({ role: ROLE.MEMBER });
    const subs = assertSuccess(await cc(g).get('/users/me/subscriptions')).subscriptions;
    if (subs.length) assertSuccess(await cc(g).delete('/users/me/subscriptions', { subscriptions: subs.map((x: any) => x.name) }));
    assertSuccess(await cc(s.owner).post('/users/me/subscriptions', { subscriptions: [{ name: 'together' }], principals: [g.id, seen.id] }));
    const groups = assertSuccess(await cc(s.owner).get('/user_groups')).user_groups;
    const membersId = groups.find((x: any) => x.name === 'role:members').id;
    assertSuccess(await cc(s.owner).patch('/realm', { can_access_all_users_group: { new: membersId } }));
    const q = await openQueue(cc(g), { event_types: ['presence'] });
    for (const u of [seen, unseen]) assertSuccess(await cc(u).post('/users/me/presence', { status: 'active' }));
    assert.deepEqual((await q.ofType('presence')).map((e) => e.user_id), [seen.id]);
    const all = assertSuccess(await cc(g).get('/realm/presence')).presences;
    assert.ok(seen.email in all);
    assert.ok(!(unseen.email in all));
    assertError(await cc(g).get(`/users/${unseen.id}/presence`), 400, 'BAD_REQUEST', 'Insufficient permission');
    assertSuccess(await cc(g).get(`/users/${seen.id}/presence`));
  } finally {
    await s.close();
  }
});
