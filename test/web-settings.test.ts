/**
 * The browser client in real Chromium: desktop notifications and sounds, the
 * Channels dialog, invitations (by email and by link), bots, the
 * organization settings and data exports. One's own settings are in
 * test/web-preferences.test.ts. Skipped (with one line saying why) where
 * Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import type { Page } from 'playwright-core';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD, sentEmails, settingsAtServer, streamIdOf } from './helpers.ts';
import { browserTests, eventually, loginPage, messageRow, notificationsShown, PASSWORD, recordNotifications, setInFront, withWebServer, openSettings } from './web-browser.ts';

/** On the registration page a confirmation link opened: the form filled in and sent, then the login, until the web client shows its inbox. */
async function createAccountAndLogIn(page: Page, email: string, name: string, password: string): Promise<void> {
  await page.getByLabel('Full name').fill(name);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('link', { name: 'Log in to the web app' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('region', { name: 'Inbox' }).waitFor();
}

await browserTests('the web client in Chromium: notifications, sounds, the Channels dialog, invitations, bots, organization settings', (newContext) => {
  test('desktop notifications: direct messages and mentions while the page is not in front, as the settings say', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Notify' });
      const bobApi = t.client(bob);
      const ctx = await newContext();
      await recordNotifications(ctx);
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const shown = () => notificationsShown(page);
      const dm = async (content: string) => assertSuccess(await bobApi.request('POST', '/messages', { type: 'direct', to: JSON.stringify([t.owner.id]), content }));
      const inGeneral = async (topic: string, content: string) => assertSuccess(await bobApi.request('POST', '/messages', { type: 'stream', to: 'general', topic, content }));

      // Looking at the page: no notification.
      await dm('while you look');
      await messageRow(page, 'while you look').waitFor();
      assert.deepEqual(await shown(), []);

      await setInFront(page, false);
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
      // A message out of view stays unread: the tab's title counts it, as many as the server has unread.
      // (Compared with the server, not with the title before it: the topic opened just now may still be being marked read.)
      await setInFront(page, true);
      const meanwhile = (await dm('unread meanwhile')).id as number;
      const unreadAtServer = async (): Promise<number[]> =>
        assertSuccess(await t.client(t.owner).request('GET', '/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow: [{ operator: 'is', operand: 'unread' }] })).messages.map((m: any) => m.id);
      await eventually(async () => {
        const shown = /^\((\d+)\) #general › plans - Parley$/.exec(await page.title());
        const unread = await unreadAtServer();
        return !!shown && unread.includes(meanwhile) && Number(shown[1]) === unread.length;
      }, 'the unread count in the title');
      // The page's icon shows it too, with a dot while a direct message is unread (Zulip's favicon); the plain mark once all is read.
      const icon = async () => decodeURIComponent((await page.locator('link[rel="icon"]').getAttribute('href')) ?? '');
      await eventually(async () => {
        const count = /^\((\d+)\)/.exec(await page.title())?.[1];
        const svg = await icon();
        return !!count && svg.includes(`>${count}</text>`) && svg.includes('<circle');
      }, 'the count and the dot in the icon');
      assertSuccess(await t.client(t.owner).request('POST', '/mark_all_as_read'));
      await eventually(async () => !(await icon()).includes('<text') && !(await icon()).includes('<circle') && (await icon()).includes('<rect'), 'the plain icon');

      // Turned off in Settings: nothing more.
      const dialog = await openSettings(page);
      await dialog.getByText('Shown while this page is not in front.').waitFor();
      await dialog.getByLabel('Direct messages and mentions', { exact: true }).uncheck();
      const saved = async () => (await settingsAtServer(t.client(t.owner))).enable_desktop_notifications;
      await eventually(async () => (await saved()) === false, 'the setting saved');
      await page.keyboard.press('Escape');
      await page.evaluate(() => ((globalThis as any).location.hash = '#feed'));
      await page.getByRole('heading', { name: 'All messages' }).waitFor();
      await setInFront(page, false);
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
    }));

  test('sounds: direct messages and mentions while the page is not in front, as the settings say', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Sounds' });
      const bobApi = t.client(bob);
      const ctx = await newContext();
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
      await setInFront(page, false);
      await dm('a direct message');
      await eventually(async () => (await sounds()) === 1, 'a sound for the direct message');
      // A channel message: not by default; a mention: yes.
      await inGeneral('no one in particular');
      await messageRow(page, 'no one in particular').waitFor();
      await inGeneral(`@**${t.owner.row.full_name}** listen`);
      await eventually(async () => (await sounds()) === 2, 'a sound for the mention');

      // Turned off in Settings: none.
      await setInFront(page, true);
      await (await openSettings(page)).getByLabel(/^Sounds/).uncheck();
      const saved = async () => (await settingsAtServer(t.client(t.owner))).enable_sounds;
      await eventually(async () => (await saved()) === false, 'the setting saved');
      await page.keyboard.press('Escape');
      await setInFront(page, false);
      await dm('after turning them off');
      await messageRow(page, 'after turning them off').waitFor();
      // And "none" as the sound (by the API): none either, whatever else asks for one.
      assertSuccess(await t.client(t.owner).request('PATCH', '/settings', { enable_sounds: true, notification_sound: 'none' }));
      await dm('with no sound chosen');
      await messageRow(page, 'with no sound chosen').waitFor();
      assert.equal(await sounds(), 2);
      await ctx.close();
    }));

  test('channels: browse (with subscriber counts), join, pin, mute, leave and create one (with the people it starts with) from the web client', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Channels' });
      assertSuccess(await t.client(bob).request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'random', description: 'Anything goes' }]) }));
      const owner = t.client(t.owner);
      const mine = async () => (assertSuccess(await owner.request('GET', '/users/me/subscriptions')).subscriptions as Array<{ stream_id: number; name: string; invite_only: boolean; description: string }>);
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const sidebar = page.getByRole('navigation', { name: 'Channels' });
      await sidebar.getByRole('button', { name: 'Browse and create channels' }).click();
      const dialog = page.getByRole('dialog', { name: 'Channels' });
      const list = dialog.getByRole('list', { name: 'All channels' });
      await list.getByText('Anything goes').waitFor();
      await list.getByRole('button', { name: 'Leave #general' }).waitFor();
      // Each channel says how many are in it, kept current.
      const randomCount = list.getByRole('listitem', { name: '#random' }).locator('.channel-subscribers');
      assert.equal(await randomCount.textContent(), '1 subscriber');

      // Join, then leave: the sidebar and the server follow.
      await list.getByRole('button', { name: 'Join #random', exact: true }).click();
      await list.getByRole('button', { name: 'Leave #random' }).waitFor();
      await eventually(async () => (await randomCount.textContent()) === '2 subscribers', 'two subscribers once joined');
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
      // (Muted, it goes behind its section's toggle in the sidebar, Zulip's "1 MUTED".)
      await eventually(async () => (await sidebar.getByRole('link', { name: /^random\b/ }).count()) === 0, 'random hidden as muted');
      assert.equal(await sidebar.locator('.hidden-toggle .label').textContent(), '1 muted');
      await list.getByRole('button', { name: 'Unmute #random' }).click();
      await list.getByRole('button', { name: 'Mute #random', exact: true }).waitFor();
      assert.equal(await muted(), false);
      await list.getByRole('button', { name: 'Leave #random' }).click();
      await list.getByRole('button', { name: 'Join #random', exact: true }).waitFor();
      await eventually(async () => (await sidebar.getByRole('link', { name: /^random\b/ }).count()) === 0, 'random gone from the sidebar');
      assert.ok(!(await mine()).some((s) => s.name === 'random'));
      await eventually(async () => (await randomCount.textContent()) === '1 subscriber', 'one subscriber once left');
      // Someone else joins: counted.
      const carol = await t.makeUser({ name: 'Carol Channels' });
      assertSuccess(await t.client(carol).request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'random' }]) }));
      await eventually(async () => (await randomCount.textContent()) === '2 subscribers', 'another subscriber counted');

      // A name already taken is refused before anything is sent.
      await dialog.getByLabel('Name', { exact: true }).fill('General');
      await dialog.getByRole('button', { name: 'Create channel' }).click();
      await dialog.getByRole('alert').filter({ hasText: 'A channel with this name already exists.' }).waitFor();

      // Create a private one: the view moves to it.
      await dialog.getByLabel('Name', { exact: true }).fill('design');
      await dialog.getByLabel('Description').fill('Pixels and fonts');
      await dialog.getByLabel(/^Private/).check();
      // With two people besides the creator.
      const dora = await t.makeUser({ name: 'Dora Design' });
      const eli = await t.makeUser({ name: 'Eli Design' });
      await dialog.getByLabel('People to add (besides you)').getByRole('option', { name: 'Eli Design' }).waitFor({ state: 'attached' });
      await dialog.getByLabel('People to add (besides you)').selectOption([String(dora.id), String(eli.id)]);
      await dialog.getByRole('button', { name: 'Create channel' }).click();
      await page.getByRole('heading', { name: '#design' }).waitFor();
      assert.equal(await dialog.count(), 0, 'the dialog closed');
      const design = (await mine()).find((s) => s.name === 'design');
      assert.ok(design, 'subscribed to the new channel');
      assert.equal(design.invite_only, true);
      assert.equal(design.description, 'Pixels and fonts');
      const members = assertSuccess(await t.client(t.owner).get(`/streams/${design.stream_id}/members`)).subscribers as number[];
      assert.deepEqual([...members].sort((a, b) => a - b), [t.owner.id, dora.id, eli.id].sort((a, b) => a - b));
      await sidebar.getByRole('link', { name: /^design\b/ }).waitFor();
      await ctx.close();
    }));

  test('invitations: the owner invites from Settings; the invitee signs up by the emailed link and uses the web client', () =>
    withWebServer(async (t) => {
      const emailsTo = (addr: string) => sentEmails(t.server.svc.config.dataDir, addr);
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const dialog = await openSettings(page);
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
      const newbieCtx = await newContext();
      const newbie = await newbieCtx.newPage();
      await newbie.goto(link);
      await createAccountAndLogIn(newbie, 'newbie@example.org', 'Newbie Person', 'a-new-and-long-password-9');
      // Invited into the default channels; the owner sees the new person.
      await newbie.getByRole('navigation', { name: 'Channels' }).getByRole('link', { name: /^general\b/ }).waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('complementary', { name: 'People' }).getByText('Newbie Person').waitFor();
      await newbieCtx.close();
      await ctx.close();
    }));

  test('bots: a member creates a bot with an avatar, sees its API key and zuliprc, manages it from the list (a new name and avatar), and deactivates it; a refused bot says why; an administrator reactivates it', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Bots' });
      const bobApi = t.client(bob);
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      const section = (await openSettings(page)).getByRole('region', { name: 'Bots' });
      const picture = (color: string) => sharp({ create: { width: 30, height: 30, channels: 3, background: color } }).png().toBuffer();
      const create = async (name: string, short: string, type: string) => {
        await section.getByLabel('Bot name').fill(name);
        await section.getByLabel(/^Bot email/).fill(short);
        await section.getByLabel('Bot type').selectOption({ label: type });
        await section.getByRole('button', { name: 'Create bot' }).click();
      };
      await section.getByLabel('Avatar (optional)').setInputFiles({ name: 'bot.png', mimeType: 'image/png', buffer: await picture('#3366cc') });
      await create('Alert Hook', 'alerts', 'Generic bot');
      await section.getByRole('status').filter({ hasText: 'Bot created.' }).waitFor();
      const [made] = assertSuccess(await bobApi.get('/bots')).bots;
      assert.equal(made.full_name, 'Alert Hook');
      // Created with the chosen image as its avatar; the file input emptied for the next bot.
      assert.match(made.avatar_url, /\/user_avatars\/\d+\/\d+\.png\?version=1$/);
      assert.equal(await section.getByLabel('Avatar (optional)').inputValue(), '');
      const bots = section.getByRole('list', { name: 'Your bots' });
      await bots.getByRole('listitem', { name: 'Alert Hook' }).waitFor();
      await bots.getByRole('button', { name: 'Show API key of Alert Hook' }).click();
      assert.equal(await bots.getByLabel('API key of Alert Hook').textContent(), made.api_key);
      // The key works, and the zuliprc holds the bot's account.
      const me = assertSuccess(await t.client({ email: made.username, apiKey: made.api_key }).get('/users/me'));
      assert.equal(me.is_bot, true);
      const href = await bots.getByRole('link', { name: 'Download zuliprc' }).getAttribute('href');
      assert.equal(decodeURIComponent(href!.replace(/^data:text\/plain;charset=utf-8,/, '')), `[api]\nemail=${made.username}\nkey=${made.api_key}\nsite=${t.url}\n`);

      // The same address again: the server's reason, and no second bot.
      await create('Alert Hook Two', 'alerts', 'Incoming webhook');
      await section.getByRole('alert').waitFor();
      assert.equal(assertSuccess(await bobApi.get('/bots')).bots.length, 1);

      // Managed from the list: "Manage bot" over Settings, a new name and avatar saved together; no role for a member.
      await bots.getByRole('button', { name: 'Manage Alert Hook' }).click();
      const manage = page.getByRole('dialog', { name: 'Manage bot' });
      await manage.waitFor();
      assert.equal(await manage.getByLabel('Role').count(), 0);
      await manage.getByLabel('Name').fill('Alert Hook Renamed');
      await manage.getByLabel('Avatar').setInputFiles({ name: 'new.png', mimeType: 'image/png', buffer: await picture('#cc6633') });
      await manage.getByRole('button', { name: 'Save changes' }).click();
      await manage.waitFor({ state: 'detached' });
      const [renamed] = assertSuccess(await bobApi.get('/bots')).bots;
      assert.equal(renamed.full_name, 'Alert Hook Renamed');
      assert.match(renamed.avatar_url, /\.png\?version=2$/);
      await bots.getByRole('listitem', { name: 'Alert Hook Renamed' }).waitFor();
      // The list shows each bot's avatar (the new one), and no owner for one's own bots.
      await eventually(async () => (await bots.getByRole('listitem', { name: 'Alert Hook Renamed' }).locator('img.avatar-img').getAttribute('src'))?.includes('version=2') === true, 'the new avatar in the list');
      assert.equal(await bots.getByText(/owned by/).count(), 0);
      // The new image is what the list's dialog shows when opened again.
      await bots.getByRole('button', { name: 'Manage Alert Hook Renamed' }).click();
      await eventually(async () => (await manage.locator('img.avatar-img').getAttribute('src'))?.includes('version=2') === true, 'the new avatar shown');
      await page.keyboard.press('Escape');
      await manage.waitFor({ state: 'detached' });
      assert.equal(await page.getByRole('dialog', { name: 'Settings' }).count(), 1);

      await bots.getByRole('button', { name: 'Deactivate Alert Hook Renamed' }).click();
      await eventually(async () => assertSuccess(await bobApi.get('/bots')).bots.length === 0, 'the bot deactivated');
      // Shown as deactivated; a member cannot reactivate it here.
      await eventually(async () => (await bots.getByRole('listitem', { name: 'Alert Hook Renamed' }).getAttribute('class')) === 'deactivated', 'the bot shown as deactivated');
      assert.equal(await bots.getByRole('button', { name: 'Reactivate Alert Hook Renamed' }).count(), 0);

      // An administrator sees every bot, and reactivates it.
      const ownerCtx = await newContext();
      const owner = await loginPage(ownerCtx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const ownerBots = (await openSettings(owner)).getByRole('list', { name: 'Your bots' });
      // (Another's bot names its owner.)
      await ownerBots.getByRole('listitem', { name: 'Alert Hook Renamed' }).getByText('owned by Bob Bots').waitFor();
      await ownerBots.getByRole('button', { name: 'Reactivate Alert Hook Renamed' }).click();
      await eventually(async () => assertSuccess(await bobApi.get('/bots')).bots.length === 1, 'the bot reactivated');
      await bots.getByRole('button', { name: 'Deactivate Alert Hook Renamed' }).waitFor();
      await ownerCtx.close();
      await ctx.close();
    }));

  test('"Generate URL for an integration" (an incoming webhook bot\'s Manage bot): the integration, a channel and one topic make the URL, which works', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Hooks' });
      const bobApi = t.client(bob);
      const made = assertSuccess(await bobApi.post('/bots', { full_name: 'Build Hook', short_name: 'builds', bot_type: 2 }));
      const realmUrl = assertSuccess(await bobApi.get('/server_settings')).realm_url as string;
      const generalId = await streamIdOf(bobApi, 'general');
      const page = await loginPage(await newContext(), t.url, bob.email, PASSWORD);
      const bots = (await openSettings(page)).getByRole('list', { name: 'Your bots' });
      const gen = page.getByRole('dialog', { name: 'Generate URL for an integration' });
      // Straight from the list: another integration starts over (a direct message, no topic), as Zulip's.
      await bots.getByRole('button', { name: 'Generate URL for an integration for Build Hook' }).click();
      await gen.getByLabel('Integration', { exact: true }).selectOption({ label: 'JSON formatter' });
      await gen.getByLabel('Where to send notifications').selectOption({ label: '#general' });
      await gen.getByLabel('Send all notifications to a single topic').check();
      await gen.getByLabel('Integration', { exact: true }).selectOption({ label: 'GitHub' });
      assert.equal(await gen.getByLabel('Where to send notifications').inputValue(), '-1');
      assert.equal(await gen.getByLabel('Send all notifications to a single topic').isChecked(), false);
      await gen.getByRole('button', { name: 'Close', exact: true }).click();
      await gen.waitFor({ state: 'detached' });
      // From Manage bot, the same.
      await bots.getByRole('button', { name: 'Manage Build Hook' }).click();
      await page.getByRole('dialog', { name: 'Manage bot' }).getByRole('button', { name: 'Generate URL for an integration' }).click();
      const url = gen.getByLabel('URL for your integration');
      const copy = gen.getByRole('button', { name: 'Copy URL' });
      assert.equal(await url.textContent(), 'Integration URL will appear here.');
      assert.equal(await copy.isDisabled(), true);
      // An integration: its URL, to a direct message by default.
      await gen.getByLabel('Integration', { exact: true }).selectOption({ label: 'JSON formatter' });
      await eventually(async () => (await url.textContent()) === `${realmUrl}/api/v1/external/json?api_key=${made.api_key}`, 'the URL for direct messages');
      assert.equal(await copy.isDisabled(), false);
      // A channel and one topic; no URL to copy while the topic is empty.
      await gen.getByLabel('Where to send notifications').selectOption({ label: '#general' });
      await gen.getByLabel('Send all notifications to a single topic').check();
      await eventually(() => copy.isDisabled(), 'no copying without a topic');
      await gen.getByLabel('Topic', { exact: true }).fill('builds & deploys');
      const expected = `${realmUrl}/api/v1/external/json?api_key=${made.api_key}&stream=${generalId}&topic=builds+%26+deploys`;
      await eventually(async () => (await url.textContent()) === expected, 'the URL with its channel and topic');
      assert.equal(await copy.isDisabled(), false);
      // The URL works: a JSON document posted to it arrives in #general, in that topic.
      const res = await fetch(expected, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ build: 'passed' }) });
      assert.equal(res.status, 200, await res.text());
      const narrow = JSON.stringify([{ operator: 'channel', operand: generalId }, { operator: 'topic', operand: 'builds & deploys' }]);
      const [arrived] = assertSuccess(await bobApi.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow })).messages;
      assert.equal(arrived.sender_id, made.user_id);
      assert.match(arrived.content, /passed/);
      // Escape closes the generator, and Manage bot stays.
      await page.keyboard.press('Escape');
      await gen.waitFor({ state: 'detached' });
      await page.getByRole('dialog', { name: 'Manage bot' }).waitFor();
    }));

  test('"Generate URL for an integration": GitHub\'s branches, private repositories and events to include make the URL, and the server follows it', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Hooks' });
      const bobApi = t.client(bob);
      const made = assertSuccess(await bobApi.post('/bots', { full_name: 'Repo Hook', short_name: 'repo', bot_type: 2 }));
      const realmUrl = assertSuccess(await bobApi.get('/server_settings')).realm_url as string;
      const generalId = await streamIdOf(bobApi, 'general');
      // A channel only administrators may post in is not offered.
      const owner = t.client(t.owner);
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'announcements' }]), principals: JSON.stringify([bob.id]) }));
      const admins = assertSuccess(await owner.get('/user_groups')).user_groups.find((g: { name: string }) => g.name === 'role:administrators').id;
      assertSuccess(await owner.patch(`/streams/${await streamIdOf(owner, 'announcements')}`, { can_send_message_group: JSON.stringify({ new: admins }) }));
      const page = await loginPage(await newContext(), t.url, bob.email, PASSWORD);
      const bots = (await openSettings(page)).getByRole('list', { name: 'Your bots' });
      await bots.getByRole('button', { name: 'Generate URL for an integration for Repo Hook' }).click();
      const gen = page.getByRole('dialog', { name: 'Generate URL for an integration' });
      const url = gen.getByLabel('URL for your integration');
      const copy = gen.getByRole('button', { name: 'Copy URL' });
      const channelOptions = await gen.getByLabel('Where to send notifications').locator('option').allTextContents();
      assert.ok(channelOptions.includes('#general'), String(channelOptions));
      assert.ok(!channelOptions.includes('#announcements'), String(channelOptions));
      // The JSON formatter has no events or options to offer.
      await gen.getByLabel('Integration', { exact: true }).selectOption({ label: 'JSON formatter' });
      assert.equal(await gen.getByLabel('Filter events that will trigger notifications?').count(), 0);
      assert.equal(await gen.getByLabel('Send notifications for all branches').count(), 0);
      // GitHub: all branches, public and private repositories, every event, until chosen otherwise.
      await gen.getByLabel('Integration', { exact: true }).selectOption({ label: 'GitHub' });
      await gen.getByLabel('Where to send notifications').selectOption({ label: '#general' });
      const base = `${realmUrl}/api/v1/external/github?api_key=${made.api_key}&stream=${generalId}`;
      await eventually(async () => (await url.textContent()) === base, 'the plain URL');
      assert.equal(await gen.getByLabel('Send notifications for all branches').isChecked(), true);
      assert.equal(await gen.getByLabel('Exclude notifications from private repositories').isChecked(), false);
      // Events to include: none chosen, nothing to copy; all; none; two, in the list's (alphabetical) order.
      await gen.getByLabel('Filter events that will trigger notifications?').check();
      const events = gen.getByRole('group', { name: 'Events to include:' });
      const listed = await events.getByRole('checkbox').evaluateAll((boxes) => boxes.map((b) => b.parentElement!.textContent!.trim()));
      assert.deepEqual(listed, listed.slice().sort((a, b) => a.localeCompare(b)));
      assert.ok(listed.includes('create') && listed.includes('ping') && listed.includes('push_commits'), String(listed));
      await eventually(() => copy.isDisabled(), 'nothing to copy with no event chosen');
      await events.getByRole('button', { name: 'Check all', exact: true }).click();
      await eventually(async () => (await url.textContent()) === `${base}&only_events=${encodeURIComponent(JSON.stringify(listed)).replace(/%20/g, '+')}`, 'every event');
      await events.getByRole('button', { name: 'Uncheck all' }).click();
      await eventually(async () => (await url.textContent()) === base && (await copy.isDisabled()), 'no events again');
      await events.getByLabel('push_commits').check();
      await events.getByLabel('create', { exact: true }).check();
      // Only some branches (starting from "main"), and not private repositories.
      await gen.getByLabel('Send notifications for all branches').uncheck();
      const branches = gen.getByLabel('Which branches should notifications be sent for?');
      assert.equal(await branches.inputValue(), 'main');
      await branches.fill('main, dev');
      await gen.getByLabel('Exclude notifications from private repositories').check();
      const expected = `${base}&only_events=%5B%22create%22%2C%22push_commits%22%5D&branches=main%2Cdev&ignore_private_repositories=true`;
      await eventually(async () => (await url.textContent()) === expected, 'the URL with events, branches and private repositories');
      assert.equal(await copy.isDisabled(), false);

      // The server follows the URL: a ping is not among the events, a private repository is left out, a branch created is posted.
      const post = (event: string, body: unknown) =>
        fetch(expected, { method: 'POST', headers: { 'content-type': 'application/json', 'X-GitHub-Event': event }, body: JSON.stringify(body) });
      const repo = { name: 'tools', full_name: 'bob/tools', html_url: 'https://github.com/bob/tools', private: false };
      const sender = { login: 'bob', html_url: 'https://github.com/bob' };
      const newest = async () => assertSuccess(await bobApi.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: generalId }]) })).messages[0];
      const before = (await newest())?.id;
      for (const [event, body] of [
        ['ping', { zen: 'z', repository: repo, sender }],
        ['create', { ref: 'hidden', ref_type: 'branch', repository: { ...repo, private: true }, sender }],
      ] as const) {
        const res = await post(event, body);
        assert.equal(res.status, 200, await res.text());
      }
      assert.equal((await newest())?.id, before);
      const res = await post('create', { ref: 'dev', ref_type: 'branch', repository: repo, sender });
      assert.equal(res.status, 200, await res.text());
      const arrived = await newest();
      assert.equal(arrived.sender_id, made.user_id);
      assert.equal(arrived.subject, 'tools');
      assert.match(arrived.content, /bob created branch dev/);
      // Another integration starts over: no filter, all branches.
      await gen.getByLabel('Integration', { exact: true }).selectOption({ label: 'GitLab' });
      assert.equal(await gen.getByLabel('Filter events that will trigger notifications?').isChecked(), false);
      assert.equal(await gen.getByLabel('Send notifications for all branches').isChecked(), true);
      assert.equal(await gen.getByLabel('Exclude notifications from private repositories').count(), 0);
    }));

  test('organization settings: an administrator renames the organization, uploads its icon, renames a person, changes a role, deactivates and reactivates an account; members do not see them', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Member' });
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const org = (await openSettings(page)).getByRole('region', { name: 'Organization', exact: true });

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

      // An icon uploaded: the server has it, and the top bar shows it (here and on a member's page); removed, Parley's mark is back.
      const bobCtx = await newContext();
      const bobPage = await loginPage(bobCtx, t.url, bob.email, PASSWORD);
      const icon = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 200, g: 40, b: 40 } } }).png().toBuffer();
      await org.getByLabel('Upload a new icon').setInputFiles({ name: 'icon.png', mimeType: 'image/png', buffer: icon });
      await org.getByRole('status').filter({ hasText: 'Icon uploaded.' }).waitFor();
      const iconUrl = assertSuccess(await owner.post('/register', { fetch_event_types: JSON.stringify(['realm']) })).realm_icon_url as string;
      assert.match(iconUrl, /\/realm\/icon\.png\?version=/);
      for (const p of [page, bobPage]) await eventually(async () => (await p.locator('.topbar img.brand-icon').getAttribute('src').catch(() => null)) === iconUrl, 'the icon in the top bar');
      await org.getByRole('button', { name: 'Remove icon' }).click();
      await eventually(async () => (await bobPage.locator('.topbar img.brand-icon').count()) === 0, 'the icon gone from the top bar');
      assert.equal(assertSuccess(await owner.post('/register', { fetch_event_types: JSON.stringify(['realm']) })).realm_icon_source, 'G');
      await bobCtx.close();
      // Changed elsewhere while the form is open: a field not being edited shows the new value; one being edited keeps what is typed.
      await org.getByLabel('Description').fill('Half typed');
      assertSuccess(await owner.patch('/realm', { name: 'Renamed Elsewhere', description: 'Changed elsewhere.' }));
      await eventually(async () => (await org.getByLabel('Organization name').inputValue()) === 'Renamed Elsewhere', 'the name changed elsewhere');
      assert.equal(await org.getByLabel('Description').inputValue(), 'Half typed');

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

      // Renamed: the server has the new name; a name the server refuses says why and changes nothing.
      await people.getByRole('button', { name: 'Rename Bob Member' }).click();
      let rename = people.getByRole('form', { name: 'Rename Bob Member' });
      await rename.getByLabel('New name').fill('Robert Member');
      await rename.getByRole('button', { name: 'Save name' }).click();
      await eventually(async () => assertSuccess(await owner.get(`/users/${bob.id}`)).user.full_name === 'Robert Member', "Bob's new name at the server");
      await people.getByRole('listitem', { name: 'Robert Member' }).waitFor();
      await people.getByRole('button', { name: 'Rename Robert Member' }).click();
      rename = people.getByRole('form', { name: 'Rename Robert Member' });
      await rename.getByLabel('New name').fill('Bad * name');
      await rename.getByRole('button', { name: 'Save name' }).click();
      await org.getByRole('alert').filter({ hasText: 'Invalid characters in name!' }).waitFor();
      assert.equal(assertSuccess(await owner.get(`/users/${bob.id}`)).user.full_name, 'Robert Member');
      await rename.getByLabel('New name').fill('Bob Member');
      await rename.getByRole('button', { name: 'Save name' }).click();
      await people.getByRole('listitem', { name: 'Bob Member' }).waitFor();

      await people.getByRole('button', { name: 'Deactivate Bob Member' }).click();
      await people.getByRole('button', { name: 'Reactivate Bob Member' }).waitFor();
      assert.equal(assertSuccess(await owner.get(`/users/${bob.id}`)).user.is_active, false);
      await people.getByRole('button', { name: 'Reactivate Bob Member' }).click();
      await people.getByRole('button', { name: 'Deactivate Bob Member' }).waitFor();
      assert.equal(assertSuccess(await owner.get(`/users/${bob.id}`)).user.is_active, true);

      // On/off settings, as Zulip's organization settings name them: the server has each change; one made elsewhere shows.
      const realmAtServer = async () => (assertSuccess(await owner.post('/register', { fetch_event_types: JSON.stringify(['realm']) })) as Record<string, any>);
      const websites = org.getByLabel('Show previews of linked websites');
      assert.equal(await websites.isChecked(), false);
      await websites.check();
      await eventually(async () => (await realmAtServer()).realm_inline_url_embed_preview === true, 'website previews on at the server');
      const channelEvents = org.getByLabel('Send automated messages for channel events');
      // (The web tests' organization has them off.)
      assert.equal(await channelEvents.isChecked(), false);
      await channelEvents.check();
      await eventually(async () => (await realmAtServer()).realm_send_channel_events_messages === true, 'channel events on at the server');
      for (const label of ['Send weekly digest emails to inactive users', 'Send emails introducing Parley to new users', 'Allow message content in message notification emails', 'Show previews of uploaded and linked images and videos']) {
        await org.getByLabel(label).waitFor();
      }
      assertSuccess(await owner.patch('/realm', { inline_image_preview: false }));
      await eventually(async () => !(await org.getByLabel('Show previews of uploaded and linked images and videos').isChecked()), 'a change made elsewhere');

      // A member's settings have no organization section.
      const memberCtx = await newContext();
      const carol = await t.makeUser({ password: PASSWORD, name: 'Carol Member' });
      const member = await loginPage(memberCtx, t.url, carol.email, PASSWORD);
      await (await openSettings(member)).getByRole('heading', { name: 'Invite people' }).waitFor();
      assert.equal(await member.getByRole('region', { name: 'Organization', exact: true }).count(), 0);
      await memberCtx.close();
      await ctx.close();
    }));

  test('data exports: an administrator starts one, downloads it once written, deletes it; a full export needs an owner who allows it (Settings, Account); the list follows the server', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const dialog = await openSettings(page);
      const org = dialog.getByRole('region', { name: 'Organization', exact: true });
      const exportsList = org.getByRole('list', { name: 'Data exports' });
      await org.getByText('No exports yet.').waitFor();

      // A public export: listed at once, then ready to download (the realm_export event).
      await org.getByLabel('What to export').selectOption('public');
      await org.getByRole('button', { name: 'Start export' }).click();
      const first = exportsList.getByRole('listitem');
      await first.getByRole('link', { name: 'Download' }).waitFor();
      const [atServer] = assertSuccess(await owner.get('/export/realm')).exports as Array<{ id: number; export_url: string; export_type: string }>;
      assert.equal(atServer!.export_type, 'public');
      assert.equal(await first.getByRole('link', { name: 'Download' }).getAttribute('href'), atServer!.export_url);
      const download = await page.evaluate(async (url) => (await fetch(url)).status, atServer!.export_url);
      assert.equal(download, 200);

      // Deleted once confirmed.
      await first.getByRole('button', { name: `Delete export ${atServer!.id}` }).click();
      await first.getByRole('alertdialog', { name: `Delete export ${atServer!.id}?` }).getByRole('button', { name: 'Delete', exact: true }).click();
      await first.getByText(/^Deleted /).waitFor();
      assert.ok((assertSuccess(await owner.get('/export/realm')).exports as Array<{ deleted_timestamp: number | null }>)[0]!.deleted_timestamp);

      // A full export: refused while no owner allows it, with the server's reason; started once the owner does.
      await org.getByLabel('What to export').selectOption('full_with_consent');
      await org.getByRole('button', { name: 'Start export' }).click();
      await org.getByRole('alert').filter({ hasText: 'Make sure at least one Organization Owner is consenting to the export' }).waitFor();
      await dialog.getByLabel('Let administrators export my private data').check();
      await eventually(async () => assertSuccess(await owner.request('POST', '/register', { fetch_event_types: ['user_settings'] })).user_settings.allow_private_data_export === true, 'the consent at the server');
      await org.getByRole('button', { name: 'Start export' }).click();
      await eventually(async () => (await exportsList.getByRole('listitem').count()) === 2, 'the second export listed');
      const second = exportsList.getByRole('listitem').first();
      await second.getByText('Full, with the private data of those who allow it').waitFor();
      await second.getByRole('link', { name: 'Download' }).waitFor();
      await ctx.close();
    }));

  test('invitation links: made in Settings for a role and a time (the server has it), listed with the invitations by email; someone signs up through one (confirming their address) with its role; revoked, the link no longer works', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const invitesAtServer = async () => assertSuccess(await owner.get('/invites')).invites as Array<Record<string, any>>;
      assertSuccess(await owner.post('/invites', { invitee_emails: 'waiting@example.org', invite_as: 400, stream_ids: '[]' }));
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const section = (await openSettings(page)).getByRole('region', { name: 'Invitations' });
      const list = section.getByRole('list', { name: 'Invitations waiting' });
      await list.getByRole('listitem', { name: 'waiting@example.org' }).waitFor();

      await section.getByLabel('Role given by the link').selectOption({ label: 'Moderator' });
      await section.getByLabel('Lasting').selectOption({ label: '1 day' });
      const before = Date.now() / 1000;
      await section.getByRole('button', { name: 'Make invitation link' }).click();
      const linkBox = section.getByLabel('New invitation link');
      await linkBox.waitFor();
      const link = await linkBox.inputValue();
      assert.match(link, /\/join\/[a-z0-9]+\/$/);
      const made = (await invitesAtServer()).find((i) => i.is_multiuse)!;
      assert.equal(made.link_url, link);
      assert.equal(made.invited_as, 300);
      assert.ok(Math.abs(made.expiry_date - (before + 86400)) < 120, `expires in a day: ${made.expiry_date - before}`);
      const row = list.getByRole('listitem', { name: `Link ${link}` });
      await row.waitFor();
      assert.match((await row.textContent()) ?? '', /as Moderator/);

      // The link opens the join page; a visitor signs up through it (an email to confirm the address) and joins as a moderator.
      const visitorCtx = await newContext();
      const visitor = await visitorCtx.newPage();
      await visitor.goto(link);
      await visitor.getByRole('heading', { name: 'Join Parley' }).waitFor();
      await visitor.getByLabel('Email').fill('linked@example.org');
      await visitor.getByRole('button', { name: 'Sign up' }).click();
      await visitor.getByRole('heading', { name: 'Check your email' }).waitFor();
      const [mail] = sentEmails(t.server.svc.config.dataDir, 'linked@example.org');
      const confirm = /https?:\/\/\S+\/accounts\/do_confirm\/\S+/.exec(mail!.text)?.[0];
      assert.ok(confirm, mail!.text);
      await visitor.goto(confirm);
      assert.equal(await visitor.getByLabel('Email').inputValue(), 'linked@example.org');
      await createAccountAndLogIn(visitor, 'linked@example.org', 'Linked Person', 'a-linked-and-long-password-7');
      const linked = (assertSuccess(await owner.get('/users')).members as Array<Record<string, any>>).find((u) => u.delivery_email === 'linked@example.org' || u.email === 'linked@example.org');
      assert.equal(linked?.full_name, 'Linked Person');
      assert.equal(linked?.role, 300);
      // The link stays usable by others until it expires or is revoked.
      await row.waitFor();

      // Revoked: gone from the list and at the server; the link no longer offers to join.
      await row.getByRole('button', { name: `Revoke Link ${link}` }).click();
      await eventually(async () => (await row.count()) === 0, 'the link gone from the list');
      assert.deepEqual((await invitesAtServer()).map((i) => i.email ?? i.link_url), ['waiting@example.org']);
      await visitor.goto(link);
      await visitor.getByRole('heading', { name: 'This invitation link has expired' }).waitFor();
      assert.equal(await visitor.getByLabel('Email').count(), 0);
      await visitorCtx.close();
      await ctx.close();
    }));
});
