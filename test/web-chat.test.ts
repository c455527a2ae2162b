/**
 * The browser client in real Chromium: two people chatting live in two
 * browser profiles, the compose box (its send keys too), the actions on the topic in view, marking
 * a narrow as read, and the channels and topics of the sidebar.
 * Skipped (with one line saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD, settingsAtServer, type Account, streamIdOf } from './helpers.ts';
import { browserTests, channelLink, eventually, hideableTabs, loginPage, loginToView, messageRow, PASSWORD, send, setTabHidden, showHiddenChannels, withWebServer, openSidebarMenu, type WebTestServer, openSettings } from './web-browser.ts';

/** A new channel `name` with the owner and `member` in it, muted by the owner: its ID. */
async function mutedChannel(t: WebTestServer, name: string, member: Account): Promise<number> {
  const owner = t.client(t.owner);
  assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: [{ name }], principals: [t.owner.id, member.id] }));
  const id = await streamIdOf(owner, name);
  assertSuccess(await owner.request('POST', '/users/me/subscriptions/properties', { subscription_data: [{ stream_id: id, property: 'is_muted', value: true }] }));
  return id;
}

await browserTests('the web client in Chromium: chatting, the compose box, topics and channels in the sidebar', (newContext) => {
  test('two people chat live: channel messages, topics, unread counts, reactions, edits, deletion, direct messages, typing, presence', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Browser' });
      const ctxA = await newContext();
      const ctxB = await newContext();
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
      await b.getByRole('dialog', { name: 'Choose an emoji' }).getByRole('region', { name: 'Popular' }).getByRole('button', { name: 'tada' }).click();
      const ownerRow = messageRow(a, 'Hello from the owner');
      await ownerRow.getByRole('button', { name: 'tada reaction, 1' }).waitFor();
      await ownerRow.getByRole('button', { name: 'tada reaction, 1' }).click();
      await bobRow.getByRole('button', { name: 'tada reaction, 2' }).waitFor();
      // With few reactions, who reacted shows in place of the count.
      assert.equal(await bobRow.getByRole('button', { name: 'tada reaction, 2' }).locator('.reaction-count').textContent(), 'You, Owner');
      await bobRow.getByRole('button', { name: 'tada reaction, 2' }).click();
      await ownerRow.getByRole('button', { name: 'tada reaction, 1' }).waitFor();
      assert.equal(await ownerRow.getByRole('button', { name: 'tada reaction, 1' }).locator('.reaction-count').textContent(), 'You');
      // The owner's display_emoji_reaction_users off (elsewhere): the count again.
      assertSuccess(await t.client(t.owner).request('PATCH', '/settings', { display_emoji_reaction_users: false }));
      await eventually(async () => (await ownerRow.getByRole('button', { name: 'tada reaction, 1' }).locator('.reaction-count').textContent()) === '1', 'the count shown');

      // The owner edits his message; Bob sees the new text.
      await ownerRow.hover();
      await ownerRow.getByRole('button', { name: 'Edit', exact: true }).click();
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
      // (Shown by their presence dots: in a channel's view, the people list is in the channel's sections.)
      await a.getByRole('complementary', { name: 'People' }).locator('.person[data-presence="active"]', { hasText: 'Bob Browser' }).waitFor();
      await b.getByRole('complementary', { name: 'People' }).locator('.person[data-presence="active"]', { hasText: t.owner.row.full_name }).waitFor();
      // The pings ask only for what changed since what the client has (last_update_id, from /register on).
      assert.ok(pingsA.length > 0, "the owner's page pinged");
      for (const p of pingsA) assert.match(p.get('last_update_id') ?? '', /^-?\d+$/, `a ping without last_update_id: ${p.toString()}`);

      // Direct messages: Bob opens a conversation with the owner from the people list (through the card).
      await a.getByRole('complementary', { name: 'People' }).getByRole('button', { name: /Bob Browser/ }).click();
      await a.getByRole('dialog', { name: 'Bob Browser' }).getByRole('button', { name: 'Send direct message' }).click();
      await a.getByRole('heading', { name: 'Bob Browser' }).waitFor();
      await b.getByRole('complementary', { name: 'People' }).getByRole('button', { name: new RegExp(t.owner.row.full_name) }).click();
      await b.getByRole('dialog', { name: t.owner.row.full_name }).getByRole('button', { name: 'Send direct message' }).click();
      // (Once the conversation is in view, the compose box writes to it.)
      await b.getByRole('heading', { name: t.owner.row.full_name, exact: true }).waitFor();
      const bobBox = b.getByLabel('Message', { exact: true });
      await bobBox.fill('psst');
      await a.getByText('Bob Browser is typing…').waitFor();
      await bobBox.fill('A private word');
      await bobBox.press('Enter');
      await messageRow(a, 'A private word').waitFor();
      await eventually(async () => (await a.getByText('Bob Browser is typing…').count()) === 0, 'the typing notice to end');
      const dmList = a.getByRole('navigation', { name: 'Conversations' });
      await dmList.getByRole('link', { name: /Bob Browser/ }).waitFor();
      // From the conversation to Mentions: the compose box goes back to a channel message.
      await a.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^Mentions/ }).click();
      await eventually(async () => (await a.getByRole('button', { name: 'Channel', exact: true }).getAttribute('aria-pressed')) === 'true', 'the box set to a channel message');

      // A direct message to two people.
      const carol = await t.makeUser({ password: PASSWORD, name: 'Carol Third' });
      await a.getByRole('link', { name: 'Direct messages' }).first().click();
      await a.getByRole('button', { name: 'Direct message', exact: true }).click();
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
    }));

  test('the compose box empties as a message goes: the next ones, written meanwhile, go in order; one not sent comes back', () =>
    withWebServer(async (t) => {
      const ctx = await newContext();
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
      // (The refusal comes once more has been written, whatever the machine's speed.)
      let written: () => void = () => {};
      const more = new Promise<void>((r) => (written = r));
      await page.route(isSend, async (route) => {
        if (route.request().method() !== 'POST') return route.continue();
        await more;
        await route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ result: 'error', msg: 'Not today', code: 'BAD_REQUEST' }) });
      });
      await box.press('Enter');
      assert.equal(await box.inputValue(), '');
      await box.fill('more');
      written();
      await page.getByRole('alert').filter({ hasText: 'Not today' }).waitFor();
      assert.equal(await box.inputValue(), 'a draft\nmore');

      // Enter while a file is still uploading says why nothing is sent.
      await page.route((url) => url.pathname.startsWith('/api/v1/tus'), async (route) => {
        await new Promise((r) => setTimeout(r, 800));
        await route.continue();
      });
      await page.getByLabel('Attach files').setInputFiles({ name: 'slow.txt', mimeType: 'text/plain', buffer: Buffer.from('slow\n') });
      await box.press('Enter');
      await page.getByRole('alert').filter({ hasText: 'Wait until the upload is done' }).waitFor();
      await eventually(async () => /\[slow\.txt\]\(\/user_uploads\/[^)]+\)$/.test(await box.inputValue()), 'the upload link after the wait');
      assert.ok((await box.inputValue()).startsWith('a draft\nmore '));
      await ctx.close();
    }));

  test('Zulip\u2019s default keys: Enter starts a new line and Ctrl+Enter sends (also in the edit box); with "Enter sends" chosen in Settings (the server has it), Enter sends and Shift+Enter starts a new line', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      // (These tests' organization has Enter send; this one takes Zulip's default.)
      assertSuccess(await owner.request('PATCH', '/realm/user_settings_defaults', { enter_sends: false }));
      const carl = await t.makeUser({ password: PASSWORD, name: 'Carl Keys' });
      const carlApi = t.client(carl);
      const enterSends = async () => (await settingsAtServer(carlApi)).enter_sends;
      assert.equal(await enterSends(), false);
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, carl.email, PASSWORD);
      await (await channelLink(page, 'general')).click();
      await page.getByLabel('Topic', { exact: true }).fill('keys');
      const compose = page.getByRole('region', { name: 'Compose' });
      await compose.getByText('Ctrl+Enter to send \u00b7 Enter for a new line').waitFor();
      const box = page.getByLabel('Message', { exact: true });
      await box.fill('first line');
      await box.press('Enter');
      await box.pressSequentially('second line');
      assert.equal(await box.inputValue(), 'first line\nsecond line');
      await box.press('Control+Enter');
      await messageRow(page, 'second line').waitFor();
      assert.equal(await box.inputValue(), '');
      const sent = assertSuccess(await carlApi.request('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: 'false' })).messages[0];
      assert.equal(sent.content, 'first line\nsecond line');

      // The edit box: the same keys.
      const row = page.locator(`article.message-row[data-id="${sent.id}"]`);
      await row.hover();
      await row.getByRole('button', { name: 'Edit', exact: true }).click();
      const edit = row.getByRole('textbox');
      await edit.press('End');
      await edit.press('Enter');
      await edit.pressSequentially('third line');
      assert.equal(await edit.inputValue(), 'first line\nsecond line\nthird line');
      await edit.press('Control+Enter');
      await edit.waitFor({ state: 'detached' });
      await eventually(async () => (assertSuccess(await carlApi.request('GET', `/messages/${sent.id}`, { apply_markdown: 'false' })).message.content as string) === 'first line\nsecond line\nthird line', 'the edit saved');

      // Enter sends, once chosen.
      await (await openSettings(page)).getByLabel(/^Enter sends the message/).check();
      await eventually(async () => (await enterSends()) === true, 'enter_sends at the server');
      await page.keyboard.press('Escape');
      await compose.getByText('Enter to send \u00b7 Shift+Enter for a new line').waitFor();
      await box.fill('one');
      await box.press('Shift+Enter');
      await box.pressSequentially('two');
      await box.press('Enter');
      await messageRow(page, 'two').waitFor();
      assert.equal(await box.inputValue(), '');
      assert.equal(assertSuccess(await carlApi.request('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: 'false' })).messages[0].content, 'one\ntwo');
      await ctx.close();
    }));

  test("a list goes on at a new line (Zulip's): Enter after an item starts the next, with its bullet or the next number; Enter on an empty item ends the list; not in a code block; Shift+Enter where Enter sends; the edit box too", () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      assertSuccess(await owner.request('PATCH', '/realm/user_settings_defaults', { enter_sends: false }));
      const dana = await t.makeUser({ password: PASSWORD, name: 'Dana Lists' });
      const danaApi = t.client(dana);
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, dana.email, PASSWORD);
      await (await channelLink(page, 'general')).click();
      await page.getByLabel('Topic', { exact: true }).fill('lists');
      const box = page.getByLabel('Message', { exact: true });
      await box.pressSequentially('Shopping:');
      await box.press('Enter');
      await box.pressSequentially('- eggs');
      await box.press('Enter');
      assert.equal(await box.inputValue(), 'Shopping:\n- eggs\n- ');
      await box.pressSequentially('milk');
      await box.press('Enter');
      await box.press('Enter');
      assert.equal(await box.inputValue(), 'Shopping:\n- eggs\n- milk\n', 'the empty item ended the list');
      await box.pressSequentially('9. nine');
      await box.press('Enter');
      await box.pressSequentially('ten');
      assert.equal(await box.inputValue(), 'Shopping:\n- eggs\n- milk\n9. nine\n10. ten');
      await box.press('Control+Enter');
      await messageRow(page, 'Shopping:').waitFor();
      const sent = assertSuccess(await danaApi.request('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: 'false' })).messages[0];
      assert.equal(sent.content, 'Shopping:\n- eggs\n- milk\n9. nine\n10. ten');

      // Inside a code block, a new line is only a new line.
      await box.fill('```\n- not a list');
      await box.press('End');
      await box.press('Enter');
      assert.equal(await box.inputValue(), '```\n- not a list\n');
      await box.fill('');

      // The edit box: the same.
      const row = page.locator(`article.message-row[data-id="${sent.id}"]`);
      await row.hover();
      await row.getByRole('button', { name: 'Edit', exact: true }).click();
      const edit = row.getByRole('textbox');
      await edit.evaluate((el) => (el as unknown as { setSelectionRange(a: number, b: number): void }).setSelectionRange(23, 23));
      await edit.press('Enter');
      await edit.pressSequentially('bread');
      assert.equal(await edit.inputValue(), 'Shopping:\n- eggs\n- milk\n- bread\n9. nine\n10. ten');
      await edit.press('Control+Enter');
      await edit.waitFor({ state: 'detached' });
      await eventually(async () => (assertSuccess(await danaApi.request('GET', `/messages/${sent.id}`, { apply_markdown: 'false' })).message.content as string).includes('- bread'), 'the edit saved');

      // Where Enter sends, Shift+Enter goes on with the list.
      assertSuccess(await danaApi.request('PATCH', '/settings', { enter_sends: true }));
      await page.getByRole('region', { name: 'Compose' }).getByText('Enter to send \u00b7 Shift+Enter for a new line').waitFor();
      await box.pressSequentially('* one');
      await box.press('Shift+Enter');
      await box.pressSequentially('two');
      assert.equal(await box.inputValue(), '* one\n* two');
      await box.press('Enter');
      await messageRow(page, 'two').waitFor();
      assert.equal(assertSuccess(await danaApi.request('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: 'false' })).messages[0].content, '* one\n* two');
      await ctx.close();
    }));

  test('Zulip\u2019s default after sending: the view goes to the message\u2019s conversation unless that conversation alone is in view, saying so; not once turned off in Settings, where a message outside the view says so with a link to it', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      // (These tests' organization keeps the view; this one takes Zulip's default.)
      assertSuccess(await owner.request('PATCH', '/realm/user_settings_defaults', { web_navigate_to_sent_message: true }));
      const erin = await t.makeUser({ password: PASSWORD, name: 'Erin Jumps' });
      const generalId = await streamIdOf(owner, 'general');
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, erin.email, PASSWORD);
      const hash = () => page.evaluate(() => (globalThis as any).location.hash as string);
      const banner = page.getByRole('region', { name: 'Compose' }).getByRole('status').filter({ hasText: 'Viewing the conversation where you sent your message' });
      // From All messages: the topic, with the banner.
      const feed = await hash();
      await send(page, 'jumping', 'first jump');
      await page.getByRole('heading', { name: '#general \u203a jumping' }).waitFor();
      assert.match(await hash(), new RegExp(`^#narrow/channel/${generalId}(-general)?/topic/jumping$`));
      await banner.waitFor();
      assert.equal(await banner.locator('span').textContent(), 'Viewing the conversation where you sent your message. To go back, use your browser\u2019s back button.');
      // Sent again there: the view stays, the banner goes.
      await send(page, null, 'second, same place');
      await messageRow(page, 'second, same place').waitFor();
      await eventually(async () => (await banner.count()) === 0, 'the banner gone');
      assert.match(await hash(), /\/topic\/jumping$/);
      // From a topic, to another topic: there.
      await send(page, 'next door', 'sent from the other topic');
      await page.getByRole('heading', { name: '#general \u203a next door' }).waitFor();
      await banner.waitFor();
      // Going elsewhere takes the banner away.
      await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^All messages/ }).click();
      await eventually(async () => (await banner.count()) === 0, 'no banner in All messages');

      // Turned off: the view stays in All messages.
      await (await openSettings(page)).getByLabel(/^After sending a message, go to its conversation/).uncheck();
      await eventually(async () => (await settingsAtServer(t.client(erin))).web_navigate_to_sent_message === false, 'the setting off at the server');
      await page.keyboard.press('Escape');
      await send(page, 'staying', 'no jump now');
      await messageRow(page, 'no jump now').waitFor();
      assert.equal(await hash(), feed);
      assert.equal(await banner.count(), 0);
      // A message the view in place does not show: Zulip's "Sent!" line, with a link to where it went.
      const outside = page.getByRole('region', { name: 'Compose' }).getByRole('status').filter({ hasText: 'Sent! Your message is outside your current view.' });
      assert.equal(await outside.count(), 0);
      await page.evaluate((h) => ((globalThis as any).location.hash = h), `#narrow/channel/${generalId}-general/topic/staying`);
      await messageRow(page, 'no jump now').waitFor();
      await send(page, 'elsewhere', 'out of sight');
      await outside.waitFor();
      assert.match(await hash(), /\/topic\/staying$/);
      await outside.getByRole('link', { name: 'Go to #general > elsewhere' }).click();
      await page.getByRole('heading', { name: '#general \u203a elsewhere' }).waitFor();
      await messageRow(page, 'out of sight').waitFor();
      await eventually(async () => (await outside.count()) === 0, 'the line gone with the view');
      await ctx.close();
    }));

  test('the Reactions view (Zulip\u2019s): one\u2019s own messages that have reactions, from the sidebar and from Zulip\u2019s address for it, kept live as reactions come and go', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ name: 'Bob Reacts' });
      const bobApi = t.client(bob);
      const owner = t.client(t.owner);
      const liked = assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'likes', content: 'mine, liked' })).id as number;
      const later = assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'likes', content: 'mine, not liked' })).id as number;
      const his = assertSuccess(await bobApi.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'likes', content: 'his, liked' })).id as number;
      assertSuccess(await bobApi.request('POST', `/messages/${liked}/reactions`, { emoji_name: 'smile' }));
      assertSuccess(await owner.request('POST', `/messages/${his}/reactions`, { emoji_name: 'smile' }));
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#inbox');
      const rows = page.locator('article.message-row');
      const view = page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Reactions' });
      // At Zulip's address for it.
      assert.equal(await view.getAttribute('href'), '#narrow/has/reaction/sender/me');
      await view.click();
      await page.getByRole('heading', { name: 'Reactions', exact: true }).waitFor();
      await messageRow(page, 'mine, liked').waitFor();
      await eventually(async () => (await rows.count()) === 1, 'only the owner\u2019s message with a reaction');
      assert.equal(await view.getAttribute('aria-current'), 'page');
      // A view, not a search: the search box stays empty.
      assert.equal(await page.getByRole('search').getByRole('searchbox').inputValue(), '');
      // Zulip's address for it.
      await page.goto(`${t.url}/#narrow/has/reaction/sender/me`);
      await page.getByRole('heading', { name: 'Reactions', exact: true }).waitFor();
      await messageRow(page, 'mine, liked').waitFor();
      await eventually(async () => (await rows.count()) === 1, 'the same message');
      assert.equal(await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Reactions' }).getAttribute('aria-current'), 'page');
      // Live: a reaction brings a message in; the last one taken off takes it out.
      assertSuccess(await bobApi.request('POST', `/messages/${later}/reactions`, { emoji_name: 'tada' }));
      await messageRow(page, 'mine, not liked').waitFor();
      assertSuccess(await bobApi.request('DELETE', `/messages/${liked}/reactions`, { emoji_name: 'smile' }));
      await messageRow(page, 'mine, liked').waitFor({ state: 'detached' });
      assert.equal(await rows.count(), 1);
      await ctx.close();
    }));
  test('a channel and a topic with unread messages that mention the user are marked "@" in the sidebar until read', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ name: 'Bob Mentions' });
      const bobApi = t.client(bob);
      assertSuccess(await bobApi.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'quiet', content: 'nothing for you' }));
      assertSuccess(await bobApi.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'ping', content: `@**${t.owner.row.full_name}** look here` }));
      const generalId = await streamIdOf(bobApi, 'general');
      const ctx = await newContext();
      // In the channel's other topic (the channel's feed would show the mention, and mark it read as seen).
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, `#narrow/channel/${generalId}-general/topic/quiet`);
      const general = await channelLink(page, 'general');
      await general.getByLabel('mentions you').waitFor();
      const topics = page.getByRole('list', { name: 'In general' });
      await topics.getByRole('link', { name: /^ping/ }).getByLabel('mentions you').waitFor();
      assert.equal(await topics.getByRole('link', { name: /^quiet/ }).getByLabel('mentions you').count(), 0);
      // Read: the marks go.
      await topics.getByRole('link', { name: /^ping/ }).click();
      await messageRow(page, 'look here').waitFor();
      await eventually(async () => (await general.getByLabel('mentions you').count()) === 0, 'the channel mark gone once read');
      assert.equal(await topics.getByRole('link', { name: /^ping/ }).getByLabel('mentions you').count(), 0);
      await ctx.close();
    }));

  test('Zulip\u2019s default for a click on a channel: its newest topic; or, as chosen in Settings, its newest unread topic, its feed, or the list of its topics (#topics/channel/<id>, live)', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      // (These tests' organization opens feeds; this one takes Zulip's default.)
      assertSuccess(await owner.request('PATCH', '/realm/user_settings_defaults', { web_channel_default_view: 1 }));
      const fay = await t.makeUser({ password: PASSWORD, name: 'Fay Clicks' });
      const fayApi = t.client(fay);
      assertSuccess(await fayApi.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'garden' }]) }));
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'garden' }]) }));
      const post = (topic: string, by = owner) => by.request('POST', '/messages', { type: 'stream', to: 'garden', topic, content: `about ${topic}` });
      await post('roses');
      await post('tulips');
      // Fay's own message: her newest topic, but nothing unread in it (sent through the API, it starts unread: read now).
      const weeds = assertSuccess(await post('weeds', fayApi)).id as number;
      assertSuccess(await fayApi.request('POST', '/messages/flags', { messages: JSON.stringify([weeds]), op: 'add', flag: 'read' }));
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, fay.email, PASSWORD, '#narrow/is/starred');
      await page.getByRole('heading', { name: 'Starred messages', exact: true }).waitFor();
      const settings = async (label: string) => {
        await (await openSettings(page)).getByLabel('A click on a channel in the sidebar opens').selectOption({ label });
        await page.keyboard.press('Escape');
        await page.getByRole('dialog', { name: 'Settings' }).waitFor({ state: 'detached' });
      };
      /** Starred (nothing there), then a click on the channel. */
      const fromStarred = async () => {
        await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^Starred/ }).click();
        await page.getByRole('heading', { name: 'Starred messages', exact: true }).waitFor();
        await (await channelLink(page, 'garden')).click();
      };
      // The default: the newest topic.
      await (await channelLink(page, 'garden')).click();
      await page.getByRole('heading', { name: '#garden \u203a weeds', exact: true }).waitFor();
      // The newest topic with unread messages.
      await settings('Its newest topic with unread messages');
      await eventually(async () => (await settingsAtServer(fayApi)).web_channel_default_view === 4, 'the setting at the server');
      await fromStarred();
      await page.getByRole('heading', { name: '#garden \u203a tulips', exact: true }).waitFor();
      // The feed.
      await settings('The channel feed');
      await fromStarred();
      await page.getByRole('heading', { name: '#garden', exact: true }).waitFor();
      // The list of its topics (Zulip's #topics/channel/<id>-<name>): newest first, with unread counts, the channel marked in the sidebar.
      await settings('The list of its topics');
      await eventually(async () => (await settingsAtServer(fayApi)).web_channel_default_view === 3, 'the setting at the server');
      // (A topic no view has shown: its message is still unread. Sent with Starred in view, not the feed, which would show it.)
      await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^Starred/ }).click();
      await page.getByRole('heading', { name: 'Starred messages', exact: true }).waitFor();
      const gardenCount = async () => {
        const count = (await channelLink(page, 'garden')).locator('.count');
        return (await count.count()) ? Number(await count.textContent()) : 0;
      };
      const before = await gardenCount();
      await post('lilies');
      await eventually(async () => (await gardenCount()) === before + 1, 'the new message counted');
      await fromStarred();
      await page.getByRole('heading', { name: '#garden', exact: true }).waitFor();
      const gardenId = await streamIdOf(fayApi, 'garden');
      await eventually(async () => (await page.evaluate(() => (globalThis as any).location.hash)) === `#topics/channel/${gardenId}-garden`, 'Zulip\u2019s address');
      const list = page.getByRole('region', { name: 'Topics of #garden' }).getByRole('table', { name: 'Topics' });
      const topicNames = () => list.locator('a.recent-link').allInnerTexts();
      await eventually(async () => (await topicNames()).join() === 'lilies,weeds,tulips,roses', 'the topics, newest first');
      await list.getByRole('row', { name: /^lilies/ }).getByLabel('1 unread').waitFor();
      assert.equal(await list.getByRole('row', { name: /^weeds/ }).getByLabel(/unread/).count(), 0);
      assert.equal(await (await channelLink(page, 'garden')).getAttribute('aria-current'), 'page');
      // Live: a new topic comes first.
      await post('daisies');
      await eventually(async () => (await topicNames()).join() === 'daisies,lilies,weeds,tulips,roses', 'the new topic first');
      // The same list on a new page at that address; from there, a topic and the channel's feed.
      await page.reload();
      await eventually(async () => (await topicNames()).join() === 'daisies,lilies,weeds,tulips,roses', 'the list after a reload');
      await list.getByRole('link', { name: 'tulips' }).click();
      await page.getByRole('heading', { name: '#garden \u203a tulips', exact: true }).waitFor();
      await page.goBack();
      await page.getByRole('link', { name: 'Channel feed' }).click();
      await messageRow(page, 'about daisies').waitFor();
      await page.getByRole('heading', { name: '#garden', exact: true }).waitFor();
      await ctx.close();
    }));

  test('a topic and message typed right after choosing a channel stay, and go to that channel', () =>
    withWebServer(async (t) => {
      const ctx = await newContext();
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
    }));

  test('a topic in view can be followed, muted, renamed, moved to another channel, resolved and deleted (administrators); a muted topic leaves All messages', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = t.client(await t.makeUser({ password: PASSWORD, name: 'Bob Topics' }));
      const send = async (topic: string, content: string) => assertSuccess(await bob.request('POST', '/messages', { type: 'stream', to: 'general', topic, content }));
      const generalId = await streamIdOf(owner, 'general');
      const policy = async (topic: string) =>
        (assertSuccess(await owner.request('POST', '/register', { fetch_event_types: JSON.stringify(['user_topic']) })).user_topics as Array<{ stream_id: number; topic_name: string; visibility_policy: number }>).find(
          (x) => x.stream_id === generalId && x.topic_name === topic,
        )?.visibility_policy ?? 0;
      await send('plans', 'first plan');
      const ctx = await newContext();
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

      /** Waits for the view at `heading`, saying on failure what the page says: the topic's actions (with the server's refusal if any), the headings and the address. */
      const viewAt = (heading: string) =>
        eventually(async () => (await page.getByRole('heading', { name: heading }).count()) > 0, `the view at ${heading}`, 30_000).catch(async (err: Error) => {
          const headings = await page.getByRole('heading').allInnerTexts().catch(() => []);
          throw new Error(`${err.message}; the topic's actions: ${JSON.stringify(await actions.innerText({ timeout: 1000 }).catch(() => '(gone)'))}; headings: ${JSON.stringify(headings)}; the address: ${page.url()}`);
        });

      // Renamed: every message of the topic moves, and the view follows.
      await actions.getByRole('button', { name: 'Move or rename topic' }).click();
      // The channel's topics suggested as one types; Escape closes the list, not the form.
      const rename = actions.getByLabel('New topic name');
      await rename.fill('');
      await rename.pressSequentially('pla');
      const topicList = page.getByRole('listbox', { name: 'Topics' });
      await eventually(async () => (await topicList.count()) > 0 && (await topicList.getByRole('option').allTextContents()).includes('plans'), 'the topics offered');
      await rename.press('Escape');
      await topicList.waitFor({ state: 'detached' });
      await rename.fill('roadmap');
      await actions.getByRole('button', { name: 'Save' }).click();
      await viewAt('#general › roadmap');
      await messageRow(page, 'quiet plan').waitFor();
      const inTopic = async (channel: number, topic: string) =>
        (assertSuccess(await owner.request('GET', '/messages', { anchor: 'newest', num_before: 10, num_after: 0, apply_markdown: false, narrow: JSON.stringify([{ operator: 'channel', operand: channel }, { operator: 'topic', operand: topic }]) })).messages as Array<{ content: string; sender_id: number }>)
          .filter((m) => m.sender_id !== t.owner.id && !/moved|has marked this topic/.test(m.content))
          .map((m) => m.content);
      assert.deepEqual(await inTopic(generalId, 'roadmap'), ['first plan', 'quiet plan']);
      assert.deepEqual(await inTopic(generalId, 'plans'), []);

      // Moved to another channel (one the owner is in), same name: the view follows.
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'design' }]) }));
      const designId = await streamIdOf(owner, 'design');
      await actions.getByRole('button', { name: 'Move or rename topic' }).click();
      await actions.getByLabel('Channel').selectOption({ label: '#design' });
      await actions.getByRole('button', { name: 'Save' }).click();
      await viewAt('#design › roadmap');
      await messageRow(page, 'quiet plan').waitFor();
      assert.deepEqual(await inTopic(designId, 'roadmap'), ['first plan', 'quiet plan']);
      assert.deepEqual(await inTopic(generalId, 'roadmap'), []);

      // Marked resolved: renamed with Zulip's check mark, Notification Bot says so, the view follows; and back.
      const notices = async (topic: string) =>
        (assertSuccess(await owner.request('GET', '/messages', { anchor: 'newest', num_before: 10, num_after: 0, apply_markdown: false, narrow: JSON.stringify([{ operator: 'channel', operand: designId }, { operator: 'topic', operand: topic }]) })).messages as Array<{ content: string; sender_email: string }>)
          .filter((m) => m.sender_email.startsWith('notification-bot@'))
          .map((m) => m.content);
      await actions.getByRole('button', { name: 'Mark as resolved' }).click();
      await viewAt('#design \u203a \u2714 roadmap');
      assert.deepEqual(await inTopic(designId, '\u2714 roadmap'), ['first plan', 'quiet plan']);
      assert.match((await notices('\u2714 roadmap')).at(-1)!, /has marked this topic as resolved\.$/);
      await actions.getByRole('button', { name: 'Mark as unresolved' }).click();
      await viewAt('#design \u203a roadmap');
      assert.deepEqual(await inTopic(designId, 'roadmap'), ['first plan', 'quiet plan']);
      assert.match((await notices('roadmap')).at(-1)!, /has marked this topic as unresolved\.$/);

      // A member is not offered to delete it.
      const bobId = (await bob.request('GET', '/users/me')).body.user_id as number;
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'design' }]), principals: JSON.stringify([bobId]) }));
      const bobCtx = await newContext();
      const bobPage = await loginPage(bobCtx, t.url, (await bob.request('GET', '/users/me')).body.email, PASSWORD);
      await bobPage.evaluate((id) => ((globalThis as any).location.hash = `#narrow/channel/${id}/topic/roadmap`), designId);
      await bobPage.getByRole('group', { name: 'This topic' }).getByRole('button', { name: 'Move or rename topic' }).waitFor();
      assert.equal(await bobPage.getByRole('button', { name: 'Delete topic' }).count(), 0);
      await bobCtx.close();

      // Deleted by the owner once confirmed (not when cancelled): no message left in it, and the view goes to the channel.
      await actions.getByRole('button', { name: 'Delete topic' }).click();
      await actions.getByRole('alertdialog', { name: 'Delete this topic?' }).getByRole('button', { name: 'Cancel' }).click();
      assert.deepEqual(await inTopic(designId, 'roadmap'), ['first plan', 'quiet plan']);
      await actions.getByRole('button', { name: 'Delete topic' }).click();
      await actions.getByRole('alertdialog', { name: 'Delete this topic?' }).getByRole('button', { name: 'Delete topic' }).click();
      await page.getByRole('heading', { name: '#design', exact: true }).waitFor();
      assert.equal((assertSuccess(await owner.request('GET', '/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: designId }, { operator: 'topic', operand: 'roadmap' }]) })).messages as unknown[]).length, 0);
      await ctx.close();
    }));

  test('mark all as read: the narrow in view, all of it, by its button', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = t.client(await t.makeUser({ password: PASSWORD, name: 'Bob Unread' }));
      const generalId = await streamIdOf(owner, 'general');
      const ctx = await newContext();
      // A page in a background tab: what arrives is shown but not seen, so it stays unread.
      await hideableTabs(ctx);
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await page.evaluate((id) => ((globalThis as any).location.hash = `#narrow/channel/${id}`), generalId);
      await page.getByRole('heading', { name: '#general' }).waitFor();
      const markAll = page.getByRole('button', { name: 'Mark all as read' });
      await setTabHidden(page, true);
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
    }));

  test('the actions under the title keep their place as the messages in view are read ("Mark all as read" goes unseen, not away)', () =>
    withWebServer(async (t) => {
      const bob = t.client(await t.makeUser({ password: PASSWORD, name: 'Bob Places' }));
      const generalId = await streamIdOf(t.client(t.owner), 'general');
      assertSuccess(await bob.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'plans', content: 'a plan' }));
      const ctx = await newContext();
      // A page in a background tab until brought back: what arrives meanwhile stays unread.
      await hideableTabs(ctx);
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await setTabHidden(page, true);
      await page.evaluate((id) => ((globalThis as any).location.hash = `#narrow/channel/${id}/topic/plans`), generalId);
      await messageRow(page, 'a plan').waitFor();
      assertSuccess(await bob.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'plans', content: 'an unread plan' }));
      await messageRow(page, 'an unread plan').waitFor();
      const markAll = page.getByRole('button', { name: 'Mark all as read' });
      await markAll.waitFor();
      const actions = page.getByRole('group', { name: 'This topic' });
      await actions.getByRole('button', { name: 'Move or rename topic' }).click();
      const save = actions.getByRole('button', { name: 'Save' });
      const before = await save.boundingBox();
      // Shown: the message is read as it is seen, and the button goes.
      await setTabHidden(page, false);
      await eventually(async () => (await markAll.count()) === 0, 'the button gone');
      assert.deepEqual(await save.boundingBox(), before);
      await ctx.close();
    }));

  test('a topic whose messages are still loading can be resolved: the client asks the server for one of its messages to move it by', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const generalId = await streamIdOf(owner, 'general');
      assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'slow', content: 'a slow plan' }));
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      // The view's messages held back until the topic is resolved (a slow network).
      let release: () => void = () => {};
      const released = new Promise<void>((r) => (release = r));
      await page.route(
        (url) => url.pathname === '/json/messages' && url.searchParams.get('anchor') === 'first_unread',
        async (route) => {
          await released;
          await route.continue();
        },
      );
      await page.evaluate((id) => ((globalThis as any).location.hash = `#narrow/channel/${id}/topic/slow`), generalId);
      await page.getByRole('group', { name: 'This topic' }).getByRole('button', { name: 'Mark as resolved' }).click();
      await page.getByRole('heading', { name: '#general \u203a \u2714 slow' }).waitFor();
      release();
      await messageRow(page, 'a slow plan').waitFor();
      const inResolved = assertSuccess(await owner.request('GET', '/messages', { anchor: 'newest', num_before: 5, num_after: 0, apply_markdown: false, narrow: JSON.stringify([{ operator: 'channel', operand: generalId }, { operator: 'topic', operand: '\u2714 slow' }]) }));
      assert.ok((inResolved.messages as Array<{ content: string }>).some((m) => m.content === 'a slow plan'));
      await ctx.close();
    }));

  test('channels\u2019 unread counts as the user\u2019s web_stream_unreads_count_display_policy says (Zulip\u2019s): a muted channel shows its unmuted or followed topics\u2019 count, else a dot; no channels, dots; all channels, counts; chosen in Settings', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const policyAtServer = async () => (await settingsAtServer(owner)).web_stream_unreads_count_display_policy as number;
      const bob = await t.makeUser({ name: 'Bob Counts' });
      const quietId = await mutedChannel(t, 'quiet', bob);
      const bobApi = t.client(bob);
      assertSuccess(await bobApi.request('POST', '/messages', { type: 'stream', to: 'quiet', topic: 'shh', content: 'in the muted channel' }));
      assertSuccess(await bobApi.request('POST', '/messages', { type: 'stream', to: 'quiet', topic: 'kept', content: 'in a followed topic' }));
      assertSuccess(await bobApi.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'loud', content: 'in general' }));
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');
      const nav = page.getByRole('navigation', { name: 'Channels' });
      const quiet = nav.getByRole('link', { name: /^quiet/ });
      const general = nav.getByRole('link', { name: /^general/ });
      await showHiddenChannels(page);
      // The default (2): the muted channel a dot, general its count.
      await quiet.getByRole('img', { name: 'has unread messages' }).waitFor();
      assert.equal(await quiet.locator('.count').count(), 0);
      await general.getByLabel('1 unread').waitFor();
      // A topic followed in the muted channel: its count.
      assertSuccess(await owner.request('POST', '/user_topics', { stream_id: quietId, topic: 'kept', visibility_policy: 3 }));
      await quiet.getByLabel('1 unread').waitFor();
      // No channels (3): dots.
      const select = (await openSettings(page)).getByLabel('Unread counts in the sidebar for', { exact: true });
      assert.equal(await select.inputValue(), '2');
      await select.selectOption('3');
      await eventually(async () => (await policyAtServer()) === 3, 'no channels at the server');
      await general.getByRole('img', { name: 'has unread messages' }).waitFor();
      assert.equal(await general.locator('.count').count(), 0);
      await quiet.getByRole('img', { name: 'has unread messages' }).waitFor();
      // All channels (1): the muted channel's whole count.
      await select.selectOption('1');
      await eventually(async () => (await policyAtServer()) === 1, 'all channels at the server');
      await quiet.getByLabel('2 unread').waitFor();
      await general.getByLabel('1 unread').waitFor();
      await ctx.close();
    }));
  test('a muted channel\u2019s topics unmuted or followed there are in All messages and its count, live too (as the server\u2019s in:home); its other topics are not; its topics are unmuted there and muted again (Zulip\u2019s menu in a muted channel)', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ name: 'Bob Topics' });
      const quietId = await mutedChannel(t, 'quiet', bob);
      assertSuccess(await owner.request('POST', '/user_topics', { stream_id: quietId, topic: 'open', visibility_policy: 2 }));
      assertSuccess(await owner.request('POST', '/user_topics', { stream_id: quietId, topic: 'kept', visibility_policy: 3 }));
      const bobApi = t.client(bob);
      const say = (topic: string, content: string) => bobApi.request('POST', '/messages', { type: 'stream', to: 'quiet', topic, content });
      assertSuccess(await say('shh', 'muted as its channel'));
      assertSuccess(await say('open', 'in an unmuted topic'));
      assertSuccess(await say('kept', 'in a followed topic'));
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');
      const feedLink = page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^All messages/ });
      // The welcome message and the two topics'.
      await feedLink.getByLabel('3 unread').waitFor();
      await feedLink.click();
      await messageRow(page, 'in an unmuted topic').waitFor();
      await messageRow(page, 'in a followed topic').waitFor();
      assert.equal(await page.locator('article.message-row', { hasText: 'muted as its channel' }).count(), 0);
      // Live: a new message in the unmuted topic comes in; one in the other topic does not.
      assertSuccess(await say('shh', 'still muted'));
      assertSuccess(await say('open', 'more in the open topic'));
      await messageRow(page, 'more in the open topic').waitFor();
      assert.equal(await page.locator('article.message-row', { hasText: 'still muted' }).count(), 0);

      // In a muted channel a topic is unmuted (2), as Zulip's menu offers it, and muted again by going back to the channel's (0).
      const policy = async (topic: string) =>
        (assertSuccess(await owner.request('POST', '/register', { fetch_event_types: JSON.stringify(['user_topic']) })).user_topics as Array<{ stream_id: number; topic_name: string; visibility_policy: number }>).find(
          (x) => x.stream_id === quietId && x.topic_name === topic,
        )?.visibility_policy ?? 0;
      await page.evaluate((id) => ((globalThis as any).location.hash = `#narrow/channel/${id}/topic/shh`), quietId);
      await page.getByRole('heading', { name: '#quiet \u203a shh' }).waitFor();
      const actions = page.getByRole('group', { name: 'This topic' });
      await actions.getByRole('button', { name: 'Unmute topic', pressed: true }).click();
      await actions.getByRole('button', { name: 'Mute topic', exact: true, pressed: false }).waitFor();
      assert.equal(await policy('shh'), 2);
      await page.evaluate(() => ((globalThis as any).location.hash = '#feed'));
      assertSuccess(await say('shh', 'now heard'));
      await messageRow(page, 'now heard').waitFor();
      // The sidebar's topic menu offers the same.
      await page.evaluate((id) => ((globalThis as any).location.hash = `#narrow/channel/${id}`), quietId);
      const shh = page.getByRole('list', { name: 'In quiet' }).getByRole('link', { name: /^shh/ });
      await (await openSidebarMenu(page, shh, 'shh')).getByRole('menuitem', { name: 'Mute topic' }).click();
      await eventually(async () => (await policy('shh')) === 0, 'the channel\u2019s policy again');
      await (await openSidebarMenu(page, shh, 'shh')).getByRole('menuitem', { name: 'Unmute topic' }).waitFor();
      await ctx.close();
    }));
  test('channels: pinned first, muted ones marked and left out of All messages, topics with unread counts', () =>
    withWebServer(async (t) => {
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

      const ctx = await newContext();
      // Log in without opening the feed (which would mark what it shows as read), then open Starred.
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');
      await page.getByRole('heading', { name: 'Starred messages' }).waitFor();
      const nav = page.getByRole('navigation', { name: 'Channels' });
      const names = await nav.locator('li.channel > a .label').allInnerTexts();
      assert.equal(names[0], 'zeta', `pinned channel first: ${names.join(', ')}`);
      await showHiddenChannels(page);
      await nav.getByRole('link', { name: /quiet.*\(muted\)/ }).waitFor();
      await nav.getByRole('link', { name: /zeta/ }).getByLabel('3 unread').waitFor();
      // The muted channel's unread message does not count in All messages (zeta's three and Welcome Bot's do).
      await page.getByRole('link', { name: 'All messages' }).getByLabel('4 unread').waitFor();

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
    }));

  test("a channel's topics in the sidebar: the newest eight and those with unread messages or in view; all of them, filtered, on asking", () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ name: 'Bob Topics' });
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'many' }], principals: [t.owner.id, bob.id] }));
      // An unread topic older than the newest eight, then eleven read ones.
      assertSuccess(await t.client(bob).request('POST', '/messages', { type: 'stream', to: 'many', topic: 'old news', content: 'unread and old' }));
      const own: number[] = [];
      for (let i = 1; i <= 11; i++) own.push(assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'many', topic: `topic ${String(i).padStart(2, '0')}`, content: `number ${i}` })).id);
      // (Sent through the API, they start unread for their sender too, as in Zulip.)
      assertSuccess(await owner.request('POST', '/messages/flags', { messages: JSON.stringify(own), op: 'add', flag: 'read' }));
      const ctx = await newContext();
      // (In a topic of the channel, the old unread message stays out of view, so it stays unread.)
      const manyId = await streamIdOf(owner, 'many');
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, `#narrow/channel/${manyId}/topic/topic.2011`);
      const topics = page.getByRole('list', { name: 'In many' });
      await topics.getByRole('link', { name: /^topic 11/ }).waitFor();
      const names = () => topics.locator('a .label').allInnerTexts();
      assert.deepEqual(await names(), ['topic 11', 'topic 10', 'topic 09', 'topic 08', 'topic 07', 'topic 06', 'topic 05', 'topic 04', 'old news']);

      // All of them, and a filter over them.
      await page.getByRole('button', { name: 'All 12 topics' }).click();
      await eventually(async () => (await names()).length === 12, 'all twelve topics listed');
      await page.getByLabel('Filter topics of #many').fill('02');
      await eventually(async () => (await names()).join() === 'topic 02', 'the filtered topic');
      await topics.getByRole('link', { name: /^topic 02/ }).click();
      await messageRow(page, 'number 2').waitFor();
      // Back to the newest few: the topic in view stays listed.
      await page.getByRole('button', { name: 'Fewer topics' }).click();
      await eventually(async () => (await names()).length === 10, 'the newest eight, the unread one and the one in view');
      assert.deepEqual(await names(), ['topic 11', 'topic 10', 'topic 09', 'topic 08', 'topic 07', 'topic 06', 'topic 05', 'topic 04', 'topic 02', 'old news']);
      assert.equal(await page.getByLabel('Filter topics of #many').count(), 0);
      await ctx.close();
    }));

  test("a topic's menu in the sidebar: mark all as read, follow and unfollow, mute and unmute, resolve and unresolve, as the server has them; its link copied", () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ name: 'Bob Menus' });
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'menus' }], principals: [t.owner.id, bob.id] }));
      for (const content of ['one', 'two']) assertSuccess(await t.client(bob).request('POST', '/messages', { type: 'stream', to: 'menus', topic: 'alpha', content }));
      const menusId = await streamIdOf(owner, 'menus');
      const policy = async () =>
        (assertSuccess(await owner.request('POST', '/register', { fetch_event_types: JSON.stringify(['user_topic']) })).user_topics as Array<{ stream_id: number; topic_name: string; visibility_policy: number }>).find(
          (x) => x.stream_id === menusId && x.topic_name === 'alpha',
        )?.visibility_policy ?? 0;
      const ctx = await newContext();
      await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
      // (A view that marks nothing read; then the channel's topics, listed once the channel is the one in view.)
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, `#narrow/channel/${menusId}/topic/none`);
      const topic = page.getByRole('list', { name: 'In menus' }).getByRole('link', { name: /^alpha/ });
      await topic.getByLabel('2 unread').waitFor();
      const openMenu = () => openSidebarMenu(page, topic, 'alpha');

      await (await openMenu()).getByRole('menuitem', { name: 'Mark all as read' }).click();
      await eventually(async () => (await topic.getByLabel(/unread/).count()) === 0, 'the count gone');
      const unreadAtServer = assertSuccess(await owner.request('GET', '/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'unread' }, { operator: 'channel', operand: menusId }]) })).messages;
      assert.deepEqual(unreadAtServer, []);
      // The menu stays open when its focused first item goes: "Mark all as read", once the topic is read elsewhere.
      const latest = assertSuccess(await t.client(bob).request('POST', '/messages', { type: 'stream', to: 'menus', topic: 'alpha', content: 'three' })).id as number;
      await topic.getByLabel('1 unread').waitFor();
      const open = await openMenu();
      await eventually(() => open.getByRole('menuitem', { name: 'Mark all as read' }).evaluate((el) => el === (globalThis as any).document.activeElement), 'its first item focused');
      assertSuccess(await owner.request('POST', '/mark_topic_as_read', { stream_id: menusId, topic_name: 'alpha' }));
      await eventually(async () => (await topic.getByLabel(/unread/).count()) === 0, 'read elsewhere');
      await open.getByRole('menuitem', { name: 'Follow topic' }).waitFor();
      assert.equal(await open.getByRole('menuitem', { name: 'Mark all as read' }).count(), 0);
      assert.ok(await open.evaluate((el) => el.contains((globalThis as any).document.activeElement)), 'the focus is in the menu');
      await page.keyboard.press('Escape');
      await open.waitFor({ state: 'detached' });

      await (await openMenu()).getByRole('menuitem', { name: 'Follow topic' }).click();
      await eventually(async () => (await policy()) === 3, 'followed at the server');
      await (await openMenu()).getByRole('menuitem', { name: 'Unfollow topic' }).click();
      await eventually(async () => (await policy()) === 0, 'unfollowed at the server');
      await (await openMenu()).getByRole('menuitem', { name: 'Mute topic' }).click();
      await eventually(async () => (await policy()) === 1, 'muted at the server');
      await (await openMenu()).getByRole('menuitem', { name: 'Unmute topic' }).click();
      await eventually(async () => (await policy()) === 0, 'unmuted at the server');

      await (await openMenu()).getByRole('menuitem', { name: 'Copy link to topic' }).click();
      // Zulip's topic permalink: with the topic's latest message, which the link follows if the topic is renamed.
      await eventually(async () => (await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())) === `${t.url}/#narrow/channel/${menusId}-menus/topic/alpha/with/${latest}`, 'the link on the clipboard');

      // Resolved (Zulip's check mark before its name, at the server), then unresolved.
      const topicsAtServer = async () => (assertSuccess(await owner.request('GET', `/users/me/${menusId}/topics`)).topics as Array<{ name: string }>).map((x) => x.name);
      await (await openMenu()).getByRole('menuitem', { name: 'Mark as resolved' }).click();
      await eventually(async () => (await topicsAtServer()).includes('\u2714 alpha'), 'resolved at the server');
      const resolved = page.getByRole('list', { name: 'In menus' }).getByRole('link', { name: /^\u2714 alpha/ });
      await resolved.waitFor();
      await (await openSidebarMenu(page, resolved, '\u2714 alpha')).getByRole('menuitem', { name: 'Mark as unresolved' }).click();
      await eventually(async () => (await topicsAtServer()).includes('alpha'), 'unresolved at the server');
      await topic.waitFor();
      await ctx.close();
    }));

  test('leaving a channel takes its unread messages out of All messages', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Leaves' });
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'lonely' }], principals: [t.owner.id, bob.id] }));
      const bobApi = t.client(bob);
      for (const content of ['lonely one', 'lonely two']) assertSuccess(await bobApi.request('POST', '/messages', { type: 'stream', to: 'lonely', topic: 'x', content }));
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');
      const all = page.getByRole('link', { name: 'All messages' });
      // The channel's two and Welcome Bot's.
      await all.getByLabel('3 unread').waitFor();
      assertSuccess(await owner.request('DELETE', '/users/me/subscriptions', { subscriptions: ['lonely'] }));
      await all.getByLabel('1 unread').waitFor();
      await ctx.close();
    }));

  test('channels in the sidebar in Zulip\u2019s order: muted ones after the others, behind the section\u2019s toggle ("1 MUTED"); without recent messages at the end and behind it too when demote_inactive_streams says so (always, chosen in Settings), until a message comes', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'aaa-old' }, { name: 'bb-muted' }] }));
      const mutedId = await streamIdOf(owner, 'bb-muted');
      assertSuccess(await owner.request('POST', '/users/me/subscriptions/properties', { subscription_data: [{ stream_id: mutedId, property: 'is_muted', value: true }] }));
      const ctx = await newContext();
      // The server counts a channel made today as active: here aaa-old is one without recent messages.
      await ctx.route('**/json/register', async (route) => {
        const response = await route.fetch();
        const body = await response.json();
        for (const sub of body.subscriptions ?? []) if (sub.name === 'aaa-old') sub.is_recently_active = false;
        await route.fulfill({ response, json: body });
      });
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');
      const nav = page.getByRole('navigation', { name: 'Channels' });
      const names = () => nav.locator('li.channel > a .label').allInnerTexts();
      // Zulip's toggle over the section's muted and inactive channels, as it names them.
      const toggle = nav.locator('.hidden-toggle button');
      const toggleText = async () => ((await toggle.count()) ? ((await toggle.locator('.label').textContent()) ?? '') : 'none');
      // Zulip's default (1): demoted only with 20 channels or more. The muted channel is hidden until shown, then last.
      await eventually(async () => (await names()).join() === 'aaa-old,core team,general', 'by name, the muted channel hidden');
      assert.equal(await toggleText(), '1 muted');
      await toggle.click();
      await eventually(async () => (await names()).join() === 'aaa-old,core team,general,bb-muted', 'the muted channel last once shown');
      await toggle.click();
      await eventually(async () => (await names()).join() === 'aaa-old,core team,general', 'hidden again');
      const select = (await openSettings(page)).getByLabel('Move channels without recent messages to the end of the sidebar');
      assert.equal(await select.inputValue(), '1');
      await select.selectOption('2');
      await eventually(async () => (await settingsAtServer(owner)).demote_inactive_streams === 2, 'always, at the server');
      await page.keyboard.press('Escape');
      await eventually(async () => (await names()).join() === 'core team,general', 'the inactive channel hidden too');
      assert.equal(await toggleText(), '2 inactive or muted');
      await toggle.click();
      await eventually(async () => (await names()).join() === 'core team,general,bb-muted,aaa-old', 'the inactive channel at the end');
      // A message there: active again.
      assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'aaa-old', topic: 'back', content: 'awake again' }));
      await eventually(async () => (await names()).join() === 'aaa-old,core team,general,bb-muted', 'active again');
      assert.equal(await toggleText(), '1 muted');
      await ctx.close();
    }));

  test('muted channels behind their section\u2019s toggle (Zulip\u2019s "1 MUTED"), which counts their unread messages in topics unmuted or followed there; the channel in view shown all the same; all shown while filtering; a folder of muted channels only is collapsed, and opening it shows them', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ name: 'Bob Hidden' });
      const quietId = await mutedChannel(t, 'quiet', bob);
      assertSuccess(await owner.request('POST', '/user_topics', { stream_id: quietId, topic: 'kept', visibility_policy: 3 }));
      const bobApi = t.client(bob);
      assertSuccess(await bobApi.request('POST', '/messages', { type: 'stream', to: 'quiet', topic: 'shh', content: 'muted as its channel' }));
      assertSuccess(await bobApi.request('POST', '/messages', { type: 'stream', to: 'quiet', topic: 'kept', content: 'in a followed topic' }));
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');
      const nav = page.getByRole('navigation', { name: 'Channels' });
      const quiet = nav.getByRole('link', { name: /^quiet/ });
      const toggle = nav.getByRole('button', { name: /^1 muted/i });
      // Hidden; the toggle counts the followed topic's message (not the muted one's).
      await toggle.getByLabel('1 unread').waitFor();
      assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
      assert.equal(await quiet.count(), 0);
      // The channel in view is shown under the toggle all the same.
      await page.evaluate((id) => ((globalThis as any).location.hash = `#narrow/channel/${id}`), quietId);
      await quiet.waitFor();
      assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
      await page.evaluate(() => ((globalThis as any).location.hash = '#narrow/is/starred'));
      await eventually(async () => (await quiet.count()) === 0, 'hidden again once out of view');
      // Filtering shows every channel that matches.
      await nav.getByLabel('Filter channels').fill('qu');
      await quiet.waitFor();
      assert.equal(await toggle.count(), 0);
      await nav.getByLabel('Filter channels').fill('');
      // Shown on asking (the count goes with the hiding), hidden again.
      await toggle.click();
      await quiet.waitFor();
      assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
      assert.equal(await toggle.getByLabel(/unread/).count(), 0);
      await toggle.click();
      await eventually(async () => (await quiet.count()) === 0, 'hidden on asking');
      // In a folder of its own, where nothing else would show, the folder is collapsed (Zulip's); opening it shows the channel, without a toggle.
      const folder = assertSuccess(await owner.request('POST', '/channel_folders/create', { name: 'Quiet ones', description: '' })).channel_folder_id as number;
      assertSuccess(await owner.request('PATCH', `/streams/${quietId}`, { folder_id: folder }));
      const heading = nav.getByRole('button', { name: 'Quiet ones', exact: true });
      await heading.waitFor();
      assert.equal(await heading.getAttribute('aria-expanded'), 'false');
      assert.equal(await quiet.count(), 0);
      await heading.click();
      await nav.getByRole('list', { name: 'Quiet ones' }).getByRole('link', { name: /^quiet/ }).waitFor();
      assert.equal(await heading.getAttribute('aria-expanded'), 'true');
      assert.equal(await nav.locator('.hidden-toggle').count(), 0);
      await heading.click();
      await eventually(async () => (await quiet.count()) === 0, 'the folder collapsed again');
      // Unmuted, the channel is no longer quiet: the folder is open as the user left folders (open by default).
      assertSuccess(await owner.request('POST', '/users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: quietId, property: 'is_muted', value: false }]) }));
      await quiet.waitFor();
      assert.equal(await heading.getAttribute('aria-expanded'), 'true');
      await ctx.close();
    }));

  test('a channel\u2019s "New topic" button in the sidebar (Zulip\u2019s): from any view to the channel with an empty topic, its field focused; not where the user may not post', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bea = await t.makeUser({ name: 'Bea Topics', password: PASSWORD });
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'news' }], principals: [t.owner.id, bea.id] }));
      const newsId = await streamIdOf(owner, 'news');
      const groups = assertSuccess(await owner.request('GET', '/user_groups')).user_groups as Array<{ id: number; name: string; is_system_group: boolean }>;
      const admins = groups.find((g) => g.is_system_group && g.name === 'role:administrators')!.id;
      assertSuccess(await owner.request('PATCH', `/streams/${newsId}`, { can_send_message_group: JSON.stringify({ new: admins }) }));
      const ctx = await newContext();
      // From the Inbox, which has no compose box.
      const page = await loginToView(ctx, t.url, bea.email, PASSWORD, '#inbox');
      const general = await channelLink(page, 'general');
      await general.hover();
      await page.getByRole('button', { name: 'New topic in #general' }).click();
      await page.getByRole('heading', { name: '#general', exact: true }).waitFor();
      const topic = page.getByLabel('Topic', { exact: true });
      await eventually(async () => (await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label'))) === 'Topic', 'the topic field focused');
      assert.equal(await topic.inputValue(), '');
      await send(page, 'fresh start', 'a new topic from the sidebar');
      await eventually(
        async () =>
          (assertSuccess(await t.client(bea).request('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: 'general' }]) })).messages as Array<{ subject: string; content: string }>).some(
            (m) => m.subject === 'fresh start',
          ),
        'the message at the server in its new topic',
      );
      // Already in a topic of the channel: the box starts a new one, its topic emptied.
      await topic.fill('old news');
      await general.hover();
      await page.getByRole('button', { name: 'New topic in #general' }).click();
      await eventually(async () => (await topic.inputValue()) === '', 'the topic emptied');
      // The channel only administrators may post in offers none to a member.
      await (await channelLink(page, 'news')).hover();
      assert.equal(await page.getByRole('button', { name: 'New topic in #news' }).count(), 0);
      await ctx.close();
    }));

  test('"Browse 1 more channel" under the sidebar\u2019s channels (Zulip\u2019s): public channels the user is not in, live; it opens the Channels dialog at them, whose tabs show the subscribed ones or all, filtered by name', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ name: 'Bob Browse' });
      const bobApi = t.client(bob);
      assertSuccess(await bobApi.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'extra' }]) }));
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');
      const nav = page.getByRole('navigation', { name: 'Channels' });
      await nav.getByRole('link', { name: 'Browse 1 more channel', exact: true }).waitFor();
      // Another public channel made elsewhere counts at once; a private one does not.
      assertSuccess(await bobApi.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'more' }]) }));
      assertSuccess(await bobApi.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'secret' }]), invite_only: JSON.stringify(true) }));
      await nav.getByRole('link', { name: 'Browse 2 more channels', exact: true }).waitFor();
      // Joined elsewhere: one fewer.
      assertSuccess(await t.client(t.owner).request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'extra' }]) }));
      await nav.getByRole('link', { name: 'Browse 1 more channel', exact: true }).click();
      // The Channels dialog at the channels one is not in (Zulip's #channels/notsubscribed); its tabs and its filter.
      const dialog = page.getByRole('dialog', { name: 'Channels' });
      const names = async (list: string) => (await dialog.getByRole('list', { name: list, exact: true }).getByRole('listitem').evaluateAll((items) => items.map((i) => i.getAttribute('aria-label')))).filter((n) => n?.startsWith('#'));
      // (Private ones too, which an administrator sees.)
      await eventually(async () => JSON.stringify(await names('Not subscribed')) === JSON.stringify(['#more', '#secret']), 'the channels one is not in');
      assert.equal(new URL(page.url()).hash, '#channels/notsubscribed');
      await dialog.getByRole('tab', { name: 'Subscribed', exact: true }).click();
      assert.deepEqual(await names('Subscribed'), ['#core team', '#extra', '#general']);
      assert.equal(new URL(page.url()).hash, '#channels/subscribed');
      await dialog.getByLabel('Filter channels').fill('ext');
      assert.deepEqual(await names('Subscribed'), ['#extra']);
      await dialog.getByRole('tab', { name: 'All channels' }).click();
      assert.deepEqual(await names('All channels'), ['#extra']);
      await dialog.getByLabel('Filter channels').fill('');
      assert.deepEqual(await names('All channels'), ['#core team', '#extra', '#general', '#more', '#secret']);
      assert.equal(new URL(page.url()).hash, '#channels/all');
      await ctx.close();
    }));

  test('direct-message conversations in the sidebar as Zulip lists them: the newest eight, older ones with unread messages, the one in view; "More conversations" lists them all', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const ids: number[] = [];
      const firstMessage: number[] = [];
      for (let i = 1; i <= 10; i++) {
        const u = await t.makeUser({ name: `Dee ${String(i).padStart(2, '0')}` });
        ids.push(u.id);
        firstMessage.push(assertSuccess(await owner.request('POST', '/messages', { type: 'direct', to: JSON.stringify([u.id]), content: `hello ${i}` })).id as number);
      }
      assertSuccess(await owner.request('POST', '/messages/flags/narrow', { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: '[]', op: 'add', flag: 'read' }));
      // The oldest of them unread again.
      assertSuccess(await owner.request('POST', '/messages/flags', { messages: JSON.stringify([firstMessage[0]]), op: 'remove', flag: 'read' }));
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');
      const nav = page.getByRole('navigation', { name: 'Conversations' });
      const names = async () => (await nav.locator('li .label').allInnerTexts()).join();
      const newestEight = ['10', '09', '08', '07', '06', '05', '04', '03'].map((n) => `Dee ${n}`);
      // The newest eight and the older one with an unread message; Dee 02 and Welcome Bot's greeting not listed.
      await eventually(async () => (await names()) === [...newestEight, 'Dee 01'].join(), 'Zulip\u2019s few conversations');
      const more = nav.getByRole('button', { name: /^More conversations/ });
      // The one in view is listed all the same.
      await page.evaluate((id) => ((globalThis as any).location.hash = `#narrow/dm/${id}-dm`), ids[1]);
      await eventually(async () => (await names()).split(',').includes('Dee 02'), 'the conversation in view listed');
      await page.evaluate(() => ((globalThis as any).location.hash = '#narrow/is/starred'));
      await eventually(async () => !(await names()).split(',').includes('Dee 02'), 'not once out of view');
      await more.click();
      await eventually(async () => (await names()) === [...newestEight, 'Dee 02', 'Dee 01', 'Welcome Bot'].join(), 'every conversation');
      await nav.getByRole('button', { name: 'Fewer conversations' }).click();
      await eventually(async () => (await names()) === [...newestEight, 'Dee 01'].join(), 'the few again');
      await ctx.close();
    }));

  test('the channels filtered by name in the sidebar (Zulip\u2019s "Filter channels": each word starts a word of the name, in any order); q goes to the filter; Escape empties it', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'design-reviews' }, { name: 'release notes' }] }));
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');
      const nav = page.getByRole('navigation', { name: 'Channels' });
      const names = async () => (await nav.locator('li.channel > a .label').allInnerTexts()).join();
      await eventually(async () => (await names()) === 'core team,design-reviews,general,release notes', 'all channels');
      await page.locator('body').press('q');
      const filter = nav.getByLabel('Filter channels');
      await eventually(async () => (await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label'))) === 'Filter channels', 'q to the filter');
      await page.keyboard.type('rev');
      await eventually(async () => (await names()) === 'design-reviews', 'a word of the name');
      await filter.fill('notes rel');
      await eventually(async () => (await names()) === 'release notes', 'words in any order');
      await filter.fill('eam');
      await nav.getByText('No channels match.').waitFor();
      await filter.press('Escape');
      await eventually(async () => (await names()) === 'core team,design-reviews,general,release notes', 'all again');
      assert.equal(await filter.inputValue(), '');
      await ctx.close();
    }));

  test('views unpinned from the sidebar go to More views and are pinned back from there (Zulip\u2019s navigation_views, saved at the server); views of the user\u2019s own too, live', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const saved = async () => assertSuccess(await owner.request('GET', '/navigation_views')).navigation_views as Array<{ fragment: string; is_pinned: boolean; name: string | null }>;
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');
      const views = page.getByRole('navigation', { name: 'Views' });
      const mentions = views.getByRole('link', { name: /^Mentions/ });
      const more = views.getByRole('button', { name: 'More views' });
      assert.equal(await more.count(), 0, 'every view pinned at first');

      await (await openSidebarMenu(page, mentions, 'Mentions')).getByRole('menuitem', { name: 'Unpin from the sidebar' }).click();
      await eventually(async () => (await mentions.count()) === 0, 'Mentions out of the sidebar');
      assert.deepEqual(await saved(), [{ fragment: 'narrow/is/mentioned', is_pinned: false, name: null }]);
      // From More views: the view opened, then pinned back (its saved configuration changed).
      await more.click();
      await page.getByRole('menu', { name: 'More views' }).getByRole('menuitem', { name: 'Mentions', exact: true }).click();
      await page.getByRole('heading', { name: 'Mentions' }).waitFor();
      await more.click();
      await page.getByRole('menu', { name: 'More views' }).getByRole('menuitem', { name: 'Pin Mentions to the sidebar' }).click();
      await mentions.waitFor();
      assert.equal(await more.count(), 0);
      assert.deepEqual(await saved(), [{ fragment: 'narrow/is/mentioned', is_pinned: true, name: null }]);

      // A view of the user's own, added and unpinned elsewhere: listed, then in More views.
      assertSuccess(await owner.request('POST', '/navigation_views', { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alert words' }));
      const alerted = views.getByRole('link', { name: 'Alert words' });
      await alerted.waitFor();
      assert.equal(await alerted.getAttribute('href'), '#narrow/is/alerted');
      assertSuccess(await owner.request('PATCH', '/navigation_views/narrow/is/alerted', { is_pinned: false }));
      await eventually(async () => (await alerted.count()) === 0, 'the own view out of the sidebar');
      await more.click();
      await page.getByRole('menu', { name: 'More views' }).getByRole('menuitem', { name: 'Alert words', exact: true }).waitFor();
      await ctx.close();
    }));
});
