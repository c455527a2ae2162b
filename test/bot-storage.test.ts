/** Bot storage: GET/PUT/DELETE /bot_storage with Zulip's errors. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, type TestServer, type Client } from './helpers.ts';

let t: TestServer;
let bot: Client, other: Client;
let botId: number;

before(async () => {
  t = await startTestServer();
  const b = await t.makeUser({ name: 'Storage bot', isBot: true, botType: 1, botOwnerId: t.owner.id });
  botId = b.id;
  bot = t.client(b);
  other = t.client(await t.makeUser({ name: 'Other bot', isBot: true, botType: 1, botOwnerId: t.owner.id }));
});
after(() => t.close());

test('bot storage: put, get some or all, remove, per bot', async () => {
  assertSuccess(await bot.put('/bot_storage', { storage: { a: '1', b: 'two', c: '' } }));
  assertSuccess(await bot.put('/bot_storage', { storage: { a: 'one' } }));
  assert.deepEqual(assertSuccess(await bot.get('/bot_storage')).storage, { a: 'one', b: 'two', c: '' });
  assert.deepEqual(assertSuccess(await bot.get('/bot_storage', { keys: ['b'] })).storage, { b: 'two' });
  assert.deepEqual(assertSuccess(await other.get('/bot_storage')).storage, {});
  assertError(await bot.get('/bot_storage', { keys: ['b', 'zzz'] }), 400, 'BAD_REQUEST', 'Key does not exist.');
  assertError(await bot.delete('/bot_storage', { keys: ['a', 'zzz'] }), 400, 'BAD_REQUEST', 'Key does not exist.');
  assertSuccess(await bot.delete('/bot_storage', { keys: ['a'] }));
  assert.deepEqual(assertSuccess(await bot.get('/bot_storage')).storage, { b: 'two', c: '' });
  assertSuccess(await bot.delete('/bot_storage'));
  assert.deepEqual(assertSuccess(await bot.get('/bot_storage')).storage, {});
});

test('bot storage: value types and the size limit', async () => {
  assertError(await bot.put('/bot_storage', { storage: { a: 1 } }), 400, 'BAD_REQUEST', 'storage["a"] is not a string');
  assertError(await bot.put('/bot_storage', { storage: ['a'] }), 400, 'BAD_REQUEST', 'storage is not a dict');
  assertError(await bot.put('/bot_storage', {}), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'storage' argument");
  // Nearly full storage (written directly: a request that large exceeds the body limit).
  await t.server.svc.store.db.insertInto('bot_storage').values({ user_id: botId, key: 'big', value: 'x'.repeat(9_999_990) }).execute();
  assertError(await bot.put('/bot_storage', { storage: { k: '1234567890ab' } }), 400, 'BAD_REQUEST', 'Request exceeds storage limit by 6 characters. The limit is 10000000 characters.');
  assertSuccess(await bot.put('/bot_storage', { storage: { k: '1234' } }));
  assert.deepEqual(Object.keys(assertSuccess(await bot.get('/bot_storage')).storage), ['big', 'k']);
});
