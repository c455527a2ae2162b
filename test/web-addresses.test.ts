/**
 * Zulip's addresses of the dialogs over the app, in the web client, in real
 * Chromium: #settings/<section>, #organization/<section>, #groups and
 * #invite open Settings at that section (and the section buttons put their
 * section's address in the address bar); #channels/new, #streams/all,
 * #keyboard-shortcuts, #message-formatting, #search-operators (the help's
 * tabs: the keys, formatting examples as the server renders them, the search
 * filters), #about-zulip (the server's version), #user/<id> and #recent_topics open what Zulip's open;
 * links to them in messages (Notification Bot's data export message) work,
 * and closing goes back to the view under the dialog. A link opened logged
 * out opens there once logged in.
 * Skipped (with one line saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD, streamIdOf } from './helpers.ts';
import { browserTests, eventually, inDialogView as inView, goToHash as go, loginPage, messageRow, PASSWORD, withWebServer } from './web-browser.ts';

/** Waits until `heading` shows in its dialog, and checks it is still there a moment later (after the dialog's lists have loaded). */
async function shownAt(page: Page, heading: Locator, what: string): Promise<void> {
  await eventually(() => inView(heading), `${what} in view`);
  await page.waitForTimeout(700);
  assert.equal(await inView(heading), true, `${what} still in view`);
}

const hashOf = (page: Page) => new URL(page.url()).hash;
/** Closes the dialog `dialog` with Escape, and waits until it has gone. */
async function closeWithEscape(page: Page, dialog: Locator): Promise<void> {
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
}
await browserTests("Zulip's addresses of dialogs in the web client", (newContext) => {
  test("Zulip's overlay addresses open their dialogs at their sections, from messages too; closing goes back to the view", () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ name: 'Bob Address' });
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const settings = page.getByRole('dialog', { name: 'Settings' });
      // (A section's heading: Settings has h3 headings of the same names inside some sections.)
      const heading = (name: string, level?: number) => settings.getByRole('heading', { name, exact: true, ...(level ? { level } : {}) });

      // Notification Bot's message about a finished data export links to the exports.
      assertSuccess(await owner.post('/export/realm'));
      const notice = messageRow(page, 'Your data export is complete.');
      await notice.waitFor({ timeout: 60_000 });
      await notice.getByRole('link', { name: 'View and download exports' }).click();
      await shownAt(page, heading('Data exports'), 'Data exports');
      assert.equal(await inView(heading('Profile')), false);
      assert.equal(hashOf(page), '#organization/data-exports-admin');
      await closeWithEscape(page, settings);
      await page.getByRole('heading', { name: 'All messages' }).waitFor();
      assert.equal(hashOf(page), '#feed');

      // Each section's address, personal and the organization's.
      const sections: Array<[string, string, number?]> = [
        ['#settings/notifications', 'Notifications'],
        ['#settings/preferences', 'Display'],
        ['#settings/muted-users', 'Muted users'],
        ['#settings/topics', 'Topics', 2],
        ['#organization/organization-permissions', 'Organization permissions'],
        ['#organization/profile-field-settings', 'Custom profile fields'],
        ['#organization/users/active', 'People'],
        ['#organization/users/invitations', 'Invitations'],
        ['#groups', 'User groups'],
        ['#invite', 'Invite people'],
      ];
      for (const [hash, name, level] of sections) {
        await go(page, hash);
        await shownAt(page, heading(name, level), `${name} at ${hash}`);
      }
      // A section Parley has no place for: the top.
      await go(page, '#settings/no-such-section');
      await shownAt(page, heading('Profile'), 'Profile');
      // The section buttons: the address names the section where Zulip's has a name for it.
      const index = settings.getByRole('navigation', { name: 'Sections' });
      await index.getByRole('button', { name: 'Alert words' }).click();
      await shownAt(page, heading('Alert words'), 'Alert words');
      assert.equal(hashOf(page), '#settings/alert-words');
      await index.getByRole('button', { name: 'Password' }).click();
      assert.equal(hashOf(page), '#settings');
      await closeWithEscape(page, settings);
      assert.equal(hashOf(page), '#feed');

      // Links in a message.
      const links = `[create](#channels/new) [browse](#streams/all) [keys](#keyboard-shortcuts) [person](#user/${bob.id}) [recent](#recent_topics)`;
      assertSuccess(await owner.post('/messages', { type: 'stream', to: 'general', topic: 'links', content: links }));
      const row = messageRow(page, 'create browse keys');
      await row.waitFor();
      const channels = page.getByRole('dialog', { name: 'Channels' });

      await row.getByRole('link', { name: 'create' }).click();
      await channels.waitFor();
      await eventually(async () => (await page.evaluate(() => (globalThis as any).document.activeElement?.id)) === 'new-channel-name', 'the new channel form ready to type in');
      assert.equal(hashOf(page), '#channels/new');
      await closeWithEscape(page, channels);
      assert.equal(hashOf(page), '#feed');

      await row.getByRole('link', { name: 'browse' }).click();
      await channels.getByRole('list', { name: 'All channels' }).waitFor();
      await closeWithEscape(page, channels);

      await row.getByRole('link', { name: 'keys' }).click();
      const keys = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await keys.waitFor();
      await closeWithEscape(page, keys);
      assert.equal(hashOf(page), '#feed');

      await row.getByRole('link', { name: 'person' }).click();
      const card = page.getByRole('dialog', { name: 'Bob Address' });
      await card.waitFor();
      await closeWithEscape(page, card);
      assert.equal(hashOf(page), '#feed');

      // The help: the keys, message formatting (what one types, as the server renders it) and the search's filters, a tab each.
      await go(page, '#message-formatting');
      const formatting = page.getByRole('dialog', { name: 'Message formatting' });
      const bold = formatting.getByRole('row', { name: /^\*\*bold\*\*/ });
      await bold.locator('.rendered strong').filter({ hasText: 'bold' }).waitFor();
      await formatting.getByRole('row', { name: `@**${t.owner.row.full_name}**` }).locator('.user-mention').waitFor();
      assert.equal(await formatting.getByRole('row', { name: /^\/poll/ }).getByRole('cell').nth(1).textContent(), 'A poll: the question, then an option on each line (at the start of a message)');
      await formatting.getByRole('tab', { name: 'Search filters' }).click();
      const filters = page.getByRole('dialog', { name: 'Search filters' });
      await filters.getByRole('row', { name: /^"lunch menu"/ }).waitFor();
      assert.equal(hashOf(page), '#search-operators');
      await closeWithEscape(page, filters);
      assert.equal(hashOf(page), '#feed');
      // The compose box's formatting bar links to it; the ? key opens the keys (its tabs leave the address alone).
      await page.getByRole('button', { name: 'Formatting', exact: true }).click();
      await page.getByRole('toolbar', { name: 'Formatting' }).getByRole('link', { name: 'Message formatting' }).click();
      await formatting.waitFor();
      await closeWithEscape(page, formatting);
      // The top bar's help button: the keys.
      await page.getByRole('link', { name: 'Help', exact: true }).click();
      await keys.waitFor();
      await closeWithEscape(page, keys);
      await page.locator('body').press('?');
      await keys.getByRole('tab', { name: 'Message formatting' }).click();
      await formatting.waitFor();
      assert.equal(hashOf(page), '#feed');
      // The help's link to what this server is (Zulip's #about-zulip): the version and feature level the server reports.
      await formatting.getByRole('link', { name: 'About this server' }).click();
      const about = page.getByRole('dialog', { name: 'About Parley' });
      await about.waitFor();
      assert.equal(hashOf(page), '#about-zulip');
      const reported = assertSuccess(await owner.get('/server_settings'));
      assert.deepEqual(await about.locator('dd').allTextContents(), [reported.zulip_version, String(reported.zulip_feature_level)]);
      assert.equal(reported.zulip_feature_level, 483);
      // Closed, it goes back to the help it was opened from.
      await closeWithEscape(page, about);
      await closeWithEscape(page, formatting);
      assert.equal(hashOf(page), '#feed');

      // Zulip's older name of Recent conversations.
      await row.getByRole('link', { name: 'recent' }).click();
      await page.getByRole('heading', { name: 'Recent conversations', exact: true }).waitFor();
    }));
  test('a link opened logged out opens there once logged in (the address kept over the login page, or its next path of this site); a session that ends under the user sends them back there after logging in again', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Returning' });
      const general = await streamIdOf(t.client(t.owner), 'general');
      assertSuccess(await t.client(t.owner).post('/messages', { type: 'stream', to: 'general', topic: 'plans', content: 'the plan is set' }));
      const logIn = async (page: Page) => {
        await page.getByLabel('Email').fill(bob.email);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Log in' }).click();
      };

      // An email's link to the notification settings.
      let ctx = await newContext();
      let page = await ctx.newPage();
      await page.goto(`${t.url}/#settings/notifications`);
      await page.waitForURL(`${t.url}/login/#settings/notifications`);
      await logIn(page);
      const settings = page.getByRole('dialog', { name: 'Settings' });
      await shownAt(page, settings.getByRole('heading', { name: 'Notifications', exact: true, level: 2 }), 'Notifications');
      await ctx.close();

      // A link to a conversation.
      ctx = await newContext();
      page = await ctx.newPage();
      await page.goto(`${t.url}/#narrow/channel/${general}-general/topic/plans`);
      await page.waitForURL(/\/login\/#narrow/);
      await logIn(page);
      await page.getByRole('heading', { name: '#general \u203a plans' }).waitFor();
      await messageRow(page, 'the plan is set').waitFor();
      await ctx.close();

      // Zulip's next parameter: a path of this site; another site's is not followed.
      ctx = await newContext();
      page = await ctx.newPage();
      await page.goto(`${t.url}/login/?next=${encodeURIComponent('/#recent')}`);
      await logIn(page);
      await page.getByRole('heading', { name: 'Recent conversations', exact: true }).waitFor();
      await ctx.close();
      ctx = await newContext();
      page = await ctx.newPage();
      await page.goto(`${t.url}/login/?next=${encodeURIComponent('//elsewhere.example/')}`);
      await logIn(page);
      await page.waitForURL(`${t.url}/`);
      await page.getByRole('navigation', { name: 'Views' }).waitFor();

      // The session ends (the API key regenerated elsewhere): the client's next request leads to the login page, and back.
      // (That request: the event queue's, if it asks again meanwhile, else the messages of a topic opened now.)
      await page.evaluate((h) => ((globalThis as any).location.hash = h), `#narrow/channel/${general}-general/topic/plans`);
      await messageRow(page, 'the plan is set').waitFor();
      assertSuccess(await t.client(bob).post('/users/me/api_key/regenerate'));
      await page.evaluate((h) => ((globalThis as any).location.hash = h), `#narrow/channel/${general}-general/topic/other`).catch(() => undefined);
      await page.waitForURL(/\/login\/#narrow\/channel\/\d+-general\/topic\/(plans|other)$/);
      const where = new URL(page.url()).hash.endsWith('/other') ? 'other' : 'plans';
      await logIn(page);
      await page.getByRole('heading', { name: `#general \u203a ${where}` }).waitFor();
      await ctx.close();
    }));
});
