/**
 * The browser client in real Chromium: one's own settings and what they
 * change (marking messages read, display, font size and line spacing, the
 * home view, Escape, the People list, one's account and notifications away
 * from the page, the API key, uploaded files), Settings' sections, and a
 * forgotten password. Split from test/web-settings.test.ts so that the
 * suite's two test processes share them. Skipped (with one line saying why)
 * where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD, sentEmails, settingsAtServer, streamIdOf } from './helpers.ts';
import { browserTests, eventually, loginPage, loginToView, messageRow, PASSWORD, postPng, withWebServer, openSettings } from './web-browser.ts';

await browserTests("the web client in Chromium: one's own settings, a forgotten password", (newContext) => {
  test('marking messages read on scroll: only in views of whole conversations (not Starred messages, Mentions or a search, as Zulip\u2019s); never, or only in a conversation view, as chosen in Settings (the server has it)', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = t.client(await t.makeUser({ name: 'Bob Scroll' }));
      const id = assertSuccess(await bob.post('/messages', { type: 'stream', to: 'general', topic: 'scroll', content: 'seen or not' })).id as number;
      const isRead = async () => (assertSuccess(await owner.get(`/messages/${id}`)).message.flags as string[]).includes('read');
      const policyAtServer = async () => assertSuccess(await owner.request('POST', '/register', { fetch_event_types: ['user_settings'] })).user_settings.web_mark_read_on_scroll_policy;
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');

      // "Always" (the default): a message starred and mentioning the user stays unread in Starred
      // messages, Mentions and a search, which show it out of its conversation.
      const other = assertSuccess(await bob.post('/messages', { type: 'stream', to: 'general', topic: 'elsewhere', content: `@**${t.owner.row.full_name}** starred and mentioned` })).id as number;
      assertSuccess(await owner.post('/messages/flags', { messages: JSON.stringify([other]), op: 'add', flag: 'starred' }));
      const otherRead = async () => (assertSuccess(await owner.get(`/messages/${other}`)).message.flags as string[]).includes('read');
      // Each says so under the messages (Zulip's unread banner).
      const banner = page.locator('.unread-banner');
      for (const view of ['#narrow/is/starred', '#narrow/is/mentioned', '#narrow/search/mentioned']) {
        await page.evaluate((h) => ((globalThis as any).location.hash = h), view);
        await messageRow(page, 'starred and mentioned').waitFor();
        await banner.getByText('To preserve your reading state, this view does not mark messages as read.').waitFor();
        await page.waitForTimeout(1500);
        assert.equal(await otherRead(), false, `not read in ${view}`);
      }
      // Its topic's view marks it read (the first message stays unread, out of view).
      const generalId = await streamIdOf(owner, 'general');
      await page.evaluate((g) => ((globalThis as any).location.hash = `#narrow/channel/${g}/topic/elsewhere`), generalId);
      await eventually(() => otherRead(), 'read in its topic');
      assert.equal(await isRead(), false);
      const choose = async (label: string, value: number) => {
        await openSettings(page);
        await page.getByLabel('Mark messages as read when they scroll into view').selectOption({ label });
        await eventually(async () => (await policyAtServer()) === value, `${label} at the server`);
        await page.keyboard.press('Escape');
      };

      await choose('Never', 3);
      await page.evaluate((g) => ((globalThis as any).location.hash = `#narrow/channel/${g}`), generalId);
      await messageRow(page, 'seen or not').waitFor();
      await banner.getByText('Messages will not be automatically marked as read.').waitFor();
      // "Change setting": Settings (Zulip's link, to its preferences), with the setting itself in view and focused.
      await banner.getByRole('link', { name: 'Change setting' }).click();
      const policy = page.getByRole('dialog', { name: 'Settings' }).getByLabel('Mark messages as read when they scroll into view');
      await eventually(
        () => policy.evaluate((e) => {
          const box = e.closest('.settings')!.getBoundingClientRect();
          const r = e.getBoundingClientRect();
          return r.top >= box.top && r.bottom <= box.bottom && e === (globalThis as any).document.activeElement;
        }),
        'the setting in view and focused',
      );
      assert.equal(new URL(page.url()).hash, '#settings/preferences');
      await page.keyboard.press('Escape');
      await page.waitForTimeout(1500);
      assert.equal(await isRead(), false, 'not read in a channel view with "Never"');

      await choose('Only in conversation views (a topic or a direct-message conversation)', 2);
      await page.evaluate((g) => ((globalThis as any).location.hash = `#narrow/channel/${g}`), generalId);
      await messageRow(page, 'seen or not').waitFor();
      await banner.getByText('Messages will not be automatically marked as read because this is not a conversation view.').waitFor();
      await page.waitForTimeout(1500);
      assert.equal(await isRead(), false, 'not read in a channel view');
      await page.evaluate((g) => ((globalThis as any).location.hash = `#narrow/channel/${g}/topic/scroll`), generalId);
      await eventually(() => isRead(), 'read in the topic view');
      await ctx.close();
    }));

  test('a link\u2019s "near" view marks nothing read and a "with" one does, as Zulip\u2019s; the banner under unread messages left unread marks the view\u2019s messages read, or is closed for that view', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = t.client(await t.makeUser({ name: 'Bob Linked' }));
      const generalId = await streamIdOf(owner, 'general');
      const send = async (topic: string, content: string) => assertSuccess(await bob.post('/messages', { type: 'stream', to: 'general', topic, content })).id as number;
      const read = async (id: number) => (assertSuccess(await owner.get(`/messages/${id}`)).message.flags as string[]).includes('read');
      const a = await send('linked', 'linked first');
      const b = await send('linked', 'linked second');
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');
      const banner = page.locator('.unread-banner');
      const go = (hash: string) => page.evaluate((h) => ((globalThis as any).location.hash = h), hash);

      // The topic at a "near" link: both in view, neither read; the banner says why. Closed, it stays closed in this view.
      await go(`#narrow/channel/${generalId}-general/topic/linked/near/${a}`);
      await messageRow(page, 'linked second').waitFor();
      await banner.getByText('To preserve your reading state, this view does not mark messages as read.').waitFor();
      await banner.getByRole('button', { name: 'Close' }).click();
      await banner.waitFor({ state: 'detached' });
      await page.mouse.wheel(0, -200);
      await page.waitForTimeout(1500);
      assert.equal(await banner.count(), 0, 'closed for the view');
      assert.deepEqual([await read(a), await read(b)], [false, false], 'not read at a near link');

      // At a "with" link (Zulip's link to a conversation): read.
      await go(`#narrow/channel/${generalId}-general/topic/linked/with/${a}`);
      await eventually(async () => (await read(a)) && (await read(b)), 'read at a with link');
      assert.equal(await banner.count(), 0);

      // A search's banner: "Mark as read" marks its messages read.
      const c = await send('searched', 'a needle here');
      const d = await send('searched', 'another needle');
      await go('#narrow/search/needle');
      await messageRow(page, 'another needle').waitFor();
      await banner.getByRole('button', { name: 'Mark as read' }).click();
      await eventually(async () => (await read(c)) && (await read(d)), 'read by the banner');
      await banner.waitFor({ state: 'detached' });
      await ctx.close();
    }));

  test('display settings: shown at once, put back when the server refuses, but not over a change made meanwhile', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const theme = (await openSettings(page)).getByLabel('Theme');
      assert.equal(await theme.inputValue(), '1');

      // Each PATCH /json/settings waits for the test, which then refuses it.
      const held: Array<(msg: string) => Promise<void>> = [];
      await page.route('**/json/settings', (route) => {
        if (route.request().method() !== 'PATCH') return route.continue();
        held.push((msg) => route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ result: 'error', msg, code: 'BAD_REQUEST' }) }));
      });

      // Refused with nothing else in between: the old value is back, with the reason.
      await theme.selectOption('2');
      await eventually(() => held.length === 1, 'the first change sent');
      assert.equal(await theme.inputValue(), '2');
      await held.shift()!('Not now.');
      await page.getByRole('alert').filter({ hasText: 'Not now.' }).waitFor();
      await eventually(async () => (await theme.inputValue()) === '1', 'the theme put back');

      // Changed elsewhere while the request is out: the refusal leaves the newer value.
      await theme.selectOption('2');
      await eventually(() => held.length === 1, 'the second change sent');
      assertSuccess(await owner.request('PATCH', '/settings', { color_scheme: 3 }));
      await eventually(async () => (await theme.inputValue()) === '3', "the other client's change shown");
      await held.shift()!('Still not.');
      await page.getByRole('alert').filter({ hasText: 'Still not.' }).waitFor();
      // The refusal has been handled (its alert is up); the value stays the one the server has.
      assert.equal(await theme.inputValue(), '3');
      assert.equal((await settingsAtServer(owner)).color_scheme, 3);
      await ctx.close();
    }));
  test('font size and line spacing (Zulip\u2019s web_font_size_px and web_line_height_percent, with its choices): the page follows them, chosen here or elsewhere, and long messages are measured again; the page\u2019s width (fluid_layout_width)', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      // 23 lines: under the height that makes a message long (35 em) at Zulip's default spacing, over it at 158%.
      const lines = Array.from({ length: 22 }, (_, i) => `line ${i + 1}`).join('\n');
      const sent = assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'density', content: `Many lines:\n${lines}` }));
      // Read already (an unread message has a taller cutoff).
      assertSuccess(await owner.request('POST', '/messages/flags', { messages: JSON.stringify([sent.id]), op: 'add', flag: 'read' }));
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const showMore = messageRow(page, 'Many lines').getByRole('button', { name: 'Show more' });
      /** The page's text size in px and its lines' spacing (a ratio), as the browser computes them for the message list. */
      const density = () =>
        page.evaluate(() => {
          const g = globalThis as any;
          const style = g.getComputedStyle(g.document.querySelector('main') ?? g.document.body);
          const size = parseFloat(style.fontSize);
          return { size, spacing: Math.round((parseFloat(style.lineHeight) / size) * 100) };
        });
      // Zulip's defaults (16 px, 140%): the page's own 14 px.
      assert.deepEqual(await density(), { size: 14, spacing: 140 });
      await messageRow(page, 'Many lines').waitFor();
      assert.equal(await showMore.count(), 0);
      const dialog = await openSettings(page);
      const fontSize = dialog.getByLabel('Font size', { exact: true });
      const spacing = dialog.getByLabel('Line spacing', { exact: true });
      assert.equal(await fontSize.inputValue(), '16');
      assert.deepEqual(await fontSize.locator('option').allInnerTexts(), ['12 px', '13 px', '14 px', '15 px', '16 px (default)', '17 px', '18 px', '19 px', '20 px']);
      assert.deepEqual(await spacing.locator('option').allInnerTexts(), ['122%', '131%', '140% (default)', '149%', '158%']);
      // Lines further apart: the message is measured again, long now.
      await spacing.selectOption('158');
      await showMore.waitFor();
      await fontSize.selectOption('20');
      await eventually(async () => {
        const s = await settingsAtServer(owner);
        return s.web_font_size_px === 20 && s.web_line_height_percent === 158;
      }, 'both at the server');
      assert.deepEqual(await density(), { size: 17.5, spacing: 158 });
      // Changed elsewhere: the page follows.
      assertSuccess(await owner.request('PATCH', '/settings', { web_font_size_px: 12, web_line_height_percent: 122 }));
      await eventually(async () => (await fontSize.inputValue()) === '12' && (await spacing.inputValue()) === '122', 'the choices from elsewhere');
      assert.deepEqual(await density(), { size: 10.5, spacing: 122 });
      await eventually(async () => (await showMore.count()) === 0, 'the message short again');

      // In a wide window the page is 1,400 px wide (Zulip's fluid_layout_width off, its default), or the window's width once chosen.
      await page.setViewportSize({ width: 1800, height: 800 });
      const appWidth = () => page.locator('.app').evaluate((el) => Math.round(el.getBoundingClientRect().width));
      await eventually(async () => (await appWidth()) === 1400, 'at most 1,400 px');
      await dialog.getByLabel('Use the full width of a wide window').check();
      await eventually(async () => (await settingsAtServer(owner)).fluid_layout_width === true, 'the full width at the server');
      await eventually(async () => (await appWidth()) === 1800, 'the whole window');
      await ctx.close();
    }));
  test('an animated upload\u2019s preview moves as web_animate_image_previews says (Zulip\u2019s): by default still with a play sign, moving while the pointer is over it; always; never', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      // A 3-frame GIF, uploaded and sent.
      const frames = 3;
      const raw = Buffer.alloc(120 * 80 * frames * 4, 255);
      for (let i = 0; i < raw.length; i += 4) raw[i] = Math.floor(i / (120 * 80 * 4)) * 90;
      const gif = await sharp(raw, { raw: { width: 120, height: 80 * frames, channels: 4, pageHeight: 80 } }).gif().toBuffer();
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(gif)], { type: 'image/gif' }), 'wave.gif');
      const auth = `Basic ${Buffer.from(`${t.owner.email}:${t.owner.apiKey}`).toString('base64')}`;
      const uploaded = (await (await fetch(`${t.url}/api/v1/user_uploads`, { method: 'POST', headers: { Authorization: auth }, body: form })).json()) as { url: string };
      assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'gifs', content: `A wave: [wave.gif](${uploaded.url})` }));
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const preview = messageRow(page, 'A wave').locator('.message_inline_image');
      const img = preview.locator('img');
      const src = async () => (await img.getAttribute('src'))!.split('/').at(-1);
      await img.waitFor();
      // Zulip's default (on_hover): still, with the play sign, moving under the pointer.
      assert.equal(await src(), '840x560.webp');
      assert.match((await preview.getAttribute('class'))!, /message_inline_animated_image_still/);
      await img.hover();
      await eventually(async () => (await src()) === '840x560-anim.webp', 'moving under the pointer');
      await page.getByRole('heading', { name: 'All messages' }).hover();
      await eventually(async () => (await src()) === '840x560.webp', 'still again');
      // Always: the animated thumbnail, no play sign.
      const select = (await openSettings(page)).getByLabel('Play animated images');
      await select.selectOption('always');
      await eventually(async () => (await settingsAtServer(owner)).web_animate_image_previews === 'always', 'always, at the server');
      await page.keyboard.press('Escape');
      await eventually(async () => (await src()) === '840x560-anim.webp', 'moving');
      assert.doesNotMatch((await preview.getAttribute('class'))!, /still/);
      // Never: still, and not under the pointer either.
      assertSuccess(await owner.request('PATCH', '/settings', { web_animate_image_previews: 'never' }));
      await eventually(async () => (await src()) === '840x560.webp', 'still');
      await img.hover();
      await page.waitForTimeout(300);
      assert.equal(await src(), '840x560.webp');
      await ctx.close();
    }));
  test('People in the left sidebar in narrow windows (Zulip\u2019s left_side_userlist, off by default): chosen in Settings, the server has it; People\u2019s own button goes then', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await page.setViewportSize({ width: 900, height: 800 });
      const left = page.getByRole('complementary', { name: 'Views and channels' });
      const peopleButton = page.getByRole('button', { name: 'People', exact: true });
      await peopleButton.waitFor();
      assert.equal(await left.getByRole('complementary', { name: 'People' }).count(), 0);
      await (await openSettings(page)).getByLabel('Show People in the left sidebar in narrow windows').check();
      await eventually(async () => (await settingsAtServer(owner)).left_side_userlist === true, 'on at the server');
      await page.keyboard.press('Escape');
      const inLeft = left.getByRole('complementary', { name: 'People' });
      await inLeft.getByRole('button', { name: /Owner/ }).waitFor();
      await peopleButton.waitFor({ state: 'hidden' });
      // A wide window has People on the right, not twice.
      await page.setViewportSize({ width: 1280, height: 800 });
      await eventually(async () => !(await inLeft.isVisible()), 'not in the left sidebar of a wide window');
      assert.equal(await page.getByRole('complementary', { name: 'People' }).count(), 1);
      await ctx.close();
    }));
  test('default settings for new users: an administrator changes them (the server has them, a new user starts with them, the administrator keeps their own); a change made elsewhere shows; members are not offered them', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const registered = async (client: ReturnType<typeof t.client>) =>
        assertSuccess(await client.request('POST', '/register', { fetch_event_types: JSON.stringify(['realm_user_settings_defaults', 'user_settings']) }));
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const dialog = await openSettings(page);
      await dialog.getByRole('button', { name: 'Show the defaults' }).click();
      const panel = dialog.getByRole('group', { name: 'Default settings for new users' });
      await panel.getByLabel('Theme').selectOption({ label: 'Dark' });
      await panel.getByLabel('Who can see their email address').selectOption({ label: 'Admins only' });
      await panel.getByLabel('24-hour time').check();
      await panel.getByLabel('Digest emails').uncheck();
      await eventually(async () => {
        const d = (await registered(owner)).realm_user_settings_defaults;
        return d.color_scheme === 2 && d.email_address_visibility === 3 && d.twenty_four_hour_time === true && d.enable_digest_emails === false;
      }, 'the defaults at the server');
      // The administrator's own settings stay as they were.
      const own = (await registered(owner)).user_settings;
      assert.equal(own.color_scheme, 1);
      assert.equal(own.twenty_four_hour_time, false);
      // Someone who joins now starts with them.
      const newcomer = await t.makeUser({ password: PASSWORD });
      const theirs = (await registered(t.client(newcomer))).user_settings;
      assert.equal(theirs.color_scheme, 2);
      assert.equal(theirs.email_address_visibility, 3);
      assert.equal(theirs.twenty_four_hour_time, true);
      assert.equal(theirs.enable_digest_emails, false);

      // Changed elsewhere: shown here.
      assertSuccess(await owner.request('PATCH', '/realm/user_settings_defaults', { web_home_view: 'recent', enable_sounds: false }));
      await eventually(async () => (await panel.getByLabel('Home view', { exact: true }).inputValue()) === 'recent', 'the home view default from elsewhere');
      await eventually(async () => !(await panel.getByLabel('Sounds for direct messages and mentions').isChecked()), 'the sounds default from elsewhere');
      await ctx.close();

      // A member has no such part.
      const memberCtx = await newContext();
      const memberPage = await loginPage(memberCtx, t.url, newcomer.email, PASSWORD);
      await (await openSettings(memberPage)).getByRole('heading', { name: 'Profile' }).waitFor();
      assert.equal(await memberPage.getByRole('heading', { name: 'Default settings for new users' }).count(), 0);
      await memberCtx.close();
    }));

  test('home view: the inbox by default; chosen in Settings (the server has it), it is what the empty address and the home link show, and first in the sidebar', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const homeAtServer = async () => (await settingsAtServer(owner)).web_home_view as string;
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '');
      await page.getByRole('heading', { name: 'Inbox', exact: true }).waitFor();
      const home = (await openSettings(page)).getByLabel('Home view', { exact: true });
      assert.equal(await home.inputValue(), 'inbox');

      /** The first three views of the sidebar: the home view first, as in Zulip's. */
      const firstViews = async () => (await page.getByRole('navigation', { name: 'Views' }).locator('a.side-item .label').allInnerTexts()).slice(0, 3).join();
      assert.equal(await firstViews(), 'Inbox,Recent conversations,All messages');
      await home.selectOption('recent');
      await eventually(async () => (await homeAtServer()) === 'recent', 'recent conversations the home view at the server');
      await eventually(async () => (await firstViews()) === 'Recent conversations,Inbox,All messages', 'Recent conversations first');
      await page.keyboard.press('Escape');
      await page.getByRole('link', { name: 'Parley home' }).click();
      await page.getByRole('heading', { name: 'Recent conversations', exact: true }).waitFor();

      // Chosen elsewhere while the page shows the home view: it follows at once.
      assertSuccess(await owner.request('PATCH', '/settings', { web_home_view: 'inbox' }));
      await page.getByRole('heading', { name: 'Inbox', exact: true }).waitFor();
      assertSuccess(await owner.request('PATCH', '/settings', { web_home_view: 'all_messages' }));
      await page.getByRole('log', { name: 'History' }).waitFor();
      assert.equal(await page.getByRole('heading', { name: 'All messages', exact: true }).count(), 1);
      await eventually(async () => (await firstViews()) === 'All messages,Inbox,Recent conversations', 'All messages first');
      // Not where the page shows something else.
      await page.getByRole('link', { name: /^Recent conversations/ }).first().click();
      await page.getByRole('heading', { name: 'Recent conversations', exact: true }).waitFor();
      assertSuccess(await owner.request('PATCH', '/settings', { web_home_view: 'inbox' }));
      // The page has the change (Settings shows it), and stays where it is.
      await openSettings(page);
      await eventually(async () => (await home.inputValue()) === 'inbox', 'the change shown in Settings');
      await page.keyboard.press('Escape');
      await page.getByRole('heading', { name: 'Recent conversations', exact: true }).waitFor();
      assert.equal(await page.getByRole('log', { name: 'History' }).count(), 0);

      // All messages: the empty address (a new page) shows the feed.
      assertSuccess(await owner.request('PATCH', '/settings', { web_home_view: 'all_messages' }));
      await page.goto(`${t.url}/`);
      await page.getByRole('log', { name: 'History' }).waitFor();
      assert.equal(await page.getByRole('heading', { name: 'All messages', exact: true }).count(), 1);
      await ctx.close();
    }));
  test('Escape: closes what is open (a picker also once the focus has left it), leaves a field, else goes to the home view (Zulip\u2019s web_escape_navigates_to_home_view, chosen in Settings); Ctrl+[ always', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const escapeAtServer = async () => (await settingsAtServer(owner)).web_escape_navigates_to_home_view as boolean;
      assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'escape', content: 'an escape message' }));
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/channel/general');
      const general = page.getByRole('heading', { name: '#general', exact: true });
      const inbox = page.getByRole('heading', { name: 'Inbox', exact: true });
      await general.waitFor();
      await page.getByText('an escape message').waitFor();
      // In the compose box, Escape leaves the box and the view stays.
      const box = page.getByLabel('Message', { exact: true });
      await box.click();
      await page.keyboard.press('Escape');
      await eventually(async () => !(await box.evaluate((el) => el === (globalThis as any).document.activeElement)), 'the box left');
      // A dialog closes and the view stays.
      const settings = await openSettings(page);
      await settings.waitFor();
      await page.keyboard.press('Escape');
      await settings.waitFor({ state: 'detached' });
      // A menu closes and the view stays.
      const row = page.locator('article.message-row').filter({ hasText: 'an escape message' });
      await row.hover();
      await row.getByRole('button', { name: 'More actions' }).click();
      const menu = page.getByRole('menu');
      await menu.waitFor();
      await page.keyboard.press('Escape');
      await menu.waitFor({ state: 'detached' });
      // A picker closes, also once the focus has left it, and the view stays.
      await row.hover();
      await row.getByRole('button', { name: 'Add reaction' }).click();
      const picker = page.getByRole('dialog', { name: 'Choose an emoji' });
      await picker.waitFor();
      await page.evaluate(() => (globalThis as any).document.activeElement?.blur());
      await page.keyboard.press('Escape');
      await picker.waitFor({ state: 'detached' });
      assert.equal(await general.count(), 1);
      assert.equal(await inbox.count(), 0);
      // Nothing open: the home view (the inbox), at the empty address.
      await page.keyboard.press('Escape');
      await inbox.waitFor();
      assert.equal(new URL(page.url()).hash, '');
      // Back to the channel with the browser's Back.
      await page.goBack();
      await general.waitFor();

      // Turned off in Settings: Escape stays; Ctrl+[ still goes home.
      await openSettings(page);
      const check = settings.getByRole('checkbox', { name: 'Escape goes to the home view (when nothing else is open)' });
      assert.equal(await check.isChecked(), true);
      await check.uncheck();
      await eventually(async () => (await escapeAtServer()) === false, 'the setting off at the server');
      await page.keyboard.press('Escape');
      await settings.waitFor({ state: 'detached' });
      await page.keyboard.press('Escape');
      await page.getByText('an escape message').click();
      await page.keyboard.press('Escape');
      assert.equal(await general.count(), 1);
      assert.equal(await inbox.count(), 0);
      await page.keyboard.press('Control+BracketLeft');
      await inbox.waitFor();
      // Changed elsewhere: followed at once.
      await page.goBack();
      await general.waitFor();
      assertSuccess(await owner.request('PATCH', '/settings', { web_escape_navigates_to_home_view: true }));
      await openSettings(page);
      await eventually(async () => await check.isChecked(), 'the change shown in Settings');
      await page.keyboard.press('Escape');
      await settings.waitFor({ state: 'detached' });
      await page.keyboard.press('Escape');
      await inbox.waitFor();
      await ctx.close();
    }));
  test('the People list as the user\u2019s user_list_style says (Zulip\u2019s): avatars by default; status text without them; compact, a status\u2019s emoji beside the name; chosen in Settings (the server has it)', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const styleAtServer = async () => (await settingsAtServer(owner)).user_list_style as number;
      const bob = await t.makeUser({ name: 'Bob Status' });
      assertSuccess(await t.client(bob).post('/users/me/status', { status_text: 'At lunch', emoji_name: 'palm_tree', emoji_code: '1f334', reaction_type: 'unicode_emoji' }));
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '');
      const person = page.getByRole('complementary', { name: 'People' }).getByRole('button', { name: /^Bob Status/ });
      await person.getByText('At lunch').waitFor();
      assert.equal(await person.locator('.avatar').count(), 1);
      const select = (await openSettings(page)).getByLabel('People list', { exact: true });
      assert.equal(await select.inputValue(), '3');
      await select.selectOption('2');
      await eventually(async () => (await styleAtServer()) === 2, 'status text at the server');
      await eventually(async () => (await person.locator('.avatar').count()) === 0, 'no avatar');
      await person.getByText('At lunch').waitFor();
      assert.equal(await person.locator('.presence-dot').count(), 1);
      await select.selectOption('1');
      await eventually(async () => (await styleAtServer()) === 1, 'compact at the server');
      await eventually(async () => (await person.getByText('At lunch').count()) === 0, 'no status text');
      assert.equal(await person.locator('.person-name .emoji-char').textContent(), '\u{1F334}');
      assert.equal(await person.locator('.avatar').count(), 0);
      // Chosen elsewhere: followed.
      assertSuccess(await owner.request('PATCH', '/settings', { user_list_style: 3 }));
      await person.locator('.avatar').waitFor();
      await person.getByText('At lunch').waitFor();
      await ctx.close();
    }));
  test("account and notifications away: each choice saved at the server and changes elsewhere shown; the time zone; who can see the email address; a new email confirmed from its link; deactivating one's account (not the only owner's)", () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bobAccount = await t.makeUser({ password: PASSWORD, name: 'Bob Account' });
      const bob = t.client(bobAccount);
      const settingsOf = async () => (await settingsAtServer(bob)) as Record<string, unknown>;
      const kept = assertSuccess(await owner.request('POST', '/messages', { type: 'direct', to: JSON.stringify([bobAccount.id]), content: 'keep this' })).id as number;
      assertSuccess(await bob.request('POST', '/messages/flags', { messages: JSON.stringify([kept]), op: 'add', flag: 'starred' }));
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bobAccount.email, PASSWORD);
      const dialog = await openSettings(page);

      const choices: Array<[string, string, boolean]> = [
        ['Email me about direct messages and mentions', 'enable_offline_email_notifications', true],
        ['Notify my phones of direct messages and mentions', 'enable_offline_push_notifications', true],
        ['Email me about every message in my channels', 'enable_stream_email_notifications', false],
        ['Notify my phones of every message in my channels', 'enable_stream_push_notifications', false],
        ['Send me digest emails', 'enable_digest_emails', true],
        ['Notify me of @all and @topic mentions', 'wildcard_mentions_notify', true],
        ['Followed topics: desktop notifications', 'enable_followed_topic_desktop_notifications', true],
        ['Followed topics: sounds', 'enable_followed_topic_audible_notifications', true],
        ['Followed topics: emails', 'enable_followed_topic_email_notifications', true],
        ['Followed topics: phones', 'enable_followed_topic_push_notifications', true],
        ['Automatically follow topics where I am mentioned', 'automatically_follow_topics_where_mentioned', true],
        ['Show when others are typing', 'receives_typing_notifications', true],
        ['Show who reacted, in place of the count, while a message has few reactions', 'display_emoji_reaction_users', true],
        ['Let others see when I am online', 'presence_enabled', true],
        ['Show how many messages I have starred', 'starred_message_counts', true],
      ];
      const starredCount = page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^Starred/ }).getByLabel(/starred$/);
      await starredCount.waitFor();
      for (const [label, property, before] of choices) {
        const box = dialog.getByLabel(label, { exact: true });
        assert.equal(await box.isChecked(), before, label);
        assert.equal((await settingsOf())[property], before, property);
        await box.click();
        await eventually(async () => (await settingsOf())[property] === !before, `${property} changed at the server`);
        assert.equal(await box.isChecked(), !before, label);
      }
      // The starred count (the message Bob starred) turned off: the sidebar shows none.
      assert.equal(await starredCount.count(), 0);
      await dialog.getByLabel('Wait before emailing').selectOption({ label: '1 hour' });
      await eventually(async () => (await settingsOf()).email_notifications_batching_period_seconds === 3600, 'the batching period at the server');
      // Changed elsewhere: shown.
      assertSuccess(await bob.request('PATCH', '/settings', { enable_digest_emails: true, email_notifications_batching_period_seconds: 600 }));
      await eventually(async () => await dialog.getByLabel('Send me digest emails', { exact: true }).isChecked(), 'digests on again, shown');
      await eventually(async () => (await dialog.getByLabel('Wait before emailing').inputValue()) === '600', 'the period from elsewhere shown');

      // Which topics are followed, and unmuted in muted channels, as one writes: the server has them; a change elsewhere shows.
      const follow = dialog.getByLabel('Automatically follow topics', { exact: true });
      const unmute = dialog.getByLabel('Automatically unmute topics in muted channels');
      assert.equal(await follow.inputValue(), '3');
      assert.equal(await unmute.inputValue(), '2');
      await follow.selectOption({ label: 'Topics I send a message to' });
      await unmute.selectOption({ label: 'Never' });
      await eventually(async () => {
        const s = await settingsOf();
        return s.automatically_follow_topics_policy === 2 && s.automatically_unmute_topics_in_muted_streams_policy === 4;
      }, 'the topic policies at the server');
      assertSuccess(await bob.request('PATCH', '/settings', { automatically_follow_topics_policy: 1 }));
      await eventually(async () => (await follow.inputValue()) === '1', 'the follow policy from elsewhere shown');

      // The time zone: the server has it, and others see it.
      assert.equal(await dialog.getByLabel('Time zone').inputValue(), '');
      await dialog.getByLabel('Time zone').selectOption('Asia/Tokyo');
      await eventually(async () => (await settingsOf()).timezone === 'Asia/Tokyo', 'the time zone at the server');
      assert.equal(assertSuccess(await owner.get(`/users/${bobAccount.id}`)).user.timezone, 'Asia/Tokyo');

      // Who can see the email address: administrators only; a member sees the stand-in address.
      assert.equal(await dialog.getByLabel('Who can see my email address').inputValue(), '1');
      await dialog.getByLabel('Who can see my email address').selectOption({ label: 'Admins only' });
      await eventually(async () => (await settingsOf()).email_address_visibility === 3, 'the email visibility at the server');
      assert.equal(assertSuccess(await owner.get(`/users/${bobAccount.id}`)).user.delivery_email, bobAccount.email);
      const member = t.client(await t.makeUser());
      assert.match(assertSuccess(await member.get(`/users/${bobAccount.id}`)).user.email, /^user\d+@/);
      assert.equal(assertSuccess(await member.get(`/users/${bobAccount.id}`)).user.delivery_email ?? null, null);

      // A new email: asked for, then made by the link sent to it; the page shows it.
      const current = dialog.getByLabel('Current email');
      assert.equal(await current.textContent(), bobAccount.email);
      await dialog.getByLabel('New email').fill('bob.moved@example.org');
      await dialog.getByRole('button', { name: 'Change email' }).click();
      await dialog.getByRole('status').filter({ hasText: 'Check your new address' }).waitFor();
      const [mail] = sentEmails(t.server.svc.config.dataDir, 'bob.moved@example.org');
      const link = /\/accounts\/confirm_new_email\/[A-Za-z0-9]+\//.exec(mail!.text)?.[0];
      assert.ok(link, mail!.text);
      assert.equal((await fetch(`${t.url}${link}`)).status, 200);
      await eventually(async () => (await current.textContent()) === 'bob.moved@example.org', 'the new address shown');
      // Turned off by the organization: no longer offered, with Zulip's words (the server refuses it too).
      assertSuccess(await owner.request('PATCH', '/realm', { email_changes_disabled: true }));
      await eventually(() => dialog.getByLabel('New email').isDisabled(), 'the field off');
      assert.equal(await dialog.getByRole('button', { name: 'Change email' }).isDisabled(), true);
      await dialog.getByText('Email address changes are disabled in this organization.', { exact: true }).waitFor();
      const moved = t.client({ email: 'bob.moved@example.org', apiKey: bobAccount.apiKey });
      const refused = await moved.request('PATCH', '/settings', { email: 'bob.again@example.org' });
      assert.equal(refused.body.msg, 'Email address changes are disabled in this organization.');

      // The only owner may not deactivate their account: the server's reason.
      const ownerCtx = await newContext();
      const ownerPage = await loginPage(ownerCtx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const ownerDialog = await openSettings(ownerPage);
      await ownerDialog.getByRole('button', { name: 'Deactivate my account' }).click();
      await ownerDialog.getByRole('button', { name: 'Yes, deactivate my account' }).click();
      await ownerDialog.getByRole('alert').filter({ hasText: 'Cannot deactivate the only organization owner.' }).waitFor();
      assert.equal(assertSuccess(await owner.get('/users/me')).is_active, true);
      await ownerCtx.close();

      // Bob deactivates his: asked twice ("Cancel" keeps it), then logged out; the server has it.
      await dialog.getByRole('button', { name: 'Deactivate my account' }).click();
      await dialog.getByRole('alertdialog', { name: 'Deactivate your account?' }).getByRole('button', { name: 'Cancel' }).click();
      await dialog.getByRole('button', { name: 'Deactivate my account' }).click();
      await dialog.getByRole('button', { name: 'Yes, deactivate my account' }).click();
      await page.waitForURL(`${t.url}/login/`);
      assert.equal(assertSuccess(await owner.get(`/users/${bobAccount.id}`)).user.is_active, false);
      await ctx.close();
    }));
  test('one\u2019s API key: shown once the password is given again, with a zuliprc; a new one generated (the old one stops working)', () =>
    withWebServer(async (t) => {
      const dana = await t.makeUser({ password: PASSWORD, name: 'Dana Keys' });
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, dana.email, PASSWORD);
      const group = (await openSettings(page)).getByRole('group', { name: 'API key' });
      await group.getByRole('button', { name: 'Manage your API key' }).click();
      await group.getByLabel('Your password, to show the key').fill('not it');
      await group.getByRole('button', { name: 'Show API key' }).click();
      await group.getByRole('alert').filter({ hasText: 'Password is incorrect.' }).waitFor();
      await group.getByLabel('Your password, to show the key').fill(PASSWORD);
      await group.getByRole('button', { name: 'Show API key' }).click();
      const key = group.getByLabel('Your API key');
      await key.waitFor();
      assert.equal(await key.textContent(), dana.apiKey);
      const rc = decodeURIComponent((await group.getByRole('link', { name: 'Download zuliprc' }).getAttribute('href'))!.replace(/^data:text\/plain;charset=utf-8,/, ''));
      assert.equal(rc, `[api]\nemail=${dana.email}\nkey=${dana.apiKey}\nsite=${t.url}\n`);

      // A new key, once confirmed: the old one no longer works, the new one does; this page goes on.
      await group.getByRole('button', { name: 'Generate a new API key' }).click();
      await group.getByRole('alertdialog', { name: 'Generate a new API key?' }).getByRole('button', { name: 'Yes, generate a new key' }).click();
      await eventually(async () => (await key.textContent()) !== dana.apiKey, 'the new key shown');
      const fresh = (await key.textContent())!;
      assert.equal((await t.client(dana).get('/users/me')).status, 401);
      assertSuccess(await t.client({ ...dana, apiKey: fresh }).get('/users/me'));
      await group.getByRole('status').filter({ hasText: 'A new API key is in use.' }).waitFor();
      await group.getByRole('button', { name: 'Hide' }).click();
      await group.getByRole('button', { name: 'Manage your API key' }).waitFor();
      await ctx.close();
    }));

  test('uploaded files: listed with their size and how many messages link to them; one deleted (confirmed) goes at the server; a new upload shows', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const kept = (await postPng(t.url, t.owner, '/user_uploads', 'kept.png')).url as string;
      await postPng(t.url, t.owner, '/user_uploads', 'loose.png');
      assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'files', content: `[kept.png](${kept})` }));
      const atServer = async () => (assertSuccess(await owner.get('/attachments')).attachments as Array<{ name: string }>).map((a) => a.name).sort();
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const section = (await openSettings(page)).getByRole('region', { name: 'Uploaded files' });
      await section.getByRole('button', { name: 'Show my files' }).click();
      const list = section.getByRole('list', { name: 'My uploaded files' });
      await eventually(async () => (await list.getByRole('listitem').count()) === 2, 'both files listed');
      assert.match((await list.getByRole('listitem', { name: 'kept.png' }).textContent())!, /kept\.png.*B · .* · in 1 message/);
      assert.match((await list.getByRole('listitem', { name: 'loose.png' }).textContent())!, /in no message/);
      assert.equal(await list.getByRole('link', { name: 'kept.png' }).getAttribute('href'), kept);

      // Deleted, once confirmed.
      await list.getByRole('button', { name: 'Delete loose.png' }).click();
      await list.getByRole('alertdialog', { name: 'Delete loose.png?' }).getByRole('button', { name: 'Delete', exact: true }).click();
      await eventually(async () => (await atServer()).join() === 'kept.png', 'deleted at the server');
      await eventually(async () => (await list.getByRole('listitem').count()) === 1, 'gone from the list');
      // Uploaded elsewhere: shown.
      await postPng(t.url, t.owner, '/user_uploads', 'fresh.png');
      await list.getByRole('listitem', { name: 'fresh.png' }).waitFor();
      await ctx.close();
    }));

  test('Settings has a button to each of its sections, which brings it into view', () =>
    withWebServer(async (t) => {
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const dialog = await openSettings(page);
      const sections = dialog.getByRole('navigation', { name: 'Sections' });
      const names = await sections.getByRole('button').allTextContents();
      assert.deepEqual(names.slice(0, 4), ['Profile', 'Password', 'Account', 'Display']);
      assert.ok(names.includes('Organization permissions') && names.includes('Uploaded files'), names.join());
      const heading = dialog.getByRole('heading', { level: 2, name: 'Organization permissions' });
      const inView = () => heading.evaluate((el) => {
        const r = el.getBoundingClientRect();
        return r.top >= 0 && r.bottom <= (globalThis as any).innerHeight;
      });
      assert.equal(await inView(), false);
      await sections.getByRole('button', { name: 'Organization permissions' }).click();
      await eventually(inView, 'the section in view');
      await ctx.close();
    }));

  test('a forgotten password: from the login page to the emailed link, a new password there, and logged in with it', () =>
    withWebServer(async (t) => {
      const forgetful = await t.makeUser({ password: PASSWORD, name: 'Forgetful User' });
      const fresh = 'a-fresh-start-password-4';
      const ctx = await newContext();
      const page = await ctx.newPage();
      await page.goto(`${t.url}/login/`);
      await page.getByRole('link', { name: 'Forgot your password?' }).click();
      await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
      await page.getByLabel('Email').fill(forgetful.email);
      await page.getByRole('button', { name: 'Send the link' }).click();
      await page.getByRole('heading', { name: 'Check your email' }).waitFor();
      const link = /http\S+\/accounts\/password\/reset\/[A-Za-z0-9]+\//.exec(sentEmails(t.server.svc.config.dataDir, forgetful.email).at(-1)!.text)?.[0];
      assert.ok(link);
      await page.goto(link);
      await page.getByLabel('New password', { exact: true }).fill(fresh);
      await page.getByLabel('New password again').fill(fresh);
      await page.getByRole('button', { name: 'Set the password' }).click();
      await page.getByRole('heading', { name: 'Your password has been changed' }).waitFor();
      await page.getByRole('link', { name: 'Log in' }).click();
      await page.getByLabel('Email').fill(forgetful.email);
      await page.getByLabel('Password').fill(fresh);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('region', { name: 'Inbox' }).waitFor();
      await ctx.close();
    }));
});
