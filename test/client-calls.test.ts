/**
 * Every call the mobile app (zulip-flutter) and the terminal app
 * (zulip-terminal) were seen to fail on, replayed as those apps send them
 * (paths, parameter names and encodings taken from their sources: strings
 * raw, integers as JSON), in the order a new user meets them. Each must
 * succeed and answer the keys the app reads. Push registration answers that
 * no push service is configured, which is what the app expects from such a
 * server.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startTestServer, assertError, assertSchema, assertSuccess, FLUTTER_REGISTER, type TestServer, type Account, streamIdOf } from './helpers.ts';
import { setRealmSetting } from './messages-fixtures.ts';

let t: TestServer;
let alice: Account, bob: Account;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
});
after(() => t.close());

test('zulip-terminal: the topic list of channel 1 and a channel\'s email address', async () => {
  const c = t.client(alice);
  // A fresh organization's first channel is "general", with ID 1, as in the report.
  assert.equal(await streamIdOf(c, 'general'), 1);
  const sent = assertSuccess(await c.post('/messages', { type: 'stream', to: 'general', topic: 'hello', content: 'first' })).id;
  const topics = await c.get('/users/me/1/topics');
  assertSchema(topics, 'GET', '/users/me/{stream_id}/topics');
  assert.deepEqual(assertSuccess(topics).topics, [{ name: 'hello', max_id: sent }]);
  const email = await c.get('/streams/1/email_address');
  assertSchema(email, 'GET', '/streams/{stream_id}/email_address');
  assert.equal(typeof assertSuccess(email).email, 'string');
});

test('zulip-flutter: the event queue registration as the app sends it lives 12 hours, and its edits carry the content hash', async () => {
  const c = t.client(alice);
  // lib/api/route/events.dart: registerQueue(idleQueueTimeout: .mobile).
  const reg = assertSuccess(await c.post('/register', FLUTTER_REGISTER));
  assert.equal(reg.ignored_parameters_unsupported, undefined);
  assert.equal(reg.idle_queue_timeout_secs, 12 * 3600);
  // lib/model/message.dart: an edit sends the SHA-256 of the raw content it started from.
  const id = assertSuccess(await c.post('/messages', { type: 'stream', to: 'general', topic: 'app edits', content: 'typo here' })).id;
  const raw = assertSuccess(await c.get(`/messages/${id}`, { apply_markdown: false })).message.content as string;
  const hash = createHash('sha256').update(raw).digest('hex');
  const edited = await c.patch(`/messages/${id}`, { content: 'no typo here', prev_content_sha256: hash });
  assertSuccess(edited);
  assert.equal(edited.body.ignored_parameters_unsupported, undefined);
  assertError(await c.patch(`/messages/${id}`, { content: 'late edit', prev_content_sha256: hash }), 400, 'EXPECTATION_MISMATCH');
});

test('zulip-flutter: topics, saved snippets, submessages and message reports', async () => {
  const c = t.client(alice);
  const topics = assertSuccess(await c.get('/users/me/1/topics')).topics as Array<{ name: string; max_id: number }>;
  assert.ok(topics.every((x) => typeof x.name === 'string' && Number.isInteger(x.max_id)));

  // createSavedSnippet: title and content raw; the app reads saved_snippet_id.
  const snippet = assertSuccess(await c.post('/saved_snippets', { title: 'Greeting', content: 'Hello!' }));
  assert.ok(Number.isInteger(snippet.saved_snippet_id));
  const list = assertSuccess(await c.get('/saved_snippets')).saved_snippets as Array<Record<string, unknown>>;
  assert.deepEqual(Object.keys(list[0]).sort(), ['content', 'date_created', 'id', 'title']);

  // sendSubmessage: message_id as JSON, msg_type "widget" raw, content a raw JSON text.
  const poll = assertSuccess(await c.post('/messages', { type: 'stream', to: 'general', topic: 'lunch', content: '/poll Pizza?\nYes\nNo' })).id;
  assertSuccess(await t.client(bob).post('/submessage', { message_id: poll, msg_type: 'widget', content: JSON.stringify({ type: 'vote', key: 'canned,0', vote: 1 }) }));
  const fetched = assertSuccess(await c.get(`/messages/${poll}`)).message;
  assert.equal(fetched.submessages.length, 2);

  // reportMessage: report_type and description raw; needs the moderation request channel.
  const moderation = assertSuccess(await t.client(t.owner).post('/channels/create', { name: 'moderation', subscribers: JSON.stringify([t.owner.id]), invite_only: true })).id;
  await setRealmSetting(t, 'moderation_request_channel_id', moderation);
  assertSuccess(await t.client(bob).post(`/messages/${poll}/report`, { report_type: 'spam', description: 'Not a real poll.' }));
  assertSuccess(await t.client(bob).post(`/messages/${poll}/report`, { report_type: 'harassment' }));
});

test('zulip-flutter: client device registration, E2EE push registration, legacy FCM/APNs tokens', async () => {
  const c = t.client(alice);
  const device = assertSuccess(await c.post('/register_client_device', {}));
  assert.ok(Number.isInteger(device.device_id));
  // registerPushDevice with both field groups, as the app sends it.
  assertError(
    await c.post('/mobile_push/register', {
      device_id: device.device_id,
      push_key_id: 2408,
      push_key: 'MTaUDJDMWypQ1WufZ1NRTHSSvgYtXh1qVNSjN3aBiEFt',
      token_kind: 'fcm',
      token_id: 'hGsEWGmyyfI=',
      bouncer_public_key: 'bouncer-public-key',
      encrypted_push_registration: 'encrypted-push-registration-data',
    }),
    400,
    'PUSH_SERVICE_NOT_CONFIGURED',
    'Server is not configured to use push notification service.',
  );
  assertSuccess(await c.post('/remove_client_device', { device_id: device.device_id }));

  assertSuccess(await c.post('/users/me/android_gcm_reg_id', { token: 'fcm-token-from-the-app' }));
  assertSuccess(await c.delete('/users/me/android_gcm_reg_id', { token: 'fcm-token-from-the-app' }));
  assertSuccess(await c.post('/users/me/apns_device_token', { token: 'c0ffee00', appid: 'org.zulip.Zulip' }));
  assertSuccess(await c.delete('/users/me/apns_device_token', { token: 'c0ffee00' }));
});
