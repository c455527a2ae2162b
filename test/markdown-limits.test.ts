/**
 * Markdown that cannot be weaponised: adversarial input renders in linear
 * time or fails with Zulip's "Unable to render message"; rendering runs in
 * worker threads with a time budget, so a heavy message never delays other
 * requests; POST /messages/render has the sending length limit.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess, startTestServer, type TestServer, type Client } from './helpers.ts';
import { renderMarkdown, MarkdownRenderingError } from '../src/markdown/index.ts';
import { createMarkdownRenderer } from '../src/markdown/pool.ts';

let t: TestServer;
let owner: Client;

before(async () => {
  t = await startTestServer();
  owner = t.client(t.owner);
});
after(() => t.close());

const ctx = {
  userByFullName: () => undefined,
  userById: () => undefined,
  groupByName: () => undefined,
  streamByName: () => undefined,
  realmUrl: 'http://chat.example.com',
};

test('adversarial input renders: brackets, emoji, colons, links, fences', () => {
  const brackets = renderMarkdown('['.repeat(10_000), ctx);
  assert.equal(brackets.html, `<p>${'['.repeat(10_000)}</p>`);
  const emoji = renderMarkdown('😀'.repeat(5000), ctx);
  assert.equal(emoji.html.match(/emoji-1f600/g)?.length, 5000);
  const links = renderMarkdown('[a](http://a.example/) '.repeat(400), ctx);
  assert.equal(links.html.match(/<a href="http:\/\/a.example\/">a<\/a>/g)?.length, 400);
  const nested = renderMarkdown('[a [b] (c)](http://x.example/(d)) ![x](y)', ctx);
  assert.equal(nested.html, '<p><a href="http://x.example/(d)">a [b] (c)</a> ![x](y)</p>');
  const lines = renderMarkdown('a\n'.repeat(5000), ctx);
  assert.equal(lines.html.match(/<br>/g)?.length, 4999);
});

test('inline previews on adversarial input: each URL once, none beyond 24 distinct URLs', () => {
  const previews = { ...ctx, inlineImagePreview: true };
  const same = renderMarkdown('https://i.example/a.png\n\n'.repeat(5000), previews);
  assert.equal(same.html.match(/message_inline_image/g)?.length, 1);
  const distinct = (n: number) => Array.from({ length: n }, (_, i) => `https://i.example/${i}.png`).join('\n\n');
  assert.equal(renderMarkdown(distinct(24), previews).html.match(/message_inline_image/g)?.length, 24);
  assert.equal(renderMarkdown(distinct(5000), previews).html.match(/message_inline_image/g), null);
  const oneParagraph = renderMarkdown(Array.from({ length: 24 }, (_, i) => `https://i.example/${i}.png`).join(' ').repeat(1), previews);
  assert.equal(oneParagraph.html.match(/message_inline_image/g)?.length, 24);
});

test('nesting deeper than the renderer goes is a MarkdownRenderingError, not a stack overflow', () => {
  for (const content of ['> '.repeat(3000) + 'x', '- '.repeat(3000) + 'x', '```spoiler\n'.repeat(1000)]) {
    assert.throws(() => renderMarkdown(content, ctx), MarkdownRenderingError);
  }
  // Moderate nesting still renders.
  assert.equal(renderMarkdown('> > > x', ctx).html, '<blockquote>\n<blockquote>\n<blockquote>\n<p>x</p>\n</blockquote>\n</blockquote>\n</blockquote>');
});

test('sending or rendering what cannot be rendered: 400 "Unable to render message"', async () => {
  for (const content of ['> '.repeat(3000) + 'x', '- '.repeat(3000) + 'x']) {
    assertError(await owner.post('/messages/render', { content }), 400, 'BAD_REQUEST', 'Unable to render message');
    assertError(await owner.post('/messages', { type: 'stream', to: 'general', topic: 'deep', content }), 400, 'BAD_REQUEST', 'Unable to render message');
  }
  const fetched = assertSuccess(await owner.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'topic', operand: 'deep' }] }));
  assert.equal(fetched.messages.length, 0, 'nothing was stored');
});

test('POST /messages/render has the sending limit: longer content is truncated like a sent message', async () => {
  const r = assertSuccess(await owner.post('/messages/render', { content: '['.repeat(50_000) }));
  assert.equal(r.rendered, `<p>${'['.repeat(10_000 - 20)}<br>\n[message truncated]</p>`);
  const sent = assertSuccess(await owner.post('/messages', { type: 'stream', to: 'general', topic: 'long', content: '😀'.repeat(5000) }));
  const got = assertSuccess(await owner.get(`/messages/${sent.id}`, { apply_markdown: false }));
  assert.equal(got.message.content, '😀'.repeat(5000));
});

test('a render over the time budget fails as in Zulip, and the server carries on', async () => {
  const strict = await startTestServer({ MARKDOWN_TIMEOUT_MS: '1' });
  try {
    const c = strict.client(strict.owner);
    const heavy = ('😀 :smile: [a](http://a.example/) **b** ' + 'x'.repeat(20) + '\n').repeat(150);
    assertError(await c.post('/messages', { type: 'stream', to: 'general', topic: 'slow', content: heavy }), 400, 'BAD_REQUEST', 'Unable to render message');
    assertError(await c.post('/messages/render', { content: heavy }), 400, 'BAD_REQUEST', 'Unable to render message');
    assertSuccess(await c.get('/users/me'));
  } finally {
    await strict.close();
  }
  // The worker that was stopped was replaced: renders go on, on the worker
  // threads (content over 500 characters) and on the request thread.
  const long = '**still** here '.repeat(40).trim();
  assert.ok(long.length > 500);
  const r = assertSuccess(await owner.post('/messages/render', { content: long }));
  assert.equal(r.rendered, `<p>${'<strong>still</strong> here '.repeat(40).trim()}</p>`);
  const short = assertSuccess(await owner.post('/messages/render', { content: '**still** here' }));
  assert.equal(short.rendered, '<p><strong>still</strong> here</p>');
});

test('a render over its budget fails even when its reply is read before the budget\'s timer runs', async () => {
  const heavy = ('😀 :smile: [a](http://a.example/) **b** ' + 'x'.repeat(20) + '\n').repeat(150);
  const data = { users: [], groups: [], streams: [], customEmoji: [], linkifiers: [], realmUrl: 'http://chat.example.com' };
  // Both share the process's render thread; the first warms it up.
  const relaxed = createMarkdownRenderer({ threads: 1, timeoutMs: 60_000 });
  const strict = createMarkdownRenderer({ threads: 1, timeoutMs: 1 });
  try {
    assert.match((await relaxed.render(heavy, data)).html, /<strong>b<\/strong>/);
    // Started from a timer, then this thread is busy while the render runs:
    // its reply is read (the poll phase of the event loop) before the
    // budget's timer, due long since, gets its turn (the next timers phase).
    const outcome = await new Promise<string>((resolve) => {
      setTimeout(() => {
        const p = strict.render(heavy, data);
        const until = performance.now() + 300;
        while (performance.now() < until);
        p.then(
          () => resolve('rendered'),
          (e: Error) => resolve(e instanceof MarkdownRenderingError ? e.message : `${e}`),
        );
      }, 0);
    });
    assert.equal(outcome, 'Markdown rendering took over 1 ms');
  } finally {
    await strict.close();
    await relaxed.close();
  }
});

// The one latency assertion issue 7 asks for: heavy renders run in worker
// threads, so a cheap request made meanwhile is not delayed by them by more
// than 100 ms. The delay is measured against the same requests without
// renders, so a machine busy with other work does not count as delay.
test('heavy renders do not delay a concurrent cheap request by more than 100 ms', async () => {
  // Deeply nested quotes: much work per character, little HTML to send back.
  const heavy = ('> '.repeat(240) + 'some quoted text\n').repeat(20);
  assertSuccess(await owner.post('/messages/render', { content: heavy })); // the worker threads are up
  const anon = t.client(null);
  const cheap = async (): Promise<number> => {
    const t0 = performance.now();
    const res = await anon.get('/server_settings');
    assert.equal(res.status, 200);
    return performance.now() - t0;
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const baseline: number[] = [];
  for (let i = 0; i < 7; i++) baseline.push(await cheap());

  let heavyDone = 0;
  const renders = Array.from({ length: 12 }, () =>
    owner.post('/messages/render', { content: heavy }).then((r) => {
      heavyDone++;
      return r;
    }),
  );
  await new Promise((r) => setTimeout(r, 20));
  const during: number[] = [];
  let answeredWhileRendering = 0;
  for (let i = 0; i < 7; i++) {
    during.push(await cheap());
    if (heavyDone < renders.length) answeredWhileRendering++;
  }
  for (const r of await Promise.all(renders)) assertSuccess(r);
  assert.ok(answeredWhileRendering > 0, 'the cheap requests ran while heavy renders were in progress');
  const delay = median(during) - median(baseline);
  assert.ok(delay < 100, `delay ${delay.toFixed(1)} ms: without renders ${baseline.map((l) => l.toFixed(1)).join(', ')} ms; during ${during.map((l) => l.toFixed(1)).join(', ')} ms`);
});

test('descriptions that cannot be rendered are shown as text, never an error for everyone who reads them', async () => {
  const deep = '> '.repeat(400) + 'x';
  assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'deep quotes', description: deep }] }));
  const streams = assertSuccess(await owner.get('/streams')).streams as Array<Record<string, unknown>>;
  const s = streams.find((x) => x.name === 'deep quotes')!;
  assert.equal(s.description, deep);
  assert.equal(s.rendered_description, `<p>${'&gt; '.repeat(400)}x</p>`);
  assertSuccess(await owner.patch('/realm', { description: deep.slice(0, 1000) }));
  assert.equal(assertSuccess(await t.client(null).get('/server_settings')).realm_description, `<p>${'&gt; '.repeat(400)}x</p>`);
});
