/** Channel folders: create, list, reorder, update/archive; channel_folder events and state; folder_id on channels. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account, type Client } from './helpers.ts';
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

test('folders: create, list, update, reorder with events to everyone and register state', async () => {
  const q = await openQueue(M, { event_types: ['channel_folder'] });
  const r = assertSuccess(await A.post('/channel_folders/create', { name: 'Frontend', description: 'Channels for **frontend**' }));
  const f1 = r.channel_folder_id as number;
  const f2 = assertSuccess(await A.post('/channel_folders/create', { name: 'Backend', description: '' })).channel_folder_id as number;

  const list = assertSuccess(await M.get('/channel_folders')).channel_folders as any[];
  assert.equal(list.length, 2);
  const first = list[0];
  assert.deepEqual({ ...first, date_created: 0 }, {
    id: f1,
    name: 'Frontend',
    description: 'Channels for **frontend**',
    rendered_description: '<p>Channels for <strong>frontend</strong></p>',
    order: f1,
    date_created: 0,
    creator_id: admin.id,
    is_archived: false,
  });
  assert.ok(Number.isInteger(first.date_created) && first.date_created > 1_600_000_000);

  let evs = await q.drain();
  assert.deepEqual(evs.map((e) => [e.op, e.channel_folder.id]), [['add', f1], ['add', f2]]);
  assert.deepEqual(evs[0].channel_folder, first);

  assertSuccess(await A.patch(`/channel_folders/${f2}`, { name: 'Server', description: 'APIs' }));
  evs = await q.drain();
  assert.deepEqual(evs.map(({ id: _id, ...e }) => e), [
    { type: 'channel_folder', op: 'update', channel_folder_id: f2, data: { name: 'Server' } },
    { type: 'channel_folder', op: 'update', channel_folder_id: f2, data: { description: 'APIs', rendered_description: '<p>APIs</p>' } },
  ]);

  assertSuccess(await A.patch('/channel_folders', { order: [f2, f1] }));
  evs = await q.drain();
  assert.deepEqual(evs.map(({ id: _id, ...e }) => e), [{ type: 'channel_folder', op: 'reorder', order: [f2, f1] }]);
  const ordered = assertSuccess(await M.get('/channel_folders')).channel_folders as any[];
  assert.deepEqual(ordered.map((f) => [f.id, f.order]), [[f2, 0], [f1, 1]]);

  const reg = assertSuccess(await M.post('/register', { fetch_event_types: ['channel_folders', 'realm'] }));
  assert.deepEqual(reg.channel_folders, ordered);
  assert.equal(reg.max_channel_folder_name_length, 60);
  assert.equal(reg.max_channel_folder_description_length, 1024);
});

test('folders: permissions and errors', async () => {
  assertError(await M.post('/channel_folders/create', { name: 'X', description: '' }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  assertError(await M.patch('/channel_folders', { order: [] }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  assertError(await A.post('/channel_folders/create', { name: ' ', description: '' }), 400, 'BAD_REQUEST', "Channel folder name can't be empty.");
  assertError(await A.post('/channel_folders/create', { name: 'fronTEND', description: '' }), 400, 'BAD_REQUEST', 'Channel folder name already in use');
  assertError(await A.post('/channel_folders/create', { name: 'a\u0001b', description: '' }), 400, 'BAD_REQUEST', 'Invalid character in channel folder name, at position 2.');
  assertError(await A.post('/channel_folders/create', { name: 'x'.repeat(61), description: '' }), 400, 'BAD_REQUEST', 'name is too long (limit: 60 characters)');
  assertError(await A.post('/channel_folders/create', { name: 'ok' }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'description' argument");
  assertError(await A.patch('/channel_folders/99999', { name: 'Z' }), 400, 'BAD_REQUEST', 'Invalid channel folder ID');
  assertError(await A.patch('/channel_folders', { order: [] }), 400, 'BAD_REQUEST', 'Invalid order mapping.');
});

test('folder_id on channels: create, update, archiving a folder in use', async () => {
  const folder = assertSuccess(await A.post('/channel_folders/create', { name: 'Design', description: '' })).channel_folder_id as number;
  assertError(await A.post('/channels/create', { name: 'nofolder', subscribers: [admin.id], folder_id: 99999 }), 400, 'BAD_REQUEST', 'Invalid channel folder ID');
  const created = await A.post('/channels/create', { name: 'mockups', subscribers: [admin.id, member.id], folder_id: folder });
  const streamId = assertSuccess(created).id as number;
  const streams = assertSuccess(await M.get('/streams')).streams as any[];
  assert.equal(streams.find((s) => s.stream_id === streamId).folder_id, folder);
  const subs = assertSuccess(await M.get('/users/me/subscriptions')).subscriptions as any[];
  assert.equal(subs.find((s) => s.stream_id === streamId).folder_id, folder);

  assertError(await A.patch(`/channel_folders/${folder}`, { is_archived: true }), 400, 'BAD_REQUEST', 'You need to remove all the channels from this folder to archive it.');
  const q = await openQueue(M, { event_types: ['stream', 'channel_folder'] });
  assertError(await A.patch(`/streams/${streamId}`, { folder_id: 99999 }), 400, 'BAD_REQUEST', 'Invalid channel folder ID');
  assertSuccess(await A.patch(`/streams/${streamId}`, { folder_id: null }));
  assertSuccess(await A.patch(`/channel_folders/${folder}`, { is_archived: true }));
  const evs = await q.drain();
  const upd = evs.find((e) => e.type === 'stream' && e.op === 'update');
  assert.deepEqual([upd.property, upd.value, upd.stream_id], ['folder_id', null, streamId]);
  assert.deepEqual(evs.find((e) => e.type === 'channel_folder').data, { is_archived: true });

  const active = assertSuccess(await M.get('/channel_folders')).channel_folders as any[];
  assert.ok(!active.some((f) => f.id === folder));
  const all = assertSuccess(await M.get('/channel_folders', { include_archived: true })).channel_folders as any[];
  assert.equal(all.find((f) => f.id === folder).is_archived, true);
  assertSuccess(await A.patch(`/streams/${streamId}`, { folder_id: folder }));
  assert.equal((assertSuccess(await M.get(`/streams/${streamId}`)).stream as any).folder_id, folder);
  assertSchema(await M.get(`/streams/${streamId}`), 'GET', '/streams/{stream_id}');
});
