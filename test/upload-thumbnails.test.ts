/**
 * Thumbnails of uploaded images (Zulip 9+): server_thumbnail_formats in
 * /register, the preview markup of a message linking an uploaded image, and
 * /user_uploads/thumbnail/<path_id>/<format> with the image's access rules.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { startTestServer, assertError, assertSuccess, type TestServer, type Account, type Client } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';
import { ROLE } from '../src/store/users.ts';
import { backfillUploadImages } from '../src/actions/uploads.ts';

let t: TestServer;
let alice: Account, bob: Account, guest: Account;
let A: Client;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  guest = await t.makeUser({ name: 'Guest', role: ROLE.GUEST });
  A = t.client(alice);
  await makeChannel(t, { name: 'pics', subscribers: [alice.id, bob.id] });
});
after(() => t.close());

const authHeader = (acc: Account | null) => (acc ? { Authorization: 'Basic ' + Buffer.from(`${acc.email}:${acc.apiKey}`).toString('base64') } : {});

async function upload(acc: Account, name: string, data: Buffer, type: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([data], { type }), name);
  const res = await fetch(`${t.url}/api/v1/user_uploads`, { method: 'POST', headers: authHeader(acc), body: form });
  const body = (await res.json()) as { url: string };
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.url;
}

async function get(acc: Account | null, path: string): Promise<{ status: number; headers: Headers; data: Buffer }> {
  const res = await fetch(`${t.url}${path}`, { headers: authHeader(acc) });
  return { status: res.status, headers: res.headers, data: Buffer.from(await res.arrayBuffer()) };
}

/** Sends `content` to the channel and returns the message's rendered HTML. */
async function sendAndRender(content: string): Promise<string> {
  const id = assertSuccess(await A.post('/messages', { type: 'stream', to: 'pics', topic: 'photos', content })).id as number;
  return assertSuccess(await A.get(`/messages/${id}`)).message.content as string;
}

const solid = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } });

/** An animated GIF of `frames` frames. */
async function animatedGif(width: number, height: number, frames: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * frames * 4);
  for (let i = 0; i < raw.length; i += 4) {
    raw[i] = Math.floor(i / (width * height * 4)) * 90;
    raw[i + 1] = 120;
    raw[i + 3] = 255;
  }
  return sharp(raw, { raw: { width, height: height * frames, channels: 4, pageHeight: height } }).gif().toBuffer();
}

test('register: server_thumbnail_formats lists the thumbnails made, animated first', async () => {
  const r = assertSuccess(await A.post('/register', { fetch_event_types: '["realm"]' }));
  assert.deepEqual(r.server_thumbnail_formats, [
    { name: '840x560-anim.webp', max_width: 840, max_height: 560, format: 'webp', animated: true },
    { name: '840x560.webp', max_width: 840, max_height: 560, format: 'webp', animated: false },
  ]);
});

test('an uploaded photo is previewed by its thumbnail, served to those who may read the photo', async () => {
  const url = await upload(alice, 'photo.png', await solid(1000, 700).png().toBuffer(), 'image/png');
  const pathId = url.slice('/user_uploads/'.length);
  const html = await sendAndRender(`[photo.png](${url})`);
  assert.equal(
    html,
    `<p><a href="${url}">photo.png</a></p>\n` +
      `<div class="message_inline_image"><a href="${url}" title="photo.png">` +
      `<img data-original-content-type="image/png" data-original-dimensions="1000x700" src="/user_uploads/thumbnail/${pathId}/840x560.webp"></a></div>`,
  );
  const thumb = await get(bob, `/user_uploads/thumbnail/${pathId}/840x560.webp`);
  assert.equal(thumb.status, 200);
  assert.equal(thumb.headers.get('content-type'), 'image/webp');
  const meta = await sharp(thumb.data).metadata();
  assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 800, 560]);
  // A format the server does not make gives the closest one it does.
  const other = await get(bob, `/user_uploads/thumbnail/${pathId}/300x200.webp`);
  assert.equal(other.status, 200);
  assert.deepEqual(other.data, thumb.data);
  // Not a format name; an unknown file; a guest not subscribed; no credentials.
  assert.equal((await get(bob, `/user_uploads/thumbnail/${pathId}/large`)).status, 404);
  assert.equal((await get(bob, `/user_uploads/thumbnail/${pathId.replace(/[^/]+$/, 'nothing.png')}/840x560.webp`)).status, 404);
  assert.equal((await get(guest, `/user_uploads/thumbnail/${pathId}/840x560.webp`)).status, 403);
  assert.equal((await get(null, `/user_uploads/thumbnail/${pathId}/840x560.webp`)).status, 401);
});

test('an animated GIF: data-animated, the animated thumbnail linked, both served; small images are not enlarged', async () => {
  const url = await upload(alice, 'wave.gif', await animatedGif(300, 200, 3), 'image/gif');
  const pathId = url.slice('/user_uploads/'.length);
  const html = await sendAndRender(`[wave.gif](${url})`);
  assert.equal(
    html,
    `<p><a href="${url}">wave.gif</a></p>\n<div class="message_inline_image"><a href="${url}" title="wave.gif">` +
      `<img data-animated="true" data-original-content-type="image/gif" data-original-dimensions="300x200" src="/user_uploads/thumbnail/${pathId}/840x560-anim.webp"></a></div>`,
  );
  const anim = await sharp((await get(alice, `/user_uploads/thumbnail/${pathId}/840x560-anim.webp`)).data).metadata();
  assert.deepEqual([anim.format, anim.pages, anim.width, anim.pageHeight ?? anim.height], ['webp', 3, 300, 200]);
  const still = await sharp((await get(alice, `/user_uploads/thumbnail/${pathId}/840x560.webp`)).data).metadata();
  assert.deepEqual([still.format, still.pages ?? 1, still.width, still.height], ['webp', 1, 300, 200]);
});

test('a rotated JPEG reports its size as shown; a TIFF gets a transcoded image; a file that is not an image gets no preview', async () => {
  // Stored 400×300 with EXIF orientation 6 (shown turned a quarter): 300×400.
  const jpeg = await solid(400, 300).jpeg().withMetadata({ orientation: 6 }).toBuffer();
  const jurl = await upload(alice, 'turned.jpg', jpeg, 'image/jpeg');
  const jpath = jurl.slice('/user_uploads/'.length);
  assert.match(await sendAndRender(`[turned](${jurl})`), /data-original-content-type="image\/jpeg" data-original-dimensions="300x400" src/);
  const turned = await sharp((await get(alice, `/user_uploads/thumbnail/${jpath}/840x560.webp`)).data).metadata();
  assert.deepEqual([turned.width, turned.height], [300, 400]);

  const turl = await upload(alice, 'scan.tiff', await solid(500, 300).tiff().toBuffer(), 'image/tiff');
  const tpath = turl.slice('/user_uploads/'.length);
  assert.match(
    await sendAndRender(`[scan](${turl})`),
    new RegExp(`<img data-original-content-type="image/tiff" data-original-dimensions="500x300" data-transcoded-image="4032x3024.webp" src="/user_uploads/thumbnail/${tpath}/840x560.webp">`),
  );
  const transcoded = await get(alice, `/user_uploads/thumbnail/${tpath}/4032x3024.webp`);
  assert.equal(transcoded.status, 200);
  assert.deepEqual([(await sharp(transcoded.data).metadata()).width, (await sharp(transcoded.data).metadata()).height], [500, 300]);

  // Named like an image, but not one: no preview, no thumbnail.
  const burl = await upload(alice, 'broken.png', Buffer.from('not really a picture'), 'image/png');
  assert.equal(await sendAndRender(`[broken.png](${burl})`), `<p><a href="${burl}">broken.png</a></p>`);
  assert.equal((await get(alice, `/user_uploads/thumbnail/${burl.slice('/user_uploads/'.length)}/840x560.webp`)).status, 404);
  // GET /thumbnail/status: the photo has its thumbnails; the broken file is no image.
  assert.deepEqual(assertSuccess(await A.get(`/thumbnail/status/${jpath}`)).has_thumbnail, true);
  assertError(await A.get(`/thumbnail/status/${burl.slice('/user_uploads/'.length)}`), 400, 'BAD_REQUEST', 'Invalid attachment');
});

test('a missing thumbnail file is made again; deleting the upload deletes its thumbnails', async () => {
  const url = await upload(alice, 'again.png', await solid(900, 900).png().toBuffer(), 'image/png');
  const pathId = url.slice('/user_uploads/'.length);
  const dir = join(t.server.svc.config.dataDir, 'uploads', 'thumbnail', ...pathId.split('/'));
  assert.ok(existsSync(join(dir, '840x560.webp')));
  rmSync(dir, { recursive: true });
  const again = await get(alice, `/user_uploads/thumbnail/${pathId}/840x560.webp`);
  assert.equal(again.status, 200);
  assert.deepEqual([(await sharp(again.data).metadata()).width, (await sharp(again.data).metadata()).height], [560, 560]);
  const id = (assertSuccess(await A.get('/attachments')).attachments as Array<{ id: number; path_id: string }>).find((a) => a.path_id === pathId)!.id;
  assertSuccess(await A.delete(`/attachments/${id}`));
  assert.equal(existsSync(dir), false);
  assert.equal((await get(alice, `/user_uploads/thumbnail/${pathId}/840x560.webp`)).status, 404);
});

test('with inline_image_preview off, an uploaded image gets no preview', async () => {
  const url = await upload(alice, 'off.png', await solid(50, 50).png().toBuffer(), 'image/png');
  assertSuccess(await t.client(t.owner).patch('/realm', { inline_image_preview: false }));
  try {
    assert.equal(await sendAndRender(`[off.png](${url})`), `<p><a href="${url}">off.png</a></p>`);
  } finally {
    assertSuccess(await t.client(t.owner).patch('/realm', { inline_image_preview: true }));
  }
});

test('media syntax on an uploaded audio file is an audio player, which its readers may play; other files stay text', async () => {
  const url = await upload(alice, 'crab-rave.mp3', Buffer.from('ID3\x03\x00\x00\x00\x00\x00\x00'), 'audio/mpeg');
  const id = assertSuccess(await A.post('/messages', { type: 'stream', to: 'pics', topic: 'sounds', content: `![crab-rave.mp3](${url})` })).id as number;
  assert.equal(
    assertSuccess(await A.get(`/messages/${id}`)).message.content,
    `<p><audio controls preload="metadata" src="${url}" title="crab-rave.mp3"></audio></p>`,
  );
  // The message claims the file: the channel's other subscriber may fetch it, and has:attachment finds it.
  assert.equal((await get(bob, url)).status, 200);
  const narrow = JSON.stringify([{ operator: 'has', operand: 'attachment' }, { operator: 'topic', operand: 'sounds' }]);
  assert.deepEqual(assertSuccess(await t.client(bob).get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow })).messages.map((m: { id: number }) => m.id), [id]);
  assert.equal(await sendAndRender(`![](${url})`), `<p><audio controls preload="metadata" src="${url}"></audio></p>`);
  const text = await upload(alice, 'notes.txt', Buffer.from('hello'), 'text/plain');
  assert.equal(await sendAndRender(`![notes](${text})`), `<p>![notes](${text})</p>`);
});

test('images uploaded before thumbnails were made get them from the backfill; messages sent after link them', async () => {
  const url = await upload(alice, 'older.png', await solid(600, 300).png().toBuffer(), 'image/png');
  const text = await upload(alice, 'older.txt', Buffer.from('plain'), 'text/plain');
  const pathId = url.slice('/user_uploads/'.length);
  // As a file stored before this version left them: no size, no frames, no thumbnails.
  const db = t.server.svc.store.db;
  await db.updateTable('attachments').set({ image_width: null, image_height: null, image_frames: null }).where('path_id', 'in', [pathId, text.slice('/user_uploads/'.length)]).execute();
  rmSync(join(t.server.svc.config.dataDir, 'uploads', 'thumbnail', ...pathId.split('/')), { recursive: true });
  const q = encodeURIComponent(pathId);
  assert.match(await sendAndRender(`[older.png](${url})`), new RegExp(`<img data-src-fullsize="/thumbnail\\?url=user_uploads%2F${q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}&amp;size=full"`));
  assert.equal(await backfillUploadImages(t.server.svc), 2);
  assert.match(await sendAndRender(`[older.png](${url})`), new RegExp(`data-original-dimensions="600x300" src="/user_uploads/thumbnail/${pathId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/840x560.webp"`));
  assert.equal((await get(alice, `/user_uploads/thumbnail/${pathId}/840x560.webp`)).status, 200);
  const rows = await db.selectFrom('attachments').select(['path_id', 'image_frames']).where('path_id', 'in', [pathId, text.slice('/user_uploads/'.length)]).execute();
  assert.deepEqual(Object.fromEntries(rows.map((r) => [r.path_id, r.image_frames])), { [pathId]: 1, [text.slice('/user_uploads/'.length)]: 0 });
  // Nothing left to read.
  assert.equal(await backfillUploadImages(t.server.svc), 0);
});
