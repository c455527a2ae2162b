/**
 * A channel the user is not in, in the web client, in real Chromium: its
 * view shows its description and Zulip's trailing bookend ("You are not
 * subscribed to channel #…" with Subscribe; "You subscribed…" with
 * Unsubscribe once in it; "You unsubscribed…" after leaving); the compose
 * box keeps the channel and stops a send there with Zulip's error and its
 * Subscribe button; the Channels dialog offers Join only where the server
 * would take it.
 * Skipped (with one line saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD, type Client, streamIdOf } from './helpers.ts';
import { browserTests, channelContents as contentsOf, eventually, loginPage, messageRow, PASSWORD, withWebServer } from './web-browser.ts';

/** Whether the client's user is subscribed to the channel, as the server has it. */
async function subscribed(c: Client, channel: string): Promise<boolean> {
  const subs = assertSuccess(await c.request('GET', '/users/me/subscriptions')).subscriptions as Array<{ name: string }>;
  return subs.some((s) => s.name === channel);
}

await browserTests('the web client in Chromium: a channel the user is not in', (newContext) => {
  test("a channel's view for one not in it: description, bookend, the compose box stopped until they subscribe, then sending; leaving", () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Outside' });
      const bobApi = t.client(bob);
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'design', description: 'Where **logos** are made' }]) }));
      const design = await streamIdOf(owner, 'design');
      assertSuccess(await owner.post('/messages', { type: 'stream', to: 'design', topic: 'logo', content: 'the first sketch' }));

      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      await page.evaluate((id) => ((globalThis as any).location.hash = `#narrow/channel/${id}-design`), design);
      await messageRow(page, 'the first sketch').waitFor();

      // The description under the name, as the server rendered it.
      const title = page.locator('.narrow-title');
      await title.getByText('Where logos are made').waitFor();
      assert.equal(await title.locator('.narrow-description strong').textContent(), 'logos');

      // The bookend under the newest message.
      const bookend = page.locator('.bookend');
      await bookend.getByText('You are not subscribed to channel #design.').waitFor();
      assert.deepEqual(await bookend.getByRole('button').allTextContents(), ['Subscribe']);

      // The compose box writes to this channel, and stops the send.
      const channelSelect = page.getByLabel('Channel', { exact: true });
      assert.equal(await channelSelect.inputValue(), String(design));
      await page.getByLabel('Topic', { exact: true }).fill('logo');
      const box = page.getByLabel('Message', { exact: true });
      await box.fill('a reply from outside');
      await box.press('Enter');
      const error = page.locator('.compose-banner', { hasText: "You're not subscribed to this channel. You will not be notified if other users reply to your message." });
      await error.waitFor();
      assert.equal(await error.getAttribute('role'), 'alert');
      assert.equal(await error.getByRole('button', { name: /Dismiss/ }).count(), 0, 'the error cannot be dismissed');
      assert.equal(await box.inputValue(), 'a reply from outside', 'the text stays in the box');
      assert.deepEqual(await contentsOf(owner, 'design'), ['the first sketch'], 'nothing was sent');

      // Subscribe (the error's button): at the server; the error goes, the bookend says so; the send goes through.
      await error.getByRole('button', { name: 'Subscribe' }).click();
      await eventually(() => subscribed(bobApi, 'design'), 'Bob subscribed at the server');
      await error.waitFor({ state: 'detached' });
      await bookend.getByText('You subscribed to channel #design.').waitFor();
      assert.deepEqual(await bookend.getByRole('button').allTextContents(), ['Unsubscribe']);
      await box.press('Enter');
      await eventually(async () => (await contentsOf(owner, 'design')).includes('a reply from outside'), 'the reply at the server');
      await messageRow(page, 'a reply from outside').waitFor();

      // Unsubscribe (the bookend's button): the newest message is one Bob had as a subscriber.
      await bookend.getByRole('button', { name: 'Unsubscribe' }).click();
      await eventually(async () => !(await subscribed(bobApi, 'design')), 'Bob unsubscribed at the server');
      await bookend.getByText('You unsubscribed from channel #design.').waitFor();
      assert.deepEqual(await bookend.getByRole('button').allTextContents(), ['Subscribe']);

      // Subscribe from the bookend.
      await bookend.getByRole('button', { name: 'Subscribe' }).click();
      await eventually(() => subscribed(bobApi, 'design'), 'Bob subscribed again at the server');
      await bookend.getByText('You subscribed to channel #design.').waitFor();

      // A channel Bob is in, opened anew with its newest message his: no bookend.
      await page.evaluate(() => ((globalThis as any).location.hash = '#inbox'));
      await page.evaluate((id) => ((globalThis as any).location.hash = `#narrow/channel/${id}-design`), design);
      await messageRow(page, 'a reply from outside').waitFor();
      await page.getByRole('log', { name: 'History' }).getByText('This is the beginning of the conversation.').waitFor();
      assert.equal(await bookend.count(), 0);
    }));

  test('a private channel an administrator may see but not join: no Join in the Channels dialog, no bookend; a public one has Join', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Private' });
      const bobApi = t.client(bob);
      assertSuccess(await bobApi.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'secret' }]), invite_only: 'true' }));
      assertSuccess(await bobApi.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'open' }]) }));
      const secret = await streamIdOf(bobApi, 'secret');
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await page.evaluate(() => ((globalThis as any).location.hash = '#channels/all'));
      const dialog = page.getByRole('dialog', { name: 'Channels' });
      await dialog.getByRole('button', { name: 'Join #open' }).waitFor();
      await dialog.locator(`[data-channel="${secret}"]`).getByText('#secret').waitFor();
      assert.equal(await dialog.getByRole('button', { name: 'Join #secret' }).count(), 0);

      // Its view: nothing to read, and no offer to subscribe.
      await page.evaluate((id) => ((globalThis as any).location.hash = `#narrow/channel/${id}-secret`), secret);
      await page.getByRole('log', { name: 'History' }).getByText('You are not allowed to view messages in this private channel.').waitFor();
      assert.equal(await page.locator('.bookend').count(), 0);
    }));
});
