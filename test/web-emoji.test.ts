/**
 * The web client's custom emoji (Settings) in real Chromium: a member adds
 * one, which the server then has; a bad name is refused with the server's
 * message; one added elsewhere shows in the open page; a member deactivates
 * their own, an administrator someone else's; a member whom
 * can_add_custom_emoji_group leaves out is offered no form, and gets it back
 * when the owner lets members add emoji; refusals the page did not expect
 * (changes it has not heard of yet) show the server's reason. Skipped (with
 * one line saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertSuccess, type Account, type Client } from './helpers.ts';
import { browserTests, eventGate, PNG, postPng, eventually, loginPage, PASSWORD, withWebServer } from './web-browser.ts';

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
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const section = page.getByRole('dialog', { name: 'Settings' }).getByRole('region', { name: 'Custom emoji' });
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
});
