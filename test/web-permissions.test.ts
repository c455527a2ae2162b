/**
 * The web client's organization permissions (Settings) in real Chromium:
 * an owner sets group settings and the joining and editing settings, which
 * the server then has; changes another administrator makes through the API
 * (a custom group among them) show in the open page; a refusal says why;
 * administrators who are not owners cannot change the owner-only settings,
 * and members see them all read-only. Skipped (with one line saying why)
 * where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD, type Client } from './helpers.ts';
import { browserTests, eventGate, eventually, holdRequests, loginPage, PASSWORD, selectedText, withWebServer, openSettings } from './web-browser.ts';

/** The organization's settings as the server reports them to `api` (realm_… fields of /register). */
async function realmAt(api: Client): Promise<Record<string, any>> {
  return assertSuccess(await api.post('/register', { fetch_event_types: ['realm'] }));
}

/** The system groups' IDs, by name (role:owners, role:members, …). */
async function systemGroups(api: Client): Promise<Record<string, number>> {
  const groups = assertSuccess(await api.get('/user_groups')).user_groups as Array<{ id: number; name: string; is_system_group: boolean }>;
  return Object.fromEntries(groups.filter((g) => g.is_system_group).map((g) => [g.name, g.id]));
}

/** Opens Settings (unless open); the Organization permissions section. */
async function permissions(page: Page) {
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  if (!(await dialog.isVisible())) await openSettings(page);
  return dialog.getByRole('region', { name: 'Organization permissions' });
}

/** What a select shows (its selected option's text). */
const shown = selectedText;
/** The options a select offers. */
const offered = async (select: ReturnType<Page['getByLabel']>) => (await select.locator('option').allTextContents()).map((s) => s.trim());

await browserTests('the web client in Chromium: organization permissions', (newContext) => {
  test('organization permissions: the owner sets them and the server has them; changes by another administrator show; a refusal says why', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const admin = await t.makeUser({ role: 200, name: 'Ada Admin' });
      const adminApi = t.client(admin);
      const bob = await t.makeUser({ name: 'Bob Member' });
      const sys = await systemGroups(owner);
      const makers = assertSuccess(await owner.post('/user_groups/create', { name: 'Channel makers', description: 'They make channels', members: [bob.id] })).group_id as number;
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      // The page misses changes made while the gate holds its events.
      const events = await eventGate(page);
      const section = await permissions(page);
      const select = (label: string) => section.getByLabel(label, { exact: true });
      const publicChannels = select('Who can create public channels');

      // Each setting offers the system groups the server allows for it, and the user groups.
      await eventually(async () => (await shown(publicChannels)) === 'Members', 'the default shown');
      assert.deepEqual(await offered(publicChannels), ['Owners', 'Administrators', 'Moderators', 'Full members', 'Members', 'Nobody', 'Channel makers']);
      assert.ok((await offered(select('Who can delete their own messages'))).includes('Everyone, guests included'));
      assert.equal(await shown(select('Who can delete their own messages')), 'Everyone, guests included');

      // Changed in the page: the server has them.
      await publicChannels.selectOption({ label: 'Administrators' });
      await eventually(async () => (await realmAt(owner)).realm_can_create_public_channel_group === sys['role:administrators'], 'public channels: administrators');
      await select('Who can create private channels').selectOption({ label: 'Channel makers' });
      await eventually(async () => (await realmAt(owner)).realm_can_create_private_channel_group === makers, 'private channels: Channel makers');
      await select('Who can invite people').selectOption({ label: 'Moderators' });
      await eventually(async () => (await realmAt(owner)).realm_can_invite_users_group === sys['role:moderators'], 'invitations: moderators');
      await select('Who can add custom emoji').selectOption({ label: 'Nobody' });
      await eventually(async () => (await realmAt(owner)).realm_can_add_custom_emoji_group === sys['role:nobody'], 'custom emoji: nobody');
      // All the organization's group settings Zulip's page has (but billing and AI summaries), e.g. these.
      await select('Who can resolve topics').selectOption({ label: 'Moderators' });
      await eventually(async () => (await realmAt(owner)).realm_can_resolve_topics_group === sys['role:moderators'], 'resolving: moderators');
      await select('Who can authorize a direct message conversation').selectOption({ label: 'Administrators' });
      await eventually(async () => (await realmAt(owner)).realm_direct_message_permission_group === sys['role:administrators'], 'direct messages: administrators');
      await select('Who can create reusable invitation links').selectOption({ label: 'Moderators' });
      await eventually(async () => (await realmAt(owner)).realm_create_multiuse_invite_group === sys['role:moderators'], 'links: moderators');
      await select('Who can create any bot').selectOption({ label: 'Administrators' });
      await eventually(async () => (await realmAt(owner)).realm_can_create_bots_group === sys['role:administrators'], 'bots: administrators');
      await select('Who can create user groups').selectOption({ label: 'Full members' });
      await eventually(async () => (await realmAt(owner)).realm_can_create_groups === sys['role:fullmembers'], 'user groups: full members');
      await section.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

      await section.getByLabel('Invitations are required for joining').check();
      await eventually(async () => (await realmAt(owner)).realm_invite_required === true, 'invitations required');
      await section.getByLabel('Days before new members become full members').fill('3');
      await section.getByRole('button', { name: 'Save waiting period' }).click();
      await eventually(async () => (await realmAt(owner)).realm_waiting_period_threshold === 3, 'a waiting period of 3 days');
      // A value typed while the one before is being saved stays when that save ends (the page's save is held back here).
      const limitInput = section.getByLabel('Time limit for editing, in minutes (empty for none)');
      const saveLimit = section.getByRole('button', { name: 'Save time limit' });
      const held = await holdRequests(page, '**/json/realm', 'PATCH');
      await limitInput.fill('15');
      await saveLimit.click();
      await eventually(() => saveLimit.isDisabled(), 'the save under way');
      await limitInput.fill('');
      held.release();
      await eventually(async () => (await realmAt(owner)).realm_message_content_edit_limit_seconds === 900, 'an editing limit of 15 minutes');
      await eventually(async () => !(await saveLimit.isDisabled()), 'the save done');
      assert.equal(await limitInput.inputValue(), '');
      await held.stop();
      await saveLimit.click();
      await eventually(async () => (await realmAt(owner)).realm_message_content_edit_limit_seconds === null, 'no editing limit');
      await section.getByLabel('People can edit their messages').uncheck();
      await eventually(async () => (await realmAt(owner)).realm_allow_message_editing === false, 'editing not allowed');
      assert.equal(await section.getByLabel('Time limit for editing, in minutes (empty for none)').isDisabled(), true);

      // Another administrator changes some through the API: the open page shows them.
      assertSuccess(await adminApi.patch('/realm', { can_add_custom_emoji_group: { new: sys['role:moderators'], old: sys['role:nobody'] } }));
      assertSuccess(await adminApi.patch('/realm', { can_move_messages_between_channels_group: { new: { direct_members: [bob.id], direct_subgroups: [sys['role:administrators']] } } }));
      assertSuccess(await adminApi.patch('/realm', { allow_message_editing: true, message_content_edit_limit_seconds: 3600 }));
      assertSuccess(await owner.patch('/realm', { waiting_period_threshold: 7, invite_required: false }));
      await eventually(async () => (await shown(select('Who can add custom emoji'))) === 'Moderators', 'custom emoji: moderators, set elsewhere');
      // A custom group (anonymous: people and groups) shows as such.
      await eventually(async () => (await shown(select('Who can move messages to another channel'))) === 'Custom: Administrators, Bob Member', 'the custom group shown');
      await eventually(async () => (await section.getByLabel('Time limit for editing, in minutes (empty for none)').inputValue()) === '60', 'the limit set elsewhere');
      assert.equal(await section.getByLabel('People can edit their messages').isChecked(), true);
      assert.equal(await section.getByLabel('Days before new members become full members').inputValue(), '7');
      assert.equal(await section.getByLabel('Invitations are required for joining').isChecked(), false);
      // From the custom group back to a named one.
      await select('Who can move messages to another channel').selectOption({ label: 'Moderators' });
      await eventually(async () => (await realmAt(owner)).realm_can_move_messages_between_channels_group === sys['role:moderators'], 'moves: moderators');

      // Refused: changed elsewhere while this page had not heard of it yet (Zulip's "old" value no longer so).
      events.hold();
      assertSuccess(await adminApi.patch('/realm', { can_create_public_channel_group: { new: sys['role:members'], old: sys['role:administrators'] } }));
      await publicChannels.selectOption({ label: 'Moderators' });
      await section.getByRole('alert').filter({ hasText: "'old' value does not match the expected value." }).waitFor();
      assert.equal((await realmAt(owner)).realm_can_create_public_channel_group, sys['role:members']);
      assert.equal(await shown(publicChannels), 'Administrators');
      // Once the page hears of the change, it shows it.
      events.release();
      await eventually(async () => (await shown(publicChannels)) === 'Members', 'the change made elsewhere shown');

      // A fresh page (from /register; #settings opens the dialog again) shows the same.
      await page.reload();
      await page.getByRole('dialog', { name: 'Settings' }).waitFor();
      const again = await permissions(page);
      await eventually(async () => (await shown(again.getByLabel('Who can create public channels'))) === 'Members', 'after a reload');
      assert.equal(await shown(again.getByLabel('Who can create private channels')), 'Channel makers');
      assert.equal(await shown(again.getByLabel('Who can invite people')), 'Moderators');
      await page.unrouteAll({ behavior: 'ignoreErrors' });
      await ctx.close();
    }));

  test('organization permissions: administrators who are not owners cannot change the owner-only ones; members see them read-only until made administrators', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const admin = await t.makeUser({ role: 200, name: 'Ada Admin', password: PASSWORD });
      const carol = await t.makeUser({ name: 'Carol Member', password: PASSWORD });
      const sys = await systemGroups(owner);

      const adminCtx = await newContext();
      const adminPage = await loginPage(adminCtx, t.url, admin.email, PASSWORD);
      const adminSection = await permissions(adminPage);
      await adminSection.getByText('Some of these only organization owners can change.').waitFor();
      for (const label of [
        'Who can invite people',
        'Who can create reusable invitation links',
        'Who can create user groups',
        'Who can administer all user groups',
        'Invitations are required for joining',
        'Days before new members become full members',
        "Only email addresses in the organization's domains (below) can join",
        'Disposable email addresses cannot join',
      ]) {
        assert.equal(await adminSection.getByLabel(label, { exact: true }).isDisabled(), true, label);
      }
      assert.equal(await adminSection.getByRole('button', { name: 'Save waiting period' }).count(), 0);
      assert.equal(await adminSection.getByRole('button', { name: 'Add domain' }).count(), 0);
      await adminSection.getByLabel('Who can create private channels').selectOption({ label: 'Moderators' });
      await eventually(async () => (await realmAt(owner)).realm_can_create_private_channel_group === sys['role:moderators'], 'private channels: moderators');
      await adminSection.getByLabel('Time limit for editing, in minutes (empty for none)').fill('5');
      await adminSection.getByRole('button', { name: 'Save time limit' }).click();
      await eventually(async () => (await realmAt(owner)).realm_message_content_edit_limit_seconds === 300, 'an editing limit of 5 minutes');
      await adminCtx.close();

      const memberCtx = await newContext();
      const member = await loginPage(memberCtx, t.url, carol.email, PASSWORD);
      const section = await permissions(member);
      await section.getByText('Only organization administrators can change these.').waitFor();
      const controls = section.locator('select, input');
      assert.ok((await controls.count()) >= 11);
      for (const control of await controls.all()) assert.equal(await control.isDisabled(), true, (await control.getAttribute('id')) ?? '');
      assert.equal(await section.getByRole('button').count(), 0);
      // What an administrator set shows to members too.
      assert.equal(await shown(section.getByLabel('Who can create private channels')), 'Moderators');
      assert.equal(await section.getByLabel('Time limit for editing, in minutes (empty for none)').inputValue(), '5');
      // Made an administrator: the page lets Carol change them at once.
      assertSuccess(await owner.patch(`/users/${carol.id}`, { role: 200 }));
      await eventually(async () => !(await section.getByLabel('Who can create public channels').isDisabled()), 'the select enabled for a new administrator');
      await section.getByLabel('Who can create public channels').selectOption({ label: 'Full members' });
      await eventually(async () => (await realmAt(owner)).realm_can_create_public_channel_group === sys['role:fullmembers'], 'public channels: full members');
      assert.equal(await section.getByLabel('Who can invite people').isDisabled(), true);
      await memberCtx.close();
    }));

  test('joining by email domain and topics: the owner restricts joining to the organization\u2019s domains (added, changed, removed; the server has them) and refuses disposable addresses; channel messages may need a topic; changes elsewhere show', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const domainsAt = async () => assertSuccess(await owner.get('/realm/domains')).domains as Array<{ domain: string; allow_subdomains: boolean }>;
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const section = await permissions(page);
      const domains = section.getByRole('group', { name: 'Email domains' });

      await domains.getByLabel('New domain').fill('example.org');
      await domains.getByLabel('Its subdomains too').check();
      await domains.getByRole('button', { name: 'Add domain' }).click();
      await eventually(async () => JSON.stringify(await domainsAt()) === JSON.stringify([{ domain: 'example.org', allow_subdomains: true }]), 'the domain at the server');
      const row = domains.getByRole('list', { name: 'Email domains' }).getByRole('listitem').filter({ hasText: 'example.org' });
      await row.waitFor();
      assert.equal(await domains.getByLabel('New domain').inputValue(), '');
      await row.getByLabel('and its subdomains').uncheck();
      await eventually(async () => (await domainsAt())[0]?.allow_subdomains === false, 'subdomains off at the server');
      // A bad domain: the server's reason.
      await domains.getByLabel('New domain').fill('nodot');
      await domains.getByRole('button', { name: 'Add domain' }).click();
      await domains.getByRole('alert').filter({ hasText: 'Domain must have at least one dot (.)' }).waitFor();

      await section.getByLabel("Only email addresses in the organization's domains (below) can join").check();
      await eventually(async () => (await realmAt(owner)).realm_emails_restricted_to_domains === true, 'joining restricted to the domains');
      await section.getByLabel('Disposable email addresses cannot join').uncheck();
      await eventually(async () => (await realmAt(owner)).realm_disallow_disposable_email_addresses === false, 'disposable addresses allowed');

      // Topics required, then not.
      const topics = section.getByLabel('Channel messages without a topic');
      assert.equal(await topics.inputValue(), 'allow_empty_topic');
      assert.deepEqual(await topics.locator('option').allTextContents(), ['Allowed (shown as \u201cgeneral chat\u201d)', 'Not allowed: every channel message needs a topic']);
      await topics.selectOption('disable_empty_topic');
      await eventually(async () => (await realmAt(owner)).realm_topics_policy === 'disable_empty_topic', 'topics required at the server');

      // Elsewhere: a domain added and one removed, the topic rule changed.
      assertSuccess(await owner.post('/realm/domains', { domain: 'example.net', allow_subdomains: false }));
      assertSuccess(await owner.delete('/realm/domains/example.org'));
      await domains.getByRole('listitem').filter({ hasText: 'example.net' }).waitFor();
      await eventually(async () => (await domains.getByRole('listitem').filter({ hasText: 'example.org' }).count()) === 0, 'the removed domain gone');
      assertSuccess(await owner.patch('/realm', { topics_policy: 'allow_empty_topic' }));
      await eventually(async () => (await topics.inputValue()) === 'allow_empty_topic', 'the topic rule from elsewhere');
      // Removed from the list here: the server no longer has it.
      await domains.getByRole('button', { name: 'Remove example.net' }).click();
      await eventually(async () => (await domainsAt()).length === 0, 'no domains left');
      await ctx.close();
    }));

  test('guests\u2019 names say "(guest)" (Zulip\u2019s enable_guest_user_indicator, on by default): on their messages, in People and the user card; a direct message to one warns (enable_guest_user_dm_warning); the owner turns each off, the server has it', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const guest = await t.makeUser({ role: 600, name: 'Gina Visitor' });
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'general' }]), principals: JSON.stringify([guest.id]) }));
      assertSuccess(await t.client(guest).request('POST', '/messages', { type: 'stream', to: 'general', topic: 'hello', content: 'hello from a guest' }));
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const row = page.locator('article.message-row', { hasText: 'hello from a guest' });
      await row.getByText('Gina Visitor (guest)', { exact: true }).waitFor();
      const people = page.getByRole('complementary', { name: 'People' });
      await people.getByRole('button', { name: /Gina Visitor \(guest\)/ }).click();
      await page.getByRole('dialog').getByRole('heading', { name: 'Gina Visitor (guest)' }).waitFor();
      await page.keyboard.press('Escape');

      const section = await permissions(page);
      await section.getByLabel('Show "(guest)" after guests\' names').uncheck();
      await eventually(async () => (await realmAt(owner)).realm_enable_guest_user_indicator === false, 'off at the server');
      await page.keyboard.press('Escape');
      await row.getByText('Gina Visitor', { exact: true }).waitFor();
      assert.equal(await page.getByText('Gina Visitor (guest)').count(), 0);

      // Writing to the guest: Zulip's warning (enable_guest_user_dm_warning, on by default), until turned off.
      await page.evaluate((id) => ((globalThis as any).location.hash = `#narrow/dm/${id}-gina`), guest.id);
      const warning = page.getByRole('status').filter({ hasText: 'Gina Visitor is a guest in this organization.' });
      await warning.waitFor();
      await (await permissions(page)).getByLabel('Warn when a direct message is being written to a guest').uncheck();
      await eventually(async () => (await realmAt(owner)).realm_enable_guest_user_dm_warning === false, 'the warning off at the server');
      await page.keyboard.press('Escape');
      await eventually(async () => (await warning.count()) === 0, 'no warning');
      await ctx.close();
    }));
});
