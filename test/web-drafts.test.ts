/**
 * Drafts in the web client, in real Chromium: what is written in the compose
 * box is saved as a draft at the server (created, then changed), comes back
 * in the box on returning to the conversation and after a reload, and goes
 * when the message is sent or scheduled, or the box emptied; the Drafts list (newest first) restores and
 * deletes drafts, shows the ones made elsewhere live and the server's
 * refusal; with synchronization off, drafts stay in the browser. Saved
 * snippets: made from the compose box's text, found by title, put where the
 * caret is, edited, deleted; ones made elsewhere show. Skipped (with one line saying
 * why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD, type Client, streamIdOf } from './helpers.ts';
import { browserTests, channelLink, eventGate, eventually, loginPage, loginToView, PASSWORD, withWebServer, openSettings } from './web-browser.ts';

/** The user's drafts as the server has them. */
async function draftsAtServer(api: Client): Promise<Array<Record<string, any>>> {
  return assertSuccess(await api.get('/drafts')).drafts as Array<Record<string, any>>;
}

await browserTests('the web client in Chromium: drafts', (newContext) => {
  test('the compose box is saved as a draft, restored on return and after a reload, deleted on sending, scheduling or emptying; the Drafts list restores, deletes and shows drafts made elsewhere', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Drafts' });
      const generalId = await streamIdOf(owner, 'general');
      const coreId = await streamIdOf(owner, 'core team');
      assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'plans', content: 'kickoff' }));
      assertSuccess(await owner.request('POST', '/messages', { type: 'direct', to: JSON.stringify([bob.id]), content: 'hello Bob' }));
      const ctx = await newContext();
      const gate = await eventGate(ctx);
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const box = page.getByLabel('Message', { exact: true });
      const compose = page.getByRole('region', { name: 'Compose' });
      const openTopic = async () => {
        await (await channelLink(page, 'general')).click();
        await page.getByRole('list', { name: 'In general' }).getByRole('link', { name: /^plans/ }).click();
        await page.getByRole('heading', { name: /plans/ }).waitFor();
      };

      // Written in a topic, then elsewhere: the box empties, the server has the draft.
      await openTopic();
      await box.fill('half a thought');
      await (await channelLink(page, 'core team')).click();
      await page.getByRole('heading', { name: '#core team' }).waitFor();
      await eventually(async () => (await box.inputValue()) === '', 'the box to empty in another channel');
      await eventually(async () => (await draftsAtServer(owner)).length === 1, 'the draft at the server');
      const [saved] = await draftsAtServer(owner);
      assert.equal(saved!.type, 'stream');
      assert.deepEqual(saved!.to, [generalId]);
      assert.equal(saved!.topic, 'plans');
      assert.equal(saved!.content, 'half a thought');

      // Back in the topic: the text is in the box; more typing changes the same draft.
      await openTopic();
      await eventually(async () => (await box.inputValue()) === 'half a thought', 'the draft back in the box');
      await box.fill('a whole thought');
      await eventually(async () => (await draftsAtServer(owner))[0]?.content === 'a whole thought', 'the draft changed at the server');
      assert.deepEqual((await draftsAtServer(owner)).map((d) => d.id), [saved!.id]);

      // A reload: the text is back in the box.
      await page.reload();
      await page.getByRole('log', { name: 'History' }).waitFor();
      await eventually(async () => (await box.inputValue()) === 'a whole thought', 'the draft in the box after a reload');

      // Sent: the message is there and the draft is gone at the server.
      await box.press('Enter');
      await eventually(async () => (await draftsAtServer(owner)).length === 0, 'the draft deleted after sending');
      const sent = assertSuccess(await owner.request('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: generalId }]) }));
      assert.equal(sent.messages[0].content, '<p>a whole thought</p>');

      // Scheduled ("Send later", for the next hour it offers): the draft is gone too.
      await box.fill('for later');
      await eventually(async () => (await draftsAtServer(owner))[0]?.content === 'for later', 'the next draft at the server');
      await compose.getByRole('button', { name: 'Send later' }).click();
      await compose.getByRole('form', { name: 'Send later' }).getByRole('button', { name: 'Schedule' }).click();
      await eventually(async () => (await draftsAtServer(owner)).length === 0, 'the draft deleted after scheduling');
      const scheduled = assertSuccess(await owner.get('/scheduled_messages')).scheduled_messages as Array<Record<string, any>>;
      assert.deepEqual(scheduled.map((m) => m.content), ['for later']);

      // Emptied: the draft is deleted.
      await box.fill('never mind');
      await eventually(async () => (await draftsAtServer(owner)).length === 1, 'a draft again');
      await box.fill('');
      await eventually(async () => (await draftsAtServer(owner)).length === 0, 'the emptied draft deleted');

      // A direct message's draft.
      await page.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: /Bob Drafts/ }).click();
      // (Typed once the conversation is in view: text typed before is the previous conversation's.)
      await page.getByRole('heading', { name: 'Bob Drafts', exact: true }).waitFor();
      await box.fill('psst');
      await (await channelLink(page, 'general')).click();
      await eventually(async () => (await draftsAtServer(owner)).length === 1, 'the direct-message draft at the server');
      const [dm] = await draftsAtServer(owner);
      assert.equal(dm!.type, 'private');
      assert.deepEqual(dm!.to, [bob.id]);
      assert.equal(dm!.content, 'psst');

      // The list: a draft made through the API shows live, newest first; a change to it too.
      await compose.getByText(/^Drafts \(\d+\)$/).click();
      const list = compose.getByRole('list', { name: 'Drafts' });
      await eventually(async () => (await list.getByRole('listitem').count()) === 1, 'the direct-message draft listed');
      const made = assertSuccess(
        await owner.post('/drafts', { drafts: JSON.stringify([{ type: 'stream', to: [coreId], topic: 'from afar', content: 'made elsewhere', timestamp: Math.floor(Date.now() / 1000) + 5 }]) }),
      ).ids[0] as number;
      await eventually(async () => (await list.getByRole('listitem').count()) === 2, 'the draft made elsewhere listed');
      let rows = await list.getByRole('listitem').allTextContents();
      assert.ok(rows[0]!.includes('#core team \u203a from afar') && rows[0]!.includes('made elsewhere'), rows[0]);
      assert.ok(rows[1]!.includes('Bob Drafts') && rows[1]!.includes('psst'), rows[1]);
      await compose.getByText('Drafts (2)').waitFor();
      assertSuccess(await owner.patch(`/drafts/${made}`, { draft: JSON.stringify({ type: 'stream', to: [coreId], topic: 'from afar', content: 'changed elsewhere', timestamp: Math.floor(Date.now() / 1000) + 6 }) }));
      await list.getByRole('listitem').filter({ hasText: 'changed elsewhere' }).waitFor();

      // Deleted elsewhere while this page has not heard: the server's refusal shows; then it goes from the list.
      gate.hold();
      assertSuccess(await owner.delete(`/drafts/${made}`));
      await list.getByRole('listitem').filter({ hasText: 'changed elsewhere' }).getByRole('button', { name: 'Delete' }).click();
      await compose.getByRole('alert').filter({ hasText: 'Draft does not exist' }).waitFor();
      gate.release();
      await eventually(async () => (await list.getByRole('listitem').count()) === 1, 'the deleted draft gone from the list');

      // Deleted from the list: gone at the server.
      const other = assertSuccess(await owner.post('/drafts', { drafts: JSON.stringify([{ type: 'stream', to: [generalId], topic: 'scrap', content: 'to be deleted' }]) })).ids[0] as number;
      await list.getByRole('listitem').filter({ hasText: 'to be deleted' }).getByRole('button', { name: 'Delete' }).click();
      await eventually(async () => (await list.getByRole('listitem').count()) === 1, 'the draft deleted from the list');
      assert.ok(!(await draftsAtServer(owner)).some((d) => d.id === other));

      // Restored: the conversation in view, the text in the box; sent, the draft is gone.
      await list.getByRole('listitem').filter({ hasText: 'psst' }).getByRole('button', { name: 'Restore' }).click();
      await eventually(async () => (await box.inputValue()) === 'psst', 'the restored draft in the box');
      await eventually(async () => (await page.evaluate(() => (globalThis as any).location.hash)) === `#narrow/dm/${bob.id}`, 'the conversation in view');
      await compose.getByRole('button', { name: 'Send', exact: true }).click();
      await eventually(async () => (await draftsAtServer(owner)).length === 0, 'the restored draft deleted after sending');
      await compose.getByText('Drafts (0)').waitFor();
      await ctx.close();
    }));

  test('Drafts, Scheduled messages and Reminders in the sidebar (Zulip\u2019s #drafts, #scheduled, #reminders) open their lists over the view; a draft restored from there, the home view under it, goes to its conversation and into the box; d opens Drafts', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const generalId = await streamIdOf(owner, 'general');
      assertSuccess(await owner.post('/drafts', { drafts: JSON.stringify([{ type: 'stream', to: [generalId], topic: 'later', content: 'a draft for later' }]) }));
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '');
      const views = page.getByRole('navigation', { name: 'Views' });
      await page.getByRole('heading', { name: 'Inbox', exact: true }).waitFor();
      // No scheduled messages or reminders: not listed.
      assert.equal(await views.getByRole('link', { name: /^Scheduled messages/ }).count(), 0);
      assert.equal(await views.getByRole('link', { name: /^Reminders/ }).count(), 0);
      await views.getByRole('link', { name: /^Drafts/ }).getByLabel('1 drafts').waitFor();
      await views.getByRole('link', { name: /^Drafts/ }).click();
      const dialog = page.getByRole('dialog', { name: 'Drafts' });
      const item = dialog.getByRole('list', { name: 'Drafts' }).getByRole('listitem');
      await item.filter({ hasText: 'a draft for later' }).getByRole('button', { name: 'Restore' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('heading', { name: '#general \u203a later' }).waitFor();
      await eventually(async () => (await page.getByLabel('Message', { exact: true }).inputValue()) === 'a draft for later', 'the draft in the box');
      assert.equal(await page.getByLabel('Topic', { exact: true }).inputValue(), 'later');
      // d opens them; Escape closes them, back to the view.
      await page.getByLabel('Message', { exact: true }).press('Escape');
      await page.keyboard.press('d');
      await dialog.waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('heading', { name: '#general \u203a later' }).waitFor();

      // A scheduled message: listed in the sidebar; its address opens its list.
      assertSuccess(await owner.post('/scheduled_messages', { type: 'stream', to: JSON.stringify(generalId), topic: 'soon', content: 'a message for tomorrow', scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 86400 }));
      await views.getByRole('link', { name: /^Scheduled messages/ }).getByLabel('1 scheduled').waitFor();
      await page.goto(`${t.url}/#scheduled`);
      const scheduled = page.getByRole('dialog', { name: 'Scheduled messages' });
      await scheduled.getByRole('list', { name: 'Scheduled messages' }).getByText('a message for tomorrow').waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('heading', { name: '#general \u203a later' }).waitFor();
      // Opened at that address: the home view under it.
      const fresh = await ctx.newPage();
      await fresh.goto(`${t.url}/#scheduled`);
      await fresh.getByRole('dialog', { name: 'Scheduled messages' }).getByText('a message for tomorrow').waitFor();
      await fresh.getByRole('heading', { name: 'Inbox', exact: true }).waitFor();
      // A reminder: listed in the sidebar, its list opened from there.
      const msg = assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'later', content: 'remind me of this' })).id as number;
      assertSuccess(await owner.post('/reminders', { message_id: msg, scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 86400 }));
      const freshViews = fresh.getByRole('navigation', { name: 'Views' });
      await freshViews.getByRole('link', { name: /^Reminders/ }).getByLabel('1 reminders').waitFor();
      await fresh.keyboard.press('Escape');
      await fresh.getByRole('dialog', { name: 'Scheduled messages' }).waitFor({ state: 'detached' });
      await freshViews.getByRole('link', { name: /^Reminders/ }).click();
      await fresh.getByRole('dialog', { name: 'Reminders' }).getByRole('list', { name: 'Reminders' }).getByRole('listitem').waitFor();
      await ctx.close();
    }));
  test('with synchronizing drafts off (in Settings), drafts are kept in the browser and the list says so', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'local', content: 'kickoff' }));
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const box = page.getByLabel('Message', { exact: true });
      const compose = page.getByRole('region', { name: 'Compose' });

      await openSettings(page);
      await page.getByRole('checkbox', { name: /Keep my drafts at the server/ }).uncheck();
      // The server refuses drafts now, saying why.
      await eventually(async () => (await owner.get('/drafts')).body.msg === 'User has disabled synchronizing drafts.', 'the setting off at the server');
      await page.keyboard.press('Escape');

      await (await channelLink(page, 'general')).click();
      await page.getByRole('list', { name: 'In general' }).getByRole('link', { name: /^local/ }).click();
      await page.getByRole('heading', { name: /local/ }).waitFor();
      await box.fill('only here');
      await (await channelLink(page, 'core team')).click();
      await eventually(async () => (await box.inputValue()) === '', 'the box to empty in another channel');
      await compose.getByText('Drafts (1)').click();
      await compose.getByText('Drafts are kept in this browser only', { exact: false }).waitFor();
      assert.match((await compose.getByRole('list', { name: 'Drafts' }).getByRole('listitem').textContent())!, /#general \u203a local.*only here/);

      // After a reload the browser still has it: back in the topic, the text is in the box.
      await page.reload();
      await page.getByRole('log', { name: 'History' }).waitFor();
      await (await channelLink(page, 'general')).click();
      await page.getByRole('list', { name: 'In general' }).getByRole('link', { name: /^local/ }).click();
      await eventually(async () => (await box.inputValue()) === 'only here', 'the browser draft back in the box');
      await box.press('Enter');
      await compose.getByText('Drafts (0)').waitFor();
      await ctx.close();
    }));
  test('turning synchronizing drafts off keeps the server\u2019s drafts in the browser, and turning it on again gives them back to the server', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const generalId = await streamIdOf(owner, 'general');
      assertSuccess(await owner.post('/drafts', { drafts: JSON.stringify([{ type: 'stream', to: [generalId], topic: 'moving', content: 'keep me', timestamp: Math.floor(Date.now() / 1000) }]) }));
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const compose = page.getByRole('region', { name: 'Compose' });
      await compose.getByText('Drafts (1)').click();
      const list = compose.getByRole('list', { name: 'Drafts' });
      // The draft in the box, where it is being written while the setting turns.
      await list.getByRole('listitem').filter({ hasText: 'keep me' }).getByRole('button', { name: 'Restore' }).click();
      const box = page.getByLabel('Message', { exact: true });
      await eventually(async () => (await box.inputValue()) === 'keep me', 'the restored draft in the box');
      const sync = page.getByRole('checkbox', { name: /Keep my drafts at the server/ });

      await openSettings(page);
      await sync.uncheck();
      await eventually(async () => (await owner.get('/drafts')).body.msg === 'User has disabled synchronizing drafts.', 'the setting off at the server');
      await page.keyboard.press('Escape');
      // Written on in the box: the browser's copy changes, no second draft.
      await box.fill('keep me, in the browser');
      // (The list stayed open.)
      await compose.getByText('Drafts are kept in this browser only', { exact: false }).waitFor();
      await eventually(async () => ((await list.getByRole('listitem').allTextContents()).join('|').match(/keep me, in the browser/g) ?? []).length === 1, 'the browser draft changed');
      assert.equal(await list.getByRole('listitem').count(), 1);
      assert.match((await list.getByRole('listitem').textContent())!, /#general \u203a moving.*keep me, in the browser/);

      await openSettings(page);
      await sync.check();
      await eventually(async () => {
        const r = await owner.get('/drafts');
        return r.body.result === 'success' && (r.body.drafts as Array<{ content: string }>).map((d) => d.content).join() === 'keep me, in the browser';
      }, 'the draft at the server again');
      await page.keyboard.press('Escape');
      // Written on again: the server's draft changes, still one.
      await box.fill('keep me, at the server');
      await eventually(async () => (await draftsAtServer(owner)).map((d) => d.content).join('|') === 'keep me, at the server', 'the server draft changed, and no second one');
      await compose.getByText('Drafts (1)').waitFor();
      assert.equal(await page.evaluate(() => Object.keys((globalThis as any).localStorage).filter((k) => k.startsWith('parley-drafts:')).map((k) => (globalThis as any).localStorage.getItem(k)).join()), '[]');
      await ctx.close();
    }));
  test('saved snippets: one saved from the compose box (the server has it), found by its title and put where the caret is; one made elsewhere shows; edited; deleted', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Snippets' });
      const bobApi = t.client(bob);
      const snippetsAtServer = async () => assertSuccess(await bobApi.get('/saved_snippets')).saved_snippets as Array<Record<string, any>>;
      const page = await loginPage(await newContext(), t.url, bob.email, PASSWORD);
      await (await channelLink(page, 'general')).click();
      const box = page.getByLabel('Message', { exact: true });
      const open = page.getByRole('button', { name: 'Snippets', exact: true });
      const picker = page.getByRole('dialog', { name: 'Saved snippets' });
      const list = picker.getByRole('list', { name: 'Your saved snippets' });

      // Saved from what the box holds, with a title.
      await box.fill('Thanks, we will look into it.');
      await open.click();
      await picker.getByText('No saved snippets yet.').waitFor();
      await picker.getByRole('button', { name: 'New saved snippet' }).click();
      assert.equal(await picker.getByLabel('Text').inputValue(), 'Thanks, we will look into it.');
      await picker.getByLabel('Title').fill('Ack');
      await picker.getByRole('button', { name: 'Save snippet' }).click();
      await list.getByRole('listitem', { name: 'Ack' }).waitFor();
      assert.deepEqual((await snippetsAtServer()).map((s) => [s.title, s.content]), [['Ack', 'Thanks, we will look into it.']]);

      // One made elsewhere shows; the filter finds it by title; Enter puts it where the caret is.
      assertSuccess(await bobApi.post('/saved_snippets', { title: 'Signature', content: '-- Bob' }));
      await list.getByRole('listitem', { name: 'Signature' }).waitFor();
      await page.keyboard.press('Escape');
      await eventually(async () => (await picker.count()) === 0, 'the snippets closed');
      await box.fill('Hello there');
      await box.evaluate((el) => {
        const area = el as unknown as { selectionStart: number; selectionEnd: number };
        area.selectionStart = area.selectionEnd = 5;
      });
      await open.click();
      await picker.getByLabel('Filter saved snippets').fill('sig');
      assert.deepEqual(await list.getByRole('listitem').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label'))), ['Signature']);
      await picker.getByLabel('Filter saved snippets').press('Enter');
      assert.equal(await box.inputValue(), 'Hello -- Bob there');
      // A click on one (the picker opened by Ctrl+', Zulip's key for it).
      await box.press('End');
      await box.press("Control+'");
      await list.getByRole('listitem', { name: 'Ack' }).getByRole('button', { name: /^Ack/ }).click();
      assert.equal(await box.inputValue(), 'Hello -- Bob there Thanks, we will look into it. ');

      // Edited: the server has the new title and text.
      await open.click();
      await list.getByRole('button', { name: 'Edit saved snippet Signature' }).click();
      const editForm = picker.getByRole('form', { name: 'Edit saved snippet' });
      assert.equal(await editForm.getByLabel('Text').inputValue(), '-- Bob');
      await editForm.getByLabel('Title').fill('Sign-off');
      await editForm.getByLabel('Text').fill('Best, Bob');
      await editForm.getByRole('button', { name: 'Save snippet' }).click();
      await list.getByRole('listitem', { name: 'Sign-off' }).waitFor();
      assert.deepEqual((await snippetsAtServer()).map((s) => [s.title, s.content]).sort(), [['Ack', 'Thanks, we will look into it.'], ['Sign-off', 'Best, Bob']]);

      // Deleted: gone from the list and at the server.
      await list.getByRole('button', { name: 'Delete saved snippet Ack' }).click();
      await eventually(async () => (await list.getByRole('listitem', { name: 'Ack' }).count()) === 0, 'Ack gone from the list');
      assert.deepEqual((await snippetsAtServer()).map((s) => s.title), ['Sign-off']);
    }));
});
