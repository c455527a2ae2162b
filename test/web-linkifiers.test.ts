/**
 * The web client's linkifiers (Settings) in real Chromium: an administrator
 * adds one, which the server then has; an invalid one is refused with the
 * server's message and nothing is added; editing one changes it at the
 * server; one added through the API by another administrator shows in the
 * open page; deleting one removes it at the server and from the page; a
 * message sent afterwards renders the link; a member sees the list without
 * controls. Skipped (with one line saying why) where Chromium is not
 * installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertSuccess, type Client } from './helpers.ts';
import { browserTests, channelLink, eventually, loginPage, messageRow, PASSWORD, send, withWebServer, openSettings } from './web-browser.ts';

interface LinkifierAtServer {
  id: number;
  pattern: string;
  url_template: string;
}

/** The organization's linkifiers as the server has them. */
async function linkifiersAtServer(api: Client): Promise<LinkifierAtServer[]> {
  return assertSuccess(await api.get('/realm/linkifiers')).linkifiers as LinkifierAtServer[];
}

/** Opens Settings; its Linkifiers section, the section's list, and a row of the list by pattern. */
async function linkifierSection(page: Page) {
  const section = (await openSettings(page)).getByRole('region', { name: 'Linkifiers' });
  const list = section.getByRole('list', { name: 'Linkifiers' });
  return { section, list, row: (pattern: string) => list.getByRole('listitem', { name: pattern, exact: true }) };
}

await browserTests('the web client in Chromium: linkifiers', (newContext) => {
  test('linkifiers: an administrator adds, edits and deletes one; an invalid one is refused; one added elsewhere shows; a member sees no controls', () =>
    withWebServer(async (t) => {
      const ada = await t.makeUser({ role: 200, password: PASSWORD, name: 'Ada Admin' });
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Member' });
      const owner = t.client(t.owner);
      const page = await loginPage(await newContext(), t.url, ada.email, PASSWORD);
      const { section, list, row } = await linkifierSection(page);
      await section.getByText('No linkifiers yet.').waitFor();

      const fill = async (pattern: string, urlTemplate: string) => {
        await section.getByLabel('Pattern').fill(pattern);
        await section.getByLabel('URL template').fill(urlTemplate);
        await section.getByRole('button', { name: 'Add linkifier' }).click();
      };

      // Added: listed as pattern → URL template, and at the server.
      await fill('#(?P<id>[0-9]+)', 'https://tracker.example/issues/{id}');
      await section.getByRole('status').filter({ hasText: 'Linkifier added.' }).waitFor();
      const [made] = await linkifiersAtServer(owner);
      assert.deepEqual({ pattern: made!.pattern, url_template: made!.url_template }, { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/issues/{id}' });
      await row('#(?P<id>[0-9]+)').waitFor();
      assert.equal(await row('#(?P<id>[0-9]+)').locator('.org-person').textContent(), '#(?P<id>[0-9]+) → https://tracker.example/issues/{id}');
      // The form is cleared for the next one.
      assert.equal(await section.getByLabel('Pattern').inputValue(), '');
      assert.equal(await section.getByLabel('URL template').inputValue(), '');

      // Invalid: the server's reason, and nothing added.
      await fill('PR(?P<num>[0-9]+)', 'https://tracker.example/pulls/{id}');
      assert.equal(await section.getByRole('alert').textContent(), "Group 'id' in URL template is not present in linkifier pattern.");
      assert.equal((await linkifiersAtServer(owner)).length, 1);
      assert.equal(await list.getByRole('listitem').count(), 1);
      await fill('bad(', 'https://tracker.example/{id}');
      await section.getByRole('alert').waitFor();
      assert.notEqual(await section.getByRole('alert').textContent(), '');
      assert.equal((await linkifiersAtServer(owner)).length, 1);

      // Edited: an invalid template is refused in the editor, a valid one changes it at the server.
      await row('#(?P<id>[0-9]+)').getByRole('button', { name: 'Edit #(?P<id>[0-9]+)' }).click();
      const editor = row('#(?P<id>[0-9]+)').getByRole('form', { name: 'Edit #(?P<id>[0-9]+)' });
      assert.equal(await editor.getByLabel('Pattern').inputValue(), '#(?P<id>[0-9]+)');
      await editor.getByLabel('URL template').fill('https://tracker.example/{nope}');
      await editor.getByRole('button', { name: 'Save linkifier' }).click();
      assert.equal(await editor.getByRole('alert').textContent(), "Group 'nope' in URL template is not present in linkifier pattern.");
      assert.equal((await linkifiersAtServer(owner))[0]!.url_template, 'https://tracker.example/issues/{id}');
      await editor.getByLabel('Pattern').fill('T(?P<id>[0-9]+)');
      await editor.getByLabel('URL template').fill('https://tracker.example/tickets/{id}');
      await editor.getByRole('button', { name: 'Save linkifier' }).click();
      await row('T(?P<id>[0-9]+)').waitFor();
      assert.equal(await row('#(?P<id>[0-9]+)').count(), 0);
      assert.deepEqual(
        (await linkifiersAtServer(owner)).map((l) => [l.id, l.pattern, l.url_template]),
        [[made!.id, 'T(?P<id>[0-9]+)', 'https://tracker.example/tickets/{id}']],
      );
      assert.equal(await row('T(?P<id>[0-9]+)').getByRole('form').count(), 0);

      // A message sent afterwards links the text.
      await page.keyboard.press('Escape');
      await (await channelLink(page, 'general')).click();
      await send(page, 'links', 'see T42 please');
      const link = messageRow(page, 'see T42 please').getByRole('link', { name: 'T42' });
      assert.equal(await link.getAttribute('href'), 'https://tracker.example/tickets/42');
      await openSettings(page);

      // Added through the API by another administrator: shows in the open page.
      assertSuccess(await owner.post('/realm/filters', { pattern: 'CVE-(?P<cve>[0-9-]+)', url_template: 'https://cve.example/{cve}' }));
      await row('CVE-(?P<cve>[0-9-]+)').waitFor();

      // A member sees the list, with no add, edit or delete controls.
      const bobPage = await loginPage(await newContext(), t.url, bob.email, PASSWORD);
      const bobs = await linkifierSection(bobPage);
      await bobs.row('CVE-(?P<cve>[0-9-]+)').waitFor();
      await bobs.row('T(?P<id>[0-9]+)').waitFor();
      await bobs.section.getByText("Only administrators can change the organization's linkifiers.").waitFor();
      assert.equal(await bobs.section.getByRole('button').count(), 0);
      assert.equal(await bobs.section.getByRole('textbox').count(), 0);

      // Deleted: gone at the server, from the page and from the member's open page.
      await row('T(?P<id>[0-9]+)').getByRole('button', { name: 'Delete T(?P<id>[0-9]+)' }).click();
      await eventually(async () => (await row('T(?P<id>[0-9]+)').count()) === 0, 'the deleted linkifier gone from the list');
      await eventually(async () => (await bobs.row('T(?P<id>[0-9]+)').count()) === 0, 'the deleted linkifier gone from the member’s list');
      assert.deepEqual((await linkifiersAtServer(owner)).map((l) => l.pattern), ['CVE-(?P<cve>[0-9-]+)']);
    }));
});
