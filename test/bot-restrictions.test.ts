/**
 * Bot-type restrictions as in Zulip: an incoming-webhook bot's API key only
 * sends messages (every other endpoint answers 401 "This API is not
 * available to incoming webhook bots."); generic bots act as themselves,
 * and endpoints for humans only refuse them.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess, startTestServer, type Account, type TestServer } from './helpers.ts';

let t: TestServer;
let webhook: Account;
let generic: Account;

before(async () => {
  t = await startTestServer();
  webhook = await t.makeUser({ isBot: true, botType: 2, botOwnerId: t.owner.id, name: 'Hook' });
  generic = await t.makeUser({ isBot: true, botType: 1, botOwnerId: t.owner.id, name: 'Helper' });
});
after(() => t.close());

const WEBHOOK_MSG = 'This API is not available to incoming webhook bots.';

test('incoming-webhook bots may send messages', async () => {
  const hook = t.client(webhook);
  const sent = assertSuccess(await hook.post('/messages', { type: 'direct', to: [t.owner.id], content: 'build passed' }));
  const got = assertSuccess(await t.client(t.owner).get(`/messages/${sent.id}`, { apply_markdown: false }));
  assert.equal(got.message.sender_id, webhook.id);
  assert.equal(got.message.content, 'build passed');
});

test('incoming-webhook bots are refused everything else, before any parameter check', async () => {
  const hook = t.client(webhook);
  const calls: Array<[string, string, Record<string, unknown>]> = [
    ['GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0 }],
    ['GET', '/users/me/subscriptions', {}],
    ['GET', '/users/me', {}],
    ['GET', '/users', {}],
    ['POST', '/messages/render', { content: 'x' }],
    ['POST', '/register', {}],
    ['POST', '/users/me/subscriptions', { subscriptions: [{ name: 'hooks' }] }],
    ['GET', '/messages', { anchor: 'bad value' }],
    ['GET', `/api/v1/user_uploads/${t.server.svc.realmId}/ab/cd/x.txt`.replace('/api/v1', ''), {}],
  ];
  for (const [method, path, params] of calls) {
    const res = await hook.request(method, path, params);
    assertError(res, 401, 'UNAUTHORIZED', WEBHOOK_MSG);
    assert.equal(res.headers.get('www-authenticate'), 'Basic realm="zulip"', path);
  }
});

test('generic bots work as themselves; human-only endpoints refuse them', async () => {
  const bot = t.client(generic);
  const me = assertSuccess(await bot.get('/users/me'));
  assert.equal(me.user_id, generic.id);
  assert.equal(me.is_bot, true);
  assertSuccess(await bot.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0 }));
  for (const path of ['/settings', '/settings/display', '/settings/notifications']) {
    assertError(await bot.patch(path, { full_name: 'Renamed' }), 400, 'BAD_REQUEST', 'This endpoint does not accept bot requests.');
  }
  assertError(await bot.post('/users/me/presence', { status: 'active' }), 400, 'BAD_REQUEST', 'This endpoint does not accept bot requests.');
  // Its key is its own: with another account's email it is not accepted.
  const other = t.client({ email: t.owner.email, apiKey: generic.apiKey });
  assertError(await other.get('/users/me'), 401, 'UNAUTHORIZED', 'Invalid API key');
  const after = assertSuccess(await t.client(t.owner).get(`/users/${generic.id}`));
  assert.equal(after.user.full_name, 'Helper');
});
