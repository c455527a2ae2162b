/**
 * The web client's custom profile fields (Settings) in real Chromium: an
 * administrator adds fields of every type, which the server then has, and
 * edits, reorders and deletes them; a duplicate name is refused with the
 * server's reason; fields added and deleted elsewhere show in the open
 * page; a member is not offered the administrators' section, fills in a
 * value of each type, which the server then has, sees them as others will,
 * clears one, is told why a bad link is refused, and sees values changed
 * elsewhere. Skipped (with one line saying why) where Chromium is not
 * installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertSuccess, type Client } from './helpers.ts';
import { browserTests, eventually, loginPage, openSettings, PASSWORD, selectedText, withWebServer } from './web-browser.ts';

/** What the tests read of a field as the server has it. */
type FieldAtServer = { id: number; name: string; type: number; hint: string; field_data: string; required: boolean; display_in_profile_summary?: boolean };

/** The organization's custom profile fields as the server has them, in their order. */
async function fieldsAtServer(api: Client): Promise<FieldAtServer[]> {
  return assertSuccess(await api.get('/realm/profile_fields')).custom_fields as FieldAtServer[];
}

/** A user's profile_data as the server has it. */
async function valuesAtServer(api: Client, userId: number): Promise<Record<string, { value: string; rendered_value?: string }>> {
  return assertSuccess(await api.get(`/users/${userId}`, { include_custom_profile_fields: true })).user.profile_data;
}

/** Opens Settings: the administrators' Custom profile fields section (its add form, list and rows) and one's own Profile fields section. */
async function openFieldSections(page: Page) {
  const dialog = await openSettings(page);
  const admin = dialog.getByRole('region', { name: 'Custom profile fields' });
  const list = admin.getByRole('list', { name: 'Custom profile fields' });
  const own = dialog.getByRole('region', { name: 'Profile fields', exact: true });
  return {
    admin,
    addForm: admin.getByRole('form', { name: 'Add a profile field' }),
    list,
    row: (name: string) => list.getByRole('listitem', { name, exact: true }),
    names: async () => list.getByRole('listitem').evaluateAll((items) => items.map((li) => li.getAttribute('aria-label'))),
    own,
    ownForm: own.getByRole('form', { name: 'Profile fields' }),
    seen: async () =>
      own.locator('.profile-field-value').evaluateAll((rows) => rows.map((r) => [r.querySelector('dt')!.textContent, r.querySelector('dd')!.textContent])),
  };
}

const options = { a: { text: 'Red', order: '1' }, b: { text: 'Blue', order: '2' } };

await browserTests('the web client in Chromium: custom profile fields', (newContext) => {
  test('profile fields: an administrator adds fields of each type, edits, reorders and deletes them; refusals say why; changes made elsewhere show; a member is not offered the section', () =>
    withWebServer(async (t) => {
      const ada = await t.makeUser({ role: 200, password: PASSWORD, name: 'Ada Admin' });
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Member' });
      const owner = t.client(t.owner);
      const page = await loginPage(await newContext(), t.url, ada.email, PASSWORD);
      const s = await openFieldSections(page);
      await s.admin.getByText('No custom profile fields yet.').waitFor();
      // With no fields, there is nothing of one's own to fill in.
      assert.equal(await s.own.count(), 0);

      const add = async (type: string, name: string, hint = '', more?: () => Promise<void>) => {
        await s.addForm.getByLabel('Type').selectOption({ label: type });
        if (name) await s.addForm.getByLabel('Name', { exact: true }).fill(name);
        await s.addForm.getByLabel('Hint').fill(hint);
        await more?.();
        await s.addForm.getByRole('button', { name: 'Add field' }).click();
      };
      const added = async (n: number) => {
        await s.addForm.getByRole('status').filter({ hasText: 'Field added.' }).waitFor();
        await eventually(async () => (await s.list.getByRole('listitem').count()) === n, `${n} fields listed`);
      };

      await add('Short text', 'Nickname', 'What we call you');
      await added(1);
      // The form is cleared for the next one.
      assert.equal(await s.addForm.getByLabel('Name', { exact: true }).inputValue(), '');
      await add('Paragraph', 'About me', '', () => s.addForm.getByLabel('Display in profile summary').check());
      await added(2);
      await add('List of options', 'Team', 'Pick one', () => s.addForm.getByLabel('Options (one a line)').fill('Red\nBlue\n\nGreen'));
      await added(3);
      await add('Date', 'Birthday');
      await added(4);
      await add('Link', 'Website');
      await added(5);
      await add('Person', 'Mentor', '', () => s.addForm.getByLabel('Required').check());
      await added(6);
      await add('Pronouns', 'Pronouns');
      await added(7);
      // A known external account: the server names it.
      await s.addForm.getByLabel('Type').selectOption({ label: 'External account' });
      await s.addForm.getByLabel('Account').selectOption({ label: 'GitHub' });
      assert.equal(await s.addForm.getByLabel('Name', { exact: true }).count(), 0);
      await s.addForm.getByRole('button', { name: 'Add field' }).click();
      await added(8);

      const made = await fieldsAtServer(owner);
      assert.deepEqual(
        made.map((f) => [f.name, f.type, f.hint, f.field_data, f.required, !!f.display_in_profile_summary]),
        [
          ['Nickname', 1, 'What we call you', '', false, false],
          ['About me', 2, '', '', false, true],
          ['Team', 3, 'Pick one', JSON.stringify({ 0: { text: 'Red', order: '1' }, 1: { text: 'Blue', order: '2' }, 2: { text: 'Green', order: '3' } }), false, false],
          ['Birthday', 4, '', '', false, false],
          ['Website', 5, '', '', false, false],
          ['Mentor', 6, '', '', true, false],
          ['Pronouns', 8, '', '', false, false],
          ['GitHub username', 7, '', '{"subtype":"github"}', false, false],
        ],
      );
      assert.deepEqual(await s.names(), ['Nickname', 'About me', 'Team', 'Birthday', 'Website', 'Mentor', 'Pronouns', 'GitHub username']);
      assert.equal(await s.row('Nickname').locator('.muted-text').textContent(), 'Short text \u00b7 What we call you');
      assert.equal(await s.row('Mentor').locator('.muted-text').textContent(), 'Person, required');
      assert.equal(await s.row('About me').locator('.muted-text').textContent(), 'Paragraph, in the profile summary');

      // A duplicate name: the server's reason, and nothing added.
      await add('Short text', 'Nickname');
      assert.equal(await s.addForm.getByRole('alert').textContent(), 'A field with that label already exists.');
      assert.equal((await fieldsAtServer(owner)).length, 8);
      assert.equal(await s.list.getByRole('listitem').count(), 8);

      // Edited: renamed, options changed (the kept ones keep their keys), made required.
      const team = made.find((f) => f.name === 'Team')!;
      await s.row('Team').getByRole('button', { name: 'Edit Team' }).click();
      const editor = s.row('Team').getByRole('form', { name: 'Edit Team' });
      assert.equal(await editor.getByLabel('Options (one a line)').inputValue(), 'Red\nBlue\nGreen');
      // A refusal in the editor: the server's reason, nothing changed.
      await editor.getByLabel('Name', { exact: true }).fill('Birthday');
      await editor.getByRole('button', { name: 'Save field' }).click();
      assert.equal(await editor.getByRole('alert').textContent(), 'A field with that label already exists.');
      assert.equal((await fieldsAtServer(owner)).find((f) => f.id === team.id)!.name, 'Team');
      await editor.getByLabel('Name', { exact: true }).fill('Squad');
      await editor.getByLabel('Hint').fill('Your squad');
      await editor.getByLabel('Options (one a line)').fill('Blue\nRed\nYellow');
      await editor.getByLabel('Required').check();
      await editor.getByRole('button', { name: 'Save field' }).click();
      await s.row('Squad').waitFor();
      assert.equal(await s.row('Squad').getByRole('form').count(), 0);
      const squad = (await fieldsAtServer(owner)).find((f) => f.id === team.id)!;
      assert.deepEqual([squad.name, squad.hint, squad.required, JSON.parse(squad.field_data)], [
        'Squad',
        'Your squad',
        true,
        { 1: { text: 'Blue', order: '1' }, 0: { text: 'Red', order: '2' }, 3: { text: 'Yellow', order: '3' } },
      ]);

      // Reordered: Website up, Nickname down.
      await s.row('Website').getByRole('button', { name: 'Move Website up' }).click();
      await eventually(async () => (await fieldsAtServer(owner)).map((f) => f.name)[3] === 'Website', 'Website moved up at the server');
      await s.row('Nickname').getByRole('button', { name: 'Move Nickname down' }).click();
      const order = ['About me', 'Nickname', 'Squad', 'Website', 'Birthday', 'Mentor', 'Pronouns', 'GitHub username'];
      await eventually(async () => JSON.stringify((await fieldsAtServer(owner)).map((f) => f.name)) === JSON.stringify(order), 'the new order at the server');
      await eventually(async () => JSON.stringify(await s.names()) === JSON.stringify(order), 'the new order in the page');
      assert.equal(await s.row('About me').getByRole('button', { name: 'Move About me up' }).isDisabled(), true);
      assert.equal(await s.row('GitHub username').getByRole('button', { name: 'Move GitHub username down' }).isDisabled(), true);

      // Deleted once confirmed (Cancel keeps it).
      await s.row('Pronouns').getByRole('button', { name: 'Delete Pronouns' }).click();
      const confirm = s.row('Pronouns').getByRole('alertdialog', { name: 'Delete Pronouns?' });
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      assert.equal(await confirm.count(), 0);
      assert.equal((await fieldsAtServer(owner)).length, 8);
      await s.row('Pronouns').getByRole('button', { name: 'Delete Pronouns' }).click();
      await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
      await eventually(async () => (await s.row('Pronouns').count()) === 0, 'the deleted field gone from the list');
      assert.deepEqual((await fieldsAtServer(owner)).map((f) => f.name), order.filter((n) => n !== 'Pronouns'));

      // Added and deleted elsewhere: shows in the open page.
      const office = assertSuccess(await owner.post('/realm/profile_fields', { name: 'Office', field_type: 1, hint: 'Room' })).id as number;
      await s.row('Office').waitFor();
      assert.equal(await s.row('Office').locator('.muted-text').textContent(), 'Short text \u00b7 Room');
      await s.own.getByLabel('Office').waitFor();
      assertSuccess(await owner.delete(`/realm/profile_fields/${office}`));
      await eventually(async () => (await s.row('Office').count()) === 0, 'the field deleted elsewhere gone from the list');
      await eventually(async () => (await s.own.getByLabel('Office').count()) === 0, 'the field deleted elsewhere gone from one\u2019s own');

      // A custom external account: a URL pattern without the user name is refused with the server's reason.
      await s.addForm.getByLabel('Type').selectOption({ label: 'External account' });
      await s.addForm.getByLabel('Account').selectOption({ label: 'Custom' });
      await s.addForm.getByLabel('Name', { exact: true }).fill('Chat handle');
      await s.addForm.getByLabel('URL pattern').fill('https://chat.example/u/');
      await s.addForm.getByRole('button', { name: 'Add field' }).click();
      assert.equal(await s.addForm.getByRole('alert').textContent(), "URL pattern must contain '%(username)s'.");
      assert.equal((await fieldsAtServer(owner)).length, 7);
      await s.addForm.getByLabel('URL pattern').fill('https://chat.example/u/%(username)s');
      await s.addForm.getByRole('button', { name: 'Add field' }).click();
      await added(8);
      const chat = (await fieldsAtServer(owner)).at(-1)!;
      assert.deepEqual([chat.name, chat.type, JSON.parse(chat.field_data)], ['Chat handle', 7, { subtype: 'custom', url_pattern: 'https://chat.example/u/%(username)s' }]);
      // Its URL pattern edited: a bad one refused with the server's reason, then a new one the server has.
      await s.row('Chat handle').getByRole('button', { name: 'Edit Chat handle' }).click();
      const chatEditor = s.row('Chat handle').getByRole('form', { name: 'Edit Chat handle' });
      assert.equal(await chatEditor.getByLabel('URL pattern').inputValue(), 'https://chat.example/u/%(username)s');
      await chatEditor.getByLabel('URL pattern').fill('https://talk.example/people');
      await chatEditor.getByRole('button', { name: 'Save field' }).click();
      assert.equal(await chatEditor.getByRole('alert').textContent(), "URL pattern must contain '%(username)s'.");
      await chatEditor.getByLabel('URL pattern').fill('https://talk.example/people/%(username)s');
      await chatEditor.getByRole('button', { name: 'Save field' }).click();
      await eventually(async () => (await chatEditor.count()) === 0, 'the editor closed');
      assert.deepEqual(JSON.parse((await fieldsAtServer(owner)).at(-1)!.field_data), { subtype: 'custom', url_pattern: 'https://talk.example/people/%(username)s' });

      // A member: no administrators' section, but their own fields to fill in.
      const bobPage = await loginPage(await newContext(), t.url, bob.email, PASSWORD);
      const b = await openFieldSections(bobPage);
      await b.ownForm.getByLabel('Squad').waitFor();
      assert.equal(await b.admin.count(), 0);
      assert.equal(await bobPage.getByRole('button', { name: 'Add field' }).count(), 0);
      assert.equal(await bobPage.getByRole('button', { name: /^(Move|Delete|Edit) Squad/ }).count(), 0);
    }));

  test('profile fields: a member fills in a value of each type, which the server has, sees them as others will, clears one; a bad link is refused; changes made elsewhere show', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const ada = await t.makeUser({ role: 200, name: 'Ada Admin' });
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Member' });
      const carol = await t.makeUser({ name: 'Carol Coder' });
      const create = async (params: Record<string, unknown>) => assertSuccess(await owner.post('/realm/profile_fields', params)).id as number;
      const nick = await create({ name: 'Nickname', field_type: 1, hint: 'What we call you' });
      const about = await create({ name: 'About me', field_type: 2 });
      const team = await create({ name: 'Team', field_type: 3, field_data: options });
      const birthday = await create({ name: 'Birthday', field_type: 4 });
      const site = await create({ name: 'Website', field_type: 5 });
      const mentors = await create({ name: 'Mentors', field_type: 6 });
      const pronouns = await create({ name: 'Pronouns', field_type: 8 });
      const github = await create({ field_type: 7, field_data: { subtype: 'github' } });
      const badge = await create({ name: 'Badge', field_type: 1, editable_by_user: false });

      const page = await loginPage(await newContext(), t.url, bob.email, PASSWORD);
      const s = await openFieldSections(page);
      const form = s.ownForm;
      await form.getByLabel('Nickname').waitFor();
      assert.equal(await s.admin.count(), 0);
      await s.own.getByText('Nothing filled in yet.').waitFor();
      // Inputs that fit each type.
      assert.deepEqual(
        await Promise.all(['Nickname', 'About me', 'Team', 'Birthday', 'Website', 'Mentors', 'Pronouns', 'GitHub username'].map((l) =>
          form.getByLabel(l).evaluate((el) => `${el.tagName.toLowerCase()}:${(el as unknown as { type: string }).type}`),
        )),
        ['input:text', 'textarea:textarea', 'select:select-one', 'input:date', 'input:url', 'select:select-multiple', 'input:text', 'input:text'],
      );
      assert.equal(await form.getByLabel('Nickname').getAttribute('aria-describedby'), `own-field-${nick}-hint`);
      assert.equal(await s.own.locator(`#own-field-${nick}-hint`).textContent(), 'What we call you');
      // A field users may not change: read-only, and says so.
      assert.equal(await form.getByLabel('Badge').isDisabled(), true);
      await s.own.getByText('Only administrators can change this.').waitFor();

      await form.getByLabel('Nickname').fill('Bobby');
      await form.getByLabel('About me').fill('I like **bold** text');
      await form.getByLabel('Team').selectOption({ label: 'Blue' });
      await form.getByLabel('Birthday').fill('1990-05-17');
      await form.getByLabel('Website').fill('https://example.com/bob');
      await form.getByLabel('Mentors').selectOption([{ label: 'Carol Coder' }, { label: 'Ada Admin' }]);
      await form.getByLabel('Pronouns').fill('he/him');
      await form.getByLabel('GitHub username').fill('bobgh');
      await form.getByRole('button', { name: 'Save profile fields' }).click();
      await form.getByRole('status').filter({ hasText: 'Profile fields saved.' }).waitFor();
      const values = await valuesAtServer(owner, bob.id);
      assert.deepEqual(values, {
        [nick]: { value: 'Bobby', rendered_value: '<p>Bobby</p>' },
        [about]: { value: 'I like **bold** text', rendered_value: '<p>I like <strong>bold</strong> text</p>' },
        [team]: { value: 'b' },
        [birthday]: { value: '1990-05-17' },
        [site]: { value: 'https://example.com/bob' },
        [mentors]: { value: `[${ada.id},${carol.id}]` },
        [pronouns]: { value: 'he/him' },
        [github]: { value: 'bobgh' },
      });

      // As others see them: in the fields' order, rendered text, names, options, a date, links.
      const seen = [
        ['Nickname', 'Bobby'],
        ['About me', 'I like bold text'],
        ['Team', 'Blue'],
        ['Birthday', 'May 17, 1990'],
        ['Website', 'https://example.com/bob'],
        ['Mentors', 'Ada Admin, Carol Coder'],
        ['Pronouns', 'he/him'],
        ['GitHub username', 'bobgh'],
      ];
      await eventually(async () => JSON.stringify(await s.seen()) === JSON.stringify(seen), 'the values shown as others see them');
      const card = s.own.getByRole('definition');
      assert.equal(await card.nth(1).locator('strong').textContent(), 'bold');
      assert.equal(await card.nth(3).locator('time').getAttribute('datetime'), '1990-05-17');
      assert.equal(await card.nth(4).getByRole('link').getAttribute('href'), 'https://example.com/bob');
      assert.equal(await card.nth(7).getByRole('link').getAttribute('href'), 'https://github.com/bobgh');

      // A bad link: the server's reason; nothing changed there.
      await form.getByLabel('Website').fill('javascript:alert(1)');
      await form.getByRole('button', { name: 'Save profile fields' }).click();
      assert.equal(await form.getByRole('alert').textContent(), 'Website is not a URL');
      assert.equal((await valuesAtServer(owner, bob.id))[site]!.value, 'https://example.com/bob');
      await form.getByLabel('Website').fill('https://example.com/bob');

      // Cleared: the nickname and the team are gone at the server and from the card.
      await form.getByLabel('Nickname').fill('');
      await form.getByLabel('Team').selectOption({ label: '(none)' });
      await form.getByRole('button', { name: 'Save profile fields' }).click();
      await form.getByRole('status').filter({ hasText: 'Profile fields saved.' }).waitFor();
      const after = await valuesAtServer(owner, bob.id);
      assert.equal(after[nick], undefined);
      assert.equal(after[team], undefined);
      assert.equal(after[site]!.value, 'https://example.com/bob');
      await eventually(async () => (await s.seen()).map(([name]) => name).join() === 'About me,Birthday,Website,Mentors,Pronouns,GitHub username', 'the cleared values gone from the card');

      // Changed elsewhere (another tab, an administrator): the form and the card show it.
      assertSuccess(await t.client(bob).patch('/users/me/profile_data', { data: [{ id: team, value: 'a' }, { id: pronouns, value: 'they/them' }] }));
      await eventually(async () => (await selectedText(form.getByLabel('Team'))) === 'Red', 'the team chosen elsewhere in the form');
      await eventually(async () => (await form.getByLabel('Pronouns').inputValue()) === 'they/them', 'the pronouns typed elsewhere in the form');
      assertSuccess(await t.client(ada).patch(`/users/${bob.id}`, { profile_data: [{ id: badge, value: 'B-7' }] }));
      await eventually(async () => (await form.getByLabel('Badge').inputValue()) === 'B-7', 'the badge an administrator set in the form');
      await eventually(
        async () => JSON.stringify((await s.seen()).filter(([name]) => ['Team', 'Pronouns', 'Badge'].includes(name!))) === JSON.stringify([['Team', 'Red'], ['Pronouns', 'they/them'], ['Badge', 'B-7']]),
        'the values changed elsewhere on the card',
      );
      assertSuccess(await owner.patch(`/realm/profile_fields/${team}`, { name: 'Squad' }));
      await form.getByLabel('Squad').waitFor();
      await eventually(async () => (await s.seen()).some(([name, value]) => name === 'Squad' && value === 'Red'), 'the renamed field on the card');
    }));
});
