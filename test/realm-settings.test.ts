/** PATCH /realm: organization settings, permissions, validation, events and their effects. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, openQueue, type Account, type TestServer, streamIdOf } from './helpers.ts';
import { ROLE } from '../src/store/users.ts';

let t: TestServer;
let admin: Account;
let member: Account;
let moderator: Account;

before(async () => {
  t = await startTestServer({ WEB_PUBLIC_STREAMS_ENABLED: 'true' });
  admin = await t.makeUser({ role: ROLE.ADMINISTRATOR });
  member = await t.makeUser({ role: ROLE.MEMBER });
  moderator = await t.makeUser({ role: ROLE.MODERATOR });
});
after(() => t.close());

const c = (a: Account) => t.client(a);
const groupId = async (name: string): Promise<number> => {
  const res = assertSuccess(await c(t.owner).get('/user_groups'));
  return res.user_groups.find((g: any) => g.name === name).id;
};

test('non-administrators may not change organization settings', async () => {
  assertError(await c(member).patch('/realm', { name: 'Nope' }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  assertError(await c(moderator).patch('/realm', { allow_message_editing: false }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
});

test('name: length limit, event to everyone, /register and server_settings', async () => {
  assertError(await c(admin).patch('/realm', { name: 'x'.repeat(41) }), 400, 'BAD_REQUEST', 'name is too long (limit: 40 characters)');
  const qMember = await openQueue(c(member), { event_types: ['realm'] });
  const qOwner = await openQueue(c(t.owner), { event_types: ['realm'] });
  const res = assertSuccess(await c(admin).patch('/realm', { name: 'Renamed Org' }));
  assert.equal(res.name, 'updated');
  for (const q of [qMember, qOwner]) {
    assert.deepEqual(
      (await q.ofType('realm')).map(({ id: _id, ...e }) => e),
      [{ type: 'realm', op: 'update', property: 'name', value: 'Renamed Org' }],
    );
  }
  const reg = assertSuccess(await c(member).post('/register', { fetch_event_types: ['realm'] }));
  assert.equal(reg.realm_name, 'Renamed Org');
  assert.equal(assertSuccess(await t.client(null).get('/server_settings')).realm_name, 'Renamed Org');
  // No change, no event.
  assertSuccess(await c(admin).patch('/realm', { name: 'Renamed Org' }));
  assert.deepEqual(await qMember.ofType('realm'), []);
});

test('description: length limit, raw and rendered value in an update_dict event (FL 464), raw in /register as in Zulip', async () => {
  assertError(await c(admin).patch('/realm', { description: 'y'.repeat(1001) }), 400, 'BAD_REQUEST', 'description is too long (limit: 1000 characters)');
  const q = await openQueue(c(member), { event_types: ['realm'] });
  assertSuccess(await c(admin).patch('/realm', { description: 'Hello **world**' }));
  const [ev] = await q.ofType('realm');
  assert.deepEqual(
    { op: ev.op, property: ev.property, data: ev.data },
    { op: 'update_dict', property: 'default', data: { description: 'Hello **world**', rendered_description: '<p>Hello <strong>world</strong></p>' } },
  );
  const reg = assertSuccess(await c(member).post('/register', { fetch_event_types: ['realm'] }));
  assert.equal(reg.realm_description, 'Hello **world**');
});

test('message editing settings use update_dict; editing follows them', async () => {
  const sent = assertSuccess(await c(member).post('/messages', { type: 'stream', to: 'general', topic: 'edits', content: 'first' }));
  const q = await openQueue(c(member), { event_types: ['realm'] });
  assertSuccess(await c(admin).patch('/realm', { allow_message_editing: false }));
  assert.deepEqual(
    (await q.ofType('realm')).map(({ id: _id, ...e }) => e),
    [{ type: 'realm', op: 'update_dict', property: 'default', data: { allow_message_editing: false } }],
  );
  assertError(await c(member).patch(`/messages/${sent.id}`, { content: 'second' }), 400, 'BAD_REQUEST', 'Your organization has turned off message editing');
  assertSuccess(await c(admin).patch('/realm', { allow_message_editing: true }));
  await q.drain();

  assertError(await c(admin).patch('/realm', { message_content_edit_limit_seconds: 0 }), 400, 'REQUEST_VARIABLE_INVALID', "Bad value for 'message_content_edit_limit_seconds': 0");
  assertError(await c(admin).patch('/realm', { message_content_edit_limit_seconds: 'forever' }), 400, 'REQUEST_VARIABLE_INVALID', "Bad value for 'message_content_edit_limit_seconds': forever");
  assertSuccess(await c(admin).patch('/realm', { message_content_edit_limit_seconds: 1 }));
  assert.deepEqual((await q.ofType('realm')).map((e) => e.data), [{ message_content_edit_limit_seconds: 1 }]);
  await t.server.svc.store.db.updateTable('messages').set({ date_sent: Math.floor(Date.now() / 1000) - 100 }).where('id', '=', sent.id).execute();
  assertError(await c(member).patch(`/messages/${sent.id}`, { content: 'late' }), 400, 'BAD_REQUEST', 'The time limit for editing this message has passed');
  const res = assertSuccess(await c(admin).patch('/realm', { message_content_edit_limit_seconds: 'unlimited' }));
  assert.equal(res.message_content_edit_limit_seconds, null);
  assert.deepEqual((await q.ofType('realm')).map((e) => e.data), [{ message_content_edit_limit_seconds: null }]);
  const reg = assertSuccess(await c(member).post('/register', { fetch_event_types: ['realm'] }));
  assert.equal(reg.realm_message_content_edit_limit_seconds, null);
  assertSuccess(await c(member).patch(`/messages/${sent.id}`, { content: 'late but allowed' }));
});

test('message_content_delete_limit_seconds: update event; deleting follows it', async () => {
  await c(admin).patch('/realm', {
    can_delete_own_message_group: { new: await groupId('role:everyone') },
  });
  const sent = assertSuccess(await c(member).post('/messages', { type: 'stream', to: 'general', topic: 'deletes', content: 'bye' }));
  const q = await openQueue(c(member), { event_types: ['realm'] });
  assertSuccess(await c(admin).patch('/realm', { message_content_delete_limit_seconds: 5 }));
  assert.deepEqual(
    (await q.ofType('realm')).map(({ id: _id, ...e }) => e),
    [{ type: 'realm', op: 'update', property: 'message_content_delete_limit_seconds', value: 5 }],
  );
  await t.server.svc.store.db.updateTable('messages').set({ date_sent: Math.floor(Date.now() / 1000) - 100 }).where('id', '=', sent.id).execute();
  assertError(await c(member).delete(`/messages/${sent.id}`), 400, 'BAD_REQUEST', 'The time limit for deleting this message has passed');
  assertSuccess(await c(admin).patch('/realm', { message_content_delete_limit_seconds: 'unlimited' }));
  assert.deepEqual((await q.ofType('realm')).map((e) => e.value), [null]);
  assertSuccess(await c(member).delete(`/messages/${sent.id}`));
});

test('topics_policy: allowed values, event, and sending to the empty topic', async () => {
  assertError(await c(admin).patch('/realm', { topics_policy: 'empty_topic_only' }), 400, 'BAD_REQUEST', 'Invalid topics_policy');
  const q = await openQueue(c(member), { event_types: ['realm'] });
  assertSuccess(await c(admin).patch('/realm', { topics_policy: 'disable_empty_topic' }));
  assert.deepEqual(
    (await q.ofType('realm')).map(({ id: _id, ...e }) => e),
    [
      { type: 'realm', op: 'update', property: 'topics_policy', value: 'disable_empty_topic' },
      // The legacy mandatory_topics follows it.
      { type: 'realm', op: 'update', property: 'mandatory_topics', value: true },
    ],
  );
  assertError(
    await c(member).post('/messages', { type: 'stream', to: 'general', topic: '', content: 'x' }),
    400,
    'BAD_REQUEST',
    'Sending messages to the general chat is not allowed in this organization.',
  );
  assert.equal(assertSuccess(await c(member).post('/register', { fetch_event_types: ['realm'] })).realm_topics_policy, 'disable_empty_topic');
  assertSuccess(await c(admin).patch('/realm', { topics_policy: 'allow_empty_topic' }));
  assertSuccess(await c(member).post('/messages', { type: 'stream', to: 'general', topic: '', content: 'x' }));
});

test('enable_spectator_access: anonymous GET /users follows it', async () => {
  assertError(await t.client(null).get('/users'), 401, 'UNAUTHORIZED');
  const q = await openQueue(c(member), { event_types: ['realm'] });
  assertSuccess(await c(admin).patch('/realm', { enable_spectator_access: true }));
  assert.deepEqual((await q.ofType('realm')).map((e) => [e.op, e.property, e.value]), [['update', 'enable_spectator_access', true]]);
  assertSuccess(await t.client(null).get('/users'));
  assert.equal(assertSuccess(await t.client(null).get('/server_settings')).realm_web_public_access_enabled, true);
  assertSuccess(await c(admin).patch('/realm', { enable_spectator_access: false }));
  assertError(await t.client(null).get('/users'), 401, 'UNAUTHORIZED');
});

test('name_changes_disabled and require_unique_names', async () => {
  assertSuccess(await c(admin).patch('/realm', { name_changes_disabled: true, require_unique_names: true }));
  const reg = assertSuccess(await c(member).post('/register', { fetch_event_types: ['realm'] }));
  assert.equal(reg.realm_name_changes_disabled, true);
  assert.equal(reg.realm_require_unique_names, true);
  assertSuccess(await c(member).patch('/settings', { full_name: 'Changed Name' }));
  const me = assertSuccess(await c(member).get('/users/me'));
  assert.notEqual(me.full_name, 'Changed Name');
  assertSuccess(await c(admin).patch('/realm', { name_changes_disabled: false, require_unique_names: false }));
});

test('announcement channels: validation and event', async () => {
  assertError(await c(admin).patch('/realm', { new_stream_announcements_stream_id: 99999 }), 400, 'BAD_REQUEST', 'Invalid channel ID');
  const general = await streamIdOf(c(admin), 'general');
  const q = await openQueue(c(member), { event_types: ['realm'] });
  assertSuccess(await c(admin).patch('/realm', { signup_announcements_stream_id: -1 }));
  assertSuccess(await c(admin).patch('/realm', { signup_announcements_stream_id: general }));
  const evs = (await q.ofType('realm')).map((e) => [e.property, e.value]);
  assert.deepEqual(evs.at(-1), ['signup_announcements_stream_id', general]);
  assert.equal(assertSuccess(await c(member).post('/register', { fetch_event_types: ['realm'] })).realm_signup_announcements_stream_id, general);
});

test('group settings: {new, old}, update_dict event, permission effect', async () => {
  const admins = await groupId('role:administrators');
  const members = await groupId('role:members');
  const q = await openQueue(c(member), { event_types: ['realm'] });
  assertError(
    await c(admin).patch('/realm', { can_create_public_channel_group: { new: admins, old: admins } }),
    400,
    'BAD_REQUEST',
    "'old' value does not match the expected value.",
  );
  const res = assertSuccess(await c(admin).patch('/realm', { can_create_public_channel_group: { new: admins, old: members } }));
  assert.equal(res.can_create_public_channel_group, admins);
  assert.deepEqual(
    (await q.ofType('realm')).map(({ id: _id, ...e }) => e),
    [{ type: 'realm', op: 'update_dict', property: 'default', data: { can_create_public_channel_group: admins } }],
  );
  const reg = assertSuccess(await c(member).post('/register', { fetch_event_types: ['realm', 'realm_user'] }));
  assert.equal(reg.realm_can_create_public_channel_group, admins);
  assert.equal(reg.can_create_public_streams, false);
  assertError(await c(member).post('/users/me/subscriptions', { subscriptions: [{ name: 'member-made' }] }), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertSuccess(await c(admin).post('/users/me/subscriptions', { subscriptions: [{ name: 'admin-made' }] }));
  // Anonymous group value, normalized as Zulip does.
  assertSuccess(await c(admin).patch('/realm', { can_create_public_channel_group: { new: { direct_members: [member.id], direct_subgroups: [admins] } } }));
  assert.deepEqual((await q.ofType('realm')).map((e) => e.data), [
    { can_create_public_channel_group: { direct_members: [member.id], direct_subgroups: [admins] } },
  ]);
  assertSuccess(await c(member).post('/users/me/subscriptions', { subscriptions: [{ name: 'member-made' }] }));
  assertSuccess(await c(admin).patch('/realm', { can_create_public_channel_group: { new: members } }));
});

test('group settings: Zulip system-group restrictions and unknown groups', async () => {
  const everyone = await groupId('role:everyone');
  const internet = await groupId('role:internet');
  const nobody = await groupId('role:nobody');
  const members = await groupId('role:members');
  assertError(await c(admin).patch('/realm', { can_create_public_channel_group: { new: everyone } }), 400, 'BAD_REQUEST', "'can_create_public_channel_group' setting cannot be set to 'role:everyone' group.");
  assertError(await c(admin).patch('/realm', { can_delete_any_message_group: { new: internet } }), 400, 'BAD_REQUEST', "'can_delete_any_message_group' setting cannot be set to 'role:internet' group.");
  assertError(await c(t.owner).patch('/realm', { can_manage_all_groups: { new: nobody } }), 400, 'BAD_REQUEST', "'can_manage_all_groups' setting cannot be set to 'role:nobody' group.");
  assertError(await c(admin).patch('/realm', { can_create_web_public_channel_group: { new: members } }), 400, 'BAD_REQUEST', "'can_create_web_public_channel_group' setting cannot be set to 'role:members' group.");
  assertError(await c(admin).patch('/realm', { can_add_subscribers_group: { new: 987654 } }), 400, 'BAD_REQUEST', 'Invalid user group ID: 987654');
  // Nothing changed by the refused requests.
  const reg = assertSuccess(await c(member).post('/register', { fetch_event_types: ['realm'] }));
  assert.equal(reg.realm_can_create_web_public_channel_group, await groupId('role:owners'));
});

test('owner-only settings: administrators get "Must be an organization owner"', async () => {
  const admins = await groupId('role:administrators');
  for (const name of ['can_create_groups', 'can_manage_all_groups', 'can_invite_users_group']) {
    assertError(await c(admin).patch('/realm', { [name]: { new: admins } }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
  }
  const q = await openQueue(c(member), { event_types: ['realm'] });
  assertSuccess(await c(t.owner).patch('/realm', { can_invite_users_group: { new: admins } }));
  assert.deepEqual((await q.ofType('realm')).map((e) => e.data), [{ can_invite_users_group: admins }]);
  assert.equal(assertSuccess(await c(member).post('/register', { fetch_event_types: ['realm'] })).realm_can_invite_users_group, admins);
});

test('register: the current user\'s role booleans and can_invite_others_to_realm as Zulip now has them', async () => {
  const state = async (a: Account) => (await openQueue(c(a), { fetch_event_types: ['realm_user', 'realm'] })).state;
  // is_moderator counts administrators and owners too (feature level 380), as is_admin counts owners.
  for (const [a, moderatorOrAbove] of [[t.owner, true], [admin, true], [moderator, true], [member, false]] as const) {
    const s = await state(a);
    assert.equal(s.is_moderator, moderatorOrAbove);
    // Removed fields: is_billing_admin (363), can_subscribe_other_users (341), realm_is_zephyr_mirror_realm (426).
    for (const gone of ['is_billing_admin', 'can_subscribe_other_users', 'realm_is_zephyr_mirror_realm']) assert.equal(s[gone], undefined, gone);
    assert.equal(s.realm_users.find((u: any) => u.user_id === a.id).is_billing_admin, undefined);
  }
  const s = await state(member);
  assert.equal(s.max_bulk_new_subscription_messages, 100);
  assert.equal(s.navigation_tour_video_url, null);
  assert.equal(s.realm_owner_full_content_access, false);
  assert.equal(s.server_min_deactivated_realm_deletion_days, 14);
  assert.equal(s.server_max_deactivated_realm_deletion_days, null);
  // can_invite_others_to_realm follows can_invite_users_group.
  assertSuccess(await c(t.owner).patch('/realm', { can_invite_users_group: JSON.stringify({ new: await groupId('role:members') }) }));
  assert.equal((await state(member)).can_invite_others_to_realm, true);
  assertSuccess(await c(t.owner).patch('/realm', { can_invite_users_group: JSON.stringify({ new: await groupId('role:administrators') }) }));
  try {
    assert.equal((await state(member)).can_invite_others_to_realm, false);
    assert.equal((await state(admin)).can_invite_others_to_realm, true);
  } finally {
    assertSuccess(await c(t.owner).patch('/realm', { can_invite_users_group: JSON.stringify({ new: await groupId('role:members') }) }));
  }
});
