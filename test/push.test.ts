/** POST /mobile_push/register: Zulip's parameter checks, then PUSH_SERVICE_NOT_CONFIGURED; push reported disabled. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, type TestServer, type Account } from './helpers.ts';
import { checkPushKey, checkRegistrationFields, checkTokenId } from '../src/actions/push.ts';

let t: TestServer;
let alice: Account;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
});
after(() => t.close());

const PUSH_KEY = 'MTaUDJDMWypQ1WufZ1NRTHSSvgYtXh1qVNSjN3aBiEFt';
const full = {
  device_id: 7,
  token_kind: 'fcm',
  push_key: PUSH_KEY,
  push_key_id: 2408,
  bouncer_public_key: 'bouncer-public-key',
  encrypted_push_registration: 'encrypted-push-registration-data',
  token_id: 'hGsEWGmyyfI=',
};
const NOT_CONFIGURED = 'Server is not configured to use push notification service.';

test('valid registrations and rotations: PUSH_SERVICE_NOT_CONFIGURED', async () => {
  const c = t.client(alice);
  assertError(await c.post('/mobile_push/register', full), 400, 'PUSH_SERVICE_NOT_CONFIGURED', NOT_CONFIGURED);
  assertError(await c.post('/mobile_push/register', { device_id: 7, push_key: PUSH_KEY, push_key_id: 1144 }), 400, 'PUSH_SERVICE_NOT_CONFIGURED', NOT_CONFIGURED);
  const { push_key: _k, push_key_id: _i, ...tokenOnly } = full;
  assertError(await c.post('/mobile_push/register', tokenOnly), 400, 'PUSH_SERVICE_NOT_CONFIGURED', NOT_CONFIGURED);
  // Zulip checks the configuration before which field groups were sent.
  assertError(await c.post('/mobile_push/register', { device_id: 7 }), 400, 'PUSH_SERVICE_NOT_CONFIGURED', NOT_CONFIGURED);
});

test('parameter errors come first, in Zulip\'s order and wording', async () => {
  const c = t.client(alice);
  const { device_id: _d, ...noDevice } = full;
  assertError(await c.post('/mobile_push/register', noDevice), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'device_id' argument");
  assertError(await c.post('/mobile_push/register', { ...full, device_id: 'abc' }), 400, 'BAD_REQUEST', 'device_id is not valid JSON');
  assertError(await c.post('/mobile_push/register', { ...full, device_id: 1.5 }), 400, 'BAD_REQUEST', 'device_id is not an integer');
  assertError(await c.post('/mobile_push/register', { ...full, token_kind: 'gcm' }), 400, 'BAD_REQUEST', 'Invalid token_kind');
  const u32 = 'Invalid push_key_id: Value error, Not a valid unsigned 32-bit integer';
  assertError(await c.post('/mobile_push/register', { ...full, push_key_id: -1 }), 400, 'BAD_REQUEST', u32);
  assertError(await c.post('/mobile_push/register', { ...full, push_key_id: 4294967296 }), 400, 'BAD_REQUEST', u32);
  assertError(await c.post('/mobile_push/register', { ...full, push_key_id: '"x"' }), 400, 'BAD_REQUEST', 'push_key_id is not an integer');
  // 2^32 - 1 is fine.
  assertError(await c.post('/mobile_push/register', { ...full, push_key_id: 4294967295 }), 400, 'PUSH_SERVICE_NOT_CONFIGURED', NOT_CONFIGURED);
});

test('Zulip\'s order: parameter types, then the push service, then the device (registered, another user\'s or unknown)', async () => {
  const c = t.client(alice);
  const bob = await t.makeUser({ name: 'Bob' });
  const mine = assertSuccess(await c.post('/register_client_device', {})).device_id as number;
  const theirs = assertSuccess(await t.client(bob).post('/register_client_device', {})).device_id as number;
  // Zulip's register_push_device: typed parameters first, then PushServiceNotConfiguredError,
  // and only then check_device_id ("Invalid `device_id`") and the field groups.
  for (const device_id of [mine, theirs, 999999]) {
    assertError(await c.post('/mobile_push/register', { ...full, device_id }), 400, 'PUSH_SERVICE_NOT_CONFIGURED', NOT_CONFIGURED);
    assertError(await c.post('/mobile_push/register', { device_id }), 400, 'PUSH_SERVICE_NOT_CONFIGURED', NOT_CONFIGURED);
  }
  assertError(await c.post('/mobile_push/register', { token_kind: 'fcm' }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'device_id' argument");
  assertError(await c.post('/mobile_push/register', { device_id: mine, token_kind: 'gcm' }), 400, 'BAD_REQUEST', 'Invalid token_kind');
});

test('bots are refused before anything else', async () => {
  const bot = await t.makeUser({ name: 'Pushbot', isBot: true, botOwnerId: alice.id, botType: 1 });
  assertError(await t.client(bot).post('/mobile_push/register', {}), 400, 'BAD_REQUEST', 'This endpoint does not accept bot requests.');
});

test('/register and /server_settings say push notifications are disabled', async () => {
  const s = assertSuccess(await t.client(null).get('/server_settings'));
  assert.equal(s.push_notifications_enabled, false);
  const r = assertSuccess(await t.client(alice).post('/register', { fetch_event_types: ['realm'] }));
  assert.equal(r.realm_push_notifications_enabled, false);
  assert.equal(r.realm_push_notifications_enabled_end_timestamp, null);
});

test('checks kept for a configured server: field groups, push_key and token_id encodings', () => {
  assert.equal(checkPushKey(PUSH_KEY).length, 33);
  assert.throws(() => checkPushKey('@abcdefg'), { message: 'Invalid `push_key`' });
  assert.throws(() => checkPushKey('abcd'), { message: 'Invalid `push_key`' });
  const wrongPrefix = Buffer.from(PUSH_KEY, 'base64');
  wrongPrefix[0] = 0x32;
  assert.throws(() => checkPushKey(wrongPrefix.toString('base64')), { message: 'Invalid `push_key`' });
  assert.equal(checkTokenId('hGsEWGmyyfI=').length, 8);
  assert.throws(() => checkTokenId('@abcdefg'), { message: '`token_id` is not Base64 encoded' });
  const str = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, String(v)]));
  assert.equal(checkRegistrationFields(str(full)), 'register');
  assert.equal(checkRegistrationFields(str({ push_key: PUSH_KEY, push_key_id: 1 })), 'rotate_key');
  const { push_key: _k, push_key_id: _i, ...tokenOnly } = full;
  assert.equal(checkRegistrationFields(str(tokenOnly)), 'rotate_token');
  const { push_key_id: _j, token_id: _t, ...neither } = full;
  assert.throws(() => checkRegistrationFields(str(neither)), { message: 'Missing parameters: must provide either all push key fields, all token fields, or both.' });
});
