/**
 * The web client's code playgrounds and message retention in real Chromium.
 * Playgrounds, in Settings: an administrator adds one, which the server then
 * has, and deletes one; a bad one is refused with the server's reason; one
 * added elsewhere shows in the open page; a member sees the list without
 * the form. In messages: a Python code block offers "View in <name>" at the
 * URL template with the code encoded as Zulip's web app does; two Python
 * playgrounds offer both; a block of another language, or a playground
 * whose URL is not http(s), offers none. Retention, in the Organization
 * section: the owner sets 30 days and back to forever, which the server
 * then has; a change made elsewhere shows; an administrator who is not an
 * owner sees the policy and cannot change it; a refusal shows the server's
 * reason and keeps the policy shown. Skipped (with one line saying why)
 * where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD, type Client } from './helpers.ts';
import { browserTests, channelLink, eventGate, eventually, loginPage, messageRow, PASSWORD, withWebServer, openSettings } from './web-browser.ts';

interface PlaygroundAtServer {
  id: number;
  name: string;
  pygments_language: string;
  url_template: string;
}

/** The organization's playgrounds as the server gives them (/register's realm_playgrounds). */
async function playgroundsAtServer(api: Client): Promise<PlaygroundAtServer[]> {
  return assertSuccess(await api.post('/register', { fetch_event_types: ['realm_playgrounds'] })).realm_playgrounds as PlaygroundAtServer[];
}

/** The organization's message_retention_days as the server gives it (-1: forever). */
async function retentionAtServer(api: Client): Promise<number> {
  return assertSuccess(await api.post('/register', { fetch_event_types: ['realm'] })).realm_message_retention_days as number;
}

/** Opens Settings (unless open); its Code playgrounds section, the list, and a row of the list by "name (language)". */
async function playgroundSection(page: Page) {
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  if (!(await dialog.isVisible())) await openSettings(page);
  const section = dialog.getByRole('region', { name: 'Code playgrounds' });
  const list = section.getByRole('list', { name: 'Code playgrounds' });
  return { section, list, row: (label: string) => list.getByRole('listitem', { name: label, exact: true }) };
}

/** Python code with characters a URL must encode: quotes, spaces, &, /, ?, <, parentheses, a non-ASCII letter. */
const CODE = 'print("a b&c/d?x<y \u00e9")';
/** CODE and the block's final newline, encoded as RFC 6570 expands {code} (Zulip's web app: the url-template library). */
const ENCODED = 'print%28%22a%20b%26c%2Fd%3Fx%3Cy%20%C3%A9%22%29%0A';

await browserTests('the web client in Chromium: code playgrounds and message retention', (newContext) => {
  test('playgrounds: an administrator adds and deletes them, a bad one is refused, one added elsewhere shows, a member sees no form; code blocks offer them', () =>
    withWebServer(async (t) => {
      const ada = await t.makeUser({ role: 200, password: PASSWORD, name: 'Ada Admin' });
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Member' });
      const owner = t.client(t.owner);
      const page = await loginPage(await newContext(), t.url, ada.email, PASSWORD);
      const { section, list, row } = await playgroundSection(page);
      await section.getByText('No code playgrounds yet.').waitFor();

      const fill = async (name: string, language: string, urlTemplate: string) => {
        await section.getByLabel('Name', { exact: true }).fill(name);
        await section.getByLabel('Language (as Pygments names it)').fill(language);
        await section.getByLabel('URL template').fill(urlTemplate);
        await section.getByRole('button', { name: 'Add playground' }).click();
      };

      // Added: listed, and at the server; the form is cleared.
      await fill('Python playground', 'Python', 'https://python.example.com/?code={code}');
      await section.getByRole('status').filter({ hasText: 'Playground added.' }).waitFor();
      const [made] = await playgroundsAtServer(owner);
      assert.deepEqual(made, { id: made!.id, name: 'Python playground', pygments_language: 'Python', url_template: 'https://python.example.com/?code={code}' });
      await row('Python playground (Python)').waitFor();
      assert.equal(await row('Python playground (Python)').locator('.org-person').textContent(), 'Python playground (Python) https://python.example.com/?code={code}');
      assert.equal(await section.getByLabel('Name', { exact: true }).inputValue(), '');
      assert.equal(await section.getByLabel('URL template').inputValue(), '');

      // Refused: the server's reason, and nothing added.
      await fill('Other', 'Python', 'https://other.example.com/?q={x}');
      assert.equal(await section.getByRole('alert').textContent(), 'Missing the required variable "code" in the URL template');
      await fill('Other', 'py!thon', 'https://other.example.com/?q={code}');
      await eventually(async () => (await section.getByRole('alert').textContent()) === 'Invalid characters in pygments language', 'the second refusal shown');
      assert.equal((await playgroundsAtServer(owner)).length, 1);
      assert.equal(await list.getByRole('listitem').count(), 1);

      // A message with a Python block and a Rust block: the Python one offers its playground.
      await page.keyboard.press('Escape');
      await (await channelLink(page, 'general')).click();
      const content = `python:\n\`\`\`python\n${CODE}\n\`\`\`\nrust:\n\`\`\`rust\nfn main() {}\n\`\`\``;
      assertSuccess(await owner.post('/messages', { type: 'stream', to: 'general', topic: 'code', content }));
      const message = messageRow(page, 'fn main');
      const pythonBlock = message.locator('.codehilite[data-code-language="Python"]');
      const rustBlock = message.locator('.codehilite[data-code-language="Rust"]');
      const view = pythonBlock.getByRole('link', { name: 'View in Python playground' });
      await view.waitFor();
      assert.equal(await view.getAttribute('href'), `https://python.example.com/?code=${ENCODED}`);
      assert.equal(await view.getAttribute('target'), '_blank');
      assert.equal(await view.getAttribute('rel'), 'noopener noreferrer');
      assert.equal(await rustBlock.count(), 1);
      assert.equal(await rustBlock.getByRole('link').count(), 0);
      assert.equal(await message.locator('.code-playgrounds').count(), 1);

      // A second Python playground added elsewhere: listed in the open page, and the block offers both.
      assertSuccess(await owner.post('/realm/playgrounds', { name: 'Run it', pygments_language: 'Python', url_template: 'https://run.example.org/py{?code}' }));
      const choice = pythonBlock.getByText('View in playground', { exact: true });
      await choice.waitFor();
      assert.equal(await view.count(), 0);
      await choice.click();
      const links = pythonBlock.getByRole('link');
      assert.deepEqual(await links.allTextContents(), ['View in Python playground', 'View in Run it']);
      assert.deepEqual(await links.evaluateAll((as) => as.map((a) => a.getAttribute('href'))), [`https://python.example.com/?code=${ENCODED}`, `https://run.example.org/py?code=${ENCODED}`]);
      const settings = await playgroundSection(page);
      await settings.row('Run it (Python)').waitFor();

      // A playground whose URL would not be http(s) is listed but never offered.
      assertSuccess(await owner.post('/realm/playgrounds', { name: 'Script', pygments_language: 'JavaScript', url_template: 'javascript:alert({code})' }));
      await settings.row('Script (JavaScript)').waitFor();
      await page.keyboard.press('Escape');
      assertSuccess(await owner.post('/messages', { type: 'stream', to: 'general', topic: 'code', content: '```javascript\nalert(1)\n```' }));
      const jsBlock = messageRow(page, 'alert(1)').locator('.codehilite[data-code-language="JavaScript"]');
      await jsBlock.waitFor();
      assert.equal(await jsBlock.locator('.code-playgrounds').count(), 0);
      assert.equal(await jsBlock.getByRole('link').count(), 0);

      // A member sees the list, with no form and no delete buttons.
      const bobPage = await loginPage(await newContext(), t.url, bob.email, PASSWORD);
      const bobs = await playgroundSection(bobPage);
      await bobs.row('Python playground (Python)').waitFor();
      await bobs.row('Run it (Python)').waitFor();
      await bobs.section.getByText("Only administrators can change the organization's code playgrounds.").waitFor();
      assert.equal(await bobs.section.getByRole('button').count(), 0);
      assert.equal(await bobs.section.getByRole('textbox').count(), 0);

      // Deleted: gone at the server, from the list, from the member's open page, and the block offers the one left.
      const ours = await playgroundSection(page);
      await ours.row('Run it (Python)').getByRole('button', { name: 'Delete Run it (Python)' }).click();
      await eventually(async () => (await ours.row('Run it (Python)').count()) === 0, 'the deleted playground gone from the list');
      await eventually(async () => (await bobs.row('Run it (Python)').count()) === 0, "the deleted playground gone from the member's list");
      assert.deepEqual((await playgroundsAtServer(owner)).map((p) => p.name), ['Python playground', 'Script']);
      await page.keyboard.press('Escape');
      await view.waitFor();
      assert.equal(await view.getAttribute('href'), `https://python.example.com/?code=${ENCODED}`);
    }));

  test('message retention: the owner sets 30 days and back to forever; a change made elsewhere shows; an administrator cannot change it; a refusal says why', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const ada = await t.makeUser({ role: 200, password: PASSWORD, name: 'Ada Admin' });
      const page = await loginPage(await newContext(), t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const org = (await openSettings(page)).getByRole('region', { name: 'Organization', exact: true });
      const policy = org.locator('#org-retention-policy');
      const form = org.getByRole('form', { name: 'Message retention' });
      assert.equal(await policy.textContent(), 'Keep messages forever');
      assert.equal(await retentionAtServer(owner), -1);

      // 30 days: asked to confirm first (older messages go); cancelled, nothing changes.
      await form.getByLabel('Keep messages', { exact: true }).selectOption({ label: 'For a number of days' });
      await form.getByLabel('Days to keep messages').fill('30');
      await form.getByRole('button', { name: 'Save retention' }).click();
      await form.getByText('Messages older than 30 days will be deleted for good, in every channel and conversation.').waitFor();
      await form.getByRole('button', { name: 'Cancel' }).click();
      assert.equal(await form.getByRole('button', { name: 'Delete older messages' }).count(), 0);
      assert.equal(await retentionAtServer(owner), -1);
      // Confirmed: the server has it.
      await form.getByRole('button', { name: 'Save retention' }).click();
      await form.getByRole('button', { name: 'Delete older messages' }).click();
      await form.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      assert.equal(await retentionAtServer(owner), 30);
      assert.equal(await policy.textContent(), 'Delete messages after 30 days');

      // An administrator who is not an owner sees the policy, with no way to change it.
      const adaPage = await loginPage(await newContext(), t.url, ada.email, PASSWORD);
      const adaOrg = (await openSettings(adaPage)).getByRole('region', { name: 'Organization', exact: true });
      assert.equal(await adaOrg.locator('#org-retention-policy').textContent(), 'Delete messages after 30 days');
      await adaOrg.getByText('Only organization owners can change this.').waitFor();
      assert.equal(await adaOrg.getByRole('form', { name: 'Message retention' }).count(), 0);
      assert.equal(await adaOrg.getByLabel('Keep messages', { exact: true }).count(), 0);

      // Back to forever: the server has it, and the administrator's open page shows it.
      await form.getByLabel('Keep messages', { exact: true }).selectOption({ label: 'Forever' });
      assert.equal(await form.getByLabel('Days to keep messages').count(), 0);
      await form.getByRole('button', { name: 'Save retention' }).click();
      await eventually(async () => (await retentionAtServer(owner)) === -1, 'retention back to forever at the server');
      await eventually(async () => (await policy.textContent()) === 'Keep messages forever', 'forever shown to the owner');
      await eventually(async () => (await adaOrg.locator('#org-retention-policy').textContent()) === 'Keep messages forever', 'forever shown to the administrator');

      // Changed elsewhere (through the API): the open pages show it.
      assertSuccess(await owner.patch('/realm', { message_retention_days: 7 }));
      await eventually(async () => (await policy.textContent()) === 'Delete messages after 7 days', '7 days shown to the owner');
      await eventually(async () => (await adaOrg.locator('#org-retention-policy').textContent()) === 'Delete messages after 7 days', '7 days shown to the administrator');
      assert.equal(await form.getByLabel('Days to keep messages').inputValue(), '7');

      // Refused: an owner made an administrator while her page missed the change gets the server's reason, and the policy shown stays.
      const olga = await t.makeUser({ role: 100, password: PASSWORD, name: 'Olga Owner' });
      const olgaContext = await newContext();
      const events = await eventGate(olgaContext);
      const olgaPage = await loginPage(olgaContext, t.url, olga.email, PASSWORD);
      const olgaOrg = (await openSettings(olgaPage)).getByRole('region', { name: 'Organization', exact: true });
      const olgaForm = olgaOrg.getByRole('form', { name: 'Message retention' });
      events.hold();
      assertSuccess(await owner.patch(`/users/${olga.id}`, { role: 200 }));
      await olgaForm.getByLabel('Days to keep messages').fill('14');
      await olgaForm.getByRole('button', { name: 'Save retention' }).click();
      await olgaForm.getByRole('alert').waitFor();
      assert.equal(await olgaForm.getByRole('alert').textContent(), 'Must be an organization owner');
      assert.equal(await olgaOrg.locator('#org-retention-policy').textContent(), 'Delete messages after 7 days');
      assert.equal(await retentionAtServer(owner), 7);
      // Once the page hears of the change, the form goes.
      events.release();
      await olgaOrg.getByText('Only organization owners can change this.').waitFor();
      assert.equal(await olgaForm.count(), 0);
    }));
});
