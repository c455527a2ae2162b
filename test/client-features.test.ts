/**
 * What zulip-flutter calls beyond the basics: saved snippets, message
 * reports, submessages (polls, to-do lists), client device registration and
 * the legacy APNs/FCM token routes — responses, errors, events, /register.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account } from './helpers.ts';
import { makeChannel, setRealmSetting } from './messages-fixtures.ts';

let t: TestServer;
let alice: Account, bob: Account, carol: Account;
let sid: number;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  carol = await t.makeUser({ name: 'Carol' });
  sid = await makeChannel(t, { name: 'features', subscribers: [alice.id, bob.id] });
});
after(() => t.close());

test('saved snippets: create, list, edit, delete, events to the owner only, /register', async () => {
  const a = t.client(alice);
  const q = await openQueue(a, { event_types: ['saved_snippets'] });
  const qBob = await openQueue(t.client(bob), { event_types: ['saved_snippets'] });
  const created = assertSuccess(await a.post('/saved_snippets', { title: '  Greeting ', content: ' Hello there! \n' }));
  const id = created.saved_snippet_id as number;
  assert.ok(Number.isInteger(id));
  const [add] = await q.ofType('saved_snippets');
  assert.equal(add.op, 'add');
  assert.deepEqual({ ...add.saved_snippet, date_created: 0 }, { id, title: 'Greeting', content: 'Hello there!', date_created: 0 });
  assert.ok(Number.isInteger(add.saved_snippet.date_created) && add.saved_snippet.date_created > 1_600_000_000);

  const list = assertSuccess(await a.get('/saved_snippets'));
  assert.deepEqual(list.saved_snippets, [add.saved_snippet]);
  assert.deepEqual(assertSuccess(await t.client(bob).get('/saved_snippets')).saved_snippets, []);

  assertSuccess(await a.patch(`/saved_snippets/${id}`, { content: 'Hi!' }));
  const [upd] = await q.ofType('saved_snippets');
  assert.deepEqual(upd, { type: 'saved_snippets', op: 'update', id: upd.id, saved_snippet: { ...add.saved_snippet, content: 'Hi!' } });
  // Nothing to change: success, no event.
  assertSuccess(await a.patch(`/saved_snippets/${id}`, {}));
  assert.deepEqual(await q.ofType('saved_snippets'), []);

  const reg = assertSuccess(await a.post('/register', { fetch_event_types: ['saved_snippets'] }));
  assert.deepEqual(reg.saved_snippets, [{ ...add.saved_snippet, content: 'Hi!' }]);

  assertError(await t.client(bob).patch(`/saved_snippets/${id}`, { title: 'x' }), 404, 'BAD_REQUEST', 'Saved snippet does not exist.');
  assertError(await t.client(bob).delete(`/saved_snippets/${id}`), 404, 'BAD_REQUEST', 'Saved snippet does not exist.');
  assertError(await a.post('/saved_snippets', { title: '   ', content: 'x' }), 400, 'BAD_REQUEST', 'title cannot be blank');
  assertError(await a.post('/saved_snippets', { title: 'x'.repeat(61), content: 'x' }), 400, 'BAD_REQUEST', 'title is too long (limit: 60 characters)');
  assertError(await a.post('/saved_snippets', { title: 'x' }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'content' argument");

  assertSuccess(await a.delete(`/saved_snippets/${id}`));
  const [rm] = await q.ofType('saved_snippets');
  assert.deepEqual(rm, { type: 'saved_snippets', op: 'remove', id: rm.id, saved_snippet_id: id });
  assert.deepEqual(await qBob.ofType('saved_snippets'), []);
  assertError(await a.delete(`/saved_snippets/${id}`), 404, 'BAD_REQUEST', 'Saved snippet does not exist.');
});

test('message reports go to the moderation request channel in Zulip\'s format', async () => {
  const a = t.client(alice);
  const msgId = assertSuccess(await t.client(bob).post('/messages', { type: 'stream', to: sid, topic: 'rude', content: 'You are **all** wrong' })).id;
  // Not configured yet.
  assertError(await a.post(`/messages/${msgId}/report`, { report_type: 'spam' }), 400, 'BAD_REQUEST', 'Message reporting is not enabled in this organization.');
  const modId = await makeChannel(t, { name: 'moderation', inviteOnly: true, subscribers: [t.owner.id] });
  await setRealmSetting(t, 'moderation_request_channel_id', modId);
  // The channel receiving reports stays private, as in Zulip.
  assertError(await t.client(t.owner).patch(`/streams/${modId}`, { is_private: false }), 400, 'BAD_REQUEST', 'Moderation request channel must be private.');

  assertError(await a.post(`/messages/${msgId}/report`, { report_type: 'bogus' }), 400, 'BAD_REQUEST', 'Invalid report_type');
  assertError(await a.post(`/messages/${msgId}/report`, { report_type: 'other' }), 400, 'BAD_REQUEST', 'An explanation is required.');
  assertError(await a.post(`/messages/${msgId}/report`, { report_type: 'spam', description: 'x'.repeat(1001) }), 400, 'BAD_REQUEST', 'description is too long (limit: 1000 characters)');
  assertError(await a.post('/messages/999999/report', { report_type: 'spam' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
  // A message the reporter cannot read does not exist for them.
  const privId = await makeChannel(t, { name: 'features-priv', inviteOnly: true, subscribers: [bob.id] });
  const hidden = assertSuccess(await t.client(bob).post('/messages', { type: 'stream', to: privId, topic: 't', content: 'secret' })).id;
  assertError(await a.post(`/messages/${hidden}/report`, { report_type: 'spam' }), 400, 'BAD_REQUEST', 'Invalid message(s)');

  const q = await openQueue(t.client(t.owner), { event_types: ['message'] });
  assertSuccess(await a.post(`/messages/${msgId}/report`, { report_type: 'harassment', description: 'Not nice.' }));
  const [ev] = await q.ofType('message');
  const m = ev.message;
  assert.equal(m.stream_id, modId);
  assert.equal(m.subject, 'Bob moderation');
  assert.equal(m.sender_email, 'notification-bot@zulip.com');
  const raw = assertSuccess(await t.client(t.owner).get(`/messages/${m.id}`, { apply_markdown: false })).message.content as string;
  const sent = assertSuccess(await t.client(bob).get(`/messages/${msgId}`)).message.timestamp as number;
  const when = new Date(sent * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
  assert.equal(
    raw,
    `@_**Alice|${alice.id}** reported a message sent by @_**Bob|${bob.id}** at <time:${when}>.\n` +
      '```quote\n**Harassment**. Not nice.\n```\n\n' +
      `\`\`\` spoiler Original message at #**features>rude@${msgId}**\nYou are **all** wrong\n\`\`\``,
  );

  // A direct message report links the conversation; the content's fences are outgrown.
  const dm = assertSuccess(await t.client(bob).post('/messages', { type: 'private', to: JSON.stringify([alice.id]), content: '````\ncode\n````' })).id;
  assertSuccess(await a.post(`/messages/${dm}/report`, { report_type: 'other', description: 'Odd.' }));
  const [ev2] = await q.ofType('message');
  const raw2 = assertSuccess(await t.client(t.owner).get(`/messages/${ev2.message.id}`, { apply_markdown: false })).message.content as string;
  const ids = [alice.id, bob.id].sort((x, y) => x - y).join(',');
  assert.ok(raw2.includes('**Other reason**. Odd.'), raw2);
  assert.ok(raw2.includes(`\`\`\`\`\` spoiler [Original message](${t.url}/#narrow/dm/${ids}-dm/near/${dm})\n\`\`\`\`\ncode\n\`\`\`\`\n\`\`\`\`\``), raw2);

  // The report types are in /register.
  const reg = assertSuccess(await a.post('/register', { fetch_event_types: ['realm'] }));
  assert.deepEqual(reg.server_report_message_types.map((x: any) => x.key), ['spam', 'harassment', 'inappropriate', 'norms', 'other']);
  assert.equal(reg.realm_moderation_request_channel_id, modId);
});

test('submessages: /poll creates the widget; votes and options are events to the message\'s holders', async () => {
  const a = t.client(alice);
  const qBob = await openQueue(t.client(bob), { event_types: ['submessage'] });
  const qCarol = await openQueue(t.client(carol), { event_types: ['submessage'] });
  const id = assertSuccess(await a.post('/messages', { type: 'stream', to: sid, topic: 'poll', content: '/poll Lunch?\n- Pizza\n* Sushi\n\nSoup' })).id;
  const got = await a.get('/messages', { anchor: id, num_before: 0, num_after: 0 });
  assertSchema(got, 'GET', '/messages');
  const subs = got.body.messages[0].submessages;
  assert.equal(subs.length, 1);
  assert.deepEqual({ ...subs[0], id: 0 }, { id: 0, message_id: id, sender_id: alice.id, msg_type: 'widget', content: JSON.stringify({ widget_type: 'poll', extra_data: { question: 'Lunch?', options: ['Pizza', 'Sushi', 'Soup'] } }) });

  const vote = JSON.stringify({ type: 'vote', key: 'canned,0', vote: 1 });
  assertSuccess(await t.client(bob).post('/submessage', { message_id: id, msg_type: 'widget', content: vote }));
  const [ev] = await qBob.ofType('submessage');
  assert.deepEqual({ ...ev, id: 0, submessage_id: 0 }, { type: 'submessage', id: 0, msg_type: 'widget', message_id: id, submessage_id: 0, sender_id: bob.id, content: vote });
  assert.ok(ev.submessage_id > subs[0].id);
  assert.deepEqual(await qCarol.ofType('submessage'), []); // not subscribed: no user_messages row

  assertError(await t.client(bob).post('/submessage', { message_id: id, msg_type: 'widget', content: JSON.stringify({ type: 'question', question: 'Dinner?' }) }), 400, 'BAD_REQUEST', "You can't edit a question unless you are the author.");
  assertError(await t.client(bob).post('/submessage', { message_id: id, msg_type: 'widget', content: JSON.stringify({ type: 'vote', key: 1, vote: 1 }) }), 400, 'BAD_REQUEST', 'poll data["key"] is not a string');
  assertError(await t.client(bob).post('/submessage', { message_id: id, msg_type: 'widget', content: JSON.stringify({ type: 'dance' }) }), 400, 'BAD_REQUEST', 'Unknown type for poll data: dance');
  assertError(await t.client(bob).post('/submessage', { message_id: id, msg_type: 'widget', content: '{oops' }), 400, 'BAD_REQUEST', 'Invalid json for submessage');
  assertSuccess(await a.post('/submessage', { message_id: id, msg_type: 'widget', content: JSON.stringify({ type: 'question', question: 'Dinner?' }) }));

  // A plain message: only its sender may attach the first submessage.
  const plain = assertSuccess(await a.post('/messages', { type: 'stream', to: sid, topic: 'poll', content: 'just text' })).id;
  assertError(await t.client(bob).post('/submessage', { message_id: plain, msg_type: 'widget', content: '{}' }), 400, 'BAD_REQUEST', 'You cannot attach a submessage to this message.');
  assertError(await a.post('/submessage', { message_id: 999999, msg_type: 'widget', content: '{}' }), 400, 'BAD_REQUEST', 'Invalid message(s)');

  // /todo parses the title and tasks.
  const todo = assertSuccess(await a.post('/messages', { type: 'stream', to: sid, topic: 'todo', content: '/todo Chores\n- Dishes: kitchen\n- Laundry' })).id;
  const tm = assertSuccess(await a.get(`/messages/${todo}`)).message;
  assert.deepEqual(JSON.parse(tm.submessages[0].content), { widget_type: 'todo', extra_data: { task_list_title: 'Chores', tasks: [{ task: 'Dishes', desc: 'kitchen' }, { task: 'Laundry', desc: '' }] } });
  assertError(await t.client(bob).post('/submessage', { message_id: todo, msg_type: 'widget', content: JSON.stringify({ type: 'new_task_list_title', title: 'x' }) }), 400, 'BAD_REQUEST', "You can't edit the task list title unless you are the author.");
  assertSuccess(await t.client(bob).post('/submessage', { message_id: todo, msg_type: 'widget', content: JSON.stringify({ type: 'strike', key: '0,canned' }) }));
});

test('client devices: register, remove, device events and the devices state', async () => {
  const a = t.client(alice);
  const q = await openQueue(a, { event_types: ['device'] });
  const r1 = assertSuccess(await a.post('/register_client_device', {}));
  const r2 = assertSuccess(await a.post('/register_client_device', {}));
  assert.ok(r2.device_id > r1.device_id);
  assert.deepEqual((await q.ofType('device')).map((e) => [e.op, e.device_id]), [['add', r1.device_id], ['add', r2.device_id]]);
  const reg = assertSuccess(await a.post('/register', { fetch_event_types: ['device'] }));
  const empty = { push_key_id: null, push_token_id: null, pending_push_token_id: null, push_token_last_updated_timestamp: null, push_registration_error_code: null };
  assert.deepEqual(reg.devices, { [r1.device_id]: empty, [r2.device_id]: empty });
  assertError(await t.client(bob).post('/remove_client_device', { device_id: r1.device_id }), 400, 'BAD_REQUEST', 'Invalid `device_id`');
  assertSuccess(await a.post('/remove_client_device', { device_id: r1.device_id }));
  assert.deepEqual((await q.ofType('device')).map((e) => [e.op, e.device_id]), [['remove', r1.device_id]]);
  assert.deepEqual(Object.keys(assertSuccess(await a.post('/register', { fetch_event_types: ['device'] })).devices), [String(r2.device_id)]);
  assertError(await a.post('/remove_client_device', {}), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'device_id' argument");
  // The registered device ID is what /mobile_push/register takes; no push service here.
  assertError(await a.post('/mobile_push/register', { device_id: r2.device_id, push_key: 'x', push_key_id: 1 }), 400, 'PUSH_SERVICE_NOT_CONFIGURED');
});

test('legacy APNs and FCM tokens are stored and removable', async () => {
  const a = t.client(alice);
  assertSuccess(await a.post('/users/me/android_gcm_reg_id', { token: 'fcm-token-1' }));
  assertSuccess(await a.post('/users/me/android_gcm_reg_id', { token: 'fcm-token-1' })); // idempotent
  assertSuccess(await a.post('/users/me/apns_device_token', { token: 'c0ffee', appid: 'org.zulip.Zulip' }));
  assertError(await a.post('/users/me/apns_device_token', { token: 'c0ffee', appid: 'bad app id!' }), 400, 'BAD_REQUEST', 'Invalid app ID');
  assertError(await a.post('/users/me/apns_device_token', { token: 'not hex!', appid: 'org.zulip.Zulip' }), 400, 'BAD_REQUEST', 'Invalid APNS token');
  assertError(await a.post('/users/me/android_gcm_reg_id', { token: '' }), 400, 'BAD_REQUEST', 'Empty or invalid length token');
  assertError(await t.client(bob).delete('/users/me/android_gcm_reg_id', { token: 'fcm-token-1' }), 400, 'BAD_REQUEST', 'Token does not exist');
  assertSuccess(await a.delete('/users/me/android_gcm_reg_id', { token: 'fcm-token-1' }));
  assertError(await a.delete('/users/me/android_gcm_reg_id', { token: 'fcm-token-1' }), 400, 'BAD_REQUEST', 'Token does not exist');
  assertSuccess(await a.delete('/users/me/apns_device_token', { token: 'c0ffee' }));
  const bot = await t.makeUser({ name: 'Token bot', isBot: true, botOwnerId: alice.id, botType: 1 });
  assertError(await t.client(bot).post('/users/me/android_gcm_reg_id', { token: 'x' }), 400, 'BAD_REQUEST', 'This endpoint does not accept bot requests.');
});
