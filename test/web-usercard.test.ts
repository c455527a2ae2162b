/**
 * Avatars and the user card in the web client, in real Chromium: an avatar
 * uploaded elsewhere shows in the message list and People, initials stay for
 * those without one (and the page asks nothing of Gravatar), an image that
 * fails to load falls back to initials; one's own avatar uploaded and removed
 * in Settings, a refusal with the server's reason; a sender's or a person's
 * card with role, email, local time, join date, status, bot owner and
 * deactivation, kept current by the events, closed by Esc, and its buttons
 * narrowing to the direct messages with and the messages sent by the user;
 * an administrator's "Manage user" from a card (name, role and profile fields, a refusal,
 * deactivation with an email note, reactivation); "Manage bot" from a bot's
 * card, for its owner and administrators (name and owner, an outgoing
 * webhook's endpoint and format, a refusal,
 * deactivation, reactivation).
 * People in a topic, a channel and a direct message conversation: Zulip's
 * sections (this conversation, this channel, the others folded), kept current.
 * Skipped (with one line saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { assertSuccess, OWNER_PASSWORD, sentEmails, type Account, type Client, streamIdOf } from './helpers.ts';
import { browserTests, eventually, goToHash, loginPage, messageRow, PASSWORD, PNG, postPng, postPngAnswer, withWebServer, openSettings } from './web-browser.ts';

/** Sets `account`'s avatar through the API; its avatar_url. */
async function uploadAvatar(url: string, account: Account): Promise<string> {
  return (await postPng(url, account, '/users/me/avatar', 'me.png')).avatar_url as string;
}

const sendTo = async (c: Client, topic: string, content: string) => assertSuccess(await c.post('/messages', { type: 'stream', to: 'general', topic, content }));

/** The People sidebar's entry for `name`. */
const person = (page: Page, name: string) => page.getByRole('complementary', { name: 'People' }).getByRole('button', { name: new RegExp(`^${name}\\b`) });

/**
 * What the avatar in `where` shows: its image's address, or its initials.
 * Read in one step: an image that fails to load gives way to the initials
 * at any moment, and a second look could wait for an image that is gone.
 */
function avatarShows(where: Locator): Promise<string> {
  return where
    .locator('.avatar')
    .first()
    .evaluate((avatar) => {
      const img = avatar.querySelector('img');
      return img ? `img ${img.getAttribute('src')}` : `initials ${avatar.textContent?.trim()}`;
    });
}

/** Waits until the avatar in `where` shows `want` (see avatarShows). */
const avatarBecomes = (where: Locator, want: string) => eventually(async () => (await avatarShows(where)) === want, `the avatar to show ${want}`);

/** A line of the card: the value beside `term`, or null without one. */
async function fact(card: Locator, term: string): Promise<string | null> {
  const line = card.locator('.fact').filter({ has: card.page().locator('dt', { hasText: new RegExp(`^${term}$`) }) });
  // Read at once, without waiting: the line may come or go meanwhile.
  const [text] = await line.locator('dd').allTextContents();
  return text ?? null;
}

/** Waits until the card's `term` line says `want`. */
const factBecomes = (card: Locator, term: string, want: string | null) => eventually(async () => (await fact(card, term)) === want, `the card's ${term} to say ${want}`);

/** The address path (with its query) of an avatar_url. */
const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

await browserTests('the web client in Chromium: avatars and the user card', (newContext) => {
  test('avatars: one uploaded elsewhere shows in the message list and People; initials for others, and no request to Gravatar; an image that fails shows initials', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Viewer' });
      const carol = await t.makeUser({ name: 'Carol Picture' });
      const dave = await t.makeUser({ name: 'Dave Broken' });
      const [carolApi, daveApi] = [carol, dave].map((a) => t.client(a));
      // Without an uploaded avatar, the server gives a Gravatar address.
      const before = assertSuccess(await t.client(bob).get(`/users/${carol.id}`, { client_gravatar: false })).user;
      assert.match(before.avatar_url, /^https:\/\/secure\.gravatar\.com\//);
      await sendTo(carolApi, 'pictures', 'Carol says hello');
      await sendTo(daveApi, 'pictures', 'Dave says hello');

      const ctx = await newContext();
      const requests: string[] = [];
      ctx.on('request', (r) => requests.push(r.url()));
      // Dave's image cannot be had: his avatar falls back to his initials.
      await ctx.route(`**/user_avatars/*/${dave.id}.png*`, (route) => route.fulfill({ status: 404, body: 'gone' }));
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      const carolRow = messageRow(page, 'Carol says hello');
      await carolRow.waitFor();
      assert.equal(await avatarShows(carolRow), 'initials CP');
      assert.equal(await avatarShows(person(page, 'Carol Picture')), 'initials CP');
      const toGravatar = () => requests.filter((r) => /gravatar/i.test(new URL(r).hostname));
      assert.deepEqual(toGravatar(), []);

      // Carol uploads one: it shows in Bob's open page, in her message and in People, and loads.
      const url = await uploadAvatar(t.url, carol);
      assert.match(url, new RegExp(`/user_avatars/\\d+/${carol.id}\\.png\\?version=2$`));
      await avatarBecomes(carolRow, `img ${pathOf(url)}`);
      await avatarBecomes(person(page, 'Carol Picture'), `img ${pathOf(url)}`);
      await eventually(() => carolRow.locator('.avatar img').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth === 100), "Carol's image to load");

      // Dave's fails to load: initials again.
      const daveUrl = await uploadAvatar(t.url, dave);
      await eventually(() => requests.some((r) => r.endsWith(pathOf(daveUrl))), "the page to ask for Dave's image");
      const daveRow = messageRow(page, 'Dave says hello');
      await avatarBecomes(daveRow, 'initials DB');
      await avatarBecomes(person(page, 'Dave Broken'), 'initials DB');

      // A fresh page shows the same (from /register and GET /messages).
      await page.reload();
      await messageRow(page, 'Carol says hello').waitFor();
      await avatarBecomes(messageRow(page, 'Carol says hello'), `img ${pathOf(url)}`);
      await avatarBecomes(person(page, 'Carol Picture'), `img ${pathOf(url)}`);
      await avatarBecomes(person(page, 'Bob Viewer'), 'initials BV');
      assert.deepEqual(toGravatar(), []);
      assert.ok(requests.length > 10, 'requests were watched');
      await ctx.close();
    }));

  test("avatars in Settings: one's own uploaded and removed (as the server has it), a refusal with the server's reason", () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Self' });
      const bobApi = t.client(bob);
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      const section = (await openSettings(page)).getByRole('region', { name: 'Avatar' });
      assert.equal(await avatarShows(section), 'initials BS');
      assert.equal(await section.getByRole('button', { name: 'Remove avatar' }).count(), 0);

      await section.getByLabel('Avatar').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: PNG });
      await section.getByRole('status').filter({ hasText: 'Avatar uploaded.' }).waitFor();
      const url = assertSuccess(await bobApi.get('/users/me')).avatar_url as string;
      assert.match(url, new RegExp(`/user_avatars/\\d+/${bob.id}\\.png\\?version=2$`));
      await avatarBecomes(section, `img ${pathOf(url)}`);
      await avatarBecomes(person(page, 'Bob Self'), `img ${pathOf(url)}`);

      await section.getByRole('button', { name: 'Remove avatar' }).click();
      await section.getByRole('status').filter({ hasText: 'Avatar removed.' }).waitFor();
      assert.match(assertSuccess(await bobApi.get('/users/me')).avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=3$/);
      await avatarBecomes(section, 'initials BS');
      await avatarBecomes(person(page, 'Bob Self'), 'initials BS');
      assert.equal(await section.getByRole('button', { name: 'Remove avatar' }).count(), 0);

      // The organization forbids changes: no longer offered, with Zulip's words (the server refuses them too), and nothing changed.
      assertSuccess(await t.client(t.owner).patch('/realm', { avatar_changes_disabled: true }));
      await eventually(() => section.getByLabel('Avatar').isDisabled(), 'the avatar input off');
      await section.getByText('Avatar changes are disabled in this organization.', { exact: true }).waitFor();
      assert.equal((await postPngAnswer(t.url, bob, '/users/me/avatar', 'me.png')).msg, 'Avatar changes are disabled in this organization.');
      assert.match(assertSuccess(await bobApi.get('/users/me')).avatar_url, /version=3$/);
      assert.equal(await avatarShows(section), 'initials BS');
      await ctx.close();
    }));

  test('the user card: a sender clicked shows role, email, local time, join date and status, follows changes, closes with Esc; its buttons narrow; people, bots and deactivated users', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Looker' });
      const carol = await t.makeUser({ name: 'Carol Card', role: 300 });
      const dave = await t.makeUser({ name: 'Dave Hidden' });
      const [bobApi, carolApi, daveApi] = [bob, carol, dave].map((a) => t.client(a));
      assertSuccess(await carolApi.patch('/settings', { timezone: 'Asia/Kolkata', twenty_four_hour_time: false }));
      assertSuccess(await carolApi.post('/users/me/status', { status_text: 'On holiday' }));
      // A custom profile field Carol filled in, and one she did not.
      const team = assertSuccess(await owner.post('/realm/profile_fields', { name: 'Team', hint: '', field_type: 1 })).id as number;
      assertSuccess(await owner.post('/realm/profile_fields', { name: 'Desk', hint: '', field_type: 1 }));
      assertSuccess(await carolApi.patch('/users/me/profile_data', { data: JSON.stringify([{ id: team, value: 'Platform' }]) }));
      // Dave shows his address to administrators only: Bob sees his dummy one.
      assertSuccess(await daveApi.patch('/settings', { email_address_visibility: 3 }));
      await sendTo(carolApi, 'cards', 'Carol writes');
      await sendTo(bobApi, 'cards', 'Bob writes');
      await sendTo(daveApi, 'cards', 'Dave writes');
      const bot = assertSuccess(await bobApi.post('/bots', { full_name: 'Helper Bot', short_name: 'helper-card', bot_type: 1 }));
      // Bob sees 24-hour times (his setting), the card too.
      assertSuccess(await bobApi.patch('/settings', { twenty_four_hour_time: true }));
      const carolUser = assertSuccess(await bobApi.get(`/users/${carol.id}`)).user;
      const daveUser = assertSuccess(await bobApi.get(`/users/${dave.id}`)).user;
      assert.equal(daveUser.delivery_email, null);
      assert.match(daveUser.email, /^user\d+@/);

      const ctx = await newContext();
      await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      const lang = await page.evaluate(() => (globalThis as any).navigator.language as string);
      const carolRow = messageRow(page, 'Carol writes');
      await carolRow.getByRole('button', { name: 'Carol Card' }).click();
      const card = page.getByRole('dialog', { name: 'Carol Card' });
      await card.waitFor();
      assert.equal(await card.getByRole('heading').textContent(), 'Carol Card');
      assert.equal(await fact(card, 'Role'), 'Moderator');
      assert.equal(await fact(card, 'Email'), carol.email);
      assert.equal(await fact(card, 'Status'), 'On holiday');
      assert.equal(await fact(card, 'Presence'), 'Offline');
      assert.equal(await fact(card, 'Bot'), null);
      assert.equal(await fact(card, 'Account'), null);
      assert.equal(await card.getByText('(you)').count(), 0);
      // Bob is no administrator: nothing to manage.
      assert.equal(await card.getByRole('button', { name: 'Manage user' }).count(), 0);
      // Her custom profile fields: the one she filled in.
      const fields = card.getByLabel('Profile fields of Carol Card');
      await fields.waitFor();
      assert.deepEqual(await fields.locator('dt').allTextContents(), ['Team']);
      assert.deepEqual((await fields.locator('dd').allTextContents()).map((v) => v.trim()), ['Platform']);
      // Her time of day in Kolkata (this minute or the next), in Bob's 24-hour style.
      const kolkata = (ms: number) => new Date(ms).toLocaleTimeString(lang, { hour: 'numeric', minute: '2-digit', hour12: false, timeZone: 'Asia/Kolkata' });
      const now = Date.now();
      const shown = await fact(card, 'Local time');
      assert.ok([kolkata(now - 60_000), kolkata(now), kolkata(now + 60_000)].includes(shown!), `local time ${shown}`);
      assert.match(shown!, /^\d{2}:\d{2}$/);
      assert.equal(await fact(card, 'Joined'), new Date(carolUser.date_joined).toLocaleDateString(lang, { year: 'numeric', month: 'long', day: 'numeric' }));
      assert.ok((await fact(card, 'Joined'))!.includes(String(new Date(carolUser.date_joined).getFullYear())));

      // A role change, a new status and a time zone made elsewhere show in the open card.
      assertSuccess(await owner.patch(`/users/${carol.id}`, { role: 400 }));
      await factBecomes(card, 'Role', 'Member');
      assertSuccess(await carolApi.post('/users/me/status', { status_text: 'Back at work' }));
      await factBecomes(card, 'Status', 'Back at work');
      // A status emoji shows beside her name on her messages too (a text alone does not).
      assert.equal(await carolRow.locator('.sender-status').count(), 0);
      assertSuccess(await carolApi.post('/users/me/status', { status_text: 'Back at work', emoji_name: 'palm_tree', emoji_code: '1f334', reaction_type: 'unicode_emoji' }));
      await carolRow.locator('.sender-status[title="Back at work"]').waitFor();
      assertSuccess(await carolApi.patch('/settings', { timezone: '' }));
      await factBecomes(card, 'Local time', null);
      // The user groups she is in, as they change (the role's system groups are not listed).
      assert.equal(await fact(card, 'Groups'), null);
      assertSuccess(await owner.post('/user_groups/create', { name: 'Writers', description: 'Words', members: JSON.stringify([carol.id]) }));
      await factBecomes(card, 'Groups', 'Writers');
      assertSuccess(await owner.post('/user_groups/create', { name: 'Artists', description: 'Pictures', members: JSON.stringify([carol.id, bob.id]) }));
      await factBecomes(card, 'Groups', 'Artists, Writers');
      // The Markdown that mentions her, copied; with her ID once another user has her name (in any case).
      await card.getByRole('button', { name: 'Copy mention syntax' }).click();
      await card.getByRole('button', { name: 'Copied' }).waitFor();
      const clipboard = () => page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>);
      assert.equal(await clipboard(), '@**Carol Card**');
      await t.makeUser({ name: 'carol card' });
      await eventually(async () => {
        await card.getByRole('button', { name: 'Copy mention syntax' }).click();
        return (await clipboard()) === `@**Carol Card|${carol.id}**`;
      }, 'the mention with her ID');

      // Esc closes it, and the focus goes back to her name.
      await page.keyboard.press('Escape');
      await eventually(async () => (await card.count()) === 0, 'the card to close');
      await eventually(async () => (await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)) === 'Carol Card', 'the focus back on her name');

      // Her avatar opens it too; "View messages sent" narrows to what she sent.
      await carolRow.locator('.gutter .avatar').click();
      await card.getByRole('button', { name: 'View messages sent' }).click();
      await page.waitForURL(`${t.url}/#narrow/sender/${carol.id}`);
      await page.getByRole('heading', { name: 'Messages sent by Carol Card', exact: true }).waitFor();
      await eventually(async () => (await card.count()) === 0, 'the card to close');
      await messageRow(page, 'Carol writes').waitFor();
      await eventually(async () => (await page.locator('article.message-row').count()) === 1, 'only her message listed');
      assert.equal(await page.locator('article.message-row', { hasText: 'Bob writes' }).count(), 0);

      // From People, by the keyboard: "Send direct message" opens the conversation with her.
      await person(page, 'Carol Card').focus();
      await page.keyboard.press('Enter');
      await card.getByRole('button', { name: 'Send direct message' }).click();
      await page.waitForURL(`${t.url}/#narrow/dm/${carol.id}`);
      await page.getByRole('heading', { name: 'Carol Card', level: 1 }).waitFor();
      assert.equal(await card.count(), 0);

      // Oneself: "(you)" and one's real address; the close button closes it.
      await person(page, 'Bob Looker').click();
      const own = page.getByRole('dialog', { name: 'Bob Looker' });
      await own.getByText('(you)').waitFor();
      assert.equal(await fact(own, 'Email'), bob.email);
      assert.equal(await fact(own, 'Role'), 'Member');
      await factBecomes(own, 'Presence', 'Active');
      assert.equal(await fact(own, 'Groups'), 'Artists');
      await own.getByRole('button', { name: 'Close' }).click();
      await eventually(async () => (await own.count()) === 0, 'the card to close');
      // One's own card leads to one's profile settings.
      await person(page, 'Bob Looker').click();
      await own.getByRole('link', { name: 'Edit your profile' }).click();
      const settings = page.getByRole('dialog', { name: 'Settings' });
      await settings.waitFor();
      assert.equal(new URL(page.url()).hash, '#settings/profile');
      assert.equal(await own.count(), 0);
      await page.keyboard.press('Escape');
      await settings.waitFor({ state: 'detached' });

      // A bot: marked, with its owner (in the conversation's view, among the others, folded until opened).
      await page.getByRole('complementary', { name: 'People' }).getByRole('button', { name: /^Others/ }).click();
      await person(page, 'Helper Bot').click();
      const botCard = page.getByRole('dialog', { name: 'Helper Bot' });
      await botCard.waitFor();
      assert.equal(await fact(botCard, 'Bot'), 'Owned by Bob Looker');
      assert.equal(await fact(botCard, 'Presence'), null);
      assert.equal(await fact(botCard, 'Email'), assertSuccess(await bobApi.get(`/users/${bot.user_id}`)).user.email);
      await page.keyboard.press('Escape');
      await eventually(async () => (await botCard.count()) === 0, 'the card to close');

      // Dave: the address Bob may see; deactivated, which shows in his open card.
      await page.goto(`${t.url}/#feed`);
      await messageRow(page, 'Dave writes').getByRole('button', { name: 'Dave Hidden' }).click();
      const daveCard = page.getByRole('dialog', { name: 'Dave Hidden' });
      await daveCard.waitFor();
      assert.equal(await fact(daveCard, 'Email'), daveUser.email);
      assert.equal(await fact(daveCard, 'Account'), null);
      assertSuccess(await owner.delete(`/users/${dave.id}`));
      await factBecomes(daveCard, 'Account', 'Deactivated');
      assert.equal(await fact(daveCard, 'Presence'), null);
      await ctx.close();
    }));

  test('"Manage user" from a card (an administrator\'s): name, role and profile fields saved together, a refusal shown in the dialog, deactivation with an email note, reactivation', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const ann = await t.makeUser({ password: PASSWORD, name: 'Ann Admin', role: 200 });
      const eve = await t.makeUser({ name: 'Eve Managed' });
      assertSuccess(await t.client(ann).post('/bots', { full_name: 'Card Bot', short_name: 'card-manage', bot_type: 1 }));
      await sendTo(t.client(eve), 'managing', 'Eve writes');
      await sendTo(owner, 'managing', 'The owner writes');
      const team = assertSuccess(await owner.post('/realm/profile_fields', { name: 'Team', hint: 'Where they work', field_type: 1 })).id as number;
      const mentor = assertSuccess(await owner.post('/realm/profile_fields', { name: 'Mentor', hint: '', field_type: 6 })).id as number;
      const userOf = async (id: number) => assertSuccess(await owner.get(`/users/${id}`)).user;
      const page = await loginPage(await newContext(), t.url, ann.email, PASSWORD);
      const openCard = async (text: string, name: string) => {
        await messageRow(page, text).getByRole('button', { name }).click();
        const card = page.getByRole('dialog', { name });
        await card.waitFor();
        return card;
      };
      const dialog = page.getByRole('dialog', { name: 'Manage user' });
      /** Opens "Manage user" from the card of `name` (the sender of `text`); the focus goes to `first` (an element's ID or text). */
      const openManage = async (text: string, name: string, first = 'manage-user-name') => {
        await (await openCard(text, name)).getByRole('button', { name: 'Manage user' }).click();
        await dialog.waitFor();
        // It takes the card's place, the focus on its first field.
        await page.getByRole('dialog', { name }).waitFor({ state: 'detached' });
        const focused = () =>
          page.evaluate(() => {
            const e = (globalThis as any).document.activeElement;
            return [e?.id, e?.textContent?.trim()];
          });
        await eventually(async () => (await focused()).includes(first), `the focus on ${first}`);
      };

      // Not on one's own card, nor a bot's.
      await person(page, 'Ann Admin').click();
      const own = page.getByRole('dialog', { name: 'Ann Admin' });
      await own.getByText('(you)').waitFor();
      assert.equal(await own.getByRole('button', { name: 'Manage user' }).count(), 0);
      await page.keyboard.press('Escape');
      await own.waitFor({ state: 'detached' });
      await person(page, 'Card Bot').click();
      const botCard = page.getByRole('dialog', { name: 'Card Bot' });
      await botCard.waitFor();
      assert.equal(await botCard.getByRole('button', { name: 'Manage user' }).count(), 0);
      await page.keyboard.press('Escape');
      await botCard.waitFor({ state: 'detached' });

      // Eve: her address and ID shown; a new name and a new role, saved together; the dialog closes.
      await openManage('Eve writes', 'Eve Managed');
      await dialog.getByText(eve.email).waitFor();
      await dialog.getByText(`User ID: ${eve.id}`).waitFor();
      // An administrator cannot make owners: no such choice.
      assert.deepEqual(await dialog.getByLabel('User role').locator('option').allTextContents(), ['Administrator', 'Moderator', 'Member', 'Guest']);
      await dialog.getByLabel('Name').fill('Eve Renamed');
      await dialog.getByLabel('User role').selectOption({ label: 'Moderator' });
      // Her custom profile fields too (a text, a person).
      await dialog.getByLabel('Team').fill('Platform');
      await dialog.getByLabel('Mentor').selectOption({ label: 'Ann Admin' });
      await dialog.getByRole('button', { name: 'Save changes' }).click();
      await dialog.waitFor({ state: 'detached' });
      const fieldsOf = async (id: number) => assertSuccess(await owner.get(`/users/${id}`, { include_custom_profile_fields: true })).user.profile_data;
      const renamed = await userOf(eve.id);
      assert.equal(renamed.full_name, 'Eve Renamed');
      assert.equal(renamed.role, 300);
      const data = await fieldsOf(eve.id);
      assert.equal(data[team].value, 'Platform');
      assert.equal(data[mentor].value, JSON.stringify([ann.id]));
      // The card follows (the events).
      const card = await openCard('Eve writes', 'Eve Renamed');
      assert.equal(await fact(card, 'Role'), 'Moderator');
      const values = card.getByLabel('Profile fields of Eve Renamed');
      await eventually(async () => (await values.locator('dt').allTextContents()).join() === 'Team,Mentor', 'her profile fields on the card');
      assert.deepEqual((await values.locator('dd').allTextContents()).map((v) => v.trim()), ['Platform', 'Ann Admin']);
      await page.keyboard.press('Escape');
      await card.waitFor({ state: 'detached' });
      // A field emptied is cleared; one left alone is not sent.
      await openManage('Eve writes', 'Eve Renamed');
      assert.equal(await dialog.getByLabel('Team').inputValue(), 'Platform');
      // A role change made elsewhere meanwhile shows, and saving does not undo it.
      assertSuccess(await owner.patch(`/users/${eve.id}`, { role: 400 }));
      await eventually(async () => (await dialog.getByLabel('User role').inputValue()) === '400', 'the new role in the dialog');
      await dialog.getByLabel('Team').fill('');
      await dialog.getByRole('button', { name: 'Save changes' }).click();
      await dialog.waitFor({ state: 'detached' });
      await eventually(async () => !(String(team) in (await fieldsOf(eve.id))), 'Team cleared');
      assert.equal((await fieldsOf(eve.id))[mentor].value, JSON.stringify([ann.id]));
      assert.equal((await userOf(eve.id)).role, 400);

      // The owner: Ann may not demote her; the server's reason shows, the dialog stays.
      const ownerName = (await userOf(t.owner.id)).full_name as string;
      await openManage('The owner writes', ownerName);
      await dialog.getByLabel('User role').selectOption({ label: 'Member' });
      await dialog.getByRole('button', { name: 'Save changes' }).click();
      await dialog.getByRole('alert').getByText('Must be an organization owner').waitFor();
      assert.equal((await userOf(t.owner.id)).role, 100);
      // Escape closes it.
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      // Eve deactivated, after the question, with a note for the email she gets.
      await openManage('Eve writes', 'Eve Renamed');
      await dialog.getByRole('button', { name: 'Deactivate user' }).click();
      const question = dialog.getByRole('alertdialog', { name: 'Deactivate Eve Renamed?' });
      await question.waitFor();
      // Cancelled first: nothing happens.
      await question.getByRole('button', { name: 'Cancel' }).click();
      await question.waitFor({ state: 'detached' });
      assert.equal((await userOf(eve.id)).is_active, true);
      await dialog.getByRole('button', { name: 'Deactivate user' }).click();
      await dialog.getByLabel('Notify this user by email').check();
      await dialog.getByLabel('A note for the email (optional)').fill('Thank you for your work here.');
      await question.getByRole('button', { name: 'Deactivate' }).click();
      await dialog.waitFor({ state: 'detached' });
      assert.equal((await userOf(eve.id)).is_active, false);
      await eventually(async () => sentEmails(t.server.svc.config.dataDir, eve.email).some((e) => e.text.includes('Thank you for your work here.')), 'the email with the note');

      // Reactivated from the same place.
      await openManage('Eve writes', 'Eve Renamed', 'Reactivate user');
      await dialog.getByText('This user is deactivated.').waitFor();
      assert.equal(await dialog.getByLabel('Name').count(), 0);
      await dialog.getByRole('button', { name: 'Reactivate user' }).click();
      await dialog.waitFor({ state: 'detached' });
      assert.equal((await userOf(eve.id)).is_active, true);
    }));

  test('"Manage user"\'s Channels and User groups tabs: the channels and groups a user is in, unsubscribed, subscribed, removed and added by an administrator, following the events', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const ann = await t.makeUser({ password: PASSWORD, name: 'Ann Admin', role: 200 });
      const eve = await t.makeUser({ name: 'Eve Member' });
      const subscribe = async (name: string, ids: number[]) => assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: ids }));
      await subscribe('design', [t.owner.id, eve.id]);
      await subscribe('ops', [t.owner.id]);
      const streamId = (name: string) => streamIdOf(owner, name);
      const subscribed = async (name: string) => assertSuccess(await owner.get(`/users/${eve.id}/subscriptions/${await streamId(name)}`)).is_subscribed as boolean;
      const group = async (name: string, members: number[]) => assertSuccess(await owner.post('/user_groups/create', { name, description: '', members })).group_id as number;
      const reviewers = await group('Reviewers', [eve.id]);
      const writers = await group('Writers', [t.owner.id]);
      const membersOf = async (id: number) => assertSuccess(await owner.get(`/user_groups/${id}/members`, { direct_member_only: true })).members as number[];
      const page = await loginPage(await newContext(), t.url, ann.email, PASSWORD);
      await person(page, 'Eve Member').click();
      await page.getByRole('dialog', { name: 'Eve Member' }).getByRole('button', { name: 'Manage user' }).click();
      const dialog = page.getByRole('dialog', { name: 'Manage user' });
      await dialog.waitFor();
      const tabs = dialog.getByRole('tablist', { name: 'Manage user' });
      assert.deepEqual(await tabs.getByRole('tab').allTextContents(), ['Profile', 'Channels', 'User groups']);
      // The arrow keys (and Home, End) choose the tab beside the focused one, and focus it.
      const on = (name: string) =>
        eventually(async () => (await tabs.locator('[aria-selected="true"]').textContent()) === name && (await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)) === name, `the ${name} tab chosen and focused`);
      await tabs.getByRole('tab', { name: 'Profile' }).focus();
      await page.keyboard.press('ArrowRight');
      await on('Channels');
      await page.keyboard.press('End');
      await on('User groups');
      await page.keyboard.press('ArrowRight');
      await on('Profile');
      await page.keyboard.press('ArrowLeft');
      await on('User groups');
      await page.keyboard.press('Home');
      await on('Profile');
      const tabsAt = async () => (await tabs.boundingBox())!.y;
      const top = await tabsAt();
      // Channels: hers listed; one she leaves, one she joins (checked through the API); the list follows.
      await tabs.getByRole('tab', { name: 'Channels' }).click();
      const channels = dialog.getByRole('list', { name: 'Channels of Eve Member' });
      await channels.getByRole('listitem', { name: '#design' }).waitFor();
      // The tabs stay where they were as the dialog's height changes.
      assert.equal(await tabsAt(), top);
      assert.equal(await channels.getByRole('listitem', { name: '#ops' }).count(), 0);
      await channels.getByRole('button', { name: 'Unsubscribe Eve Member from #design' }).click();
      await channels.getByRole('listitem', { name: '#design' }).waitFor({ state: 'detached' });
      assert.equal(await subscribed('design'), false);
      await dialog.getByLabel('Subscribe to a channel').selectOption({ label: '#ops' });
      await dialog.getByRole('button', { name: 'Subscribe', exact: true }).click();
      await channels.getByRole('listitem', { name: '#ops' }).waitFor();
      assert.equal(await subscribed('ops'), true);
      // A change made elsewhere shows too (the subscription events).
      await subscribe('design', [eve.id]);
      await channels.getByRole('listitem', { name: '#design' }).waitFor();

      // User groups: hers listed (no system group); removed from one, added to another.
      await tabs.getByRole('tab', { name: 'User groups' }).click();
      const groups = dialog.getByRole('list', { name: 'Groups of Eve Member' });
      await groups.getByRole('listitem', { name: 'Reviewers' }).waitFor();
      assert.deepEqual(await groups.getByRole('listitem').allTextContents(), ['ReviewersRemove']);
      await groups.getByRole('button', { name: 'Remove Eve Member from Reviewers' }).click();
      await dialog.getByText('Not a member of any group.').waitFor();
      assert.deepEqual(await membersOf(reviewers), []);
      await dialog.getByLabel('Add to a group').selectOption({ label: 'Writers' });
      await dialog.getByRole('button', { name: 'Add', exact: true }).click();
      await groups.getByRole('listitem', { name: 'Writers' }).waitFor();
      assert.deepEqual((await membersOf(writers)).sort((a, b) => a - b), [t.owner.id, eve.id].sort((a, b) => a - b));

      // Back on Profile: her name, and Deactivate.
      await tabs.getByRole('tab', { name: 'Profile' }).click();
      assert.equal(await dialog.getByLabel('Name').inputValue(), 'Eve Member');
      await dialog.getByRole('button', { name: 'Deactivate user' }).waitFor();
      // Deactivated elsewhere while another tab is open: no tabs, and Reactivate.
      await tabs.getByRole('tab', { name: 'Channels' }).click();
      assertSuccess(await owner.delete(`/users/${eve.id}`));
      await dialog.getByText('This user is deactivated.').waitFor();
      assert.equal(await tabs.count(), 0);
      await dialog.getByRole('button', { name: 'Reactivate user' }).click();
      await dialog.waitFor({ state: 'detached' });
      assert.equal(assertSuccess(await owner.get(`/users/${eve.id}`)).user.is_active, true);
    }));

  test('"Manage bot" from a bot\'s card (its owner\'s, an administrator\'s): name and owner saved together, its role by an administrator, an outgoing webhook\'s endpoint and format, a refusal shown in the dialog, deactivation, reactivation by an administrator', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Botmaker' });
      const carol = await t.makeUser({ name: 'Carol Heir' });
      const made = assertSuccess(await t.client(bob).post('/bots', { full_name: 'Helper Bot', short_name: 'helper', bot_type: 1 }));
      const botId = made.user_id as number;
      assertSuccess(await owner.post('/bots', { full_name: 'Other Bot', short_name: 'other', bot_type: 1 }));
      const userOf = async (id: number) => assertSuccess(await owner.get(`/users/${id}`)).user;
      await sendTo(t.client({ email: (await userOf(botId)).email, apiKey: made.api_key as string }), 'helping', 'Helper writes');
      const page = await loginPage(await newContext(), t.url, bob.email, PASSWORD);
      const openCard = async (p: Page, name: string) => {
        await messageRow(p, 'Helper writes').getByRole('button', { name }).click();
        const card = p.getByRole('dialog', { name });
        await card.waitFor();
        return card;
      };
      const dialog = page.getByRole('dialog', { name: 'Manage bot' });

      // Its owner: the bot's address and ID, the focus on its name.
      await (await openCard(page, 'Helper Bot')).getByRole('button', { name: 'Manage bot' }).click();
      await dialog.waitFor();
      await dialog.getByText(`User ID: ${botId}`).waitFor();
      await dialog.getByText((await userOf(botId)).email).waitFor();
      await eventually(() => page.evaluate(() => (globalThis as any).document.activeElement?.id === 'manage-bot-name'), 'the focus on its name');
      assert.equal(await dialog.getByLabel('Bot owner').inputValue(), String(bob.id));
      // (A bot's role is for administrators to change.)
      assert.equal(await dialog.getByLabel('Role').count(), 0);
      // Its owner's zuliprc: the key asked for, then shown with the file to download.
      await dialog.getByRole('button', { name: 'Show API key of Helper Bot' }).click();
      assert.equal(await dialog.getByLabel('API key of Helper Bot').textContent(), made.api_key);
      const rc = await dialog.getByRole('link', { name: 'Download zuliprc' }).getAttribute('href');
      assert.equal(decodeURIComponent(rc!.replace(/^data:text\/plain;charset=utf-8,/, '')), `[api]\nemail=${(await userOf(botId)).email}\nkey=${made.api_key}\nsite=${t.url}\n`);
      // A name another bot has: the server's reason shows, the dialog stays.
      await dialog.getByLabel('Name').fill('Other Bot');
      await dialog.getByRole('button', { name: 'Save changes' }).click();
      await dialog.getByRole('alert').getByText('Name is already in use!').waitFor();
      // A new name and a new owner, saved together; the dialog closes.
      await dialog.getByLabel('Name').fill('Helper Renamed');
      await dialog.getByLabel('Bot owner').selectOption({ label: 'Carol Heir' });
      await dialog.getByRole('button', { name: 'Save changes' }).click();
      await dialog.waitFor({ state: 'detached' });
      const after = await userOf(botId);
      assert.equal(after.full_name, 'Helper Renamed');
      assert.equal(after.bot_owner_id, carol.id);
      // The card follows; Bob, no longer its owner (and no administrator), has nothing to manage.
      const card = await openCard(page, 'Helper Renamed');
      await factBecomes(card, 'Bot', 'Owned by Carol Heir');
      assert.equal(await card.getByRole('button', { name: /^Manage/ }).count(), 0);
      await page.keyboard.press('Escape');
      await card.waitFor({ state: 'detached' });

      // An outgoing webhook of Bob's: its endpoint and message format, changed together.
      const hook = assertSuccess(await t.client(bob).post('/bots', { full_name: 'Hook Bot', short_name: 'hook', bot_type: 3, payload_url: JSON.stringify('https://hooks.example.com/one') })).user_id as number;
      const serviceOf = async () =>
        (assertSuccess(await t.client(bob).post('/register', { fetch_event_types: JSON.stringify(['realm_bot']) })).realm_bots as Array<{ user_id: number; services: Array<{ base_url: string; interface: number }> }>).find((x) => x.user_id === hook)!.services[0];
      await person(page, 'Hook Bot').click();
      await page.getByRole('dialog', { name: 'Hook Bot' }).getByRole('button', { name: 'Manage bot' }).click();
      await dialog.waitFor();
      assert.equal(await dialog.getByLabel('Endpoint URL').inputValue(), 'https://hooks.example.com/one');
      assert.equal(await dialog.getByLabel('Outgoing webhook message format').inputValue(), '1');
      await dialog.getByLabel('Endpoint URL').fill('https://hooks.example.com/two');
      await dialog.getByLabel('Outgoing webhook message format').selectOption({ label: 'Slack compatible' });
      await dialog.getByRole('button', { name: 'Save changes' }).click();
      await dialog.waitFor({ state: 'detached' });
      const changed = await serviceOf();
      assert.deepEqual([changed.base_url, changed.interface], ['https://hooks.example.com/two', 2]);
      // Shown as it now is (the realm_bot event); a generic bot has no endpoint.
      await person(page, 'Hook Bot').click();
      await page.getByRole('dialog', { name: 'Hook Bot' }).getByRole('button', { name: 'Manage bot' }).click();
      assert.equal(await dialog.getByLabel('Endpoint URL').inputValue(), 'https://hooks.example.com/two');
      assert.equal(await dialog.getByLabel('Outgoing webhook message format').inputValue(), '2');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      // An administrator: deactivation after the question (cancelled first), then reactivation.
      const admin = await loginPage(await newContext(), t.url, t.owner.email, OWNER_PASSWORD);
      const adminDialog = admin.getByRole('dialog', { name: 'Manage bot' });
      const manage = async () => {
        await (await openCard(admin, 'Helper Renamed')).getByRole('button', { name: 'Manage bot' }).click();
        await adminDialog.waitFor();
      };
      await manage();
      assert.equal(await adminDialog.getByLabel('Endpoint URL').count(), 0);
      // (An administrator who does not own it gets no zuliprc here, as in Zulip's.)
      assert.equal(await adminDialog.getByRole('button', { name: /^Show API key/ }).count(), 0);
      // Its role, which an administrator changes (Owner is for owners to give: this one is).
      assert.equal(await adminDialog.getByLabel('Role').inputValue(), '400');
      await adminDialog.getByLabel('Role').selectOption({ label: 'Moderator' });
      await adminDialog.getByRole('button', { name: 'Save changes' }).click();
      await adminDialog.waitFor({ state: 'detached' });
      assert.equal((await userOf(botId)).role, 300);
      await manage();
      assert.equal(await adminDialog.getByLabel('Role').inputValue(), '300');
      await adminDialog.getByRole('button', { name: 'Deactivate bot' }).click();
      const question = adminDialog.getByRole('alertdialog', { name: 'Deactivate Helper Renamed?' });
      await question.getByRole('button', { name: 'Cancel' }).click();
      await question.waitFor({ state: 'detached' });
      assert.equal((await userOf(botId)).is_active, true);
      await adminDialog.getByRole('button', { name: 'Deactivate bot' }).click();
      await question.getByRole('button', { name: 'Deactivate' }).click();
      await adminDialog.waitFor({ state: 'detached' });
      assert.equal((await userOf(botId)).is_active, false);
      await manage();
      await adminDialog.getByText('This bot is deactivated.').waitFor();
      assert.equal(await adminDialog.getByLabel('Name').count(), 0);
      await adminDialog.getByRole('button', { name: 'Reactivate bot' }).click();
      await adminDialog.waitFor({ state: 'detached' });
      assert.equal((await userOf(botId)).is_active, true);
    }));

  test('Tab and Shift+Tab stay inside an open card and inside Settings', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Tabber' });
      const page = await loginPage(await newContext(), t.url, bob.email, PASSWORD);
      /** Whether the focused element is inside the dialog called `name`. */
      const inside = (name: string) =>
        page.evaluate((n) => {
          const at = (globalThis as any).document.activeElement;
          const dialog = at?.closest('[role="dialog"]');
          return !!dialog && (dialog.getAttribute('aria-label') === n || (globalThis as any).document.getElementById(dialog.getAttribute('aria-labelledby'))?.textContent === n);
        }, name);

      await page.getByRole('complementary', { name: 'People' }).getByRole('button', { name: /Bob Tabber/ }).click();
      await page.getByRole('dialog', { name: 'Bob Tabber' }).waitFor();
      // More presses than the card has controls, both ways.
      for (const key of ['Tab', 'Shift+Tab']) {
        for (let i = 0; i < 8; i++) {
          await page.keyboard.press(key);
          assert.ok(await inside('Bob Tabber'), `${key} #${i + 1} left the card`);
        }
      }
      await page.keyboard.press('Escape');
      await eventually(async () => (await page.getByRole('dialog', { name: 'Bob Tabber' }).count()) === 0, 'the card to close');

      const close = (await openSettings(page)).getByRole('button', { name: 'Close settings' });
      await close.focus();
      // Before the first control: to the last one in Settings, then on past it: back to the first.
      await page.keyboard.press('Shift+Tab');
      assert.ok(await inside('Settings'), 'Shift+Tab left Settings');
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label')), 'Close settings');
    }));

  test('People in a large organization: the first rows show, more as the list\'s end scrolls into view; the counts and the filter cover everyone', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Many' });
      /** The rows the list shows at first (PEOPLE_PAGE in web/src/ui/People.tsx). */
      const PEOPLE_PAGE = 100;
      const many = 130;
      for (let i = 0; i < many; i++) await t.makeUser({ name: `Person ${String(i).padStart(3, '0')}` });
      const page = await loginPage(await newContext(), t.url, bob.email, PASSWORD);
      const people = page.getByRole('complementary', { name: 'People' });
      const rows = people.locator('button.person');
      await people.getByRole('button', { name: /^Person 000\b/ }).waitFor();
      // (The owner, Bob and the others: Bob active, the rest offline.)
      assert.equal(await rows.count(), PEOPLE_PAGE);
      assert.equal(await people.getByRole('region', { name: 'Offline' }).locator('.muted-text').first().textContent(), String(many + 1));
      // Someone not shown yet is found by the filter.
      await people.getByLabel('Filter people').fill('Person 129');
      await people.getByRole('button', { name: /^Person 129\b/ }).waitFor();
      await people.getByLabel('Filter people').fill('');
      await eventually(async () => (await rows.count()) === PEOPLE_PAGE, 'the first rows again');
      // Scrolled to its end, the list shows the rest.
      await people.evaluate((el) => el.scrollTo(0, el.scrollHeight));
      await eventually(async () => (await rows.count()) === many + 2, 'everyone shown');
      await people.getByRole('button', { name: /^Person 129\b/ }).waitFor();
    }));

  test("People in a channel, a topic and a direct message conversation: Zulip's sections (this conversation, this channel, others folded), kept current; a channel's \"View all subscribers\"", () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob People' });
      const carol = await t.makeUser({ name: 'Carol People' });
      await t.makeUser({ name: 'Dan People' });
      const erin = await t.makeUser({ name: 'Erin People' });
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'lounge' }]), principals: JSON.stringify([t.owner.id, bob.id, carol.id]) }));
      const lounge = await streamIdOf(owner, 'lounge');
      assertSuccess(await owner.post('/messages', { type: 'stream', to: 'lounge', topic: 'plans', content: 'Plans first' }));
      const page = await loginPage(await newContext(), t.url, bob.email, PASSWORD);
      const people = page.getByRole('complementary', { name: 'People' });
      const names = (section: string) => people.getByRole('region', { name: section, exact: true }).locator('.person-name').evaluateAll((els) => els.map((e) => e.childNodes[0]!.textContent));
      const sections = () => people.getByRole('region').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
      const others = people.getByRole('button', { name: /Others/ });

      // Outside a conversation: by presence, as before.
      await people.getByRole('region', { name: 'Active' }).waitFor();

      // A topic: who wrote in it, then the channel's other subscribers; the others folded until opened.
      await goToHash(page, `#narrow/channel/${lounge}-lounge/topic/plans`);
      await messageRow(page, 'Plans first').waitFor();
      await eventually(async () => JSON.stringify(await sections()) === JSON.stringify(['This conversation', 'This channel', 'Others']), 'the three sections');
      assert.deepEqual(await names('This conversation'), [t.owner.row.full_name]);
      assert.deepEqual(await names('This channel'), ['Bob People', 'Carol People']);
      assert.equal(await others.getAttribute('aria-expanded'), 'false');
      assert.deepEqual(await names('Others'), []);
      await others.click();
      assert.deepEqual(await names('Others'), ['Dan People', 'Erin People']);
      // Someone new writes in the topic, someone joins the channel: the sections follow.
      assertSuccess(await t.client(carol).post('/messages', { type: 'stream', to: 'lounge', topic: 'plans', content: 'Plans second' }));
      await eventually(async () => JSON.stringify(await names('This conversation')) === JSON.stringify(['Carol People', t.owner.row.full_name]), 'Carol among the participants');
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'lounge' }]), principals: JSON.stringify([erin.id]) }));
      await eventually(async () => JSON.stringify(await names('This channel')) === JSON.stringify(['Bob People', 'Erin People']), 'Erin in the channel');
      assert.deepEqual(await names('Others'), ['Dan People']);
      // Filtering shows every section that has a match, the others unfolded.
      await others.click();
      await people.getByLabel('Filter people').fill('dan');
      await eventually(async () => JSON.stringify(await names('Others')) === JSON.stringify(['Dan People']), 'Dan found among the others');
      await people.getByLabel('Filter people').fill('');

      // The channel's feed: no participants.
      await goToHash(page, `#narrow/channel/${lounge}-lounge`);
      await eventually(async () => JSON.stringify(await sections()) === JSON.stringify(['This channel', 'Others']), 'the channel sections');
      assert.deepEqual(await names('This channel'), ['Bob People', 'Carol People', 'Erin People', t.owner.row.full_name]);
      // "View all subscribers": the channel's Subscribers settings, at Zulip's address.
      const viewAll = people.getByRole('link', { name: 'View all subscribers' });
      assert.equal(await viewAll.getAttribute('href'), `#channels/${lounge}/lounge/subscribers`);
      await viewAll.click();
      const subscriberList = page.getByRole('dialog', { name: 'Channels' }).getByRole('list', { name: 'Subscribers of #lounge' });
      await eventually(async () => (await subscriberList.getByRole('listitem').count()) === 4, 'the four subscribers listed');
      await page.keyboard.press('Escape');
      await subscriberList.waitFor({ state: 'detached' });

      // A direct message conversation: its people (oneself among them), then the others; no channel's link.
      await goToHash(page, `#narrow/dm/${carol.id}-Carol-People`);
      await eventually(async () => JSON.stringify(await sections()) === JSON.stringify(['This conversation', 'Others']), 'the conversation sections');
      assert.deepEqual(await names('This conversation'), ['Bob People', 'Carol People']);
      assert.equal(await viewAll.count(), 0);
    }));
});
