/**
 * The organization's group-based permissions for what Parley does:
 * can_mention_many_users_group (wildcard mentions in large channels and
 * topics, on sending and editing; Zulip's default, administrators),
 * direct_message_permission_group and direct_message_initiator_group,
 * can_create_bots_group and can_create_write_only_bots_group,
 * can_set_topics_policy_group and can_set_delete_message_policy_group;
 * and that a group-setting value names active users only.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, type Account, type TestServer, streamIdOf } from './helpers.ts';
import { ROLE } from '../src/store/users.ts';

let t: TestServer;
let admin: Account;
let member: Account;
let other: Account;
let crowd: Account[];
let group: (name: string) => number;

before(async () => {
  t = await startTestServer();
  admin = await t.makeUser({ role: ROLE.ADMINISTRATOR });
  member = await t.makeUser({ role: ROLE.MEMBER });
  other = await t.makeUser({ role: ROLE.MEMBER });
  crowd = [];
  for (let i = 0; i < 14; i++) crowd.push(await t.makeUser({ role: ROLE.MEMBER }));
  const groups = assertSuccess(await t.client(t.owner).get('/user_groups')).user_groups;
  group = (name: string) => groups.find((g: any) => g.name === name).id;
});
after(() => t.close());

const c = (a: Account) => t.client(a);
const setting = async (params: Record<string, unknown>) => assertSuccess(await c(t.owner).patch('/realm', params));
const post = (a: Account, to: string, topic: string, content: string) => c(a).post('/messages', { type: 'stream', to, topic, content });
const dm = (a: Account, to: number[], content = 'hi') => c(a).post('/messages', { type: 'direct', to: JSON.stringify(to), content });

async function channel(name: string, subscribers: Account[]): Promise<number> {
  assertSuccess(await c(t.owner).post('/users/me/subscriptions', { subscriptions: [{ name }], principals: subscribers.map((s) => s.id) }));
  return await streamIdOf(c(t.owner), name);
}

test("can_mention_many_users_group: Zulip's default (administrators), enforced above 15 subscribers or participants", async () => {
  const reg = assertSuccess(await c(member).post('/register', { fetch_event_types: ['realm'] }));
  assert.equal(reg.realm_can_mention_many_users_group, group('role:administrators'));
  assert.equal(reg.realm_wildcard_mention_policy, 5);

  // 18 subscribers (the owner, admin, member, other and 14 more); "small" has 3.
  await channel('big', [admin, member, other, ...crowd]);
  await channel('small', [member, other]);
  const channelErr = ['STREAM_WILDCARD_MENTION_NOT_ALLOWED', 'You do not have permission to use channel wildcard mentions in this channel.'] as const;
  for (const w of ['@**all**', '@**everyone**', '@**channel**']) {
    assertError(await post(member, 'big', 'hello', `${w} look`), 400, ...channelErr);
  }
  // Silent wildcards notify nobody and are allowed.
  assertSuccess(await post(member, 'big', 'hello', '@_**all** look'));
  assertSuccess(await post(member, 'small', 'hello', '@**all** look'));
  assertSuccess(await post(admin, 'big', 'hello', '@**all** look'));

  // Editing one's message to add a wildcard is checked too.
  const id = assertSuccess(await post(member, 'big', 'edits', 'plain')).id;
  assertError(await c(member).patch(`/messages/${id}`, { content: 'now @**all**' }), 400, ...channelErr);

  // Topic wildcards count the topic's participants (16 here, with the sender).
  const topicErr = ['TOPIC_WILDCARD_MENTION_NOT_ALLOWED', 'You do not have permission to use topic wildcard mentions in this topic.'] as const;
  assertSuccess(await post(member, 'big', 'busy', '@**topic** few participants yet'));
  for (const u of [other, ...crowd]) assertSuccess(await post(u, 'big', 'busy', 'me too'));
  assertError(await post(member, 'big', 'busy', '@**topic** everyone here'), 400, ...topicErr);
  assertSuccess(await post(member, 'big', 'quiet', '@**topic** only me here'));

  // Opening the permission to members lets them.
  await setting({ can_mention_many_users_group: { new: group('role:members') } });
  assert.equal(assertSuccess(await c(member).post('/register', { fetch_event_types: ['realm'] })).realm_wildcard_mention_policy, 2);
  assertSuccess(await post(member, 'big', 'hello', '@**all** now allowed'));
  assertSuccess(await post(member, 'big', 'busy', '@**topic** now allowed'));
  assertSuccess(await c(member).patch(`/messages/${id}`, { content: 'now @**all**' }));
  await setting({ can_mention_many_users_group: { new: group('role:administrators') } });
});

test('direct_message_permission_group: a conversation needs one participant in the group', async () => {
  const bot = await t.makeUser({ isBot: true, botOwnerId: member.id, botType: 1, name: 'DM bot' });
  await setting({ direct_message_permission_group: { new: group('role:nobody') } });
  assertError(await dm(member, [other.id]), 400, 'BAD_REQUEST', 'Direct messages are disabled in this organization.');
  assertError(await dm(admin, [other.id, member.id]), 400, 'BAD_REQUEST', 'Direct messages are disabled in this organization.');
  // Oneself and bots are always reachable; bots may always send.
  assertSuccess(await dm(member, [member.id]));
  assertSuccess(await dm(member, [bot.id]));
  assertSuccess(await dm(bot, [other.id]));

  await setting({ direct_message_permission_group: { new: group('role:administrators') } });
  assertError(await dm(member, [other.id]), 400, 'BAD_REQUEST', 'This conversation does not include any users who can authorize it.');
  assertSuccess(await dm(member, [admin.id]));
  assertSuccess(await dm(member, [admin.id, other.id]));
  assertSuccess(await dm(admin, [other.id]));
  await setting({ direct_message_permission_group: { new: group('role:everyone') } });
  assertSuccess(await dm(member, [other.id]));
});

test('direct_message_initiator_group: starting a conversation needs the group, replying does not', async () => {
  const fresh = await t.makeUser({ role: ROLE.MEMBER });
  await setting({ direct_message_initiator_group: { new: group('role:administrators') } });
  const err = ['BAD_REQUEST', 'You do not have permission to initiate direct message conversations.'] as const;
  assertError(await dm(fresh, [other.id]), 400, ...err);
  assertError(await dm(fresh, [other.id, member.id]), 400, ...err);
  // An administrator starts one; then the member may reply, one-to-one and in the group.
  assertSuccess(await dm(admin, [fresh.id]));
  assertSuccess(await dm(fresh, [admin.id]));
  assertSuccess(await dm(admin, [fresh.id, other.id]));
  assertSuccess(await dm(fresh, [admin.id, other.id]));
  assertSuccess(await dm(fresh, [fresh.id]));
  await setting({ direct_message_initiator_group: { new: group('role:everyone') } });
  assertSuccess(await dm(fresh, [other.id]));
});

test('can_create_bots_group and can_create_write_only_bots_group', async () => {
  let n = 0;
  const bot = (a: Account, botType: number) => c(a).post('/bots', { full_name: `Made ${++n}`, short_name: `made${n}`, bot_type: botType });
  assertSuccess(await bot(member, 1));
  await setting({ can_create_bots_group: { new: group('role:administrators') } });
  assertError(await bot(member, 1), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertError(await bot(member, 3), 400, 'BAD_REQUEST', 'Insufficient permission');
  // Incoming webhooks only send messages: can_create_write_only_bots_group (members) suffices.
  assertSuccess(await bot(member, 2));
  assertSuccess(await bot(admin, 1));
  await setting({ can_create_write_only_bots_group: { new: group('role:nobody') } });
  assertError(await bot(member, 2), 400, 'BAD_REQUEST', 'Insufficient permission');
  await setting({ can_create_bots_group: { new: group('role:members') }, can_create_write_only_bots_group: { new: group('role:members') } });
  assertSuccess(await bot(member, 1));
});

test('can_set_topics_policy_group and can_set_delete_message_policy_group govern per-channel policies', async () => {
  // A channel the member administers.
  const id = await channel('policies', [member]);
  assertSuccess(await c(t.owner).patch(`/streams/${id}`, { can_administer_channel_group: JSON.stringify({ new: { direct_members: [member.id], direct_subgroups: [] } }) }));
  // Zulip's defaults: members may set topics_policy, moderators the deletion settings.
  assertSuccess(await c(member).patch(`/streams/${id}`, { topics_policy: 'disable_empty_topic' }));
  const deletion = { can_delete_own_message_group: JSON.stringify({ new: group('role:administrators') }) };
  assertError(await c(member).patch(`/streams/${id}`, deletion), 400, 'BAD_REQUEST', 'Insufficient permission');
  await setting({ can_set_delete_message_policy_group: { new: group('role:members') }, can_set_topics_policy_group: { new: group('role:moderators') } });
  assertSuccess(await c(member).patch(`/streams/${id}`, deletion));
  assertError(await c(member).patch(`/streams/${id}`, { topics_policy: 'allow_empty_topic' }), 400, 'BAD_REQUEST', 'Insufficient permission');
  // Administrators always may.
  assertSuccess(await c(admin).patch(`/streams/${id}`, { topics_policy: 'allow_empty_topic' }));
  // Creating a channel with these policies is checked the same way.
  assertError(await c(member).post('/users/me/subscriptions', { subscriptions: [{ name: 'new-policy' }], topics_policy: 'disable_empty_topic' }), 400, 'BAD_REQUEST', 'Insufficient permission');
  await setting({ can_set_delete_message_policy_group: { new: group('role:moderators') }, can_set_topics_policy_group: { new: group('role:members') } });
});

test('a group-setting value names active users only: a deactivated one is refused for the organization, a channel and a user group, and accepted again once reactivated', async () => {
  const gone = await t.makeUser({ role: ROLE.MEMBER });
  const value = { direct_members: [gone.id, member.id], direct_subgroups: [] };
  const stream = await channel('named members', [member]);
  const attempts = {
    realm: () => c(t.owner).patch('/realm', { can_create_groups: { new: value } }),
    newChannel: (name: string) => c(t.owner).post('/channels/create', { name, subscribers: [t.owner.id], can_administer_channel_group: value }),
    channel: () => c(t.owner).patch(`/streams/${stream}`, { can_send_message_group: { new: value } }),
    newGroup: (name: string) => c(t.owner).post('/user_groups/create', { name, description: '', members: [], can_manage_group: value }),
  };
  const before = assertSuccess(await c(t.owner).get('/streams/' + stream)).stream;
  assertSuccess(await c(admin).delete(`/users/${gone.id}`));
  const refused = `Invalid user ID: ${gone.id}`;
  assertError(await attempts.realm(), 400, 'BAD_REQUEST', refused);
  assertError(await attempts.newChannel('with a deactivated administrator'), 400, 'BAD_REQUEST', refused);
  assertError(await attempts.channel(), 400, 'BAD_REQUEST', refused);
  assertError(await attempts.newGroup('managed by a deactivated user'), 400, 'BAD_REQUEST', refused);
  // Nothing was changed or made.
  assert.deepEqual(assertSuccess(await c(t.owner).get('/streams/' + stream)).stream.can_send_message_group, before.can_send_message_group);
  assertError(await c(t.owner).get('/get_stream_id', { stream: 'with a deactivated administrator' }), 400, 'BAD_REQUEST');
  const names = assertSuccess(await c(t.owner).get('/user_groups')).user_groups.map((g: any) => g.name);
  assert.ok(!names.includes('managed by a deactivated user'));

  assertSuccess(await c(admin).post(`/users/${gone.id}/reactivate`));
  const expected = { direct_members: [member.id, gone.id].sort((a, b) => a - b), direct_subgroups: [] };
  const created = assertSuccess(await attempts.newChannel('with a reactivated administrator')).id;
  assert.deepEqual(assertSuccess(await c(t.owner).get(`/streams/${created}`)).stream.can_administer_channel_group, expected);
  assertSuccess(await attempts.channel());
  assert.deepEqual(assertSuccess(await c(t.owner).get(`/streams/${stream}`)).stream.can_send_message_group, expected);
  const group = assertSuccess(await attempts.newGroup('managed by a reactivated user')).group_id;
  const made = assertSuccess(await c(t.owner).get('/user_groups')).user_groups.find((g: any) => g.id === group);
  assert.deepEqual(made.can_manage_group, expected);
  // (Last: it leaves the owner out of those who may create groups.)
  assertSuccess(await attempts.realm());
  assert.deepEqual((await registeredRealm()).realm_can_create_groups, expected);
});

async function registeredRealm(): Promise<Record<string, any>> {
  return assertSuccess(await c(t.owner).post('/register', { fetch_event_types: JSON.stringify(['realm']) }));
}
