/** PATCH /messages/{message_id} (content and topic edits) and GET /messages/{message_id}/history. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account, type Client, type Res } from './helpers.ts';
import { makeChannel, setRealmSetting } from './messages-fixtures.ts';
import { ROLE } from '../src/store/users.ts';
import { systemGroupIds } from '../src/store/groups.ts';

let t: TestServer;
let alice: Account, bob: Account, carol: Account, mod: Account;
let A: Client, B: Client, C: Client, M: Client;
let pub: number;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  carol = await t.makeUser({ name: 'Carol' });
  mod = await t.makeUser({ name: 'Mod', role: ROLE.MODERATOR });
  [A, B, C, M] = [alice, bob, carol, mod].map((u) => t.client(u));
  pub = await makeChannel(t, { name: 'pub', subscribers: [alice.id, bob.id, mod.id] });
});
after(() => t.close());

const send = async (c: Client, params: Record<string, unknown>) => assertSuccess(await c.post('/messages', params)).id as number;
const toPub = (c: Client, content = 'x', topic = 'edits') => send(c, { type: 'stream', to: 'pub', topic, content });
const edit = (c: Client, id: number, params: Record<string, unknown>) => c.patch(`/messages/${id}`, params);
const age = (ids: number[], seconds: number) => t.server.svc.store.db.updateTable('messages').set({ date_sent: Date.now() / 1000 - seconds }).where('id', 'in', ids).execute();
const strip = (evs: any[]) => evs.map(({ id: _id, ...e }) => e);

function assertEventSchema(event: Record<string, any>): void {
  const res: Res = { status: 200, body: { result: 'success', msg: '', queue_id: 'q', events: [event] }, headers: new Headers(), text: '' };
  assertSchema(res, 'GET', '/events');
}

test('content edit: success, update_message event to holders only, mention flags, GET /messages', async () => {
  const id = await toPub(A, 'first');
  const qa = await openQueue(A, { event_types: ['update_message'] });
  const qb = await openQueue(B, { event_types: ['update_message'] });
  const qbRaw = await openQueue(B, { event_types: ['update_message'], apply_markdown: false });
  const qc = await openQueue(C, { event_types: ['update_message'] });
  const r = await edit(A, id, { content: 'hello @**Bob**' });
  // No file was linked: none detached (feature level 285).
  assert.deepEqual(assertSuccess(r).detached_uploads, []);
  assertSchema(r, 'PATCH', '/messages/{message_id}');

  const [eb] = await qb.ofType('update_message');
  assertEventSchema(eb);
  assert.equal(eb.user_id, alice.id);
  assert.equal(eb.message_id, id);
  assert.deepEqual(eb.message_ids, [id]);
  assert.equal(eb.rendering_only, false);
  assert.equal(eb.orig_content, 'first');
  assert.equal(eb.orig_rendered_content, '<p>first</p>');
  assert.equal(eb.content, 'hello @**Bob**');
  assert.match(eb.rendered_content, /user-mention/);
  assert.equal(eb.is_me_message, false);
  assert.equal(eb.stream_id, pub);
  assert.equal(eb.stream_name, 'pub');
  assert.equal(typeof eb.edit_timestamp, 'number');
  assert.ok(eb.flags.includes('mentioned'), 'Bob is newly mentioned');
  assert.ok(!('subject' in eb) && !('propagate_mode' in eb), 'no topic fields for a content edit');
  const [ea] = await qa.ofType('update_message');
  assert.ok(!ea.flags.includes('mentioned'));
  const [raw] = await qbRaw.ofType('update_message');
  assert.equal(raw.content, 'hello @**Bob**', 'content is the Markdown source for every client, as Zulip');
  assert.deepEqual(await qc.drain(), [], 'Carol is not subscribed and holds nothing');

  const g = assertSuccess(await B.get(`/messages/${id}`));
  assert.match(g.message.content, /user-mention/);
  assert.ok(g.message.flags.includes('mentioned'));
  assert.equal(g.message.last_edit_timestamp, eb.edit_timestamp);
  assert.equal(g.message.edit_history[0].prev_content, 'first');
  assert.equal(g.message.edit_history[0].prev_rendered_content, '<p>first</p>');
  assert.equal(g.message.edit_history[0].user_id, alice.id);
  assert.equal(g.message.edit_history[0].timestamp, eb.edit_timestamp);
  assertSchema(await B.get(`/messages/${id}`), 'GET', '/messages/{message_id}');
  const list = assertSuccess(await B.get('/messages', { anchor: id, num_before: 0, num_after: 0 }));
  assert.equal(list.messages[0].content, g.message.content);

  // Removing the mention clears the flag.
  assertSuccess(await edit(A, id, { content: 'no mention' }));
  const [eb2] = await qb.ofType('update_message');
  assert.ok(!eb2.flags.includes('mentioned'));
  // Blank content becomes "(deleted)".
  assertSuccess(await edit(A, id, { content: '   ' }));
  assert.equal((await qb.ofType('update_message'))[0].content, '(deleted)');
});

test('content edit errors', async () => {
  const id = await toPub(A);
  assertError(await edit(B, id, { content: 'hijack' }), 400, 'BAD_REQUEST', "You don't have permission to edit this message");
  assertError(await edit(t.client(t.owner), id, { content: 'admin' }), 400, 'BAD_REQUEST', "You don't have permission to edit this message");
  assertError(await edit(A, id, {}), 400, 'BAD_REQUEST', 'Nothing to change');
  assertError(await edit(A, id, { topic: 'edits' }), 400, 'BAD_REQUEST', 'Nothing to change');
  assertError(await edit(A, 987654, { content: 'x' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
  const dm = await send(A, { type: 'direct', to: JSON.stringify([bob.id]), content: 'psst' });
  assertError(await edit(C, dm, { content: 'x' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
  assertError(await edit(A, dm, { topic: 'x' }), 400, 'BAD_REQUEST', 'Direct messages cannot have topics.');
  assertError(await edit(A, id, { content: 'y', propagate_mode: 'change_all' }), 400, 'BAD_REQUEST', 'Invalid propagate_mode without topic edit');
  // A bot's owner may not edit the bot's content (Zulip: the sender only).
  const bot = await t.makeUser({ name: 'Bot', isBot: true, botOwnerId: alice.id });
  const botMsg = await send(t.client(bot), { type: 'direct', to: JSON.stringify([alice.id]), content: 'beep' });
  assertError(await edit(A, botMsg, { content: 'x' }), 400, 'BAD_REQUEST', "You don't have permission to edit this message");
  assertSuccess(await edit(t.client(bot), botMsg, { content: 'boop' }));
  // Time limit (+20 s grace).
  await age([id], 3600);
  assertError(await edit(A, id, { content: 'late' }), 400, 'BAD_REQUEST', 'The time limit for editing this message has passed');
  await setRealmSetting(t, 'message_content_edit_limit_seconds', null);
  assertSuccess(await edit(A, id, { content: 'late but unlimited' }));
  await setRealmSetting(t, 'message_content_edit_limit_seconds', 600);
  // Editing turned off.
  const fresh = await toPub(A);
  await setRealmSetting(t, 'allow_message_editing', false);
  assertError(await edit(A, fresh, { content: 'x' }), 400, 'BAD_REQUEST', 'Your organization has turned off message editing');
  await setRealmSetting(t, 'allow_message_editing', true);
  // A poll or to-do list (a message with submessages) keeps its content; its topic may still change.
  const poll = await toPub(A, '/poll Lunch?\nPizza\nSoup', 'widgets');
  assertError(await edit(A, poll, { content: '/poll Dinner?\nPizza' }), 400, 'BAD_REQUEST', 'Widgets cannot be edited.');
  const [kept] = assertSuccess(await A.get('/messages', { anchor: poll, num_before: 0, num_after: 0, apply_markdown: false })).messages;
  assert.equal(kept.content, '/poll Lunch?\nPizza\nSoup');
  assertSuccess(await edit(A, poll, { topic: 'lunch poll' }));
  // Direct messages: the event reaches the participants.
  const qb = await openQueue(B, { event_types: ['update_message'] });
  const qc = await openQueue(C, { event_types: ['update_message'] });
  assertSuccess(await edit(A, dm, { content: 'edited dm' }));
  const [e] = await qb.ofType('update_message');
  assert.equal(e.content, 'edited dm');
  assert.ok(!('stream_id' in e));
  assertEventSchema(e);
  assert.deepEqual(await qc.drain(), []);
});

test('prev_content_sha256: an edit based on content that has changed since is refused, with nothing changed', async () => {
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  const id = await toPub(A, 'Init message ☃');
  // The mobile app sends the hash of the raw content it started from.
  assertSuccess(await edit(A, id, { content: 'First edit', prev_content_sha256: sha('Init message ☃') }));
  const stale = await edit(A, id, { content: 'Second edit', prev_content_sha256: sha('Init message ☃') });
  assertError(stale, 400, 'EXPECTATION_MISMATCH', "'prev_content_sha256' value does not match the expected value.");
  const raw = assertSuccess(await A.get(`/messages/${id}`, { apply_markdown: false })).message;
  assert.equal(raw.content, 'First edit');
  // It holds for a topic move too; with the current hash the move goes through.
  assertError(await edit(A, id, { topic: 'elsewhere', prev_content_sha256: 'deadbeef' }), 400, 'EXPECTATION_MISMATCH');
  assert.equal(assertSuccess(await A.get(`/messages/${id}`)).message.subject, 'edits');
  const moved = await edit(A, id, { topic: 'elsewhere', prev_content_sha256: sha('First edit') });
  assertSuccess(moved);
  assert.equal(moved.body.ignored_parameters_unsupported, undefined);
  assert.equal(assertSuccess(await A.get(`/messages/${id}`)).message.subject, 'elsewhere');
});

test('last_edit_timestamp is for content edits, last_moved_timestamp for moves (resolving a topic is neither)', async () => {
  const id = await toPub(A, 'moving target', 'moves');
  const read = async () => assertSuccess(await A.get(`/messages/${id}`)).message;
  let m = await read();
  assert.equal(m.last_edit_timestamp, undefined);
  assert.equal(m.last_moved_timestamp, undefined);
  // Resolving and unresolving the topic is no move.
  assertSuccess(await edit(A, id, { topic: '✔ moves' }));
  assertSuccess(await edit(A, id, { topic: 'moves' }));
  m = await read();
  assert.equal(m.last_edit_timestamp, undefined);
  assert.equal(m.last_moved_timestamp, undefined);
  // A move sets last_moved_timestamp only, even where edit history is hidden.
  await age([id], 100);
  assertSuccess(await edit(A, id, { topic: 'moved away' }));
  await setRealmSetting(t, 'message_edit_history_visibility_policy', 'none');
  try {
    m = await read();
    assert.equal(m.edit_history, undefined);
    assert.equal(m.last_edit_timestamp, undefined);
    assert.ok(Math.abs(m.last_moved_timestamp - Date.now() / 1000) < 60, `last_moved_timestamp ${m.last_moved_timestamp}`);
    // Then a content edit sets last_edit_timestamp; the move's time stays.
    const moved = m.last_moved_timestamp;
    assertSuccess(await edit(A, id, { content: 'edited target' }));
    m = await read();
    assert.ok(m.last_edit_timestamp >= moved);
    assert.equal(m.last_moved_timestamp, moved);
  } finally {
    await setRealmSetting(t, 'message_edit_history_visibility_policy', undefined);
  }
});

test('topic edits: change_one, change_later, change_all, event fields, notifications', async () => {
  const m1 = await toPub(A, 'one', 'old topic');
  const m2 = await toPub(B, 'two', 'old topic');
  const m3 = await toPub(A, 'three', 'old topic');
  const qb = await openQueue(B, { event_types: ['update_message', 'message'] });
  const qc = await openQueue(C, { event_types: ['update_message'] });

  assertSuccess(await edit(A, m3, { topic: 'single', send_notification_to_new_thread: false }));
  let [e] = await qb.ofType('update_message');
  assertEventSchema(e);
  assert.equal(e.propagate_mode, 'change_one');
  assert.equal(e.orig_subject, 'old topic');
  assert.equal(e.subject, 'single');
  assert.deepEqual(e.topic_links, []);
  assert.deepEqual(e.message_ids, [m3]);
  assert.ok(!('content' in e));
  assert.deepEqual(await qc.drain(), []);

  // change_later from m2 moves m2 only (m3 has left); Notification Bot posts to both threads.
  assertSuccess(await edit(A, m2, { topic: 'later', propagate_mode: 'change_later', send_notification_to_old_thread: true }));
  const evs = await qb.drain();
  e = evs.find((x) => x.type === 'update_message');
  assert.deepEqual(e.message_ids, [m2]);
  const notices = evs.filter((x) => x.type === 'message').map((x) => [x.message.subject, x.message.content, x.message.sender_full_name]);
  assert.equal(notices.length, 2);
  assert.equal(notices[0][0], 'later');
  assert.match(notices[0][1], /^\[A message\]\(http:\/\/.*\/#narrow\/channel\/\d+-pub\/topic\/later\/near\/\d+\) was moved here from #\*\*pub>old topic\*\* by @_\*\*Alice\|\d+\*\*\.$/);
  assert.equal(notices[1][0], 'old topic');
  assert.equal(notices[1][1], `A message was moved from this topic to #**pub>later** by @_**Alice|${alice.id}**.`);
  assert.equal(notices[0][2], 'Notification Bot');

  // change_all moves the whole topic.
  const m4 = await toPub(A, 'four', 'later');
  await qb.drain();
  assertSuccess(await edit(B, m4, { topic: 'all', propagate_mode: 'change_all' }));
  const all = await qb.drain();
  e = all.find((x) => x.type === 'update_message');
  assert.equal(e.message_ids.length, 3, 'm2, the notice and m4');
  assert.ok(e.message_ids.includes(m2) && e.message_ids.includes(m4));
  const notice = all.find((x) => x.type === 'message');
  assert.match(notice.message.content, /This topic was moved here from/);
  const g = assertSuccess(await A.get(`/messages/${m2}`));
  assert.equal(g.message.subject, 'all');
  assert.equal(g.message.edit_history[0].prev_topic, 'later');
  assert.equal(g.message.edit_history[0].topic, 'all');
  assert.equal(assertSuccess(await A.get(`/messages/${m1}`)).message.subject, 'old topic');

  // Empty topic naming in the event for clients without empty_topic_name.
  const qe = await openQueue(B, { event_types: ['update_message'], client_capabilities: { empty_topic_name: true } });
  assertSuccess(await edit(A, m1, { topic: '', send_notification_to_new_thread: false }));
  assert.equal((await qb.ofType('update_message'))[0].subject, 'general chat');
  assert.equal((await qe.ofType('update_message'))[0].subject, '');
});

test('resolving topics, permissions and time limits for topic edits', async () => {
  const m = await toPub(B, 'q', 'question');
  const qa = await openQueue(A, { event_types: ['update_message', 'message'] });
  assertSuccess(await edit(A, m, { topic: '✔ question', propagate_mode: 'change_all' }));
  const evs = await qa.drain();
  assert.equal(evs.find((x) => x.type === 'update_message').subject, '✔ question');
  const notices = evs.filter((x) => x.type === 'message');
  assert.equal(notices.length, 1, 'only the resolve notice');
  assert.match(notices[0].message.content, /has marked this topic as resolved\./);
  assert.equal(notices[0].message.subject, '✔ question');
  assertSuccess(await edit(A, m, { topic: 'question', propagate_mode: 'change_all' }));
  assert.match((await qa.ofType('message'))[0].message.content, /has marked this topic as unresolved\./);
  assertError(await edit(A, m, { topic: '✔ general chat' }), 400, 'BAD_REQUEST', 'General chat cannot be marked as resolved');

  const g = await systemGroupIds(t.server.svc.store.db, t.server.svc.realmId);
  await setRealmSetting(t, 'can_move_messages_between_topics_group', g.get('role:administrators'));
  assertError(await edit(A, m, { topic: 'moved' }), 400, 'BAD_REQUEST', "You don't have permission to edit this message");
  await setRealmSetting(t, 'can_resolve_topics_group', g.get('role:moderators'));
  assertError(await edit(A, m, { topic: '✔ question' }), 400, 'BAD_REQUEST', "You don't have permission to resolve topics in this channel.");
  await setRealmSetting(t, 'can_move_messages_between_topics_group', g.get('role:everyone'));
  await setRealmSetting(t, 'can_resolve_topics_group', g.get('role:everyone'));

  await age([m], 8 * 86400);
  assertError(await edit(A, m, { topic: 'too late' }), 400, 'BAD_REQUEST', "The time limit for editing this message's topic has passed.");
  assertSuccess(await edit(M, m, { topic: 'moderators may' }));
  const recent = await toPub(A, 'new', 'moderators may');
  const r = await edit(A, recent, { topic: 'partial', propagate_mode: 'change_all' });
  assertError(r, 400, 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', /^You only have permission to move the \d+\/\d+ most recent messages in this topic\.$/);
  // The aged message is left out; the Notification Bot notice of the moderator's move and the new one may move.
  assert.deepEqual([r.body.total_messages_in_topic, r.body.total_messages_allowed_to_move], [3, 2]);
  assert.ok(r.body.first_message_id_allowed_to_move > m && r.body.first_message_id_allowed_to_move < recent);
});

test('GET /messages/{message_id}/history', async () => {
  const id = await toPub(A, 'v1', 'hist');
  assertSuccess(await edit(A, id, { content: 'v2' }));
  assertSuccess(await edit(A, id, { topic: 'hist2', send_notification_to_new_thread: false }));
  const r = await B.get(`/messages/${id}/history`);
  const body = assertSuccess(r);
  assertSchema(r, 'GET', '/messages/{message_id}/history');
  const h = body.message_history;
  assert.equal(h.length, 3);
  assert.deepEqual([h[0].content, h[0].topic, h[0].user_id], ['v1', 'hist', alice.id]);
  assert.ok(!('prev_content' in h[0]));
  assert.deepEqual([h[1].content, h[1].prev_content, h[1].rendered_content, h[1].prev_rendered_content, h[1].topic], ['v2', 'v1', '<p>v2</p>', '<p>v1</p>', 'hist']);
  assert.deepEqual([h[2].topic, h[2].prev_topic, h[2].content], ['hist2', 'hist', 'v2']);
  assertError(await C.get('/messages/987654/history'), 400, 'BAD_REQUEST', 'Invalid message(s)');
  await setRealmSetting(t, 'message_edit_history_visibility_policy', 'none');
  assertError(await B.get(`/messages/${id}/history`), 400, 'BAD_REQUEST', 'Message edit history is disabled in this organization');
  await setRealmSetting(t, 'message_edit_history_visibility_policy', 'all');
});

test('topic moves in a private channel: Notification Bot (a system bot) posts its notice there too', async () => {
  const priv = await makeChannel(t, { name: 'secret-room', inviteOnly: true, subscribers: [alice.id, bob.id] });
  const m = assertSuccess(await A.post('/messages', { type: 'stream', to: priv, topic: 'before', content: 'hush' })).id;
  const qb = await openQueue(B, { event_types: ['message', 'update_message'] });
  assertSuccess(await edit(A, m, { topic: 'after', propagate_mode: 'change_all' }));
  const events = await qb.drain();
  const notice = events.find((e) => e.type === 'message');
  assert.ok(notice, 'the notice reaches the channel');
  assert.equal(notice.message.sender_full_name, 'Notification Bot');
  assert.equal(notice.message.subject, 'after');
});

test('an edit that changes mentions keeps the read and starred flags that recipients set while it ran', async () => {
  const users = await Promise.all(Array.from({ length: 24 }, (_, i) => t.makeUser({ name: `Reader ${i}` })));
  await makeChannel(t, { name: 'busy readers', subscribers: [t.owner.id, ...users.map((u) => u.id)] });
  const clients = users.map((u) => t.client(u));
  // The owner may mention everyone in a channel this large.
  const O = t.client(t.owner);
  const id = await send(O, { type: 'stream', to: 'busy readers', topic: 'flags', content: 'no mention yet' });
  // The edit rewrites every recipient's mention flags while each recipient marks the message read and starred.
  const results = await Promise.all([
    edit(O, id, { content: 'now for @**all**' }),
    ...clients.map((c) => c.post('/messages/flags', { messages: JSON.stringify([id]), op: 'add', flag: 'read' })),
    ...clients.map((c) => c.post('/messages/flags', { messages: JSON.stringify([id]), op: 'add', flag: 'starred' })),
  ]);
  for (const r of results) assertSuccess(r);
  for (const c of clients) {
    const m = assertSuccess(await c.get(`/messages/${id}`)).message;
    assert.deepEqual([...m.flags].sort(), ['read', 'starred', 'stream_wildcard_mentioned', 'wildcard_mentioned'], `flags of ${m.id} for a reader`);
  }
});

test('edits and moves of one message sent at the same moment: each is kept, with its own history entry', async () => {
  for (let round = 0; round < 4; round++) {
    const id = await toPub(A, `original ${round}`, `race ${round}`);
    const results = await Promise.all([
      edit(A, id, { content: `first edit ${round}` }),
      edit(A, id, { topic: `moved ${round}`, propagate_mode: 'change_one' }),
      edit(A, id, { content: `second edit ${round}` }),
    ]);
    for (const r of results) assertSuccess(r);
    const m = assertSuccess(await A.get(`/messages/${id}`, { apply_markdown: false })).message;
    assert.equal(m.subject, `moved ${round}`, 'the move stays');
    const history = assertSuccess(await A.get(`/messages/${id}/history`)).message_history as any[];
    assert.equal(history.length, 4, 'the original and three edits');
    // Each entry starts from what the one before it left.
    const contents = history.map((h) => h.content);
    assert.equal(contents[0], `original ${round}`);
    assert.equal(m.content, contents[3]);
    assert.ok(contents.includes(`first edit ${round}`) && contents.includes(`second edit ${round}`), 'both content edits are in the history');
    assert.ok(history.some((h) => h.prev_topic === `race ${round}` && h.topic === `moved ${round}`), 'the move is in the history');
    for (let i = 1; i < history.length; i++) if (history[i].prev_content !== undefined) assert.equal(history[i].prev_content, contents[i - 1]);
  }
});
