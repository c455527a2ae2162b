/**
 * The browser client in real Chromium: login and logout, two people chatting
 * live in two browser profiles, reconnecting after a server restart, uploads,
 * search, and CSRF rejection of a forged cross-site request.
 * Skipped (with one line saying why) where Chromium is not installed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD } from './helpers.ts';
import { browserSkipReason, eventually, launchChromium, loginPage, loginToView, messageRow, startWebTestServer, type WebTestServer } from './web-browser.ts';

/**
 * The aria-label of the focused element, once it is `label` or after 5 s: the
 * client moves the focus after its next render (a keyboard shortcut opens the
 * compose box first), so a read right after the key press can come too early.
 */
async function focusedLabel(page: Page, label: string): Promise<string | null> {
  await page
    .waitForFunction((l) => (globalThis as any).document.activeElement?.getAttribute('aria-label') === l, label, { timeout: 5000 })
    .catch(() => {});
  return page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label') ?? null);
}

const skip = await browserSkipReason();
if (skip) console.log(`# ${skip}`);

const PASSWORD = 'second-user-pw-1';

test('the web client uses only the public API: nothing under web/ imports the server code', () => {
  const webDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'web', 'src');
  const files = readdirSync(webDir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(ts|tsx)$/.test(f));
  assert.ok(files.length > 5);
  for (const f of files) {
    const src = readFileSync(join(webDir, f), 'utf8');
    for (const m of src.matchAll(/from\s+'([^']+)'/g)) assert.ok(!m[1]!.includes('/src/') && !m[1]!.startsWith('../../'), `${f} imports ${m[1]}`);
  }
});

describe('web client in Chromium', { skip }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  async function channelLink(page: Page, name: string) {
    return page.getByRole('navigation', { name: 'Channels' }).getByRole('link', { name: new RegExp(`^${name}\\b`) });
  }

  async function send(page: Page, topic: string | null, text: string): Promise<void> {
    if (topic !== null) await page.getByLabel('Topic', { exact: true }).fill(topic);
    const box = page.getByLabel('Message', { exact: true });
    await box.fill(text);
    await box.press('Enter');
    await eventually(async () => (await box.inputValue()) === '', 'the compose box to clear after sending');
  }

  test('login page: bad credentials and deactivated users get clear messages; login, no secrets in storage, logout', async () => {
    const t = await startWebTestServer();
    try {
      const gone = await t.makeUser({ password: PASSWORD, name: 'Gone User' });
      await t.client(t.owner).request('DELETE', `/users/${gone.id}`);
      const ctx = await browser.newContext();
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
      await page.getByRole('log', { name: 'History' }).waitFor();
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
    } finally {
      await t.close();
    }
  });

  test('two people chat live: channel messages, topics, unread counts, reactions, edits, deletion, direct messages, typing, presence', async () => {
    const t = await startWebTestServer();
    try {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Browser' });
      const ctxA = await browser.newContext();
      const ctxB = await browser.newContext();
      const pingsA: URLSearchParams[] = [];
      ctxA.on('request', (req) => {
        if (req.method() === 'POST' && new URL(req.url()).pathname === '/json/users/me/presence') pingsA.push(new URLSearchParams(req.postData() ?? ''));
      });
      const a = await loginPage(ctxA, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const b = await loginPage(ctxB, t.url, bob.email, PASSWORD);

      // Bob looks at Starred (empty), so what the owner sends stays unread for him.
      await b.getByRole('link', { name: 'Starred' }).click();
      await (await channelLink(a, 'general')).click();
      await a.getByRole('heading', { name: '#general' }).waitFor();
      await send(a, 'greetings', 'Hello from the owner');
      await messageRow(a, 'Hello from the owner').waitFor();

      const bobGeneral = await channelLink(b, 'general');
      await bobGeneral.getByLabel('1 unread').waitFor();
      await b.getByRole('link', { name: 'All messages' }).getByLabel('1 unread').waitFor();

      // Opening the channel shows the message and its topic; seeing it marks it read.
      await bobGeneral.click();
      await messageRow(b, 'Hello from the owner').waitFor();
      await b.getByRole('list', { name: 'In general' }).getByRole('link', { name: /greetings/ }).waitFor();
      await eventually(async () => (await bobGeneral.getByLabel(/unread/).count()) === 0, "Bob's unread count to clear");
      await eventually(async () => {
        const r = await t.client(bob).request('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0 });
        return r.body.messages?.[0]?.flags?.includes('read');
      }, 'the server to record the message as read');

      // A new topic appears live in the other window's topic list.
      await send(b, 'plans', 'Bob here, new topic');
      await a.getByRole('list', { name: 'In general' }).getByRole('link', { name: /plans/ }).waitFor();
      await messageRow(a, 'Bob here, new topic').waitFor();

      // Reactions: Bob adds one, the owner sees it and adds his own.
      const bobRow = messageRow(b, 'Hello from the owner');
      await bobRow.hover();
      await bobRow.getByRole('button', { name: 'Add reaction' }).click();
      await b.getByRole('dialog', { name: 'Choose an emoji' }).getByRole('button', { name: 'tada' }).click();
      const ownerRow = messageRow(a, 'Hello from the owner');
      await ownerRow.getByRole('button', { name: 'tada reaction, 1' }).waitFor();
      await ownerRow.getByRole('button', { name: 'tada reaction, 1' }).click();
      await bobRow.getByRole('button', { name: 'tada reaction, 2' }).waitFor();
      await bobRow.getByRole('button', { name: 'tada reaction, 2' }).click();
      await ownerRow.getByRole('button', { name: 'tada reaction, 1' }).waitFor();

      // The owner edits his message; Bob sees the new text.
      await ownerRow.hover();
      await ownerRow.getByRole('button', { name: 'Edit' }).click();
      const editBox = a.getByLabel('Edit content');
      await editBox.fill('Hello from the owner, edited');
      await editBox.press('Enter');
      await messageRow(b, 'Hello from the owner, edited').getByText('(edited)').waitFor();

      // Bob deletes his own message; it disappears for the owner.
      const bobOwn = messageRow(b, 'Bob here, new topic');
      await bobOwn.hover();
      await bobOwn.getByRole('button', { name: 'Delete' }).click();
      await b.getByRole('alertdialog', { name: 'Delete message?' }).getByRole('button', { name: 'Delete' }).click();
      await eventually(async () => (await a.locator('article.message-row', { hasText: 'Bob here, new topic' }).count()) === 0, 'the deleted message to disappear');

      // Presence: each sees the other as active.
      await a.getByRole('complementary', { name: 'People' }).getByRole('region', { name: 'Active' }).getByText('Bob Browser').waitFor();
      await b.getByRole('complementary', { name: 'People' }).getByRole('region', { name: 'Active' }).getByText(t.owner.row.full_name).waitFor();
      // The pings ask only for what changed since what the client has (last_update_id, from /register on).
      assert.ok(pingsA.length > 0, "the owner's page pinged");
      for (const p of pingsA) assert.match(p.get('last_update_id') ?? '', /^-?\d+$/, `a ping without last_update_id: ${p.toString()}`);

      // Direct messages: Bob opens a conversation with the owner from the people list.
      await a.getByRole('complementary', { name: 'People' }).getByRole('link', { name: /Bob Browser/ }).click();
      await a.getByRole('heading', { name: 'Bob Browser' }).waitFor();
      await b.getByRole('complementary', { name: 'People' }).getByRole('link', { name: new RegExp(t.owner.row.full_name) }).click();
      const bobBox = b.getByLabel('Message', { exact: true });
      await bobBox.fill('psst');
      await a.getByText('Bob Browser is typing…').waitFor();
      await bobBox.fill('A private word');
      await bobBox.press('Enter');
      await messageRow(a, 'A private word').waitFor();
      await eventually(async () => (await a.getByText('Bob Browser is typing…').count()) === 0, 'the typing notice to end');
      const dmList = a.getByRole('navigation', { name: 'Conversations' });
      await dmList.getByRole('link', { name: /Bob Browser/ }).waitFor();

      // A direct message to two people.
      const carol = await t.makeUser({ password: PASSWORD, name: 'Carol Third' });
      await a.getByRole('link', { name: 'Direct messages' }).first().click();
      await a.getByRole('button', { name: 'Direct message' }).click();
      await a.getByLabel('Recipients').fill('Bob');
      await a.getByRole('listbox', { name: 'People' }).getByRole('option', { name: /Bob Browser/ }).click();
      await a.getByLabel('Recipients').fill('Carol');
      await a.getByRole('listbox', { name: 'People' }).getByRole('option', { name: /Carol Third/ }).click();
      await send(a, null, 'Group hello');
      // Bob is still in his conversation with the owner: the group one shows up in his sidebar, unread.
      const groupLink = b.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: /Carol Third/ });
      await groupLink.getByLabel('1 unread').waitFor();
      await groupLink.click();
      await messageRow(b, 'Group hello').waitFor();
      const r = await t.client(carol).request('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0 });
      assert.equal(r.body.messages[0].content, '<p>Group hello</p>');
      assert.deepEqual(r.body.messages[0].display_recipient.map((x: any) => x.id).sort(), [t.owner.id, bob.id, carol.id].sort());
      await ctxA.close();
      await ctxB.close();
    } finally {
      await t.close();
    }
  });

  test('after a server restart the client registers again and shows what it missed, without reloading', async () => {
    const t = await startWebTestServer();
    try {
      const ctx = await browser.newContext();
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
    } finally {
      await t.close();
    }
  });

  test('uploads by the file picker and by drag and drop insert Zulip-style links', async () => {
    const t = await startWebTestServer();
    try {
      const ctx = await browser.newContext();
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
      const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
      await page.evaluate((b64) => {
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        // Browser globals (this callback runs in the page).
        const w = globalThis as any;
        const dt = new w.DataTransfer();
        dt.items.add(new File([bytes], 'dot.png', { type: 'image/png' }));
        const target = w.document.querySelector('section.compose');
        target.dispatchEvent(new w.DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
        target.dispatchEvent(new w.DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      }, png.toString('base64'));
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
      // With the organization's previews off, neither the server nor the client adds one.
      const dotLink = (await imgRow.getByRole('link', { name: 'dot.png' }).first().getAttribute('href'))!;
      assertSuccess(await t.client(t.owner).request('PATCH', '/realm', { inline_image_preview: false }));
      assertSuccess(await t.client(t.owner).request('POST', '/messages', { type: 'stream', to: 'general', topic: 'files', content: `again: [dot.png](${dotLink})` }));
      const againRow = messageRow(page, 'again:');
      await againRow.getByRole('link', { name: 'dot.png' }).waitFor();
      assert.equal(await againRow.locator('.message_inline_image').count(), 0);
      await ctx.close();
    } finally {
      await t.close();
    }
  });

  test('the compose box empties as a message goes: the next ones, written meanwhile, go in order; one not sent comes back', async () => {
    const t = await startWebTestServer();
    try {
      const ctx = await browser.newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await (await channelLink(page, 'general')).click();
      await page.getByLabel('Topic', { exact: true }).fill('outbox');
      // Sending takes a while (a slow network).
      const isSend = (url: URL) => url.pathname === '/json/messages';
      await page.route(isSend, async (route) => {
        if (route.request().method() === 'POST') await new Promise((r) => setTimeout(r, 700));
        await route.continue();
      });
      const box = page.getByLabel('Message', { exact: true });
      await box.fill('outbox first');
      await box.press('Enter');
      assert.equal(await box.inputValue(), '');
      await box.fill('outbox second');
      await box.press('Enter');
      await box.fill('a draft');
      await messageRow(page, 'outbox second').waitFor();
      const rows = await page.locator('article.message-row').allTextContents();
      const at = (text: string) => rows.findIndex((r) => r.includes(text));
      assert.ok(at('outbox first') >= 0 && at('outbox first') < at('outbox second'), 'sent in the order written');
      assert.equal(await box.inputValue(), 'a draft', 'what was written meanwhile stays');
      const history = assertSuccess(await t.client(t.owner).request('GET', '/messages', { anchor: 'newest', num_before: 2, num_after: 0, narrow: JSON.stringify([{ operator: 'topic', operand: 'outbox' }]) }));
      assert.deepEqual(history.messages.map((m: { content: string }) => m.content), ['<p>outbox first</p>', '<p>outbox second</p>']);

      // Refused: the message comes back, before what was written since.
      await page.unroute(isSend);
      await page.route(isSend, async (route) => {
        if (route.request().method() !== 'POST') return route.continue();
        await new Promise((r) => setTimeout(r, 300));
        await route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ result: 'error', msg: 'Not today', code: 'BAD_REQUEST' }) });
      });
      await box.press('Enter');
      assert.equal(await box.inputValue(), '');
      await box.fill('more');
      await page.getByRole('alert').filter({ hasText: 'Not today' }).waitFor();
      assert.equal(await box.inputValue(), 'a draft\nmore');

      // Enter while a file is still uploading says why nothing is sent.
      await page.route((url) => url.pathname === '/json/user_uploads', async (route) => {
        await new Promise((r) => setTimeout(r, 800));
        await route.continue();
      });
      await page.getByLabel('Attach files').setInputFiles({ name: 'slow.txt', mimeType: 'text/plain', buffer: Buffer.from('slow\n') });
      await box.press('Enter');
      await page.getByRole('alert').filter({ hasText: 'Wait until the upload is done' }).waitFor();
      await eventually(async () => /\[slow\.txt\]\(\/user_uploads\/[^)]+\)$/.test(await box.inputValue()), 'the upload link after the wait');
      assert.ok((await box.inputValue()).startsWith('a draft\nmore '));
      await ctx.close();
    } finally {
      await t.close();
    }
  });

  test('a topic and message typed right after choosing a channel stay, and go to that channel', async () => {
    const t = await startWebTestServer();
    try {
      const ctx = await browser.newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const channels = ['general', 'core team'];
      const box = page.getByLabel('Message', { exact: true });
      const topicField = page.getByLabel('Topic', { exact: true });
      for (let i = 0; i < 6; i++) {
        const channel = channels[i % 2]!;
        // The click and the typing in one go, before the page has followed
        // the click (a quick typist on a busy machine).
        const link = await (await channelLink(page, channel)).elementHandle();
        const field = await topicField.elementHandle();
        await page.evaluate(
          ([a, input, text]) => {
            (a as any).click();
            (input as any).value = text;
            (input as any).dispatchEvent(new (globalThis as any).Event('input', { bubbles: true }));
          },
          [link, field, `quick ${i}`] as const,
        );
        await box.fill(`typed at once ${i}`);
        await page.getByRole('heading', { name: `#${channel}` }).waitFor();
        // Effects run after the next paint: let one pass before looking.
        await page.evaluate(() => new Promise((r) => (globalThis as any).requestAnimationFrame(() => setTimeout(r, 0))));
        assert.equal(await topicField.inputValue(), `quick ${i}`, `the topic typed after choosing #${channel}`);
        await box.press('Enter');
        await eventually(async () => (await box.inputValue()) === '', 'the compose box to clear after sending');
      }
      const owner = t.client(t.owner);
      for (let i = 0; i < 6; i++) {
        const narrow = JSON.stringify([
          { operator: 'channel', operand: channels[i % 2] },
          { operator: 'topic', operand: `quick ${i}` },
        ]);
        let contents: string[] = [];
        await eventually(async () => {
          contents = assertSuccess(await owner.request('GET', '/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow })).messages.map((m: { content: string }) => m.content);
          return contents.length > 0;
        }, `message ${i} in its topic`);
        assert.deepEqual(contents, [`<p>typed at once ${i}</p>`]);
      }
      await ctx.close();
    } finally {
      await t.close();
    }
  });

  test('desktop notifications: direct messages and mentions while the page is not in front, as the settings say', async () => {
    const t = await startWebTestServer();
    try {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Notify' });
      const bobApi = t.client(bob);
      const ctx = await browser.newContext();
      // The browser's notifications, recorded; the page's focus, set by the test.
      await ctx.addInitScript(() => {
        const g = globalThis as any;
        g.__shown = [];
        g.__front = true;
        g.Notification = class {
          static permission = 'granted';
          static requestPermission = async () => 'granted';
          onclick: (() => void) | null = null;
          constructor(title: string, opts: { body?: string; tag?: string }) {
            g.__shown.push({ title, body: opts.body, tag: opts.tag });
            g.__last = this;
          }
          close() {}
        };
        g.document.hasFocus = () => g.__front;
      });
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const shown = async (): Promise<Array<{ title: string; body: string; tag: string }>> => page.evaluate(() => (globalThis as any).__shown);
      const dm = async (content: string) => assertSuccess(await bobApi.request('POST', '/messages', { type: 'direct', to: JSON.stringify([t.owner.id]), content }));
      const inGeneral = async (topic: string, content: string) => assertSuccess(await bobApi.request('POST', '/messages', { type: 'stream', to: 'general', topic, content }));

      // Looking at the page: no notification.
      await dm('while you look');
      await messageRow(page, 'while you look').waitFor();
      assert.deepEqual(await shown(), []);

      await page.evaluate(() => ((globalThis as any).__front = false));
      await dm('psst, **lunch**?');
      await eventually(async () => (await shown()).length === 1, 'the direct message notified');
      assert.deepEqual((await shown())[0], { title: 'Bob Notify', body: 'psst, lunch?', tag: `#narrow/dm/${bob.id}` });
      // A channel message: not by default; a mention: yes.
      await inGeneral('plans', 'no one in particular');
      await messageRow(page, 'no one in particular').waitFor();
      await inGeneral('plans', `@**${t.owner.row.full_name}** look at this`);
      await eventually(async () => (await shown()).length === 2, 'the mention notified');
      const mention = (await shown())[1]!;
      assert.equal(mention.title, 'Bob Notify (#general › plans)');
      assert.match(mention.body, /look at this$/);
      // A click opens the conversation.
      await page.evaluate(() => (globalThis as any).__last.onclick());
      await page.getByRole('heading', { name: '#general › plans' }).waitFor();
      // A message out of view stays unread: the tab's title counts it.
      await page.evaluate(() => ((globalThis as any).__front = true));
      const before = await page.title();
      await dm('unread meanwhile');
      await eventually(async () => /^\(\d+\) #general › plans - Parley$/.test(await page.title()) && (await page.title()) !== before, `the unread count in the title (${before})`);

      // Turned off in Settings: nothing more.
      await page.getByRole('button', { name: 'Settings' }).click();
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      await dialog.getByText('Shown while this page is not in front.').waitFor();
      await dialog.getByLabel('Direct messages and mentions').uncheck();
      const saved = async () => assertSuccess(await t.client(t.owner).request('POST', '/register', { fetch_event_types: JSON.stringify(['user_settings']) })).user_settings.enable_desktop_notifications;
      await eventually(async () => (await saved()) === false, 'the setting saved');
      await page.keyboard.press('Escape');
      await page.evaluate(() => ((globalThis as any).location.hash = '#feed'));
      await page.getByRole('heading', { name: 'All messages' }).waitFor();
      await page.evaluate(() => ((globalThis as any).__front = false));
      await dm('after turning them off');
      await messageRow(page, 'after turning them off').waitFor();
      assert.equal((await shown()).length, 2);
      // Every channel message, once asked for (by the API here: the client follows the event, queued before the message's).
      assertSuccess(await t.client(t.owner).request('PATCH', '/settings', { enable_stream_desktop_notifications: true }));
      await inGeneral('plans', 'a plain channel message');
      await eventually(async () => (await shown()).length === 3, 'the channel message notified');
      assert.equal((await shown())[2]!.body, 'a plain channel message');
      // A muted sender's messages arrive read: no notification.
      assertSuccess(await t.client(t.owner).request('POST', `/users/me/muted_users/${bob.id}`));
      await inGeneral('plans', 'from someone muted');
      assertSuccess(await t.client(t.owner).request('POST', '/messages', { type: 'stream', to: 'general', topic: 'plans', content: 'my own, after it' }));
      await messageRow(page, 'my own, after it').waitFor();
      assert.equal((await shown()).length, 3);
      await ctx.close();
    } finally {
      await t.close();
    }
  });

  test('sounds: direct messages and mentions while the page is not in front, as the settings say', async () => {
    const t = await startWebTestServer();
    try {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Sounds' });
      const bobApi = t.client(bob);
      const ctx = await browser.newContext();
      // The sounds started, counted; the page's focus, set by the test.
      await ctx.addInitScript(() => {
        const g = globalThis as any;
        g.__sounds = 0;
        g.__front = true;
        const param = { setValueAtTime() {}, exponentialRampToValueAtTime() {} };
        g.AudioContext = class {
          currentTime = 0;
          destination = {};
          resume = async () => {};
          createOscillator() {
            return { type: '', frequency: param, connect: (n: unknown) => n, start: () => g.__sounds++, stop() {} };
          }
          createGain() {
            return { gain: param, connect: (n: unknown) => n };
          }
        };
        g.document.hasFocus = () => g.__front;
      });
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const sounds = async (): Promise<number> => page.evaluate(() => (globalThis as any).__sounds);
      const dm = async (content: string) => assertSuccess(await bobApi.request('POST', '/messages', { type: 'direct', to: JSON.stringify([t.owner.id]), content }));
      const inGeneral = async (content: string) => assertSuccess(await bobApi.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'sounds', content }));

      await dm('while you look');
      await messageRow(page, 'while you look').waitFor();
      assert.equal(await sounds(), 0);
      await page.evaluate(() => ((globalThis as any).__front = false));
      await dm('a direct message');
      await eventually(async () => (await sounds()) === 1, 'a sound for the direct message');
      // A channel message: not by default; a mention: yes.
      await inGeneral('no one in particular');
      await messageRow(page, 'no one in particular').waitFor();
      await inGeneral(`@**${t.owner.row.full_name}** listen`);
      await eventually(async () => (await sounds()) === 2, 'a sound for the mention');

      // Turned off in Settings: none.
      await page.evaluate(() => ((globalThis as any).__front = true));
      await page.getByRole('button', { name: 'Settings' }).click();
      await page.getByRole('dialog', { name: 'Settings' }).getByLabel(/^Sounds/).uncheck();
      const saved = async () => assertSuccess(await t.client(t.owner).request('POST', '/register', { fetch_event_types: JSON.stringify(['user_settings']) })).user_settings.enable_sounds;
      await eventually(async () => (await saved()) === false, 'the setting saved');
      await page.keyboard.press('Escape');
      await page.evaluate(() => ((globalThis as any).__front = false));
      await dm('after turning them off');
      await messageRow(page, 'after turning them off').waitFor();
      // And "none" as the sound (by the API): none either, whatever else asks for one.
      assertSuccess(await t.client(t.owner).request('PATCH', '/settings', { enable_sounds: true, notification_sound: 'none' }));
      await dm('with no sound chosen');
      await messageRow(page, 'with no sound chosen').waitFor();
      assert.equal(await sounds(), 2);
      await ctx.close();
    } finally {
      await t.close();
    }
  });

  test('channels: browse, join, pin, mute, leave and create one from the web client', async () => {
    const t = await startWebTestServer();
    try {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Channels' });
      assertSuccess(await t.client(bob).request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'random', description: 'Anything goes' }]) }));
      const owner = t.client(t.owner);
      const mine = async () => (assertSuccess(await owner.request('GET', '/users/me/subscriptions')).subscriptions as Array<{ name: string; invite_only: boolean; description: string }>);
      const ctx = await browser.newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const sidebar = page.getByRole('navigation', { name: 'Channels' });
      await sidebar.getByRole('button', { name: 'Browse and create channels' }).click();
      const dialog = page.getByRole('dialog', { name: 'Channels' });
      const list = dialog.getByRole('list', { name: 'All channels' });
      await list.getByText('Anything goes').waitFor();
      await list.getByRole('button', { name: 'Leave #general' }).waitFor();

      // Join, then leave: the sidebar and the server follow.
      await list.getByRole('button', { name: 'Join #random', exact: true }).click();
      await list.getByRole('button', { name: 'Leave #random' }).waitFor();
      await sidebar.getByRole('link', { name: /^random\b/ }).waitFor();
      assert.ok((await mine()).some((s) => s.name === 'random'));
      // Pinned: in the sidebar's pinned list; then unpinned.
      const pinned = async () => (assertSuccess(await owner.request('GET', '/users/me/subscriptions')).subscriptions as Array<{ name: string; pin_to_top: boolean }>).find((s) => s.name === 'random')?.pin_to_top;
      const pinnedList = sidebar.getByRole('list', { name: 'Pinned channels' });
      await list.getByRole('button', { name: 'Pin #random', exact: true }).click();
      await list.getByRole('button', { name: 'Unpin #random' }).waitFor();
      assert.equal(await pinned(), true);
      await pinnedList.getByRole('link', { name: /^random\b/ }).waitFor();
      await list.getByRole('button', { name: 'Unpin #random' }).click();
      await list.getByRole('button', { name: 'Pin #random', exact: true }).waitFor();
      assert.equal(await pinned(), false);
      await eventually(async () => (await pinnedList.count()) === 0, 'no pinned channels left');
      // Mute, unmute.
      const muted = async () => (assertSuccess(await owner.request('GET', '/users/me/subscriptions')).subscriptions as Array<{ name: string; is_muted: boolean }>).find((s) => s.name === 'random')?.is_muted;
      await list.getByRole('button', { name: 'Mute #random', exact: true }).click();
      await list.getByRole('button', { name: 'Unmute #random' }).waitFor();
      assert.equal(await muted(), true);
      await eventually(async () => (await sidebar.getByRole('link', { name: /^random\b/ }).getAttribute('class'))?.includes('is-muted') === true, 'random shown muted');
      await list.getByRole('button', { name: 'Unmute #random' }).click();
      await list.getByRole('button', { name: 'Mute #random', exact: true }).waitFor();
      assert.equal(await muted(), false);
      await list.getByRole('button', { name: 'Leave #random' }).click();
      await list.getByRole('button', { name: 'Join #random', exact: true }).waitFor();
      await eventually(async () => (await sidebar.getByRole('link', { name: /^random\b/ }).count()) === 0, 'random gone from the sidebar');
      assert.ok(!(await mine()).some((s) => s.name === 'random'));

      // A name already taken is refused before anything is sent.
      await dialog.getByLabel('Name', { exact: true }).fill('General');
      await dialog.getByRole('button', { name: 'Create channel' }).click();
      await dialog.getByRole('alert').filter({ hasText: 'A channel with this name already exists.' }).waitFor();

      // Create a private one: the view moves to it.
      await dialog.getByLabel('Name', { exact: true }).fill('design');
      await dialog.getByLabel('Description').fill('Pixels and fonts');
      await dialog.getByLabel(/^Private/).check();
      await dialog.getByRole('button', { name: 'Create channel' }).click();
      await page.getByRole('heading', { name: '#design' }).waitFor();
      assert.equal(await dialog.count(), 0, 'the dialog closed');
      const design = (await mine()).find((s) => s.name === 'design');
      assert.ok(design, 'subscribed to the new channel');
      assert.equal(design.invite_only, true);
      assert.equal(design.description, 'Pixels and fonts');
      await sidebar.getByRole('link', { name: /^design\b/ }).waitFor();
      await ctx.close();
    } finally {
      await t.close();
    }
  });

  test('invitations: the owner invites from Settings; the invitee signs up by the emailed link and uses the web client', async () => {
    const t = await startWebTestServer();
    try {
      const emailsTo = (addr: string): Array<{ text: string }> => {
        const file = join(t.server.svc.config.dataDir, 'emails.log');
        return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.to.includes(addr)) : [];
      };
      const ctx = await browser.newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await page.getByRole('button', { name: 'Settings' }).click();
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      const emails = dialog.getByLabel(/^Email addresses/);
      // One bad address: nobody is invited, and the client says which and why.
      await emails.fill('not-an-address, newbie@example.org');
      await dialog.getByRole('button', { name: 'Invite', exact: true }).click();
      await dialog.getByRole('alert').filter({ hasText: "Some emails did not validate, so we didn't send any invitations." }).waitFor();
      assert.deepEqual(await dialog.getByRole('list', { name: 'Addresses not invited' }).getByRole('listitem').allTextContents(), ['not-an-address: Invalid address.']);
      assert.deepEqual(emailsTo('newbie@example.org'), []);

      await emails.fill('newbie@example.org');
      await dialog.getByLabel('Join as').selectOption({ label: 'Member' });
      await dialog.getByRole('button', { name: 'Invite', exact: true }).click();
      await dialog.getByRole('status').filter({ hasText: 'Invitations sent.' }).waitFor();
      assert.equal(await emails.inputValue(), '');
      const [mail] = emailsTo('newbie@example.org');
      const link = /https?:\/\/\S+\/accounts\/do_confirm\/\S+/.exec(mail!.text)?.[0];
      assert.ok(link, mail!.text);

      // The invitee: the link, the form, then the web client.
      const newbieCtx = await browser.newContext();
      const newbie = await newbieCtx.newPage();
      await newbie.goto(link);
      await newbie.getByLabel('Full name').fill('Newbie Person');
      await newbie.getByLabel('Password').fill('a-new-and-long-password-9');
      await newbie.getByRole('button', { name: 'Create account' }).click();
      await newbie.getByRole('link', { name: 'Log in to the web app' }).click();
      await newbie.getByLabel('Email').fill('newbie@example.org');
      await newbie.getByLabel('Password').fill('a-new-and-long-password-9');
      await newbie.getByRole('button', { name: 'Log in' }).click();
      await newbie.getByRole('log', { name: 'History' }).waitFor();
      // Invited into the default channels; the owner sees the new person.
      await newbie.getByRole('navigation', { name: 'Channels' }).getByRole('link', { name: /^general\b/ }).waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('complementary', { name: 'People' }).getByText('Newbie Person').waitFor();
      await newbieCtx.close();
      await ctx.close();
    } finally {
      await t.close();
    }
  });

  test('organization settings: an administrator renames the organization, changes a role, deactivates and reactivates an account; members do not see them', async () => {
    const t = await startWebTestServer();
    try {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Member' });
      const ctx = await browser.newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await page.getByRole('button', { name: 'Settings' }).click();
      const org = page.getByRole('dialog', { name: 'Settings' }).getByRole('region', { name: 'Organization' });

      // Refused by the server (a description over Zulip's 1,000 characters): its reason, and nothing changed.
      const before = assertSuccess(await owner.get('/server_settings')).realm_description;
      await org.getByLabel('Description').fill('x'.repeat(1001));
      await org.getByRole('button', { name: 'Save organization' }).click();
      await org.getByRole('alert').waitFor();
      assert.equal(assertSuccess(await owner.get('/server_settings')).realm_description, before);

      await org.getByLabel('Organization name').fill('Renamed Org');
      await org.getByLabel('Description').fill('Where we talk.');
      await org.getByRole('button', { name: 'Save organization' }).click();
      await org.getByRole('status').filter({ hasText: 'Organization saved.' }).waitFor();
      const settings = assertSuccess(await owner.get('/server_settings'));
      assert.equal(settings.realm_name, 'Renamed Org');
      assert.equal(settings.realm_description, '<p>Where we talk.</p>');
      // The header follows the realm event.
      await page.getByRole('banner').getByText('Renamed Org').waitFor();

      const people = org.getByRole('list', { name: 'People in the organization' });
      await org.getByLabel('Find a person').fill('bob');
      assert.equal(await people.getByRole('listitem').count(), 1);
      await people.getByLabel('Role of Bob Member').selectOption({ label: 'Moderator' });
      await eventually(async () => assertSuccess(await owner.get(`/users/${bob.id}`)).user.role === 300, "Bob's new role");
      // One's own role and account cannot be changed here.
      await org.getByLabel('Find a person').fill('');
      const myName = assertSuccess(await owner.get('/users/me')).full_name as string;
      assert.equal(await people.getByLabel(`Role of ${myName}`).isDisabled(), true);
      assert.equal(await people.getByRole('button', { name: `Deactivate ${myName}` }).count(), 0);

      await people.getByRole('button', { name: 'Deactivate Bob Member' }).click();
      await people.getByRole('button', { name: 'Reactivate Bob Member' }).waitFor();
      assert.equal(assertSuccess(await owner.get(`/users/${bob.id}`)).user.is_active, false);
      await people.getByRole('button', { name: 'Reactivate Bob Member' }).click();
      await people.getByRole('button', { name: 'Deactivate Bob Member' }).waitFor();
      assert.equal(assertSuccess(await owner.get(`/users/${bob.id}`)).user.is_active, true);

      // A member's settings have no organization section.
      const memberCtx = await browser.newContext();
      const carol = await t.makeUser({ password: PASSWORD, name: 'Carol Member' });
      const member = await loginPage(memberCtx, t.url, carol.email, PASSWORD);
      await member.getByRole('button', { name: 'Settings' }).click();
      await member.getByRole('dialog', { name: 'Settings' }).getByRole('heading', { name: 'Invite people' }).waitFor();
      assert.equal(await member.getByRole('region', { name: 'Organization' }).count(), 0);
      await memberCtx.close();
      await ctx.close();
    } finally {
      await t.close();
    }
  });

  test('a topic in view can be followed, muted, renamed and moved to another channel; a muted topic leaves All messages', async () => {
    const t = await startWebTestServer();
    try {
      const owner = t.client(t.owner);
      const bob = t.client(await t.makeUser({ password: PASSWORD, name: 'Bob Topics' }));
      const send = async (topic: string, content: string) => assertSuccess(await bob.request('POST', '/messages', { type: 'stream', to: 'general', topic, content }));
      const generalId = (assertSuccess(await owner.request('GET', '/get_stream_id', { stream: 'general' })) as { stream_id: number }).stream_id;
      const policy = async (topic: string) =>
        (assertSuccess(await owner.request('POST', '/register', { fetch_event_types: JSON.stringify(['user_topic']) })).user_topics as Array<{ stream_id: number; topic_name: string; visibility_policy: number }>).find(
          (x) => x.stream_id === generalId && x.topic_name === topic,
        )?.visibility_policy ?? 0;
      await send('plans', 'first plan');
      const ctx = await browser.newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await page.evaluate((id) => ((globalThis as any).location.hash = `#narrow/channel/${id}/topic/plans`), generalId);
      await page.getByRole('heading', { name: '#general › plans' }).waitFor();
      const actions = page.getByRole('group', { name: 'This topic' });

      await actions.getByRole('button', { name: 'Follow topic', exact: true }).click();
      await actions.getByRole('button', { name: 'Unfollow topic' }).waitFor();
      assert.equal(await policy('plans'), 3);
      await actions.getByRole('button', { name: 'Mute topic', exact: true }).click();
      await actions.getByRole('button', { name: 'Unmute topic' }).waitFor();
      assert.equal(await policy('plans'), 1);
      await actions.getByRole('button', { name: 'Follow topic', exact: true }).waitFor();

      // Muted: its new messages stay out of All messages; other topics' come in.
      await page.evaluate(() => ((globalThis as any).location.hash = '#feed'));
      await page.getByRole('heading', { name: 'All messages' }).waitFor();
      await send('plans', 'quiet plan');
      await send('news', 'loud news');
      await messageRow(page, 'loud news').waitFor();
      assert.equal(await page.locator('article.message-row', { hasText: 'quiet plan' }).count(), 0);

      await page.evaluate((id) => ((globalThis as any).location.hash = `#narrow/channel/${id}/topic/plans`), generalId);
      await actions.getByRole('button', { name: 'Unmute topic' }).click();
      await actions.getByRole('button', { name: 'Mute topic', exact: true }).waitFor();
      assert.equal(await policy('plans'), 0);

      // Renamed: every message of the topic moves, and the view follows.
      await actions.getByRole('button', { name: 'Move or rename topic' }).click();
      await actions.getByLabel('New topic name').fill('roadmap');
      await actions.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { name: '#general › roadmap' }).waitFor();
      await messageRow(page, 'quiet plan').waitFor();
      const inTopic = async (channel: number, topic: string) =>
        (assertSuccess(await owner.request('GET', '/messages', { anchor: 'newest', num_before: 10, num_after: 0, apply_markdown: false, narrow: JSON.stringify([{ operator: 'channel', operand: channel }, { operator: 'topic', operand: topic }]) })).messages as Array<{ content: string; sender_id: number }>)
          .filter((m) => m.sender_id !== t.owner.id && !/moved/.test(m.content))
          .map((m) => m.content);
      assert.deepEqual(await inTopic(generalId, 'roadmap'), ['first plan', 'quiet plan']);
      assert.deepEqual(await inTopic(generalId, 'plans'), []);

      // Moved to another channel (one the owner is in), same name: the view follows.
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'design' }]) }));
      const designId = (assertSuccess(await owner.request('GET', '/get_stream_id', { stream: 'design' })) as { stream_id: number }).stream_id;
      await actions.getByRole('button', { name: 'Move or rename topic' }).click();
      await actions.getByLabel('Channel').selectOption({ label: '#design' });
      await actions.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { name: '#design › roadmap' }).waitFor();
      await messageRow(page, 'quiet plan').waitFor();
      assert.deepEqual(await inTopic(designId, 'roadmap'), ['first plan', 'quiet plan']);
      assert.deepEqual(await inTopic(generalId, 'roadmap'), []);
      await ctx.close();
    } finally {
      await t.close();
    }
  });

  test('mark all as read: the narrow in view, all of it, by its button', async () => {
    const t = await startWebTestServer();
    try {
      const owner = t.client(t.owner);
      const bob = t.client(await t.makeUser({ password: PASSWORD, name: 'Bob Unread' }));
      const generalId = (assertSuccess(await owner.request('GET', '/get_stream_id', { stream: 'general' })) as { stream_id: number }).stream_id;
      const ctx = await browser.newContext();
      // A page in a background tab: what arrives is shown but not seen, so it stays unread.
      await ctx.addInitScript(() => {
        const g = globalThis as any;
        Object.defineProperty(g.Document.prototype, 'visibilityState', { configurable: true, get: () => (g.__hidden ? 'hidden' : 'visible') });
        Object.defineProperty(g.Document.prototype, 'hidden', { configurable: true, get: () => !!g.__hidden });
      });
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await page.evaluate((id) => ((globalThis as any).location.hash = `#narrow/channel/${id}`), generalId);
      await page.getByRole('heading', { name: '#general' }).waitFor();
      const markAll = page.getByRole('button', { name: 'Mark all as read' });
      await page.evaluate(() => ((globalThis as any).__hidden = true));
      for (const [topic, text] of [['a', 'unread one'], ['b', 'unread two'], ['b', 'unread three']]) {
        assertSuccess(await bob.request('POST', '/messages', { type: 'stream', to: 'general', topic, content: text }));
      }
      await messageRow(page, 'unread three').waitFor();
      const generalLink = page.getByRole('navigation', { name: 'Channels' }).getByRole('link', { name: /^general\b/ });
      await generalLink.getByLabel('3 unread').waitFor();
      await markAll.click();
      await eventually(async () => (await generalLink.getByLabel(/unread$/).count()) === 0, 'the channel count gone');
      await eventually(async () => (await markAll.count()) === 0, 'the button gone');
      const got = assertSuccess(await owner.request('GET', '/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: generalId }]) }));
      for (const m of got.messages as Array<{ content: string; flags: string[] }>) assert.ok(m.flags.includes('read'), `${m.content}: ${m.flags}`);
      await ctx.close();
    } finally {
      await t.close();
    }
  });

  test('search with narrow syntax, and results stay live', async () => {
    const t = await startWebTestServer();
    try {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Search' });
      const owner = t.client(t.owner);
      const sendApi = async (c: typeof owner, topic: string, content: string) => assertSuccess(await c.request('POST', '/messages', { type: 'stream', to: 'general', topic, content }));
      await sendApi(owner, 'fruit', 'I like banana bread');
      await sendApi(owner, 'fruit', 'apples are fine');
      await sendApi(t.client(bob), 'veg', 'carrots and banana?');
      const ctx = await browser.newContext();
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
      // A new match from someone else appears in the results by itself; a non-match does not.
      await sendApi(t.client(bob), 'veg', 'no fruit here');
      await sendApi(t.client(bob), 'veg', 'banana split tonight');
      await messageRow(page, 'banana split tonight').waitFor();
      assert.equal(await rows.filter({ hasText: 'no fruit here' }).count(), 0);

      // Starred: only Welcome Bot's greeting to the first owner (every new account's greeting is starred).
      await search.fill('is:starred');
      await search.press('Enter');
      await messageRow(page, "I'm Welcome Bot, and this direct message is just for you.").waitFor();
      await eventually(async () => (await rows.count()) === 1, 'one starred message');
      await search.fill('is:starred topic:fruit');
      await search.press('Enter');
      await page.getByText('No messages here yet.').waitFor();

      // A topic link in a message, as Zulip's Markdown writes it (#narrow/stream/<id>-<name>/topic/<.-encoded>), opens that topic.
      await sendApi(owner, 'fruit.salad mix', 'kiwi and lime');
      await sendApi(owner, 'links', 'see #**general>fruit.salad mix**');
      await search.fill('topic:links');
      await search.press('Enter');
      const link = messageRow(page, 'see').locator('a.stream-topic');
      await link.waitFor();
      assert.match((await link.getAttribute('href')) ?? '', /#narrow\/stream\/\d+-general\/topic\/fruit\.2Esalad\.20mix$/);
      await link.click();
      await messageRow(page, 'kiwi and lime').waitFor();
      await eventually(async () => (await rows.count()) === 1, 'the one message of the linked topic');
      await ctx.close();
    } finally {
      await t.close();
    }
  });

  test('older messages load on scrolling up, with a bounded number of rows in the page', async () => {
    const t = await startWebTestServer();
    try {
      const owner = t.client(t.owner);
      for (let i = 1; i <= 260; i++) assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'history', content: `history message ${i}` }));
      const ctx = await browser.newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await (await channelLink(page, 'general')).click();
      await messageRow(page, 'history message 260').waitFor();
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
      // And back down to the newest.
      await eventually(async () => {
        await page.evaluate(() => {
          const sc = (globalThis as any).document.querySelector('.message-scroller');
          sc.scrollTop = sc.scrollHeight;
        });
        return (await page.getByText('history message 260', { exact: true }).count()) === 1;
      }, 'the newest message after scrolling down', 30_000);
      await ctx.close();
    } finally {
      await t.close();
    }
  });

  test('channels: pinned first, muted ones marked and left out of All messages, topics with unread counts', async () => {
    const t = await startWebTestServer();
    try {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Channels' });
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'quiet' }, { name: 'zeta' }], principals: [t.owner.id, bob.id] }));
      const subs = (await owner.request('GET', '/users/me/subscriptions')).body.subscriptions as { name: string; stream_id: number }[];
      const id = (name: string) => subs.find((x) => x.name === name)!.stream_id;
      assertSuccess(await owner.request('POST', '/users/me/subscriptions/properties', { subscription_data: [{ stream_id: id('quiet'), property: 'is_muted', value: true }, { stream_id: id('zeta'), property: 'pin_to_top', value: true }] }));
      const bobApi = t.client(bob);
      assertSuccess(await bobApi.request('POST', '/messages', { type: 'stream', to: 'quiet', topic: 'shh', content: 'in the muted channel' }));
      assertSuccess(await bobApi.request('POST', '/messages', { type: 'stream', to: 'zeta', topic: 'alpha', content: 'zeta one' }));
      assertSuccess(await bobApi.request('POST', '/messages', { type: 'stream', to: 'zeta', topic: 'beta', content: 'zeta two' }));
      assertSuccess(await bobApi.request('POST', '/messages', { type: 'stream', to: 'zeta', topic: 'beta', content: 'zeta three' }));

      const ctx = await browser.newContext();
      // Log in without opening the feed (which would mark what it shows as read), then open Starred.
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');
      await page.getByRole('heading', { name: 'Starred messages' }).waitFor();
      const nav = page.getByRole('navigation', { name: 'Channels' });
      const names = await nav.locator('li.channel > a .label').allInnerTexts();
      assert.equal(names[0], 'zeta', `pinned channel first: ${names.join(', ')}`);
      await nav.getByRole('link', { name: /quiet.*\(muted\)/ }).waitFor();
      await nav.getByRole('link', { name: /zeta/ }).getByLabel('3 unread').waitFor();
      // The muted channel's unread message does not count in All messages.
      await page.getByRole('link', { name: 'All messages' }).getByLabel('3 unread').waitFor();

      await page.getByRole('link', { name: 'All messages' }).click();
      await messageRow(page, 'zeta three').waitFor();
      assert.equal(await page.locator('article.message-row', { hasText: 'in the muted channel' }).count(), 0);
      // Live too: a new message in the muted channel stays out of the feed.
      assertSuccess(await bobApi.request('POST', '/messages', { type: 'stream', to: 'quiet', topic: 'shh', content: 'still muted' }));
      assertSuccess(await bobApi.request('POST', '/messages', { type: 'stream', to: 'zeta', topic: 'beta', content: 'zeta four' }));
      await messageRow(page, 'zeta four').waitFor();
      assert.equal(await page.locator('article.message-row', { hasText: 'still muted' }).count(), 0);

      // Subscriptions follow the event queue: joining and leaving show at once.
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'fresh' }] }));
      await nav.getByRole('link', { name: /fresh/ }).waitFor();
      assertSuccess(await owner.request('DELETE', '/users/me/subscriptions', { subscriptions: ['quiet'] }));
      await eventually(async () => (await nav.getByRole('link', { name: /quiet/ }).count()) === 0, 'the channel left to go');

      await nav.getByRole('link', { name: /zeta/ }).click();
      const topics = page.getByRole('list', { name: 'In zeta' });
      await topics.getByRole('link', { name: /beta/ }).waitFor();
      const topicNames = await topics.locator('a .label').allInnerTexts();
      assert.deepEqual(topicNames, ['beta', 'alpha']);
      await ctx.close();
    } finally {
      await t.close();
    }
  });

  test('leaving a channel takes its unread messages out of All messages', async () => {
    const t = await startWebTestServer();
    try {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Leaves' });
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'lonely' }], principals: [t.owner.id, bob.id] }));
      const bobApi = t.client(bob);
      for (const content of ['lonely one', 'lonely two']) assertSuccess(await bobApi.request('POST', '/messages', { type: 'stream', to: 'lonely', topic: 'x', content }));
      const ctx = await browser.newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');
      const all = page.getByRole('link', { name: 'All messages' });
      await all.getByLabel('2 unread').waitFor();
      assertSuccess(await owner.request('DELETE', '/users/me/subscriptions', { subscriptions: ['lonely'] }));
      await eventually(async () => (await all.getByLabel(/unread/).count()) === 0, 'the unread count of the channel left to go');
      await ctx.close();
    } finally {
      await t.close();
    }
  });

  test('keyboard, Markdown preview, star, quote and reply, and settings', async () => {
    const t = await startWebTestServer();
    try {
      const ctx = await browser.newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await (await channelLink(page, 'general')).click();
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
      await page.getByRole('button', { name: 'Edit' }).first().click();
      await page.getByLabel('Message', { exact: true }).press('Enter');
      const row = messageRow(page, 'second line');
      await row.locator('strong', { hasText: 'first line' }).waitFor();

      // Star it; it shows in Starred.
      await row.hover();
      await row.getByRole('button', { name: 'Star' }).click();
      await row.getByRole('button', { name: 'Unstar' }).waitFor();
      await page.getByRole('link', { name: 'Starred' }).click();
      await messageRow(page, 'second line').waitFor();

      // Quote and reply fills the compose box with Zulip's quote block.
      const starred = messageRow(page, 'second line');
      await starred.hover();
      await starred.getByRole('button', { name: 'Quote and reply' }).click();
      await eventually(async () => (await page.getByLabel('Message', { exact: true }).inputValue()).includes('```quote\n**first line**\nsecond line\n```'), 'the quote in the compose box');
      assert.equal(await page.getByLabel('Topic', { exact: true }).inputValue(), 'kbd');

      // Settings: a new name shows at once (through the event queue).
      await page.getByRole('button', { name: 'Settings' }).click();
      const dialog = page.getByRole('dialog', { name: 'Settings' });
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
    } finally {
      await t.close();
    }
  });

  test('a forged cross-site request is rejected (CSRF), and the logged-in page itself works', async () => {
    const t = await startWebTestServer();
    let evil: Server | undefined;
    try {
      const ctx = await browser.newContext();
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
      await page.getByRole('log', { name: 'History' }).waitFor();
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
      await t.close();
    }
  });
});
