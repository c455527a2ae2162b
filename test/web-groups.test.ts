/**
 * The web client's user groups (Settings) in real Chromium: creating,
 * renaming, members, joining and leaving, deactivating and reactivating,
 * refusals, the group's own permission settings, and the user_group
 * events of changes made elsewhere. Skipped
 * (with one line saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertSuccess, type Client } from './helpers.ts';
import type { Page } from 'playwright-core';
import { browserTests, eventGate, eventually, loginPage, PASSWORD, selectedText, withWebServer, openSettings } from './web-browser.ts';

/** The group called `name`, as the server has it (deactivated ones included), or undefined. */
async function groupAtServer(api: Client, name: string): Promise<Record<string, any> | undefined> {
  const groups = assertSuccess(await api.get('/user_groups', { include_deactivated_groups: true })).user_groups as Record<string, any>[];
  return groups.find((g) => g.name === name);
}

/** The Settings dialog's User groups section of a logged-in page, its list, and a row of the list by group name. */
async function groupsSection(page: Page) {
  const section = (await openSettings(page)).getByRole('region', { name: 'User groups' });
  const list = section.getByRole('list', { name: 'User groups' });
  return { section, list, row: (name: string) => list.getByRole('listitem', { name, exact: true }) };
}

await browserTests('the web client in Chromium: user groups', (newContext) => {
  test('user groups: a member creates, renames, fills, leaves, joins, deactivates and reactivates a group; refusals say why; changes made elsewhere show', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Groups' });
      const carol = await t.makeUser({ name: 'Carol Groups' });
      const bobApi = t.client(bob);
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      const { section, list, row } = await groupsSection(page);
      const withText = async (name: string, text: string) => eventually(async () => ((await row(name).textContent()) ?? '').includes(text), `${name} showing “${text}”`);

      // The system groups are not listed.
      await section.getByText('No user groups yet.').waitFor();
      assert.equal(await list.getByRole('listitem').count(), 0);

      // Created with Bob as its member.
      const create = async (name: string, description: string) => {
        await section.getByLabel('Group name').fill(name);
        await section.getByLabel('Group description').fill(description);
        await section.getByRole('button', { name: 'Create group' }).click();
      };
      await create('Designers', 'People who draw');
      await section.getByRole('status').filter({ hasText: 'Group created.' }).waitFor();
      const made = (await groupAtServer(bobApi, 'Designers'))!;
      assert.equal(made.description, 'People who draw');
      assert.deepEqual(made.members, [bob.id]);
      await withText('Designers', '1 member');
      await withText('Designers', 'People who draw');

      // The same name again: the server's reason, and no second group.
      await create('Designers', 'again');
      assert.equal(await section.getByRole('alert').textContent(), "User group 'Designers' already exists.");
      assert.equal(assertSuccess(await bobApi.get('/user_groups')).user_groups.filter((g: any) => g.name === 'Designers').length, 1);

      // Renamed, and its description changed.
      await row('Designers').getByRole('button', { name: 'Open Designers' }).click();
      await row('Designers').getByLabel('Name', { exact: true }).fill('Design team');
      await row('Designers').getByLabel('Description', { exact: true }).fill('Drawing and colour');
      await row('Designers').getByRole('button', { name: 'Save group' }).click();
      await eventually(async () => (await groupAtServer(bobApi, 'Design team'))?.description === 'Drawing and colour', 'the group renamed at the server');
      assert.equal(await groupAtServer(bobApi, 'Designers'), undefined);
      const group = row('Design team');
      await withText('Design team', 'Drawing and colour');

      // A member added, then removed.
      await group.getByLabel('Add a member').selectOption({ label: 'Carol Groups' });
      await group.getByRole('button', { name: 'Add', exact: true }).click();
      await eventually(async () => (await groupAtServer(bobApi, 'Design team'))?.members.includes(carol.id), 'Carol added at the server');
      await withText('Design team', '2 members');
      const members = group.getByRole('list', { name: 'Members of Design team' });
      await members.getByRole('listitem', { name: 'Carol Groups' }).waitFor();
      await members.getByRole('button', { name: 'Remove Carol Groups from Design team' }).click();
      await eventually(async () => !(await groupAtServer(bobApi, 'Design team'))?.members.includes(carol.id), 'Carol removed at the server');
      await withText('Design team', '1 member');

      // Bob leaves, and joins again.
      await group.getByRole('button', { name: 'Leave Design team' }).click();
      await eventually(async () => (await groupAtServer(bobApi, 'Design team'))?.members.length === 0, 'Bob left');
      await group.getByRole('button', { name: 'Join Design team' }).click();
      await eventually(async () => (await groupAtServer(bobApi, 'Design team'))?.members.includes(bob.id), 'Bob joined');
      await group.getByRole('button', { name: 'Leave Design team' }).waitFor();

      // Changes an administrator makes through the API show in the open page.
      const id = made.id as number;
      assertSuccess(await owner.patch(`/user_groups/${id}`, { description: 'Set by the owner' }));
      assertSuccess(await owner.post(`/user_groups/${id}/members`, { add: [carol.id] }));
      assertSuccess(await owner.post('/user_groups/create', { name: 'Operations', description: 'Keeps things running', members: [carol.id] }));
      const ops = (await groupAtServer(owner, 'Operations'))!;
      assertSuccess(await owner.post(`/user_groups/${ops.id}/subgroups`, { add: [id] }));
      await withText('Design team', 'Set by the owner');
      await withText('Design team', '2 members');
      await members.getByRole('listitem', { name: 'Carol Groups' }).waitFor();
      await withText('Operations', '1 member, 1 subgroup');
      // Bob cannot manage the owner's group: only leaving or joining, as its settings allow.
      assert.equal(await row('Operations').getByRole('button', { name: 'Join Operations' }).count(), 0);
      await row('Operations').getByRole('button', { name: 'Open Operations' }).click();
      assert.equal(await row('Operations').getByRole('button', { name: 'Save group' }).count(), 0);
      assert.equal(await row('Operations').getByRole('button', { name: 'Deactivate Operations' }).count(), 0);
      await row('Operations').getByRole('button', { name: 'Close Operations' }).click();
      await group.getByRole('button', { name: 'Open Design team' }).click();

      // In use (a subgroup of Operations): refused, with the server's message.
      await group.getByRole('button', { name: 'Deactivate Design team' }).click();
      await group.getByRole('alert').filter({ hasText: 'Cannot deactivate user group in use.' }).waitFor();
      assert.equal((await groupAtServer(bobApi, 'Design team'))?.deactivated, false);

      // No longer in use: deactivated, and listed apart.
      assertSuccess(await owner.post(`/user_groups/${ops.id}/subgroups`, { delete: [id] }));
      await withText('Operations', '1 member');
      await eventually(async () => !((await row('Operations').textContent()) ?? '').includes('subgroup'), 'the subgroup gone from Operations');
      await group.getByRole('button', { name: 'Deactivate Design team' }).click();
      await eventually(async () => (await groupAtServer(bobApi, 'Design team'))?.deactivated === true, 'the group deactivated at the server');
      const deactivated = section.getByRole('list', { name: 'Deactivated' });
      await deactivated.getByRole('listitem', { name: 'Design team' }).waitFor();
      assert.equal(await row('Design team').count(), 0);
      // One the owner deactivates moves there too; Bob may not reactivate it.
      assertSuccess(await owner.post(`/user_groups/${ops.id}/deactivate`));
      await deactivated.getByRole('listitem', { name: 'Operations' }).waitFor();
      await section.getByText('No user groups yet.').waitFor();
      assert.equal(await deactivated.getByRole('button', { name: 'Reactivate Operations' }).count(), 0);

      // Bob reactivates his.
      await deactivated.getByRole('button', { name: 'Reactivate Design team' }).click();
      await eventually(async () => (await groupAtServer(bobApi, 'Design team'))?.deactivated === false, 'the group reactivated at the server');
      await withText('Design team', '2 members');
      assert.equal(await deactivated.getByRole('listitem', { name: 'Design team' }).count(), 0);

      // A fresh page (from /register; #settings opens the dialog again) shows the same.
      await page.reload();
      await deactivated.getByRole('listitem', { name: 'Operations' }).waitFor();
      await withText('Design team', '2 members');
      assert.equal(await deactivated.getByRole('listitem').count(), 1);
      await ctx.close();
    }));
  test('user groups: subgroups added and removed, a cycle refused with the reason; a deactivated group opened, renamed and its members changed', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const dana = await t.makeUser({ password: PASSWORD, name: 'Dana Groups' });
      const erin = await t.makeUser({ name: 'Erin Groups' });
      const danaApi = t.client(dana);
      for (const name of ['Backend', 'Frontend', 'Engineering']) assertSuccess(await danaApi.post('/user_groups/create', { name, description: '', members: [dana.id] }));
      const id = async (name: string) => (await groupAtServer(danaApi, name))!.id as number;
      const ctx = await newContext();
      const { section, row } = await groupsSection(await loginPage(ctx, t.url, dana.email, PASSWORD));
      const eng = row('Engineering');
      await eng.getByRole('button', { name: 'Open Engineering' }).click();
      const subgroups = eng.getByRole('list', { name: 'Subgroups of Engineering' });
      await eng.getByText('No subgroups.').waitFor();

      // Two subgroups added, one at a time.
      for (const name of ['Backend', 'Frontend']) {
        await eng.getByLabel('Add a subgroup').selectOption({ label: name });
        await eng.getByRole('button', { name: 'Add subgroup' }).click();
        await subgroups.getByRole('listitem', { name }).waitFor();
      }
      assert.deepEqual(((await groupAtServer(danaApi, 'Engineering'))!.direct_subgroup_ids as number[]).sort(), [await id('Backend'), await id('Frontend')].sort());
      await eventually(async () => ((await eng.textContent()) ?? '').includes('1 member, 2 subgroups'), 'Engineering showing two subgroups');
      // Groups already there are not offered again.
      assert.deepEqual(await eng.getByLabel('Add a subgroup').locator('option').allTextContents(), []);

      // Engineering inside Backend would be a cycle: the server's reason shows, nothing changes.
      const engineeringId = await id('Engineering');
      const backend = row('Backend');
      await backend.getByRole('button', { name: 'Open Backend' }).click();
      await backend.getByLabel('Add a subgroup').selectOption({ label: 'Engineering' });
      await backend.getByRole('button', { name: 'Add subgroup' }).click();
      await backend.getByRole('alert').filter({ hasText: `User group ${engineeringId} is already a supergroup of this group.` }).waitFor();
      assert.deepEqual((await groupAtServer(danaApi, 'Backend'))!.direct_subgroup_ids, []);
      await backend.getByRole('button', { name: 'Close Backend' }).click();

      // One removed (one group is open at a time: Engineering again).
      await eng.getByRole('button', { name: 'Open Engineering' }).click();
      await subgroups.getByRole('button', { name: 'Remove subgroup Frontend from Engineering' }).click();
      await eventually(async () => ((await groupAtServer(danaApi, 'Engineering'))!.direct_subgroup_ids as number[]).length === 1, 'Frontend removed at the server');
      await eventually(async () => (await subgroups.getByRole('listitem', { name: 'Frontend' }).count()) === 0, 'Frontend gone from the page');
      // Added elsewhere: shows in the open group.
      assertSuccess(await owner.post(`/user_groups/${await id('Engineering')}/subgroups`, { add: [await id('Frontend')] }));
      await subgroups.getByRole('listitem', { name: 'Frontend' }).waitFor();

      // A deactivated group: opened from its own list, renamed, a member added; it offers no deactivation.
      const frontendId = await id('Frontend');
      assertSuccess(await owner.post(`/user_groups/${await id('Engineering')}/subgroups`, { delete: [frontendId] }));
      assertSuccess(await danaApi.post(`/user_groups/${frontendId}/deactivate`));
      const deactivated = section.getByRole('list', { name: 'Deactivated' });
      const old = deactivated.getByRole('listitem', { name: 'Frontend' });
      await old.getByRole('button', { name: 'Open Frontend' }).click();
      await old.getByLabel('Name', { exact: true }).fill('Frontend (old)');
      await old.getByRole('button', { name: 'Save group' }).click();
      await eventually(async () => (await groupAtServer(danaApi, 'Frontend (old)'))?.deactivated === true, 'the deactivated group renamed at the server');
      const renamed = deactivated.getByRole('listitem', { name: 'Frontend (old)' });
      await renamed.getByLabel('Add a member').selectOption({ label: 'Erin Groups' });
      await renamed.getByRole('button', { name: 'Add', exact: true }).click();
      await eventually(async () => (await groupAtServer(danaApi, 'Frontend (old)'))?.members.includes(erin.id), 'Erin added to the deactivated group');
      assert.equal(await renamed.getByRole('button', { name: 'Deactivate Frontend (old)' }).count(), 0);
      // Its permissions show, but cannot be changed while it is deactivated (the server refuses that).
      await renamed.getByText("A deactivated group's permissions cannot be changed; reactivate it first.").waitFor();
      assert.equal(await renamed.getByLabel('Who can join').isDisabled(), true);
      assert.equal(await renamed.getByLabel('Add a subgroup').count(), 1);
      await ctx.close();
    }));

  test("user groups: the creator sets the group's permissions and the server has them; the owner's changes show; a refusal says why; other members see them read-only", () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Groups' });
      const carol = await t.makeUser({ password: PASSWORD, name: 'Carol Groups' });
      const bobApi = t.client(bob);
      const all = assertSuccess(await owner.get('/user_groups')).user_groups as Array<{ id: number; name: string; is_system_group: boolean }>;
      const sys = Object.fromEntries(all.filter((g) => g.is_system_group).map((g) => [g.name, g.id]));
      const id = assertSuccess(await bobApi.post('/user_groups/create', { name: 'Reviewers', description: 'They review', members: [bob.id, carol.id] })).group_id as number;
      const atServer = async () => (await groupAtServer(owner, 'Reviewers'))!;
      const shown = selectedText;

      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      // The page misses changes made while the gate holds its events.
      const events = await eventGate(page);
      const { row } = await groupsSection(page);
      const group = row('Reviewers');
      await group.getByRole('button', { name: 'Open Reviewers' }).click();
      const select = (label: string) => group.getByLabel(label, { exact: true });

      // The creator manages it (Zulip's default: an anonymous group of the creator), and sees the defaults.
      await eventually(async () => (await shown(select('Who can manage this group'))) === 'Custom: Bob Groups', 'who can manage: the creator');
      assert.equal(await shown(select('Who can join')), 'Nobody');
      assert.equal(await shown(select('Who can mention this group')), 'Everyone, guests included');

      // Changed in the page: the server has them.
      await select('Who can join').selectOption({ label: 'Members' });
      await eventually(async () => (await atServer()).can_join_group === sys['role:members'], 'who can join: members');
      await select('Who can mention this group').selectOption({ label: 'Moderators' });
      await eventually(async () => (await atServer()).can_mention_group === sys['role:moderators'], 'who can mention: moderators');
      await select('Who can remove members').selectOption({ label: 'Reviewers' });
      await eventually(async () => (await atServer()).can_remove_members_group === id, 'who can remove members: the group itself');
      await group.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

      // The owner changes some through the API: the open page shows them.
      assertSuccess(await owner.patch(`/user_groups/${id}`, { can_mention_group: { new: sys['role:everyone'], old: sys['role:moderators'] } }));
      assertSuccess(await owner.patch(`/user_groups/${id}`, { can_leave_group: { new: { direct_members: [carol.id], direct_subgroups: [sys['role:administrators']] } } }));
      await eventually(async () => (await shown(select('Who can mention this group'))) === 'Everyone, guests included', 'who can mention, set by the owner');
      await eventually(async () => (await shown(select('Who can leave'))) === 'Custom: Administrators, Carol Groups', 'who can leave, a custom group set by the owner');

      // Refused: changed elsewhere while this page had not heard of it yet (Zulip's "old" value no longer so).
      events.hold();
      assertSuccess(await owner.patch(`/user_groups/${id}`, { can_join_group: { new: sys['role:fullmembers'], old: sys['role:members'] } }));
      await select('Who can join').selectOption({ label: 'Moderators' });
      await group.getByRole('alert').filter({ hasText: "'old' value does not match the expected value." }).waitFor();
      assert.equal((await atServer()).can_join_group, sys['role:fullmembers']);
      assert.equal(await shown(select('Who can join')), 'Members');
      // Once the page hears of the change, it shows it.
      events.release();
      await eventually(async () => (await shown(select('Who can join'))) === 'Full members', 'the change made elsewhere shown');
      await page.unrouteAll({ behavior: 'ignoreErrors' });
      await ctx.close();

      // Carol, a member who may not manage the group: the same values, none of them editable.
      const carolCtx = await newContext();
      const carolPage = await loginPage(carolCtx, t.url, carol.email, PASSWORD);
      const carolRow = (await groupsSection(carolPage)).row('Reviewers');
      await carolRow.getByRole('button', { name: 'Open Reviewers' }).click();
      await carolRow.getByText('Only those who can manage this group can change these.').waitFor();
      const selects = carolRow.locator('select[id^="group-' + id + '-can_"]');
      assert.equal(await selects.count(), 6);
      for (const s of await selects.all()) assert.equal(await s.isDisabled(), true, (await s.getAttribute('id')) ?? '');
      assert.equal(await shown(carolRow.getByLabel('Who can join', { exact: true })), 'Full members');
      assert.equal(await shown(carolRow.getByLabel('Who can remove members', { exact: true })), 'Reviewers');
      await carolCtx.close();
    }));
});
