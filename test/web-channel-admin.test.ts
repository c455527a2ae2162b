/**
 * The web client's channel settings (Channels dialog) in real Chromium:
 * an administrator renames a channel, changes its description and
 * privacy, makes it a default channel, adds and removes a subscriber,
 * archives a channel (its name still refused for a new one), finds it with
 * the dialog's archived filter and unarchives it, each checked at the
 * server; changes made elsewhere
 * show in the open page, the description under the name of the channel in
 * view too (and not under Inbox or Recent conversations); a member is offered the settings only of the
 * channels they may administer, and sees any channel's subscribers (adding
 * and removing where the server lets them); Zulip's addresses of a channel's
 * subscribers and personal settings open those. Channel folders: an administrator adds,
 * reorders, edits, archives and unarchives them in Settings and puts a
 * channel in one from its settings (each checked at the server); the left
 * sidebar groups the channels by folder, follows changes made elsewhere, and
 * lists them plainly when the user turns grouping off. An archived channel
 * stays known to a subscriber's page (its name on its messages, live and
 * after a reload), out of the sidebar, the Channels dialog and the compose
 * box's channels, its topics neither resolved nor moved, and a message to
 * it is stopped with Zulip's error.
 * Skipped (with one line saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertSuccess, type Client, OWNER_EMAIL, OWNER_PASSWORD, settingsAtServer, streamIdOf } from './helpers.ts';
import { browserTests, channelContents, channelLink, eventGate, eventually, holdRequests, inDialogView, goToHash as go, loginPage, messageRow, openSidebarMenu, PASSWORD, selectedText, send, withWebServer, openSettings } from './web-browser.ts';

/** The channel as the server has it. */
async function channelAtServer(api: Client, id: number): Promise<Record<string, any>> {
  return assertSuccess(await api.get(`/streams/${id}`)).stream as Record<string, any>;
}

/** Whether the channel is one of the organization's default channels, as the server has it. */
async function isDefaultAtServer(api: Client, id: number): Promise<boolean> {
  const r = assertSuccess(await api.post('/register', { fetch_event_types: JSON.stringify(['default_streams']) }));
  return (r.realm_default_streams as number[]).includes(id);
}

async function subscribersAtServer(api: Client, id: number): Promise<number[]> {
  return assertSuccess(await api.get(`/streams/${id}/members`)).subscribers as number[];
}

/** Creates a channel (the owner its creator) with these subscribers; its ID. */
async function makeChannel(owner: Client, name: string, description: string, principals: number[]): Promise<number> {
  assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name, description }]), principals: JSON.stringify(principals) }));
  return await streamIdOf(owner, name);
}

/** The Channels dialog's list of a logged-in page, and a channel's row in it. */
async function channelList(page: Page) {
  await page.getByRole('navigation', { name: 'Channels' }).getByRole('button', { name: 'Browse and create channels' }).click();
  const list = page.getByRole('dialog', { name: 'Channels' }).getByRole('list', { name: 'All channels' });
  await list.getByRole('listitem').first().waitFor();
  return { list, row: (name: string) => list.getByRole('listitem', { name: `#${name}`, exact: true }) };
}

await browserTests('the web client in Chromium: channel settings', (newContext) => {
  test('channel settings: an administrator renames, describes, makes private and public, default and not, adds and removes a subscriber, archives and unarchives; changes made elsewhere show', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const ada = await t.makeUser({ password: PASSWORD, name: 'Ada Admin', role: 200 });
      const carol = await t.makeUser({ name: 'Carol Channels' });
      const dan = await t.makeUser({ name: 'Dan Channels' });
      const design = await makeChannel(owner, 'design', 'Old words', [t.owner.id, ada.id]);
      const attic = await makeChannel(owner, 'attic', 'Old things', [t.owner.id]);
      const ctx = await newContext();
      const events = await eventGate(ctx);
      const page = await loginPage(ctx, t.url, ada.email, PASSWORD);
      const { list, row } = await channelList(page);

      await row('design').getByRole('button', { name: 'Open settings of #design' }).click();
      const settings = list.getByRole('group', { name: /^Settings of #/ });
      const subscribers = settings.getByRole('list', { name: /^Subscribers of #/ });
      await subscribers.getByRole('listitem', { name: 'Ada Admin' }).waitFor();

      // Renamed and described.
      await settings.getByLabel('Channel name').fill('design-team');
      await settings.getByLabel('Channel description').fill('Pixels and colour');
      await settings.getByRole('button', { name: 'Save channel' }).click();
      await settings.getByRole('status').filter({ hasText: 'Channel saved.' }).waitFor();
      let s = await channelAtServer(owner, design);
      assert.equal(s.name, 'design-team');
      assert.equal(s.description, 'Pixels and colour');
      await row('design-team').getByText('Pixels and colour').waitFor();

      // A description typed while a save is under way stays when that save ends (the save is held back here).
      const description = settings.getByLabel('Channel description');
      const saveChannel = settings.getByRole('button', { name: 'Save channel' });
      const held = await holdRequests(page, `**/json/streams/${design}`, 'PATCH');
      await description.fill('Pixels');
      await saveChannel.click();
      await eventually(() => saveChannel.isDisabled(), 'the save under way');
      await description.fill('Pixels, colour and type');
      held.release();
      await eventually(async () => (await channelAtServer(owner, design)).description === 'Pixels', 'the first description at the server');
      await eventually(async () => !(await saveChannel.isDisabled()), 'the save done');
      assert.equal(await description.inputValue(), 'Pixels, colour and type');
      await held.stop();
      await saveChannel.click();
      await eventually(async () => (await channelAtServer(owner, design)).description === 'Pixels, colour and type', 'the description typed meanwhile saved');

      // A name already taken: the server's reason, nothing changed.
      await settings.getByLabel('Channel name').fill('attic');
      await settings.getByRole('button', { name: 'Save channel' }).click();
      await settings.getByRole('alert').filter({ hasText: "Channel 'attic' already exists" }).waitFor();
      assert.equal((await channelAtServer(owner, design)).name, 'design-team');
      await settings.getByLabel('Channel name').fill('design-team');

      // Private, then public again.
      const privacy = settings.getByLabel('Who can read it');
      await privacy.selectOption('shared');
      await settings.getByRole('button', { name: 'Save channel' }).click();
      await eventually(async () => (await channelAtServer(owner, design)).invite_only === true, 'the channel private at the server');
      assert.equal((await channelAtServer(owner, design)).history_public_to_subscribers, true);
      await privacy.selectOption('public');
      await settings.getByRole('button', { name: 'Save channel' }).click();
      await eventually(async () => (await channelAtServer(owner, design)).invite_only === false, 'the channel public again at the server');
      // The same before the page has the first change's event: shown as saved at once, so choosing public again is a change to send.
      events.hold();
      const save = settings.getByRole('button', { name: 'Save channel' });
      await privacy.selectOption('shared');
      await save.click();
      await eventually(async () => (await channelAtServer(owner, design)).invite_only === true, 'the channel private at the server (events held)');
      await eventually(() => save.isEnabled(), 'the save answered');
      assert.equal(await privacy.inputValue(), 'shared');
      await privacy.selectOption('public');
      await save.click();
      await eventually(async () => (await channelAtServer(owner, design)).invite_only === false, 'the channel public again at the server (events held)');
      events.release();

      // A default channel, then not.
      const isDefault = settings.getByLabel('Default channel: new users join it');
      // (Clicked: the box shows what the server has, once its event comes.)
      await isDefault.click();
      await eventually(async () => await isDefaultAtServer(owner, design), 'the channel default at the server');
      await eventually(() => isDefault.isChecked(), 'the box checked');
      // A default channel cannot be private: the server says so.
      await privacy.selectOption('protected');
      await settings.getByRole('button', { name: 'Save channel' }).click();
      await settings.getByRole('alert').filter({ hasText: 'A default channel cannot be private.' }).waitFor();
      assert.equal((await channelAtServer(owner, design)).invite_only, false);
      await privacy.selectOption('public');
      await isDefault.click();
      await eventually(async () => !(await isDefaultAtServer(owner, design)), 'the channel no longer default at the server');
      await eventually(async () => !(await isDefault.isChecked()), 'the box unchecked');

      // A subscriber added, then removed.
      await settings.getByLabel('Add a subscriber').selectOption({ label: 'Carol Channels' });
      await settings.getByRole('button', { name: 'Add', exact: true }).click();
      await eventually(async () => (await subscribersAtServer(owner, design)).includes(carol.id), 'Carol subscribed at the server');
      await subscribers.getByRole('listitem', { name: 'Carol Channels' }).waitFor();
      await subscribers.getByRole('button', { name: 'Remove Carol Channels from #design-team' }).click();
      await eventually(async () => !(await subscribersAtServer(owner, design)).includes(carol.id), 'Carol unsubscribed at the server');
      await eventually(async () => (await subscribers.getByRole('listitem', { name: 'Carol Channels' }).count()) === 0, 'Carol gone from the page');

      // Changes the owner makes through the API show in the open page.
      assertSuccess(await owner.patch(`/streams/${design}`, { new_name: 'studio', description: 'Set by the **owner**' }));
      // The list shows the description as the server rendered it.
      await row('studio').locator('.channel-description strong', { hasText: 'owner' }).waitFor();
      await eventually(async () => (await settings.getByLabel('Channel name').inputValue()) === 'studio', 'the new name in the open settings');
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'studio' }]), principals: JSON.stringify([dan.id]) }));
      await subscribers.getByRole('listitem', { name: 'Dan Channels' }).waitFor();
      assertSuccess(await owner.delete('/users/me/subscriptions', { subscriptions: JSON.stringify(['studio']), principals: JSON.stringify([dan.id]) }));
      await eventually(async () => (await subscribers.getByRole('listitem', { name: 'Dan Channels' }).count()) === 0, 'Dan gone from the page');
      assertSuccess(await owner.post('/default_streams', { stream_id: design }));
      await eventually(() => isDefault.isChecked(), 'the box checked by the default_streams event');
      assertSuccess(await owner.delete('/default_streams', { stream_id: design }));
      assertSuccess(await owner.patch(`/streams/${design}`, { is_private: true }));
      await eventually(async () => (await privacy.inputValue()) === 'protected', 'the privacy chosen elsewhere shown');
      await makeChannel(owner, 'newcomer', 'Made elsewhere', [t.owner.id]);
      await row('newcomer').getByText('Made elsewhere').waitFor();

      // Archived, once confirmed.
      await row('attic').getByRole('button', { name: 'Open settings of #attic' }).click();
      await settings.getByRole('button', { name: 'Archive #attic' }).click();
      const confirm = settings.getByRole('alertdialog', { name: 'Archive #attic?' });
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      assert.equal((await channelAtServer(owner, attic)).is_archived, false);
      await settings.getByRole('button', { name: 'Archive #attic' }).click();
      await confirm.getByRole('button', { name: 'Archive', exact: true }).click();
      await eventually(async () => (await row('attic').count()) === 0, 'the archived channel gone from the list');
      assert.equal((await channelAtServer(owner, attic)).is_archived, true);
      // Its name is still taken: a new channel of that name is refused here, saying why.
      const dialog = page.getByRole('dialog', { name: 'Channels' });
      await dialog.getByLabel('Name', { exact: true }).fill('Attic');
      await dialog.getByRole('button', { name: 'Create channel' }).click();
      await dialog.getByText('An archived channel with this name already exists.').waitFor();
      await dialog.getByLabel('Name', { exact: true }).fill('');
      // Listed when the archived ones are asked for (and only then), marked; its settings offer Unarchive and nothing to change.
      const archivedOrNot = dialog.getByLabel('Archived or not');
      await archivedOrNot.selectOption('archived_channels');
      await row('attic').getByText('Archived', { exact: true }).waitFor();
      assert.equal(await row('studio').count(), 0);
      // (Its settings, open when it was archived, are open still.)
      await row('attic').getByRole('button', { name: 'Close settings of #attic' }).waitFor();
      const archivedSettings = list.getByRole('group', { name: 'Settings of #attic' });
      await archivedSettings.getByText("Archived channel permissions can't be modified.", { exact: false }).waitFor();
      assert.equal(await archivedSettings.getByLabel('Channel name').count(), 0);
      assert.equal(await archivedSettings.getByRole('button', { name: /^Remove / }).count(), 0);
      await archivedSettings.getByRole('button', { name: 'Unarchive #attic' }).click();
      await archivedSettings.getByRole('alertdialog', { name: 'Unarchive #attic?' }).getByRole('button', { name: 'Unarchive', exact: true }).click();
      await eventually(async () => (await channelAtServer(owner, attic)).is_archived === false, 'the channel unarchived at the server');
      await eventually(async () => (await row('attic').count()) === 0, 'the channel gone from the archived ones');
      await archivedOrNot.selectOption('all_channels');
      await row('attic').waitFor();
      await row('studio').waitFor();
      assert.equal(await row('attic').getByText('Archived', { exact: true }).count(), 0);
      await archivedOrNot.selectOption('non_archived_channels');
      await row('attic').waitFor();

      // The channel in view shows its description (rendered) under its name, kept current.
      await page.keyboard.press('Escape');
      await (await channelLink(page, 'studio')).click();
      const heading = page.locator('.narrow-heading');
      await heading.getByText('Set by the owner').waitFor();
      assertSuccess(await owner.patch(`/streams/${design}`, { description: 'Now **bold**' }));
      await heading.locator('strong', { hasText: 'bold' }).waitFor();
      // Not under the views shown over it.
      for (const view of [/^Inbox/, /^Recent conversations/]) {
        await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: view }).click();
        await page.getByRole('heading', { level: 1, name: view }).waitFor();
        assert.equal(await heading.locator('.narrow-description').count(), 0);
      }
      await ctx.close();
    }));

  test('channel permissions: an administrator makes a channel one only administrators post to (the server has it, and refuses a member\u2019s message; her compose box says so); a change made elsewhere shows', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const ada = await t.makeUser({ password: PASSWORD, name: 'Ada Admin', role: 200 });
      const bea = await t.makeUser({ name: 'Bea Member', password: PASSWORD });
      const news = await makeChannel(owner, 'news', 'Announcements', [t.owner.id, ada.id, bea.id]);
      const groups = assertSuccess(await owner.get('/user_groups')).user_groups as Array<{ id: number; name: string; is_system_group: boolean }>;
      const sys = (name: string) => groups.find((g) => g.is_system_group && g.name === name)!.id;
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, ada.email, PASSWORD);
      const { list, row } = await channelList(page);
      await row('news').getByRole('button', { name: 'Open settings of #news' }).click();
      const perms = list.getByRole('group', { name: 'Permissions of #news' });
      const post = perms.getByLabel('Who can post to it');
      assert.equal(await selectedText(post), 'Everyone, guests included');
      await post.selectOption({ label: 'Administrators' });
      await eventually(async () => (await channelAtServer(owner, news)).can_send_message_group === sys('role:administrators'), 'administrators only, at the server');
      await perms.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      // The other group settings Zulip's channel page has, e.g. who may start new topics there.
      await perms.getByLabel('Who can start new topics').selectOption({ label: 'Moderators' });
      await eventually(async () => (await channelAtServer(owner, news)).can_create_topic_group === sys('role:moderators'), 'new topics: moderators, at the server');
      for (const label of ['Who can move messages out of it', 'Who can delete their own messages in it']) await perms.getByLabel(label).waitFor();
      // Bea can no longer post there; Ada can.
      const refused = await t.client(bea).request('POST', '/messages', { type: 'stream', to: 'news', topic: 'hi', content: 'may I?' });
      assert.equal(refused.body.result, 'error');
      assertSuccess(await t.client(ada).request('POST', '/messages', { type: 'stream', to: 'news', topic: 'hi', content: 'news!' }));
      // Bea's compose box says so before she sends.
      const beaCtx = await newContext();
      const beaPage = await loginPage(beaCtx, t.url, bea.email, PASSWORD);
      await (await channelLink(beaPage, 'news')).click();
      const compose = beaPage.getByRole('region', { name: 'Compose' });
      await compose.getByText('You do not have permission to post in this channel.').waitFor();
      assert.equal(await compose.getByRole('button', { name: 'Send', exact: true }).isDisabled(), true);
      await beaCtx.close();
      // Changed elsewhere: shown.
      assertSuccess(await owner.patch(`/streams/${news}`, { can_send_message_group: JSON.stringify({ new: sys('role:moderators'), old: sys('role:administrators') }) }));
      await eventually(async () => (await selectedText(post)) === 'Moderators', 'moderators, from elsewhere');
      await ctx.close();
    }));

  test('a channel\u2019s topics (Zulip\u2019s topics_policy): set in its settings; without topics the compose box has no topic field and sends to the general chat (named in italics everywhere, never resolved), the sidebar offers a new message; with topics required it refuses none', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const lounge = await makeChannel(owner, 'lounge', 'Chat', [t.owner.id]);
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const { list, row } = await channelList(page);
      await row('lounge').getByRole('button', { name: 'Open settings of #lounge' }).click();
      const settings = list.getByRole('group', { name: /^Settings of #/ });
      const topics = settings.getByLabel('Topics', { exact: true });
      assert.equal(await topics.inputValue(), 'inherit');
      await topics.selectOption('empty_topic_only');
      await settings.getByRole('button', { name: 'Save channel' }).click();
      await eventually(async () => (await channelAtServer(owner, lounge)).topics_policy === 'empty_topic_only', 'general chat only, at the server');
      await page.keyboard.press('Escape');
      await page.getByRole('dialog', { name: 'Channels' }).waitFor({ state: 'detached' });

      // No topic field: the message goes to the general chat.
      await (await channelLink(page, 'lounge')).click();
      await page.getByRole('heading', { name: '#lounge', exact: true }).waitFor();
      const topic = page.getByLabel('Topic', { exact: true });
      assert.equal(await topic.isDisabled(), true);
      assert.equal(await topic.getAttribute('placeholder'), 'general chat');
      await send(page, null, 'no topic needed');
      const newest = async () =>
        (assertSuccess(await owner.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, allow_empty_topic_name: 'true', narrow: JSON.stringify([{ operator: 'channel', operand: lounge }]) })).messages as Array<{ subject: string; content: string }>)[0];
      await eventually(async () => (await newest())?.content === '<p>no topic needed</p>', 'the message at the server');
      assert.equal((await newest())!.subject, '');
      // The general chat named in italics, as Zulip writes it; its menu offers no resolving (Zulip does not resolve it).
      await page.locator('.bar-topic.general-chat', { hasText: 'general chat' }).first().waitFor();
      const generalChat = page.getByRole('list', { name: 'In lounge' }).getByRole('link', { name: /^general chat/ });
      assert.match((await generalChat.getAttribute('class')) ?? '', /general-chat/);
      const chatMenu = await openSidebarMenu(page, generalChat, 'general chat');
      await chatMenu.getByRole('menuitem', { name: 'Copy link to topic' }).waitFor();
      assert.equal(await chatMenu.getByRole('menuitem', { name: 'Mark as resolved' }).count(), 0);
      await page.keyboard.press('Escape');
      // In italics in the Inbox and the channel's list of topics too. (The message comes once the Inbox
      // shows: coming while the general chat is in view, it could be marked read there first.)
      await page.evaluate(() => ((globalThis as any).location.hash = '#inbox'));
      await page.getByRole('region', { name: 'Inbox' }).waitFor();
      assertSuccess(await owner.post('/messages', { type: 'stream', to: JSON.stringify(lounge), topic: '', content: 'unread in the general chat' }));
      await page.locator('a.inbox-link.general-chat', { hasText: 'general chat' }).waitFor();
      await page.evaluate((id) => ((globalThis as any).location.hash = `#topics/channel/${id}`), lounge);
      await page.locator('a.recent-link.general-chat', { hasText: 'general chat' }).waitFor();
      await page.getByRole('link', { name: 'Channel feed' }).click();
      await page.getByRole('heading', { name: '#lounge', exact: true }).waitFor();
      await (await channelLink(page, 'lounge')).hover();
      await page.getByRole('button', { name: 'New message in #lounge' }).waitFor();

      // Topics required (set elsewhere): a message without one is refused before it is sent.
      assertSuccess(await owner.patch(`/streams/${lounge}`, { topics_policy: 'disable_empty_topic' }));
      await eventually(async () => !(await topic.isDisabled()), 'the topic field back');
      await page.getByLabel('Message', { exact: true }).fill('where does this go');
      await page.getByLabel('Message', { exact: true }).press('Enter');
      await page.getByText('Sending messages to the general chat is not allowed in this channel.').waitFor();
      assert.equal((await newest())!.content, '<p>unread in the general chat</p>');
      await send(page, 'named', 'with a topic');
      await eventually(async () => (await newest())?.subject === 'named', 'the named topic at the server');
      await ctx.close();
    }));

  test('channel settings: a member is offered only those of the channels they may administer, as they change', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Member' });
      const carol = await t.makeUser({ name: 'Carol Member' });
      const lounge = await makeChannel(owner, 'lounge', 'Chat', [t.owner.id, bob.id, carol.id]);
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      const { list, row } = await channelList(page);
      await row('lounge').getByRole('button', { name: 'Leave #lounge' }).waitFor();
      assert.equal(await list.getByRole('button', { name: /^Open settings of/ }).count(), 0);

      // Made an administrator of the channel: offered its settings, without the organization's default channels.
      assertSuccess(await owner.patch(`/streams/${lounge}`, { can_administer_channel_group: JSON.stringify({ new: { direct_members: [bob.id], direct_subgroups: [] } }) }));
      await row('lounge').getByRole('button', { name: 'Open settings of #lounge' }).click();
      const settings = list.getByRole('group', { name: 'Settings of #lounge' });
      await settings.getByRole('list', { name: 'Subscribers of #lounge' }).getByRole('listitem', { name: 'Carol Member' }).waitFor();
      assert.equal(await settings.getByLabel('Default channel: new users join it').count(), 0);
      assert.equal(await row('general').getByRole('button', { name: /^Open settings of/ }).count(), 0);
      await settings.getByLabel('Channel description').fill('Chat, kept by Bob');
      await settings.getByRole('button', { name: 'Save channel' }).click();
      await eventually(async () => (await channelAtServer(owner, lounge)).description === 'Chat, kept by Bob', 'the description changed at the server');

      // No longer one: the settings go.
      assertSuccess(await owner.patch(`/streams/${lounge}`, { can_administer_channel_group: JSON.stringify({ new: { direct_members: [], direct_subgroups: [] } }) }));
      await eventually(async () => (await list.getByRole('button', { name: /^(Open|Close) settings of/ }).count()) === 0, 'the settings button gone');
      assert.equal(await settings.count(), 0);
      await ctx.close();
    }));
  test('channel subscribers: a member sees who is in a channel and adds people where the organization lets members add; addresses open the subscribers and the personal settings', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Member' });
      const carol = await t.makeUser({ name: 'Carol Member' });
      const dan = await t.makeUser({ name: 'Dan Member' });
      const erin = await t.makeUser({ name: 'Erin Member' });
      const lounge = await makeChannel(owner, 'lounge', 'Chat', [t.owner.id, bob.id, carol.id]);
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'vault' }]), invite_only: 'true', principals: JSON.stringify([t.owner.id, bob.id]) }));
      const vault = await streamIdOf(owner, 'vault');
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      const { row } = await channelList(page);

      // The public channel's subscribers, listed for a member; the organization lets members add people to it, not remove them.
      await row('lounge').getByRole('button', { name: 'Open subscribers of #lounge' }).click();
      const roster = row('lounge').getByRole('group', { name: 'Subscribers of #lounge' });
      const listed = roster.getByRole('list', { name: 'Subscribers of #lounge' });
      await listed.getByRole('listitem', { name: 'Carol Member' }).waitFor();
      assert.deepEqual(await listed.getByRole('listitem').evaluateAll((items) => items.map((i) => i.getAttribute('aria-label'))), ['Bob Member', 'Carol Member', t.owner.row.full_name]);
      assert.equal(await roster.getByRole('button', { name: /^Remove / }).count(), 0);
      await roster.getByLabel('Add a subscriber').selectOption({ label: 'Dan Member' });
      await roster.getByRole('button', { name: 'Add', exact: true }).click();
      await eventually(async () => (await subscribersAtServer(owner, lounge)).includes(dan.id), 'Dan subscribed at the server');
      await listed.getByRole('listitem', { name: 'Dan Member' }).waitFor();
      // Changes made elsewhere show.
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'lounge' }]), principals: JSON.stringify([erin.id]) }));
      await listed.getByRole('listitem', { name: 'Erin Member' }).waitFor();
      assertSuccess(await owner.delete('/users/me/subscriptions', { subscriptions: JSON.stringify(['lounge']), principals: JSON.stringify([carol.id]) }));
      await eventually(async () => (await listed.getByRole('listitem', { name: 'Carol Member' }).count()) === 0, 'Carol gone from the list');

      // A private channel: listed, but the organization's setting does not let members add people to it.
      await row('vault').getByRole('button', { name: 'Open subscribers of #vault' }).click();
      const vaultRoster = row('vault').getByRole('group', { name: 'Subscribers of #vault' });
      await vaultRoster.getByRole('listitem', { name: 'Bob Member' }).waitFor();
      assert.equal(await vaultRoster.getByLabel('Add a subscriber').count(), 0);
      // Made one who may remove subscribers from it: offered Remove.
      assertSuccess(await owner.patch(`/streams/${vault}`, { can_remove_subscribers_group: JSON.stringify({ new: { direct_members: [bob.id], direct_subgroups: [] } }) }));
      await vaultRoster.getByRole('button', { name: `Remove ${t.owner.row.full_name} from #vault` }).waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('dialog', { name: 'Channels' }).waitFor({ state: 'detached' });

      // Zulip's address of a channel's subscribers opens them, in view; its personal settings' address opens those.
      await go(page, `#channels/${lounge}/lounge/subscribers`);
      const heading = page.getByRole('dialog', { name: 'Channels' }).getByRole('heading', { name: /^Subscribers/ });
      await heading.waitFor();
      await eventually(() => inDialogView(heading), 'the subscribers in view');
      await page.keyboard.press('Escape');
      await page.getByRole('dialog', { name: 'Channels' }).waitFor({ state: 'detached' });
      await go(page, `#channels/${lounge}/lounge/personal`);
      await page.getByRole('dialog', { name: 'Channels' }).getByRole('button', { name: 'Close personal settings of #lounge' }).waitFor();
      assert.equal(await page.getByRole('dialog', { name: 'Channels' }).getByRole('group', { name: 'Subscribers of #lounge' }).count(), 0);
      await ctx.close();

      // An administrator at the subscribers' address: the channel's settings, at its subscribers.
      const adminCtx = await newContext();
      const admin = await loginPage(adminCtx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await go(admin, `#channels/${lounge}/lounge/subscribers`);
      const settings = admin.getByRole('dialog', { name: 'Channels' }).getByRole('group', { name: 'Settings of #lounge' });
      const adminHeading = settings.getByRole('heading', { name: /^Subscribers/ });
      await adminHeading.waitFor();
      await eventually(() => inDialogView(adminHeading), 'the subscribers in view');
      await settings.getByRole('button', { name: 'Remove Erin Member from #lounge' }).waitFor();
      await adminCtx.close();
    }));
  test('channel folders: an administrator adds, reorders, edits, archives folders and puts a channel in one; the sidebar groups channels by folder unless turned off', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const ada = await t.makeUser({ password: PASSWORD, name: 'Ada Folders', role: 200 });
      const design = await makeChannel(owner, 'design', 'Pixels', [t.owner.id, ada.id]);
      const ops = await makeChannel(owner, 'ops', 'Servers', [t.owner.id, ada.id]);
      const foldersAtServer = async () => assertSuccess(await owner.get('/channel_folders', { include_archived: true })).channel_folders as Array<Record<string, any>>;
      const page = await loginPage(await newContext(), t.url, ada.email, PASSWORD);
      const section = (await openSettings(page)).getByRole('region', { name: 'Channel folders' });
      const list = section.getByRole('list', { name: 'Channel folders', exact: true });
      const names = () => list.getByRole('listitem').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));

      // Added, in order.
      for (const [name, description] of [['Product', 'Product work'], ['Infra', ''], ['Old', '']]) {
        await section.getByLabel('Folder name').fill(name!);
        await section.getByLabel('Folder description').fill(description!);
        await section.getByRole('button', { name: 'Add folder' }).click();
        await list.getByRole('listitem', { name: name!, exact: true }).waitFor();
      }
      assert.deepEqual((await foldersAtServer()).map((f) => [f.name, f.description]), [['Product', 'Product work'], ['Infra', ''], ['Old', '']]);

      // Moved up: the server has the new order.
      await list.getByRole('button', { name: 'Move Infra up' }).click();
      await eventually(async () => JSON.stringify(await names()) === JSON.stringify(['Infra', 'Product', 'Old']), 'Infra first');
      assert.deepEqual([...(await foldersAtServer())].sort((a, b) => a.order - b.order).map((f) => f.name), ['Infra', 'Product', 'Old']);

      // Edited in its row.
      await list.getByRole('button', { name: 'Edit Product' }).click();
      const edit = list.getByRole('form', { name: 'Edit Product' });
      await edit.getByLabel('Folder name').fill('Product team');
      await edit.getByRole('button', { name: 'Save folder' }).click();
      await list.getByRole('listitem', { name: 'Product team', exact: true }).waitFor();
      const product = (await foldersAtServer()).find((f) => f.name === 'Product team')!;
      const infra = (await foldersAtServer()).find((f) => f.name === 'Infra')!;

      // Archived, then back.
      await list.getByRole('button', { name: 'Archive Old' }).click();
      const archivedList = section.getByRole('list', { name: 'Archived channel folders' });
      await archivedList.getByRole('listitem', { name: 'Old' }).waitFor();
      assert.equal((await foldersAtServer()).find((f) => f.name === 'Old')!.is_archived, true);
      await archivedList.getByRole('button', { name: 'Unarchive Old' }).click();
      await list.getByRole('listitem', { name: 'Old', exact: true }).waitFor();
      assert.equal((await foldersAtServer()).find((f) => f.name === 'Old')!.is_archived, false);
      await page.keyboard.press('Escape');

      // A channel put in a folder from its settings: the server has it, and the sidebar groups it.
      const { list: channels, row } = await channelList(page);
      await row('design').getByRole('button', { name: 'Open settings of #design' }).click();
      const settings = channels.getByRole('group', { name: 'Settings of #design' });
      await settings.getByLabel('Folder', { exact: true }).selectOption({ label: 'Product team' });
      await settings.getByRole('button', { name: 'Save channel' }).click();
      await eventually(async () => (await channelAtServer(owner, design)).folder_id === product.id, 'design in Product team at the server');
      await page.keyboard.press('Escape');
      const sidebar = page.getByRole('navigation', { name: 'Channels' });
      const groups = () => sidebar.locator('.side-folder').evaluateAll((els) => els.map((e) => [e.querySelector('h3')!.textContent, [...e.querySelectorAll('a .label')].map((a) => a.textContent)]));
      await eventually(async () => JSON.stringify(await groups()) === JSON.stringify([['Product team', ['design']], ['Other channels', ['general', 'ops']]]), 'design grouped under Product team');

      // Put in a folder elsewhere: shown, in the folders' order.
      assertSuccess(await owner.patch(`/streams/${ops}`, { folder_id: infra.id }));
      await eventually(async () => JSON.stringify(await groups()) === JSON.stringify([['Infra', ['ops']], ['Product team', ['design']], ['Other channels', ['general']]]), 'ops grouped under Infra, first');

      // Grouping turned off in Settings: one plain list.
      await (await openSettings(page)).getByLabel('Group channels by folder in the left sidebar').uncheck();
      await eventually(async () => (await groups()).length === 0, 'no folder groups');
      await sidebar.getByRole('link', { name: /^ops\b/ }).waitFor();
      // (The page shows the change at once; the server has it once its request is done.)
      const settingAtServer = async () => (await settingsAtServer(t.client(ada))).web_left_sidebar_show_channel_folders;
      await eventually(async () => (await settingAtServer()) === false, 'grouping off at the server');
    }));

  test('an archived channel stays known: its messages keep its name, live and after a reload; out of the sidebar, the Channels dialog and the compose box; its view says so; its reactions shown, not changeable', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const ada = await t.makeUser({ password: PASSWORD, name: 'Ada Archive' });
      const attic = await makeChannel(owner, 'attic', 'Old things', [t.owner.id, ada.id]);
      const last = assertSuccess(await owner.post('/messages', { type: 'stream', to: 'attic', topic: 'boxes', content: 'the last box' })).id as number;
      assertSuccess(await owner.post(`/messages/${last}/reactions`, { emoji_name: 'tada' }));
      const page = await loginPage(await newContext(), t.url, ada.email, PASSWORD);
      await go(page, `#narrow/channel/${attic}-attic`);
      const bar = page.locator('.recipient-bar', { hasText: 'boxes' });
      await bar.getByText('attic').waitFor();
      const sidebar = page.getByRole('navigation', { name: 'Channels' });
      await sidebar.getByRole('link', { name: /^attic/ }).waitFor();

      assertSuccess(await owner.delete(`/streams/${attic}`));
      await page.locator('.bookend').getByText('This channel has been archived.').waitFor();
      await eventually(async () => (await sidebar.getByRole('link', { name: /^attic/ }).count()) === 0, 'the channel gone from the sidebar');
      assert.equal(await page.locator('.bookend').getByRole('button').count(), 0);
      // Its reactions stay, greyed out; neither they, a button nor a key adds or takes one (the server refuses them there, as Zulip's).
      const lastRow = messageRow(page, 'the last box');
      const tada = lastRow.getByRole('button', { name: 'tada reaction, 1' });
      assert.equal(await tada.getAttribute('aria-disabled'), 'true');
      const reactionRequests: string[] = [];
      page.on('request', (r) => r.url().includes('/reactions') && reactionRequests.push(r.url()));
      await tada.click({ force: true });
      await lastRow.hover();
      await lastRow.getByRole('button', { name: 'Star' }).waitFor();
      assert.equal(await lastRow.getByRole('button', { name: 'Add reaction' }).count(), 0);
      await page.locator('body').press('End');
      await page.locator('article.message-row[aria-current="true"]', { hasText: 'the last box' }).waitFor();
      for (const key of ['+', '=', ':']) await page.locator('body').press(key);
      assert.equal(await page.getByRole('dialog', { name: 'Choose an emoji' }).count(), 0);
      await page.waitForTimeout(300);
      assert.deepEqual(reactionRequests, []);
      assert.deepEqual(assertSuccess(await owner.request('GET', `/messages/${last}`)).message.reactions.map((r: { emoji_name: string; user_id: number }) => [r.emoji_name, r.user_id]), [['tada', t.owner.id]]);
      const channelSelect = page.getByLabel('Channel', { exact: true });
      const shows = async () => {
        assert.equal((await bar.locator('.bar-channel').textContent())?.trim(), '# attic');
        assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), '#attic');
        assert.equal(await channelSelect.inputValue(), String(attic), "the compose box keeps the view's channel");
      };
      await shows();
      // Its topics are neither resolved nor moved from there (the server refuses changes to its messages, as Zulip's).
      await go(page, `#narrow/channel/${attic}-attic/topic/boxes`);
      const topicActions = page.getByRole('group', { name: 'This topic' });
      await topicActions.getByRole('button', { name: 'Follow topic' }).waitFor();
      assert.equal(await topicActions.getByRole('button', { name: 'Mark as resolved' }).count(), 0);
      assert.equal(await topicActions.getByRole('button', { name: 'Move or rename topic' }).count(), 0);
      await go(page, `#narrow/channel/${attic}-attic`);
      // After a reload, as Zulip's: the name kept; no bookend for a subscriber whose newest message there they had as one.
      await page.reload();
      await bar.getByText('attic').waitFor();
      await shows();
      assert.equal(await page.locator('.bookend').count(), 0);
      assert.equal(await sidebar.getByRole('link', { name: /^attic/ }).count(), 0);

      // A send there is stopped with Zulip's error; another channel chosen, it goes, and the archived one is no longer offered.
      const atticContents = () => channelContents(owner, attic);
      await page.getByLabel('Topic', { exact: true }).fill('boxes');
      const box = page.getByLabel('Message', { exact: true });
      await box.fill('one more box');
      await box.press('Enter');
      const error = page.locator('.compose-banner', { hasText: 'The channel #attic does not exist. Manage your subscriptions on your Channels page.' });
      await error.waitFor();
      assert.equal(await error.getByRole('link', { name: 'on your Channels page' }).getAttribute('href'), '#channels/all');
      assert.equal(await box.inputValue(), 'one more box');
      assert.deepEqual(await atticContents(), ['the last box']);
      const general = await streamIdOf(owner, 'general');
      await channelSelect.selectOption(String(general));
      await error.waitFor({ state: 'detached' });
      await box.press('Enter');
      await eventually(async () => (await channelContents(owner, general, 1))[0] === 'one more box', 'the message sent to general');
      const options = await channelSelect.locator('option').allTextContents();
      assert.ok(!options.includes('#attic') && options.includes('#general'), `the compose box offers ${options.join(', ')}`);
      assert.deepEqual(await atticContents(), ['the last box']);
      // A search finds its message, under its name.
      await go(page, '#narrow/search/box');
      await page.locator('.recipient-bar', { hasText: 'boxes' }).getByText('attic').waitFor();
      // Not in the Channels dialog.
      const { list, row } = await channelList(page);
      await list.getByRole('listitem', { name: '#general', exact: true }).waitFor();
      assert.equal(await row('attic').count(), 0);
    }));

  test('with the organization\u2019s channel events on (Zulip\u2019s default), Notification Bot\u2019s notices show in the channel\u2019s "channel events" topic, a rename made in its settings live', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      assertSuccess(await owner.patch('/realm', { send_channel_events_messages: true }));
      const lounge = await makeChannel(owner, 'lounge', 'Easy chairs', [t.owner.id]);
      const page = await loginPage(await newContext(), t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await go(page, `#narrow/channel/${lounge}-lounge`);
      const created = messageRow(page, 'channel created by');
      await created.waitFor();
      assert.equal(await created.locator('.message-content strong').first().textContent(), 'Public');
      assert.equal(await created.locator('blockquote').textContent(), '\nEasy chairs\n');
      await page.locator('.recipient-bar', { hasText: 'channel events' }).first().waitFor();
      const { list, row } = await channelList(page);
      await row('lounge').getByRole('button', { name: 'Open settings of #lounge' }).click();
      const settings = list.getByRole('group', { name: /^Settings of #/ });
      await settings.getByLabel('Channel name').fill('reading room');
      await settings.getByRole('button', { name: 'Save channel' }).click();
      await settings.getByRole('status').filter({ hasText: 'Channel saved.' }).waitFor();
      await page.keyboard.press('Escape');
      const renamed = messageRow(page, 'renamed channel');
      await renamed.waitFor();
      assert.deepEqual(await renamed.locator('.message-content strong').allTextContents(), ['lounge', 'reading room']);
      assert.equal((await channelContents(owner, lounge, 1))[0], `@_**Owner|${t.owner.id}** renamed channel **lounge** to **reading room**.`);
    }));
});
