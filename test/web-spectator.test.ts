/**
 * The web client for a logged-out visitor (Zulip's spectator), in real
 * Chromium: where the server enables web-public channels and the
 * organization spectator access, the address of the app opens it without a
 * login, reading the web-public channels only (Recent conversations as the
 * home view, the channels' feeds and topics, All messages), with nothing to
 * change (no compose box, no message actions, no menus) and a "Log in" link;
 * without spectator access the address leads to the login page.
 * Skipped (with one line saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertSuccess } from './helpers.ts';
import { browserTests, channelLink, messageRow, startWebTestServer } from './web-browser.ts';

await browserTests('the web client in Chromium: logged-out visitors', (newContext) => {
  test('a visitor reads the web-public channels, changes nothing, and can log in; without spectator access it is asked to log in', async () => {
    const t = await startWebTestServer({ WEB_PUBLIC_STREAMS_ENABLED: 'true' });
    try {
      const owner = t.client(t.owner);
      assertSuccess(await owner.patch('/realm', { enable_spectator_access: true }));
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'open-house' }]), is_web_public: true }));
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'back-office' }]) }));
      const post = async (to: string, topic: string, content: string) => assertSuccess(await owner.post('/messages', { type: 'stream', to, topic, content }));
      await post('open-house', 'welcome', 'Hello visitors');
      await post('back-office', 'budget', 'Members only numbers');
      await post('open-house', 'schedule', 'Doors open at nine');

      const ctx = await newContext();
      const page = await ctx.newPage();
      await page.goto(`${t.url}/`);
      // The app, not the login page; Recent conversations is a visitor's home view.
      await page.getByRole('heading', { name: 'Recent conversations', exact: true }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/');
      const table = page.getByRole('table', { name: 'Conversations' });
      await table.getByText('schedule').waitFor();
      await table.getByText('welcome').waitFor();
      assert.equal(await table.getByText('budget').count(), 0);
      // Nothing is unread for a visitor, who took part in nothing: those filters are disabled.
      assert.equal(await page.getByRole('checkbox', { name: 'Unread' }).isDisabled(), true);
      assert.equal(await page.getByRole('checkbox', { name: 'Participated' }).isDisabled(), true);
      // The keys listed are those a visitor can use; those of views a visitor does not have do nothing.
      await page.keyboard.press('?');
      const keys = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await keys.getByText('Search', { exact: true }).waitFor();
      assert.equal(await keys.getByText('New channel message').count(), 0);
      assert.equal(await keys.getByText('Drafts').count(), 0);
      await keys.getByText('Filter channels', { exact: true }).waitFor();
      assert.equal(await keys.getByText('Filter people', { exact: true }).count(), 0);
      await page.keyboard.press('Escape');
      await keys.waitFor({ state: 'detached' });
      for (const key of ['I', 'P', 'd']) await page.keyboard.press(key);
      await page.waitForTimeout(300);
      assert.equal(new URL(page.url()).hash, '');
      await page.getByRole('heading', { name: 'Recent conversations', exact: true }).waitFor();

      // The sidebar: the two views that need no account, the web-public channel only, no direct messages.
      const views = page.getByRole('navigation', { name: 'Views' });
      await views.getByRole('link', { name: /^All messages/ }).waitFor();
      assert.equal(await views.getByRole('link', { name: /^Inbox/ }).count(), 0);
      assert.equal(await views.getByRole('link', { name: /^Starred/ }).count(), 0);
      await channelLink(page, 'open-house').waitFor();
      assert.equal(await channelLink(page, 'back-office').count(), 0);
      assert.equal(await page.getByRole('navigation', { name: 'Conversations' }).count(), 0);
      assert.equal(await page.getByRole('button', { name: /^Actions for/ }).count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Browse and create channels' }).count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Log out' }).count(), 0);

      // The channel (Zulip's default: its newest topic), read only: no compose box, no message actions.
      await channelLink(page, 'open-house').click();
      await page.getByRole('heading', { name: '#open-house \u203a schedule' }).waitFor();
      await messageRow(page, 'Doors open at nine').waitFor();
      assert.equal(await page.getByLabel('Message', { exact: true }).count(), 0);
      assert.equal(await page.getByRole('toolbar', { name: 'Actions' }).count(), 0);
      // The keys that would change a message ask nothing of the server (Ctrl+S stars, + reacts).
      const writes: string[] = [];
      page.on('request', (r) => {
        if (r.method() !== 'GET' && new URL(r.url()).pathname.startsWith('/json/messages')) writes.push(`${r.method()} ${r.url()}`);
      });
      await messageRow(page, 'Doors open at nine').click();
      for (const key of ['Control+s', '+', '=', 'U', '-']) await page.keyboard.press(key);
      await page.waitForTimeout(500);
      assert.deepEqual(writes, []);
      // Its topics are listed in the sidebar.
      await page.getByRole('list', { name: 'In open-house' }).getByRole('link', { name: /^welcome/ }).click();
      await messageRow(page, 'Hello visitors').waitFor();

      // All messages: the web-public channels' messages, none other.
      await views.getByRole('link', { name: /^All messages/ }).click();
      await page.getByRole('heading', { name: 'All messages', exact: true }).waitFor();
      await messageRow(page, 'Doors open at nine').waitFor();
      await messageRow(page, 'Hello visitors').waitFor();
      assert.equal(await messageRow(page, 'Members only numbers').count(), 0);

      // A way in (back to this view once logged in).
      await page.getByRole('link', { name: 'Log in', exact: true }).click();
      await page.waitForURL(`${t.url}/login/#feed`);
      // An address of what needs an account (an email's link to the notification settings): the login page, keeping it.
      // Zulip's help is for visitors too.
      await page.goto(`${t.url}/#keyboard-shortcuts`);
      await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
      await page.goto(`${t.url}/#about-zulip`);
      await page.getByRole('dialog', { name: 'About Parley' }).getByText('Zulip API feature level').waitFor();
      await page.goto(`${t.url}/#settings/notifications`);
      await page.waitForURL(`${t.url}/login/#settings/notifications`);

      // Without spectator access, the app's address is the login page's.
      assertSuccess(await owner.patch('/realm', { enable_spectator_access: false }));
      const closed = await ctx.newPage();
      await closed.goto(`${t.url}/`);
      await closed.waitForURL(`${t.url}/login/`);
      await ctx.close();
    } finally {
      await t.close();
    }
  });
});
