/** Custom emoji: upload (resized through sharp), list, deactivate; realm_emoji events and state; rendering, reactions and user status. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account, type Client, type Res } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';
import { ROLE } from '../src/store/users.ts';

let t: TestServer;
let admin: Account, member: Account, other: Account, guest: Account;
let A: Client, M: Client, X: Client, G: Client;
let chan: number;

before(async () => {
  t = await startTestServer();
  admin = await t.makeUser({ name: 'Admin', role: ROLE.ADMINISTRATOR });
  member = await t.makeUser({ name: 'Member' });
  other = await t.makeUser({ name: 'Other' });
  guest = await t.makeUser({ name: 'Guest', role: ROLE.GUEST });
  [A, M, X, G] = [admin, member, other, guest].map((u) => t.client(u));
  chan = await makeChannel(t, { name: 'emoji', subscribers: [admin.id, member.id, other.id] });
});
after(() => t.close());

function assertEventSchema(event: any): void {
  const res: Res = { status: 200, body: { result: 'success', msg: '', queue_id: 'q', events: [event] }, headers: new Headers(), text: '' };
  assertSchema(res, 'GET', '/events');
}

const png = (w: number, h: number) => sharp({ create: { width: w, height: h, channels: 4, background: '#3366ff' } }).png().toBuffer();

/** A three-frame animated GIF. */
async function animatedGif(w: number, h: number): Promise<Buffer> {
  const n = 3;
  const raw = Buffer.alloc(w * h * n * 4);
  for (let f = 0; f < n; f++) for (let i = 0; i < w * h; i++) raw.set([f === 0 ? 255 : 0, f === 1 ? 255 : 0, f === 2 ? 255 : 0, 255], (f * w * h + i) * 4);
  return sharp(raw, { raw: { width: w, height: h * n, channels: 4, pageHeight: h } }).gif().toBuffer();
}

async function upload(c: Client, name: string, files: Array<{ data: Buffer; type: string; filename?: string }>): Promise<Res> {
  const form = new FormData();
  files.forEach((f, i) => form.append(`file${i}`, new Blob([new Uint8Array(f.data)], { type: f.type }), f.filename ?? `e${i}.png`));
  const res = await fetch(`${c.base}/api/v1/realm/emoji/${encodeURIComponent(name)}`, { method: 'POST', headers: { Authorization: c.auth! }, body: form });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), headers: res.headers, text };
}

test('upload: resized image served publicly, realm_emoji events to everyone, state and GET /realm/emoji', async () => {
  const q = await openQueue(X, { event_types: ['realm_emoji'] });
  const r = await upload(M, 'party_parrot', [{ data: await png(200, 100), type: 'image/png' }]);
  assertSchema(r, 'POST', '/realm/emoji/{emoji_name}');

  const list = await X.get('/realm/emoji');
  assertSchema(list, 'GET', '/realm/emoji');
  const entries = Object.values(list.body.emoji) as any[];
  assert.equal(entries.length, 1);
  const e = entries[0];
  assert.deepEqual({ ...e, source_url: undefined }, { id: e.id, name: 'party_parrot', source_url: undefined, still_url: null, deactivated: false, author_id: member.id });
  assert.match(e.source_url, /^\/user_avatars\/\d+\/emoji\/images\/[0-9a-f]{8}\.png$/);

  const img = await fetch(t.url + e.source_url);
  assert.equal(img.status, 200);
  assert.equal(img.headers.get('content-type'), 'image/png');
  const meta = await sharp(Buffer.from(await img.arrayBuffer())).metadata();
  assert.deepEqual([meta.width, meta.height], [64, 64]);
  assert.equal((await fetch(`${t.url}/user_avatars/1/emoji/images/nothing.png`)).status, 404);

  const evs = await q.drain();
  assert.equal(evs.length, 1);
  assert.deepEqual(evs[0].realm_emoji, list.body.emoji);
  assert.equal(evs[0].op, 'update');
  assertEventSchema(evs[0]);
  const reg = assertSuccess(await G.post('/register', { fetch_event_types: ['realm_emoji'] }));
  assert.deepEqual(reg.realm_emoji, list.body.emoji);
});

test('upload: animated GIFs keep their frames and get a still image', async () => {
  assertSuccess(await upload(A, 'dance', [{ data: await animatedGif(40, 20), type: 'image/gif', filename: 'dance.gif' }]));
  const e = (Object.values(assertSuccess(await M.get('/realm/emoji')).emoji) as any[]).find((x) => x.name === 'dance');
  assert.match(e.source_url, /\.gif$/);
  assert.match(e.still_url, /^\/user_avatars\/\d+\/emoji\/images\/still\/[0-9a-f]{8}\.png$/);
  const anim = await sharp(Buffer.from(await (await fetch(t.url + e.source_url)).arrayBuffer()), { animated: true }).metadata();
  assert.equal(anim.pages, 3);
  assert.equal(anim.width, 64);
  const still = await sharp(Buffer.from(await (await fetch(t.url + e.still_url)).arrayBuffer())).metadata();
  assert.deepEqual([still.format, still.pages ?? 1, still.width, still.height], ['png', 1, 64, 64]);
});

test('upload errors: names, permissions, files, formats', async () => {
  const ok = [{ data: await png(10, 10), type: 'image/png' }];
  assertError(await upload(M, 'Bad Name', ok), 400, 'BAD_REQUEST', 'Emoji names must contain only lowercase alphanumeric characters, underscores, and hyphens.');
  assertError(await upload(M, 'trailing_', ok), 400, 'BAD_REQUEST', 'Emoji names must end with either a letter or digit.');
  assertError(await upload(G, 'guesty', ok), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertError(await upload(M, 'party_parrot', ok), 400, 'BAD_REQUEST', 'A custom emoji with this name already exists.');
  assertError(await upload(M, 'twofiles', [...ok, ...ok]), 400, 'BAD_REQUEST', 'You must upload exactly one file.');
  assertError(await upload(M, 'nofile', []), 400, 'BAD_REQUEST', 'You must upload exactly one file.');
  assertError(await upload(M, 'smile', ok), 400, 'BAD_REQUEST', 'Only administrators can override default emoji.');
  assertError(await upload(M, 'textfile', [{ data: Buffer.from('hello'), type: 'text/plain', filename: 'a.txt' }]), 400, 'BAD_IMAGE', 'Invalid image format');
  assertError(await upload(M, 'notimage', [{ data: Buffer.from('hello'), type: 'image/png' }]), 400, 'BAD_IMAGE', 'Could not decode image; did you upload an image file?');
  assertError(await upload(M, 'huge', [{ data: Buffer.alloc(200 * 1024, 1), type: 'image/png' }]), 400, 'BAD_IMAGE', 'Image size exceeds limit.');
  assertSuccess(await upload(A, 'smile', ok));
});

test('custom emoji in messages, reactions and user status; deactivation rules', async () => {
  const emoji = assertSuccess(await M.get('/realm/emoji')).emoji as Record<string, any>;
  const parrot = Object.values(emoji).find((x) => x.name === 'party_parrot');
  const sent = assertSuccess(await M.post('/messages', { type: 'stream', to: chan, topic: 'e', content: 'hi :party_parrot:' }));
  const got = assertSuccess(await M.get('/messages', { anchor: sent.id, num_before: 0, num_after: 0, narrow: [] })).messages[0];
  assert.equal(got.content, `<p>hi <img alt=":party_parrot:" class="emoji" src="${parrot.source_url}" title="party parrot"></p>`);

  assertSuccess(await X.post(`/messages/${sent.id}/reactions`, { emoji_name: 'party_parrot' }));
  const reactions = assertSuccess(await X.get('/messages', { anchor: sent.id, num_before: 0, num_after: 0, narrow: [] })).messages[0].reactions;
  assert.deepEqual(reactions, [{ emoji_name: 'party_parrot', emoji_code: parrot.id, reaction_type: 'realm_emoji', user_id: other.id }]);
  assertSuccess(await X.post('/users/me/status', { emoji_name: 'party_parrot', emoji_code: parrot.id, reaction_type: 'realm_emoji' }));

  const q = await openQueue(A, { event_types: ['realm_emoji'] });
  assertError(await X.delete('/realm/emoji/party_parrot'), 400, 'BAD_REQUEST', 'Must be an organization administrator or emoji author');
  assertError(await M.delete('/realm/emoji/nope'), 404, 'BAD_REQUEST', "Emoji 'nope' does not exist");
  const d = await M.delete('/realm/emoji/party_parrot');
  assertSchema(d, 'DELETE', '/realm/emoji/{emoji_name}');
  const ev = (await q.drain())[0];
  assert.equal(ev.realm_emoji[parrot.id].deactivated, true);
  assertError(await M.delete('/realm/emoji/party_parrot'), 404, 'BAD_REQUEST', "Emoji 'party_parrot' does not exist");
  const again = assertSuccess(await M.post('/messages', { type: 'stream', to: chan, topic: 'e', content: ':party_parrot:' }));
  assertError(await M.post(`/messages/${again.id}/reactions`, { emoji_name: 'party_parrot', emoji_code: parrot.id, reaction_type: 'realm_emoji' }), 400, 'BAD_REQUEST', 'This custom emoji has been deactivated.');
  const plain = assertSuccess(await M.get('/messages', { anchor: again.id, num_before: 0, num_after: 0, narrow: [] })).messages[0];
  assert.equal(plain.content, '<p>:party_parrot:</p>');
  // An administrator may deactivate anyone's emoji; the name can then be reused.
  assertSuccess(await upload(M, 'party_parrot', [{ data: await png(8, 8), type: 'image/png' }]));
  assertSuccess(await A.delete('/realm/emoji/party_parrot'));
});
