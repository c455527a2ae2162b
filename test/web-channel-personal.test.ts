/**
 * One's own settings for a channel in the web client, in real Chromium: the
 * "Personal settings" panel from the Channels dialog and from the channel in
 * view sets the color (shown in the sidebar and the message headers), muted,
 * pinned and the notification overrides as the server then has them; the
 * desktop override decides whether a channel message notifies; changes made
 * through the API show live; the server's refusal shows.
 * Skipped (with one line saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD, type Client } from './helpers.ts';
import { browserTests, channelLink, eventGate, eventually, loginPage, loginToView, messageRow, notificationsShown, PASSWORD, recordNotifications, setInFront, withWebServer, openSidebarMenu } from './web-browser.ts';

/** The owner's subscription to general, as the server has it. */
async function generalAtServer(c: Client): Promise<Record<string, any>> {
  const subs = assertSuccess(await c.request('GET', '/users/me/subscriptions')).subscriptions as Array<Record<string, any>>;
  return subs.find((s) => s.name === 'general')!;
}

/** The CSS color of `where`'s text, as the browser computes it. */
const colorOf = (where: Locator) => where.evaluate((el) => (globalThis as any).getComputedStyle(el).color as string);

await browserTests("the web client in Chromium: one's own settings for each channel", (newContext) => {
  test('personal settings of a channel: color, muted, pinned, notification overrides, as the server has them, live, refusals shown', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Channel' });
      const bobApi = t.client(bob);
      const ownerApi = t.client(t.owner);
      const ctx = await newContext();
      await recordNotifications(ctx);
      const gate = await eventGate(ctx);
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const shown = async () => (await notificationsShown(page)).map((n) => n.body);
      const general = await generalAtServer(ownerApi);
      const inGeneral = async (content: string) => assertSuccess(await bobApi.post('/messages', { type: 'stream', to: 'general', topic: 'plans', content }));
      const dm = async (content: string) => assertSuccess(await bobApi.post('/messages', { type: 'direct', to: JSON.stringify([t.owner.id]), content }));
      await inGeneral('a first message');
      await messageRow(page, 'a first message').waitFor();

      // From the Channels dialog.
      await page.evaluate(() => ((globalThis as any).location.hash = '#channels'));
      const dialog = page.getByRole('dialog', { name: 'Channels' });
      await dialog.getByRole('button', { name: 'Open personal settings of #general' }).click();
      const panel = dialog.getByRole('group', { name: 'Personal settings of #general' });

      // The color: at the server, in the sidebar and the message header.
      await panel.getByLabel('Color').fill('#123456');
      await eventually(async () => (await generalAtServer(ownerApi)).color === '#123456', 'the color saved');
      await eventually(async () => (await colorOf(channelLink(page, 'general').locator('.chan-icon'))) === 'rgb(18, 52, 86)', 'the sidebar in the new color');
      await eventually(
        async () => (await page.locator('.recipient-bar', { hasText: 'plans' }).last().evaluate((el) => (globalThis as any).getComputedStyle(el).getPropertyValue('--stream-color').trim())) === '#123456',
        'the message header in the new color',
      );

      // Muted and pinned.
      // (Each box shows what the server has: checked once its event has come.)
      const muted = panel.getByLabel('Muted');
      await muted.click();
      await eventually(async () => (await generalAtServer(ownerApi)).is_muted === true, 'muted at the server');
      await eventually(() => muted.isChecked(), 'the Muted box checked');
      await muted.click();
      await eventually(async () => (await generalAtServer(ownerApi)).is_muted === false, 'unmuted at the server');
      await eventually(async () => !(await muted.isChecked()), 'the Muted box unchecked');
      const pinned = panel.getByLabel('Pinned to the top of the sidebar');
      await pinned.click();
      await eventually(async () => (await generalAtServer(ownerApi)).pin_to_top === true, 'pinned at the server');
      await eventually(() => pinned.isChecked(), 'the Pinned box checked');

      // Desktop notifications: the default follows the global setting (off for channels).
      const desktop = panel.getByLabel('Desktop notifications');
      assert.equal(await desktop.inputValue(), 'default');
      assert.equal((await desktop.locator('option[value="default"]').textContent())?.trim(), 'Default (Off)');
      await setInFront(page, false);
      await inGeneral('not notified by default');
      await messageRow(page, 'not notified by default').waitFor();
      await dm('a direct message notifies');
      await eventually(async () => (await shown()).includes('a direct message notifies'), 'the direct message to notify');
      assert.deepEqual(await shown(), ['a direct message notifies']);

      // Turned on for this channel: its messages notify.
      await desktop.selectOption('on');
      await eventually(async () => (await generalAtServer(ownerApi)).desktop_notifications === true, 'desktop notifications on at the server');
      await eventually(async () => (await desktop.inputValue()) === 'on', 'the choice to show On');
      await inGeneral('notified now');
      await eventually(async () => (await shown()).includes('notified now'), 'the channel message to notify');

      // Off again: not notified (a direct message after it shows the page had it).
      await desktop.selectOption('off');
      await eventually(async () => (await generalAtServer(ownerApi)).desktop_notifications === false, 'desktop notifications off at the server');
      await inGeneral('silent again');
      await messageRow(page, 'silent again').waitFor();
      await dm('second direct message');
      await eventually(async () => (await shown()).includes('second direct message'), 'the second direct message to notify');
      assert.deepEqual(await shown(), ['a direct message notifies', 'notified now', 'second direct message']);
      await setInFront(page, true);

      // Changes made through the API show live.
      assertSuccess(
        await ownerApi.post('/users/me/subscriptions/properties', {
          subscription_data: JSON.stringify([
            { stream_id: general.stream_id, property: 'audible_notifications', value: true },
            { stream_id: general.stream_id, property: 'color', value: '#abcdef' },
            { stream_id: general.stream_id, property: 'email_notifications', value: false },
          ]),
        }),
      );
      await eventually(async () => (await panel.getByLabel('Sounds').inputValue()) === 'on', 'Sounds to show On');
      await eventually(async () => (await panel.getByLabel('Email notifications').inputValue()) === 'off', 'Email notifications to show Off');
      await eventually(async () => (await panel.getByLabel('Color').inputValue()) === '#abcdef', 'the color input to show the new color');
      await eventually(async () => (await colorOf(channelLink(page, 'general').locator('.chan-icon'))) === 'rgb(171, 205, 239)', 'the sidebar in the color set elsewhere');
      await page.keyboard.press('Escape');

      // From the channel in view: the same settings.
      await channelLink(page, 'general').click();
      await page.getByRole('heading', { name: '#general' }).waitFor();
      await page.getByRole('button', { name: 'Open personal settings of #general' }).click();
      const here = page.getByRole('main').getByRole('group', { name: 'Personal settings of #general' });
      const sounds = here.getByLabel('Sounds');
      assert.equal(await sounds.inputValue(), 'on');
      // Back to the default: the server takes only true or false, so the global setting's value (off) is sent.
      assert.equal((await sounds.locator('option[value="default"]').textContent())?.trim(), 'Default (Off)');
      await sounds.selectOption('default');
      await eventually(async () => (await generalAtServer(ownerApi)).audible_notifications === false, 'sounds as the global setting at the server');
      await eventually(async () => (await sounds.inputValue()) === 'off', 'Sounds to show Off');
      await here.getByLabel('Pinned to the top of the sidebar').click();
      await eventually(async () => (await generalAtServer(ownerApi)).pin_to_top === false, 'unpinned at the server');
      await here.getByLabel('Notify for @all and @topic mentions').selectOption('off');
      await eventually(async () => (await generalAtServer(ownerApi)).wildcard_mentions_notify === false, 'wildcard mentions off at the server');

      // The server's refusal: unsubscribed meanwhile (the page has not heard), a change shows why it failed.
      gate.hold();
      assertSuccess(await ownerApi.request('DELETE', '/users/me/subscriptions', { subscriptions: JSON.stringify(['general']) }));
      await here.getByLabel('Mobile notifications').selectOption('on');
      await here.getByRole('alert').filter({ hasText: `Not subscribed to channel ID ${general.stream_id}` }).waitFor();
      gate.release();
      await ctx.close();
    }));
  test("a channel's menu in the sidebar: mark all as read, pin and unpin, mute and unmute, as the server has them; its link copied; its settings opened; unsubscribing (a private channel once confirmed)", () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Menu' });
      const bobApi = t.client(bob);
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'general' }]), principals: JSON.stringify([bob.id]) }));
      for (const content of ['one', 'two']) assertSuccess(await bobApi.post('/messages', { type: 'stream', to: 'general', topic: 'menu', content }));
      const ctx = await newContext();
      await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
      // (Never in All messages, whose view would mark general's messages read once seen: it opens on Starred.)
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');
      await (await channelLink(page, 'core team')).click();
      await page.getByRole('heading', { name: '#core team' }).waitFor();
      const link = await channelLink(page, 'general');
      await link.getByLabel('2 unread').waitFor();
      const openMenu = () => openSidebarMenu(page, link, '#general');

      // Its unread messages read: the server has them read, the count goes.
      await (await openMenu()).getByRole('menuitem', { name: 'Mark all as read' }).click();
      await eventually(async () => (await link.getByLabel(/unread/).count()) === 0, 'the count gone');
      const unreadAtServer = assertSuccess(await owner.request('GET', '/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'unread' }, { operator: 'channel', operand: 'general' }]) })).messages;
      assert.deepEqual(unreadAtServer, []);
      // With nothing unread, the menu does not offer it.
      let menu = await openMenu();
      assert.equal(await menu.getByRole('menuitem', { name: 'Mark all as read' }).count(), 0);

      // Pinned: the server has it, and the channel is listed under the pinned ones; then unpinned.
      await menu.getByRole('menuitem', { name: 'Pin to top' }).click();
      await eventually(async () => (await generalAtServer(owner)).pin_to_top === true, 'pinned at the server');
      await page.getByRole('list', { name: 'Pinned channels' }).getByRole('link', { name: /^general/ }).waitFor();
      await (await openMenu()).getByRole('menuitem', { name: 'Unpin' }).click();
      await eventually(async () => (await generalAtServer(owner)).pin_to_top === false, 'unpinned at the server');
      await eventually(async () => (await page.getByRole('list', { name: 'Pinned channels' }).count()) === 0, 'no pinned list');

      // Muted, then unmuted. Muted, it goes behind its section's toggle (Zulip's "1 MUTED"), until shown.
      await (await openMenu()).getByRole('menuitem', { name: 'Mute' }).click();
      await eventually(async () => (await generalAtServer(owner)).is_muted === true, 'muted at the server');
      await eventually(async () => (await link.count()) === 0, 'the muted channel hidden');
      const toggle = page.getByRole('navigation', { name: 'Channels' }).getByRole('button', { name: /^1 muted/ });
      assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
      await toggle.click();
      menu = await openMenu();
      await menu.getByRole('menuitem', { name: 'Unmute' }).click();
      await eventually(async () => (await generalAtServer(owner)).is_muted === false, 'unmuted at the server');
      await toggle.waitFor({ state: 'detached' });

      // Its link copied, in Zulip's form.
      await (await openMenu()).getByRole('menuitem', { name: 'Copy link to channel' }).click();
      const generalId = (await generalAtServer(owner)).stream_id as number;
      await eventually(async () => (await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())) === `${t.url}/#narrow/channel/${generalId}-general`, 'the link on the clipboard');

      // Escape closes the menu, back to its button.
      menu = await openMenu();
      await page.keyboard.press('Escape');
      await menu.waitFor({ state: 'detached' });

      // "Channel settings" opens the channel's settings at Zulip's address (the owner may administer it); Escape goes back.
      await (await openMenu()).getByRole('menuitem', { name: 'Channel settings' }).click();
      await page.waitForURL(`${t.url}/#channels/${generalId}/general/general`);
      const dialog = page.getByRole('dialog', { name: 'Channels' });
      await eventually(async () => (await dialog.getByLabel('Channel name').inputValue()) === 'general', "general's settings open");
      assert.equal(await dialog.getByRole('button', { name: 'Close settings of #general' }).count(), 1);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('heading', { name: '#core team' }).waitFor();

      // Unsubscribe: a public channel at once; a private one once confirmed (Cancel keeps it).
      const subscribedTo = async () => (assertSuccess(await owner.request('GET', '/users/me/subscriptions')).subscriptions as Array<{ name: string }>).map((x) => x.name);
      await (await openMenu()).getByRole('menuitem', { name: 'Unsubscribe' }).click();
      await eventually(async () => !(await subscribedTo()).includes('general'), 'general left at the server');
      await link.waitFor({ state: 'detached' });
      const coreTeam = await channelLink(page, 'core team');
      const confirm = page.getByRole('alertdialog', { name: 'Unsubscribe from #core team?' });
      await (await openSidebarMenu(page, coreTeam, '#core team')).getByRole('menuitem', { name: 'Unsubscribe' }).click();
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'detached' });
      assert.ok((await subscribedTo()).includes('core team'));
      await (await openSidebarMenu(page, coreTeam, '#core team')).getByRole('menuitem', { name: 'Unsubscribe' }).click();
      await confirm.getByRole('button', { name: 'Unsubscribe' }).click();
      await eventually(async () => !(await subscribedTo()).includes('core team'), 'core team left at the server');
      await coreTeam.waitFor({ state: 'detached' });
      await ctx.close();

      // A member who may not administer it gets their own settings for it there.
      const bobCtx = await newContext();
      const bobPage = await loginPage(bobCtx, t.url, bob.email, PASSWORD);
      await bobPage.goto(`${t.url}/#channels/${generalId}/general/general`);
      await bobPage.getByRole('dialog', { name: 'Channels' }).getByRole('group', { name: 'Personal settings of #general' }).waitFor();
      assert.equal(await bobPage.getByLabel('Channel name').count(), 0);
      await bobCtx.close();
    }));
});
