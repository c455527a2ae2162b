/**
 * The web client's custom emoji (Settings) in real Chromium: a member adds
 * one, which the server then has; a bad name is refused with the server's
 * message; one added elsewhere shows in the open page; a member deactivates
 * their own, an administrator someone else's; a member whom
 * can_add_custom_emoji_group leaves out is offered no form, and gets it back
 * when the owner lets members add emoji; refusals the page did not expect
 * (changes it has not heard of yet) show the server's reason. Emoji picked
 * by name go into the compose box where the caret is, and into one's status
 * (shown in People), which can be cleared. The picker's sections, tabs,
 * keys and marks, as Zulip's. Skipped (with one line saying why)
 * where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD, settingsAtServer, type Account, type Client } from './helpers.ts';
import { browserTests, channelLink, eventGate, PNG, postPng, eventually, loginPage, messageRow, PASSWORD, withWebServer, openSettings } from './web-browser.ts';

/** The custom emoji called `name` as the server has it (deactivated ones included), or undefined. */
async function emojiAtServer(api: Client, name: string): Promise<Record<string, any> | undefined> {
  const all = Object.values(assertSuccess(await api.get('/realm/emoji')).emoji as Record<string, Record<string, any>>);
  return all.find((e) => e.name === name && !e.deactivated) ?? all.find((e) => e.name === name);
}

/** Adds a custom emoji through the API, as `account`. */
async function uploadThroughApi(url: string, account: Account, name: string): Promise<void> {
  await postPng(url, account, `/realm/emoji/${name}`, `${name}.png`);
}

/** Opens Settings; its Custom emoji section, the section's list, and a row of the list by emoji name. */
async function emojiSection(page: Page) {
  const section = (await openSettings(page)).getByRole('region', { name: 'Custom emoji' });
  const list = section.getByRole('list', { name: 'Custom emoji' });
  return { section, list, row: (name: string) => list.getByRole('listitem', { name, exact: true }) };
}

await browserTests('the web client in Chromium: custom emoji', (newContext) => {
  test('custom emoji: a member adds one and deactivates it, a bad name is refused, one added elsewhere shows, an administrator deactivates someone else’s', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Emoji' });
      const carol = await t.makeUser({ name: 'Carol Emoji' });
      const ada = await t.makeUser({ role: 200, password: PASSWORD, name: 'Ada Admin' });
      const bobApi = t.client(bob);
      const page = await loginPage(await newContext(), t.url, bob.email, PASSWORD);
      const { section, list, row } = await emojiSection(page);
      await section.getByText('No custom emoji yet.').waitFor();

      const add = async (name: string) => {
        await section.getByLabel('Emoji name').fill(name);
        await section.getByLabel('Emoji image').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });
        await section.getByRole('button', { name: 'Add emoji' }).click();
      };

      // Added: listed with its image and its author, and at the server.
      await add('bob_wave');
      await section.getByRole('status').filter({ hasText: 'Emoji added.' }).waitFor();
      const made = (await emojiAtServer(bobApi, 'bob_wave'))!;
      assert.equal(made.deactivated, false);
      assert.equal(made.author_id, bob.id);
      await row('bob_wave').waitFor();
      assert.match((await row('bob_wave').textContent()) ?? '', /:bob_wave:.*added by Bob Emoji/);
      const img = row('bob_wave').getByRole('img', { name: ':bob_wave:' });
      assert.equal(await img.getAttribute('src'), made.source_url);
      await eventually(() => img.evaluate((i) => (i as any).complete && (i as any).naturalWidth > 0), 'the emoji image to load');
      // The form is cleared for the next one.
      assert.equal(await section.getByLabel('Emoji name').inputValue(), '');
      assert.equal(await section.getByLabel('Emoji image').inputValue(), '');

      // A bad name: the server's reason, and nothing added.
      await add('Bad Name!');
      assert.equal(await section.getByRole('alert').textContent(), 'Emoji names must contain only lowercase alphanumeric characters, underscores, and hyphens.');
      assert.equal(await emojiAtServer(bobApi, 'Bad Name!'), undefined);
      assert.equal(await list.getByRole('listitem').count(), 1);

      // Added by someone else through the API: shows in the open page, without a button for Bob (neither its author nor an administrator).
      await uploadThroughApi(t.url, carol, 'carol_cat');
      await row('carol_cat').waitFor();
      await eventually(async () => ((await row('carol_cat').textContent()) ?? '').includes('added by Carol Emoji'), 'Carol named as the author');
      assert.equal(await row('carol_cat').getByRole('button').count(), 0);

      // Bob deactivates his own: gone from the list, deactivated at the server.
      await row('bob_wave').getByRole('button', { name: 'Deactivate :bob_wave:' }).click();
      await eventually(async () => (await row('bob_wave').count()) === 0, 'bob_wave gone from the list');
      assert.equal((await emojiAtServer(bobApi, 'bob_wave'))?.deactivated, true);

      // An administrator deactivates Carol's: gone from her list and from Bob's open page.
      const adaPage = await loginPage(await newContext(), t.url, ada.email, PASSWORD);
      const adas = await emojiSection(adaPage);
      await adas.row('carol_cat').getByRole('button', { name: 'Deactivate :carol_cat:' }).click();
      await eventually(async () => (await adas.row('carol_cat').count()) === 0, 'carol_cat gone from the administrator’s list');
      await eventually(async () => (await row('carol_cat').count()) === 0, 'carol_cat gone from Bob’s list');
      assert.equal((await emojiAtServer(bobApi, 'carol_cat'))?.deactivated, true);
      await section.getByText('No custom emoji yet.').waitFor();
    }));

  test('custom emoji: a member whom can_add_custom_emoji_group leaves out sees no form; the form comes back when members may; a refusal the page did not expect says why', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Emoji' });
      const groups = assertSuccess(await owner.get('/user_groups')).user_groups as Array<{ id: number; name: string }>;
      const allow = async (name: string) => {
        const id = groups.find((g) => g.name === name)!.id;
        assertSuccess(await owner.patch('/realm', { can_add_custom_emoji_group: { new: id } }));
      };
      await allow('role:administrators');
      const ctx = await newContext();
      // The page misses changes made while the gate holds its events.
      const events = await eventGate(ctx);
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      const { section, row } = await emojiSection(page);
      const refusedText = section.getByText("The organization's settings do not let you add custom emoji.");
      await refusedText.waitFor();
      assert.equal(await section.getByRole('button', { name: 'Add emoji' }).count(), 0);
      assert.equal(await section.getByLabel('Emoji name').count(), 0);

      // The owner lets members add emoji: the form shows in the open page.
      await allow('role:members');
      await section.getByLabel('Emoji name').fill('bob_wave');
      await section.getByLabel('Emoji image').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });

      // Restricted again while the page misses the event: the server refuses, and the page says why.
      events.hold();
      await allow('role:administrators');
      await section.getByRole('button', { name: 'Add emoji' }).click();
      await section.getByRole('alert').filter({ hasText: 'Insufficient permission' }).waitFor();
      assert.equal(await emojiAtServer(owner, 'bob_wave'), undefined);
      events.release();
      await refusedText.waitFor();

      // Allowed again: the form works.
      await allow('role:members');
      await section.getByLabel('Emoji name').fill('bob_wave');
      await section.getByLabel('Emoji image').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });
      await section.getByRole('button', { name: 'Add emoji' }).click();
      await row('bob_wave').waitFor();
      assert.equal((await emojiAtServer(owner, 'bob_wave'))?.author_id, bob.id);

      // Deactivated by the owner while the page misses the event: Bob's try is refused with the server's reason, then the row goes.
      events.hold();
      assertSuccess(await owner.delete('/realm/emoji/bob_wave'));
      await row('bob_wave').getByRole('button', { name: 'Deactivate :bob_wave:' }).click();
      await section.getByRole('alert').filter({ hasText: "Emoji 'bob_wave' does not exist" }).waitFor();
      events.release();
      await eventually(async () => (await row('bob_wave').count()) === 0, 'bob_wave gone from the list');
    }));
  test('emoji picked by name: into the compose box where the caret is (custom ones too), and into one’s status (from one’s card, or one of Zulip’s suggested ones), which People shows and which can be cleared', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Status' });
      const bobApi = t.client(bob);
      await uploadThroughApi(t.url, t.owner, 'team_logo');
      const logo = (await emojiAtServer(bobApi, 'team_logo'))!;
      const page = await loginPage(await newContext(), t.url, bob.email, PASSWORD);
      await (await channelLink(page, 'general')).click();
      await page.getByLabel('Topic', { exact: true }).fill('emoji');
      const box = page.getByLabel('Message', { exact: true });
      await box.fill('Hello world');
      await box.evaluate((el) => {
        const area = el as unknown as { selectionStart: number; selectionEnd: number };
        area.selectionStart = area.selectionEnd = 5;
      });
      const insert = page.getByRole('button', { name: 'Insert emoji' });
      const picker = page.getByRole('dialog', { name: 'Choose an emoji' });

      // Clicked in the picker: put at the caret, a space on each side, and typing goes on after it.
      await insert.click();
      await picker.getByLabel('Emoji name').fill('octopus');
      await picker.getByRole('button', { name: 'octopus', exact: true }).click();
      assert.equal(await box.inputValue(), 'Hello :octopus: world');
      await page.keyboard.type('big ');
      assert.equal(await box.inputValue(), 'Hello :octopus: big world');
      // A custom one, the best match of what is typed, by Enter.
      await box.press('End');
      await insert.click();
      await picker.getByLabel('Emoji name').fill('team_lo');
      await picker.getByLabel('Emoji name').press('Enter');
      assert.equal(await box.inputValue(), 'Hello :octopus: big world :team_logo: ');
      // Escape closes the picker with nothing put in.
      await insert.click();
      await picker.getByLabel('Emoji name').press('Escape');
      await eventually(async () => (await picker.count()) === 0, 'the picker to close');
      assert.equal(await box.inputValue(), 'Hello :octopus: big world :team_logo: ');
      await box.press('Enter');
      // (The box empties as the message goes; the server has it a moment later.)
      let sent: Record<string, any> | undefined;
      const newest = async () => assertSuccess(await bobApi.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: JSON.stringify([{ operator: 'sender', operand: bob.id }]) })).messages[0];
      await eventually(async () => (sent = await newest()) !== undefined, 'the message at the server');
      assert.match(sent!.content, /^<p>Hello <span aria-label="octopus" class="emoji emoji-1f419" role="img" title="octopus">:octopus:<\/span> big world <img alt=":team_logo:" class="emoji"/);

      // One's own card: "Set status" opens Settings at one's profile, the status's text focused.
      const ownCard = async () => {
        await page.getByRole('complementary', { name: 'People' }).getByRole('button', { name: /^Bob Status/ }).click();
        const card = page.getByRole('dialog', { name: 'Bob Status' });
        await card.waitFor();
        return card;
      };
      await (await ownCard()).getByRole('link', { name: 'Set status' }).click();
      const settings = page.getByRole('dialog', { name: 'Settings' });
      await settings.waitFor();
      await eventually(() => page.evaluate(() => (globalThis as any).document.activeElement?.id === 'set-status'), 'the status text focused');
      // A status with a Unicode emoji: at the server, and in People.
      const statusPicker = settings.getByRole('dialog', { name: 'Choose an emoji' });
      await settings.getByRole('button', { name: 'Choose a status emoji' }).click();
      await statusPicker.getByLabel('Emoji name').fill('palm_tree');
      await statusPicker.getByRole('button', { name: 'palm_tree', exact: true }).click();
      await settings.getByLabel('Status', { exact: true }).fill('On holiday');
      await settings.getByRole('button', { name: 'Set status' }).click();
      await settings.getByRole('status').filter({ hasText: 'Status saved.' }).waitFor();
      const statusAtServer = async () => assertSuccess(await bobApi.get(`/users/${bob.id}/status`)).status as Record<string, string>;
      assert.deepEqual(await statusAtServer(), { status_text: 'On holiday', emoji_name: 'palm_tree', emoji_code: '1f334', reaction_type: 'unicode_emoji' });
      const inPeople = page.getByRole('complementary', { name: 'People' }).getByRole('button', { name: /Bob Status/ }).locator('.status-text');
      await eventually(async () => (await inPeople.textContent()) === '\u{1f334} On holiday', 'the status with its emoji in People');

      // A custom emoji instead: its image.
      await settings.getByRole('button', { name: 'Status emoji :palm_tree:, change it' }).click();
      await statusPicker.getByLabel('Emoji name').fill('team_logo');
      await statusPicker.getByLabel('Emoji name').press('Enter');
      await settings.getByRole('button', { name: 'Set status' }).click();
      await eventually(async () => (await statusAtServer()).emoji_name === 'team_logo', 'the custom emoji status at the server');
      assert.deepEqual(await statusAtServer(), { status_text: 'On holiday', emoji_name: 'team_logo', emoji_code: String(logo.id), reaction_type: 'realm_emoji' });
      await eventually(async () => (await inPeople.getByRole('img', { name: ':team_logo:' }).getAttribute('src').catch(() => null)) === logo.source_url, 'the custom emoji in People');

      // Without an emoji, then cleared altogether.
      await settings.getByRole('button', { name: 'No emoji' }).click();
      await settings.getByRole('button', { name: 'Set status' }).click();
      await eventually(async () => !(await statusAtServer()).emoji_name, 'the emoji gone at the server');
      assert.equal((await statusAtServer()).status_text, 'On holiday');
      await eventually(async () => (await inPeople.textContent()) === 'On holiday', 'the status without an emoji in People');
      await settings.getByRole('button', { name: 'Clear status' }).click();
      await settings.getByRole('status').filter({ hasText: 'Status cleared.' }).waitFor();
      assert.deepEqual(await statusAtServer(), {});
      await eventually(async () => (await inPeople.count()) === 0, 'no status in People');
      assert.equal(await settings.getByLabel('Status', { exact: true }).inputValue(), '');

      // One of Zulip's suggested statuses fills in the text and the emoji.
      await settings.getByRole('group', { name: 'Suggested statuses' }).getByRole('button', { name: /In a meeting/ }).click();
      assert.equal(await settings.getByLabel('Status', { exact: true }).inputValue(), 'In a meeting');
      await settings.getByRole('button', { name: 'Set status' }).click();
      await eventually(async () => (await statusAtServer()).emoji_name === 'calendar', 'the suggested status at the server');
      assert.deepEqual(await statusAtServer(), { status_text: 'In a meeting', emoji_name: 'calendar', emoji_code: '1f4c5', reaction_type: 'unicode_emoji' });
      // With a status, one's card offers to edit it.
      await page.keyboard.press('Escape');
      await settings.waitFor({ state: 'detached' });
      await (await ownCard()).getByRole('link', { name: 'Edit status' }).waitFor();
    }));

  test('the emoji set (Zulip\u2019s emojiset): pictures by default; as plain text, emoji in messages (custom ones too) and reactions show as their names; chosen in Settings, the server has it', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      await uploadThroughApi(t.url, t.owner, 'parley_dot');
      const id = assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'emoji', content: 'Smiling :smile: with :parley_dot:' })).id as number;
      assertSuccess(await owner.request('POST', `/messages/${id}/reactions`, { emoji_name: 'tada' }));
      const page = await loginPage(await newContext(), t.url, t.owner.email, OWNER_PASSWORD);
      const row = page.locator('article.message-row', { hasText: 'Smiling' });
      await row.waitFor();
      const content = row.locator('.message-content');
      assert.match((await content.innerText()).trim(), /^Smiling \u{1F642} with$/u);
      assert.equal(await content.locator('img.emoji').count(), 1);
      const select = (await openSettings(page)).getByLabel('Emoji', { exact: true });
      assert.equal(await select.inputValue(), 'google');
      await select.selectOption('text');
      await eventually(async () => (await settingsAtServer(owner)).emojiset === 'text', 'text at the server');
      await page.keyboard.press('Escape');
      await eventually(async () => (await content.innerText()).trim() === 'Smiling :smile: with :parley_dot:', 'names in the message');
      assert.equal(await content.locator('img').count(), 0);
      await row.locator('.reactions').getByText(':tada:').waitFor();
    }));
  test("the emoji picker, as Zulip's: Popular, the Unicode categories and Custom under tabs that scroll to them; the emoji under the pointer named below; the arrows move among them; one's own reactions marked, and picking one takes it back", () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      await uploadThroughApi(t.url, t.owner, 'team_logo');
      const { id } = assertSuccess(await owner.post('/messages', { type: 'stream', to: 'general', topic: 'picker', content: 'pick for me' }));
      const page = await loginPage(await newContext(), t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await (await channelLink(page, 'general')).click();
      const row = messageRow(page, 'pick for me');
      const picker = page.getByRole('dialog', { name: 'Choose an emoji' });
      const open = async () => {
        await row.hover();
        await row.getByRole('button', { name: 'Add reaction' }).click();
        await picker.waitFor();
      };
      await open();
      const tabs = picker.getByRole('group', { name: 'Emoji categories' }).getByRole('button');
      const SECTIONS = ['Popular', 'Smileys & Emotion', 'People & Body', 'Animals & Nature', 'Food & Drink', 'Activities', 'Travel & Places', 'Objects', 'Symbols', 'Flags', 'Custom'];
      await eventually(async () => (await tabs.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).join('|') === SECTIONS.join('|'), "Zulip's sections");
      const section = (name: string) => picker.getByRole('region', { name, exact: true });
      assert.deepEqual(await section('Popular').getByRole('button').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label'))), ['+1', 'tada', 'smile', 'heart', 'working_on_it', 'octopus']);
      // Each category in Unicode's order; the custom emoji last.
      assert.deepEqual(await section('Smileys & Emotion').getByRole('button').evaluateAll((els) => els.slice(0, 3).map((e) => e.getAttribute('aria-label'))), ['grinning', 'smiley', 'big_smile']);
      assert.equal(await section('Animals & Nature').getByRole('button', { name: 'giraffe', exact: true }).count(), 1);
      assert.deepEqual(await section('Custom').getByRole('button').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label'))), ['team_logo']);
      assert.equal(await section('Flags').getByRole('button').count() > 250, true);
      // A tab scrolls to its section and is marked; scrolling marks the section at the top.
      assert.equal(await tabs.first().getAttribute('aria-current'), 'true');
      await picker.getByRole('button', { name: 'Food & Drink' }).click();
      const list = picker.locator('.emoji-sections');
      await eventually(async () => Math.abs((await section('Food & Drink').evaluate((el) => el.getBoundingClientRect().top)) - (await list.evaluate((el) => el.getBoundingClientRect().top))) < 2, 'the section at the top');
      assert.equal(await picker.getByRole('button', { name: 'Food & Drink' }).getAttribute('aria-current'), 'true');
      await list.evaluate((el) => (el.scrollTop = 0));
      await eventually(async () => (await tabs.first().getAttribute('aria-current')) === 'true', 'Popular marked again');
      // The pointer on an emoji: its name below, as words.
      await section('Popular').getByRole('button', { name: 'working_on_it' }).hover();
      assert.equal((await picker.locator('.emoji-showcase-name').textContent())!.trim(), 'working on it');
      // The arrows: from the filter to the first emoji, along the row, down to the next row.
      await picker.getByLabel('Emoji name').press('ArrowDown');
      assert.equal(await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label')), '+1');
      await page.keyboard.press('ArrowRight');
      assert.equal(await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label')), 'tada');
      assert.equal((await picker.locator('.emoji-showcase-name').textContent())!.trim(), 'tada');
      await page.keyboard.press('ArrowDown');
      assert.equal(await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label')), 'smiley', 'the one below tada, in the next section');
      await page.keyboard.press('ArrowUp');
      await page.keyboard.press('Enter');
      await row.getByRole('button', { name: 'tada reaction, 1' }).waitFor();
      // Reopened: tada marked as one's own; picked again, it is taken back.
      await open();
      const tada = section('Popular').getByRole('button', { name: 'tada' });
      await eventually(async () => (await tada.getAttribute('aria-pressed')) === 'true', 'marked as chosen');
      assert.equal(await section('Popular').getByRole('button', { name: 'smile', exact: true }).getAttribute('aria-pressed'), 'false');
      await tada.click();
      await eventually(async () => (assertSuccess(await owner.get(`/messages/${id}`)).message.reactions as unknown[]).length === 0, 'the reaction gone at the server');
      // A custom emoji from its section, by the mouse.
      await open();
      await section('Custom').getByRole('button', { name: 'team_logo' }).click();
      await row.getByRole('button', { name: 'team_logo reaction, 1' }).waitFor();
      // Typed: the matching ones only, the sections gone.
      await open();
      await picker.getByLabel('Emoji name').fill('giraf');
      assert.equal(await tabs.count(), 0);
      assert.deepEqual(await picker.getByRole('group', { name: 'Search results' }).getByRole('button').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label'))), ['giraffe']);
    }));
});
