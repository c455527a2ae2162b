/**
 * Pasting into the compose and edit boxes in real Chromium, as Zulip's web
 * app does it: formatted text comes in as Markdown (bold, links, lists,
 * code blocks with their language, strikethrough, inline code, a numbered
 * list's start; one element's text alone), a URL pasted over selected text
 * makes a link, a link to a channel's topic here becomes `#**channel>topic**`
 * (with `@id` for a message), nothing is converted inside a code block or
 * from plain text, and Undo takes a conversion back. A long paste is
 * offered as a file instead (Zulip's PastedText.txt), and a very long one
 * goes in only if asked for.
 * Skipped (with one line saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD, streamIdOf } from './helpers.ts';
import { browserTests, channelLink, eventually, loginPage, messageRow, withWebServer } from './web-browser.ts';

/** Pastes clipboard data (type → text) into the textarea `label` names; true where the page took the paste over. */
function paste(page: Page, label: string, data: Record<string, string>): Promise<boolean> {
  return page.evaluate(
    ({ label, data }) => {
      // Browser globals (this callback runs in the page).
      const w = globalThis as any;
      const dt = new w.DataTransfer();
      for (const [type, text] of Object.entries(data)) dt.setData(type, text);
      const el = w.document.querySelector(`textarea[aria-label="${label}"]`);
      el.focus();
      return !el.dispatchEvent(new w.ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    },
    { label, data },
  );
}

/** Waits for the box to hold `expected` (formatted text is converted once the converter is loaded). */
async function holds(box: ReturnType<Page['getByLabel']>, expected: string): Promise<void> {
  await eventually(async () => (await box.inputValue()) === expected, `the box to hold ${JSON.stringify(expected)}`);
}

const FORMATTED = {
  'text/plain': 'Hello bold and a link\none\ntwo\nprint(1)\nprint(2)',
  'text/html': '<meta charset="utf-8"><p>Hello <b>bold</b> and <a href="https://example.com/x">a link</a></p><ul><li>one</li><li>two</li></ul><pre><code class="language-python">print(1)\nprint(2)\n</code></pre>',
};

await browserTests('the web client in Chromium: pasting', (newContext) => {
  test('formatted text pastes as Markdown, a URL over a selection makes a link, a topic link becomes Zulip\u2019s syntax; not in a code block, not from plain text; Undo takes it back', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const general = await streamIdOf(owner, 'general');
      const realmUrl = assertSuccess(await owner.get('/server_settings')).realm_url as string;
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await (await channelLink(page, 'general')).click();
      await page.getByLabel('Topic', { exact: true }).fill('paste');
      const box = page.getByLabel('Message', { exact: true });

      // Formatted text: Markdown, which the server renders back into the same shapes.
      assert.equal(await paste(page, 'Message', FORMATTED), true);
      const markdown = 'Hello **bold** and [a link](https://example.com/x)\n* one\n* two\n\n```python\nprint(1)\nprint(2)\n```';
      await holds(box, markdown);
      await box.press('Control+Enter');
      const row = messageRow(page, 'Hello bold');
      await row.locator('strong', { hasText: 'bold' }).waitFor();
      await row.getByRole('link', { name: 'a link' }).waitFor();
      assert.equal(await row.locator('ul > li').count(), 2);
      await row.locator('.codehilite[data-code-language="Python"]').waitFor();
      const sent = assertSuccess(await owner.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: 'false' })).messages[0];
      assert.equal(sent.content, markdown);

      // Strikethrough, inline code, italics, a numbered list's start.
      await paste(page, 'Message', { 'text/plain': 'x', 'text/html': '<p>A <del>gone</del> and <code>inline</code> and <em>it</em></p><ol start="3"><li>three</li><li>four</li></ol>' });
      await holds(box, 'A ~~gone~~ and `inline` and *it*\n\n3. three\n4. four');
      // One element alone (a styled heading): its text.
      await box.fill('');
      await paste(page, 'Message', { 'text/plain': 'Title', 'text/html': '<h1 style="color: red">Title</h1>' });
      await holds(box, 'Title');

      // A URL pasted over selected words: a link of them; Undo gives the words back.
      await box.fill('see the docs');
      await box.evaluate((el) => (el as unknown as { setSelectionRange(a: number, b: number): void }).setSelectionRange(8, 12));
      assert.equal(await paste(page, 'Message', { 'text/plain': 'https://example.com/docs' }), true);
      assert.equal(await box.inputValue(), 'see the [docs](https://example.com/docs)');
      await box.press('Control+z');
      await eventually(async () => (await box.inputValue()) === 'see the docs', 'the words back after Undo');

      // A link to a topic here, and to a message in it: Zulip's topic link syntax.
      await box.fill('');
      await paste(page, 'Message', { 'text/plain': `${realmUrl}/#narrow/channel/${general}-general/topic/plans` });
      assert.equal(await box.inputValue(), '#**general>plans** ');
      await paste(page, 'Message', { 'text/plain': `${realmUrl}/#narrow/channel/${general}-general/topic/plans/near/${sent.id}` });
      assert.equal(await box.inputValue(), `#**general>plans** #**general>plans@${sent.id}** `);
      // A topic whose name the syntax cannot hold: Zulip's Markdown link to it.
      await box.fill('');
      await paste(page, 'Message', { 'text/plain': `${realmUrl}/#narrow/channel/${general}-general/topic/a.20.60b.60/near/${sent.id}` });
      assert.equal(await box.inputValue(), `[#general > a &#96;b&#96; @ \u{1F4AC}](#narrow/channel/${general}-general/topic/a.20.60b.60/near/${sent.id}) `);
      // Another server's link, and a search link, stay as they are (the browser pastes them).
      assert.equal(await paste(page, 'Message', { 'text/plain': `https://elsewhere.example/#narrow/channel/${general}-general/topic/plans` }), false);
      assert.equal(await paste(page, 'Message', { 'text/plain': `${realmUrl}/#narrow/search/plans` }), false);

      // Inside a code block, and plain text only: left to the browser, as it is.
      await box.fill('```\n');
      assert.equal(await paste(page, 'Message', FORMATTED), false);
      assert.equal(await paste(page, 'Message', { 'text/plain': 'just *text*' }), false);

      // The edit box converts too.
      const id = assertSuccess(await owner.post('/messages', { type: 'stream', to: 'general', topic: 'paste', content: 'to edit' })).id as number;
      const editRow = page.locator(`article.message-row[data-id="${id}"]`);
      await editRow.hover();
      await editRow.getByRole('button', { name: 'Edit', exact: true }).click();
      const edit = editRow.getByLabel('Edit content');
      await edit.press('End');
      await page.keyboard.type(' ');
      await paste(page, 'Edit content', { 'text/plain': 'and more', 'text/html': '<p>and <strong>more</strong></p>' });
      await holds(edit, 'to edit and **more**');
      await ctx.close();
    }));

  test('a long paste is offered as a file (Zulip\u2019s): "Yes, convert" puts the text back as it was and uploads PastedText.txt; a very long one waits for Paste or Convert; typing ends the offer', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await (await channelLink(page, 'general')).click();
      await page.getByLabel('Topic', { exact: true }).fill('paste');
      const compose = page.getByRole('region', { name: 'Compose' });
      const box = page.getByLabel('Message', { exact: true });
      const long = 'a long line of log output\n'.repeat(100); // 2,600 characters
      const veryLong = 'x'.repeat(5000);

      // Long: pasted (here by the page's own conversion of its formatted version), and the offer.
      await box.fill('Log: ');
      await box.press('End');
      await paste(page, 'Message', { 'text/plain': long, 'text/html': `<pre><code>${long}</code></pre>` });
      const offer = compose.getByRole('status').filter({ hasText: 'Do you want to convert the pasted text into a file?' });
      await offer.waitFor();
      await holds(box, `Log: \`\`\`\n${long.replace(/\n$/, '')}\n\`\`\``);
      await offer.getByRole('button', { name: 'Yes, convert' }).click();
      await eventually(async () => /^Log: \[PastedText\.txt\]\(\/user_uploads\/[^)]+\/PastedText\.txt\)$/.test(await box.inputValue()), 'the text back, and the file linked');
      assert.equal(await offer.count(), 0);
      const link = (await box.inputValue()).match(/\((\/user_uploads\/[^)]+)\)/)![1]!;
      assert.equal(await page.evaluate(async (href) => (await fetch(href)).text(), link), long);
      assert.ok(assertSuccess(await owner.get('/attachments')).attachments.some((a: { name: string }) => a.name === 'PastedText.txt'));

      // Typing ends the offer, and the text stays.
      await box.fill('');
      await paste(page, 'Message', { 'text/plain': long });
      await offer.waitFor();
      await box.press('End');
      await page.keyboard.type('!');
      await offer.waitFor({ state: 'detached' });

      // Very long: nothing in the box until asked; Paste puts it in; Convert makes it a file.
      await box.fill('');
      assert.equal(await paste(page, 'Message', { 'text/plain': veryLong }), true);
      const choice = compose.getByRole('status').filter({ hasText: 'Paste text directly or convert to a file?' });
      await choice.waitFor();
      assert.equal(await box.inputValue(), '');
      await choice.getByRole('button', { name: 'Paste', exact: true }).click();
      await holds(box, veryLong);
      await box.fill('');
      await paste(page, 'Message', { 'text/plain': veryLong });
      await choice.getByRole('button', { name: 'Convert', exact: true }).click();
      await eventually(async () => /^\[PastedText\.txt\]\(\/user_uploads\/[^)]+\)$/.test(await box.inputValue()), 'the very long paste as a file');
      await ctx.close();
    }));
});
