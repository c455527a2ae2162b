/** Narrow operators over GET /messages, and GET /messages/matches_narrow. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account, type Client, streamIdOf } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';

let t: TestServer;
let alice: Account;
let bob: Account;
let carol: Account;
let A: Client;
let B: Client;
let general: number;
let other: number;
const ids: Record<string, number> = {};

const send = async (c: Client, p: Record<string, unknown>) => assertSuccess(await c.post('/messages', p)).id as number;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  carol = await t.makeUser({ name: 'Carol' });
  // Topic policies here are the ones the tests set (no automatic follows).
  for (const u of [alice, bob, carol]) {
    await t.setUserSetting(u, 'automatically_follow_topics_policy', 4);
    await t.setUserSetting(u, 'automatically_follow_topics_where_mentioned', false);
  }
  A = t.client(alice);
  B = t.client(bob);
  general = await makeChannel(t, { name: 'general', subscribers: [alice.id, bob.id, carol.id] });
  other = await makeChannel(t, { name: 'other', subscribers: [alice.id, bob.id] });
  ids.g1 = await send(B, { type: 'stream', to: 'general', topic: 'lunch', content: 'pizza is running late http://example.com' });
  ids.g2 = await send(B, { type: 'stream', to: 'general', topic: '✔ done', content: 'resolved thing @**Alice**' });
  ids.o1 = await send(A, { type: 'stream', to: 'other', topic: 'Lunch', content: 'sushi today [file](/user_uploads/1/ab/x.pdf)' });
  ids.dm = await send(B, { type: 'direct', to: JSON.stringify([alice.id]), content: 'psst' });
  ids.grp = await send(B, { type: 'direct', to: JSON.stringify([alice.id, carol.id]), content: 'group chat' });
  ids.self = await send(A, { type: 'direct', to: JSON.stringify([alice.id]), content: 'self note' });
  ids.img = await send(A, { type: 'stream', to: 'general', topic: 'pics', content: '[cat](/user_uploads/1/ab/cat.png)' });
});
after(() => t.close());

async function ids_(c: Client, narrow: unknown): Promise<number[]> {
  const r = await c.get('/messages', { anchor: 'newest', num_before: 100, narrow: JSON.stringify(narrow) });
  assertSuccess(r);
  assertSchema(r, 'GET', '/messages');
  return r.body.messages.map((m: any) => m.id);
}
const n = (operator: string, operand: unknown, negated = false) => ({ operator, operand, negated });

test('channel/stream, channels, topic (case-insensitive), negation, legacy pairs', async () => {
  assert.deepEqual(await ids_(A, [n('channel', 'general')]), [ids.g1, ids.g2, ids.img]);
  assert.deepEqual(await ids_(A, [n('stream', general)]), [ids.g1, ids.g2, ids.img]);
  assert.deepEqual(await ids_(A, [['stream', 'other']]), [ids.o1]);
  assert.deepEqual(await ids_(A, [n('channels', 'public'), n('topic', 'lunch')]), [ids.g1, ids.o1]);
  assert.deepEqual(await ids_(A, [n('channel', 'general'), n('topic', 'LUNCH')]), [ids.g1]);
  assert.deepEqual(await ids_(A, [n('channel', 'general', true), n('sender', alice.id)]), [ids.o1, ids.self]);
});

test('sender, id, dm, dm-including, is:*, has:*, near, with, search', async () => {
  assert.deepEqual(await ids_(A, [n('sender', bob.email)]), [ids.g1, ids.g2, ids.dm, ids.grp]);
  assert.deepEqual(await ids_(A, [n('sender', bob.id), n('is', 'dm')]), [ids.dm, ids.grp]);
  assert.deepEqual(await ids_(A, [n('id', ids.g2)]), [ids.g2]);
  assert.deepEqual(await ids_(A, [n('dm', [bob.id])]), [ids.dm]);
  assert.deepEqual(await ids_(A, [n('dm', bob.email)]), [ids.dm]);
  assert.deepEqual(await ids_(B, [n('dm', `${alice.email},${carol.email}`)]), [ids.grp]);
  assert.deepEqual(await ids_(A, [n('dm', [alice.id])]), [ids.self]);
  assert.deepEqual(await ids_(A, [n('dm-including', carol.id)]), [ids.grp]);
  assert.deepEqual(await ids_(A, [n('dm-including', bob.id)]), [ids.dm, ids.grp]);
  assert.deepEqual(await ids_(A, [n('is', 'private')]), [ids.dm, ids.grp, ids.self]);
  assert.deepEqual(await ids_(A, [n('is', 'mentioned')]), [ids.g2]);
  assert.deepEqual(await ids_(A, [n('is', 'resolved')]), [ids.g2]);
  assert.deepEqual(await ids_(A, [n('is', 'alerted')]), []);
  assert.ok((await ids_(A, [n('is', 'unread')])).includes(ids.g1));
  assert.deepEqual(await ids_(A, [n('is', 'starred')]), []);
  assert.deepEqual(await ids_(A, [n('is', 'followed')]), []);
  assert.deepEqual(await ids_(A, [n('is', 'muted')]), []);
  assert.deepEqual(await ids_(A, [n('has', 'link'), n('channel', 'general')]), [ids.g1, ids.img]);
  assert.deepEqual(await ids_(A, [n('has', 'image')]), [ids.img]);
  assert.deepEqual(await ids_(A, [n('has', 'attachment')]), [ids.o1, ids.img]);
  assert.deepEqual(await ids_(A, [n('has', 'reaction')]), []);
  assert.deepEqual(await ids_(A, [n('near', String(ids.g1)), n('channel', 'general'), n('topic', 'lunch')]), [ids.g1]);
  assert.deepEqual(await ids_(A, [n('with', ids.o1)]), [ids.o1]);
  assert.deepEqual(await ids_(A, [n('channel', 'general'), n('topic', 'x'), n('with', ids.dm)]), [ids.dm]);
  assert.deepEqual(await ids_(A, [n('search', 'pizza')]), [ids.g1]);
  assert.deepEqual(await ids_(A, [n('search', 'run')]), [ids.g1], 'stemmed: running');
  assert.deepEqual(await ids_(A, [n('search', 'sushi'), n('channel', 'other')]), [ids.o1]);
  assert.deepEqual(await ids_(A, [n('search', 'lunch')]), [ids.g1, ids.o1]);
  assert.deepEqual(await ids_(A, [n('search', 'pizza', true), n('channel', 'general')]), [ids.g2, ids.img]);
});

test('BAD_NARROW and invalid narrow errors', async () => {
  const bad = async (narrow: unknown, desc: string) => {
    const r = await A.get('/messages', { anchor: 'newest', num_before: 1, narrow: JSON.stringify(narrow) });
    assertError(r, 400, 'BAD_NARROW', `Invalid narrow operator: ${desc}`);
    assert.equal(r.body.desc, desc);
  };
  await bad([n('channel', 'nope')], 'unknown channel nope');
  await bad([n('sender', 'ghost@example.com')], 'unknown user ghost@example.com');
  await bad([n('dm', [424242])], 'unknown user in [424242]');
  await bad([n('is', 'weird')], "unknown 'is' operand weird");
  await bad([n('has', 'cats')], "unknown 'has' operand cats");
  await bad([n('frobnicate', 'x')], 'unknown operator frobnicate');
  await bad([n('id', 'abc')], 'Invalid message ID');
  await bad([n('channels', 'all-of-them')], 'unknown channels operand all-of-them');
  await bad([n('channel', 'general'), n('is', 'dm')], 'No message can be both a channel message and direct message');
  await bad([n('with', 99999999)], "Invalid 'with' operator");
  const r = await A.get('/messages', { anchor: 'newest', num_before: 1, narrow: JSON.stringify([n('search', ' ')]) });
  assertError(r, 400, 'BAD_REQUEST');
  assertError(await A.get('/messages', { anchor: 'newest', num_before: 1, narrow: '{"a":1}' }), 400, 'BAD_REQUEST');
});

test('search follows edits of content and topic, and deletions', async () => {
  const id1 = await send(A, { type: 'stream', to: 'other', topic: 'fruit', content: 'mangosteen season' });
  const id2 = await send(A, { type: 'stream', to: 'other', topic: 'fruit', content: 'mangosteen again' });
  const search = (word: string) => ids_(A, [n('channel', 'other'), n('search', word)]);
  assert.deepEqual(await search('mangosteen'), [id1, id2]);
  assertSuccess(await A.patch(`/messages/${id1}`, { content: 'rambutan season' }));
  assertSuccess(await A.patch(`/messages/${id2}`, { topic: 'durian talk', propagate_mode: 'change_one', send_notification_to_new_thread: false }));
  assertSuccess(await A.delete(`/messages/${id2}`));
  assert.deepEqual(await search('mangosteen'), []);
  assert.deepEqual(await search('rambutan'), [id1]);
  assert.deepEqual(await search('season'), [id1]);
  assert.deepEqual(await search('durian'), []);
});

test('GET /messages with a keyword search: each message has match_content and match_subject; other narrows have neither', async () => {
  const id = await send(A, { type: 'stream', to: 'other', topic: 'kiwano talk', content: 'the **kiwano** is ripe' });
  const r = await A.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([n('channel', 'other'), n('search', 'kiwano')]) });
  assertSchema(r, 'GET', '/messages');
  const m = assertSuccess(r).messages.find((x: any) => x.id === id);
  assert.equal(m.match_content, '<p>the <strong><span class="highlight">kiwano</span></strong> is ripe</p>');
  assert.equal(m.match_subject, '<span class="highlight">kiwano</span> talk');
  assert.equal(m.content, '<p>the <strong>kiwano</strong> is ripe</p>');
  // By message ID with the same narrow, too.
  const byIds = assertSuccess(await A.get('/messages', { message_ids: JSON.stringify([id]), narrow: JSON.stringify([n('search', 'kiwano')]) }));
  assert.equal(byIds.messages[0].match_subject, '<span class="highlight">kiwano</span> talk');
  const plain = assertSuccess(await A.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([n('channel', 'other')]) }));
  const p = plain.messages.find((x: any) => x.id === id);
  assert.equal('match_content' in p || 'match_subject' in p, false);
  // The rest of the message is the same either way.
  const { match_content: _c, match_subject: _s, ...rest } = m;
  assert.deepEqual(rest, p);
});

test('GET /messages/matches_narrow', async () => {
  const r = await A.get('/messages/matches_narrow', { msg_ids: JSON.stringify([ids.g1, ids.o1, ids.dm]), narrow: JSON.stringify([n('search', 'pizza')]) });
  assertSuccess(r);
  assertSchema(r, 'GET', '/messages/matches_narrow');
  assert.deepEqual(Object.keys(r.body.messages), [String(ids.g1)]);
  assert.match(r.body.messages[String(ids.g1)].match_content, /<span class="highlight">pizza<\/span>/);
  assert.equal(r.body.messages[String(ids.g1)].match_subject, 'lunch');
  const r2 = await A.get('/messages/matches_narrow', { msg_ids: JSON.stringify([ids.g1, ids.o1]), narrow: JSON.stringify([n('channel', 'other')]) });
  assert.deepEqual(Object.keys(r2.body.messages), [String(ids.o1)]);
  void other;
});

test('topics with capital letters outside ASCII: a topic narrow finds them, and their topic policies are set and cleared', async () => {
  const server = await startTestServer();
  try {
    const u = await server.makeUser({ name: 'Writer' });
    const c = server.client(u);
    const channel = assertSuccess(await c.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'Überall' }]) }));
    assert.ok(channel);
    const streamId = await streamIdOf(c, 'Überall');
    const ids: Record<string, number> = {};
    for (const topic of ['État', 'Россия', 'Ελλάδα', 'ascii Topic']) {
      ids[topic] = assertSuccess(await c.post('/messages', { type: 'stream', to: String(streamId), topic, content: `about ${topic}` })).id;
    }
    for (const topic of Object.keys(ids)) {
      const narrow = JSON.stringify([{ operator: 'channel', operand: streamId }, { operator: 'topic', operand: topic }]);
      const got = assertSuccess(await c.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow })).messages as any[];
      assert.deepEqual(got.map((m) => m.id), [ids[topic]], topic);
    }
    // ASCII letters still fold either way.
    const folded = JSON.stringify([{ operator: 'channel', operand: streamId }, { operator: 'topic', operand: 'ASCII topic' }]);
    assert.deepEqual((assertSuccess(await c.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: folded })).messages as any[]).map((m) => m.id), [ids['ascii Topic']]);
    // Mute, then clear, a followed topic with such letters: its one policy row changes, then goes.
    // (Starting a topic followed it: the writer's policies include each topic here.)
    const policies = async () =>
      (assertSuccess(await c.post('/register', { fetch_event_types: ['user_topic'] })).user_topics as any[]).filter((x) => x.stream_id === streamId && x.topic_name.toLowerCase() === 'россия');
    assertSuccess(await c.post('/user_topics', { stream_id: streamId, topic: 'Россия', visibility_policy: 1 }));
    assert.deepEqual((await policies()).map((x) => [x.topic_name, x.visibility_policy]), [['Россия', 1]]);
    assertSuccess(await c.post('/user_topics', { stream_id: streamId, topic: 'Россия', visibility_policy: 0 }));
    assert.deepEqual(await policies(), []);
  } finally {
    await server.close();
  }
});

test('case variants outside ASCII are one topic and one channel name, as in Zulip', async () => {
  const server = await startTestServer();
  try {
    const u = await server.makeUser({ name: 'Variant writer' });
    const c = server.client(u);
    const channelId = assertSuccess(await c.post('/channels/create', { name: 'Überall', subscribers: JSON.stringify([u.id]) })).id as number;
    // The same channel, named in other cases.
    assert.equal(await streamIdOf(c, 'ÜBERALL'), channelId);
    assertError(await c.post('/channels/create', { name: 'überall', subscribers: JSON.stringify([u.id]) }), 400, 'CHANNEL_ALREADY_EXISTS', "Channel 'überall' already exists");
    const otherId = assertSuccess(await c.post('/channels/create', { name: 'Anderswo', subscribers: JSON.stringify([u.id]) })).id as number;
    assertError(await c.patch(`/streams/${otherId}`, { new_name: 'üBERALL' }), 400, 'CHANNEL_ALREADY_EXISTS', "Channel 'üBERALL' already exists");
    assertSuccess(await c.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'überall' }]) }));
    const named = (assertSuccess(await c.get('/users/me/subscriptions')).subscriptions as any[]).filter((s) => s.name.toLowerCase() === 'überall');
    assert.deepEqual(named.map((s) => [s.stream_id, s.name]), [[channelId, 'Überall']]);

    // Messages to "État", "état" and "ÉTAT" are one topic.
    const ids: number[] = [];
    for (const topic of ['État', 'état', 'ÉTAT']) ids.push(assertSuccess(await c.post('/messages', { type: 'stream', to: String(channelId), topic, content: topic })).id);
    const narrow = JSON.stringify([{ operator: 'channel', operand: channelId }, { operator: 'topic', operand: 'éTaT' }]);
    assert.deepEqual((assertSuccess(await c.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow })).messages as any[]).map((m) => m.id), ids);
    // One policy for the topic, whichever case sets it (the row keeps the name it was made with:
    // starting the topic as "État" followed it).
    const policies = async () =>
      (assertSuccess(await c.post('/register', { fetch_event_types: ['user_topic'] })).user_topics as any[]).filter((x) => x.stream_id === channelId).map((x) => [x.topic_name, x.visibility_policy]);
    assertSuccess(await c.post('/user_topics', { stream_id: channelId, topic: 'ÉTAT', visibility_policy: 1 }));
    assertSuccess(await c.post('/user_topics', { stream_id: channelId, topic: 'état', visibility_policy: 3 }));
    assert.deepEqual(await policies(), [['État', 3]]);
    // Moving the topic moves all three messages.
    assertSuccess(await c.patch(`/messages/${ids[0]}`, { topic: 'Россия', propagate_mode: 'change_all', send_notification_to_old_thread: false, send_notification_to_new_thread: false }));
    const moved = JSON.stringify([{ operator: 'channel', operand: channelId }, { operator: 'topic', operand: 'РОССИЯ' }]);
    assert.deepEqual((assertSuccess(await c.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: moved })).messages as any[]).map((m) => m.id), ids);
  } finally {
    await server.close();
  }
});

test('mentions: direct visible personal mentions of a user (by ID or email), not silent, group or wildcard ones; GET /messages, matches_narrow, flags/narrow, /register', async () => {
  await makeChannel(t, { name: 'mentions-hq', subscribers: [alice.id, bob.id, carol.id] });
  assertSuccess(await A.post('/user_groups/create', { name: 'mention-crew', description: 'x', members: JSON.stringify([carol.id]) }));
  const q = await openQueue(A, { event_types: ['message'], narrow: JSON.stringify([n('mentions', carol.email)]) });
  const direct = await send(A, { type: 'stream', to: 'mentions-hq', topic: 't', content: 'hi @**Carol**' });
  const byId = await send(B, { type: 'direct', to: JSON.stringify([alice.id, carol.id]), content: `ping @**Carol|${carol.id}**` });
  const silent = await send(A, { type: 'stream', to: 'mentions-hq', topic: 't', content: 'quiet @_**Carol**' });
  const crew = await send(A, { type: 'stream', to: 'mentions-hq', topic: 't', content: 'team @*mention-crew*' });
  const all = await send(A, { type: 'stream', to: 'mentions-hq', topic: 't', content: 'everyone @**all**' });
  const otherUser = await send(A, { type: 'stream', to: 'mentions-hq', topic: 't', content: 'hey @**Bob**' });

  assert.deepEqual(await ids_(A, [n('mentions', carol.id)]), [direct, byId]);
  assert.deepEqual(await ids_(A, [n('mentions', carol.email)]), [direct, byId]);
  assert.deepEqual(await ids_(A, [n('channel', 'mentions-hq'), n('mentions', carol.id, true)]), [silent, crew, all, otherUser]);
  assert.deepEqual(await ids_(B, [n('mentions', bob.id)]), [otherUser]);
  const r = await A.get('/messages', { anchor: 'newest', num_before: 1, narrow: JSON.stringify([n('mentions', 'ghost@example.com')]) });
  assertError(r, 400, 'BAD_NARROW', 'Invalid narrow operator: unknown user ghost@example.com');
  assertError(await A.get('/messages', { anchor: 'newest', num_before: 1, narrow: JSON.stringify([n('mentions', [carol.id])]) }), 400, 'BAD_REQUEST', 'operand is not a string or an integer');

  const m = assertSuccess(await A.get('/messages/matches_narrow', { msg_ids: JSON.stringify([direct, silent, crew, all]), narrow: JSON.stringify([n('mentions', carol.id)]) }));
  assert.deepEqual(Object.keys(m.messages), [String(direct)]);

  const f = assertSuccess(
    await t.client(carol).post('/messages/flags/narrow', { anchor: 'oldest', num_before: 0, num_after: 100, narrow: JSON.stringify([n('mentions', carol.id)]), op: 'add', flag: 'starred' }),
  );
  assert.equal(f.updated_count, 2);
  assert.deepEqual(assertSuccess(await t.client(carol).get('/messages', { anchor: 'newest', num_before: 100, narrow: JSON.stringify([n('is', 'starred')]) })).messages.map((x: any) => x.id), [direct, byId]);

  // A queue registered with the narrow (an email operand) gets only the messages that mention Carol visibly.
  assert.deepEqual((await q.ofType('message')).map((e: any) => e.message.id), [direct, byId]);
  assertError(await A.post('/register', { event_types: JSON.stringify(['message']), narrow: JSON.stringify([n('mentions', 'ghost@example.com')]) }), 400, 'BAD_NARROW', 'Invalid narrow operator: unknown user ghost@example.com');
});
