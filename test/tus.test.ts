/**
 * Resumable uploads at /api/v1/tus: a real tus client (tus-js-client) and
 * the protocol by hand — discovery, creation, resuming, termination, the
 * result of a finished upload (`{url, filename}`), the same authentication,
 * size limit and access rules as POST /user_uploads.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as tus from 'tus-js-client';
import sharp from 'sharp';
import { FileStore } from '@tus/file-store';
import { removeStale } from '../src/http/tus.ts';
import { startTestServer, assertSuccess, openQueue, type TestServer, type Account } from './helpers.ts';
import { WebClient } from './web-helpers.ts';

const PASSWORD = 'tus-password-123';
let t: TestServer;
let alice: Account, bob: Account;

before(async () => {
  t = await startTestServer({ MAX_FILE_UPLOAD_SIZE_MIB: '1' });
  alice = await t.makeUser({ name: 'Alice', password: PASSWORD });
  bob = await t.makeUser({ name: 'Bob' });
});
after(() => t.close());

const basic = (acc: Account) => 'Basic ' + Buffer.from(`${acc.email}:${acc.apiKey}`).toString('base64');
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/** A request to the last node (the only one unless TEST_CLUSTER is set): uploads resume on any node. */
async function raw(method: string, path: string, headers: Record<string, string> = {}, body?: Buffer | string, base = t.nodes[t.nodes.length - 1].url) {
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text };
}

/** Creates an upload by hand and returns its path. */
async function create(acc: Account, length: number, metadata = `filename ${b64('notes.txt')}`): Promise<string> {
  const res = await raw('POST', '/api/v1/tus', { Authorization: basic(acc), 'Tus-Resumable': '1.0.0', 'Upload-Length': String(length), 'Upload-Metadata': metadata }, undefined, t.url);
  assert.equal(res.status, 201, res.text);
  const location = res.headers.get('location')!;
  assert.match(location, /^\/api\/v1\/tus\/\d+-[0-9a-f]{32}$/);
  return location;
}

const patch = (acc: Account, path: string, offset: number, data: Buffer | string) =>
  raw('PATCH', path, { Authorization: basic(acc), 'Tus-Resumable': '1.0.0', 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' }, data);

async function download(acc: Account, url: string): Promise<{ status: number; type: string | null; data: Buffer }> {
  const res = await fetch(`${t.url}${url}`, { headers: { Authorization: basic(acc) } });
  return { status: res.status, type: res.headers.get('content-type'), data: Buffer.from(await res.arrayBuffer()) };
}

test('tus-js-client uploads a file in chunks; the last response gives the /user_uploads URL; attachment event', async () => {
  const q = await openQueue(t.client(alice), { event_types: ['attachment'] });
  const data = Buffer.alloc(300 * 1024);
  for (let i = 0; i < data.length; i++) data[i] = (i * 7) % 251;
  let patches = 0;
  const result = await new Promise<{ url: string; filename: string }>((resolve, reject) => {
    const upload = new tus.Upload(data, {
      endpoint: `${t.url}/api/v1/tus/`,
      headers: { Authorization: basic(alice) },
      chunkSize: 100 * 1024,
      retryDelays: [],
      metadata: { filename: 'big picture.png', filetype: 'image/png' },
      onAfterResponse: (req) => {
        if (req.getMethod() === 'PATCH') patches++;
      },
      onError: reject,
      onSuccess: ({ lastResponse }) => resolve(JSON.parse(lastResponse.getBody())),
    });
    upload.start();
  });
  assert.equal(patches, 3);
  assert.equal(result.filename, 'big picture.png');
  assert.match(result.url, new RegExp(`^/user_uploads/${t.server.svc.realmId}/[0-9a-f]{1,2}/[A-Za-z0-9_-]{24}/big-picture\\.png$`));
  const got = await download(alice, result.url);
  assert.equal(got.status, 200);
  assert.equal(got.type, 'image/png');
  assert.ok(got.data.equals(data));

  const [ev] = await q.ofType('attachment');
  assert.equal(ev.op, 'add');
  assert.deepEqual({ ...ev.attachment, id: 0, create_time: 0 }, { id: 0, name: 'big picture.png', path_id: result.url.slice('/user_uploads/'.length), size: data.length, create_time: 0, message_ids: [] });
  const list = assertSuccess(await t.client(alice).get('/attachments'));
  assert.ok(list.attachments.some((a: any) => a.path_id === ev.attachment.path_id));
  // Nobody else can read it until it is shared, as with POST /user_uploads.
  assert.equal((await download(bob, result.url)).status, 403);
  // The partial upload is gone once it became an attachment.
  assert.deepEqual(readdirSync(join(t.server.svc.config.dataDir, 'tus')), []);
});

test('discovery: OPTIONS answers the version, extensions and the upload limit without authentication', async () => {
  const res = await raw('OPTIONS', '/api/v1/tus');
  assert.equal(res.status, 204);
  assert.equal(res.headers.get('tus-version'), '1.0.0');
  assert.deepEqual(res.headers.get('tus-extension')!.split(','), ['creation', 'creation-with-upload', 'creation-defer-length', 'termination']);
  assert.equal(res.headers.get('tus-max-size'), String(1024 * 1024));
});

test('resuming by hand: HEAD tells the offset, a wrong offset is a conflict, the final PATCH answers 200 with the URL', async () => {
  const path = await create(alice, 10);
  assert.equal((await patch(alice, path, 0, 'hello')).status, 204);
  const head = await raw('HEAD', path, { Authorization: basic(alice), 'Tus-Resumable': '1.0.0' });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('upload-offset'), '5');
  assert.equal(head.headers.get('upload-length'), '10');
  assert.equal(head.headers.get('cache-control'), 'no-store');
  assert.equal((await patch(alice, path, 3, 'xxxxx')).status, 409);
  const done = await patch(alice, path, 5, 'world');
  assert.equal(done.status, 200);
  assert.equal(done.headers.get('tus-resumable'), '1.0.0');
  assert.equal(done.headers.get('upload-offset'), '10');
  assert.match(done.headers.get('content-type') ?? '', /^application\/json/);
  const body = JSON.parse(done.text);
  assert.deepEqual(Object.keys(body).sort(), ['filename', 'url']);
  assert.equal(body.filename, 'notes.txt');
  const got = await download(alice, body.url);
  assert.equal(got.data.toString(), 'helloworld');
  assert.equal(got.type, 'text/plain');
  // Finished: no longer a tus upload.
  assert.equal((await raw('HEAD', path, { Authorization: basic(alice), 'Tus-Resumable': '1.0.0' })).status, 404);
});

test('creation with upload: a POST carrying the whole file is finished at once and keeps its Location', async () => {
  const res = await raw(
    'POST',
    '/api/v1/tus',
    { Authorization: basic(alice), 'Tus-Resumable': '1.0.0', 'Upload-Length': '3', 'Upload-Metadata': `filename ${b64('')}`, 'Content-Type': 'application/offset+octet-stream' },
    'abc',
  );
  assert.equal(res.status, 201);
  assert.ok(res.headers.get('location'));
  const body = JSON.parse(res.text);
  // An empty file name is stored as Zulip names it.
  assert.equal(body.filename, 'uploaded-file');
  assert.equal((await download(alice, body.url)).data.toString(), 'abc');
});

test('an image uploaded in pieces gets its thumbnail, as one posted whole does', async () => {
  const png = await sharp({ create: { width: 1200, height: 400, channels: 3, background: { r: 10, g: 90, b: 200 } } }).png().toBuffer();
  const location = await create(alice, png.length, `filename ${b64('wide.png')},filetype ${b64('image/png')}`);
  assert.equal((await patch(alice, location, 0, png.subarray(0, 100))).status, 204);
  const done = await patch(alice, location, 100, png.subarray(100));
  assert.equal(done.status, 200);
  const { url } = JSON.parse(done.text) as { url: string };
  const thumb = await download(alice, url.replace('/user_uploads/', '/user_uploads/thumbnail/') + '/840x560.webp');
  assert.equal(thumb.status, 200);
  assert.equal(thumb.type, 'image/webp');
  const meta = await sharp(thumb.data).metadata();
  assert.deepEqual([meta.width, meta.height], [840, 280]);
});

test('termination: the creator may delete an unfinished upload; others cannot see it', async () => {
  const path = await create(alice, 10);
  assert.equal((await patch(alice, path, 0, 'part')).status, 204);
  for (const method of ['HEAD', 'DELETE']) {
    assert.equal((await raw(method, path, { Authorization: basic(bob), 'Tus-Resumable': '1.0.0' })).status, 404);
  }
  assert.equal((await patch(bob, path, 4, 'steal!')).status, 404);
  assert.equal((await raw('DELETE', path, { Authorization: basic(alice), 'Tus-Resumable': '1.0.0' })).status, 204);
  assert.equal((await raw('HEAD', path, { Authorization: basic(alice), 'Tus-Resumable': '1.0.0' })).status, 404);
  assert.deepEqual(readdirSync(join(t.server.svc.config.dataDir, 'tus')), []);
});

test('refusals: no credentials (401), over the size limit (413), deferred length (411), no Tus-Resumable (412)', async () => {
  const anon = await raw('POST', '/api/v1/tus', { 'Tus-Resumable': '1.0.0', 'Upload-Length': '3' });
  assert.equal(anon.status, 401);
  assert.deepEqual(JSON.parse(anon.text), { message: 'Unauthenticated upload' });
  // Wrong credentials fall back to the session, and there is none.
  const wrong = await raw('POST', '/api/v1/tus', { Authorization: 'Basic ' + b64(`${alice.email}:${'x'.repeat(32)}`), 'Tus-Resumable': '1.0.0', 'Upload-Length': '3' });
  assert.equal(wrong.status, 401);

  const big = await raw('POST', '/api/v1/tus', { Authorization: basic(alice), 'Tus-Resumable': '1.0.0', 'Upload-Length': String(1024 * 1024 + 1) });
  assert.equal(big.status, 413);
  assert.deepEqual(JSON.parse(big.text), { message: "File is larger than this server's configured maximum upload size (1 MiB)." });
  // Exactly the limit is allowed.
  const path = await create(alice, 1024 * 1024);
  assert.equal((await raw('DELETE', path, { Authorization: basic(alice), 'Tus-Resumable': '1.0.0' })).status, 204);

  const deferred = await raw('POST', '/api/v1/tus', { Authorization: basic(alice), 'Tus-Resumable': '1.0.0', 'Upload-Defer-Length': '1' });
  assert.equal(deferred.status, 411);
  assert.deepEqual(JSON.parse(deferred.text), { message: 'SizeIsDeferred is not supported' });

  const old = await raw('POST', '/api/v1/tus', { Authorization: basic(alice), 'Upload-Length': '3' });
  assert.equal(old.status, 412);
  // A deactivated user's key no longer works.
  assertSuccess(await t.client(t.owner).delete(`/users/${bob.id}`));
  assert.equal((await raw('POST', '/api/v1/tus', { Authorization: basic(bob), 'Tus-Resumable': '1.0.0', 'Upload-Length': '3' })).status, 401);
});

test('the web session uploads too (as Zulip\'s web app does); a foreign Origin is refused', async () => {
  const w = new WebClient(t.url);
  assertSuccess(await w.login(alice.email, PASSWORD));
  const headers = { Cookie: w.cookieHeader(), 'Tus-Resumable': '1.0.0', 'Upload-Length': '2', 'Upload-Metadata': `filename ${b64('web.txt')},filetype ${b64('text/plain')}` };
  const created = await raw('POST', '/api/v1/tus', { ...headers, Origin: t.url });
  assert.equal(created.status, 201);
  const done = await raw('PATCH', created.headers.get('location')!, { Cookie: w.cookieHeader(), 'Tus-Resumable': '1.0.0', 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' }, 'ok');
  assert.equal(done.status, 200);
  assert.equal(JSON.parse(done.text).filename, 'web.txt');
  const foreign = await raw('POST', '/api/v1/tus', { ...headers, Origin: 'https://evil.example' });
  assert.equal(foreign.status, 403);
  // No cross-origin use: no CORS grant.
  assert.equal(created.headers.get('access-control-allow-origin'), null);
});

test('unfinished uploads older than a day are swept away', async () => {
  const path = await create(alice, 10);
  assert.equal((await patch(alice, path, 0, 'part')).status, 204);
  const store = new FileStore({ directory: join(t.server.svc.config.dataDir, 'tus') });
  assert.equal(await removeStale(store, Date.now() - 24 * 3600 * 1000), 0);
  assert.equal(await removeStale(store, Date.now() + 1000), 1);
  assert.equal((await raw('HEAD', path, { Authorization: basic(alice), 'Tus-Resumable': '1.0.0' })).status, 404);
  assert.deepEqual(readdirSync(join(t.server.svc.config.dataDir, 'tus')), []);
});
