/** Navigation views: GET/POST /navigation_views, PATCH/DELETE /navigation_views/{fragment}, navigation_view events and state. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, openQueue, type TestServer, type Client } from './helpers.ts';

let t: TestServer;
let A: Client, B: Client;

before(async () => {
  t = await startTestServer();
  A = t.client(await t.makeUser({ name: 'Alice' }));
  B = t.client(await t.makeUser({ name: 'Bob' }));
});
after(() => t.close());

const strip = ({ id: _id, ...e }: any) => e;

test('navigation views: add, update, remove with events to the user only and register state', async () => {
  const qa = await openQueue(A, { event_types: ['navigation_view'] });
  const qb = await openQueue(B, { event_types: ['navigation_view'] });
  assertSuccess(await A.post('/navigation_views', { fragment: 'narrow/is/starred', is_pinned: false }));
  assertSuccess(await A.post('/navigation_views', { fragment: ' narrow/channel/1-general ', is_pinned: true, name: ' General ' }));
  assert.deepEqual(assertSuccess(await A.get('/navigation_views')).navigation_views, [
    { fragment: 'narrow/is/starred', is_pinned: false, name: null },
    { fragment: 'narrow/channel/1-general', is_pinned: true, name: 'General' },
  ]);
  assert.deepEqual(assertSuccess(await B.get('/navigation_views')).navigation_views, []);

  assertSuccess(await A.patch(`/navigation_views/${encodeURIComponent('narrow/is/starred')}`, { is_pinned: true }));
  assertSuccess(await A.patch('/navigation_views/narrow/channel/1-general', { name: 'Main' }));
  assertSuccess(await A.delete('/navigation_views/narrow/is/starred'));
  assert.deepEqual((await qa.drain()).map(strip), [
    { type: 'navigation_view', op: 'add', navigation_view: { fragment: 'narrow/is/starred', is_pinned: false, name: null } },
    { type: 'navigation_view', op: 'add', navigation_view: { fragment: 'narrow/channel/1-general', is_pinned: true, name: 'General' } },
    { type: 'navigation_view', op: 'update', fragment: 'narrow/is/starred', data: { is_pinned: true } },
    { type: 'navigation_view', op: 'update', fragment: 'narrow/channel/1-general', data: { name: 'Main' } },
    { type: 'navigation_view', op: 'remove', fragment: 'narrow/is/starred' },
  ]);
  assert.deepEqual(await qb.drain(), []);
  const reg = assertSuccess(await A.post('/register', { fetch_event_types: ['navigation_views'] }));
  assert.deepEqual(reg.navigation_views, [{ fragment: 'narrow/channel/1-general', is_pinned: true, name: 'Main' }]);
});

test('navigation views: Zulip errors', async () => {
  assertError(await B.post('/navigation_views', { fragment: 'inbox', is_pinned: true, name: 'Mine' }), 400, 'BAD_REQUEST', 'Built-in views cannot have a custom name.');
  assertError(await B.post('/navigation_views', { fragment: 'narrow/is/dm', is_pinned: true }), 400, 'BAD_REQUEST', 'Custom views must have a valid name.');
  assertError(await B.post('/navigation_views', { fragment: '  ', is_pinned: true }), 400, 'BAD_REQUEST', 'fragment cannot be blank');
  assertError(await B.post('/navigation_views', { fragment: 'inbox' }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'is_pinned' argument");
  assertSuccess(await B.post('/navigation_views', { fragment: 'narrow/is/dm', is_pinned: true, name: 'DMs' }));
  assertError(await B.post('/navigation_views', { fragment: 'narrow/is/dm', is_pinned: false, name: 'Other' }), 400, 'BAD_REQUEST', 'Navigation view already exists.');
  assertError(await B.post('/navigation_views', { fragment: 'narrow/is/unread', is_pinned: false, name: 'DMs' }), 400, 'BAD_REQUEST', 'Navigation view already exists.');
  assertError(await B.patch('/navigation_views/recent', { name: 'R' }), 400, 'BAD_REQUEST', 'Built-in views cannot have a custom name.');
  assertError(await B.patch('/navigation_views/narrow/is/nothing', { is_pinned: true }), 404, 'BAD_REQUEST', 'Navigation view does not exist.');
  assertError(await B.delete('/navigation_views/narrow/is/nothing'), 404, 'BAD_REQUEST', 'Navigation view does not exist.');
});
