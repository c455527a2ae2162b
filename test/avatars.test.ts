/** Avatars (POST/DELETE /users/me/avatar) and the organization's icon and logo (POST/DELETE /realm/icon, /realm/logo): thumbnails, events, /register values. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { startTestServer, assertError, assertSuccess, openQueue, type TestServer, type Account, type Client, type Res } from './helpers.ts';
import { ROLE } from '../src/store/users.ts';

let t: TestServer;
let admin: Account, member: Account;
let A: Client, M: Client;

before(async () => {
  t = await startTestServer();
  admin = await t.makeUser({ name: 'Admin', role: ROLE.ADMINISTRATOR });
  member = await t.makeUser({ name: 'Member' });
  [A, M] = [admin, member].map((u) => t.client(u));
});
after(() => t.close());

const png = (w: number, h: number) => sharp({ create: { width: w, height: h, channels: 3, background: '#aa3300' } }).png().toBuffer();

async function send(c: Client, method: string, path: string, files: Array<{ data: Buffer; type: string }>, fields: Record<string, string> = {}): Promise<Res> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  files.forEach((f, i) => form.append(`f${i}`, new Blob([new Uint8Array(f.data)], { type: f.type }), `img${i}.png`));
  const res = await fetch(`${c.base}/api/v1${path}`, { method, headers: { Authorization: c.auth! }, body: form });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), headers: res.headers, text };
}

async function imageSize(url: string): Promise<[number, number]> {
  const res = await fetch(url.startsWith('http') ? url : t.url + url);
  assert.equal(res.status, 200, url);
  const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
  return [meta.width!, meta.height!];
}

test('avatar upload: square thumbnails, realm_user update to everyone, register and GET /users values; delete returns to Gravatar', async () => {
  const q = await openQueue(A, { event_types: ['realm_user'] });
  const r = await send(M, 'POST', '/users/me/avatar', [{ data: await png(300, 200), type: 'image/png' }]);
  // POST /users/me/avatar is newer than the feature-level-247 OpenAPI: its shape is checked here.
  assertSuccess(r);
  assert.deepEqual(Object.keys(r.body).sort(), ['avatar_url', 'msg', 'result']);
  const url = r.body.avatar_url as string;
  assert.match(url, /\/user_avatars\/\d+\/\d+\.png\?version=2$/);
  assert.deepEqual(await imageSize(url), [100, 100]);

  const ev = (await q.drain())[0];
  assert.deepEqual({ ...ev, id: 0 }, {
    id: 0,
    type: 'realm_user',
    op: 'update',
    person: { avatar_source: 'U', avatar_url: url, avatar_url_medium: url.replace('.png?', '-medium.png?'), avatar_version: 2, user_id: member.id },
  });
  assert.deepEqual(await imageSize(ev.person.avatar_url_medium), [500, 500]);
  const me = assertSuccess(await M.get('/users/me'));
  assert.equal(me.avatar_url, url);
  const reg = assertSuccess(await A.post('/register', { fetch_event_types: ['realm_user'], client_gravatar: true }));
  assert.equal(reg.realm_users.find((u: any) => u.user_id === member.id).avatar_url, url);

  const d = await M.delete('/users/me/avatar');
  assertSuccess(d);
  assert.deepEqual(Object.keys(d.body).sort(), ['avatar_url', 'msg', 'result']);
  assert.match(d.body.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=3$/);
  const ev2 = (await q.drain())[0];
  assert.equal(ev2.person.avatar_source, 'G');
  assert.equal(ev2.person.avatar_version, 3);
  assert.equal((await fetch(t.url + new URL(url).pathname)).status, 404);
});

test('avatar errors: file count, size, type, undecodable, avatar_changes_disabled (administrators exempt)', async () => {
  assertError(await send(M, 'POST', '/users/me/avatar', []), 400, 'BAD_REQUEST', 'You must upload exactly one avatar.');
  const img = { data: await png(10, 10), type: 'image/png' };
  assertError(await send(M, 'POST', '/users/me/avatar', [img, img]), 400, 'BAD_REQUEST', 'You must upload exactly one avatar.');
  assertError(await send(M, 'POST', '/users/me/avatar', [{ data: Buffer.from('x'), type: 'text/plain' }]), 400, 'BAD_IMAGE', 'Invalid image format');
  assertError(await send(M, 'POST', '/users/me/avatar', [{ data: Buffer.from('not an image'), type: 'image/png' }]), 400, 'BAD_IMAGE', 'Could not decode image; did you upload an image file?');
  assertError(await send(M, 'POST', '/users/me/avatar', [{ data: Buffer.alloc(5 * 1024 * 1024 + 1), type: 'image/png' }]), 400, 'BAD_REQUEST', 'Uploaded file is larger than the allowed limit of 5 MiB');

  const db = t.server.svc.store.db;
  const row = await db.selectFrom('realm').select('settings_json').where('id', '=', t.server.svc.realmId).executeTakeFirstOrThrow();
  const settings = JSON.parse(row.settings_json);
  await db.updateTable('realm').set({ settings_json: JSON.stringify({ ...settings, avatar_changes_disabled: true }) }).execute();
  assertError(await send(M, 'POST', '/users/me/avatar', [img]), 400, 'BAD_REQUEST', 'Avatar changes are disabled in this organization.');
  assertError(await M.delete('/users/me/avatar'), 400, 'BAD_REQUEST', 'Avatar changes are disabled in this organization.');
  assertSuccess(await send(A, 'POST', '/users/me/avatar', [img]));
  await db.updateTable('realm').set({ settings_json: row.settings_json }).execute();
});

test('organization icon and logos: administrators, thumbnails, realm update_dict events, register and server_settings', async () => {
  const img = { data: await png(400, 300), type: 'image/png' };
  assertError(await send(M, 'POST', '/realm/icon', [img]), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  assertError(await send(A, 'POST', '/realm/icon', []), 400, 'BAD_REQUEST', 'You must upload exactly one icon.');
  assertError(await send(A, 'POST', '/realm/logo', [], { night: 'false' }), 400, 'BAD_REQUEST', 'You must upload exactly one logo.');
  assertError(await M.delete('/realm/logo', { night: false }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');

  const q = await openQueue(M, { event_types: ['realm'] });
  const r = assertSuccess(await send(A, 'POST', '/realm/icon', [img]));
  assert.match(r.icon_url, /\/user_avatars\/\d+\/realm\/icon\.png\?version=2$/);
  assert.deepEqual(await imageSize(r.icon_url), [100, 100]);
  assertSuccess(await send(A, 'POST', '/realm/logo', [img], { night: 'false' }));
  assertSuccess(await send(A, 'POST', '/realm/logo', [{ data: await png(2000, 100), type: 'image/png' }], { night: 'true' }));

  const evs = (await q.drain()).map(({ id: _id, ...e }) => e);
  assert.deepEqual(evs.map((e) => [e.op, e.property, Object.keys(e.data).sort()]), [
    ['update_dict', 'icon', ['icon_source', 'icon_url']],
    ['update_dict', 'logo', ['logo_source', 'logo_url']],
    ['update_dict', 'night_logo', ['night_logo_source', 'night_logo_url']],
  ]);
  assert.deepEqual(evs[0].data, { icon_url: r.icon_url, icon_source: 'U' });
  const logoUrl = evs[1].data.logo_url as string;
  assert.deepEqual(await imageSize(logoUrl), [133, 100]);
  assert.deepEqual(await imageSize(evs[2].data.night_logo_url), [800, 40]);

  const reg = assertSuccess(await M.post('/register', { fetch_event_types: ['realm'] }));
  assert.equal(reg.realm_icon_url, r.icon_url);
  assert.equal(reg.realm_icon_source, 'U');
  assert.equal(reg.realm_logo_url, logoUrl);
  assert.equal(reg.realm_night_logo_source, 'U');
  assert.equal(assertSuccess(await M.get('/server_settings')).realm_icon, r.icon_url);

  const di = assertSuccess(await A.delete('/realm/icon'));
  assert.match(di.icon_url, /^https:\/\/secure\.gravatar\.com\/avatar\//);
  assertSuccess(await A.delete('/realm/logo', { night: true }));
  const evs2 = await q.drain();
  assert.deepEqual(evs2.map((e) => e.data), [
    { icon_url: di.icon_url, icon_source: 'G' },
    { night_logo_url: `${t.url}/static/images/logo/parley-logo.svg`, night_logo_source: 'D' },
  ]);
  const reg2 = assertSuccess(await M.post('/register', { fetch_event_types: ['realm'] }));
  assert.equal(reg2.realm_night_logo_source, 'D');
  assert.equal(reg2.realm_logo_url, logoUrl);
});
