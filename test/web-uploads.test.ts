/**
 * The compose box's uploads in real Chromium, sent as Zulip's web app sends
 * them: over tus (/api/v1/tus) with the web session, each with a banner
 * saying what is uploading and a Cancel (which drops the upload at the
 * server too); an upload the network interrupts resumes where it stopped;
 * files over the server's limit, or any file where uploads are off, are
 * refused before anything is sent, in Zulip's words. A message's edit box
 * takes files the same ways (as Zulip's edit form), and Save waits for them.
 * Skipped (with one line saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page, Route } from 'playwright-core';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD } from './helpers.ts';
import { browserTests, channelLink, dropPng, eventually, holdRequests, loginPage, messageRow, startWebTestServer } from './web-browser.ts';

/** The upload requests the page makes: method and path, in order. */
function recordUploads(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith('/api/v1/tus') || path.startsWith('/json/user_uploads')) seen.push(`${r.method()} ${path}`);
  });
  return seen;
}

/** Lets a routed request through, or not at all where the page has given up on it meanwhile. */
async function pass(route: Route): Promise<void> {
  await route.continue().catch(() => {});
}

await browserTests('the web client in Chromium: uploads', (newContext) => {
  test('an upload goes over tus with its banner; Cancel drops it at the server; an interrupted upload resumes; a file over the limit is refused before sending', async () => {
    const t = await startWebTestServer({ MAX_FILE_UPLOAD_SIZE_MIB: '1' });
    try {
      const owner = t.client(t.owner);
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const seen = recordUploads(page);
      await (await channelLink(page, 'general')).click();
      await page.getByLabel('Topic', { exact: true }).fill('files');
      const compose = page.getByRole('region', { name: 'Compose' });
      const box = page.getByLabel('Message', { exact: true });
      const send = compose.getByRole('button', { name: 'Send', exact: true });

      // Held at the server's door: the banner, the placeholder, Send off; Cancel takes them away and the server drops the upload.
      const hold = await holdRequests(page, '**/api/v1/tus/*', 'PATCH');
      await page.getByLabel('Attach files').setInputFiles({ name: 'held.txt', mimeType: 'text/plain', buffer: Buffer.from('never mind\n') });
      const banner = compose.getByRole('status').filter({ hasText: 'Uploading held.txt…' });
      await banner.waitFor();
      await banner.getByRole('progressbar', { name: 'Upload of held.txt' }).waitFor({ state: 'attached' });
      assert.equal(await box.inputValue(), '[Uploading held.txt…]()');
      assert.equal(await send.isDisabled(), true);
      // (Once the upload exists at the server, so that Cancel has something there to drop.)
      await hold.arrived;
      await banner.getByRole('button', { name: 'Cancel upload of held.txt' }).click();
      await banner.waitFor({ state: 'detached' });
      assert.equal(await box.inputValue(), '');
      assert.equal(await send.isDisabled(), false);
      hold.release();
      await eventually(() => seen.some((s) => s.startsWith('DELETE /api/v1/tus/')), 'the upload terminated at the server');
      assert.deepEqual(assertSuccess(await owner.get('/attachments')).attachments, []);
      await hold.stop();

      // The network fails during the first send of the bytes: the upload asks the server how far it got and finishes.
      let failures = 0;
      await page.route('**/api/v1/tus/*', async (route) => {
        if (route.request().method() === 'PATCH' && failures === 0) {
          failures++;
          await route.abort('failed');
          return;
        }
        await pass(route);
      });
      const text = 'resumable line\n'.repeat(2000);
      seen.length = 0;
      await page.getByLabel('Attach files').setInputFiles({ name: 'resumed.txt', mimeType: 'text/plain', buffer: Buffer.from(text) });
      await eventually(async () => /^\[resumed\.txt\]\(\/user_uploads\/[^)]+\/resumed\.txt\)$/.test(await box.inputValue()), 'the link once the upload resumed');
      assert.equal(failures, 1);
      assert.equal(seen[0], 'POST /api/v1/tus');
      assert.ok(seen.some((s) => s.startsWith('HEAD /api/v1/tus/')), seen.join(', '));
      assert.equal(seen.filter((s) => s.startsWith('PATCH /api/v1/tus/')).length, 2, seen.join(', '));
      await compose.getByRole('status').filter({ hasText: 'Uploading' }).waitFor({ state: 'detached' });
      const link = (await box.inputValue()).match(/\((\/user_uploads\/[^)]+)\)/)![1]!;
      assert.equal(await page.evaluate(async (href) => (await fetch(href)).text(), link), text);
      const [attachment] = assertSuccess(await owner.get('/attachments')).attachments;
      assert.equal(attachment.name, 'resumed.txt');
      assert.equal(attachment.size, Buffer.byteLength(text));
      await page.unroute('**/api/v1/tus/*');

      // From the preview, a file takes the box back to its text, where the link goes (as Zulip's).
      await compose.getByRole('button', { name: 'Preview', exact: true }).click();
      await compose.getByLabel('Preview', { exact: true }).waitFor();
      await page.getByLabel('Attach files').setInputFiles({ name: 'later.txt', mimeType: 'text/plain', buffer: Buffer.from('later\n') });
      await eventually(async () => /\[later\.txt\]\(\/user_uploads\/[^)]+\)$/.test(await box.inputValue()), 'the link in the text again');
      assert.equal(await compose.getByLabel('Preview', { exact: true }).count(), 0);
      await box.fill((await box.inputValue()).replace(/ \[later\.txt\]\([^)]+\)$/, ''));

      // Over the server's limit (1 MiB here): refused at once, nothing sent, nothing in the box but what was there.
      seen.length = 0;
      await page.getByLabel('Attach files').setInputFiles({ name: 'big.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(1024 * 1024 + 1) });
      await compose.getByRole('alert').filter({ hasText: 'big.bin exceeds the maximum file size for attachments (1 MB).' }).waitFor();
      assert.match(await box.inputValue(), /^\[resumed\.txt\]\([^)]+\)$/);
      assert.deepEqual(seen, []);
      await ctx.close();
    } finally {
      await t.close();
    }
  });

  test('a message\u2019s edit takes files by the paperclip and by drag and drop, with their banners; Save waits for them; the edited message links them; a file dropped on the feed goes to the compose box', async () => {
    const t = await startWebTestServer();
    try {
      const owner = t.client(t.owner);
      assertSuccess(await owner.post('/messages', { type: 'stream', to: 'general', topic: 'files', content: 'see attached' }));
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const seen = recordUploads(page);
      await (await channelLink(page, 'general')).click();
      const row = messageRow(page, 'see attached');
      await row.hover();
      await row.getByRole('button', { name: 'Edit', exact: true }).click();
      const edit = page.getByLabel('Edit content');
      const editBox = page.locator('.edit-box');
      const save = editBox.getByRole('button', { name: 'Save', exact: true });

      // The paperclip, held at the server: the banner in the edit box, Save off and Enter saying why.
      const hold = await holdRequests(page, '**/api/v1/tus/*', 'PATCH');
      await page.getByLabel('Attach files to the edit').setInputFiles({ name: 'agenda.txt', mimeType: 'text/plain', buffer: Buffer.from('1. budget\n') });
      await editBox.getByRole('status').filter({ hasText: 'Uploading agenda.txt…' }).waitFor();
      assert.equal(await edit.inputValue(), 'see attached [Uploading agenda.txt…]()');
      assert.equal(await save.isDisabled(), true);
      await edit.press('Enter');
      await editBox.getByRole('alert').filter({ hasText: 'Wait until the upload is done' }).waitFor();
      hold.release();
      await eventually(async () => /^see attached \[agenda\.txt\]\(\/user_uploads\/[^)]+\/agenda\.txt\)$/.test(await edit.inputValue()), 'the link in the edit');
      await hold.stop();

      // Dropped onto the edit box: a second file.
      await dropPng(page, '.edit-box textarea', 'chart.png');
      await eventually(async () => /\[chart\.png\]\(\/user_uploads\/[^)]+\/chart\.png\)$/.test(await edit.inputValue()), 'the dropped file in the edit');
      assert.equal(await page.getByLabel('Message', { exact: true }).inputValue(), '', 'nothing went to the compose box');
      await editBox.getByRole('status').filter({ hasText: 'Uploading' }).waitFor({ state: 'detached' });
      await save.click();
      await editBox.waitFor({ state: 'detached' });

      // The edited message at the server links both; both went over tus.
      const [m] = assertSuccess(await owner.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: 'false' })).messages;
      assert.match(m.content, /^see attached \[agenda\.txt\]\(\/user_uploads\/[^)]+\) \[chart\.png\]\(\/user_uploads\/[^)]+\)$/);
      await row.getByRole('link', { name: 'agenda.txt' }).waitFor();
      assert.equal(seen.filter((s) => s === 'POST /api/v1/tus').length, 2, seen.join(', '));
      assert.ok(!seen.some((s) => s.startsWith('POST /json/user_uploads')), seen.join(', '));

      // Dropped on a message in the view (no edit open): into the compose box, as Zulip's.
      assert.equal(await dropPng(page, 'article.message-row', 'feed.png'), true);
      const box = page.getByLabel('Message', { exact: true });
      await eventually(async () => /^\[feed\.png\]\(\/user_uploads\/[^)]+\/feed\.png\)$/.test(await box.inputValue()), 'the file dropped on the feed in the compose box');
      // Where there is no compose box (Inbox), a dropped file does not take the browser away from the app.
      await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^Inbox/ }).click();
      await page.getByRole('region', { name: 'Compose' }).waitFor({ state: 'detached' });
      assert.equal(await dropPng(page, 'main.center', 'stray.png'), true, 'the drop taken from the browser');
      await new Promise((r) => setTimeout(r, 300));
      assert.ok(page.url().endsWith('#inbox'), page.url());
      assert.equal(seen.filter((s) => s === 'POST /api/v1/tus').length, 3, seen.join(', '));
      await ctx.close();
    } finally {
      await t.close();
    }
  });

  test('where uploads are off (no upload size), a file is refused in Zulip\u2019s words and nothing is sent', async () => {
    const t = await startWebTestServer({ MAX_FILE_UPLOAD_SIZE_MIB: '0' });
    try {
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const seen = recordUploads(page);
      await (await channelLink(page, 'general')).click();
      await page.getByLabel('Attach files').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('notes\n') });
      await page.getByRole('region', { name: 'Compose' }).getByRole('alert').filter({ hasText: 'File and image uploads have been disabled for this organization.' }).waitFor();
      assert.equal(await page.getByLabel('Message', { exact: true }).inputValue(), '');
      assert.deepEqual(seen, []);
      await ctx.close();
    } finally {
      await t.close();
    }
  });
});
