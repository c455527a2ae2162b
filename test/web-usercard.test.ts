/**
 * Avatars in the web client, in real Chromium: an avatar uploaded elsewhere
 * shows in the message list and People, initials stay for those without one
 * (and the page asks nothing of Gravatar), an image that fails to load falls
 * back to initials; one's own avatar uploaded and removed in Settings, a
 * refusal with the server's reason. Skipped (with one line saying why) where
 * Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { assertSuccess, type Account, type Client } from './helpers.ts';
import { browserTests, eventually, loginPage, messageRow, PASSWORD, withWebServer } from './web-browser.ts';

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** Sets `account`'s avatar through the API; its avatar_url. */
async function uploadAvatar(url: string, account: Account): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'me.png');
  const auth = `Basic ${Buffer.from(`${account.email}:${account.apiKey}`).toString('base64')}`;
  const res = await fetch(`${url}/api/v1/users/me/avatar`, { method: 'POST', headers: { Authorization: auth }, body: form });
  const body = (await res.json()) as { result: string; avatar_url: string };
  assert.equal(body.result, 'success');
  return body.avatar_url;
}

const sendTo = async (c: Client, topic: string, content: string) => assertSuccess(await c.post('/messages', { type: 'stream', to: 'general', topic, content }));

/** The People sidebar's entry for `name`. */
const person = (page: Page, name: string) => page.getByRole('complementary', { name: 'People' }).getByRole('link', { name: new RegExp(`^${name}\\b`) });

/** What the avatar in `where` shows: its image's address, or its initials. */
async function avatarShows(where: Locator): Promise<string> {
  const avatar = where.locator('.avatar').first();
  const img = avatar.locator('img');
  if (await img.count()) return `img ${await img.getAttribute('src')}`;
  return `initials ${(await avatar.textContent())?.trim()}`;
}

/** Waits until the avatar in `where` shows `want` (see avatarShows). */
const avatarBecomes = (where: Locator, want: string) => eventually(async () => (await avatarShows(where)) === want, `the avatar to show ${want}`);

/** The address path (with its query) of an avatar_url. */
const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

await browserTests('the web client in Chromium: avatars', (newContext) => {
  test('avatars: one uploaded elsewhere shows in the message list and People; initials for others, and no request to Gravatar; an image that fails shows initials', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Viewer' });
      const carol = await t.makeUser({ name: 'Carol Picture' });
      const dave = await t.makeUser({ name: 'Dave Broken' });
      const [carolApi, daveApi] = [carol, dave].map((a) => t.client(a));
      // Without an uploaded avatar, the server gives a Gravatar address.
      const before = assertSuccess(await t.client(bob).get(`/users/${carol.id}`, { client_gravatar: false })).user;
      assert.match(before.avatar_url, /^https:\/\/secure\.gravatar\.com\//);
      await sendTo(carolApi, 'pictures', 'Carol says hello');
      await sendTo(daveApi, 'pictures', 'Dave says hello');

      const ctx = await newContext();
      const requests: string[] = [];
      ctx.on('request', (r) => requests.push(r.url()));
      // Dave's image cannot be had: his avatar falls back to his initials.
      await ctx.route(`**/user_avatars/*/${dave.id}.png*`, (route) => route.fulfill({ status: 404, body: 'gone' }));
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      const carolRow = messageRow(page, 'Carol says hello');
      await carolRow.waitFor();
      assert.equal(await avatarShows(carolRow), 'initials CP');
      assert.equal(await avatarShows(person(page, 'Carol Picture')), 'initials CP');
      const toGravatar = () => requests.filter((r) => /gravatar/i.test(new URL(r).hostname));
      assert.deepEqual(toGravatar(), []);

      // Carol uploads one: it shows in Bob's open page, in her message and in People, and loads.
      const url = await uploadAvatar(t.url, carol);
      assert.match(url, new RegExp(`/user_avatars/\\d+/${carol.id}\\.png\\?version=2$`));
      await avatarBecomes(carolRow, `img ${pathOf(url)}`);
      await avatarBecomes(person(page, 'Carol Picture'), `img ${pathOf(url)}`);
      await eventually(() => carolRow.locator('.avatar img').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth === 100), "Carol's image to load");

      // Dave's fails to load: initials again.
      const daveUrl = await uploadAvatar(t.url, dave);
      await eventually(() => requests.some((r) => r.endsWith(pathOf(daveUrl))), "the page to ask for Dave's image");
      const daveRow = messageRow(page, 'Dave says hello');
      await avatarBecomes(daveRow, 'initials DB');
      await avatarBecomes(person(page, 'Dave Broken'), 'initials DB');

      // A fresh page shows the same (from /register and GET /messages).
      await page.reload();
      await messageRow(page, 'Carol says hello').waitFor();
      await avatarBecomes(messageRow(page, 'Carol says hello'), `img ${pathOf(url)}`);
      await avatarBecomes(person(page, 'Carol Picture'), `img ${pathOf(url)}`);
      await avatarBecomes(person(page, 'Bob Viewer'), 'initials BV');
      assert.deepEqual(toGravatar(), []);
      assert.ok(requests.length > 10, 'requests were watched');
      await ctx.close();
    }));

  test("avatars in Settings: one's own uploaded and removed (as the server has it), a refusal with the server's reason", () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Self' });
      const bobApi = t.client(bob);
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      const section = page.getByRole('dialog', { name: 'Settings' }).getByRole('region', { name: 'Avatar' });
      assert.equal(await avatarShows(section), 'initials BS');
      assert.equal(await section.getByRole('button', { name: 'Remove avatar' }).count(), 0);

      await section.getByLabel('Avatar').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: PNG });
      await section.getByRole('status').filter({ hasText: 'Avatar uploaded.' }).waitFor();
      const url = assertSuccess(await bobApi.get('/users/me')).avatar_url as string;
      assert.match(url, new RegExp(`/user_avatars/\\d+/${bob.id}\\.png\\?version=2$`));
      await avatarBecomes(section, `img ${pathOf(url)}`);
      await avatarBecomes(person(page, 'Bob Self'), `img ${pathOf(url)}`);

      await section.getByRole('button', { name: 'Remove avatar' }).click();
      await section.getByRole('status').filter({ hasText: 'Avatar removed.' }).waitFor();
      assert.match(assertSuccess(await bobApi.get('/users/me')).avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=3$/);
      await avatarBecomes(section, 'initials BS');
      await avatarBecomes(person(page, 'Bob Self'), 'initials BS');
      assert.equal(await section.getByRole('button', { name: 'Remove avatar' }).count(), 0);

      // The organization forbids changes: the server's reason, and nothing changed.
      assertSuccess(await t.client(t.owner).patch('/realm', { avatar_changes_disabled: true }));
      await section.getByLabel('Avatar').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: PNG });
      assert.equal(await section.getByRole('alert').textContent(), 'Avatar changes are disabled in this organization.');
      assert.match(assertSuccess(await bobApi.get('/users/me')).avatar_url, /version=3$/);
      assert.equal(await avatarShows(section), 'initials BS');
      await ctx.close();
    }));
});
