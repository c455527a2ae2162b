/**
 * What the web client offers follows the organization's permissions, as
 * Zulip's web app (its settings_data checks) does, in real Chromium: a
 * member's page, while the owner changes the organization's group settings
 * through the API, offers inviting people and making invitation links
 * (can_invite_users_group, create_multiuse_invite_group; the roles an
 * invitation may give), creating bots (can_create_bots_group: any;
 * can_create_write_only_bots_group: incoming webhooks), creating public and
 * private channels (can_create_public/private_channel_group), and resolving
 * and moving topics (can_resolve_topics_group,
 * can_move_messages_between_topics_group and _between_channels_group), and
 * sending direct messages (direct_message_permission_group, and
 * direct_message_initiator_group in an empty conversation's view), starting
 * topics in a channel (its can_create_topic_group), and changing
 * one's own name, email address and avatar (name_, email_ and
 * avatar_changes_disabled), each
 * gone or back as the settings change, and what it still offers the server
 * accepts. Skipped (with one line saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD, type Client, streamIdOf } from './helpers.ts';
import { browserTests, eventually, goToHash, loginPage, PASSWORD, withWebServer, openSettings } from './web-browser.ts';

/** Sets one of the organization's group settings to a system group (by its name, e.g. role:administrators). */
async function setRealmGroup(owner: Client, setting: string, group: string): Promise<void> {
  const groups = assertSuccess(await owner.get('/user_groups')).user_groups as Array<{ id: number; name: string }>;
  const id = groups.find((g) => g.name === group)!.id;
  assertSuccess(await owner.patch('/realm', { [setting]: JSON.stringify({ new: id }) }));
}

await browserTests('the web client in Chromium: what it offers follows the permissions', (newContext) => {
  test('settings: inviting, invitation links (and the roles offered), and which bots a member may create follow the organization\u2019s groups, live', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Offers' });
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      const dialog = await openSettings(page);
      const heading = (name: string) => dialog.getByRole('heading', { name, exact: true });
      const linkButton = dialog.getByRole('button', { name: 'Make invitation link' });

      // A member invites (with the roles a member may give), but makes no links (administrators only, by default).
      await heading('Invite people').waitFor();
      const roles = (await dialog.getByLabel('Join as').locator('option').allTextContents()).map((s) => s.trim());
      assert.deepEqual(roles, ['Member', 'Guest']);
      await heading('Invitations').waitFor();
      assert.equal(await linkButton.count(), 0);
      await setRealmGroup(owner, 'create_multiuse_invite_group', 'role:members');
      await linkButton.waitFor();
      await linkButton.click();
      await eventually(async () => (await dialog.getByLabel('New invitation link').inputValue()).includes('/join/'), 'the link made at the server');
      await setRealmGroup(owner, 'create_multiuse_invite_group', 'role:administrators');
      await setRealmGroup(owner, 'can_invite_users_group', 'role:administrators');
      await eventually(async () => (await heading('Invite people').count()) === 0 && (await heading('Invitations').count()) === 0, 'inviting gone');

      // Bots: any kind; then incoming webhooks only; then none.
      const bots = dialog.getByRole('region', { name: 'Bots' });
      const botTypes = async () => (await bots.getByLabel('Bot type').locator('option').allTextContents()).map((s) => s.trim());
      assert.deepEqual(await botTypes(), ['Generic bot', 'Incoming webhook', 'Outgoing webhook']);
      await setRealmGroup(owner, 'can_create_bots_group', 'role:administrators');
      await eventually(async () => (await botTypes()).join() === 'Incoming webhook', 'incoming webhooks only');
      await bots.getByLabel('Bot name').fill('Alerts');
      await bots.getByLabel(/^Bot email/).fill('alerts');
      await bots.getByRole('button', { name: 'Create bot' }).click();
      await bots.getByRole('list', { name: 'Your bots' }).getByRole('listitem', { name: 'Alerts' }).waitFor();
      const made = (assertSuccess(await owner.get('/users')).members as Array<{ full_name: string; bot_type?: number | null }>).find((u) => u.full_name === 'Alerts');
      assert.equal(made?.bot_type, 2);
      await setRealmGroup(owner, 'can_create_write_only_bots_group', 'role:administrators');
      await eventually(async () => (await bots.getByRole('button', { name: 'Create bot' }).count()) === 0, 'no bot form');
      // (Still listed, to manage.)
      await bots.getByRole('list', { name: 'Your bots' }).getByRole('listitem', { name: 'Alerts' }).waitFor();
      await ctx.close();
    }));

  test('channels and topics: creating public and private channels, resolving and moving topics follow the organization\u2019s groups, live; what is offered the server accepts', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Topics' });
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'plans' }]), principals: JSON.stringify([t.owner.id, bob.id]) }));
      assertSuccess(await owner.post('/messages', { type: 'stream', to: 'plans', topic: 'roadmap', content: 'The plan' }));
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);

      // The Channels dialog: public or private; then public only (the box fixed, unchecked), and the channel made public; then no form.
      await goToHash(page, '#channels/all');
      const channels = page.getByRole('dialog', { name: 'Channels' });
      const privateBox = channels.getByLabel(/^Private:/);
      await privateBox.waitFor();
      assert.equal(await privateBox.isDisabled(), false);
      await setRealmGroup(owner, 'can_create_private_channel_group', 'role:administrators');
      await eventually(() => privateBox.isDisabled(), 'the private box fixed');
      assert.equal(await privateBox.isChecked(), false);
      await channels.getByLabel('Name', { exact: true }).fill('open-plans');
      await channels.getByRole('button', { name: 'Create channel' }).click();
      await page.getByRole('navigation', { name: 'Channels' }).getByRole('link', { name: /^open-plans\b/ }).waitFor();
      const made = assertSuccess(await owner.get('/streams')).streams.find((s: { name: string }) => s.name === 'open-plans');
      assert.equal(made.invite_only, false);
      await setRealmGroup(owner, 'can_create_public_channel_group', 'role:administrators');
      await goToHash(page, '#channels/all');
      await channels.getByRole('list', { name: 'All channels' }).waitFor();
      assert.equal(await channels.getByRole('button', { name: 'Create channel' }).count(), 0);
      await page.keyboard.press('Escape');

      // A topic's actions: resolve, move; taken away, they go.
      await goToHash(page, '#narrow/channel/plans/topic/roadmap');
      const actions = page.getByRole('group', { name: 'This topic' });
      const resolve = actions.getByRole('button', { name: 'Mark as resolved' });
      const moveTopic = actions.getByRole('button', { name: 'Move or rename topic' });
      await resolve.waitFor();
      await moveTopic.waitFor();
      await setRealmGroup(owner, 'can_resolve_topics_group', 'role:administrators');
      await eventually(async () => (await resolve.count()) === 0, 'resolving gone');
      // Nor in the sidebar's topic menu.
      const menuButton = page.getByRole('navigation', { name: 'Channels' }).getByRole('button', { name: 'Actions for roadmap' });
      await menuButton.hover();
      await menuButton.click();
      const menu = page.getByRole('menu', { name: 'roadmap' });
      await menu.getByRole('menuitem', { name: 'Copy link to topic' }).waitFor();
      assert.equal(await menu.getByRole('menuitem', { name: /resolved/ }).count(), 0);
      await page.keyboard.press('Escape');
      // Moving within the channel only (no other channel offered), then not at all.
      await setRealmGroup(owner, 'can_move_messages_between_channels_group', 'role:administrators');
      await moveTopic.click();
      const channelChoice = actions.getByLabel('Channel');
      assert.deepEqual((await channelChoice.locator('option').allTextContents()).map((s) => s.trim()), ['#plans']);
      await actions.getByLabel('New topic name').fill('roadmap 2027');
      await actions.getByRole('button', { name: 'Save' }).click();
      const plans = await streamIdOf(owner, 'plans');
      await eventually(async () => (assertSuccess(await owner.get(`/users/me/${plans}/topics`)).topics as Array<{ name: string }>).some((x) => x.name === 'roadmap 2027'), 'the topic renamed at the server');
      await setRealmGroup(owner, 'can_move_messages_between_topics_group', 'role:administrators');
      await eventually(async () => (await actions.getByRole('button', { name: 'Move or rename topic' }).count()) === 0, 'moving gone');
      await ctx.close();
    }));

  test('direct messages: where the organization lets only administrators authorize them, a member\u2019s box refuses one to another member at once (Zulip\u2019s words, Send off) and sends one that takes in an administrator; with no one allowed, it says direct messages are off', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Direct' });
      const carol = await t.makeUser({ name: 'Carol Direct' });
      await setRealmGroup(owner, 'direct_message_permission_group', 'role:administrators');
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      await page.getByRole('link', { name: 'Direct messages' }).first().click();
      await page.getByRole('button', { name: 'Direct message', exact: true }).click();
      const pick = async (name: string) => {
        await page.getByLabel('Recipients').fill(name.split(' ')[0]!);
        await page.getByRole('listbox', { name: 'People' }).getByRole('option', { name: new RegExp(name) }).click();
      };
      await pick('Carol Direct');
      const refusal = page.getByText('This conversation does not include any users who can authorize it.');
      await refusal.waitFor();
      const sendButton = page.getByRole('button', { name: 'Send', exact: true });
      assert.equal(await sendButton.isDisabled(), true);
      await page.getByLabel('Message', { exact: true }).fill('Hello Carol');
      await page.getByLabel('Message', { exact: true }).press('Enter');
      await page.getByRole('alert').filter({ hasText: 'This conversation does not include any users who can authorize it.' }).waitFor();
      // (The server says no as well, in the same words.)
      const refused = await t.client(bob).post('/messages', { type: 'direct', to: JSON.stringify([carol.id]), content: 'x' });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.msg, 'This conversation does not include any users who can authorize it.');
      // With the owner in the conversation it may be sent.
      await pick('Owner');
      await refusal.waitFor({ state: 'detached' });
      await page.getByLabel('Message', { exact: true }).press('Enter');
      await eventually(async () => {
        const r = assertSuccess(await t.client(carol).get('/messages', { anchor: 'newest', num_before: 1, num_after: 0 }));
        return r.messages[0]?.content === '<p>Hello Carol</p>';
      }, 'the message at the server');
      // No one may authorize direct messages: they are off, whoever is in the conversation (the owner too).
      await setRealmGroup(owner, 'direct_message_permission_group', 'role:nobody');
      const off = page.getByText('Direct messages are disabled in this organization.');
      await off.waitFor();
      assert.equal(await sendButton.isDisabled(), true);
      const offAtServer = await t.client(bob).post('/messages', { type: 'direct', to: JSON.stringify([carol.id, t.owner.id]), content: 'x' });
      assert.equal(offAtServer.body.msg, 'Direct messages are disabled in this organization.');
      await setRealmGroup(owner, 'direct_message_permission_group', 'role:everyone');
      await off.waitFor({ state: 'detached' });
      assert.equal(await sendButton.isDisabled(), false);
      await ctx.close();
    }));

  test('direct messages: where only administrators may start conversations, a member\u2019s box in the view of a conversation with no messages says so at once (Send off); once the other person has written, the reply is sent', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Starter' });
      const carol = await t.makeUser({ name: 'Carol Starter' });
      await setRealmGroup(owner, 'direct_message_initiator_group', 'role:administrators');
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      await goToHash(page, `#narrow/dm/${carol.id}-carol`);
      const refusal = page.getByRole('region', { name: 'Compose' }).getByText('You are not allowed to start direct message conversations.');
      await refusal.waitFor();
      // (The empty view says so too, as Zulip's.)
      await page.getByRole('log', { name: 'History' }).getByText('You are not allowed to start direct message conversations.').waitFor();
      const sendButton = page.getByRole('button', { name: 'Send', exact: true });
      assert.equal(await sendButton.isDisabled(), true);
      await page.getByLabel('Message', { exact: true }).fill('Hello Carol');
      await page.getByLabel('Message', { exact: true }).press('Enter');
      await page.getByRole('alert').filter({ hasText: 'You are not allowed to start direct message conversations.' }).waitFor();
      // (The server says no as well.)
      const refused = await t.client(bob).post('/messages', { type: 'direct', to: JSON.stringify([carol.id]), content: 'x' });
      assert.equal(refused.body.msg, 'You do not have permission to initiate direct message conversations.');
      // Carol, allowed for a moment, writes first: the conversation exists, and Bob's reply may go.
      await setRealmGroup(owner, 'direct_message_initiator_group', 'role:everyone');
      assertSuccess(await t.client(carol).post('/messages', { type: 'direct', to: JSON.stringify([bob.id]), content: 'Hi Bob' }));
      await setRealmGroup(owner, 'direct_message_initiator_group', 'role:administrators');
      await page.getByText('Hi Bob').waitFor();
      await refusal.waitFor({ state: 'detached' });
      await page.getByLabel('Message', { exact: true }).press('Enter');
      await eventually(async () => {
        const r = assertSuccess(await t.client(carol).get('/messages', { anchor: 'newest', num_before: 1, num_after: 0 }));
        return r.messages[0]?.content === '<p>Hello Carol</p>';
      }, 'the reply at the server');
      await ctx.close();
    }));

  test('new topics: where a channel lets only administrators start topics, a member\u2019s sidebar offers a new message there (not a new topic), the topic field asks for one of its topics (offered once the channel is chosen in the box), a new one is refused with the server\u2019s words and an existing one is written to; live', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Topics' });
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'plans' }]), principals: JSON.stringify([t.owner.id, bob.id]) }));
      assertSuccess(await owner.post('/messages', { type: 'stream', to: 'plans', topic: 'roadmap', content: 'The plan' }));
      const plans = await streamIdOf(owner, 'plans');
      const groups = assertSuccess(await owner.get('/user_groups')).user_groups as Array<{ id: number; name: string }>;
      const groupId = (name: string) => groups.find((g) => g.name === name)!.id;
      assertSuccess(await owner.patch(`/streams/${plans}`, { can_create_topic_group: JSON.stringify({ new: groupId('role:administrators') }) }));
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      // Chosen in the compose box of another channel's view, the channel's topics are offered in the topic field.
      await goToHash(page, `#narrow/channel/${await streamIdOf(owner, 'general')}-general`);
      await page.getByRole('region', { name: 'Compose' }).getByLabel('Channel', { exact: true }).selectOption({ label: '#plans' });
      const topicList = page.getByRole('listbox', { name: 'Topics' });
      const composeTopic = page.getByRole('region', { name: 'Compose' }).getByLabel('Topic', { exact: true });
      await composeTopic.pressSequentially('road');
      // One of its topics, never what is typed as a new one.
      await eventually(async () => (await topicList.count()) > 0 && (await topicList.getByRole('option').allTextContents()).join() === 'roadmap', 'the channel\u2019s topics offered');
      assert.equal(await topicList.getByRole('presentation').textContent(), 'Select a topic from the list.');
      await composeTopic.press('Escape');
      await composeTopic.fill('');
      const sidebar = page.getByRole('navigation', { name: 'Channels' });
      const newMessage = sidebar.getByRole('button', { name: 'New message in #plans' });
      await newMessage.waitFor({ state: 'attached' });
      assert.equal(await sidebar.getByRole('button', { name: 'New topic in #plans' }).count(), 0);
      await sidebar.getByRole('button', { name: 'New topic in #general' }).waitFor({ state: 'attached' });
      await sidebar.getByRole('link', { name: /^plans\b/ }).hover();
      await newMessage.click();
      const topicField = page.getByLabel('Topic', { exact: true });
      assert.equal(await topicField.getAttribute('title'), 'Select a topic from the list.');
      // A new topic: the server's refusal, nothing sent.
      await topicField.fill('fresh start');
      await page.getByLabel('Message', { exact: true }).fill('A new idea');
      await page.getByLabel('Message', { exact: true }).press('Enter');
      await page.getByRole('alert').filter({ hasText: 'You do not have permission to create new topics in this channel.' }).waitFor();
      const topicsAt = async () => (assertSuccess(await owner.get(`/users/me/${plans}/topics`)).topics as Array<{ name: string }>).map((x) => x.name);
      assert.deepEqual(await topicsAt(), ['roadmap']);
      // One of the channel's topics: sent.
      await topicField.fill('roadmap');
      await page.getByLabel('Message', { exact: true }).press('Enter');
      await eventually(async () => {
        const r = assertSuccess(await owner.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0 }));
        return r.messages[0]?.content === '<p>A new idea</p>' && r.messages[0]?.subject === 'roadmap';
      }, 'the message in the existing topic');
      // Everyone may start topics again: a new topic is offered, and the field no longer asks for an existing one.
      assertSuccess(await owner.patch(`/streams/${plans}`, { can_create_topic_group: JSON.stringify({ new: groupId('role:everyone') }) }));
      await sidebar.getByRole('button', { name: 'New topic in #plans' }).waitFor({ state: 'attached' });
      await eventually(async () => !(await topicField.getAttribute('title')), 'the field\u2019s hint gone');
      await ctx.close();
    }));

  test('one\u2019s own name, email address and avatar: a member may not change them where the organization has turned such changes off (Zulip\u2019s words), live; an administrator still may', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Profile' });
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      const dialog = await openSettings(page);
      const fields = [dialog.getByLabel('Full name'), dialog.getByLabel('New email'), dialog.locator('#set-avatar')];
      for (const field of fields) assert.equal(await field.isDisabled(), false);
      assertSuccess(await owner.patch('/realm', { name_changes_disabled: true, email_changes_disabled: true, avatar_changes_disabled: true }));
      for (const field of fields) await eventually(() => field.isDisabled(), 'the field off');
      for (const words of [
        'Name changes are disabled in this organization. Contact an administrator to change your name.',
        'Email address changes are disabled in this organization.',
        'Avatar changes are disabled in this organization.',
      ]) {
        await dialog.getByText(words, { exact: true }).waitFor();
      }
      // (The server ignores a member's new name then, and refuses the others.)
      assertSuccess(await t.client(bob).patch('/settings', { full_name: 'Robert' }));
      assert.equal(assertSuccess(await t.client(bob).get('/users/me')).full_name, 'Bob Profile');
      // The owner, an administrator, still may.
      const ownerCtx = await newContext();
      const ownerPage = await loginPage(ownerCtx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const ownerDialog = await openSettings(ownerPage);
      await ownerDialog.getByLabel('Full name').waitFor();
      assert.equal(await ownerDialog.getByLabel('Full name').isDisabled(), false);
      assert.equal(await ownerDialog.getByLabel('New email').isDisabled(), false);
      assert.equal(await ownerDialog.locator('#set-avatar').isDisabled(), false);
      // Turned back on: the member's fields come back.
      assertSuccess(await owner.patch('/realm', { name_changes_disabled: false, email_changes_disabled: false, avatar_changes_disabled: false }));
      for (const field of fields) await eventually(async () => !(await field.isDisabled()), 'the field back');
      await ownerCtx.close();
      await ctx.close();
    }));
});
