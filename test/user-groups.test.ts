/** User groups: system groups, listing, creation, members and subgroups; user_group events. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account } from './helpers.ts';
import { ROLE } from '../src/store/users.ts';

let t: TestServer;
let admin: Account;
let member: Account;
let other: Account;
let guest: Account;
before(async () => {
  t = await startTestServer();
  admin = await t.makeUser({ role: ROLE.ADMINISTRATOR, name: 'Admin' });
  member = await t.makeUser({ name: 'Member' });
  other = await t.makeUser({ name: 'Other' });
  guest = await t.makeUser({ role: ROLE.GUEST, name: 'Guest' });
});
after(() => t.close());

const c = (a: Account) => t.client(a);

test('GET /user_groups: system groups in Zulip order with role members and subgroups', async () => {
  const res = await c(member).get('/user_groups');
  assertSchema(res, 'GET', '/user_groups');
  const groups = assertSuccess(res).user_groups;
  assert.deepEqual(
    groups.map((g: any) => g.name),
    ['role:nobody', 'role:owners', 'role:administrators', 'role:moderators', 'role:fullmembers', 'role:members', 'role:everyone', 'role:internet'],
  );
  const byName = (n: string) => groups.find((g: any) => g.name === n);
  assert.deepEqual(byName('role:owners').members, [t.owner.id]);
  assert.deepEqual(byName('role:administrators').members, [admin.id]);
  assert.deepEqual(byName('role:administrators').direct_subgroup_ids, [byName('role:owners').id]);
  assert.deepEqual(byName('role:everyone').members, [guest.id]);
  // With no waiting period (the default), every member is a full member: as in Zulip, a direct member of
  // role:fullmembers as well as of role:members.
  assert.ok(byName('role:fullmembers').members.includes(member.id));
  assert.ok(byName('role:members').members.includes(member.id));
  assert.equal(byName('role:members').is_system_group, true);
  // As Zulip (default_for_system_groups): nobody may mention a system group.
  assert.equal(byName('role:members').can_mention_group, byName('role:nobody').id);
  assert.equal(byName('role:members').can_manage_group, byName('role:nobody').id);
  const reg = await openQueue(c(member), { fetch_event_types: ['user_group'] });
  assert.deepEqual(reg.state.realm_user_groups.map((g: any) => g.id), groups.map((g: any) => g.id));
});

test('POST /user_groups/create, members and subgroups with events to everyone', async () => {
  const qGuest = await openQueue(c(guest), { event_types: ['user_group'] });
  const res = await c(member).post('/user_groups/create', { name: 'backend', description: 'Backend team', members: [member.id, other.id] });
  assertSchema(res, 'POST', '/user_groups/create');
  const id = assertSuccess(res).group_id;
  const add = await qGuest.ofType('user_group');
  assert.equal(add[0].op, 'add');
  assert.equal(add[0].group.id, id);
  assert.deepEqual(add[0].group.members, [member.id, other.id]);
  assert.deepEqual(add[0].group.can_manage_group, { direct_members: [member.id], direct_subgroups: [] });
  assert.equal(add[0].group.creator_id, member.id);
  assertError(await c(member).post('/user_groups/create', { name: 'backend', members: [] }), 400, 'BAD_REQUEST', "User group 'backend' already exists.");
  assertError(await c(member).post('/user_groups/create', { name: 'role:x', members: [] }), 400, 'BAD_REQUEST', "User group name cannot start with 'role:'.");
  assertError(await c(guest).post('/user_groups/create', { name: 'guests', members: [] }), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertError(await c(member).post('/user_groups/create', { name: 'bad', members: [99999] }), 400, 'BAD_REQUEST', 'Invalid user ID: 99999');

  assertSuccess(await c(member).post(`/user_groups/${id}/members`, { add: [admin.id], delete: [other.id] }));
  const evs = await qGuest.ofType('user_group');
  assert.deepEqual(evs.map((e) => [e.op, e.group_id, e.user_ids]), [['add_members', id, [admin.id]], ['remove_members', id, [other.id]]]);
  assertError(await c(other).post(`/user_groups/${id}/members`, { add: [other.id] }), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertError(await c(member).post(`/user_groups/${id}/members`, { add: [admin.id] }), 400, 'BAD_REQUEST', `User ${admin.id} is already a member of this group`);
  const members = await c(member).get(`/user_groups/${id}/members`);
  assert.deepEqual(assertSuccess(members).members, [member.id, admin.id].sort((a, b) => a - b));

  const sub = assertSuccess(await c(member).post('/user_groups/create', { name: 'db', members: [other.id] })).group_id;
  await qGuest.drain();
  assertSuccess(await c(member).post(`/user_groups/${id}/subgroups`, { add: [sub] }));
  assert.deepEqual((await qGuest.ofType('user_group')).map((e) => [e.op, e.group_id, e.direct_subgroup_ids]), [['add_subgroups', id, [sub]]]);
  assertError(await c(member).post(`/user_groups/${sub}/subgroups`, { add: [id] }), 400, 'BAD_REQUEST', `User group ${id} is already a supergroup of this group.`);
  const all = assertSuccess(await c(member).get(`/user_groups/${id}/members`)).members;
  assert.deepEqual(all, [admin.id, member.id, other.id].sort((a, b) => a - b));
  assert.deepEqual(assertSuccess(await c(member).get(`/user_groups/${id}/members`, { direct_member_only: true })).members, [member.id, admin.id].sort((a, b) => a - b));
  // Group membership feeds channel permissions.
  const ch = assertSuccess(await c(member).post('/channels/create', { name: 'group perms', subscribers: [member.id], can_send_message_group: id })).id;
  const stream = assertSuccess(await c(member).get(`/streams/${ch}`)).stream;
  assert.equal(stream.can_send_message_group, id);
  assertError(await c(member).post(`/user_groups/${id}/members`, { add: [99999] }), 400, 'BAD_REQUEST', 'Invalid user ID: 99999');
  assertError(await c(member).post('/user_groups/99999/members', { add: [member.id] }), 400, 'BAD_REQUEST', 'Invalid user group');
});

test('PATCH /user_groups/{id} and deactivation: update events (remove for clients without include_deactivated_groups), permissions, in-use check', async () => {
  const id = assertSuccess(await c(member).post('/user_groups/create', { name: 'frontend', members: [member.id] })).group_id;
  const q = await openQueue(c(other), { event_types: ['user_group'] });
  const res = await c(member).patch(`/user_groups/${id}`, { name: 'web', description: 'Web team' });
  assertSchema(res, 'PATCH', '/user_groups/{user_group_id}');
  assertSuccess(res);
  assert.deepEqual((await q.ofType('user_group')).map((e) => [e.op, e.group_id, e.data]), [['update', id, { name: 'web', description: 'Web team' }]]);
  assertError(await c(other).patch(`/user_groups/${id}`, { description: 'nope' }), 400, 'BAD_REQUEST', 'Insufficient permission');
  const systemGroups = assertSuccess(await c(member).get('/user_groups')).user_groups;
  const everyone = systemGroups.find((g: any) => g.name === 'role:everyone').id;
  const members = systemGroups.find((g: any) => g.name === 'role:members').id;
  // As Zulip's server_supported_permission_settings: guests can never join by themselves.
  assertError(await c(member).patch(`/user_groups/${id}`, { can_join_group: { new: everyone } }), 400, 'BAD_REQUEST', "'can_join_group' setting cannot be set to 'role:everyone' group.");
  assertSuccess(await c(member).patch(`/user_groups/${id}`, { can_join_group: { new: members } }));
  assert.deepEqual((await q.ofType('user_group'))[0].data, { can_join_group: members });
  // Now anyone may join by themselves.
  assertSuccess(await c(other).post(`/user_groups/${id}/members`, { add: [other.id] }));
  // A group used by a channel setting cannot be deactivated.
  const ch = assertSuccess(await c(member).post('/channels/create', { name: 'web chan', subscribers: [member.id], can_subscribe_group: id })).id;
  const inUse = await c(member).post(`/user_groups/${id}/deactivate`);
  assertError(inUse, 400, 'CANNOT_DEACTIVATE_GROUP_IN_USE', 'Cannot deactivate user group in use.');
  assert.deepEqual(inUse.body.objections, [{ type: 'channel', channel_id: ch, settings: ['can_subscribe_group'] }]);
  assertError(await c(member).patch(`/streams/${ch}`, { can_subscribe_group: { new: everyone } }), 400, 'BAD_REQUEST', "'can_subscribe_group' setting cannot be set to 'role:everyone' group.");
  assertSuccess(await c(member).patch(`/streams/${ch}`, { can_subscribe_group: { new: members } }));
  await q.drain();
  const capable = await openQueue(c(other), { event_types: ['user_group'], client_capabilities: { include_deactivated_groups: true } });
  assertSuccess(await c(member).post(`/user_groups/${id}/deactivate`));
  // Clients that handle deactivated groups (the include_deactivated_groups capability) get the update; others a remove.
  assert.deepEqual((await capable.ofType('user_group')).map((e) => [e.op, e.data]), [['update', { deactivated: true }]]);
  assert.deepEqual((await q.ofType('user_group')).map(({ id: _id, ...e }) => e), [{ type: 'user_group', op: 'remove', group_id: id }]);
  const listed = assertSuccess(await c(member).get('/user_groups')).user_groups;
  assert.ok(!listed.some((g: any) => g.id === id));
  const all = assertSuccess(await c(member).get('/user_groups', { include_deactivated_groups: true })).user_groups;
  assert.equal(all.find((g: any) => g.id === id).deactivated, true);
  // /register likewise.
  const registered = async (caps: Record<string, boolean>) =>
    (assertSuccess(await c(other).post('/register', { fetch_event_types: ['realm_user_groups'], client_capabilities: caps })).realm_user_groups as any[]).some((g) => g.id === id);
  assert.equal(await registered({}), false);
  assert.equal(await registered({ include_deactivated_groups: true }), true);
});

test('deactivated user groups as Zulip: renamed, reactivated and their members changed; nothing else; events by capability', async () => {
  const id = assertSuccess(await c(member).post('/user_groups/create', { name: 'dormant', members: [member.id] })).group_id;
  const sub = assertSuccess(await c(member).post('/user_groups/create', { name: 'dormant sub', members: [member.id] })).group_id;
  const sup = assertSuccess(await c(member).post('/user_groups/create', { name: 'dormant super', members: [], subgroups: [id] })).group_id;
  const systemGroups = assertSuccess(await c(member).get('/user_groups')).user_groups;
  const members = systemGroups.find((g: any) => g.name === 'role:members').id;
  // In use as an active group's subgroup, in the organization's settings and in a group's setting: every use is listed.
  assertSuccess(await c(t.owner).patch('/realm', { can_create_groups: JSON.stringify({ new: { direct_members: [], direct_subgroups: [id, members] } }) }));
  assertSuccess(await c(member).patch(`/user_groups/${sub}`, { can_mention_group: JSON.stringify({ new: id }) }));
  const inUse = await c(member).post(`/user_groups/${id}/deactivate`);
  assertError(inUse, 400, 'CANNOT_DEACTIVATE_GROUP_IN_USE', 'Cannot deactivate user group in use.');
  assert.deepEqual(inUse.body.objections, [
    { type: 'subgroup', supergroup_ids: [sup] },
    { type: 'user_group', group_id: sub, settings: ['can_mention_group'] },
    { type: 'realm', settings: ['can_create_groups'] },
  ]);
  assertSuccess(await c(t.owner).patch('/realm', { can_create_groups: JSON.stringify({ new: members }) }));
  assertSuccess(await c(member).patch(`/user_groups/${sub}`, { can_mention_group: JSON.stringify({ new: members }) }));
  assertSuccess(await c(member).post(`/user_groups/${sup}/deactivate`));
  assertSuccess(await c(member).post(`/user_groups/${id}/deactivate`));
  assertError(await c(member).post(`/user_groups/${id}/deactivate`), 400, 'BAD_REQUEST', 'User group is deactivated.');

  // Neither used as a subgroup or setting, nor read, nor given subgroups.
  assertError(await c(member).post(`/user_groups/${sub}/subgroups`, { add: JSON.stringify([id]) }), 400, 'BAD_REQUEST', 'User group is deactivated.');
  assertError(await c(member).post(`/user_groups/${id}/subgroups`, { add: JSON.stringify([sub]) }), 400, 'BAD_REQUEST', 'User group is deactivated.');
  assertError(await c(member).patch(`/user_groups/${sub}`, { can_mention_group: JSON.stringify({ new: id }) }), 400, 'BAD_REQUEST', 'User group is deactivated.');
  assertError(await c(member).post('/user_groups/create', { name: 'uses dormant', members: [], subgroups: [id] }), 400, 'BAD_REQUEST', 'User group is deactivated.');
  assertError(await c(member).get(`/user_groups/${id}/members`), 400, 'BAD_REQUEST', 'User group is deactivated.');
  assertError(await c(member).get(`/user_groups/${id}/subgroups`), 400, 'BAD_REQUEST', 'User group is deactivated.');
  assertError(await c(member).get(`/user_groups/${id}/members/${member.id}`), 400, 'BAD_REQUEST', 'User group is deactivated.');
  assertError(await c(member).patch(`/user_groups/${id}`, {}), 400, 'BAD_REQUEST', 'No new data supplied');

  // Members may still be changed (with the usual events).
  const plain = await openQueue(c(other), { event_types: ['user_group'] });
  const capable = await openQueue(c(other), { event_types: ['user_group'], client_capabilities: JSON.stringify({ include_deactivated_groups: true }) });
  assertSuccess(await c(member).post(`/user_groups/${id}/members`, { add: JSON.stringify([other.id]) }));
  for (const q of [plain, capable]) assert.deepEqual((await q.ofType('user_group')).map((e) => [e.op, e.user_ids]), [['add_members', [other.id]]]);

  // Renamed: only clients that keep deactivated groups hear of it.
  assertSuccess(await c(member).patch(`/user_groups/${id}`, { name: 'dormant renamed' }));
  assert.deepEqual((await capable.ofType('user_group')).map((e) => [e.op, e.data]), [['update', { name: 'dormant renamed' }]]);
  assert.deepEqual(await plain.ofType('user_group'), []);
  assertError(await c(member).patch(`/user_groups/${id}`, { name: 'role:x' }), 400, 'BAD_REQUEST', "User group name cannot start with 'role:'.");
  assertError(await c(member).patch(`/user_groups/${id}`, { name: 'x'.repeat(101) }), 400, 'BAD_REQUEST', 'User group name cannot exceed 100 characters.');
  // deactivated=true changes nothing; others may not reactivate it.
  assertSuccess(await c(member).patch(`/user_groups/${id}`, { deactivated: 'true' }));
  assertError(await c(other).patch(`/user_groups/${id}`, { deactivated: 'false' }), 400, 'BAD_REQUEST', 'Insufficient permission');
  assert.deepEqual([...(await capable.drain()), ...(await plain.drain())], []);

  // Reactivated: an update for capable clients, the whole group as an add for the others.
  assertSuccess(await c(member).patch(`/user_groups/${id}`, { deactivated: 'false' }));
  assert.deepEqual((await capable.ofType('user_group')).map((e) => [e.op, e.data]), [['update', { deactivated: false }]]);
  const added = await plain.ofType('user_group');
  assert.deepEqual(added.map((e) => [e.op, e.group.id, e.group.name, e.group.members, e.group.deactivated]), [['add', id, 'dormant renamed', [member.id, other.id], false]]);
  const listed = assertSuccess(await c(member).get('/user_groups')).user_groups.find((g: any) => g.id === id);
  assert.deepEqual(added[0].group, listed);
  assert.deepEqual(assertSuccess(await c(member).get(`/user_groups/${id}/members`)).members, [member.id, other.id]);
  assertSuccess(await c(member).post(`/user_groups/${sub}/subgroups`, { add: JSON.stringify([id]) }));
});

test('POST /user_groups/{id}/members: subgroups too (feature level 311), in one transaction; "Nothing to do" errors; adding subgroups takes can_add_members_group', async () => {
  const id = assertSuccess(await c(member).post('/user_groups/create', { name: 'both ways', members: [member.id] })).group_id;
  const sub = assertSuccess(await c(member).post('/user_groups/create', { name: 'both ways sub', members: [] })).group_id;
  const q = await openQueue(c(other), { event_types: ['user_group'] });
  assertError(await c(member).post(`/user_groups/${id}/members`, {}), 400, 'BAD_REQUEST', 'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
  assertError(await c(member).post(`/user_groups/${id}/subgroups`, {}), 400, 'BAD_REQUEST', 'Nothing to do. Specify at least one of "add" or "delete".');
  // A refused part (an unknown subgroup) leaves the members unchanged too.
  assertError(
    await c(member).post(`/user_groups/${id}/members`, { add: JSON.stringify([other.id]), add_subgroups: JSON.stringify([999999]) }),
    400,
    'BAD_REQUEST',
    'Invalid user group ID: 999999',
  );
  assert.deepEqual(assertSuccess(await c(member).get(`/user_groups/${id}/members`, { direct_member_only: 'true' })).members, [member.id]);
  assertSuccess(await c(member).post(`/user_groups/${id}/members`, { add: JSON.stringify([other.id]), add_subgroups: JSON.stringify([sub]) }));
  assert.deepEqual((await q.ofType('user_group')).map((e) => [e.op, e.user_ids ?? e.direct_subgroup_ids]), [
    ['add_members', [other.id]],
    ['add_subgroups', [sub]],
  ]);
  assert.deepEqual(assertSuccess(await c(member).get(`/user_groups/${id}/subgroups`)).subgroups, [sub]);
  assertSuccess(await c(member).post(`/user_groups/${id}/members`, { delete_subgroups: JSON.stringify([sub]) }));
  assert.deepEqual((await q.ofType('user_group')).map((e) => [e.op, e.direct_subgroup_ids]), [['remove_subgroups', [sub]]]);
  // Someone in can_add_members_group (not a manager) may add subgroups, not remove them.
  const systemGroups = assertSuccess(await c(member).get('/user_groups')).user_groups;
  const members = systemGroups.find((g: any) => g.name === 'role:members').id;
  assertError(await c(other).post(`/user_groups/${id}/subgroups`, { add: JSON.stringify([sub]) }), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertSuccess(await c(member).patch(`/user_groups/${id}`, { can_add_members_group: JSON.stringify({ new: members }) }));
  assertSuccess(await c(other).post(`/user_groups/${id}/subgroups`, { add: JSON.stringify([sub]) }));
  assertError(await c(other).post(`/user_groups/${id}/subgroups`, { delete: JSON.stringify([sub]) }), 400, 'BAD_REQUEST', 'Insufficient permission');
});

test('deactivated users are in no group while deactivated (feature level 303), and come back with reactivation; bots may be asked about (458)', async () => {
  const leaving = await t.makeUser({ name: 'Leaving member' });
  const bot = await t.makeUser({ isBot: true, botOwnerId: member.id, name: 'Group bot' });
  const id = assertSuccess(await c(member).post('/user_groups/create', { name: 'with leaver', members: JSON.stringify([member.id, leaving.id, bot.id]) })).group_id;
  const members = async () => ({
    listed: assertSuccess(await c(member).get('/user_groups')).user_groups.find((g: any) => g.id === id).members,
    registered: (assertSuccess(await c(member).post('/register', { fetch_event_types: JSON.stringify(['realm_user_groups']) })).realm_user_groups as any[]).find((g) => g.id === id).members,
    direct: assertSuccess(await c(member).get(`/user_groups/${id}/members`, { direct_member_only: 'true' })).members,
    all: assertSuccess(await c(member).get(`/user_groups/${id}/members`)).members,
  });
  const isMember = async (userId: number) => assertSuccess(await c(member).get(`/user_groups/${id}/members/${userId}`)).is_user_group_member;
  const withLeaver = [member.id, leaving.id, bot.id].sort((a, b) => a - b);
  assert.deepEqual(await members(), { listed: withLeaver, registered: withLeaver, direct: withLeaver, all: withLeaver });
  assert.equal(await isMember(leaving.id), true);
  assert.equal(await isMember(bot.id), true);

  // Anonymous group-setting values name the user too: the group's, and the organization's.
  const anonymous = { direct_members: [leaving.id], direct_subgroups: [id] };
  assertSuccess(await c(member).patch(`/user_groups/${id}`, { can_mention_group: JSON.stringify({ new: anonymous }) }));
  assertSuccess(await c(t.owner).patch('/realm', { can_create_groups: JSON.stringify({ new: anonymous }) }));
  const settingValues = async () => {
    const reg = assertSuccess(await c(member).post('/register', { fetch_event_types: JSON.stringify(['realm_user_groups', 'realm']) }));
    return [reg.realm_user_groups.find((g: any) => g.id === id).can_mention_group, reg.realm_can_create_groups];
  };
  assert.deepEqual(await settingValues(), [anonymous, anonymous]);

  assertSuccess(await c(admin).delete(`/users/${leaving.id}`));
  // While deactivated, the values show without the user (feature level 303).
  assert.deepEqual(await settingValues(), [{ direct_members: [], direct_subgroups: [id] }, { direct_members: [], direct_subgroups: [id] }]);
  const without = [member.id, bot.id].sort((a, b) => a - b);
  assert.deepEqual(await members(), { listed: without, registered: without, direct: without, all: without });
  // Neither removed nor added while deactivated.
  assertError(await c(member).post(`/user_groups/${id}/members`, { delete: JSON.stringify([leaving.id]) }), 400, 'BAD_REQUEST', `Invalid user ID: ${leaving.id}`);
  assertError(await c(member).post(`/user_groups/${id}/members`, { add: JSON.stringify([leaving.id]) }), 400, 'BAD_REQUEST', `Invalid user ID: ${leaving.id}`);

  assertSuccess(await c(admin).post(`/users/${leaving.id}/reactivate`));
  assert.deepEqual(await members(), { listed: withLeaver, registered: withLeaver, direct: withLeaver, all: withLeaver });
  assert.equal(await isMember(leaving.id), true);
  assert.deepEqual(await settingValues(), [anonymous, anonymous]);
  const systemGroups = assertSuccess(await c(member).get('/user_groups')).user_groups;
  const members_ = systemGroups.find((g: any) => g.name === 'role:members').id;
  assertSuccess(await c(t.owner).patch('/realm', { can_create_groups: JSON.stringify({ new: members_ }) }));
});
