/**
 * The compose box's uploads in real Chromium, sent as Zulip's web app sends
 * them: over tus (/api/v1/tus) with the web session, each with a banner
 * saying what is uploading and a Cancel (which drops the upload at the
 * server too); an upload the network interrupts resumes where it stopped;
 * files over the server's limit, or any file where uploads are off, are
 * refused before anything is sent, in Zulip's words.
 * Skipped (with one line saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page, Route } from 'playwright-core';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD } from './helpers.ts';
import { browserTests, channelLink, eventually, loginPage, startWebTestServer } from './web-browser.ts';

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
      let releaseHeld!: () => void;
      const held = new Promise<void>((r) => (releaseHeld = r));
      await page.route('**/api/v1/tus/*', async (route) => {
        if (route.request().method() === 'PATCH') await held;
        await pass(route);
      });
      await page.getByLabel('Attach files').setInputFiles({ name: 'held.txt', mimeType: 'text/plain', buffer: Buffer.from('never mind\n') });
      const banner = compose.getByRole('status').filter({ hasText: 'Uploading held.txt…' });
      await banner.waitFor();
      await banner.getByRole('progressbar', { name: 'Upload of held.txt' }).waitFor({ state: 'attached' });
      assert.equal(await box.inputValue(), '[Uploading held.txt…]()');
      assert.equal(await send.isDisabled(), true);
      await banner.getByRole('button', { name: 'Cancel upload of held.txt' }).click();
      await banner.waitFor({ state: 'detached' });
      assert.equal(await box.inputValue(), '');
      assert.equal(await send.isDisabled(), false);
      releaseHeld();
      await eventually(() => seen.some((s) => s.startsWith('DELETE /api/v1/tus/')), 'the upload terminated at the server');
      assert.deepEqual(assertSuccess(await owner.get('/attachments')).attachments, []);
      await page.unroute('**/api/v1/tus/*');

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
