/**
 * A message's "More actions" menu in the web client, in real Chromium: its
 * edit history (versions, who made them, the move between channels and
 * topics; offered only as the organization's policy allows, live), its read
 * receipts (the readers as the server lists them; the server's refusal once
 * the organization turns them off), "Mark as unread from here" (the server's
 * flags and the sidebar's count, and the list does not mark them read again
 * until the user moves in it) and "Copy link to message" (the link copied
 * opens the conversation at that message in another page, for a channel and
 * a direct message), "Move message" (one, or it and the later ones, to
 * another topic or channel; offered as the organization allows; the
 * server's refusal) and "Report message"; a code block's copy button. Edit
 * and Delete offered as the server allows them (not a poll's content; the
 * organization's and a channel's delete groups, live).
 * Skipped (with one line saying why) where Chromium is
 * not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { assertError, assertSuccess, OWNER_EMAIL, OWNER_PASSWORD, type Client, streamIdOf } from './helpers.ts';
import { browserTests, channelLink, eventGate, eventually, focusedLabel, goToHash, loginPage, messageRow, PASSWORD, postPng, withWebServer, openSettings } from './web-browser.ts';

const sendTo = async (c: Client, to: string, topic: string, content: string): Promise<number> => assertSuccess(await c.post('/messages', { type: 'stream', to, topic, content })).id as number;

/** Opens `row`'s "More actions" menu; the menu. */
async function moreActions(page: Page, row: Locator): Promise<Locator> {
  await row.hover();
  await row.getByRole('button', { name: 'More actions' }).click();
  const menu = page.getByRole('menu', { name: 'More actions' });
  await menu.waitFor();
  return menu;
}

/** The names of the items of `row`'s menu (closed again after with Escape, which gives the focus back to its button). */
async function menuItems(page: Page, row: Locator): Promise<string[]> {
  const menu = await moreActions(page, row);
  const items = (await menu.getByRole('menuitem').allTextContents()).map((s) => s.trim());
  // The focus on its first item.
  await eventually(async () => (await page.evaluate(() => (globalThis as any).document.activeElement?.textContent?.trim())) === items[0], 'the first item focused');
  await page.keyboard.press('Escape');
  await menu.waitFor({ state: 'detached' });
  assert.equal(await focusedLabel(page, 'More actions'), 'More actions');
  return items;
}

/** The message `id`'s flags as `api`'s user has them at the server. */
async function flagsAtServer(api: Client, id: number): Promise<string[]> {
  const r = assertSuccess(await api.get('/messages', { anchor: String(id), num_before: 0, num_after: 0, include_anchor: true, narrow: '[]' }));
  assert.equal(r.messages.length, 1);
  return r.messages[0].flags as string[];
}

const isRead = async (api: Client, id: number) => (await flagsAtServer(api, id)).includes('read');

await browserTests('the web client in Chromium: message actions', (newContext) => {
  test('edit history: an edited and moved message shows its versions and the move; offered as the policy allows, following changes made elsewhere', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Writer' });
      const bobApi = t.client(bob);
      const ownerName = t.owner.row.full_name;
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'archive' }]), principals: JSON.stringify([bob.id, t.owner.id]) }));
      const archiveId = await streamIdOf(owner, 'archive');
      const id = await sendTo(bobApi, 'general', 'plans', 'first draft');
      assertSuccess(await bobApi.patch(`/messages/${id}`, { content: 'second draft' }));
      assertSuccess(await owner.patch(`/messages/${id}`, { stream_id: archiveId, topic: 'decisions', send_notification_to_old_thread: false, send_notification_to_new_thread: false }));
      const movedOnly = await sendTo(bobApi, 'general', 'plans', 'only moved');
      assertSuccess(await owner.patch(`/messages/${movedOnly}`, { stream_id: archiveId, topic: 'decisions', send_notification_to_old_thread: false, send_notification_to_new_thread: false }));
      const untouched = await sendTo(bobApi, 'archive', 'decisions', 'never changed');

      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      await channelLink(page, 'archive').click();
      const row = messageRow(page, 'second draft');
      await row.waitFor();
      await (await moreActions(page, row)).getByRole('menuitem', { name: 'View edit history' }).click();
      const dialog = page.getByRole('dialog', { name: 'Message edit history' });
      assert.equal(await focusedLabel(page, 'Close message edit history'), 'Close message edit history');
      const versions = dialog.getByRole('listitem');
      await eventually(async () => (await versions.count()) === 3, 'three versions');
      // As the server has them: posted, edited, moved (oldest first).
      const history = assertSuccess(await bobApi.get(`/messages/${id}/history`)).message_history as Array<Record<string, any>>;
      assert.equal(history.length, 3);
      assert.deepEqual(
        history.map((v) => [v.user_id, v.topic]),
        [
          [bob.id, 'plans'],
          [bob.id, 'plans'],
          [t.owner.id, 'decisions'],
        ],
      );
      const texts = (await versions.allTextContents()).map((s) => s.replace(/\s+/g, ' ').trim());
      assert.match(texts[0]!, /^Posted by Bob Writer .*first draft$/);
      assert.match(texts[1]!, /^Edited by Bob Writer .*second draft$/);
      assert.match(texts[2]!, new RegExp(`^Moved by ${ownerName} .*Moved from #general > plans to #archive > decisions$`));
      assert.equal(await versions.nth(0).locator('.message-content p').textContent(), 'first draft');
      await dialog.getByRole('button', { name: 'Close message edit history' }).click();
      await dialog.waitFor({ state: 'detached' });

      // Zulip's mark on the row: "(edited)" for one edited (and moved), when each last happened in its
      // title; a click shows the history. One only moved: "(moved)".
      const notice = row.locator('.edited');
      assert.equal(await notice.textContent(), '(edited)');
      assert.match((await notice.getAttribute('title')) ?? '', /^Last edited .+\.\nLast moved .+\.$/);
      await notice.click();
      await eventually(async () => (await versions.count()) === 3, 'the history again');
      await dialog.getByRole('button', { name: 'Close message edit history' }).click();
      await dialog.waitFor({ state: 'detached' });
      const movedNotice = messageRow(page, 'only moved').locator('.edited');
      assert.equal(await movedNotice.textContent(), '(moved)');
      assert.match((await movedNotice.getAttribute('title')) ?? '', /^Last moved .+\.$/);
      assert.equal(await messageRow(page, 'never changed').locator('.edited').count(), 0);

      // A click elsewhere closes the menu.
      const menu = await moreActions(page, row);
      await page.getByRole('heading', { name: /archive/ }).click();
      await menu.waitFor({ state: 'detached' });

      // A message never changed has no history to show, until it is edited elsewhere.
      const untouchedRow = messageRow(page, 'never changed');
      assert.ok(!(await menuItems(page, untouchedRow)).includes('View edit history'));
      assertSuccess(await bobApi.patch(`/messages/${untouched}`, { content: 'changed after all' }));
      const changedRow = messageRow(page, 'changed after all');
      await changedRow.waitFor();
      await eventually(async () => (await menuItems(page, changedRow)).includes('View edit history'), 'the edited message to offer its history');

      // "moves": only moved messages offer it; "none": none does (the server refuses too).
      assertSuccess(await owner.patch('/realm', { message_edit_history_visibility_policy: 'moves' }));
      await eventually(async () => !(await menuItems(page, changedRow)).includes('View edit history'), 'the edited message to offer no history under "moves"');
      assert.ok((await menuItems(page, row)).includes('View edit history'));
      assertSuccess(await owner.patch('/realm', { message_edit_history_visibility_policy: 'none' }));
      await eventually(async () => !(await menuItems(page, row)).includes('View edit history'), 'no history offered under "none"');
      // The mark stays, but shows nothing on a click.
      assert.equal(await row.locator('button.edited').count(), 0);
      assert.equal(await row.locator('span.edited').textContent(), '(edited)');
      assertError(await bobApi.get(`/messages/${id}/history`), 400, 'BAD_REQUEST', 'Message edit history is disabled in this organization');
      await ctx.close();
    }));

  test('read receipts: the readers the server lists; the server refuses once the organization turns them off, and the option goes', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      assertSuccess(await owner.patch('/realm', { enable_read_receipts: true }));
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Sender' });
      const carol = await t.makeUser({ name: 'Carol Reader' });
      const dave = await t.makeUser({ name: 'Dave Later' });
      const id = await sendTo(t.client(bob), 'general', 'receipts', 'did you read this');
      assertSuccess(await t.client(carol).post('/messages/flags', { messages: JSON.stringify([id]), op: 'add', flag: 'read' }));

      const ctx = await newContext();
      const gate = await eventGate(ctx);
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      const row = messageRow(page, 'did you read this');
      await row.waitFor();
      const readers = async () => {
        await (await moreActions(page, row)).getByRole('menuitem', { name: 'Read receipts' }).click();
        const dialog = page.getByRole('dialog', { name: 'Read receipts' });
        await dialog.waitFor();
        return dialog;
      };
      let dialog = await readers();
      await dialog.getByRole('list', { name: 'Read by' }).waitFor();
      assert.deepEqual(await dialog.getByRole('listitem').allTextContents(), ['Carol Reader']);
      assert.deepEqual(assertSuccess(await t.client(bob).get(`/messages/${id}/read_receipts`)).user_ids, [carol.id]);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      // Dave reads it elsewhere: the receipts, opened again, name him too.
      assertSuccess(await t.client(dave).post('/messages/flags', { messages: JSON.stringify([id]), op: 'add', flag: 'read' }));
      dialog = await readers();
      await eventually(async () => (await dialog.getByRole('listitem').count()) === 2, 'two readers');
      assert.deepEqual(await dialog.getByRole('listitem').allTextContents(), ['Carol Reader', 'Dave Later']);
      assert.deepEqual(new Set(assertSuccess(await t.client(bob).get(`/messages/${id}/read_receipts`)).user_ids), new Set([carol.id, dave.id]));
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      // Turned off while the page has not heard yet: the server's refusal, shown.
      gate.hold();
      assertSuccess(await owner.patch('/realm', { enable_read_receipts: false }));
      dialog = await readers();
      assert.equal(await dialog.getByRole('alert').textContent(), 'Read receipts are disabled in this organization.');
      assertError(await t.client(bob).get(`/messages/${id}/read_receipts`), 400, 'BAD_REQUEST', 'Read receipts are disabled in this organization.');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      // Once the event arrives, the menu no longer offers it.
      gate.release();
      await eventually(async () => !(await menuItems(page, row)).includes('Read receipts'), 'the read receipts option to go');
      await ctx.close();
    }));

  test('mark as unread from here: the server has that message and the later ones unread, the sidebar counts them, and they stay unread until the user moves in the list', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Reader' });
      const bobApi = t.client(bob);
      const ids: number[] = [];
      for (let i = 1; i <= 5; i++) ids.push(await sendTo(owner, 'general', 'batch', `batch message ${i}`));
      assertSuccess(await bobApi.post('/messages/flags', { messages: JSON.stringify(ids), op: 'add', flag: 'read' }));

      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      const generalId = await streamIdOf(owner, 'general');
      await page.goto(`${t.url}/#narrow/channel/${generalId}/topic/batch`);
      await page.getByRole('heading', { name: '#general \u203a batch' }).waitFor();
      const third = messageRow(page, 'batch message 3');
      await third.waitFor();
      const general = channelLink(page, 'general');
      assert.equal(await general.getByLabel(/unread$/).count(), 0);

      await (await moreActions(page, third)).getByRole('menuitem', { name: 'Mark as unread from here' }).click();
      await eventually(async () => !(await isRead(bobApi, ids[4]!)), 'the last message unread at the server');
      assert.deepEqual(await Promise.all(ids.map((id) => isRead(bobApi, id))), [true, true, false, false, false]);
      await general.getByLabel('3 unread').waitFor();
      await page.getByRole('link', { name: 'All messages' }).getByLabel('3 unread').waitFor();
      // Zulip's banner says why they stay unread.
      await page.locator('.unread-banner').getByText('To preserve your reading state, this view does not mark messages as read.').waitFor();

      // An earlier message made unread elsewhere is in view and so read again by the same check
      // that leaves the three alone.
      assertSuccess(await bobApi.post('/messages/flags', { messages: JSON.stringify([ids[0]]), op: 'remove', flag: 'read' }));
      await eventually(() => isRead(bobApi, ids[0]!), 'the first message read again, being in view');
      assert.deepEqual(await Promise.all(ids.map((id) => isRead(bobApi, id))), [true, true, false, false, false]);
      assert.equal(await general.getByLabel('3 unread').count(), 1);

      // A click in the list: the messages in view are read again.
      await messageRow(page, 'batch message 5').locator('.message-content').click();
      await eventually(async () => (await general.getByLabel(/unread$/).count()) === 0, 'the count to go');
      assert.deepEqual(await Promise.all(ids.map((id) => isRead(bobApi, id))), [true, true, true, true, true]);
      assert.equal(await page.locator('.unread-banner').count(), 0, 'the banner gone');
      await ctx.close();
    }));

  test('All messages as the home view is kept between visits (Zulip\u2019s): it comes back where it was, from the inbox or a channel, with what came meanwhile; a "Mark as unread from here" made before no longer holds (Zulip\u2019s resumes reading); with another home view it opens anew', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Feed' });
      const bobApi = t.client(bob);
      const ids: number[] = [];
      for (let i = 1; i <= 40; i++) ids.push(await sendTo(owner, 'general', 'feed batch', `feed message ${i}`));
      assertSuccess(await bobApi.post('/mark_all_as_read', {}));
      assertSuccess(await bobApi.request('PATCH', '/settings', { web_home_view: 'all_messages' }));
      const lastFive = ids.slice(35);
      const readAtServer = () => Promise.all(lastFive.map((id) => isRead(bobApi, id)));

      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      const views = page.getByRole('navigation', { name: 'Views' });
      const feedLink = views.getByRole('link', { name: /^All messages/ });
      const banner = page.locator('.unread-banner').getByText('To preserve your reading state, this view does not mark messages as read.');
      /** The row at the top of the pane (the first whose top is in view): its text and its top's offset from the pane's, and the pane's scroll offset. */
      const topOfPane = () =>
        page.evaluate(() => {
          const sc = (globalThis as any).document.querySelector('.message-scroller');
          const top = sc.getBoundingClientRect().top;
          for (const el of sc.querySelectorAll('.message-row')) {
            const r = el.getBoundingClientRect();
            if (r.top >= top - 1) return { text: el.querySelector('.message-content').textContent.trim(), offset: Math.round(r.top - top), scrollTop: Math.round(sc.scrollTop) };
          }
          return null;
        });
      /** Away by `away` (a link in the sidebar) and back to All messages by the sidebar (the page is not loaded again). */
      const awayAndBack = async (away: Locator, heading: string) => {
        await away.click();
        await page.getByRole('heading', { name: heading, exact: true }).waitFor();
        await feedLink.click();
        await page.getByRole('heading', { name: 'All messages', exact: true }).waitFor();
        await messageRow(page, 'feed message 40').waitFor();
      };
      const markFrom = async (text: string) => {
        await (await moreActions(page, messageRow(page, text))).getByRole('menuitem', { name: 'Mark as unread from here' }).click();
        await eventually(async () => (await readAtServer()).join() === 'true,true,false,false,false', 'three unread at the server');
        await banner.waitFor();
      };

      await page.getByRole('heading', { name: 'All messages', exact: true }).waitFor();
      await messageRow(page, 'feed message 40').waitFor();
      // Scrolled up to the twelfth message (the pane then stays still).
      await messageRow(page, 'feed message 12').evaluate((el: any) => el.scrollIntoView({ block: 'start' }));
      await eventually(async () => (await topOfPane())?.text === 'feed message 12', 'the twelfth at the top');
      await new Promise((r) => setTimeout(r, 300));
      const before = await topOfPane();
      assert.ok(before && before.scrollTop > 0);
      // The conversation's bar, stuck, is flush with the pane's top (no row shows above it).
      const barGap = await page.locator('.message-scroller').evaluate((sc: any) => Math.round(sc.querySelector('.recipient-bar').getBoundingClientRect().top - sc.getBoundingClientRect().top));
      assert.equal(barGap, 0);

      // To the inbox and back: the same place.
      await awayAndBack(views.getByRole('link', { name: /^Inbox/ }), 'Inbox');
      await eventually(async () => JSON.stringify(await topOfPane()) === JSON.stringify(before), 'the same place after the inbox');
      // To a channel, where a new message comes, and back: the same place, and the new message in the list.
      const newer = await sendTo(owner, 'general', 'feed batch', 'feed message 41');
      await awayAndBack(channelLink(page, 'general'), '#general');
      await messageRow(page, 'feed message 41').waitFor({ state: 'attached' });
      await eventually(async () => JSON.stringify(await topOfPane()) === JSON.stringify(before), 'the same place after a channel');
      assert.ok(newer > ids.at(-1)!);

      // Marked unread from the 38th at the bottom, then away and back: reading resumes (the three in view are read).
      await page.locator('.message-scroller').evaluate((sc: any) => (sc.scrollTop = sc.scrollHeight));
      await eventually(async () => (await readAtServer()).every(Boolean), 'the bottom read');
      await markFrom('feed message 38');
      await awayAndBack(views.getByRole('link', { name: /^Inbox/ }), 'Inbox');
      await eventually(async () => (await readAtServer()).every(Boolean), 'all read on coming back');
      await banner.waitFor({ state: 'detached' });

      // With the inbox as the home view, All messages is a list like any other: opened anew (at its newest, nothing unread), and read on coming back.
      assertSuccess(await bobApi.request('PATCH', '/settings', { web_home_view: 'inbox' }));
      await eventually(async () => (await views.locator('a.side-item .label').first().innerText()) === 'Inbox', 'the inbox the home view in the page');
      await feedLink.click();
      await page.getByRole('heading', { name: 'All messages', exact: true }).waitFor();
      await messageRow(page, 'feed message 12').evaluate((el: any) => el.scrollIntoView({ block: 'start' }));
      await eventually(async () => (await topOfPane())?.text === 'feed message 12', 'the twelfth at the top');
      await awayAndBack(views.getByRole('link', { name: /^Inbox/ }), 'Inbox');
      await eventually(async () => (await topOfPane())?.text !== 'feed message 12' && (await page.locator('.message-scroller').evaluate((sc: any) => sc.scrollHeight - sc.scrollTop - sc.clientHeight < 40)), 'at the newest');
      await page.locator('.message-scroller').evaluate((sc: any) => (sc.scrollTop = sc.scrollHeight));
      await markFrom('feed message 38');
      await awayAndBack(views.getByRole('link', { name: /^Inbox/ }), 'Inbox');
      await eventually(async () => (await readAtServer()).every(Boolean), 'all read on coming back');
      await ctx.close();
    }));

  test('All messages kept while another list is shown is opened anew after the event queue was lost, with what was sent meanwhile', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Away' });
      const bobApi = t.client(bob);
      await sendTo(owner, 'general', 'kept', 'before the restart');
      assertSuccess(await bobApi.request('PATCH', '/settings', { web_home_view: 'all_messages' }));
      const ctx = await newContext();
      // Registrations wait while `gate` is set: the page registers again only once the test lets it.
      let registrations = 0;
      let gate: Promise<void> | null = null;
      let open = () => {};
      await ctx.route('**/json/register', async (route) => {
        if (gate) await gate;
        registrations++;
        await route.continue();
      });
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      await messageRow(page, 'before the restart').waitFor();
      const views = page.getByRole('navigation', { name: 'Views' });
      // Another list in view (a channel): All messages is kept aside, not the list refreshed after the queue comes back.
      await channelLink(page, 'general').click();
      await page.getByRole('heading', { name: '#general', exact: true }).waitFor();
      const before = registrations;

      gate = new Promise<void>((r) => (open = r));
      await t.restart();
      // Sent while the page has no event queue: it can only learn of it by fetching.
      await sendTo(owner, 'general', 'kept', 'sent while the queue was gone');
      gate = null;
      open();
      await eventually(async () => registrations > before, 'registered again');
      await views.getByRole('link', { name: /^All messages/ }).click();
      await messageRow(page, 'sent while the queue was gone').waitFor();
      await messageRow(page, 'before the restart').waitFor();
      await ctx.close();
    }));

  test('an edit in progress in All messages as the home view is still open, with its text, on coming back from another view (Zulip\u2019s keeps it); saved from there', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Editor' });
      const bobApi = t.client(bob);
      const id = await sendTo(bobApi, 'general', 'drafts', 'the first wording');
      assertSuccess(await bobApi.request('PATCH', '/settings', { web_home_view: 'all_messages' }));
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      await page.getByRole('heading', { name: 'All messages', exact: true }).waitFor();
      await messageRow(page, 'the first wording').waitFor();
      const row = page.locator(`article.message-row[data-id="${id}"]`);
      await row.hover();
      await row.getByRole('button', { name: 'Edit', exact: true }).click();
      await row.getByRole('textbox').fill('a better wording, half typed');
      const views = page.getByRole('navigation', { name: 'Views' });
      await views.getByRole('link', { name: /^Inbox/ }).click();
      await page.getByRole('heading', { name: 'Inbox', exact: true }).waitFor();
      await views.getByRole('link', { name: /^All messages/ }).click();
      await page.getByRole('heading', { name: 'All messages', exact: true }).waitFor();
      const box = row.getByRole('textbox');
      await box.waitFor();
      assert.equal(await box.inputValue(), 'a better wording, half typed');
      await row.getByRole('button', { name: 'Save' }).click();
      await eventually(async () => (assertSuccess(await bobApi.get(`/messages/${id}`, { apply_markdown: false })).message.content as string) === 'a better wording, half typed', 'the edit saved');
      await ctx.close();
    }));

  test('the edit box has the compose box\u2019s emoji picker, formatting buttons and preview (Zulip\u2019s edit form): an emoji put at the caret, bold around the selection, the text shown as it will be, back to the text, saved', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Editor' });
      const bobApi = t.client(bob);
      const id = await sendTo(bobApi, 'general', 'tools', 'ship it');
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      await (await channelLink(page, 'general')).click();
      const row = page.locator(`article.message-row[data-id="${id}"]`);
      await row.hover();
      await row.getByRole('button', { name: 'Edit', exact: true }).click();
      const box = row.getByLabel('Edit content');
      await box.press('End');
      await row.getByRole('button', { name: 'Insert emoji' }).click();
      const picker = page.getByRole('dialog', { name: 'Choose an emoji' });
      await picker.getByLabel('Emoji name').fill('octopus');
      await picker.getByRole('button', { name: 'octopus', exact: true }).click();
      assert.equal(await box.inputValue(), 'ship it :octopus: ');
      await box.press('End');
      await page.keyboard.type('now');
      // The formatting buttons: Bold around the selection.
      await box.evaluate((el) => (el as unknown as { setSelectionRange(a: number, b: number): void }).setSelectionRange(18, 21));
      await row.getByRole('button', { name: 'Formatting' }).click();
      await row.getByRole('toolbar', { name: 'Formatting' }).getByRole('button', { name: 'Bold' }).click();
      assert.equal(await box.inputValue(), 'ship it :octopus: **now**');
      // The preview: the server's rendering in place of the text, the emoji and the bold in it.
      await row.getByRole('button', { name: 'Preview', exact: true }).click();
      const preview = row.getByLabel('Preview of the edit');
      await preview.locator('strong', { hasText: 'now' }).waitFor();
      await preview.locator('.emoji.emoji-1f419').waitFor({ state: 'attached' });
      assert.equal(await box.isVisible(), false);
      await row.getByRole('button', { name: 'Exit preview' }).click();
      await box.waitFor();
      assert.equal(await preview.count(), 0);
      await row.getByRole('button', { name: 'Save' }).click();
      await eventually(async () => (assertSuccess(await bobApi.get(`/messages/${id}`, { apply_markdown: false })).message.content as string) === 'ship it :octopus: **now**', 'the edit saved');
      await ctx.close();
    }));

  test('an edit that leaves one\u2019s uploaded files in no message offers to delete them (Zulip\u2019s): "Don\u2019t delete" keeps them, "Delete" deletes them at the server', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Files' });
      const bobApi = t.client(bob);
      const one = (await postPng(t.url, bob, '/user_uploads', 'one.png')).url as string;
      const two = (await postPng(t.url, bob, '/user_uploads', 'two.png')).url as string;
      await sendTo(bobApi, 'general', 'files', `files [one](${one}) and [two](${two})`);
      const filesAtServer = async () => (assertSuccess(await bobApi.get('/attachments')).attachments as Array<{ name: string }>).map((a) => a.name).sort();

      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      await goToHash(page, '#feed');
      const edit = async (content: string) => {
        const row = messageRow(page, 'files');
        await row.hover();
        await row.getByRole('button', { name: 'Edit', exact: true }).click();
        await row.getByRole('textbox').fill(content);
        await row.getByRole('button', { name: 'Save' }).click();
      };
      const dialog = page.getByRole('dialog', { name: 'Delete uploaded files?' });
      const listed = () => dialog.getByRole('list', { name: 'Files no longer attached' }).getByRole('listitem').allInnerTexts();

      await edit(`files [two](${two}) only`);
      await dialog.waitFor();
      assert.deepEqual(await listed(), ['one.png']);
      await dialog.getByText("They can still be accessed from this message's edit history.", { exact: false }).waitFor();
      await dialog.getByRole('button', { name: "Don't delete" }).click();
      await dialog.waitFor({ state: 'detached' });
      assert.deepEqual(await filesAtServer(), ['one.png', 'two.png']);

      await edit('files none');
      await dialog.waitFor();
      assert.deepEqual(await listed(), ['two.png']);
      await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
      await dialog.waitFor({ state: 'detached' });
      assert.deepEqual(await filesAtServer(), ['one.png']);
      // An edit that detaches nothing asks nothing.
      await edit('files still none');
      await eventually(async () => (await messageRow(page, 'files still none').count()) === 1, 'the edit shown');
      assert.equal(await dialog.count(), 0);
      await ctx.close();
    }));

  test('a link whose message has moved since follows it (Zulip\u2019s): a topic link in a message, a "with" and a "near" link, and a "with" link to a direct message', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Mover' });
      const bobApi = t.client(bob);
      const generalId = await streamIdOf(owner, 'general');
      const moved = await sendTo(bobApi, 'general', 'old name', 'the message that moves');
      // Rendered now, the topic link points at the topic's latest message ("with").
      await sendTo(owner, 'general', 'elsewhere', 'see #**general>old name**');
      assertSuccess(await owner.request('PATCH', `/messages/${moved}`, { topic: 'new name', propagate_mode: 'change_all' }));
      const dm = assertSuccess(await bobApi.post('/messages', { type: 'private', to: JSON.stringify([t.owner.id]), content: 'a direct word' })).id as number;

      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const hash = () => page.evaluate(() => (globalThis as any).location.hash as string);
      const heading = (name: string) => page.getByRole('heading', { name, exact: true }).waitFor();
      await messageRow(page, 'see #general > old name').getByRole('link', { name: '#general > old name' }).click();
      await heading('#general \u203a new name');
      await messageRow(page, 'the message that moves').waitFor();
      await eventually(async () => (await hash()) === `#narrow/channel/${generalId}/topic/new.20name/with/${moved}`, 'the address of where it is');

      await page.evaluate((h) => ((globalThis as any).location.hash = h), `#narrow/channel/${generalId}-general/topic/old.20name/near/${moved}`);
      await eventually(async () => (await hash()) === `#narrow/channel/${generalId}/topic/new.20name/near/${moved}`, 'a near link followed');
      await heading('#general \u203a new name');

      // A "with" link is to the message's conversation, whatever the link's terms: here a direct message's.
      await page.evaluate((h) => ((globalThis as any).location.hash = h), `#narrow/channel/${generalId}-general/topic/old.20name/with/${dm}`);
      await eventually(async () => (await hash()) === `#narrow/dm/${bob.id}/with/${dm}`, 'the direct-message conversation');
      await messageRow(page, 'a direct word').waitFor();

      // A link to a message one cannot read opens as it is.
      await page.evaluate((h) => ((globalThis as any).location.hash = h), `#narrow/channel/${generalId}-general/topic/old.20name/with/999999`);
      await heading('#general \u203a old name');
      await ctx.close();
    }));

  test('copy link to message: "Copied", and the link opens the conversation at that message in another page, for a channel and a direct message', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Linker' });
      const carol = await t.makeUser({ password: PASSWORD, name: 'Carol Opener' });
      const generalId = await streamIdOf(owner, 'general');
      const target = await sendTo(owner, 'general', 'long talk', 'the message to link');
      const dm = assertSuccess(await t.client(bob).post('/messages', { type: 'private', to: JSON.stringify([carol.id]), content: 'a private word to link' })).id as number;

      const ctx = await newContext();
      await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      const copyLink = async (text: string): Promise<string> => {
        const row = messageRow(page, text);
        await row.waitFor();
        await (await moreActions(page, row)).getByRole('menuitem', { name: 'Copy link to message' }).click();
        await row.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
        return page.evaluate(() => (globalThis as any).navigator.clipboard.readText());
      };
      const link = await copyLink('the message to link');
      assert.equal(link, `${t.url}/#narrow/channel/${generalId}-general/topic/long.20talk/near/${target}`);
      const dmLink = await copyLink('a private word to link');
      const pair = [bob.id, carol.id].sort((a, b) => a - b).join(',');
      assert.equal(dmLink, `${t.url}/#narrow/dm/${pair}-dm/near/${dm}`);

      // After the linked message, more than a page of newer ones: only a list opened at it shows it.
      for (let i = 1; i <= 120; i++) await sendTo(owner, 'general', 'long talk', `later message ${i}`);

      const ctx2 = await newContext();
      const other = await loginPage(ctx2, t.url, carol.email, PASSWORD);
      await other.goto(link);
      await other.getByRole('heading', { name: '#general \u203a long talk' }).waitFor();
      const linked = messageRow(other, 'the message to link');
      await linked.waitFor();
      // In view, in the middle of the list.
      const inView = async (row: Locator) => {
        const box = await row.boundingBox();
        const pane = await other.getByRole('log', { name: 'History' }).boundingBox();
        return !!box && !!pane && box.y >= pane.y && box.y + box.height <= pane.y + pane.height;
      };
      await eventually(() => inView(linked), 'the linked message in view');
      // Scrolling down brings the newer messages.
      await eventually(async () => {
        await other.getByRole('log', { name: 'History' }).evaluate((el) => (el.scrollTop = el.scrollHeight));
        return (await messageRow(other, 'later message 120').count()) === 1;
      }, 'the newest message after scrolling down');

      await other.goto(dmLink);
      await other.getByRole('heading', { name: 'Bob Linker' }).waitFor();
      await eventually(() => inView(messageRow(other, 'a private word to link')), 'the linked direct message in view');
      await ctx.close();
      await ctx2.close();
    }));
  test('edit and delete are offered as the server allows them (Zulip\u2019s): not for one\u2019s poll\u2019s content; Delete follows the organization\u2019s and a channel\u2019s delete groups, live, and the server agrees', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bobUser = await t.makeUser({ password: PASSWORD, name: 'Bob Deleter' });
      const bob = t.client(bobUser);
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'elsewhere' }]), principals: JSON.stringify([t.owner.id, bobUser.id]) }));
      await sendTo(owner, 'general', 'perm', 'the owner words');
      await sendTo(owner, 'elsewhere', 'perm', 'the owner elsewhere');
      const poll = await sendTo(bob, 'general', 'perm', '/poll Lunch?\nPizza\nSoup');
      await sendTo(bob, 'general', 'perm', 'my plain words');
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bobUser.email, PASSWORD);
      await goToHash(page, '#narrow/channel/general');
      /** The names of a message's action buttons that edit or delete it. */
      const offered = async (row: Locator) => {
        await row.hover();
        const names: string[] = [];
        for (const name of ['Edit', 'Delete']) if ((await row.getByRole('button', { name, exact: true }).count()) > 0) names.push(name);
        return names;
      };
      const plain = messageRow(page, 'my plain words');
      const pollRow = page.locator('article.message-row', { hasText: 'Lunch?' });
      const theirs = messageRow(page, 'the owner words');
      await plain.waitFor();
      assert.deepEqual(await offered(plain), ['Edit', 'Delete']);
      assert.deepEqual(await offered(pollRow), ['Delete']);
      assert.deepEqual(await offered(theirs), []);
      // The server says the same of the poll's content.
      assertError(await bob.patch(`/messages/${poll}`, { content: 'Dinner?' }), 400, 'BAD_REQUEST', 'Widgets cannot be edited.');
      // Deleting one's own messages left to administrators: Delete goes from his own.
      const groups = assertSuccess(await owner.get('/user_groups')).user_groups as Array<{ id: number; name: string }>;
      const admins = groups.find((g) => g.name === 'role:administrators')!.id;
      assertSuccess(await owner.patch('/realm', { can_delete_own_message_group: JSON.stringify({ new: admins }) }));
      await eventually(async () => (await offered(plain)).join() === 'Edit', 'Delete gone from his own message');
      // A channel's can_delete_any_message_group that takes him in: Delete on anyone's message there, not elsewhere.
      const general = await streamIdOf(owner, 'general');
      assertSuccess(await owner.patch(`/streams/${general}`, { can_delete_any_message_group: JSON.stringify({ new: { direct_members: [bobUser.id], direct_subgroups: [] } }) }));
      await eventually(async () => (await offered(theirs)).join() === 'Delete', 'Delete on the owner\u2019s message in general');
      assert.deepEqual(await offered(plain), ['Edit', 'Delete']);
      await goToHash(page, '#narrow/channel/elsewhere');
      const away = messageRow(page, 'the owner elsewhere');
      await away.waitFor();
      assert.deepEqual(await offered(away), []);
      // And the server lets him.
      await goToHash(page, '#narrow/channel/general');
      await theirs.hover();
      await theirs.getByRole('button', { name: 'Delete', exact: true }).click();
      await theirs.getByRole('alertdialog', { name: 'Delete message?' }).getByRole('button', { name: 'Delete', exact: true }).click();
      await theirs.waitFor({ state: 'detached' });
      const left = assertSuccess(await owner.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'perm' }]) })).messages;
      assert.ok(!left.some((m: { content: string }) => m.content.includes('the owner words')));
      await ctx.close();
    }));

  test("view original message: someone else's message shows its Markdown (from its menu, or with e once selected); one's own editable message offers editing instead", () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = t.client(await t.makeUser({ password: PASSWORD, name: 'Bob Source' }));
      await sendTo(bob, 'general', 'source', 'Some **bold** words and a [link](https://example.com)');
      await sendTo(owner, 'general', 'source', 'my own words');
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const theirs = messageRow(page, 'Some bold words');
      await theirs.waitFor();
      assert.ok(!(await menuItems(page, messageRow(page, 'my own words'))).includes('View original message'));
      await (await moreActions(page, theirs)).getByRole('menuitem', { name: 'View original message' }).click();
      const dialog = page.getByRole('dialog', { name: 'Original message' });
      await eventually(async () => (await dialog.getByLabel('Markdown').textContent()) === 'Some **bold** words and a [link](https://example.com)', 'the Markdown shown');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      // With the keyboard: the lowest message (the owner's) edited, the one above shown.
      await page.locator('body').press('k');
      await page.locator('body').press('k');
      await page.locator('article.message-row[aria-current="true"]', { hasText: 'Some bold words' }).waitFor();
      await page.locator('body').press('e');
      await dialog.getByLabel('Markdown').waitFor();
      await ctx.close();
    }));

  test('copy code: a code block\u2019s button puts its code on the clipboard', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      await sendTo(owner, 'general', 'snippets', "Try this:\n```python\nprint('hi')\nx = 1\n```");
      const ctx = await newContext();
      await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const row = messageRow(page, 'Try this:');
      await row.hover();
      await row.getByRole('button', { name: 'Copy code' }).click();
      await row.getByRole('button', { name: 'Copied' }).waitFor();
      assert.equal((await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).trimEnd(), "print('hi')\nx = 1");
      await ctx.close();
    }));
  test('move message: one message, or it and the later ones, to another topic or channel as the server has them, the view following; offered as the organization allows; the server\u2019s refusal shown', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Mover' });
      const bobApi = t.client(bob);
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'archive' }, { name: 'general' }]), principals: JSON.stringify([bob.id, t.owner.id]) }));
      const generalId = await streamIdOf(owner, 'general');
      const archiveId = await streamIdOf(owner, 'archive');
      const first = await sendTo(bobApi, 'general', 'plans', 'first plan');
      const second = await sendTo(owner, 'general', 'plans', 'second plan');
      const third = await sendTo(bobApi, 'general', 'plans', 'third plan');
      await sendTo(owner, 'archive', 'decisions', 'what we decided');
      const where = async (id: number) => {
        const m = assertSuccess(await owner.get(`/messages/${id}`)).message;
        return `${m.stream_id}/${m.subject}`;
      };
      const topicMessages = async (streamId: number, topic: string) =>
        (assertSuccess(await owner.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: streamId }, { operator: 'topic', operand: topic }]) })).messages as Array<Record<string, any>>).map((m) => m.content as string);

      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await (await channelLink(page, 'general')).click();
      await page.getByRole('list', { name: 'In general' }).getByRole('link', { name: /^plans/ }).click();
      await messageRow(page, 'third plan').waitFor();

      // The second message and the later ones to a new topic: they leave the view; Notification Bot tells the new topic.
      let menu = await moreActions(page, messageRow(page, 'second plan'));
      await menu.getByRole('menuitem', { name: 'Move message' }).click();
      let form = page.getByRole('form', { name: 'Move this message' });
      assert.equal(await form.getByLabel('To channel').inputValue(), String(generalId));
      assert.equal(await form.getByLabel('Topic', { exact: true }).inputValue(), 'plans');
      await form.getByLabel('Topic', { exact: true }).fill('later plans');
      await form.getByLabel('Move', { exact: true }).selectOption({ label: 'This and later messages' });
      await form.getByRole('button', { name: 'Move', exact: true }).click();
      await eventually(async () => (await where(third)) === `${generalId}/later plans`, 'the later messages moved at the server');
      assert.equal(await where(second), `${generalId}/later plans`);
      assert.equal(await where(first), `${generalId}/plans`);
      await eventually(async () => (await messageRow(page, 'second plan').count()) === 0 && (await messageRow(page, 'third plan').count()) === 0, 'the moved messages gone from the view');
      await messageRow(page, 'first plan').waitFor();
      const told = await topicMessages(generalId, 'later plans');
      assert.equal(told.length, 3, told.join(' | '));

      // One message to another channel's topic, picked from that channel's topics as one types (what is typed first, as Zulip's), without telling anyone.
      menu = await moreActions(page, messageRow(page, 'first plan'));
      await menu.getByRole('menuitem', { name: 'Move message' }).click();
      form = page.getByRole('form', { name: 'Move this message' });
      await form.getByLabel('To channel').selectOption({ label: '#archive' });
      const topicField = form.getByLabel('Topic', { exact: true });
      await topicField.fill('');
      await topicField.pressSequentially('dec');
      const topics = page.getByRole('listbox', { name: 'Topics' });
      await eventually(async () => (await topics.count()) > 0 && (await topics.getByRole('option').allTextContents()).join('|') === 'dec|decisions', 'the channel\u2019s topics offered');
      await topicField.press('ArrowDown');
      await topicField.press('Enter');
      await topics.waitFor({ state: 'detached' });
      assert.equal(await topicField.inputValue(), 'decisions');
      assert.equal(await form.count(), 1, 'Enter picked the topic; nothing moved yet');
      await form.getByLabel('Tell the new topic').uncheck();
      await form.getByRole('button', { name: 'Move', exact: true }).click();
      await eventually(async () => (await where(first)) === `${archiveId}/decisions`, 'moved to archive at the server');
      assert.deepEqual(await topicMessages(archiveId, 'decisions'), ['<p>first plan</p>', '<p>what we decided</p>']);

      // Bob, who may move between topics but (now) not between channels: only his channel is offered (Zulip's picker too).
      const groups = assertSuccess(await owner.get('/user_groups')).user_groups as Array<Record<string, any>>;
      const nobody = groups.find((g) => g.name === 'role:nobody')!.id as number;
      assertSuccess(await owner.request('PATCH', '/realm', { can_move_messages_between_channels_group: JSON.stringify({ new: nobody }) }));
      const bobCtx = await newContext();
      const bobPage = await loginPage(bobCtx, t.url, bob.email, PASSWORD);
      await (await channelLink(bobPage, 'general')).click();
      const bobRow = messageRow(bobPage, 'third plan');
      await bobRow.waitFor();
      menu = await moreActions(bobPage, bobRow);
      await menu.getByRole('menuitem', { name: 'Move message' }).click();
      form = bobPage.getByRole('form', { name: 'Move this message' });
      assert.deepEqual((await form.getByLabel('To channel').locator('option').allTextContents()).map((x) => x.trim()), ['#general']);
      await form.getByLabel('Topic', { exact: true }).fill('bob plans');
      // Moving between topics taken away while the form is open: the topic fixed, and the server's refusal shown.
      assertSuccess(await owner.request('PATCH', '/realm', { can_move_messages_between_topics_group: JSON.stringify({ new: nobody }) }));
      await eventually(() => form.getByLabel('Topic', { exact: true }).isDisabled(), 'the topic fixed');
      await form.getByRole('button', { name: 'Move', exact: true }).click();
      await form.getByRole('alert').waitFor();
      assert.equal(await where(third), `${generalId}/later plans`);
      await form.getByRole('button', { name: 'Cancel' }).click();
      await eventually(async () => !(await menuItems(bobPage, bobRow)).includes('Move message'), 'no move offered once neither is allowed');
      await bobCtx.close();
      await ctx.close();
    }));
  test('report message: offered once an administrator picks a private moderation channel in Settings (the server has it); a member reports another’s message, and the moderation channel gets the report', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bobAccount = await t.makeUser({ password: PASSWORD, name: 'Bob Reporter' });
      const carol = t.client(await t.makeUser({ name: 'Carol Spammer' }));
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'mods' }]), invite_only: true }));
      const modsId = await streamIdOf(owner, 'mods');
      await sendTo(carol, 'general', 'deals', 'Buy cheap watches here');
      await sendTo(t.client(bobAccount), 'general', 'deals', 'Not interested');
      const bob = await loginPage(await newContext(), t.url, bobAccount.email, PASSWORD);
      const spam = messageRow(bob, 'Buy cheap watches here');
      await spam.waitFor();
      assert.ok(!(await menuItems(bob, spam)).includes('Report message'), 'no reports without a moderation channel');

      // The owner picks the moderation channel (only private channels are offered).
      const ownerPage = await loginPage(await newContext(), t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const moderation = (await openSettings(ownerPage)).getByLabel('Moderation requests (reported messages)');
      const offered = await moderation.locator('option').allTextContents();
      assert.ok(offered.includes('#mods') && !offered.includes('#general'), offered.join(', '));
      await moderation.selectOption({ label: '#mods' });
      await eventually(async () => assertSuccess(await owner.post('/register', { fetch_event_types: JSON.stringify(['realm']) })).realm_moderation_request_channel_id === modsId, 'the moderation channel at the server');

      // Bob reports Carol's message (not his own).
      await eventually(async () => (await menuItems(bob, spam)).includes('Report message'), 'the report item offered');
      assert.ok(!(await menuItems(bob, messageRow(bob, 'Not interested'))).includes('Report message'), 'not for one\u2019s own message');
      await (await moreActions(bob, spam)).getByRole('menuitem', { name: 'Report message' }).click();
      const form = spam.getByRole('form', { name: 'Report this message' });
      await form.getByLabel('Reason').selectOption({ label: 'Spam' });
      await form.getByLabel('Details').fill('Posted in every channel');
      await form.getByRole('button', { name: 'Send report' }).click();
      await spam.getByRole('status').filter({ hasText: 'Your report was sent to the moderators.' }).waitFor();
      const newest = assertSuccess(await owner.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: false, narrow: JSON.stringify([{ operator: 'channel', operand: modsId }]) })).messages[0];
      assert.match(newest.content, /\*\*Spam\*\*\. Posted in every channel/);
      assert.match(newest.content, /Buy cheap watches here/);
    }));
});
