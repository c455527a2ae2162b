/**
 * The browser client in real Chromium: login and logout, reconnecting after
 * a server restart, uploads, search, loading older messages, the keyboard and
 * settings, a phone-sized window's sidebars, and CSRF rejection of a forged
 * cross-site request; and the rule
 * that the client uses only the public API.
 * Skipped (with one line saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD, streamIdOf } from './helpers.ts';
import { browserTests, channelLink, dropPng, eventually, focusedLabel, loginPage, loginToView, messageRow, PASSWORD, PNG, send, withWebServer, openSettings } from './web-browser.ts';

test('the web client uses only the public API: nothing under web/ imports the server code', () => {
  const webDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'web', 'src');
  const files = readdirSync(webDir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(ts|tsx)$/.test(f));
  assert.ok(files.length > 5);
  for (const f of files) {
    const src = readFileSync(join(webDir, f), 'utf8');
    for (const m of src.matchAll(/from\s+'([^']+)'/g)) assert.ok(!m[1]!.includes('/src/') && !m[1]!.startsWith('../../'), `${f} imports ${m[1]}`);
  }
});

await browserTests('the web client in Chromium: login, restart, uploads, search, history, keyboard, CSRF', (newContext) => {
  test('login page: bad credentials and deactivated users get clear messages; login, no secrets in storage, logout', () =>
    withWebServer(async (t) => {
      const gone = await t.makeUser({ password: PASSWORD, name: 'Gone User' });
      await t.client(t.owner).request('DELETE', `/users/${gone.id}`);
      const ctx = await newContext();
      const page = await ctx.newPage();
      await page.goto(`${t.url}/`);
      assert.equal(new URL(page.url()).pathname, '/login/');
      await page.getByLabel('Email').fill(OWNER_EMAIL);
      await page.getByLabel('Password').fill('wrong-password');
      await page.getByRole('button', { name: 'Log in' }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      assert.equal((await alert.textContent())?.trim(), 'Your username or password is incorrect');

      await page.getByLabel('Email').fill(gone.email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await eventually(async () => (await alert.textContent())?.trim() === 'Account is deactivated', 'the deactivated-account message');
      assert.equal(new URL(page.url()).pathname, '/login/');

      // Too many failures for one account: the rate limit, said plainly.
      const target = await t.makeUser({ password: PASSWORD, name: 'Target User' });
      for (let i = 0; i < 6; i++) {
        await page.getByLabel('Email').fill(target.email);
        await page.getByLabel('Password').fill(`wrong-${i}`);
        const answered = page.waitForResponse((r) => r.url().endsWith('/accounts/login/'));
        await page.getByRole('button', { name: 'Log in' }).click();
        await answered;
        await alert.waitFor();
      }
      assert.match((await alert.textContent()) ?? '', /^Too many login attempts\. Try again in \d+ minutes\.$/);

      await page.getByLabel('Email').fill(OWNER_EMAIL);
      await page.getByLabel('Password').fill(OWNER_PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(`${t.url}/`);
      // The home view: the inbox (web_home_view's default).
      await page.getByRole('region', { name: 'Inbox' }).waitFor();
      await page.getByRole('navigation', { name: 'Channels' }).getByRole('link', { name: /general/ }).waitFor();

      // The session cookie is HttpOnly, and nothing secret is kept in storage.
      const seen = await page.evaluate(() => {
        const w = globalThis as any;
        return { cookie: String(w.document.cookie), local: JSON.stringify({ ...w.localStorage }), session: JSON.stringify({ ...w.sessionStorage }) };
      });
      assert.doesNotMatch(seen.cookie, /sessionid/);
      assert.ok(!seen.local.includes(t.owner.apiKey) && !seen.session.includes(t.owner.apiKey));
      const cookies = await ctx.cookies();
      assert.equal(cookies.find((c) => c.name === 'sessionid')?.httpOnly, true);

      await page.getByRole('button', { name: 'Log out' }).click();
      await page.waitForURL(`${t.url}/login/`);
      await page.goto(`${t.url}/`);
      assert.equal(new URL(page.url()).pathname, '/login/');
      await ctx.close();
    }));

  test('after a server restart the client registers again and shows what it missed, without reloading', () =>
    withWebServer(async (t) => {
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await (await channelLink(page, 'general')).click();
      await send(page, 'restarts', 'before the restart');
      await messageRow(page, 'before the restart').waitFor();
      await page.evaluate(() => ((globalThis as any).__sameDocument = true));

      await t.stop();
      await page.getByRole('status').getByText('Reconnecting…').waitFor();
      await t.resume();
      // Sent right after the restart, before the client has a queue again.
      const res = await t.client(t.owner).request('POST', '/messages', { type: 'stream', to: 'general', topic: 'restarts', content: 'sent while you were away' });
      assertSuccess(res);
      await messageRow(page, 'sent while you were away').waitFor({ timeout: 20_000 });
      await eventually(async () => (await page.getByText('Reconnecting…').count()) === 0, 'the reconnect notice to go');

      // Live again: a new message arrives through the new queue.
      assertSuccess(await t.client(t.owner).request('POST', '/messages', { type: 'stream', to: 'general', topic: 'restarts', content: 'live after reconnect' }));
      await messageRow(page, 'live after reconnect').waitFor();
      assert.equal(await page.evaluate(() => (globalThis as any).__sameDocument), true);
      await ctx.close();
    }));

  test('a refused /register (the rate limit) says why while the client waits, then loads once the server takes it', () =>
    withWebServer(async (t) => {
      const ctx = await newContext();
      const page = await ctx.newPage();
      await page.goto(`${t.url}/login/`);
      await page.getByLabel('Email').fill(OWNER_EMAIL);
      await page.getByLabel('Password').fill(OWNER_PASSWORD);
      // The first registration answered as the server's rate limit answers, with Retry-After.
      let refused = 0;
      await page.route('**/json/register', (route) => {
        if (refused++ > 0) return route.continue();
        return route.fulfill({
          status: 429,
          headers: { 'Retry-After': '2' },
          contentType: 'application/json',
          body: JSON.stringify({ result: 'error', msg: 'API usage exceeded rate limit', code: 'RATE_LIMIT_HIT', 'retry-after': 2 }),
        });
      });
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('status').getByText('API usage exceeded rate limit \u2014 retrying\u2026').waitFor();
      await page.getByRole('navigation', { name: 'Views' }).waitFor();
      assert.equal(refused, 2);
      await ctx.close();
    }));

  test('website previews (the organization\u2019s setting on): a link\u2019s preview comes in live, with the page\u2019s image, title and description, and the message is not marked edited', async () => {
    const site = createServer((req, res) => {
      if (req.url === '/image.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<meta property="og:title" content="A fine article"><meta property="og:description" content="All about fine things."><meta property="og:image" content="/image.png">');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const link = `http://127.0.0.1:${(site.address() as AddressInfo).port}/article`;
    try {
      await withWebServer(
        async (t) => {
          const owner = t.client(t.owner);
          assertSuccess(await owner.request('PATCH', '/realm', { inline_url_embed_preview: true }));
          const page = await loginPage(await newContext(), t.url, OWNER_EMAIL, OWNER_PASSWORD);
          await (await channelLink(page, 'general')).click();
          await page.getByLabel('Topic', { exact: true }).fill('reading');
          await page.getByLabel('Message', { exact: true }).fill(`worth reading: ${link}`);
          await page.getByLabel('Message', { exact: true }).press('Enter');
          const row = messageRow(page, 'worth reading');
          const preview = row.locator('.message_embed');
          await preview.waitFor();
          assert.equal(await preview.getByRole('link', { name: 'A fine article' }).getAttribute('href'), link);
          assert.equal(await preview.locator('.message_embed_description').textContent(), 'All about fine things.');
          // Its image is shown (a background of the 70 px box).
          assert.match((await preview.locator('.message_embed_image').evaluate((a) => (globalThis as any).getComputedStyle(a).backgroundImage)) as string, /\/image\.png"\)$/);
          assert.equal(await row.locator('.edited').count(), 0);
        },
        { URL_PREVIEW_PRIVATE_ADDRESSES: '1' },
      );
    } finally {
      site.close();
    }
  });
  test('uploads by the file picker and by drag and drop insert Zulip-style links', () =>
    withWebServer(async (t) => {
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await (await channelLink(page, 'general')).click();
      await page.getByLabel('Topic', { exact: true }).fill('files');
      await page.getByLabel('Attach files').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('meeting notes\n') });
      const box = page.getByLabel('Message', { exact: true });
      await eventually(async () => /^\[notes\.txt\]\(\/user_uploads\/[^)]+\/notes\.txt\)$/.test(await box.inputValue()), 'the upload link in the compose box');
      const link = (await box.inputValue()).match(/\((\/user_uploads\/[^)]+)\)/)![1]!;
      await box.press('Enter');
      const row = messageRow(page, 'notes.txt');
      await row.getByRole('link', { name: 'notes.txt' }).waitFor();
      // The session can read the file it uploaded.
      const body = await page.evaluate(async (href) => (await fetch(href)).text(), link);
      assert.equal(body, 'meeting notes\n');

      // An audio file goes in as media syntax, which the server makes a player.
      await page.getByLabel('Attach files').setInputFiles({ name: 'memo[1].mp3', mimeType: 'audio/mpeg', buffer: Buffer.from('ID3\x03\x00\x00\x00\x00\x00\x00') });
      // (Brackets leave the name, which would otherwise end the link text.)
      await eventually(async () => /^!\[memo1\.mp3\]\(\/user_uploads\/[^)]+\/memo1\.mp3\)$/.test(await box.inputValue()), 'the audio upload in the compose box');
      await box.press('Enter');
      await page.locator('article.message-row audio[title="memo1.mp3"]').waitFor({ state: 'attached' });

      // Drag and drop a PNG onto the compose area.
      await dropPng(page, 'section.compose', 'dot.png');
      await eventually(async () => /^\[dot\.png\]\(\/user_uploads\/[^)]+\/dot\.png\)$/.test(await box.inputValue()), 'the dropped file link');
      await box.press('Enter');
      const imgRow = messageRow(page, 'dot.png');
      await imgRow.locator('.message_inline_image img').waitFor();
      await eventually(() => imgRow.locator('.message_inline_image img').evaluate((img) => (img as any).naturalWidth === 1), 'the inline image to load');
      // A thumbnailed photo's box has its shape before the image arrives: 1000×700 fits 240 px high.
      const photo = await sharp({ create: { width: 1000, height: 700, channels: 3, background: { r: 30, g: 120, b: 60 } } }).png().toBuffer();
      const form = new FormData();
      form.append('file', new Blob([photo], { type: 'image/png' }), 'photo.png');
      const auth = `Basic ${Buffer.from(`${t.owner.email}:${t.owner.apiKey}`).toString('base64')}`;
      const photoUrl = ((await (await fetch(`${t.url}/api/v1/user_uploads`, { method: 'POST', headers: { Authorization: auth }, body: form })).json()) as { url: string }).url;
      assertSuccess(await t.client(t.owner).request('POST', '/messages', { type: 'stream', to: 'general', topic: 'files', content: `[photo.png](${photoUrl})` }));
      const photoImg = messageRow(page, 'photo.png').locator('.message_inline_image img');
      await photoImg.waitFor();
      assert.equal(await photoImg.evaluate((img) => (img as any).style.width), '343px');
      await eventually(() => photoImg.evaluate((img) => (img as any).complete && (img as any).naturalWidth > 0), 'the thumbnail to load');
      const shownBox = (await photoImg.boundingBox())!;
      assert.ok(Math.abs(shownBox.width - 343) <= 2 && Math.abs(shownBox.height - 240) <= 2, `shown ${shownBox.width}×${shownBox.height}`);
      // A click on the preview shows the whole image over the app, with a link to it; Escape closes it.
      await photoImg.click();
      const lightbox = page.getByRole('dialog', { name: 'photo.png' });
      const whole = lightbox.getByRole('img', { name: 'photo.png' });
      await eventually(() => whole.evaluate((img) => (img as any).complete && (img as any).naturalWidth === 1000), 'the whole image loaded');
      assert.equal(await lightbox.getByRole('link', { name: 'Open in a new tab' }).getAttribute('href'), photoUrl);
      await page.keyboard.press('Escape');
      await lightbox.waitFor({ state: 'detached' });
      // The v key shows the selected message's image the same way.
      await page.locator('body').press('End');
      await page.locator('article.message-row[aria-current="true"]').filter({ hasText: 'photo.png' }).waitFor();
      await page.locator('body').press('v');
      await lightbox.waitFor();
      await page.keyboard.press('Escape');
      await lightbox.waitFor({ state: 'detached' });
      // A YouTube link's thumbnail plays the video over the app (YouTube answered here by the test), with a link to it on YouTube; no download.
      await page.route('https://i.ytimg.com/**', (route) => route.fulfill({ contentType: 'image/jpeg', body: photo }));
      const embeds: string[] = [];
      await page.route('https://www.youtube.com/**', (route) => (embeds.push(route.request().url()), route.fulfill({ contentType: 'text/html', body: '<p>the player</p>' })));
      assertSuccess(await t.client(t.owner).request('POST', '/messages', { type: 'stream', to: 'general', topic: 'files', content: 'a talk: https://youtu.be/hx1mjT73xYE' }));
      await messageRow(page, 'a talk:').locator('.youtube-video img').click();
      const player = page.getByRole('dialog', { name: 'YouTube video' });
      await player.locator('iframe[title="YouTube video"]').waitFor();
      assert.equal(await player.locator('iframe').getAttribute('src'), 'https://www.youtube.com/embed/hx1mjT73xYE');
      await eventually(async () => embeds.includes('https://www.youtube.com/embed/hx1mjT73xYE'), 'the player loaded');
      assert.equal(await player.getByRole('link', { name: 'Open in a new tab' }).getAttribute('href'), 'https://youtu.be/hx1mjT73xYE');
      assert.equal(await player.getByRole('link', { name: 'Download' }).count(), 0);
      await page.keyboard.press('Escape');
      await player.waitFor({ state: 'detached' });
      // With the organization's previews off, neither the server nor the client adds one.
      const dotLink = (await imgRow.getByRole('link', { name: 'dot.png' }).first().getAttribute('href'))!;
      assertSuccess(await t.client(t.owner).request('PATCH', '/realm', { inline_image_preview: false }));
      assertSuccess(await t.client(t.owner).request('POST', '/messages', { type: 'stream', to: 'general', topic: 'files', content: `again: [dot.png](${dotLink})` }));
      const againRow = messageRow(page, 'again:');
      await againRow.getByRole('link', { name: 'dot.png' }).waitFor();
      assert.equal(await againRow.locator('.message_inline_image').count(), 0);
      await ctx.close();
    }));

  test('search with narrow syntax, and results stay live', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Search' });
      const owner = t.client(t.owner);
      const sendApi = async (c: typeof owner, topic: string, content: string) => assertSuccess(await c.request('POST', '/messages', { type: 'stream', to: 'general', topic, content }));
      await sendApi(owner, 'fruit', 'I like banana bread');
      await sendApi(owner, 'fruit', 'apples are fine');
      await sendApi(t.client(bob), 'veg', 'carrots and banana?');
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const search = page.getByRole('searchbox', { name: 'Search' });
      const rows = page.locator('article.message-row');

      await search.fill('channel:general topic:fruit');
      await search.press('Enter');
      await eventually(async () => (await rows.count()) === 2, 'two messages in topic fruit');
      assert.equal(await rows.filter({ hasText: 'carrots' }).count(), 0);

      await search.fill(`sender:${bob.email}`);
      await search.press('Enter');
      await eventually(async () => (await rows.count()) === 1, "Bob's one message");
      await messageRow(page, 'carrots and banana?').waitFor();

      await search.fill('banana');
      await search.press('Enter');
      await eventually(async () => (await rows.count()) === 2, 'two messages with banana');
      // The matches are marked, as the server marked them; nothing else is.
      const marks = page.locator('article.message-row .rendered .highlight');
      await eventually(async () => (await marks.count()) === 2, 'banana marked in both');
      assert.deepEqual(await marks.allTextContents(), ['banana', 'banana']);
      // A new match from someone else appears in the results by itself; a non-match does not.
      await sendApi(t.client(bob), 'veg', 'no fruit here');
      await sendApi(t.client(bob), 'veg', 'banana split tonight');
      await messageRow(page, 'banana split tonight').waitFor();
      assert.equal(await rows.filter({ hasText: 'no fruit here' }).count(), 0);
      // An edited match shows its new text (the marks were for the old one).
      const bread = (await owner.request('GET', '/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: JSON.stringify([{ operator: 'search', operand: 'bread' }]) })).body.messages[0].id as number;
      assertSuccess(await owner.request('PATCH', `/messages/${bread}`, { content: 'I like banana cake' }));
      await messageRow(page, 'I like banana cake').waitFor();
      assert.equal(await rows.filter({ hasText: 'banana bread' }).count(), 0);
      // Other views show no marks.
      await page.getByRole('link', { name: /^All messages/ }).click();
      await messageRow(page, 'apples are fine').waitFor();
      assert.equal(await marks.count(), 0);
      await page.goBack();
      // Quoted, words are found together, in that order (the quotes go to the server, as Zulip's).
      await sendApi(owner, 'desserts', 'split a banana');
      await search.fill('banana split');
      await search.press('Enter');
      await eventually(async () => (await rows.count()) === 2, 'both words in two messages');
      await search.fill('"banana split"');
      await search.press('Enter');
      await eventually(async () => (await rows.count()) === 1, 'the phrase in one message');
      await messageRow(page, 'banana split tonight').waitFor();
      assert.equal(await search.inputValue(), '"banana split"');
      // "me" in a filter: oneself.
      await search.fill('sender:me banana');
      await search.press('Enter');
      await eventually(async () => (await rows.count()) === 2, 'two of my messages with banana');
      await messageRow(page, 'split a banana').waitFor();

      // Suggestions: an operator from its first letters (arrows and Enter), then a person; a channel by a plain word (Tab), then its topics.
      await search.fill('');
      await search.pressSequentially('sen');
      const suggestions = page.getByRole('listbox', { name: 'Search suggestions' });
      await suggestions.getByRole('option', { name: /^sender:/ }).waitFor();
      await search.press('ArrowDown');
      await search.press('Enter');
      assert.equal(await search.inputValue(), 'sender:');
      await search.pressSequentially('Bob S');
      await suggestions.getByRole('option', { name: /Bob Search/ }).click();
      assert.equal(await search.inputValue(), `sender:${bob.email} `);
      await search.press('Enter');
      await eventually(async () => (await rows.count()) === 3, "Bob's three messages");
      await eventually(async () => (await search.inputValue()) === `sender:${bob.email}`, 'the search in the box');
      await search.fill('');
      await search.click();
      await search.pressSequentially('gene');
      await suggestions.getByRole('option', { name: /^#general/ }).waitFor();
      await search.press('Tab');
      assert.equal(await search.inputValue(), 'channel:general ');
      await search.pressSequentially('topic:fr');
      await suggestions.getByRole('option', { name: /^fruit/ }).click();
      assert.equal(await search.inputValue(), 'channel:general topic:fruit ');
      await search.pressSequentially('is:st');
      await suggestions.getByRole('option', { name: 'is:starred' }).waitFor();
      // Escape closes the list and keeps the text; Enter with nothing chosen searches what is typed.
      await search.press('Escape');
      assert.equal(await suggestions.count(), 0);
      assert.equal(await search.inputValue(), 'channel:general topic:fruit is:st');
      // dm-including: among the operators, then a person.
      await search.fill('');
      await search.pressSequentially('dm-i');
      await suggestions.getByRole('option', { name: /^dm-including:/ }).click();
      assert.equal(await search.inputValue(), 'dm-including:');
      await search.pressSequentially('Bob S');
      await suggestions.getByRole('option', { name: /Bob Search/ }).click();
      assert.equal(await search.inputValue(), `dm-including:${bob.email} `);

      // Starred: only Welcome Bot's greeting to the first owner (every new account's greeting is starred).
      await search.fill('is:starred');
      await search.press('Enter');
      await messageRow(page, "I'm Welcome Bot, and this direct message is just for you.").waitFor();
      await eventually(async () => (await rows.count()) === 1, 'one starred message');
      await search.fill('is:starred topic:fruit');
      await search.press('Enter');
      await page.getByRole('log', { name: 'History' }).getByText('No search results.', { exact: true }).waitFor();

      // A topic link in a message, as Zulip's Markdown writes it (#narrow/stream/<id>-<name>/topic/<.-encoded>/with/<latest message>), opens that topic.
      await sendApi(owner, 'fruit.salad mix', 'kiwi and lime');
      await sendApi(owner, 'links', 'see #**general>fruit.salad mix**');
      await search.fill('topic:links');
      await search.press('Enter');
      const link = messageRow(page, 'see').locator('a.stream-topic');
      await link.waitFor();
      assert.match((await link.getAttribute('href')) ?? '', /#narrow\/stream\/\d+-general\/topic\/fruit\.2Esalad\.20mix\/with\/\d+$/);
      await link.click();
      await messageRow(page, 'kiwi and lime').waitFor();
      await eventually(async () => (await rows.count()) === 1, 'the one message of the linked topic');
      // An address naming the channel (older links): that channel, as by its ID.
      await page.evaluate(() => ((globalThis as any).location.hash = '#narrow/stream/General/topic/links'));
      await page.getByRole('heading', { level: 1, name: '#general \u203a links' }).waitFor();
      await messageRow(page, 'see').waitFor();
      // Older names of operators in addresses, as Zulip's filter reads them: subject (topic), is/private, pm-with.
      const go = (hash: string) => page.evaluate((h) => ((globalThis as any).location.hash = h), hash);
      await go('#narrow/stream/General/subject/fruit.2Esalad.20mix');
      await page.getByRole('heading', { level: 1, name: '#general \u203a fruit.salad mix' }).waitFor();
      await messageRow(page, 'kiwi and lime').waitFor();
      await go('#narrow/is/private');
      await page.getByRole('heading', { level: 1, name: 'Direct messages' }).waitFor();
      const pal = await t.makeUser({ name: 'Pal Oldlink' });
      assertSuccess(await t.client(pal).request('POST', '/messages', { type: 'direct', to: JSON.stringify([t.owner.id]), content: 'an old kind of link' }));
      await go(`#narrow/pm-with/${pal.id}-pal`);
      await page.getByRole('heading', { level: 1, name: 'Pal Oldlink' }).waitFor();
      await messageRow(page, 'an old kind of link').waitFor();
      // And typed in the search box (here within the conversation in view): from: is sender:.
      await search.fill(`from:${pal.email}`);
      await search.press('Enter');
      await eventually(async () => (await page.evaluate(() => (globalThis as any).location.hash as string)).includes('/sender/'), 'a sender search');
      await messageRow(page, 'an old kind of link').waitFor();
      await eventually(async () => (await rows.count()) === 1, 'only Pal\u2019s message');
      await ctx.close();
    }));

  test('a search started in a channel or a direct-message conversation is within it (the box starts with its operators); left untouched, the box empties again', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'lunch', content: 'pizza in general' }));
      assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'core team', topic: 'lunch', content: 'pizza in core' }));
      const pat = await t.makeUser({ name: 'Pat Pizza' });
      assertSuccess(await owner.request('POST', '/messages', { type: 'direct', to: JSON.stringify([pat.id]), content: 'pizza for two' }));
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const search = page.getByRole('searchbox', { name: 'Search' });
      const rows = page.locator('article.message-row');
      await (await channelLink(page, 'general')).click();
      await page.getByRole('heading', { name: '#general' }).waitFor();
      await search.click();
      assert.equal(await search.inputValue(), 'channel:general ');
      // Left untouched: empty again.
      await page.locator('body').click({ position: { x: 5, y: 400 } });
      assert.equal(await search.inputValue(), '');
      // "/" too; the words typed are searched in the channel only.
      await page.locator('body').press('/');
      assert.equal(await search.inputValue(), 'channel:general ');
      await search.pressSequentially('pizza');
      await search.press('Enter');
      await messageRow(page, 'pizza in general').waitFor();
      await eventually(async () => (await rows.count()) === 1, 'only the channel\u2019s pizza');
      // In a direct-message conversation: within it.
      await page.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: /Pat Pizza/ }).click();
      await page.getByRole('heading', { name: 'Pat Pizza', exact: true }).waitFor();
      await search.click();
      assert.equal(await search.inputValue(), `dm:${pat.email} `);
      await search.pressSequentially('pizza');
      await search.press('Enter');
      await messageRow(page, 'pizza for two').waitFor();
      await eventually(async () => (await rows.count()) === 1, 'only the conversation\u2019s pizza');
      // In All messages the box starts empty: a search of everything.
      await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^All messages/ }).click();
      await search.click();
      assert.equal(await search.inputValue(), '');
      await search.fill('pizza');
      await search.press('Enter');
      await eventually(async () => (await rows.count()) === 3, 'every pizza');
      await ctx.close();
    }));

  test('a message near the length limit says its length; over it, it is not sent and the box says why', () =>
    withWebServer(async (t) => {
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await (await channelLink(page, 'general')).click();
      await page.getByLabel('Topic', { exact: true }).fill('long one');
      const compose = page.getByRole('region', { name: 'Compose' });
      const box = page.getByLabel('Message', { exact: true });
      const length = compose.locator('.message-length');
      await box.fill('x'.repeat(8000));
      assert.equal(await length.count(), 0);
      await box.fill('x'.repeat(9500));
      assert.equal(await length.textContent(), '9500/10000');
      await box.fill('x'.repeat(10001));
      assert.equal(await length.textContent(), '10001/10000');
      assert.equal(await compose.getByRole('button', { name: 'Send', exact: true }).isDisabled(), true);
      await box.press('Enter');
      await compose.getByRole('alert').filter({ hasText: "Message length shouldn't be greater than 10000 characters." }).waitFor();
      assert.equal((await box.inputValue()).length, 10001);
      // Back under the limit: sent.
      await box.press('Backspace');
      await box.press('Enter');
      await eventually(async () => (await box.inputValue()) === '', 'the box emptied');
      const newest = async () => assertSuccess(await t.client(t.owner).request('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: 'false' })).messages[0];
      await eventually(async () => (await newest()).content === 'x'.repeat(10000), 'the whole message at the server');
      // Characters as the server counts them: an emoji is one (two UTF-16 units).
      await box.fill('\u{1F600}'.repeat(9500));
      assert.equal(await length.textContent(), '9500/10000');
      const emojiEnd = 'x'.repeat(9999) + '\u{1F600}';
      await box.fill(emojiEnd);
      assert.equal(await length.textContent(), '10000/10000');
      assert.equal(await compose.getByRole('button', { name: 'Send', exact: true }).isDisabled(), false);
      await box.press('Enter');
      await eventually(async () => (await newest()).content === emojiEnd, 'the emoji-ended message whole at the server');
      await ctx.close();
    }));

  test('older messages load on scrolling up, with a bounded number of rows in the page; a button jumps back to the newest; J and K page down and up', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      for (let i = 1; i <= 260; i++) assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'history', content: `history message ${i}` }));
      // Read (sent through the API, they start unread for their sender too): the channel opens at its newest messages.
      assertSuccess(await owner.request('POST', '/messages/flags/narrow', { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: '[]', op: 'add', flag: 'read' }));
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await (await channelLink(page, 'general')).click();
      await messageRow(page, 'history message 260').waitFor();
      // K and J (Zulip's): a page up and back down.
      const scrollTop = () => page.locator('.message-scroller').evaluate((sc) => sc.scrollTop);
      const bottom = await scrollTop();
      await page.locator('body').press('K');
      await eventually(async () => (await scrollTop()) < bottom - 200, 'a page up');
      await page.locator('body').press('J');
      await eventually(async () => (await scrollTop()) > bottom - 50, 'a page down');
      const rows = page.locator('article.message-row');
      let maxRows = 0;
      await eventually(async () => {
        await page.evaluate(() => {
          const sc = (globalThis as any).document.querySelector('.message-scroller');
          sc.scrollTop = 0;
        });
        maxRows = Math.max(maxRows, await rows.count());
        return (await page.getByText('history message 1', { exact: true }).count()) === 1;
      }, 'the first message after scrolling up', 30_000);
      assert.ok(maxRows <= 150, `at most 150 rows in the page, saw ${maxRows}`);
      assert.equal(await page.getByText('history message 260', { exact: true }).count(), 0, 'the newest rows left the page');
      // The button back to the newest, which then goes.
      const jump = page.getByRole('button', { name: '\u2193 Jump to newest' });
      await jump.click();
      await messageRow(page, 'history message 260').waitFor();
      await eventually(async () => (await page.locator('.message-scroller').evaluate((sc) => sc.scrollHeight - sc.scrollTop - sc.clientHeight)) < 40, 'scrolled to the bottom');
      await jump.waitFor({ state: 'detached' });
      // Up again, and back down to the newest by scrolling.
      await eventually(async () => {
        await page.evaluate(() => {
          const sc = (globalThis as any).document.querySelector('.message-scroller');
          sc.scrollTop = 0;
        });
        return (await page.getByText('history message 260', { exact: true }).count()) === 0;
      }, 'the newest rows out of the page again', 30_000);
      await eventually(async () => {
        await page.evaluate(() => {
          const sc = (globalThis as any).document.querySelector('.message-scroller');
          sc.scrollTop = sc.scrollHeight;
        });
        return (await page.getByText('history message 260', { exact: true }).count()) === 1;
      }, 'the newest message after scrolling down', 30_000);
      await ctx.close();
    }));

  test('keyboard, Markdown preview, star, quote and reply, and settings', () =>
    withWebServer(async (t) => {
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await (await channelLink(page, 'general')).click();
      await page.getByRole('heading', { name: '#general' }).waitFor();

      // "?" shows the keyboard shortcuts; Escape closes them. "t" opens Recent conversations.
      await page.locator('body').press('?');
      const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await help.getByRole('row', { name: /New direct message/ }).waitFor();
      assert.equal(await help.getByRole('row').count(), 47);
      // The keys that send, as the user's setting says (Enter, in these tests' organization).
      assert.equal(await help.getByRole('row', { name: /Send the message/ }).locator('kbd').textContent(), 'Enter');
      await page.keyboard.press('Escape');
      await help.waitFor({ state: 'detached' });
      await page.locator('body').press('t');
      await page.getByRole('heading', { name: 'Recent conversations', exact: true }).waitFor();
      await page.goBack();
      await page.getByRole('heading', { name: '#general' }).waitFor();

      // Keyboard: "/" goes to search, Escape leaves it, "c" to the compose box's topic.
      await page.locator('body').press('/');
      assert.equal(await focusedLabel(page, 'Search'), 'Search');
      await page.keyboard.press('Escape');
      await page.locator('body').press('c');
      assert.equal(await focusedLabel(page, 'Topic'), 'Topic');
      await page.keyboard.type('kbd');
      await page.keyboard.press('Tab');
      assert.equal(await focusedLabel(page, 'Message'), 'Message');
      // Shift+Enter makes a new line; Enter sends.
      await page.keyboard.type('**first line**');
      await page.keyboard.press('Shift+Enter');
      await page.keyboard.type('second line');
      assert.equal(await page.getByLabel('Message', { exact: true }).inputValue(), '**first line**\nsecond line');

      await page.getByRole('button', { name: 'Preview' }).click();
      await page.getByLabel('Preview').locator('strong', { hasText: 'first line' }).waitFor();
      await page.getByRole('button', { name: 'Edit', exact: true }).first().click();
      await page.getByLabel('Message', { exact: true }).press('Enter');
      const row = messageRow(page, 'second line');
      await row.locator('strong', { hasText: 'first line' }).waitFor();

      // Star it; it shows in Starred, whose count goes up (Welcome Bot's greeting was the one starred message).
      const starredLink = page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^Starred/ });
      await starredLink.getByLabel('1 starred').waitFor();
      await row.hover();
      await row.getByRole('button', { name: 'Star' }).click();
      await row.getByRole('button', { name: 'Unstar' }).waitFor();
      await starredLink.getByLabel('2 starred').waitFor();
      await page.getByRole('link', { name: 'Starred' }).click();
      await messageRow(page, 'second line').waitFor();

      // Quote and reply fills the compose box with Zulip's quote block.
      const starred = messageRow(page, 'second line');
      await starred.hover();
      await starred.getByRole('button', { name: 'Quote and reply' }).click();
      await eventually(async () => (await page.getByLabel('Message', { exact: true }).inputValue()).includes('```quote\n**first line**\nsecond line\n```'), 'the quote in the compose box');
      assert.equal(await page.getByLabel('Topic', { exact: true }).inputValue(), 'kbd');

      // Settings: a new name shows at once (through the event queue).
      const dialog = await openSettings(page);
      await dialog.getByLabel('Full name').fill('Renamed Owner');
      await dialog.getByRole('button', { name: 'Save name' }).click();
      await dialog.getByText('Name saved.').waitFor();
      await page.locator('.me-name', { hasText: 'Renamed Owner' }).waitFor();
      await dialog.getByLabel('24-hour time').check();
      await dialog.getByText('Saved.', { exact: true }).waitFor();
      await page.keyboard.press('Escape');
      await eventually(async () => (await page.getByRole('dialog', { name: 'Settings' }).count()) === 0, 'settings to close');
      const me = await t.client(t.owner).request('GET', '/users/me');
      assert.equal(me.body.full_name, 'Renamed Owner');
      const settings = await t.client(t.owner).request('POST', '/register', { fetch_event_types: ['user_settings'] });
      assert.equal(settings.body.user_settings.twenty_four_hour_time, true);
      await ctx.close();
    }));

  test('the selected message: the arrows and j/k move it, and keys reply, quote, edit, star, react, open its actions, its sender and its conversation, and collapse it', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'keys' }]) }));
      const ids: number[] = [];
      for (const [topic, content] of [['one', 'first words'], ['two', 'second words'], ['two', 'third words']]) {
        ids.push(assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'keys', topic, content })).id);
      }
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await (await channelLink(page, 'keys')).click();
      // (The channel's own list: All messages, shown before it, has these messages too, and a key pressed there would select in it.)
      await page.getByRole('heading', { name: '#keys', exact: true }).waitFor();
      await messageRow(page, 'third words').waitFor();
      const selected = page.locator('article.message-row[aria-current="true"]');
      const body = page.locator('body');

      // The first key selects the lowest message in view; then up and down.
      await body.press('k');
      await selected.filter({ hasText: 'third words' }).waitFor();
      await body.press('k');
      await selected.filter({ hasText: 'second words' }).waitFor();
      await body.press('ArrowUp');
      await selected.filter({ hasText: 'first words' }).waitFor();
      await body.press('End');
      await selected.filter({ hasText: 'third words' }).waitFor();
      await body.press('Home');
      await selected.filter({ hasText: 'first words' }).waitFor();
      await body.press('End');
      await selected.filter({ hasText: 'third words' }).waitFor();
      await body.press('k');
      await body.press('k');
      await selected.filter({ hasText: 'first words' }).waitFor();
      await body.press('j');
      await body.press('ArrowDown');
      await selected.filter({ hasText: 'third words' }).waitFor();
      await body.press('k');

      // Starred and reacted to at the server.
      await body.press('Control+s');
      await eventually(async () => (assertSuccess(await owner.request('GET', `/messages/${ids[1]}`)).message.flags as string[]).includes('starred'), 'starred at the server');
      await body.press('+');
      await eventually(async () => (assertSuccess(await owner.request('GET', `/messages/${ids[1]}`)).message.reactions as Array<{ emoji_code: string }>).some((r) => r.emoji_code === '1f44d'), 'the reaction at the server');

      // Its actions menu; Escape closes it.
      await body.press('i');
      await page.getByRole('menu', { name: 'More actions' }).waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('menu', { name: 'More actions' }).waitFor({ state: 'detached' });

      // Edited in place: the box holds its Markdown; Escape leaves it.
      await body.press('e');
      const edit = selected.getByRole('textbox');
      await eventually(async () => (await edit.inputValue()) === 'second words', 'the edit box with the text');
      await edit.press('Escape');
      await edit.waitFor({ state: 'detached' });

      // The left arrow edits one's last message (the third), whichever is selected.
      await body.press('ArrowLeft');
      await eventually(async () => (await selected.getByRole('textbox').inputValue()) === 'third words', 'the last message in its edit box');
      await selected.getByRole('textbox').press('Escape');
      await body.press('k');

      // Reply: the compose box to its topic; quote: its text quoted.
      await body.press('r');
      assert.equal(await focusedLabel(page, 'Message'), 'Message');
      assert.equal(await page.getByLabel('Topic', { exact: true }).inputValue(), 'two');
      await page.keyboard.press('Escape');
      await body.press('>');
      await eventually(async () => (await page.getByLabel('Message', { exact: true }).inputValue()).includes('```quote\nsecond words\n```'), 'the quote in the compose box');
      await page.getByLabel('Message', { exact: true }).fill('');
      await page.keyboard.press('Escape');

      // A direct message to its sender.
      await body.press('R');
      assert.equal(await focusedLabel(page, 'Message'), 'Message');
      await eventually(async () => (await page.getByRole('button', { name: 'Direct message', exact: true }).getAttribute('aria-pressed')) === 'true', 'the box set to a direct message');
      // (The owner wrote it: a note to self.)
      await page.locator('.dm-recipients .chip', { hasText: 'Owner' }).waitFor();
      await page.keyboard.press('Escape');

      // The sender's card, then the message's conversation.
      await body.press('u');
      const card = page.getByRole('dialog', { name: /Owner/ });
      await card.waitFor();
      await page.keyboard.press('Escape');
      await card.waitFor({ state: 'detached' });
      // Collapsed (the flag at the server, and the text hidden), then expanded, with the key; from the menu too.
      const second = messageRow(page, 'second words');
      const flags = async () => assertSuccess(await owner.request('GET', `/messages/${ids[1]}`)).message.flags as string[];
      await body.press('-');
      await eventually(async () => (await flags()).includes('collapsed'), 'collapsed at the server');
      const showMore = page.locator('article.message-row[aria-current="true"]').getByRole('button', { name: 'Show more' });
      await showMore.waitFor();
      assert.equal(await page.locator('article.message-row[aria-current="true"] .message-content').count(), 0);
      await body.press('-');
      await eventually(async () => !(await flags()).includes('collapsed'), 'expanded at the server');
      await second.getByText('second words').waitFor();
      await second.hover();
      await second.getByRole('button', { name: 'More actions' }).click();
      await page.getByRole('menuitem', { name: 'Collapse message' }).click();
      await showMore.waitFor();
      await showMore.click();
      await second.getByText('second words').waitFor();
      assert.ok(!(await flags()).includes('collapsed'));

      await body.press('s');
      await page.getByRole('heading', { name: '#keys \u203a two' }).waitFor();
      await ctx.close();
    }));

  test('calls: the compose box adds a Jitsi Meet video or voice call link, on the organization\u2019s Jitsi server once an administrator sets it; no buttons once calls are turned off', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const box = page.getByLabel('Message', { exact: true });
      await page.getByRole('button', { name: 'Add a video call' }).click();
      assert.match(await box.inputValue(), /^\[Join video call\.\]\(https:\/\/meet\.jit\.si\/\d{15}\) $/);
      await box.fill('');
      // An administrator sets the organization's Jitsi server in the organization settings.
      const realmAtServer = async () => assertSuccess(await owner.request('POST', '/register', { fetch_event_types: ['realm'] }));
      const org = (await openSettings(page)).getByRole('region', { name: 'Organization', exact: true });
      await org.getByLabel('Jitsi server').fill('https://jitsi.example.com');
      await org.getByRole('button', { name: 'Save server' }).click();
      await eventually(async () => (await realmAtServer()).realm_jitsi_server_url === 'https://jitsi.example.com', 'the Jitsi server at the server');
      await page.keyboard.press('Escape');
      await eventually(async () => {
        await box.fill('');
        await page.getByRole('button', { name: 'Add a voice call' }).click();
        return /^\[Join voice call\.\]\(https:\/\/jitsi\.example\.com\/\d{15}#config\.startWithVideoMuted=true\) $/.test(await box.inputValue());
      }, 'a voice call on the organization\u2019s server');
      // Calls turned off there: the server has it, and the buttons go.
      await openSettings(page);
      await org.getByLabel('Video and voice calls').selectOption({ label: 'None' });
      await eventually(async () => (await realmAtServer()).realm_video_chat_provider === 0, 'calls off at the server');
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'Add a video call' }).waitFor({ state: 'detached' });
      assert.equal(await page.getByRole('button', { name: 'Add a voice call' }).count(), 0);
      await ctx.close();
    }));

  test('formatting keys in the compose box: Ctrl+B bold and again plain, Ctrl+I italic, Ctrl+Shift+L a link with "url" to type over; Ctrl+Z undoes; the formatting buttons too', () =>
    withWebServer(async (t) => {
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const box = page.getByLabel('Message', { exact: true });
      const select = (from: number, to: number) => box.evaluate((el, [a, b]) => (el as unknown as { setSelectionRange(a: number, b: number): void }).setSelectionRange(a!, b!), [from, to]);
      await box.fill('make this bold');
      await select(10, 14);
      await box.press('Control+b');
      assert.equal(await box.inputValue(), 'make this **bold**');
      await box.press('Control+b');
      assert.equal(await box.inputValue(), 'make this bold');
      await box.press('Control+i');
      assert.equal(await box.inputValue(), 'make this *bold*');
      await box.press('Control+z');
      assert.equal(await box.inputValue(), 'make this bold');
      await select(0, 4);
      await box.press('Control+Shift+L');
      await page.keyboard.type('https://example.com');
      assert.equal(await box.inputValue(), '[make](https://example.com) this bold');

      // The same by the formatting buttons (shown on asking), and strikethrough, code and a quote.
      const bar = page.getByRole('toolbar', { name: 'Formatting' });
      assert.equal(await bar.count(), 0);
      await page.getByRole('button', { name: 'Formatting', exact: true }).click();
      await box.fill('one two three');
      await select(4, 7);
      await bar.getByRole('button', { name: 'Bold' }).click();
      assert.equal(await box.inputValue(), 'one **two** three');
      await bar.getByRole('button', { name: 'Bold' }).click();
      assert.equal(await box.inputValue(), 'one two three');
      await bar.getByRole('button', { name: 'Strikethrough' }).click();
      assert.equal(await box.inputValue(), 'one ~~two~~ three');
      await box.press('Control+z');
      await select(0, 3);
      await bar.getByRole('button', { name: 'Code' }).click();
      assert.equal(await box.inputValue(), '`one` two three');
      await box.fill('said so');
      await select(0, 7);
      await bar.getByRole('button', { name: 'Quote' }).click();
      assert.equal(await box.inputValue(), '```quote\nsaid so\n```');
      await box.fill('docs');
      await select(0, 4);
      await bar.getByRole('button', { name: 'Link' }).click();
      await page.keyboard.type('https://example.org');
      assert.equal(await box.inputValue(), '[docs](https://example.org)');
      // Lists: each line the selection touches; math; a spoiler with its header to type over.
      await box.fill('eggs\nmilk');
      await select(1, 6);
      await bar.getByRole('button', { name: 'Bulleted list' }).click();
      assert.equal(await box.inputValue(), '- eggs\n- milk');
      await box.fill('first\nsecond');
      await select(0, 12);
      await bar.getByRole('button', { name: 'Numbered list' }).click();
      assert.equal(await box.inputValue(), '1. first\n2. second');
      await box.fill('x^2');
      await select(0, 3);
      await bar.getByRole('button', { name: 'Math (LaTeX)' }).click();
      assert.equal(await box.inputValue(), '$$x^2$$');
      await box.fill('the ending');
      await select(0, 10);
      await bar.getByRole('button', { name: 'Spoiler' }).click();
      await page.keyboard.type('Plot');
      assert.equal(await box.inputValue(), '```spoiler Plot\nthe ending\n```');
      // A global time: the date and time picked, with this browser's offset (UTC here).
      await box.fill('meet at ');
      await select(8, 8);
      await bar.getByRole('button', { name: 'Global time' }).click();
      await bar.getByLabel('Date and time').fill('2026-12-01T10:30');
      await bar.getByRole('button', { name: 'Insert' }).click();
      const offset = await page.evaluate(() => -new Date('2026-12-01T10:30').getTimezoneOffset());
      const sign = offset < 0 ? '-' : '+';
      const hhmm = `${String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0')}:${String(Math.abs(offset) % 60).padStart(2, '0')}`;
      assert.equal(await box.inputValue(), `meet at <time:2026-12-01T10:30:00${sign}${hhmm}> `);
      await ctx.close();
    }));

  test('a narrow opens at its first unread message, what came before above it; one\u2019s own message sent there brings the newest into view; the button jumps there too', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ name: 'Bob Catchup' });
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'catchup' }]), principals: JSON.stringify([t.owner.id, bob.id]) }));
      for (let i = 1; i <= 60; i++) assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'catchup', topic: 'days', content: `seen ${String(i).padStart(2, '0')}` }));
      assertSuccess(await owner.request('POST', '/messages/flags/narrow', { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: '[]', op: 'add', flag: 'read' }));
      for (let i = 1; i <= 150; i++) assertSuccess(await t.client(bob).request('POST', '/messages', { type: 'stream', to: 'catchup', topic: 'days', content: `fresh ${String(i).padStart(3, '0')}` }));
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');
      // (A tall window: a seventh of the list is not some fixed offset.)
      await page.setViewportSize({ width: 1280, height: 1100 });
      await (await channelLink(page, 'catchup')).click();
      const first = messageRow(page, 'fresh 001');
      await first.waitFor();
      // A seventh of the list's height from its top (Zulip's), with the read messages before it above.
      const pane = await page.locator('.message-scroller').evaluate((sc: any) => ({ top: sc.getBoundingClientRect().top, height: sc.clientHeight }));
      const row = (await first.boundingBox())!;
      assert.ok(Math.abs(row.y - pane.top - pane.height / 7) <= 2, `the first unread message at ${row.y - pane.top} px in a ${pane.height} px list`);
      await messageRow(page, 'seen 60').waitFor();
      // Not all of the newer ones yet: the button jumps to them.
      assert.equal(await messageRow(page, 'fresh 150').count(), 0);
      // One's own message sent from there: the newest page comes, and the view goes to it.
      await page.getByLabel('Topic', { exact: true }).fill('days');
      await page.getByLabel('Message', { exact: true }).fill('caught up now');
      await page.getByLabel('Message', { exact: true }).press('Enter');
      const mine = messageRow(page, 'caught up now');
      await mine.waitFor();
      await messageRow(page, 'fresh 150').waitFor();
      const inView = async (row: typeof mine) => {
        const p = (await page.locator('.message-scroller').boundingBox())!;
        const r = (await row.boundingBox())!;
        return r.y >= p.y - 1 && r.y + r.height <= p.y + p.height + 1;
      };
      await eventually(() => inView(mine), 'the sent message in view');
      // Scrolled up, a message sent goes into view too; and up again, the button jumps to the newest.
      await page.locator('.message-scroller').evaluate((sc) => (sc.scrollTop = 0));
      await page.getByLabel('Message', { exact: true }).fill('one more');
      await page.getByLabel('Message', { exact: true }).press('Enter');
      await eventually(() => inView(messageRow(page, 'one more')), 'the second sent message in view');
      await page.locator('.message-scroller').evaluate((sc) => (sc.scrollTop = 0));
      await page.getByRole('button', { name: '\u2193 Jump to newest' }).click();
      await eventually(() => inView(messageRow(page, 'one more')), 'the newest in view after the jump');
      await ctx.close();
    }));

  test('Starred messages and a search open at the newest message, not the first unread (Zulip\u2019s); a topic at its first unread', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = t.client(await t.makeUser({ name: 'Bob Stars' }));
      const ids: number[] = [];
      for (let i = 1; i <= 60; i++) ids.push(assertSuccess(await bob.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'stars', content: `starred ${String(i).padStart(2, '0')}` })).id);
      assertSuccess(await owner.request('POST', '/messages/flags', { messages: JSON.stringify(ids), op: 'add', flag: 'starred' }));
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');
      const inView = async (text: string) => {
        const p = (await page.locator('.message-scroller').boundingBox())!;
        const r = await messageRow(page, text).boundingBox();
        return r !== null && r.y + r.height > p.y && r.y < p.y + p.height;
      };
      for (const view of ['#narrow/is/starred', '#narrow/search/starred']) {
        await page.evaluate((h) => ((globalThis as any).location.hash = h), view);
        await messageRow(page, 'starred 60').waitFor();
        await eventually(() => inView('starred 60'), `the newest in view in ${view}`);
        assert.equal(await inView('starred 01'), false, `the first unread out of view in ${view}`);
      }
      // (Neither view marked anything read.) The topic opens at its first unread message.
      const generalId = await streamIdOf(owner, 'general');
      await page.evaluate((g) => ((globalThis as any).location.hash = `#narrow/channel/${g}/topic/stars`), generalId);
      await messageRow(page, 'starred 01').waitFor();
      await eventually(() => inView('starred 01'), 'the first unread in view in the topic');
      assert.equal(await inView('starred 60'), false);
      await ctx.close();
    }));

  test('a long message shows condensed until "Show more", and "Show less" condenses it again; a short one has no button; long is a height, measured again in a window of another size and when its images load', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n');
      assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'long', content: `A long log:\n\`\`\`\n${lines}\n\`\`\`` }));
      // One paragraph, long by its height alone.
      assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'long', content: `A long paragraph: ${'word '.repeat(1000)}` }));
      assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'long', content: 'short and sweet' }));
      // Three previews of another site's images, whose sizes are known only once they load (late here): long then.
      const pictures = ['one', 'two', 'three'].map((n) => `https://images.example.com/${n}.png`);
      assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'long', content: `Pictures:\n${pictures.join('\n')}` }));
      const tall = await sharp({ create: { width: 200, height: 600, channels: 3, background: '#3a6' } }).png().toBuffer();
      const ctx = await newContext();
      await ctx.route('**/thumbnail?*', async (route) => {
        await new Promise((r) => setTimeout(r, 1500));
        await route.fulfill({ status: 200, contentType: 'image/png', body: tall }).catch(() => {});
      });
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const pictureRow = messageRow(page, 'Pictures');
      await pictureRow.locator('.message_inline_image img').first().waitFor();
      await eventually(async () => (await pictureRow.locator('.message_inline_image img').evaluateAll((els) => els.every((el) => (el as any).naturalHeight > 0))) === true, 'the images loaded');
      await pictureRow.getByRole('button', { name: 'Show more' }).waitFor();
      const row = messageRow(page, 'A long log');
      const content = row.locator('.message-content');
      await content.waitFor();
      const cut = () => content.evaluate((el) => el.scrollHeight > el.clientHeight + 1);
      assert.equal(await cut(), true, 'condensed');
      await row.getByRole('button', { name: 'Show more' }).click();
      await eventually(async () => !(await cut()), 'shown whole');
      await row.getByRole('button', { name: 'Show less' }).click();
      await eventually(() => cut(), 'condensed again');
      const paragraph = messageRow(page, 'A long paragraph');
      assert.equal(await paragraph.locator('.message-content').evaluate((el) => el.scrollHeight > el.clientHeight + 1), true, 'the paragraph condensed');
      await paragraph.getByRole('button', { name: 'Show more' }).waitFor();
      assert.equal(await messageRow(page, 'short and sweet').getByRole('button', { name: /Show (more|less)/ }).count(), 0);
      // A window tall enough for both (the cutoff grows with it): shown whole, without the button.
      await page.setViewportSize({ width: 1280, height: 2600 });
      await eventually(async () => (await page.getByRole('button', { name: /Show (more|less)/ }).count()) === 0, 'no message long in a tall window');
      assert.equal(await cut(), false);
      // Back to a small one: condensed again.
      await page.setViewportSize({ width: 1280, height: 720 });
      await eventually(async () => (await paragraph.getByRole('button', { name: 'Show more' }).count()) === 1, 'the paragraph long again');
      await ctx.close();
    }));

  test('notes to self: written in the conversation with oneself, sent there', () =>
    withWebServer(async (t) => {
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await page.goto(`${t.url}/#narrow/dm/${t.owner.id}-dm`);
      await page.locator('.dm-recipients .chip', { hasText: 'Owner' }).waitFor();
      await page.getByLabel('Message', { exact: true }).fill('remember the milk');
      await page.getByLabel('Message', { exact: true }).press('Enter');
      await messageRow(page, 'remember the milk').waitFor();
      const [sent] = assertSuccess(
        await t.client(t.owner).request('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: JSON.stringify([{ operator: 'dm', operand: [t.owner.id] }]) }),
      ).messages as Array<{ content: string; display_recipient: Array<{ id: number }> }>;
      assert.equal(sent!.content, '<p>remember the milk</p>');
      assert.deepEqual(sent!.display_recipient.map((r) => r.id), [t.owner.id]);
      await ctx.close();
    }));

  test('a /me message shows as what its sender does, also once edited into one', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'me', content: '/me waves at **everyone**' }));
      const plain = assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'me', content: 'plain words' })).id as number;
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const me = messageRow(page, 'waves at').locator('.me-message');
      await me.waitFor();
      assert.equal((await me.textContent())!.trim(), 'Owner waves at everyone');
      await me.locator('strong', { hasText: 'everyone' }).waitFor();
      assertSuccess(await owner.patch(`/messages/${plain}`, { content: '/me edits' }));
      await eventually(async () => ((await messageRow(page, 'edits').locator('.me-message').textContent()) ?? '').trim() === 'Owner edits', 'the edited /me message');
      await ctx.close();
    }));

  test('a global time (<time:…>) shows in the reader\u2019s time zone and clock style, following the setting, with the text written in its tooltip', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'times', content: 'Meet at <time:1496701800>.' }));
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const time = messageRow(page, 'Meet at').locator('time[datetime="2017-06-05T22:30:00Z"]');
      await time.waitFor();
      // The hour and minute of that moment in the browser's time zone.
      const [hours, minutes] = await page.evaluate(() => {
        const d = new Date(1496701800 * 1000);
        return [d.getHours(), String(d.getMinutes()).padStart(2, '0')] as const;
      });
      const text = await time.textContent();
      assert.ok(text!.includes('2017') && text!.includes(`${hours % 12 || 12}:${minutes}`) && /PM|AM/.test(text!), text!);
      assert.equal(await time.getAttribute('title'), 'In your time zone. Written as: 1496701800');
      assertSuccess(await owner.patch('/settings', { twenty_four_hour_time: true }));
      await eventually(async () => (await time.textContent())!.includes(`${String(hours).padStart(2, '0')}:${minutes}`) && !/PM|AM/.test((await time.textContent())!), 'the 24-hour clock');
      await ctx.close();
    }));

  test('a phone-sized window: the views and channels, and People, open over the app from the top bar, and close on going somewhere or with Escape; Recent conversations and the Channels dialog fit', () =>
    withWebServer(async (t) => {
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await page.setViewportSize({ width: 390, height: 800 });
      const nav = page.getByRole('navigation', { name: 'Channels' });
      const people = page.getByRole('complementary', { name: 'People' });
      const menu = page.getByRole('button', { name: 'Views and channels' });
      await eventually(async () => !(await nav.isVisible()) && !(await people.isVisible()), 'both sidebars out of the way');
      await menu.click();
      await nav.waitFor();
      assert.equal(await menu.getAttribute('aria-expanded'), 'true');
      await (await channelLink(page, 'general')).click();
      await page.getByRole('heading', { name: '#general' }).waitFor();
      await eventually(async () => !(await nav.isVisible()), 'the sidebar closed on going to #general');
      // Also when the link is to where the page already is.
      await menu.click();
      await (await channelLink(page, 'general')).click();
      await eventually(async () => !(await nav.isVisible()), 'the sidebar closed on #general again');
      await page.getByRole('button', { name: 'People', exact: true }).click();
      await people.waitFor();
      await people.getByText(/^Owner/).first().waitFor();
      await page.keyboard.press('Escape');
      await eventually(async () => !(await people.isVisible()), 'People closed by Escape');
      // A click beside it closes it too.
      await menu.click();
      await nav.waitFor();
      await page.mouse.click(380, 400);
      await eventually(async () => !(await nav.isVisible()), 'closed by a click beside it');
      // Recent conversations fit the width: the participants column is left out there.
      await page.goto(`${t.url}/#recent`);
      const table = page.getByRole('table', { name: 'Conversations' });
      await table.waitFor();
      assert.equal(await table.getByRole('columnheader', { name: 'Participants' }).isVisible(), false);
      assert.ok(await page.locator('.recent').evaluate((e) => e.scrollWidth <= e.clientWidth), 'no sideways scrolling in Recent conversations');
      // A channel's buttons and its settings stay inside the Channels dialog.
      const general = await streamIdOf(t.client(t.owner), 'general');
      await page.goto(`${t.url}/#channels/${general}/general/general`);
      const dialog = page.getByRole('dialog', { name: 'Channels' });
      await dialog.getByLabel('Channel name').waitFor();
      const outside = await dialog.evaluate((d) => {
        const right = d.getBoundingClientRect().right;
        return [...d.querySelectorAll('button, input, select')].filter((e) => e.getBoundingClientRect().right > right).map((e) => e.outerHTML.slice(0, 80));
      });
      assert.deepEqual(outside, []);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      // Wide again: both sidebars in the page, no buttons for them.
      await page.setViewportSize({ width: 1280, height: 720 });
      await nav.waitFor();
      await people.waitFor();
      assert.equal(await menu.isVisible(), false);
      await ctx.close();
    }));
  test('a forged cross-site request is rejected (CSRF), and the logged-in page itself works', () =>
    withWebServer(async (t) => {
      let evil: Server | undefined;
      try {
        const ctx = await newContext();
        const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
        // Another origin serves a page that auto-submits a form to the chat server.
        evil = createServer((_req, res) => {
          res.setHeader('Content-Type', 'text/html');
          res.end(`<form id="f" method="POST" action="${t.url}/json/messages">
            <input name="type" value="stream"><input name="to" value="general"><input name="topic" value="pwned"><input name="content" value="forged message">
            </form><script>document.getElementById('f').submit()</script>`);
        });
        await new Promise<void>((r) => evil!.listen(0, '127.0.0.1', r));
        const evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/`;
        await page.goto(evilUrl);
        await page.waitForURL(`${t.url}/json/messages`);
        const forged = JSON.parse((await page.textContent('body')) ?? '{}');
        assert.equal(forged.result, 'error');
        assert.equal(forged.code, 'CSRF_FAILED');

        // A script on the page without the token is refused too.
        await page.goto(`${t.url}/`);
        await page.getByRole('region', { name: 'Inbox' }).waitFor();
        const noToken = await page.evaluate(async () => {
          const r = await fetch('/json/messages', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'type=stream&to=general&topic=x&content=no+token' });
          return { status: r.status, body: (await r.json()) as Record<string, any> };
        });
        assert.equal(noToken.status, 403);
        assert.equal(noToken.body.code, 'CSRF_FAILED');

        const r = await t.client(t.owner).request('GET', '/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow: [{ operator: 'channel', operand: 'general' }] });
        assert.ok(!r.body.messages.some((m: any) => /forged message|no token/.test(m.content)));
        await ctx.close();
      } finally {
        evil?.close();
      }
    }));
});
