/** Channels: create, read, update, archive, default channels; stream events and who gets them. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account } from './helpers.ts';
import { updateRealm } from '../src/store/realm.ts';
import { ROLE } from '../src/store/users.ts';

let t: TestServer;
let admin: Account;
let member: Account;
let other: Account;
let guest: Account;
before(async () => {
  t = await startTestServer({ WEB_PUBLIC_STREAMS_ENABLED: 'true' });
  admin = await t.makeUser({ role: ROLE.ADMINISTRATOR, name: 'Admin' });
  member = await t.makeUser({ name: 'Member' });
  other = await t.makeUser({ name: 'Other' });
  guest = await t.makeUser({ role: ROLE.GUEST, name: 'Guest' });
});
after(() => t.close());

const c = (a: Account) => t.client(a);
let n = 0;
const uniq = (p: string) => `${p} ${++n}`;

async function create(by: Account, params: Record<string, unknown>): Promise<number> {
  const res = await c(by).post('/channels/create', { subscribers: [by.id], ...params });
  return assertSuccess(res).id;
}

async function systemGroupId(name: string): Promise<number> {
  const res = await c(t.owner).get('/user_groups');
  return assertSuccess(res).user_groups.find((g: any) => g.name === name).id;
}

test('POST /channels/create: id, channel object, defaults, subscription colour', async () => {
  const name = uniq('created');
  const res = await c(member).post('/channels/create', { name, description: 'About **this**', subscribers: [member.id, other.id] });
  const body = assertSuccess(res);
  assert.equal(typeof body.id, 'number');
  const get = await c(member).get(`/streams/${body.id}`);
  assertSchema(get, 'GET', '/streams/{stream_id}');
  const s = get.body.stream;
  assert.equal(s.name, name);
  assert.equal(s.description, 'About **this**');
  assert.equal(s.rendered_description, '<p>About <strong>this</strong></p>');
  assert.equal(s.creator_id, member.id);
  assert.equal(s.invite_only, false);
  assert.equal(s.history_public_to_subscribers, true);
  assert.equal(s.topics_policy, 'inherit');
  assert.equal(s.is_archived, false);
  // Its first message: Notification Bot's notice of its creation (Zulip's channel events).
  const [first] = assertSuccess(await c(member).get('/messages', { anchor: 'oldest', num_before: 0, num_after: 1, narrow: [{ operator: 'channel', operand: body.id }] })).messages;
  assert.deepEqual([s.first_message_id, first.sender_full_name, first.subject], [first.id, 'Notification Bot', 'channel events']);
  assert.equal(s.stream_weekly_traffic, null);
  assert.equal(s.is_recently_active, true);
  assert.equal(s.message_retention_days, null);
  assert.equal(s.stream_post_policy, 1);
  assert.equal(s.is_announcement_only, false);
  assert.equal(s.can_send_message_group, await systemGroupId('role:everyone'));
  assert.equal(s.can_remove_subscribers_group, await systemGroupId('role:administrators'));
  assert.deepEqual(s.can_administer_channel_group, { direct_members: [member.id], direct_subgroups: [] });
  const subs = assertSuccess(await c(other).get('/users/me/subscriptions')).subscriptions;
  const sub = subs.find((x: any) => x.stream_id === body.id);
  assert.match(sub.color, /^#[0-9a-f]{6}$/);
});

test('POST /channels/create: permission parameters, topics_policy, retention', async () => {
  const admins = await systemGroupId('role:administrators');
  const id = await create(t.owner, {
    name: uniq('configured'),
    invite_only: true,
    history_public_to_subscribers: true,
    topics_policy: 'disable_empty_topic',
    message_retention_days: 30,
    can_send_message_group: admins,
    can_add_subscribers_group: { direct_members: [member.id], direct_subgroups: [admins] },
  });
  const s = assertSuccess(await c(t.owner).get(`/streams/${id}`)).stream;
  assert.equal(s.invite_only, true);
  assert.equal(s.history_public_to_subscribers, true);
  assert.equal(s.topics_policy, 'disable_empty_topic');
  assert.equal(s.message_retention_days, 30);
  assert.equal(s.can_send_message_group, admins);
  assert.equal(s.stream_post_policy, 2);
  assert.equal(s.is_announcement_only, true);
  assert.deepEqual(s.can_add_subscribers_group, { direct_members: [member.id], direct_subgroups: [admins] });
  const unl = await create(t.owner, { name: uniq('forever'), message_retention_days: 'unlimited' });
  assert.equal(assertSuccess(await c(t.owner).get(`/streams/${unl}`)).stream.message_retention_days, -1);
  const dflt = await create(t.owner, { name: uniq('realm default'), message_retention_days: 'realm_default' });
  assert.equal(assertSuccess(await c(t.owner).get(`/streams/${dflt}`)).stream.message_retention_days, null);
  // A private channel defaults to protected history.
  const priv = await create(member, { name: uniq('private default'), invite_only: true });
  assert.equal(assertSuccess(await c(member).get(`/streams/${priv}`)).stream.history_public_to_subscribers, false);
});

test('stream_post_policy (deprecated) for other can_send_message_group values: the most restrictive policy that lets all of them post (FL 333)', async () => {
  const moderator = await t.makeUser({ role: ROLE.MODERATOR, name: 'Moderator' });
  const policyFor = async (value: unknown) => {
    const id = await create(t.owner, { name: uniq('post policy'), can_send_message_group: value });
    const s = assertSuccess(await c(t.owner).get(`/streams/${id}`)).stream;
    return [s.stream_post_policy, s.is_announcement_only];
  };
  const adminsOnly = assertSuccess(await c(t.owner).post('/user_groups/create', { name: uniq('admins only'), description: '', members: [admin.id, t.owner.id] })).group_id;
  assert.deepEqual(await policyFor(await systemGroupId('role:owners')), [2, true]);
  assert.deepEqual(await policyFor(await systemGroupId('role:nobody')), [2, true]);
  assert.deepEqual(await policyFor(adminsOnly), [2, true]);
  assert.deepEqual(await policyFor({ direct_members: [moderator.id], direct_subgroups: [adminsOnly] }), [4, false]);
  assert.deepEqual(await policyFor({ direct_members: [member.id], direct_subgroups: [] }), [3, false]);
  assert.deepEqual(await policyFor({ direct_members: [guest.id, admin.id], direct_subgroups: [] }), [1, false]);
  // The system groups that have a policy keep theirs.
  assert.deepEqual(await policyFor(await systemGroupId('role:members')), [1, false]);
  assert.deepEqual(await policyFor(await systemGroupId('role:moderators')), [4, false]);
  assert.deepEqual(await policyFor(await systemGroupId('role:fullmembers')), [3, false]);
});

test('POST /channels/create: errors', async () => {
  const name = uniq('dup');
  await create(member, { name });
  assertError(await c(member).post('/channels/create', { name: name.toUpperCase(), subscribers: [] }), 400, 'CHANNEL_ALREADY_EXISTS', `Channel '${name.toUpperCase()}' already exists`);
  assertError(await c(member).post('/channels/create', { name: 'x'.repeat(61), subscribers: [] }), 400, 'BAD_REQUEST', 'Channel name too long (limit: 60 characters).');
  assertError(await c(member).post('/channels/create', { name: '  ', subscribers: [] }), 400, 'BAD_REQUEST', "Channel name can't be empty!");
  assertError(await c(member).post('/channels/create', { name: 'bad\u0001name', subscribers: [] }), 400, 'BAD_REQUEST', 'Invalid character in channel name, at position 4!');
  assertError(
    await c(member).post('/channels/create', { name: uniq('long desc'), description: 'd'.repeat(1025), subscribers: [] }),
    400,
    'BAD_REQUEST',
    'description is too long (limit: 1024 characters)',
  );
  assertError(await c(member).post('/channels/create', { name: uniq('x') }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'subscribers' argument");
  assertError(await c(guest).post('/channels/create', { name: uniq('guest'), subscribers: [] }), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertError(await c(member).post('/channels/create', { name: uniq('def'), subscribers: [], is_default_stream: true }), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertError(
    await c(admin).post('/channels/create', { name: uniq('def'), subscribers: [], is_default_stream: true, invite_only: true }),
    400,
    'BAD_REQUEST',
    'A default channel cannot be private.',
  );
  assertError(await c(admin).post('/channels/create', { name: uniq('ret'), subscribers: [], message_retention_days: 5 }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
  assertError(await c(t.owner).post('/channels/create', { name: uniq('ret'), subscribers: [], message_retention_days: 0 }), 400, 'BAD_REQUEST', "Bad value for 'message_retention_days': 0");
  assertError(await c(t.owner).post('/channels/create', { name: uniq('grp'), subscribers: [], can_send_message_group: 9999 }), 400, 'BAD_REQUEST', 'Invalid user group ID: 9999');
  assertError(await c(t.owner).post('/channels/create', { name: uniq('tp'), subscribers: [], topics_policy: 'nope' }), 400, 'BAD_REQUEST', 'Invalid topics_policy');
  assertError(await c(t.owner).post('/channels/create', { name: uniq('sub'), subscribers: [99999] }), 400, 'BAD_REQUEST', 'No such user');
  assertError(
    await c(t.owner).post('/channels/create', { name: uniq('web'), subscribers: [], is_web_public: true }),
    400,
    'BAD_REQUEST',
    'Web-public channels are not enabled.',
  );
});

test('web-public channels need the server setting, enable_spectator_access and can_create_web_public_channel_group', async () => {
  await updateRealm(t.server.svc.store.db, t.server.svc.realmId, { settings_json: JSON.stringify({ enable_spectator_access: true }) });
  try {
    assertError(await c(admin).post('/channels/create', { name: uniq('web'), subscribers: [], is_web_public: true }), 400, 'BAD_REQUEST', 'Insufficient permission');
    const id = await create(t.owner, { name: uniq('web'), is_web_public: true });
    const s = assertSuccess(await c(guest).get(`/streams/${id}`)).stream;
    assert.equal(s.is_web_public, true);
    // Guests see web-public channels with include_web_public, not other public ones.
    const list = assertSuccess(await c(guest).get('/streams', { include_web_public: true })).streams;
    assert.ok(list.some((x: any) => x.stream_id === id));
    assert.ok(list.every((x: any) => x.is_web_public || x.invite_only === false));
  } finally {
    await updateRealm(t.server.svc.store.db, t.server.svc.realmId, { settings_json: '{}' });
  }
});

test('stream create event: public to non-guests; private only to subscribers and administrators', async () => {
  const qMember = await openQueue(c(member), { event_types: ['stream', 'subscription'] });
  const qOther = await openQueue(c(other), { event_types: ['stream', 'subscription'] });
  const qGuest = await openQueue(c(guest), { event_types: ['stream', 'subscription'] });
  const qAdmin = await openQueue(c(admin), { event_types: ['stream', 'subscription'] });
  const pub = await create(member, { name: uniq('pub events') });
  const ev = (await qOther.ofType('stream')).filter((e) => e.op === 'create');
  assert.equal(ev.length, 1);
  assert.equal(ev[0].streams[0].stream_id, pub);
  assert.equal((await qGuest.drain()).length, 0);
  const mine = await qMember.drain();
  assert.ok(mine.some((e) => e.type === 'stream' && e.op === 'create'));
  const add = mine.find((e) => e.type === 'subscription' && e.op === 'add');
  assert.equal(add.subscriptions[0].stream_id, pub);
  assert.deepEqual(add.subscriptions[0].subscribers, [member.id]);
  await qAdmin.drain();

  const priv = await create(member, { name: uniq('priv events'), invite_only: true });
  assert.equal((await qOther.drain()).length, 0);
  assert.equal((await qGuest.drain()).length, 0);
  assert.ok((await qAdmin.ofType('stream')).some((e) => e.op === 'create' && e.streams[0].stream_id === priv));
  assert.ok((await qMember.ofType('stream')).some((e) => e.op === 'create' && e.streams[0].stream_id === priv));
});

test('GET /streams: flags and visibility by role', async () => {
  const pub = await create(member, { name: uniq('list pub') });
  const priv = await create(member, { name: uniq('list priv'), invite_only: true });
  const privOther = await create(other, { name: uniq('list priv other'), invite_only: true });
  const ids = async (a: Account, params: Record<string, unknown> = {}) => {
    const res = await c(a).get('/streams', params);
    assertSchema(res, 'GET', '/streams');
    return assertSuccess(res).streams.map((s: any) => s.stream_id) as number[];
  };
  const m = await ids(member);
  assert.ok(m.includes(pub) && m.includes(priv) && !m.includes(privOther));
  const noPublic = await ids(member, { include_public: false });
  assert.ok(noPublic.includes(priv) && noPublic.includes(pub)); // subscribed to both
  const onlyPublicNotSubscribed = await ids(other, { include_subscribed: false });
  assert.ok(onlyPublicNotSubscribed.includes(pub) && !onlyPublicNotSubscribed.includes(privOther));
  const adminAll = await ids(admin, { include_all: true });
  assert.ok(adminAll.includes(priv) && adminAll.includes(privOther));
  const adminDefault = await ids(admin);
  assert.ok(!adminDefault.includes(priv));
  const guestIds = await ids(guest);
  assert.ok(!guestIds.includes(pub));
  assertError(await c(member).get('/streams', { include_all_active: true }), 400, 'BAD_REQUEST', 'User not authorized for this query');
  assert.ok((await ids(admin, { include_all_active: true })).includes(privOther));
  const content = await ids(other, { include_public: false, include_subscribed: false, include_can_access_content: true });
  assert.ok(content.includes(pub) && content.includes(privOther) && !content.includes(priv));
});

test('GET /streams/{id}, GET /get_stream_id: private channels are invisible to others', async () => {
  const name = uniq('hidden');
  const priv = await create(member, { name, invite_only: true });
  assertSuccess(await c(member).get(`/streams/${priv}`));
  assertError(await c(other).get(`/streams/${priv}`), 400, 'BAD_REQUEST', 'Invalid channel ID');
  assertError(await c(member).get('/streams/999999'), 400, 'BAD_REQUEST', 'Invalid channel ID');
  const idRes = await c(member).get('/get_stream_id', { stream: name });
  assertSchema(idRes, 'GET', '/get_stream_id');
  assert.equal(assertSuccess(idRes).stream_id, priv);
  assertError(await c(other).get('/get_stream_id', { stream: name }), 400, 'BAD_REQUEST', `Invalid channel name '${name}'`);
  // Administrators see private channels' metadata.
  assertSuccess(await c(admin).get(`/streams/${priv}`));
});

test('PATCH /streams/{id}: name and description, with update events to viewers only', async () => {
  const pub = await create(member, { name: uniq('patch') });
  const qOther = await openQueue(c(other), { event_types: ['stream'] });
  const qGuest = await openQueue(c(guest), { event_types: ['stream'] });
  const newName = uniq('renamed');
  const res = await c(member).patch(`/streams/${pub}`, { new_name: newName, description: 'New *desc*' });
  assertSchema(res, 'PATCH', '/streams/{stream_id}');
  assertSuccess(res);
  const events = await qOther.ofType('stream');
  const nameEv = events.find((e) => e.property === 'name');
  assert.equal(nameEv.op, 'update');
  assert.equal(nameEv.value, newName);
  assert.equal(nameEv.stream_id, pub);
  const descEv = events.find((e) => e.property === 'description');
  assert.equal(descEv.value, 'New *desc*');
  assert.equal(descEv.rendered_description, '<p>New <em>desc</em></p>');
  assert.equal((await qGuest.drain()).length, 0);
  assertError(await c(member).patch(`/streams/${pub}`, { new_name: newName }), 400, 'BAD_REQUEST', 'Channel already has that name.');
  const taken = uniq('taken');
  await create(member, { name: taken });
  assertError(await c(member).patch(`/streams/${pub}`, { new_name: taken }), 400, 'CHANNEL_ALREADY_EXISTS', `Channel '${taken}' already exists`);
  assertError(await c(other).patch(`/streams/${pub}`, { description: 'x' }), 400, 'BAD_REQUEST', 'You do not have permission to administer this channel.');
  assertSuccess(await c(admin).patch(`/streams/${pub}`, { description: 'by admin' }));
});

test('PATCH /streams/{id}: privacy rules and events to users who gain or lose access', async () => {
  const id = await create(member, { name: uniq('privacy') });
  assertError(await c(member).patch(`/streams/${id}`, { history_public_to_subscribers: false }), 400, 'BAD_REQUEST', 'Invalid parameters');
  const qOther = await openQueue(c(other), { event_types: ['stream'] });
  const qAdmin = await openQueue(c(admin), { event_types: ['stream'] });
  assertSuccess(await c(member).patch(`/streams/${id}`, { is_private: true }));
  const s = assertSuccess(await c(member).get(`/streams/${id}`)).stream;
  assert.equal(s.invite_only, true);
  assert.equal(s.history_public_to_subscribers, false);
  const lost = await qOther.ofType('stream');
  assert.equal(lost.length, 1);
  assert.equal(lost[0].op, 'delete');
  assert.equal(lost[0].streams[0].stream_id, id);
  const adminEv = (await qAdmin.ofType('stream')).find((e) => e.op === 'update' && e.property === 'invite_only');
  assert.equal(adminEv.value, true);
  assert.equal(adminEv.history_public_to_subscribers, false);
  // Back to public: the others get a create.
  assertSuccess(await c(member).patch(`/streams/${id}`, { is_private: false }));
  assert.ok((await qOther.ofType('stream')).some((e) => e.op === 'create' && e.streams[0].stream_id === id));
  // An administrator who is not subscribed cannot change a private channel's privacy.
  const priv = await create(member, { name: uniq('admin-no-content'), invite_only: true });
  assertError(await c(admin).patch(`/streams/${priv}`, { is_private: false }), 400, 'BAD_REQUEST', 'Invalid channel ID');
  // Protected history needs can_create_topic_group = role:everyone.
  const admins = await systemGroupId('role:administrators');
  const p2 = await create(member, { name: uniq('topic grp'), invite_only: true, history_public_to_subscribers: true, can_create_topic_group: admins });
  assertError(
    await c(member).patch(`/streams/${p2}`, { history_public_to_subscribers: false }),
    400,
    'BAD_REQUEST',
    "'can_create_topic_group' must be 'role:everyone' for private channels with protected history.",
  );
});

test('PATCH /streams/{id}: group settings as update objects, topics_policy, retention, folder', async () => {
  const id = await create(member, { name: uniq('settings') });
  const everyone = await systemGroupId('role:everyone');
  const admins = await systemGroupId('role:administrators');
  const q = await openQueue(c(other), { event_types: ['stream'] });
  assertError(
    await c(member).patch(`/streams/${id}`, { can_send_message_group: { new: admins, old: admins } }),
    400,
    'BAD_REQUEST',
    "'old' value does not match the expected value.",
  );
  assertSuccess(await c(member).patch(`/streams/${id}`, { can_send_message_group: { new: admins, old: everyone } }));
  const ev = (await q.ofType('stream')).find((e) => e.property === 'can_send_message_group');
  assert.equal(ev.value, admins);
  assertSuccess(await c(member).patch(`/streams/${id}`, { can_send_message_group: { new: { direct_members: [member.id], direct_subgroups: [] } } }));
  assert.deepEqual(assertSuccess(await c(member).get(`/streams/${id}`)).stream.can_send_message_group, { direct_members: [member.id], direct_subgroups: [] });
  // Not while the channel has a named topic: its "channel events" notices are in one, as in Zulip; once that topic is gone, it may.
  assertError(
    await c(member).patch(`/streams/${id}`, { topics_policy: 'empty_topic_only' }),
    400,
    'BAD_REQUEST',
    'To enable this configuration, all messages in this channel must be in the general chat topic. Consider renaming or deleting other topics.',
  );
  assert.equal(assertSuccess(await c(t.owner).post(`/streams/${id}/delete_topic`, { topic_name: 'channel events' })).complete, true);
  assertSuccess(await c(member).patch(`/streams/${id}`, { topics_policy: 'empty_topic_only' }));
  assert.equal((await q.ofType('stream')).find((e) => e.property === 'topics_policy')?.value, 'empty_topic_only');
  assertError(await c(member).patch(`/streams/${id}`, { message_retention_days: 3 }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
  assertSuccess(await c(t.owner).patch(`/streams/${id}`, { message_retention_days: 'unlimited' }));
  assert.equal(assertSuccess(await c(member).get(`/streams/${id}`)).stream.message_retention_days, -1);
  assertSuccess(await c(member).patch(`/streams/${id}`, { folder_id: null }));
  assertError(await c(member).patch(`/streams/${id}`, { folder_id: 5 }), 400, 'BAD_REQUEST', 'Invalid channel folder ID');
});

test('default channels: POST/DELETE /default_streams, is_default_stream, realm_default_streams and events', async () => {
  const id = await create(admin, { name: uniq('default') });
  const q = await openQueue(c(member), { event_types: ['default_streams'] });
  assertError(await c(member).post('/default_streams', { stream_id: id }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  const res = await c(admin).post('/default_streams', { stream_id: id });
  assertSchema(res, 'POST', '/default_streams');
  assertSuccess(res);
  const ev = await q.ofType('default_streams');
  assert.ok(ev[0].default_streams.includes(id));
  const state = await openQueue(c(member), { fetch_event_types: ['default_streams', 'default_stream_groups'] });
  assert.ok(state.state.realm_default_streams.includes(id));
  assert.deepEqual(state.state.realm_default_stream_groups, []);
  assert.ok(assertSuccess(await c(member).get('/streams', { include_default: true, include_public: false, include_subscribed: false })).streams.some((s: any) => s.stream_id === id));
  assertSuccess(await c(admin).delete('/default_streams', { stream_id: id }));
  assert.ok(!(await q.ofType('default_streams'))[0].default_streams.includes(id));
  const priv = await create(admin, { name: uniq('priv default'), invite_only: true });
  assertError(await c(admin).post('/default_streams', { stream_id: priv }), 400, 'BAD_REQUEST', 'Private channels cannot be made default.');
  assertSuccess(await c(admin).patch(`/streams/${id}`, { is_default_stream: true }));
  assert.ok((await q.ofType('default_streams'))[0].default_streams.includes(id));
});

test('DELETE /streams/{id} archives; archived_channels clients get an update, others a delete; unarchive', async () => {
  const id = await create(member, { name: uniq('archive') });
  const capable = await openQueue(c(other), { event_types: ['stream'], client_capabilities: { archived_channels: true } });
  const legacy = await openQueue(c(other), { event_types: ['stream'] });
  const qGuest = await openQueue(c(guest), { event_types: ['stream'] });
  assertError(await c(other).delete(`/streams/${id}`), 400, 'BAD_REQUEST', 'You do not have permission to administer this channel.');
  const res = await c(member).delete(`/streams/${id}`);
  assertSchema(res, 'DELETE', '/streams/{stream_id}');
  assertSuccess(res);
  const up = await capable.ofType('stream');
  assert.equal(up.length, 1);
  assert.deepEqual({ op: up[0].op, property: up[0].property, value: up[0].value, stream_id: up[0].stream_id }, { op: 'update', property: 'is_archived', value: true, stream_id: id });
  const del = await legacy.ofType('stream');
  assert.equal(del[0].op, 'delete');
  assert.equal(del[0].streams[0].stream_id, id);
  assert.equal((await qGuest.drain()).length, 0);
  assert.ok(!assertSuccess(await c(member).get('/streams')).streams.some((s: any) => s.stream_id === id));
  assert.ok(assertSuccess(await c(member).get('/streams', { exclude_archived: false })).streams.find((s: any) => s.stream_id === id).is_archived);
  assertError(await c(member).delete(`/streams/${id}`), 400, 'BAD_REQUEST', 'Channel is already deactivated');
  assertError(await c(member).patch(`/streams/${id}`, { description: 'x' }), 400, 'BAD_REQUEST', 'Channel is archived.');
  assertSuccess(await c(member).patch(`/streams/${id}`, { is_archived: false }));
  const un = await capable.ofType('stream');
  assert.equal(un[0].property, 'is_archived');
  assert.equal(un[0].value, false);
  assert.equal((await legacy.ofType('stream'))[0].op, 'create');
  assert.equal(assertSuccess(await c(member).get(`/streams/${id}`)).stream.is_archived, false);
});

test('PATCH /streams/{id} on an archived channel (FL 362): privacy changes like any channel; other settings still refused', async () => {
  const id = await create(member, { name: uniq('archived privacy'), subscribers: [member.id, other.id] });
  assertSuccess(await c(member).delete(`/streams/${id}`));
  const bystander = await t.makeUser({ name: uniq('Bystander') });
  const types = { event_types: ['stream'] };
  const capable = { ...types, client_capabilities: { archived_channels: true } };
  const adminCap = await openQueue(c(admin), capable);
  const otherCap = await openQueue(c(other), capable);
  const byCap = await openQueue(c(bystander), capable);
  const byOld = await openQueue(c(bystander), types);
  const otherOld = await openQueue(c(other), types);
  const guestCap = await openQueue(c(guest), capable);
  const view = async () => assertSuccess(await c(member).get(`/streams/${id}`)).stream;
  const updates = async (q: typeof adminCap) => (await q.ofType('stream')).map((e) => [e.op, e.property, e.value]);
  // Public to private: those who still see it get the update; a member who no longer does, a delete.
  assertSuccess(await c(member).patch(`/streams/${id}`, { is_private: true }));
  let s = await view();
  assert.deepEqual([s.invite_only, s.history_public_to_subscribers, s.is_archived], [true, false, true]);
  const upd = await otherCap.ofType('stream');
  assert.deepEqual(upd.map((e) => [e.op, e.stream_id, e.property, e.value, e.history_public_to_subscribers]), [['update', id, 'invite_only', true, false]]);
  assert.deepEqual(await updates(adminCap), [['update', 'invite_only', true]]);
  assert.deepEqual((await byCap.ofType('stream')).map((e) => [e.op, e.stream_ids]), [['delete', [id]]]);
  // Shared history, then public and web-public again.
  assertSuccess(await c(member).patch(`/streams/${id}`, { history_public_to_subscribers: true }));
  assert.deepEqual(await updates(otherCap), [['update', 'history_public_to_subscribers', true]]);
  assertSuccess(await c(member).patch(`/streams/${id}`, { is_private: false }));
  assert.deepEqual((await byCap.ofType('stream')).map((e) => [e.op, e.streams[0].stream_id, e.streams[0].is_archived]), [['create', id, true]]);
  assert.deepEqual(await updates(otherCap), [['update', 'invite_only', false]]);
  assertSuccess(await c(admin).patch('/realm', { enable_spectator_access: true }));
  assertSuccess(await c(t.owner).patch(`/streams/${id}`, { is_web_public: true }));
  s = await view();
  assert.deepEqual([s.invite_only, s.is_web_public, s.history_public_to_subscribers, s.is_archived], [false, true, true, true]);
  assert.deepEqual(await updates(byCap), [['update', 'is_web_public', true]]);
  // Guests see no public channel, but a web-public one; clients without archived_channels hear nothing of an archived one.
  assert.deepEqual((await guestCap.drain()).map((e) => [e.op, e.streams[0].stream_id]), [['create', id]]);
  assert.deepEqual(await byOld.drain(), []);
  assert.deepEqual(await otherOld.drain(), []);
  // The privacy rules are those of any channel.
  assertError(await c(member).patch(`/streams/${id}`, { is_private: true, is_web_public: true }), 400, 'BAD_REQUEST', 'Invalid parameters');
  // Anything else, alone or beside a privacy change, is still refused.
  assertError(await c(member).patch(`/streams/${id}`, { description: 'x' }), 400, 'BAD_REQUEST', 'Channel is archived.');
  assertError(await c(member).patch(`/streams/${id}`, { is_private: true, new_name: uniq('renamed') }), 400, 'BAD_REQUEST', 'Channel is archived.');
  assertError(await c(member).patch(`/streams/${id}`, { is_private: true, topics_policy: 'disable_empty_topic' }), 400, 'BAD_REQUEST', 'Channel is archived.');
  assert.equal((await view()).invite_only, false);
  assertSuccess(await c(admin).patch('/realm', { enable_spectator_access: false }));
});

test('register: streams state follows metadata access; realm channel permission settings', async () => {
  const priv = await create(member, { name: uniq('reg priv'), invite_only: true });
  const mine = await openQueue(c(member), { fetch_event_types: ['stream', 'realm'] });
  assert.ok(mine.state.streams.some((s: any) => s.stream_id === priv));
  const theirs = await openQueue(c(other), { fetch_event_types: ['stream'] });
  assert.ok(!theirs.state.streams.some((s: any) => s.stream_id === priv));
  assert.equal(mine.state.realm_can_create_public_channel_group, await systemGroupId('role:members'));
  assert.equal(mine.state.realm_can_create_web_public_channel_group, await systemGroupId('role:owners'));
});

test('announce: Notification Bot posts to the new channel announcements channel', async () => {
  const target = await create(admin, { name: uniq('announcements') });
  await updateRealm(t.server.svc.store.db, t.server.svc.realmId, { settings_json: JSON.stringify({ new_stream_announcements_stream_id: target }) });
  try {
    const name = uniq('announced');
    await create(member, { name, announce: true });
    await create(member, { name: uniq('quiet'), announce: true, invite_only: true });
    const rows = await t.server.svc.store.db
      .selectFrom('messages')
      .innerJoin('users', 'users.id', 'messages.sender_id')
      .select(['messages.content', 'messages.topic', 'users.full_name', 'users.delivery_email', 'users.is_bot'])
      .where('recipient_type', '=', 2)
      .where('recipient_id', '=', target)
      .where('topic', '=', 'new channels')
      .execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0].content, `@_**Member|${member.id}** created a new channel #**${name}**.`);
    assert.equal(rows[0].topic, 'new channels');
    assert.equal(rows[0].full_name, 'Notification Bot');
    assert.match(rows[0].delivery_email, /^notification-bot@/);
    assert.equal(rows[0].is_bot, 1);
    // A system bot: listed in cross_realm_bots, not among the organization's users.
    const reg = await openQueue(c(member), { fetch_event_types: ['realm_user'] });
    const cross = reg.state.cross_realm_bots.find((b: any) => b.full_name === 'Notification Bot');
    assert.ok(cross, 'Notification Bot is a cross-realm bot');
    assert.equal(cross.is_system_bot, true);
    assert.equal(cross.email, 'notification-bot@zulip.com');
    assert.ok(!reg.state.realm_users.some((u: any) => u.user_id === cross.user_id));
    assert.ok(!assertSuccess(await c(member).get('/users')).members.some((u: any) => u.user_id === cross.user_id));
  } finally {
    await updateRealm(t.server.svc.store.db, t.server.svc.realmId, { settings_json: '{}' });
  }
});
