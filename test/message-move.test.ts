/** PATCH /messages/{message_id} with stream_id: moving messages between channels. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account, type Client, type Res } from './helpers.ts';
import { makeChannel, setRealmSetting } from './messages-fixtures.ts';
import { ROLE } from '../src/store/users.ts';
import { systemGroupIds } from '../src/store/groups.ts';

let t: TestServer;
let alice: Account, bob: Account, carol: Account, dave: Account, mod: Account, guest: Account;
let A: Client, B: Client, C: Client, D: Client, M: Client, G: Client;
let groupIds: Map<string, number>;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  carol = await t.makeUser({ name: 'Carol' });
  dave = await t.makeUser({ name: 'Dave' });
  mod = await t.makeUser({ name: 'Mod', role: ROLE.MODERATOR });
  guest = await t.makeUser({ name: 'Guest', role: ROLE.GUEST });
  [A, B, C, D, M, G] = [alice, bob, carol, dave, mod, guest].map((u) => t.client(u));
  groupIds = await systemGroupIds(t.server.svc.store.db, t.server.svc.realmId);
});
after(() => t.close());

const send = async (c: Client, stream: number, topic: string, content = 'x') => assertSuccess(await c.post('/messages', { type: 'stream', to: stream, topic, content })).id as number;
const edit = (c: Client, id: number, params: Record<string, unknown>) => c.patch(`/messages/${id}`, params);
const age = (ids: number[], seconds: number) => t.server.svc.store.db.updateTable('messages').set({ date_sent: Date.now() / 1000 - seconds }).where('id', 'in', ids).execute();
async function setChannelGroup(streamId: number, name: string, group: string): Promise<void> {
  const db = t.server.svc.store.db;
  const row = await db.selectFrom('streams').select('group_settings_json').where('id', '=', streamId).executeTakeFirstOrThrow();
  const s = JSON.parse(row.group_settings_json) as Record<string, unknown>;
  s[name] = groupIds.get(group);
  await db.updateTable('streams').set({ group_settings_json: JSON.stringify(s) }).where('id', '=', streamId).execute();
}
function assertEventSchema(event: Record<string, any>): void {
  const res: Res = { status: 200, body: { result: 'success', msg: '', queue_id: 'q', events: [event] }, headers: new Headers(), text: '' };
  assertSchema(res, 'GET', '/events');
}

test('move a whole topic to another public channel: messages, event fields and recipients, notices, history, first_message_id', async () => {
  const from = await makeChannel(t, { name: 'from-1', subscribers: [alice.id, bob.id] });
  const to = await makeChannel(t, { name: 'to-1', subscribers: [alice.id, dave.id] });
  const m1 = await send(A, from, 'plans', 'one');
  const m2 = await send(B, from, 'plans', 'two');
  const other = await send(A, from, 'other');
  const qb = await openQueue(B, { event_types: ['update_message', 'message', 'delete_message'] });
  const qd = await openQueue(D, { event_types: ['update_message'] });
  const qc = await openQueue(C, { event_types: ['update_message', 'delete_message'] });
  const qs = await openQueue(C, { event_types: ['stream'] });

  const r = await edit(A, m1, { stream_id: to, topic: 'new plans', propagate_mode: 'change_all', send_notification_to_old_thread: true });
  assertSuccess(r);
  assert.ok(!('ignored_parameters_unsupported' in r.body), 'stream_id is supported');

  const evs = await qb.drain();
  const e = evs.find((x) => x.type === 'update_message');
  assertEventSchema(e);
  assert.equal(e.user_id, alice.id);
  assert.equal(e.stream_id, from);
  assert.equal(e.stream_name, 'from-1');
  assert.equal(e.new_stream_id, to);
  assert.equal(e.orig_subject, 'plans');
  assert.equal(e.subject, 'new plans');
  assert.equal(e.propagate_mode, 'change_all');
  assert.deepEqual(e.message_ids, [m1, m2]);
  assert.ok(!('content' in e));
  assert.ok(!evs.some((x) => x.type === 'delete_message'), 'public to public: members keep access');
  // Bob is not subscribed to the new channel but keeps his rows (public channel) and
  // sees the old-thread notice; Dave (new channel only) gets the event too.
  const notices = evs.filter((x) => x.type === 'message').map((x) => [x.message.stream_id, x.message.subject, x.message.content]);
  assert.deepEqual(notices, [[from, 'plans', `This topic was moved to #**to-1>new plans** by @_**Alice|${alice.id}**.`]]);
  const [ed] = await qd.ofType('update_message');
  assert.deepEqual(ed.message_ids, [m1, m2]);
  assert.deepEqual(ed.flags, ['read']);
  assert.deepEqual(await qc.drain(), [], 'Carol is subscribed to neither channel');

  const g = assertSuccess(await B.get(`/messages/${m2}`));
  assert.equal(g.message.stream_id, to);
  assert.equal(g.message.display_recipient, 'to-1');
  assert.equal(g.message.subject, 'new plans');
  assert.deepEqual([g.message.edit_history[0].prev_stream, g.message.edit_history[0].stream, g.message.edit_history[0].prev_topic], [from, to, 'plans']);
  assert.equal(assertSuccess(await A.get(`/messages/${other}`)).message.stream_id, from);
  const h = assertSuccess(await D.get(`/messages/${m1}/history`)).message_history;
  assert.deepEqual([h[1].prev_stream, h[1].stream], [from, to]);
  // The new thread's notice: the whole topic moved to a new topic.
  const newThread = assertSuccess(await D.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: to }]) })).messages;
  assert.equal(newThread.at(-1).content.includes('This topic was moved here from'), true);
  assert.equal(newThread.at(-1).sender_full_name, 'Notification Bot');

  // first_message_id: "to-1" had no messages; "from-1" keeps `other` as its first? m1 was first.
  const streamEvs = (await qs.drain()).filter((x) => x.property === 'first_message_id');
  assert.deepEqual(streamEvs.map((x) => [x.stream_id, x.value]).sort((a, b) => a[0] - b[0]), [[from, other], [to, m1]].sort((a, b) => a[0] - b[0]));
});

test('change_one and change_later across channels, topic kept; notices per flags', async () => {
  const from = await makeChannel(t, { name: 'from-2', subscribers: [alice.id, bob.id] });
  const to = await makeChannel(t, { name: 'to-2', subscribers: [alice.id, bob.id] });
  const m1 = await send(A, from, 'tt');
  const m2 = await send(B, from, 'tt');
  const m3 = await send(A, from, 'tt');
  const qb = await openQueue(B, { event_types: ['update_message', 'message'] });
  assertSuccess(await edit(A, m3, { stream_id: to }));
  let evs = await qb.drain();
  let e = evs.find((x) => x.type === 'update_message');
  assert.equal(e.propagate_mode, 'change_one');
  assert.equal(e.orig_subject, 'tt');
  assert.ok(!('subject' in e), 'no topic change');
  assert.deepEqual(e.message_ids, [m3]);
  let notices = evs.filter((x) => x.type === 'message');
  assert.equal(notices.length, 1, 'only the new thread (default flags)');
  assert.equal(notices[0].message.stream_id, to);
  assert.equal(notices[0].message.subject, 'tt');
  assert.match(notices[0].message.content, new RegExp(`^\\[A message\\]\\(http://.*/#narrow/channel/${to}-to-2/topic/tt/near/${m3}\\) was moved here from #\\*\\*from-2>tt\\*\\* by @_\\*\\*Alice\\|${alice.id}\\*\\*\\.$`));

  assertSuccess(await edit(A, m1, { stream_id: to, propagate_mode: 'change_later', send_notification_to_old_thread: true, send_notification_to_new_thread: false }));
  evs = await qb.drain();
  e = evs.find((x) => x.type === 'update_message');
  assert.deepEqual(e.message_ids, [m1, m2]);
  notices = evs.filter((x) => x.type === 'message');
  assert.equal(notices.length, 1);
  assert.equal(notices[0].message.stream_id, from);
  assert.equal(notices[0].message.content, `This topic was moved to #**to-2>tt** by @_**Alice|${alice.id}**.`);
});

test('moving into a private channel: non-subscribers lose their rows and get delete_message; protected history gives subscribers rows', async () => {
  const from = await makeChannel(t, { name: 'from-3', subscribers: [alice.id, bob.id, carol.id] });
  const to = await makeChannel(t, { name: 'to-3-secret', inviteOnly: true, historyPublic: false, subscribers: [alice.id, dave.id] });
  const m1 = await send(B, from, 'leak');
  const m2 = await send(C, from, 'leak');
  const qb = await openQueue(B, { event_types: ['update_message', 'delete_message'], client_capabilities: { bulk_message_deletion: true } });
  const qbLegacy = await openQueue(B, { event_types: ['delete_message'], client_capabilities: {} });
  const qd = await openQueue(D, { event_types: ['update_message', 'delete_message'] });
  const qa = await openQueue(A, { event_types: ['update_message', 'delete_message'] });
  assertSuccess(await edit(A, m1, { stream_id: to, propagate_mode: 'change_all', send_notification_to_new_thread: false }));

  const eb = await qb.drain();
  assert.deepEqual(eb.map((x) => x.type), ['delete_message'], 'Bob loses access: no update_message');
  assert.deepEqual(eb[0].message_ids, [m1, m2]);
  assert.equal(eb[0].message_type, 'stream');
  assert.equal(eb[0].stream_id, from);
  assert.equal(eb[0].topic, 'leak');
  assert.deepEqual((await qbLegacy.drain()).map((x) => x.message_id), [m1, m2]);
  assertError(await B.get(`/messages/${m1}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
  assertError(await C.get(`/messages/${m2}`), 400, 'BAD_REQUEST', 'Invalid message(s)');

  // Dave (new channel, protected history) now holds the messages, read.
  const [ed] = (await qd.drain()).filter((x) => x.type === 'update_message');
  assert.equal(ed.new_stream_id, to);
  assert.deepEqual(ed.flags, ['read']);
  const gd = assertSuccess(await D.get(`/messages/${m1}`));
  assert.equal(gd.message.stream_id, to);
  assert.ok(gd.message.flags.includes('read'));
  const ea = await qa.drain();
  assert.deepEqual(ea.map((x) => x.type), ['update_message']);
});

test('guests: lose access when moved to a public channel they are not in; may not move by default', async () => {
  const from = await makeChannel(t, { name: 'from-4', subscribers: [alice.id, guest.id] });
  const to = await makeChannel(t, { name: 'to-4', subscribers: [alice.id] });
  const m = await send(A, from, 'g');
  const qg = await openQueue(G, { event_types: ['update_message', 'delete_message'], client_capabilities: { bulk_message_deletion: true } });
  const gm = await send(G, from, 'guest topic');
  assertError(await edit(G, gm, { stream_id: to }), 400, 'BAD_REQUEST', "You don't have permission to move this message");
  assertSuccess(await edit(A, m, { stream_id: to, send_notification_to_new_thread: false }));
  const evs = await qg.drain();
  assert.deepEqual(evs.map((x) => x.type), ['delete_message']);
  assert.deepEqual(evs[0].message_ids, [m]);
  assertError(await G.get(`/messages/${m}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
});

test('permission rules and errors', async () => {
  const from = await makeChannel(t, { name: 'from-5', subscribers: [alice.id, bob.id, mod.id] });
  const to = await makeChannel(t, { name: 'to-5', subscribers: [alice.id, bob.id, mod.id] });
  const priv = await makeChannel(t, { name: 'to-5-private', inviteOnly: true, subscribers: [mod.id] });
  const readOnly = await makeChannel(t, { name: 'to-5-admins-post', sendGroup: 'role:administrators', subscribers: [alice.id] });
  const m = await send(A, from, 'p');
  const dm = assertSuccess(await A.post('/messages', { type: 'direct', to: JSON.stringify([bob.id]), content: 'hi' })).id;

  assertError(await edit(A, dm, { stream_id: to }), 400, 'BAD_REQUEST', 'Direct messages cannot be moved to channels.');
  assertError(await edit(A, m, { stream_id: to, content: 'x' }), 400, 'BAD_REQUEST', 'Cannot change message content while changing channel');
  assertError(await edit(A, m, { stream_id: 987654 }), 400, 'BAD_REQUEST', 'Invalid channel ID');
  assertError(await edit(A, m, { stream_id: priv }), 400, 'BAD_REQUEST', 'Invalid channel ID');
  assertError(await edit(A, m, { stream_id: readOnly }), 400, 'BAD_REQUEST', 'You do not have permission to post in this channel.');
  assertError(await edit(A, m, { stream_id: from }), 400, 'BAD_REQUEST', 'Nothing to change');

  // Organization setting: administrators only; the channel's setting grants it back.
  await setRealmSetting(t, 'can_move_messages_between_channels_group', groupIds.get('role:administrators'));
  assertError(await edit(B, m, { stream_id: to }), 400, 'BAD_REQUEST', "You don't have permission to move this message");
  assertError(await edit(M, m, { stream_id: to }), 400, 'BAD_REQUEST', "You don't have permission to move this message");
  await setChannelGroup(from, 'can_move_messages_out_of_channel_group', 'role:moderators');
  assertSuccess(await edit(M, m, { stream_id: to, send_notification_to_new_thread: false }));
  // The channel setting is the old channel's: moving back out of "to-5" is refused.
  assertError(await edit(M, m, { stream_id: from }), 400, 'BAD_REQUEST', "You don't have permission to move this message");
  assertSuccess(await edit(t.client(t.owner), m, { stream_id: from, send_notification_to_new_thread: false }));
  await setRealmSetting(t, 'can_move_messages_between_channels_group', groupIds.get('role:members'));

  // Time limit (one week by default, +20 s grace); moderators are exempt.
  await age([m], 8 * 86400);
  assertError(await edit(B, m, { stream_id: to }), 400, 'BAD_REQUEST', "The time limit for editing this message's channel has passed");
  await setRealmSetting(t, 'move_messages_between_streams_limit_seconds', null);
  assertSuccess(await edit(B, m, { stream_id: to, send_notification_to_new_thread: false }));
  await setRealmSetting(t, 'move_messages_between_streams_limit_seconds', 604800);
  assertSuccess(await edit(M, m, { stream_id: from, send_notification_to_new_thread: false }));

  // change_all: only the recent part of the topic may move.
  const recent = await send(B, from, 'p');
  const r = await edit(B, recent, { stream_id: to, propagate_mode: 'change_all' });
  assertError(r, 400, 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', 'You only have permission to move the 1/2 most recent messages in this topic.');
  assert.deepEqual([r.body.first_message_id_allowed_to_move, r.body.total_messages_in_topic, r.body.total_messages_allowed_to_move], [recent, 2, 1]);
  assertSuccess(await edit(M, recent, { stream_id: to, propagate_mode: 'change_all', send_notification_to_new_thread: false }));
});

test('can_create_topic_group: new topics by sending or moving need the group; existing topics, resolving and bots of members do not', async () => {
  const ch = await makeChannel(t, { name: 'topics-by-admins', subscribers: [alice.id, bob.id, t.owner.id] });
  const O = t.client(t.owner);
  const old = await send(A, ch, 'Existing');
  await setChannelGroup(ch, 'can_create_topic_group', 'role:administrators');
  const denied = 'You do not have permission to create new topics in this channel.';
  const post = (c: Client, topic: string) => c.post('/messages', { type: 'stream', to: ch, topic, content: 'x' });

  // Sending: an existing topic (in any case) is open to everyone who may post, a new one only to the group.
  assertSuccess(await post(B, 'existing'));
  assertError(await post(B, 'brand new'), 400, 'BAD_REQUEST', denied);
  assertSuccess(await post(O, 'brand new'));
  assertSuccess(await post(B, 'brand new'));

  // A bot may start a topic when its owner may.
  const botOf = async (owner: Client) => {
    const s = `tb${Math.random().toString(36).slice(2, 8)}`;
    const body = assertSuccess(await owner.post('/bots', { full_name: `Bot ${s}`, short_name: s }));
    const row = await t.server.svc.store.db.selectFrom('users').select('email').where('id', '=', body.user_id).executeTakeFirstOrThrow();
    return t.client({ email: row.email, apiKey: body.api_key });
  };
  assertError(await post(await botOf(B), 'bot topic'), 400, 'BAD_REQUEST', denied);
  assertSuccess(await post(await botOf(O), 'bot topic'));

  // Moving: to a topic the channel lacks is refused, to an existing one allowed; resolving is no new topic.
  assertError(await edit(B, old, { topic: 'moved away' }), 400, 'BAD_REQUEST', denied);
  assertSuccess(await edit(B, old, { topic: 'brand new' }));
  assertSuccess(await edit(B, old, { topic: '✔ brand new', propagate_mode: 'change_all' }));
  assertSuccess(await edit(B, old, { topic: 'brand new', propagate_mode: 'change_all' }));
  const other = await makeChannel(t, { name: 'topics-anyone', subscribers: [alice.id, bob.id, t.owner.id] });
  const elsewhere = await send(B, other, 'from elsewhere');
  assertError(await edit(B, elsewhere, { stream_id: ch }), 400, 'BAD_REQUEST', denied);
  assertSuccess(await edit(B, elsewhere, { stream_id: ch, topic: 'existing' }));
  assertSuccess(await edit(O, old, { topic: 'admins may' }));
});
