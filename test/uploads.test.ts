/** POST /user_uploads, serving /user_uploads/..., the temporary-URL API, GET/DELETE /attachments and attachment events. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account, type Client, type Res } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';
import { ROLE } from '../src/store/users.ts';

let t: TestServer;
let alice: Account, bob: Account, carol: Account, guest: Account;
let A: Client, B: Client, C: Client, G: Client;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  carol = await t.makeUser({ name: 'Carol' });
  guest = await t.makeUser({ name: 'Guest', role: ROLE.GUEST });
  [A, B, C, G] = [alice, bob, carol, guest].map((u) => t.client(u));
  await makeChannel(t, { name: 'pub', subscribers: [alice.id, bob.id] });
  await makeChannel(t, { name: 'priv', inviteOnly: true, subscribers: [alice.id, carol.id] });
});
after(() => t.close());

interface Part {
  field?: string;
  name: string;
  data: Buffer | string;
  type?: string;
}

const authHeader = (acc: Account | null) => (acc ? { Authorization: 'Basic ' + Buffer.from(`${acc.email}:${acc.apiKey}`).toString('base64') } : {});

/** POST /user_uploads with a real multipart body. */
async function upload(acc: Account, parts: Part[], fields: Record<string, string> = {}, base = t.url): Promise<Res> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const p of parts) form.append(p.field ?? 'file', new Blob([p.data], { type: p.type ?? '' }), p.name);
  const res = await fetch(`${base}/api/v1/user_uploads`, { method: 'POST', headers: authHeader(acc), body: form });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), headers: res.headers, text };
}

/** GET a non-API path (the file itself). */
async function download(acc: Account | null, path: string): Promise<{ status: number; headers: Headers; data: Buffer }> {
  const res = await fetch(`${t.url}${path}`, { headers: authHeader(acc) });
  return { status: res.status, headers: res.headers, data: Buffer.from(await res.arrayBuffer()) };
}

/** The FL 247 schema knows only `uri`; `url` (FL 272) and `filename` (FL 285) are checked separately. */
function assertUploadSchema(res: Res): void {
  const { url: _u, filename: _f, ...older } = res.body;
  assertSchema({ ...res, body: older }, 'POST', '/user_uploads');
}

function assertEventSchema(event: unknown): void {
  const res: Res = { status: 200, body: { result: 'success', msg: '', queue_id: 'q', events: [event] }, headers: new Headers(), text: '' };
  assertSchema(res, 'GET', '/events');
}

const send = async (c: Client, params: Record<string, unknown>) => assertSuccess(await c.post('/messages', params)).id as number;

test('upload: response shape, stored path, bytes served back, attachment add event, GET /attachments', async () => {
  const q = await openQueue(A, { event_types: ['attachment'] });
  const qb = await openQueue(B, { event_types: ['attachment'] });
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 3, 255]);
  const res = await upload(alice, [{ name: 'pixel image.png', data: png, type: 'image/png' }]);
  const body = assertSuccess(res);
  assertUploadSchema(res);
  const realm = t.server.svc.realmId;
  assert.match(body.url, new RegExp(`^/user_uploads/${realm}/[0-9a-f]{1,2}/[A-Za-z0-9_-]{24}/pixel-image\\.png$`));
  assert.equal(body.uri, body.url);
  assert.equal(body.filename, 'pixel image.png');

  const got = await download(alice, body.url);
  assert.equal(got.status, 200);
  assert.deepEqual(got.data, png);
  assert.equal(got.headers.get('content-type'), 'image/png');
  assert.equal(got.headers.get('content-disposition'), 'inline; filename="pixel-image.png"');

  const events = await q.ofType('attachment');
  assert.equal(events.length, 1);
  const ev = events[0];
  assert.equal(ev.op, 'add');
  assert.deepEqual({ ...ev.attachment, id: 0, create_time: 0 }, { id: 0, name: 'pixel image.png', path_id: body.url.slice('/user_uploads/'.length), size: png.length, create_time: 0, message_ids: [] });
  // Seconds since the epoch (feature level 443; milliseconds before).
  assert.ok(Number.isInteger(ev.attachment.create_time));
  assert.ok(Math.abs(ev.attachment.create_time - Date.now() / 1000) < 60);
  assert.equal(typeof ev.upload_space_used, 'number');
  assert.ok(ev.upload_space_used >= png.length);
  assertEventSchema(ev);
  assert.deepEqual(await qb.ofType('attachment'), []);

  const list = await A.get('/attachments');
  const lb = assertSuccess(list);
  assertSchema(list, 'GET', '/attachments');
  const mine = lb.attachments.find((a: any) => a.id === ev.attachment.id);
  assert.deepEqual(mine, ev.attachment);
  assert.equal(lb.upload_space_used, ev.upload_space_used);
  assert.equal(assertSuccess(await B.get('/attachments')).attachments.length, 0);
});

test('non-inline types are served as downloads; /user_uploads/download forces a download; names are sanitized', async () => {
  const r = assertSuccess(await upload(alice, [{ name: 'notes (draft) #1.txt', data: 'hello\nworld', type: 'text/plain' }]));
  assert.match(r.url, /\/notes-draft-1\.txt$/);
  assert.equal(r.filename, 'notes (draft) #1.txt');
  const got = await download(alice, r.url);
  assert.equal(got.status, 200);
  assert.equal(got.data.toString(), 'hello\nworld');
  assert.equal(got.headers.get('content-type'), 'text/plain');
  // Plain text and audio show in the browser, as in Zulip; a document is a download.
  assert.equal(got.headers.get('content-disposition'), 'inline; filename="notes-draft-1.txt"');
  const audio = assertSuccess(await upload(alice, [{ name: 'memo.mp3', data: 'ID3', type: 'audio/mpeg' }]));
  assert.equal((await download(alice, audio.url)).headers.get('content-disposition'), 'inline; filename="memo.mp3"');
  const doc = assertSuccess(await upload(alice, [{ name: 'plan.docx', data: 'PK' }]));
  const gotDoc = await download(alice, doc.url);
  assert.equal(gotDoc.headers.get('content-type'), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
  assert.equal(gotDoc.headers.get('content-disposition'), 'attachment; filename="plan.docx"');

  const png = assertSuccess(await upload(alice, [{ name: 'a.png', data: 'x', type: 'image/png' }]));
  const forced = await download(alice, png.url.replace('/user_uploads/', '/user_uploads/download/'));
  assert.equal(forced.status, 200);
  assert.equal(forced.headers.get('content-disposition'), 'attachment; filename="a.png"');

  const uni = assertSuccess(await upload(alice, [{ name: 'résumé été.pdf', data: '%PDF', type: 'application/pdf' }]));
  assert.match(uni.url, /\/résumé-été\.pdf$/);
  const gotUni = await download(alice, encodeURI(uni.url));
  assert.equal(gotUni.status, 200);
  assert.equal(gotUni.headers.get('content-disposition'), `inline; filename*=utf-8''${encodeURIComponent('résumé-été.pdf')}`);

  const odd = assertSuccess(await upload(alice, [{ name: '???', data: 'x' }]));
  assert.match(odd.url, /\/uploaded-file$/);
  assert.equal(odd.filename, '???');

  // No type from the client: guessed from the name.
  const guessed = assertSuccess(await upload(alice, [{ name: 'photo.JPG', data: 'x' }]));
  assert.equal((await download(alice, guessed.url)).headers.get('content-type'), 'image/jpeg');
});

test('upload errors: no file, more than one file, empty file name, unauthenticated', async () => {
  assertError(await upload(alice, [], { note: 'x' }), 400, 'BAD_REQUEST', 'You must specify a file to upload');
  assertError(await A.post('/user_uploads', {}), 400, 'BAD_REQUEST', 'You must specify a file to upload');
  assertError(
    await upload(alice, [{ name: 'a.txt', data: 'a' }, { field: 'other', name: 'b.txt', data: 'b' }]),
    400,
    'BAD_REQUEST',
    'You may only upload one file at a time',
  );
  assertError(await upload(alice, [{ name: '', data: 'a' }]), 400, 'BAD_REQUEST', 'You must specify a file to upload');
  const anon = await fetch(`${t.url}/api/v1/user_uploads`, { method: 'POST', body: new FormData() });
  assert.equal(anon.status, 401);
});

test('too large: JSON 400 with the configured limit, consistent with max_file_upload_size_mib', async () => {
  const small = await startTestServer({ MAX_FILE_UPLOAD_SIZE_MIB: '1' });
  try {
    const owner = small.owner;
    const reg = assertSuccess(await small.client(owner).post('/register', { fetch_event_types: JSON.stringify(['realm']) }));
    assert.equal(reg.max_file_upload_size_mib, 1);
    for (const size of [1024 * 1024 + 1, 3 * 1024 * 1024]) {
      const res = await upload(owner, [{ name: 'big.bin', data: Buffer.alloc(size, 7) }], {}, small.url);
      assertError(res, 400, 'BAD_REQUEST', "File is larger than this server's configured maximum upload size (1 MiB).");
    }
    const ok = await upload(owner, [{ name: 'fits.bin', data: Buffer.alloc(1024 * 1024, 7) }], {}, small.url);
    assertSuccess(ok);
    assert.deepEqual(assertSuccess(await small.client(owner).get('/attachments')).attachments.map((a: any) => a.name), ['fits.bin']);
  } finally {
    await small.close();
  }
});

test('access: uploader only, then recipients of a private-channel message, then everyone (not guests) after a public post', async () => {
  const q = await openQueue(A, { event_types: ['attachment'] });
  const r = assertSuccess(await upload(alice, [{ name: 'secret.txt', data: 'top secret', type: 'text/plain' }]));
  await q.drain();
  const path = r.url as string;

  for (const acc of [bob, carol, guest]) {
    const got = await download(acc, path);
    assert.equal(got.status, 403);
    assert.equal(got.data.toString(), '<p>You are not authorized to view this file.</p>');
  }
  const anon = await download(null, path);
  assert.equal(anon.status, 401);
  assert.equal((await download(alice, path)).data.toString(), 'top secret');

  // Bob links it without having access: nothing is claimed.
  await send(B, { type: 'stream', to: 'pub', topic: 't', content: `see [secret.txt](${path})` });
  assert.equal((await download(bob, path)).status, 403);
  assert.deepEqual(await q.ofType('attachment'), []);

  // Private channel: its subscribers may read it, others may not.
  const m1 = await send(A, { type: 'stream', to: 'priv', topic: 't', content: `[secret.txt](${path})` });
  assert.equal((await download(carol, path)).data.toString(), 'top secret');
  assert.equal((await download(bob, path)).status, 403);
  assert.equal((await download(guest, path)).status, 403);
  const ev = await q.ofType('attachment');
  assert.equal(ev.length, 1);
  assert.equal(ev[0].op, 'update');
  // A flat list of message IDs (feature level 472; objects with id and date_sent before).
  assert.deepEqual(ev[0].attachment.message_ids, [m1]);
  assert.equal(ev[0].attachment.messages, undefined);
  assertEventSchema(ev[0]);

  // Direct message to the guest: recipients may read it.
  await send(A, { type: 'direct', to: JSON.stringify([guest.id]), content: `${t.url}${path}` });
  assert.equal((await download(guest, path)).status, 200);
  assert.equal((await download(bob, path)).status, 403);
  const evDm = await q.ofType('attachment');
  assert.deepEqual(evDm.map((e) => [e.op, e.attachment.message_ids.length]), [['update', 2]]);

  // Carol (who can read it) shares it in a public channel: every member may read it; the owner gets the update.
  const qc = await openQueue(C, { event_types: ['attachment'] });
  const m3 = await send(C, { type: 'stream', to: 'pub', topic: 't', content: `again [x](${path})` });
  assert.equal((await download(bob, path)).data.toString(), 'top secret');
  const ev2 = await q.ofType('attachment');
  assert.equal(ev2.length, 1);
  assert.equal(ev2[0].attachment.message_ids.length, 3);
  assert.equal(ev2[0].attachment.message_ids[2], m3);
  assert.deepEqual(await qc.ofType('attachment'), []);
  const listed = assertSuccess(await A.get('/attachments')).attachments.find((a: any) => a.path_id === path.slice(14));
  assert.deepEqual(listed.message_ids, ev2[0].attachment.message_ids);
});

test('unknown files are 404 for everyone', async () => {
  const realm = t.server.svc.realmId;
  for (const p of [`/user_uploads/${realm}/ab/nonexistent/x.txt`, `/user_uploads/${realm}/../../etc/passwd`]) {
    const got = await download(alice, p);
    assert.equal(got.status, 404);
  }
  const got = await download(alice, `/user_uploads/${realm}/ab/nonexistent/x.txt`);
  assert.equal(got.data.toString(), '<p>This file does not exist or has been deleted.</p>');
});

test('GET /api/v1/user_uploads/{realm_id_str}/{filename}: temporary URL that needs no authentication', async () => {
  const r = assertSuccess(await upload(alice, [{ name: 'report.txt', data: 'report body', type: 'text/plain' }]));
  const apiPath = r.url.replace('/user_uploads/', '/user_uploads/');
  const res = await A.get(apiPath);
  const body = assertSuccess(res);
  assertSchema(res, 'GET', '/user_uploads/{realm_id_str}/{filename}');
  assert.match(body.url, /^\/user_uploads\/temporary\/[0-9A-F]+\/report\.txt$/);
  const got = await download(null, body.url);
  assert.equal(got.status, 200);
  assert.equal(got.data.toString(), 'report body');

  const wrongName = await fetch(`${t.url}${body.url.replace(/report\.txt$/, 'other.txt')}`);
  assert.equal(wrongName.status, 400);
  assert.deepEqual(await wrongName.json(), { result: 'error', msg: 'Invalid filename', code: 'BAD_REQUEST' });
  const badToken = await fetch(`${t.url}/user_uploads/temporary/ABCD/report.txt`);
  assert.equal(badToken.status, 400);
  assert.deepEqual(await badToken.json(), { result: 'error', msg: 'Invalid token', code: 'BAD_REQUEST' });

  // Others may not get a URL; unknown files are 404; the API variant needs credentials.
  const forbidden = await fetch(`${t.url}/api/v1${r.url}`, { headers: authHeader(bob) });
  assert.equal(forbidden.status, 403);
  const missing = await fetch(`${t.url}/api/v1/user_uploads/${t.server.svc.realmId}/aa/none/x.txt`, { headers: authHeader(alice) });
  assert.equal(missing.status, 404);
  assertError(await t.client(null).get(apiPath), 401, 'UNAUTHORIZED', 'Missing authorization header for basic auth');
});

test('DELETE /attachments/{id}: owner only; file gone; remove event to the owner only', async () => {
  const r = assertSuccess(await upload(alice, [{ name: 'gone.txt', data: 'bye', type: 'text/plain' }]));
  const id = assertSuccess(await A.get('/attachments')).attachments.find((a: any) => a.path_id === r.url.slice(14)).id;
  const qa = await openQueue(A, { event_types: ['attachment'] });
  const qb = await openQueue(B, { event_types: ['attachment'] });
  assertError(await B.delete(`/attachments/${id}`), 400, 'BAD_REQUEST', 'Invalid attachment');
  assertError(await A.delete('/attachments/999999'), 400, 'BAD_REQUEST', 'Invalid attachment');
  const del = await A.delete(`/attachments/${id}`);
  assertSuccess(del);
  assertSchema(del, 'DELETE', '/attachments/{attachment_id}');
  const ev = await qa.ofType('attachment');
  assert.equal(ev.length, 1);
  assert.deepEqual({ ...ev[0], id: 0, upload_space_used: 0 }, { type: 'attachment', op: 'remove', attachment: { id }, upload_space_used: 0, id: 0 });
  assertEventSchema(ev[0]);
  assert.deepEqual(await qb.ofType('attachment'), []);
  assert.equal((await download(alice, r.url)).status, 404);
  assert.ok(!assertSuccess(await A.get('/attachments')).attachments.some((a: any) => a.id === id));
  assertError(await A.delete(`/attachments/${id}`), 400, 'BAD_REQUEST', 'Invalid attachment');
});

test('PATCH /messages/{id}: links follow the new content; detached_uploads lists the editor\'s files no message references any more', async () => {
  const up = async (acc: Account, name: string) => assertSuccess(await upload(acc, [{ name, data: name, type: 'text/plain' }])).url as string;
  const [only, shared, added] = [await up(alice, 'only.txt'), await up(alice, 'shared.txt'), await up(alice, 'added.txt')];
  const carols = await up(carol, 'carols.txt');
  const link = (...paths: string[]) => paths.map((p) => `[f](${p})`).join(' ');
  // Carol shares her file in the private channel, Alice links it too, then Carol's message is deleted.
  const mc = await send(C, { type: 'stream', to: 'priv', topic: 't', content: link(carols) });
  const m1 = await send(A, { type: 'stream', to: 'pub', topic: 'edit', content: link(only, shared, carols) });
  const m2 = await send(A, { type: 'stream', to: 'pub', topic: 'edit', content: link(shared) });
  assertSuccess(await C.delete(`/messages/${mc}`));
  const byPath = async (c: Client) => new Map<string, any>(assertSuccess(await c.get('/attachments')).attachments.map((a: any) => [`/user_uploads/${a.path_id}`, a]));
  const before = await byPath(A);
  assert.deepEqual(before.get(only).message_ids, [m1]);
  assert.deepEqual(before.get(shared).message_ids, [m1, m2]);
  assert.deepEqual(before.get(added).message_ids, []);

  const qa = await openQueue(A, { event_types: ['attachment'] });
  const qc = await openQueue(C, { event_types: ['attachment'] });
  const qb = await openQueue(B, { event_types: ['attachment'] });
  const r = await A.patch(`/messages/${m1}`, { content: `now ${link(added)}` });
  assertSchema(r, 'PATCH', '/messages/{message_id}');
  // Only Alice's file that nothing references any more: not the one m2 still links, not Carol's.
  assert.deepEqual(assertSuccess(r).detached_uploads, [{ ...before.get(only), message_ids: [] }]);

  const after = await byPath(A);
  assert.deepEqual(after.get(only).message_ids, []);
  assert.deepEqual(after.get(shared).message_ids, [m2]);
  assert.deepEqual(after.get(added).message_ids, [m1]);
  assert.deepEqual((await byPath(C)).get(carols).message_ids, []);
  // Each owner hears of every file whose messages changed; nobody else does.
  const evs = await qa.ofType('attachment');
  assert.deepEqual(
    evs.map((e) => [e.op, e.attachment.path_id, e.attachment.message_ids]).sort(),
    [
      ['update', added.slice(14), [m1]],
      ['update', only.slice(14), []],
      ['update', shared.slice(14), [m2]],
    ].sort(),
  );
  for (const e of evs) assertEventSchema(e);
  assert.deepEqual((await qc.ofType('attachment')).map((e) => [e.op, e.attachment.path_id, e.attachment.message_ids]), [['update', carols.slice(14), []]]);
  assert.deepEqual(await qb.ofType('attachment'), []);

  // An edit that does not change the content detaches nothing.
  assert.deepEqual(assertSuccess(await A.patch(`/messages/${m2}`, { topic: 'moved' })).detached_uploads, []);
  assert.deepEqual(assertSuccess(await A.patch(`/messages/${m1}`, { content: `again ${link(added)}` })).detached_uploads, []);
});
