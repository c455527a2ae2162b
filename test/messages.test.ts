/** POST /messages, GET /messages, GET /messages/{id}, POST /messages/render, message events. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, CLUSTER_SIZE, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account, type Client } from './helpers.ts';
import { makeChannel, setRealmSetting, subscribe } from './messages-fixtures.ts';
import { ROLE } from '../src/store/users.ts';

let t: TestServer;
let owner: Client;
let alice: Account;
let bob: Account;
let guest: Account;
let carol: Account;
let A: Client;
let B: Client;
let G: Client;
let C: Client;
let general: number;
let secret: number;

before(async () => {
  t = await startTestServer();
  owner = t.client(t.owner);
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  carol = await t.makeUser({ name: 'Carol' });
  guest = await t.makeUser({ name: 'Guest', role: ROLE.GUEST });
  A = t.client(alice);
  B = t.client(bob);
  C = t.client(carol);
  G = t.client(guest);
  general = await makeChannel(t, { name: 'general', subscribers: [t.owner.id, alice.id, bob.id] });
  secret = await makeChannel(t, { name: 'secret', inviteOnly: true, subscribers: [alice.id] });
});
after(() => t.close());

const send = (c: Client, params: Record<string, unknown>) => c.post('/messages', params);

test('send to a channel by name, ID and JSON; response and GET /messages/{id}', async () => {
  for (const [i, to] of ['general', general, JSON.stringify('general'), JSON.stringify([general])].entries()) {
    const r = await send(A, { type: 'stream', to: typeof to === 'number' ? String(to) : to, topic: 'hello', content: '**hi**' });
    const body = assertSuccess(r);
    assertSchema(r, 'POST', '/messages');
    assert.equal(typeof body.id, 'number');
    // The first starts the topic, which its sender then follows (Zulip's default automatically_follow_topics_policy): the answer says so.
    if (i === 0) assert.deepEqual(body, { result: 'success', msg: '', id: body.id, automatic_new_visibility_policy: 3 });
    else assert.deepEqual(Object.keys(body).sort(), ['id', 'msg', 'result']);
  }
  const r = await send(A, { type: 'channel', to: 'general', subject: 'legacy', content: 'x' });
  const id = assertSuccess(r).id;
  const g = await A.get(`/messages/${id}`);
  assertSuccess(g);
  assertSchema(g, 'GET', '/messages/{message_id}');
  const m = g.body.message;
  assert.equal(m.subject, 'legacy');
  assert.equal(m.display_recipient, 'general');
  assert.equal(m.stream_id, general);
  assert.equal(m.type, 'stream');
  assert.equal(m.content, '<p>x</p>');
  assert.equal(g.body.raw_content, 'x');
  const raw = await A.get(`/messages/${id}`, { apply_markdown: false });
  assert.equal(raw.body.message.content, 'x');
  assert.equal(raw.body.message.content_type, 'text/x-markdown');
});

test('send errors: missing channel, empty content, unknown recipients, no permission', async () => {
  assertError(await send(A, { type: 'stream', to: 'nope', topic: 't', content: 'x' }), 400, 'STREAM_DOES_NOT_EXIST', "Channel 'nope' does not exist");
  const r = await send(A, { type: 'stream', to: '99999', topic: 't', content: 'x' });
  assertError(r, 400, 'STREAM_DOES_NOT_EXIST', "Channel with ID '99999' does not exist");
  assert.equal(r.body.stream_id, 99999);
  assertError(await send(A, { type: 'stream', to: 'general', topic: 't', content: '  \n ' }), 400, 'BAD_REQUEST', 'Message must not be empty');
  assertError(await send(A, { type: 'stream', to: 'general', content: 'x' }), 400, 'BAD_REQUEST', 'Missing topic');
  assertError(await send(A, { type: 'direct', to: JSON.stringify([987654]), content: 'x' }), 400, 'BAD_REQUEST', 'Invalid user ID 987654');
  assertError(await send(A, { type: 'direct', to: 'nobody@example.com', content: 'x' }), 400, 'BAD_REQUEST', "Invalid email 'nobody@example.com'");
  assertError(await send(A, { type: 'direct', to: JSON.stringify([bob.id, bob.email]), content: 'x' }), 400, 'BAD_REQUEST', 'Recipient lists may contain emails or user IDs, but not both.');
  assertError(await send(B, { type: 'stream', to: 'secret', topic: 't', content: 'x' }), 400, 'BAD_REQUEST', "Not authorized to send to channel 'secret'");
  assertError(await send(G, { type: 'stream', to: 'general', topic: 't', content: 'x' }), 400, 'BAD_REQUEST', "Not authorized to send to channel 'general'");
  assertError(await send(A, { type: 'bogus', to: 'general', topic: 't', content: 'x' }), 400, 'BAD_REQUEST', 'Invalid type');
  const ro = await makeChannel(t, { name: 'announce', subscribers: [alice.id], sendGroup: 'role:administrators' });
  assertError(await send(A, { type: 'stream', to: String(ro), topic: 't', content: 'x' }), 400, 'BAD_REQUEST', 'You do not have permission to post in this channel.');
  assertSuccess(await send(owner, { type: 'stream', to: String(ro), topic: 't', content: 'x' }));
});

test('topics: truncation, empty topic names, topics_policy', async () => {
  const long = 'a'.repeat(80);
  let id = assertSuccess(await send(A, { type: 'stream', to: 'general', topic: long, content: 'x' })).id;
  let m = (await A.get(`/messages/${id}`)).body.message;
  assert.equal(m.subject, 'a'.repeat(57) + '...');
  id = assertSuccess(await send(A, { type: 'stream', to: 'general', topic: '(no topic)', content: 'x' })).id;
  m = (await A.get(`/messages/${id}`)).body.message;
  assert.equal(m.subject, 'general chat');
  m = (await A.get(`/messages/${id}`, { allow_empty_topic_name: true })).body.message;
  assert.equal(m.subject, '');
  id = assertSuccess(await send(A, { type: 'stream', to: 'general', topic: 'general chat', content: 'x' })).id;
  assert.equal((await A.get(`/messages/${id}`, { allow_empty_topic_name: true })).body.message.subject, '');
  const strict = await makeChannel(t, { name: 'strict', subscribers: [alice.id], topicsPolicy: 'disable_empty_topic' });
  assertError(await send(A, { type: 'stream', to: String(strict), topic: '', content: 'x' }), 400, 'BAD_REQUEST', 'Sending messages to the general chat is not allowed in this channel.');
  const only = await makeChannel(t, { name: 'only-general', subscribers: [alice.id], topicsPolicy: 'empty_topic_only' });
  assertError(await send(A, { type: 'stream', to: String(only), topic: 'x', content: 'x' }), 400, 'BAD_REQUEST', 'Only the general chat topic is allowed in this channel.');
  assertSuccess(await send(A, { type: 'stream', to: String(only), topic: '', content: 'x' }));
  const inherit = await makeChannel(t, { name: 'inherit', subscribers: [alice.id] });
  await setRealmSetting(t, 'topics_policy', 'disable_empty_topic');
  assertError(await send(A, { type: 'stream', to: String(inherit), topic: '', content: 'x' }), 400, 'BAD_REQUEST', /general chat is not allowed/);
  await setRealmSetting(t, 'topics_policy', 'allow_empty_topic');
  assertSuccess(await send(A, { type: 'stream', to: String(inherit), topic: '', content: 'x' }));
});

test('message event: recipients, flags, local_id, apply_markdown, narrow', async () => {
  const qa = await openQueue(A, { event_types: ['message'], apply_markdown: true });
  const qa2 = await openQueue(A, { event_types: ['message'], apply_markdown: false });
  const qb = await openQueue(B, { event_types: ['message'] });
  const qc = await openQueue(C, { event_types: ['message'] });
  const qnarrow = await openQueue(B, { event_types: ['message'], narrow: JSON.stringify([['stream', 'other']]) });
  const qnegated = await openQueue(B, { event_types: ['message'], narrow: [{ operator: 'topic', operand: 'ev', negated: true }] });
  const qtopic = await openQueue(B, { event_types: ['message'], narrow: [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'ev' }] });
  const r = await send(A, { type: 'stream', to: 'general', topic: 'ev', content: 'hi @**Bob**', local_id: '1.5', queue_id: qa.queueId });
  const id = assertSuccess(r).id;
  const [ea] = await qa.ofType('message');
  assert.equal(ea.message.id, id);
  assert.equal(ea.local_message_id, '1.5');
  assert.match(ea.message.content, /user-mention/);
  assert.deepEqual(ea.flags, []);
  const [ea2] = await qa2.ofType('message');
  assert.equal(ea2.message.content, 'hi @**Bob**');
  assert.equal(ea2.message.content_type, 'text/x-markdown');
  assert.equal(ea2.local_message_id, undefined);
  const [eb] = await qb.ofType('message');
  assert.deepEqual(eb.flags, ['mentioned']);
  assert.equal(eb.local_message_id, undefined);
  assert.deepEqual(await qc.ofType('message'), []);
  assert.deepEqual(await qnarrow.ofType('message'), []);
  assert.deepEqual(await qnegated.ofType('message'), [], 'a negated topic term excludes the topic');
  assert.deepEqual((await qtopic.ofType('message')).map((e) => e.message.id), [id]);
  // A UI client's own message is read for the sender.
  const ui = await A.request('POST', '/messages', {}, { rawBody: new URLSearchParams({ type: 'stream', to: 'general', topic: 'ev', content: 'from phone' }).toString(), headers: { 'User-Agent': 'ZulipMobile/27.1 (Android 14)', 'Content-Type': 'application/x-www-form-urlencoded' } });
  assertSuccess(ui);
  const [own] = await qa.ofType('message');
  assert.deepEqual(own.flags, ['read']);
  assertSuccess(await send(A, { type: 'stream', to: 'general', topic: 'ev', content: 'read it', read_by_sender: true }));
  assert.deepEqual((await qa.ofType('message'))[0].flags, ['read']);
});

test('wildcard mentions set stream/topic wildcard flags', async () => {
  const qb = await openQueue(B, { event_types: ['message'] });
  assertSuccess(await send(A, { type: 'stream', to: 'general', topic: 'wild', content: '@**all** look' }));
  let [e] = await qb.ofType('message');
  assert.deepEqual(e.flags.sort(), ['stream_wildcard_mentioned', 'wildcard_mentioned']);
  assertSuccess(await send(A, { type: 'stream', to: 'general', topic: 'wild', content: '@**topic** here' }));
  [e] = await qb.ofType('message');
  assert.deepEqual(e.flags, [], 'bob has not participated in the topic');
  assertSuccess(await send(B, { type: 'stream', to: 'general', topic: 'wild', content: 'me too' }));
  await qb.drain();
  assertSuccess(await send(A, { type: 'stream', to: 'general', topic: 'wild', content: '@**topic** again' }));
  [e] = await qb.ofType('message');
  assert.deepEqual(e.flags.sort(), ['topic_wildcard_mentioned', 'wildcard_mentioned']);
});

test('direct messages: 1:1 by ID, email list, comma emails; group; display_recipient', async () => {
  const qb = await openQueue(B, { event_types: ['message'] });
  const qc = await openQueue(C, { event_types: ['message'] });
  let id = assertSuccess(await send(A, { type: 'direct', to: JSON.stringify([bob.id]), content: 'dm1' })).id;
  const [e] = await qb.ofType('message');
  assert.equal(e.message.type, 'private');
  assert.deepEqual(e.message.display_recipient.map((u: any) => u.id), [alice.id, bob.id].sort((a, b) => a - b));
  assert.deepEqual(await qc.ofType('message'), []);
  id = assertSuccess(await send(A, { type: 'private', to: `${bob.email}, ${carol.email}`, content: 'group' })).id;
  assert.equal((await qb.ofType('message'))[0].message.id, id);
  assert.equal((await qc.ofType('message'))[0].message.id, id);
  const g = await C.get(`/messages/${id}`);
  assertSchema(g, 'GET', '/messages/{message_id}');
  assert.equal(g.body.message.display_recipient.length, 3);
  assertSuccess(await send(A, { type: 'direct', to: JSON.stringify([bob.email]), content: 'dm2' }));
  assertSuccess(await send(A, { type: 'direct', to: JSON.stringify([alice.id]), content: 'note to self' }));
  assertError(await B.get(`/messages/${id}`, {}).then(async () => G.get(`/messages/${id}`)), 400, 'BAD_REQUEST', 'Invalid message(s)');
});

test('GET /messages: anchors, limits, found_*, history and historical flag', async () => {
  const ch = await makeChannel(t, { name: 'hist', subscribers: [alice.id] });
  const ids: number[] = [];
  for (let i = 0; i < 5; i++) ids.push(assertSuccess(await send(A, { type: 'stream', to: String(ch), topic: 'h', content: `m${i}` })).id);
  const narrow = JSON.stringify([{ operator: 'channel', operand: ch }]);
  let r = await A.get('/messages', { anchor: 'newest', num_before: 3, num_after: 0, narrow });
  assertSuccess(r);
  assertSchema(r, 'GET', '/messages');
  assert.deepEqual(r.body.messages.map((m: any) => m.id), ids.slice(2));
  assert.equal(r.body.found_newest, true);
  assert.equal(r.body.found_oldest, false);
  assert.equal(r.body.anchor, 10000000000000000);
  r = await A.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 2, narrow });
  assert.deepEqual(r.body.messages.map((m: any) => m.id), ids.slice(0, 2));
  assert.equal(r.body.found_oldest, true);
  r = await A.get('/messages', { anchor: String(ids[2]), num_before: 1, num_after: 1, narrow });
  assert.deepEqual(r.body.messages.map((m: any) => m.id), ids.slice(1, 4));
  assert.equal(r.body.found_anchor, true);
  r = await A.get('/messages', { anchor: String(ids[2]), num_before: 0, num_after: 1, include_anchor: false, narrow });
  assert.deepEqual(r.body.messages.map((m: any) => m.id), [ids[3]]);
  r = await A.get('/messages', { message_ids: JSON.stringify([ids[0], ids[4]]), narrow });
  assert.deepEqual(r.body.messages.map((m: any) => m.id), [ids[0], ids[4]]);
  assert.equal(r.body.anchor, undefined);
  assertError(await A.get('/messages', { anchor: 'newest', num_before: 5000, num_after: 1 }), 400, 'BAD_REQUEST', 'Too many messages requested (maximum 5000).');
  assertError(await A.get('/messages', { anchor: '5', num_before: 1, num_after: 1, include_anchor: false }), 400, 'BAD_REQUEST', 'The anchor can only be excluded at an end of the range');
  assertError(await A.get('/messages', { anchor: 'sideways', num_before: 1 }), 400, 'BAD_REQUEST', 'Invalid anchor');
  assertError(await A.get('/messages', { num_before: 1 }), 400, 'BAD_REQUEST', "Missing 'anchor' argument.");
  // Bob (not subscribed) sees the public channel's history, flagged historical.
  r = await B.get('/messages', { anchor: 'newest', num_before: 10, narrow });
  assert.deepEqual(r.body.messages.map((m: any) => m.id), ids);
  assert.deepEqual(r.body.messages[0].flags, ['read', 'historical']);
  // Without a channel narrow, only his own messages.
  r = await B.get('/messages', { anchor: 'newest', num_before: 1000 });
  assert.ok(!r.body.messages.some((m: any) => ids.includes(m.id)));
  // Guests cannot see public history; nor the message by ID.
  r = await G.get('/messages', { anchor: 'newest', num_before: 10, narrow });
  assert.deepEqual(r.body.messages, []);
  assertError(await G.get(`/messages/${ids[0]}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
  // first_unread: Alice sent them via API client, so unread for her.
  r = await A.get('/messages', { anchor: 'first_unread', num_before: 0, num_after: 1, narrow });
  assert.equal(r.body.anchor, ids[0]);
});

test('GET /messages with anchor "date": the window at the first message sent at or after anchor_date, else the newest', async () => {
  const ch = await makeChannel(t, { name: 'dated', subscribers: [alice.id] });
  const ids: number[] = [];
  for (let i = 0; i < 4; i++) ids.push(assertSuccess(await send(A, { type: 'stream', to: String(ch), topic: 'd', content: `day ${i}` })).id);
  // Sent on 1, 3, 10 and 11 January 2026, at noon UTC.
  const days = [1, 3, 10, 11];
  for (let i = 0; i < 4; i++) {
    await t.server.svc.store.db.updateTable('messages').set({ date_sent: Date.UTC(2026, 0, days[i]!, 12) / 1000 }).where('id', '=', ids[i]!).execute();
  }
  const narrow = JSON.stringify([{ operator: 'channel', operand: ch }]);
  const at = async (anchorDate: string, numBefore = 0, numAfter = 0) => {
    const r = await A.get('/messages', { anchor: 'date', anchor_date: anchorDate, num_before: numBefore, num_after: numAfter, narrow });
    assertSuccess(r);
    assertSchema(r, 'GET', '/messages');
    return r.body;
  };
  // The message of that moment.
  let b = await at('2026-01-03T12:00:00.000Z');
  assert.equal(b.anchor, ids[1]);
  assert.equal(b.found_anchor, true);
  assert.deepEqual(b.messages.map((m: any) => m.id), [ids[1]]);
  // Between two messages: the next one, however near the one before is.
  assert.equal((await at('2026-01-03T12:00:01Z')).anchor, ids[2]);
  assert.equal((await at('2026-01-09T00:00:00Z')).anchor, ids[2]);
  // A date alone is midnight UTC; a time with an offset is read in it.
  assert.equal((await at('2026-01-10')).anchor, ids[2]);
  assert.equal((await at('2026-01-11')).anchor, ids[3]);
  assert.equal((await at('2026-01-03T23:00:00+11:00')).anchor, ids[1]);
  assert.equal((await at('2026-01-03T13:00:00+01:00')).anchor, ids[1]);
  // Before the first message: the first.
  assert.equal((await at('2025-06-01T00:00:00Z')).anchor, ids[0]);
  // After the last: the newest messages, as anchor "newest".
  b = await at('2027-01-01T00:00:00Z', 2, 0);
  assert.equal(b.anchor, 10000000000000000);
  assert.deepEqual(b.messages.map((m: any) => m.id), [ids[2], ids[3]]);
  assert.equal(b.found_newest, true);
  assert.equal(b.found_anchor, false);
  // A window around it, as with a message ID.
  b = await at('2026-01-09T18:00:00Z', 1, 1);
  assert.deepEqual(b.messages.map((m: any) => m.id), [ids[1], ids[2], ids[3]]);
  assert.equal(b.found_anchor, true);
  // A narrow nothing matches.
  const none = await A.get('/messages', { anchor: 'date', anchor_date: '2026-01-03', num_before: 1, num_after: 1, narrow: JSON.stringify([{ operator: 'channel', operand: ch }, { operator: 'topic', operand: 'nothing here' }]) });
  assert.deepEqual(assertSuccess(none).messages, []);
  assert.equal(none.body.anchor, 10000000000000000);
  assertError(await A.get('/messages', { anchor: 'date', num_before: 1, narrow }), 400, 'BAD_REQUEST', "Missing 'anchor_date' argument.");
  assertError(await A.get('/messages', { anchor: 'date', anchor_date: 'last tuesday', num_before: 1, narrow }), 400, 'BAD_REQUEST', 'Invalid anchor_date');
  assertError(await A.get('/messages', { anchor: 'date', anchor_date: '2026-13-45', num_before: 1, narrow }), 400, 'BAD_REQUEST', 'Invalid anchor_date');
  // Without anchor "date", anchor_date changes nothing.
  const oldest = await A.get('/messages', { anchor: 'oldest', anchor_date: '2026-01-10', num_after: 1, narrow });
  assert.deepEqual(assertSuccess(oldest).messages.map((m: any) => m.id), [ids[0]]);
  assert.equal(oldest.body.ignored_parameters_unsupported, undefined);
});

test('private channels: history_public_to_subscribers', async () => {
  const pub = await makeChannel(t, { name: 'priv-public-history', inviteOnly: true, subscribers: [alice.id] });
  const prot = await makeChannel(t, { name: 'priv-protected', inviteOnly: true, historyPublic: false, subscribers: [alice.id] });
  const m1 = assertSuccess(await send(A, { type: 'stream', to: String(pub), topic: 't', content: 'before' })).id;
  const m2 = assertSuccess(await send(A, { type: 'stream', to: String(prot), topic: 't', content: 'before' })).id;
  assertError(await C.get(`/messages/${m1}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
  await subscribe(t, pub, [carol.id]);
  await subscribe(t, prot, [carol.id]);
  const g = await C.get(`/messages/${m1}`);
  assertSuccess(g);
  assert.deepEqual(g.body.message.flags, ['read', 'historical']);
  assertError(await C.get(`/messages/${m2}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
  let r = await C.get('/messages', { anchor: 'newest', num_before: 10, narrow: JSON.stringify([['stream', 'priv-protected']]) });
  assert.deepEqual(r.body.messages, []);
  const m3 = assertSuccess(await send(A, { type: 'stream', to: String(prot), topic: 't', content: 'after' })).id;
  r = await C.get('/messages', { anchor: 'newest', num_before: 10, narrow: JSON.stringify([['stream', 'priv-protected']]) });
  assert.deepEqual(r.body.messages.map((m: any) => m.id), [m3]);
  // Administrators do not see private content they are not subscribed to.
  assertError(await owner.get(`/messages/${m2}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
});

test('POST /messages/render', async () => {
  const r = await A.post('/messages/render', { content: '**foo**' });
  assertSuccess(r);
  assertSchema(r, 'POST', '/messages/render');
  assert.equal(r.body.rendered, '<p><strong>foo</strong></p>');
});

test('register: max_message_id, unread_msgs, recent_private_conversations', async () => {
  const q = await openQueue(B, { fetch_event_types: ['message', 'update_message_flags', 'recent_private_conversations'] });
  const s = q.state;
  assert.ok(s.max_message_id > 0);
  const u = s.unread_msgs;
  assert.deepEqual(Object.keys(u).sort(), ['count', 'huddles', 'mentions', 'old_unreads_missing', 'pms', 'streams']);
  assert.ok(u.pms.some((p: any) => p.other_user_id === alice.id && p.sender_id === alice.id));
  assert.ok(u.huddles.some((h: any) => h.user_ids_string === [alice.id, bob.id, carol.id].sort((a, b) => a - b).join(',')));
  assert.ok(u.streams.some((x: any) => x.stream_id === general));
  assert.ok(u.mentions.length > 0);
  assert.equal(u.count, u.pms.reduce((n: number, p: any) => n + p.unread_message_ids.length, 0) + u.huddles.reduce((n: number, p: any) => n + p.unread_message_ids.length, 0) + u.streams.reduce((n: number, p: any) => n + p.unread_message_ids.length, 0));
  assert.ok(s.recent_private_conversations.some((c: any) => c.user_ids.length === 1 && c.user_ids[0] === alice.id));
  assert.ok(s.recent_private_conversations.some((c: any) => c.user_ids.length === 2));
});

test('register all_public_streams: public channel messages reach the queue without flags; guests may not', async () => {
  const watcher = await t.makeUser({ name: 'Watcher' });
  const W = t.client(watcher);
  const q = await openQueue(W, { event_types: ['message'], all_public_streams: true });
  const plain = await openQueue(W, { event_types: ['message'] });
  const pubName = `pub-${Date.now()}`;
  await makeChannel(t, { name: pubName, subscribers: [alice.id] });
  const privName = `priv-${Date.now()}`;
  await makeChannel(t, { name: privName, inviteOnly: true, subscribers: [alice.id] });
  const pub = assertSuccess(await send(A, { type: 'stream', to: pubName, topic: 't', content: 'public' })).id;
  assertSuccess(await send(A, { type: 'stream', to: privName, topic: 't', content: 'private' }));
  const got = await q.ofType('message');
  assert.deepEqual(got.map((e) => e.message.id), [pub], 'only the public channel message');
  assert.deepEqual(got[0].flags, []);
  assert.deepEqual(await plain.ofType('message'), [], 'a normal queue of a non-subscriber gets nothing');
  const g = await t.makeUser({ name: 'Guest2', role: ROLE.GUEST });
  assertError(await t.client(g).post('/register', { all_public_streams: true }), 400, 'BAD_REQUEST', 'User not authorized for this query');
});

test('the forms of `to`: JSON after whitespace, plain text, and what is neither a name nor an ID', async () => {
  assertSuccess(await send(A, { type: 'channel', to: ` \n[${general}]`, topic: 'to forms', content: 'spaced list' }));
  assertSuccess(await send(A, { type: 'channel', to: ` "general"`, topic: 'to forms', content: 'spaced string' }));
  assertError(await send(A, { type: 'channel', to: JSON.stringify(['general', 'secret']), topic: 'to forms', content: 'x' }), 400, 'BAD_REQUEST', 'Expected exactly one channel');
  assertError(await send(A, { type: 'channel', to: 'true', topic: 'to forms', content: 'x' }), 400, 'BAD_REQUEST', 'Invalid data type for channel');
  // Not JSON (a no-break space is not JSON whitespace): the text is the channel's name.
  const nbsp = await send(A, { type: 'channel', to: '\u00a0[1]', topic: 'to forms', content: 'x' });
  assert.equal(nbsp.status, 400);
  assert.equal(nbsp.body.code, 'STREAM_DOES_NOT_EXIST');
  const dm = assertSuccess(await send(A, { type: 'direct', to: `${bob.email}, ${alice.email}`, content: 'by emails' })).id;
  const got = (await B.get(`/messages/${dm}`)).body.message;
  assert.deepEqual(got.display_recipient.map((u: { id: number }) => u.id).sort((x: number, y: number) => x - y), [alice.id, bob.id].sort((x, y) => x - y));
  assertSuccess(await send(A, { type: 'direct', to: `\t[${bob.id}]`, content: 'spaced ids' }));
  assertError(await send(A, { type: 'direct', to: 'null', content: 'x' }), 400, 'BAD_REQUEST', 'Invalid data type for recipients');
});

test('GET /messages after an edit, a move, reactions, submessages and a deletion shows each change (what is kept in memory is dropped)', async () => {
  const read = async (topic = 'kept rows') => {
    const n = JSON.stringify([{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: topic }]);
    const all = assertSuccess(await B.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: n })).messages as Array<Record<string, any>>;
    // Leaves out the notices of moves.
    return all.filter((m) => m.sender_id === alice.id);
  };
  const first = assertSuccess(await send(A, { type: 'stream', to: 'general', topic: 'kept rows', content: 'first **version**' })).id as number;
  const second = assertSuccess(await send(A, { type: 'stream', to: 'general', topic: 'kept rows', content: 'second' })).id as number;
  // Read twice: the second read is served from the rows kept by the first.
  for (let i = 0; i < 2; i++) assert.deepEqual((await read()).map((m) => [m.id, m.content]), [[first, '<p>first <strong>version</strong></p>'], [second, '<p>second</p>']]);

  assertSuccess(await A.patch(`/messages/${first}`, { content: 'edited *now*' }));
  let msgs = await read();
  assert.deepEqual(msgs.map((m) => [m.id, m.content]), [[first, '<p>edited <em>now</em></p>'], [second, '<p>second</p>']]);
  assert.equal(typeof msgs[0]!.last_edit_timestamp, 'number');
  assert.equal(msgs[1]!.last_edit_timestamp, undefined);

  // A new message leaves the kept rows as they are, and is read with them.
  const third = assertSuccess(await send(A, { type: 'stream', to: 'general', topic: 'kept rows', content: 'third' })).id as number;
  assert.deepEqual((await read()).map((m) => m.id), [first, second, third]);

  assertSuccess(await A.patch(`/messages/${second}`, { topic: 'moved rows', propagate_mode: 'change_one' }));
  assert.deepEqual((await read()).map((m) => m.id), [first, third]);
  msgs = await read('moved rows');
  assert.deepEqual(msgs.map((m) => [m.id, m.subject]), [[second, 'moved rows']]);
  const byId = assertSuccess(await B.get('/messages', { message_ids: JSON.stringify([first, second, third]) })).messages as Array<Record<string, any>>;
  assert.deepEqual(byId.map((m) => [m.id, m.subject]), [[first, 'kept rows'], [second, 'moved rows'], [third, 'kept rows']]);

  // Reactions and submessages added and removed after a read.
  assert.deepEqual((await read()).map((m) => [m.reactions, m.submessages]), [[[], []], [[], []]]);
  assertSuccess(await B.post(`/messages/${first}/reactions`, { emoji_name: 'smile' }));
  assertSuccess(await A.post('/submessage', { message_id: third, msg_type: 'widget', content: JSON.stringify({ type: 'vote', key: 'x' }) }));
  msgs = await read();
  assert.deepEqual(msgs[0]!.reactions, [{ emoji_name: 'smile', emoji_code: '1f642', reaction_type: 'unicode_emoji', user_id: bob.id }]);
  assert.deepEqual(msgs[1]!.reactions, []);
  assert.deepEqual(msgs[1]!.submessages.map((x: any) => [x.message_id, x.sender_id, x.msg_type]), [[third, alice.id, 'widget']]);
  assertSuccess(await B.delete(`/messages/${first}/reactions`, { emoji_name: 'smile' }));
  assert.deepEqual((await read()).map((m) => m.reactions), [[], []]);

  assertSuccess(await owner.delete(`/messages/${third}`));
  assert.deepEqual((await read()).map((m) => m.id), [first]);
});

test('GET /messages after a read shows what changed around its messages: sender, channel, linkifiers, settings, flags, options', async () => {
  const channel = await makeChannel(t, { name: 'kept json', subscribers: [t.owner.id, alice.id, bob.id] });
  const id = assertSuccess(await send(A, { type: 'stream', to: 'kept json', topic: 'PARL-7 notes', content: 'a **bold** start' })).id as number;
  const read = async (params: Record<string, unknown> = {}) => {
    const r = await B.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: channel }]), ...params });
    assertSchema(r, 'GET', '/messages');
    const [m] = assertSuccess(r).messages as Array<Record<string, any>>;
    assert.equal(m!.id, id);
    return m!;
  };
  const firstRead = await read();
  assert.deepEqual(await read(), firstRead);
  const withUnknown = assertSuccess(await B.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: channel }]), bogus: 1 }));
  assert.deepEqual(withUnknown.ignored_parameters_unsupported, ['bogus']);
  assert.deepEqual(withUnknown.messages, [firstRead]);
  assert.equal(firstRead.sender_full_name, 'Alice');
  assert.equal(firstRead.display_recipient, 'kept json');
  assert.deepEqual(firstRead.topic_links, []);
  assert.deepEqual(firstRead.flags, []);
  assert.equal(firstRead.content, '<p>a <strong>bold</strong> start</p>');

  // The other options of the same request, then the first ones again.
  const raw = await read({ apply_markdown: false, client_gravatar: false });
  assert.equal(raw.content, 'a **bold** start');
  assert.equal(raw.content_type, 'text/x-markdown');
  assert.equal(typeof raw.avatar_url, 'string');
  assert.deepEqual(await read(), firstRead);

  assertSuccess(await A.patch('/settings', { full_name: 'Alice Renamed' }));
  assert.equal((await read()).sender_full_name, 'Alice Renamed');

  assertSuccess(await owner.patch(`/streams/${channel}`, { new_name: 'kept json renamed' }));
  assert.equal((await read()).display_recipient, 'kept json renamed');

  assertSuccess(await owner.post('/realm/filters', { pattern: 'PARL-(?P<id>[0-9]+)', url_template: 'https://tracker.example/{id}' }));
  assert.deepEqual((await read()).topic_links, [{ text: 'PARL-7', url: 'https://tracker.example/7' }]);

  assertSuccess(await B.post('/messages/flags', { messages: JSON.stringify([id]), op: 'add', flag: 'starred' }));
  assert.deepEqual((await read()).flags, ['starred']);

  assertSuccess(await A.patch(`/messages/${id}`, { content: 'a **bold** edit' }));
  const edited = await read();
  assert.equal(edited.content, '<p>a <strong>bold</strong> edit</p>');
  assert.equal(edited.edit_history.length, 1);
  assertSuccess(await owner.patch('/realm', { message_edit_history_visibility_policy: 'none' }));
  assert.equal((await read()).edit_history, undefined);
  assertSuccess(await owner.patch('/realm', { message_edit_history_visibility_policy: 'all' }));
  assert.equal((await read()).edit_history.length, 1);
});

test('a send follows changes to its channel subscribers, alert words, muted users and deactivated accounts made since the last send', async () => {
  const ch = await makeChannel(t, { name: 'follows-changes', subscribers: [alice.id, bob.id] });
  const sendFromBob = async (content: string) => assertSuccess(await send(B, { type: 'stream', to: String(ch), topic: 'changes', content })).id as number;
  // Each user's own row of a message: absent (null) when the user was not a recipient.
  const flagsOf = async (c: Client, id: number): Promise<string[] | null> => {
    const r = assertSuccess(await c.get('/messages', { anchor: id, num_before: 0, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: ch }]) }));
    if (r.messages.length === 0) return null;
    assert.equal(r.messages[0].id, id);
    return r.messages[0].flags;
  };
  const first = await sendFromBob('the first');
  assert.deepEqual(await flagsOf(A, first), []);
  assert.deepEqual(await flagsOf(C, first), ['read', 'historical']);

  // A new subscriber receives the next message; one who left does not.
  assertSuccess(await C.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'follows-changes' }]) }));
  const second = await sendFromBob('the second');
  assert.deepEqual(await flagsOf(C, second), []);
  assertSuccess(await C.delete('/users/me/subscriptions', { subscriptions: JSON.stringify(['follows-changes']) }));
  const third = await sendFromBob('the third');
  assert.deepEqual(await flagsOf(C, third), ['read', 'historical']);

  // An alert word added since the last send.
  assertSuccess(await A.post('/users/me/alert_words', { alert_words: JSON.stringify(['pineapple']) }));
  const fourth = await sendFromBob('a pineapple');
  assert.deepEqual(await flagsOf(A, fourth), ['has_alert_word']);
  assertSuccess(await A.delete('/users/me/alert_words', { alert_words: JSON.stringify(['pineapple']) }));
  const fifth = await sendFromBob('a pineapple again');
  assert.deepEqual(await flagsOf(A, fifth), []);

  // A sender muted since the last send: the message arrives read.
  assertSuccess(await A.post(`/users/me/muted_users/${bob.id}`));
  const sixth = await sendFromBob('muted now');
  assert.deepEqual(await flagsOf(A, sixth), ['read']);
  assertSuccess(await A.delete(`/users/me/muted_users/${bob.id}`));
  const seventh = await sendFromBob('unmuted');
  assert.deepEqual(await flagsOf(A, seventh), []);

  // A subscriber deactivated since the last send is no longer a recipient.
  const dave = await t.makeUser({ name: 'Dave' });
  await subscribe(t, ch, [dave.id]);
  const eighth = await sendFromBob('to dave too');
  const users = await t.server.svc.store.db.selectFrom('user_messages').select('user_id').where('message_id', '=', eighth).execute();
  assert.ok(users.some((u) => u.user_id === dave.id));
  assertSuccess(await owner.delete(`/users/${dave.id}`));
  const ninth = await sendFromBob('dave is gone');
  const after = await t.server.svc.store.db.selectFrom('user_messages').select('user_id').where('message_id', '=', ninth).execute();
  assert.deepEqual(after.map((u) => u.user_id).sort((a, b) => a - b), [alice.id, bob.id].sort((a, b) => a - b));
});

test('reading and sending in a private channel follow subscribing and unsubscribing made since the last request', async () => {
  const ch = await makeChannel(t, { name: 'cache-secret', inviteOnly: true, historyPublic: true, subscribers: [alice.id] });
  const id = assertSuccess(await send(A, { type: 'stream', to: String(ch), topic: 'private', content: 'for subscribers' })).id as number;
  const post = () => send(C, { type: 'stream', to: String(ch), topic: 'private', content: 'from carol' });
  assertError(await C.get(`/messages/${id}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
  assertError(await post(), 400, 'BAD_REQUEST', "Not authorized to send to channel 'cache-secret'");

  await subscribe(t, ch, [carol.id]);
  assert.deepEqual(assertSuccess(await C.get(`/messages/${id}`)).message.flags, ['read', 'historical']);
  assertSuccess(await post());

  assertSuccess(await C.delete('/users/me/subscriptions', { subscriptions: JSON.stringify(['cache-secret']) }));
  assertError(await C.get(`/messages/${id}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
  assertError(await post(), 400, 'BAD_REQUEST', "Not authorized to send to channel 'cache-secret'");
});

test('GET /messages answers characters outside ASCII intact, from the first read and from kept JSON, with a matching Content-Length', async () => {
  const ch = await makeChannel(t, { name: 'unicode-réunion', subscribers: [alice.id, bob.id] });
  const content = 'Grüße — “quoted” 😀 日本語 \u2028 line separator';
  const id = assertSuccess(await send(A, { type: 'stream', to: String(ch), topic: 'café ☕', content })).id as number;
  assertSuccess(await B.post(`/messages/${id}/reactions`, { emoji_name: 'smile' }));
  const narrow = JSON.stringify([{ operator: 'channel', operand: ch }]);
  for (let i = 0; i < 2; i++) {
    const r = await B.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow, apply_markdown: 'false' });
    assertSchema(r, 'GET', '/messages');
    const body = assertSuccess(r);
    assert.equal(r.headers.get('content-length'), String(Buffer.byteLength(r.text)));
    assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8');
    const m = body.messages.find((x: any) => x.id === id);
    assert.equal(m.content, content);
    assert.equal(m.subject, 'café ☕');
    assert.equal(m.display_recipient, 'unicode-réunion');
    assert.deepEqual(m.reactions.map((x: any) => x.emoji_name), ['smile']);
    assert.deepEqual(m.flags, []);
    assert.equal(body.found_newest, true);
    assert.deepEqual(Object.keys(body), ['result', 'msg', 'messages', 'found_anchor', 'found_oldest', 'found_newest', 'history_limited', 'anchor']);
  }
});

test('a new message shows its widget, and reactions added later, right after reads have warmed the kept data', async () => {
  const ch = await makeChannel(t, { name: 'warm-widgets', subscribers: [alice.id, bob.id] });
  const narrow = JSON.stringify([{ operator: 'channel', operand: ch }]);
  const read = async () => assertSuccess(await B.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow })).messages as any[];
  assertSuccess(await send(A, { type: 'stream', to: String(ch), topic: 'w', content: 'plain first' }));
  await read();
  await read();
  const q = await openQueue(B, { event_types: ['message'] });
  const poll = assertSuccess(await send(A, { type: 'stream', to: String(ch), topic: 'w', content: '/poll Lunch?\n- Pizza' })).id as number;
  const plain = assertSuccess(await send(A, { type: 'stream', to: String(ch), topic: 'w', content: 'plain second' })).id as number;
  const events = await q.ofType('message');
  assert.deepEqual(events.map((e) => [e.message.id, e.message.submessages.length, e.message.reactions.length]), [[poll, 1, 0], [plain, 0, 0]]);
  let msgs = await read();
  assert.equal(msgs.find((m) => m.id === poll).submessages[0].msg_type, 'widget');
  assert.deepEqual(msgs.find((m) => m.id === plain).submessages, []);
  assertSuccess(await B.post(`/messages/${plain}/reactions`, { emoji_name: 'tada' }));
  msgs = await read();
  assert.deepEqual(msgs.find((m) => m.id === plain).reactions.map((r: any) => r.emoji_name), ['tada']);
});

test('an error in the work after the commit does not fail the send: the sender gets the ID of the message it sent', async () => {
  const buses = t.nodes.map((n) => n.svc.bus);
  const sends = buses.map((b) => b.send);
  let thrown = 0;
  buses.forEach((b, i) => {
    b.send = ((...args: Parameters<typeof b.send>) => {
      if ((args[0] as { type?: string }).type === 'message') {
        thrown++;
        throw new Error('fan-out failed (test)');
      }
      return sends[i]!.apply(b, args);
    }) as typeof b.send;
  });
  let id: number;
  try {
    const r = await A.post('/messages', { type: 'stream', to: 'general', topic: 'after commit', content: 'sent despite the fan-out' });
    id = assertSuccess(r).id as number;
  } finally {
    buses.forEach((b, i) => (b.send = sends[i]!));
  }
  assert.equal(thrown, 1);
  const m = assertSuccess(await A.get(`/messages/${id}`, { apply_markdown: false })).message;
  assert.equal(m.content, 'sent despite the fan-out');
});

test('several messages sent at once to a new group conversation, or to a new topic: every one sent, in one conversation', async () => {
  const dave = await t.makeUser({ name: 'Dave' });
  const results = await Promise.all(Array.from({ length: 4 }, (_, i) => send(A, { type: 'direct', to: JSON.stringify([bob.id, dave.id]), content: `group at once ${i}` })));
  const ids = results.map((r) => assertSuccess(r).id as number);
  const narrow = JSON.stringify([{ operator: 'dm', operand: [bob.id, dave.id] }]);
  const inGroup = assertSuccess(await A.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow })).messages as any[];
  assert.deepEqual(inGroup.map((m) => m.id).sort(), [...ids].sort(), 'one conversation holds them all');

  // The first messages of a topic also make their sender follow it (automatic policies), once.
  assertSuccess(await A.patch('/settings', { automatically_follow_topics_policy: 1 }));
  const topicResults = await Promise.all(Array.from({ length: 4 }, (_, i) => send(A, { type: 'stream', to: 'general', topic: 'new at once', content: `topic at once ${i}` })));
  for (const r of topicResults) assertSuccess(r);
  const policies = (assertSuccess(await A.post('/register', { fetch_event_types: ['user_topic'] })).user_topics as any[]).filter((u) => u.topic_name === 'new at once');
  assert.deepEqual(policies.map((u) => [u.stream_id, u.visibility_policy]), [[general, 3]]);
});

// Within a process, message events go out in the order of the messages'
// IDs, also when sends run at once (on PostgreSQL, each in its own
// transaction; the mobile app adds a new message at the end of its list).
// A cluster's processes do not order theirs among themselves, as Zulip's.
test('message events come in the order of the message IDs when many sends run at once', { skip: CLUSTER_SIZE > 1 && 'a cluster keeps no order between its processes' }, async () => {
  const senders = await Promise.all(Array.from({ length: 8 }, () => t.makeUser()));
  const q = await openQueue(t.client(t.owner), { event_types: JSON.stringify(['message']) });
  for (let round = 0; round < 5; round++) {
    const sends = senders.flatMap((u, i) =>
      Array.from({ length: 5 }, (_, k) => {
        // Some slower to render (on a render thread) than others.
        const content = k === 0 ? ('**slow** ' + 'y'.repeat(40) + '\n').repeat(15) : `order ${round} ${i} ${k}`;
        return t.client(u).post('/messages', { type: 'stream', to: 'general', topic: `order ${round}`, content });
      }),
    );
    const sent = (await Promise.all(sends)).map((r) => assertSuccess(r).id as number);
    const seen = (await q.drain()).map((e) => e.message.id as number);
    assert.deepEqual([...seen].sort((a, b) => a - b), [...sent].sort((a, b) => a - b), 'every message once');
    assert.deepEqual(seen, [...seen].sort((a, b) => a - b), `round ${round}: in ID order`);
  }
});

test('a topic link carries the latest message of the topic (/with/), a topic without messages none', async () => {
  assertSuccess(await send(A, { type: 'stream', to: 'general', topic: 'Linked Topic', content: 'first' }));
  const latest = assertSuccess(await send(B, { type: 'stream', to: 'general', topic: 'linked topic', content: 'second' })).id as number;
  const id = assertSuccess(await send(A, { type: 'stream', to: 'general', topic: 'links', content: '#**general>Linked Topic** #**general>nothing yet**' })).id;
  assert.equal(
    assertSuccess(await A.get(`/messages/${id}`)).message.content,
    `<p><a class="stream-topic" data-stream-id="${general}" href="/#narrow/stream/${general}-general/topic/Linked.20Topic/with/${latest}">#general &gt; Linked Topic</a> ` +
      `<a class="stream-topic" data-stream-id="${general}" href="/#narrow/stream/${general}-general/topic/nothing.20yet">#general &gt; nothing yet</a></p>`,
  );
});
