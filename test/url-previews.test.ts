/**
 * Website previews (the organization's inline_url_embed_preview), as Zulip's:
 * a message with a link is answered at once; the linked page is then read
 * (Open Graph, else its title, description and image), the message is
 * rendered again with Zulip's message_embed, stored, and an update_message
 * event with rendering_only goes out. Pages here are served by the test on
 * 127.0.0.1, which the server may fetch only with URL_PREVIEW_PRIVATE_ADDRESSES.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, assertSuccess, openQueue, sleep, type Account, type TestServer } from './helpers.ts';
import { ROLE } from '../src/store/users.ts';
import { forgetLinkEmbedData, linkEmbedData, readPage } from '../src/lib/url-preview.ts';

let t: TestServer;
let member: Account;
let other: Account;
let site: Server;
let base: string;
const fetched: string[] = [];

const PAGES: Record<string, { type: string; body: string }> = {
  '/article': {
    type: 'text/html; charset=utf-8',
    body: '<html><head><title>Page title</title><meta property="og:title" content="The Rock"><meta property="og:description" content="Description &amp; more"><meta property="og:image" content="/images/rock.jpg"></head><body><p>text</p></body></html>',
  },
  '/plain': {
    type: 'text/html',
    body: '<html><head><title>Plain page</title></head><body><h1>Heading</h1><img src="pic.png"><p>First paragraph</p></body></html>',
  },
  '/no-image': { type: 'text/html', body: '<html><head><title>Words only</title><meta name="description" content="No picture here"></head></html>' },
  '/data.json': { type: 'application/json', body: '{"title": "not a page"}' },
  '/second': { type: 'text/html', body: '<meta property="og:title" content="Second page"><meta property="og:image" content="https://images.example.com/second.png">' },
};

before(async () => {
  site = createServer((req, res) => {
    fetched.push(req.url ?? '');
    if (req.url === '/go') {
      res.writeHead(302, { location: '/article' }).end();
      return;
    }
    const page = PAGES[req.url ?? ''];
    if (!page) {
      res.writeHead(404).end('not here');
      return;
    }
    res.writeHead(200, { 'content-type': page.type }).end(page.body);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  t = await startTestServer({ URL_PREVIEW_PRIVATE_ADDRESSES: '1' });
  member = await t.makeUser({ role: ROLE.MEMBER });
  other = await t.makeUser({ role: ROLE.MEMBER });
  forgetLinkEmbedData();
});
after(async () => {
  await t.close();
  site.close();
});

const c = (a: Account) => t.client(a);
const send = async (a: Account, content: string) => assertSuccess(await c(a).post('/messages', { type: 'stream', to: 'general', topic: 'links', content })).id as number;
const rendered = async (id: number) => assertSuccess(await c(other).get(`/messages/${id}`)).message.content as string;

/** The rendering_only update_message event of a message, waited for. */
async function renderingUpdate(queue: Awaited<ReturnType<typeof openQueue>>, id: number): Promise<Record<string, any>> {
  for (let i = 0; i < 300; i++) {
    const found = (await queue.ofType('update_message')).find((e) => e.message_id === id);
    if (found) return found;
    await sleep(50);
  }
  throw new Error(`no update_message for ${id}`);
}

const embed = (url: string, image: string, title: string, description?: string) =>
  `<div class="message_embed"><a class="message_embed_image" href="${url}" style="background-image: url(&quot;${image}&quot;)"></a><div class="data-container">` +
  `<div class="message_embed_title"><a href="${url}" title="${title}">${title}</a></div>` +
  (description ? `<div class="message_embed_description">${description}</div>` : '') +
  '</div></div>';

test('off (Zulip\'s default): a link stays a link and nothing is fetched', async () => {
  const id = await send(member, `${base}/article`);
  await sleep(300);
  assert.equal(await rendered(id), `<p><a href="${base}/article">${base}/article</a></p>`);
  assert.deepEqual(fetched, []);
});

test('on: the page is read after the send, the message rendered again with its embed, stored and announced (rendering_only)', async () => {
  assertSuccess(await c(t.owner).patch('/realm', { inline_url_embed_preview: true }));
  const queue = await openQueue(c(other));
  const url = `${base}/article`;
  const id = await send(member, `see ${url}`);
  const event = await renderingUpdate(queue, id);
  const html = `<p>see <a href="${url}">${url}</a></p>\n${embed(url, `${base}/images/rock.jpg`, 'The Rock', 'Description &amp; more')}`;
  assert.deepEqual(
    { ...event, id: undefined },
    { type: 'update_message', id: undefined, user_id: null, edit_timestamp: event.edit_timestamp, message_id: id, message_ids: [id], content: `see ${url}`, rendered_content: html, rendering_only: true },
  );
  assert.equal(typeof event.edit_timestamp, 'number');
  assert.equal(await rendered(id), html);
  // Not an edit: no edit history, no "edited" mark.
  const message = assertSuccess(await c(other).get(`/messages/${id}`)).message;
  assert.equal(message.last_edit_timestamp, undefined);
  assert.equal(message.edit_history, undefined);
});

test('a page without Open Graph: its title, first paragraph after the heading and image beside it; a redirect is followed; no image, no embed; not a page, nothing', async () => {
  const queue = await openQueue(c(other));
  const plain = `${base}/plain`;
  const id = await send(member, plain);
  await renderingUpdate(queue, id);
  assert.equal(await rendered(id), `<p><a href="${plain}">${plain}</a></p>\n${embed(plain, `${base}/pic.png`, 'Plain page', 'First paragraph')}`);

  const go = `${base}/go`;
  const viaRedirect = await send(member, go);
  await renderingUpdate(queue, viaRedirect);
  assert.equal(await rendered(viaRedirect), `<p><a href="${go}">${go}</a></p>\n${embed(go, `${base}/images/rock.jpg`, 'The Rock', 'Description &amp; more')}`);

  const before = fetched.length;
  const none = await send(member, `${base}/no-image and ${base}/data.json and ${base}/missing`);
  // The three pages asked for, then a moment for the render that finds nothing to add.
  for (let i = 0; i < 100 && fetched.length < before + 3; i++) await sleep(50);
  assert.ok(fetched.length >= before + 3, fetched.join(' '));
  await sleep(300);
  assert.equal((await queue.ofType('update_message')).filter((e) => e.message_id === none).length, 0);
  assert.ok(!(await rendered(none)).includes('message_embed'));
});

test('a bot\'s message, a quoted link and a link to this server get no preview; an edit to another link gets that one\'s', async () => {
  const bot = await t.makeUser({ isBot: true, botOwnerId: member.id, name: 'Link Bot' });
  const queue = await openQueue(c(other));
  const fromBot = await send(bot, `${base}/second`);
  const quoted = await send(member, `> ${base}/second`);
  const own = await send(member, `${t.url}/#narrow/channel/1-general`);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal((await queue.ofType('update_message')).length, 0);
  assert.ok(!fetched.includes('/second'), 'the bot\'s and the quoted link not fetched');
  for (const id of [fromBot, quoted, own]) assert.ok(!(await rendered(id)).includes('message_embed'), String(id));

  const id = await send(member, 'nothing yet');
  const url = `${base}/second`;
  assertSuccess(await c(member).patch(`/messages/${id}`, { content: `now ${url}` }));
  const edit = (await queue.ofType('update_message')).find((e) => e.message_id === id && !e.rendering_only);
  assert.ok(edit, 'the edit\'s own event');
  const event = await renderingUpdate(queue, id);
  assert.equal(event.rendering_only, true);
  assert.equal(await rendered(id), `<p>now <a href="${url}">${url}</a></p>\n${embed(url, 'https://images.example.com/second.png', 'Second page')}`);
});

test('only public addresses are fetched unless allowed; what is read from a page', async () => {
  forgetLinkEmbedData();
  const before = fetched.length;
  assert.equal(await linkEmbedData(`${base}/article`, { allowPrivate: false, serverUrl: t.url }), null);
  assert.equal(await linkEmbedData('http://localhost/article', { allowPrivate: false, serverUrl: t.url }), null);
  assert.equal(fetched.length, before, 'nothing was fetched');
  // (What was refused is remembered like any other answer.)
  forgetLinkEmbedData();
  assert.deepEqual(await linkEmbedData(`${base}/article`, { allowPrivate: true, serverUrl: t.url }), { title: 'The Rock', description: 'Description & more', image: `${base}/images/rock.jpg` });
  // Zulip's parsers: Open Graph first; <title>, else the first <h1>; the meta description, else the first paragraph after the heading, else the first.
  assert.deepEqual(readPage('<h1>Only a heading</h1><p>after</p>'), { title: 'Only a heading', description: 'after' });
  assert.deepEqual(readPage('<p>first</p><h1>Heading</h1><div><p>later</p></div>'), { title: 'Heading', description: 'later' });
  assert.deepEqual(readPage('<title>T</title><meta name="description" content="Meta words"><p>para</p>'), { title: 'T', description: 'Meta words' });
  assert.deepEqual(readPage('<meta property="og:title" content="OG"><title>T</title>'), { title: 'OG' });
  assert.deepEqual(readPage('<div><h1>H</h1><img src="a.png"></div>'), { title: 'H', image: 'a.png' });
  assert.deepEqual(readPage('<h1>H</h1><div><img src="a.png"></div>'), { title: 'H' });
  // The renderer's markers never come through from a page.
  assert.deepEqual(readPage('<title>A\u0002klzzwxh:0\u0003B</title>'), { title: 'Aklzzwxh:0B' });
});

test('a page\'s image that is not a web address is left out; the embed\'s text is escaped', async () => {
  const queue = await openQueue(c(other));
  const url = `${base}/tricky`;
  PAGES['/tricky'] = { type: 'text/html', body: '<meta property="og:title" content="&lt;b&gt;bold&lt;/b&gt; &amp; co"><meta property="og:image" content="javascript:alert(1)">' };
  PAGES['/tricky2'] = { type: 'text/html', body: '<meta property="og:title" content="&lt;script&gt;x&lt;/script&gt;"><meta property="og:image" content="/i.png">' };
  const none = await send(member, url);
  const two = await send(member, `${base}/tricky2`);
  await renderingUpdate(queue, two);
  assert.ok(!(await rendered(none)).includes('message_embed'), 'no image, no embed');
  assert.ok((await rendered(two)).includes(`<a href="${base}/tricky2" title="&lt;script&gt;x&lt;/script&gt;">&lt;script&gt;x&lt;/script&gt;</a>`), await rendered(two));
});
