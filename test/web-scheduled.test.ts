/**
 * Scheduled messages in the web client, in real Chromium: "Send later" from
 * the compose box (the server then has the message, for the time chosen),
 * the list of scheduled messages (one scheduled elsewhere shows; editing one
 * changes its time, topic and text at the server, and a change made elsewhere
 * shows; cancelling one deletes it at the server), and refusals: a time in the past (the
 * server's reason) and nothing written (the compose box's). Reminders: "Remind
 * me about this" on a message (the server has the reminder, for the time and
 * with the note chosen), listed under the compose box with a link to the
 * message, cancelled; one set elsewhere shows; a past time is refused.
 * Skipped (with one line saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD, type Client, streamIdOf } from './helpers.ts';
import { browserTests, channelLink, eventually, loginPage, messageRow, PASSWORD, withWebServer } from './web-browser.ts';

/** The user's scheduled messages as the server has them. */
async function scheduledAtServer(api: Client): Promise<Array<Record<string, any>>> {
  return assertSuccess(await api.get('/scheduled_messages')).scheduled_messages as Array<Record<string, any>>;
}

/** A time `hours` from now to the minute, as the browser's datetime-local input takes it, and as a Unix timestamp. */
function browserTime(page: Page, hours: number): Promise<[string, number]> {
  return page.evaluate((h) => {
    const d = new Date(Date.now() + h * 3600_000);
    d.setSeconds(0, 0);
    const pad = (n: number) => String(n).padStart(2, '0');
    return [`${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`, d.getTime() / 1000] as [string, number];
  }, hours);
}

await browserTests('the web client in Chromium: scheduled messages', (newContext) => {
  test('send later: scheduled for the time chosen, listed, edited, cancelled; one scheduled elsewhere shows; a past time and an empty box are refused', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Later' });
      const generalId = await streamIdOf(owner, 'general');
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await (await channelLink(page, 'general')).click();
      await page.getByLabel('Topic', { exact: true }).fill('later');
      const box = page.getByLabel('Message', { exact: true });
      const compose = page.getByRole('region', { name: 'Compose' });
      const form = compose.getByRole('form', { name: 'Send later' });

      // Nothing written: the compose box says so, the form stays.
      await compose.getByRole('button', { name: 'Send later' }).click();
      await form.getByRole('button', { name: 'Schedule' }).click();
      await compose.getByRole('alert').filter({ hasText: 'Write a message first.' }).waitFor();
      assert.equal(await form.count(), 1);

      // A time in the past: the server's reason, and the message stays in the box.
      await box.fill('too late');
      const [past] = await browserTime(page, -1);
      await form.getByLabel('Send at').fill(past);
      await form.getByRole('button', { name: 'Schedule' }).click();
      await form.getByRole('alert').waitFor();
      assert.match((await form.getByRole('alert').textContent())!, /future/);
      assert.equal(await box.inputValue(), 'too late');
      assert.deepEqual(await scheduledAtServer(owner), []);

      // Two hours ahead: the server has it, for that minute; the box empties and says when.
      await box.fill('see you **tomorrow**');
      const [when, ts] = await browserTime(page, 2);
      await form.getByLabel('Send at').fill(when);
      await form.getByRole('button', { name: 'Schedule' }).click();
      await eventually(async () => (await form.count()) === 0, 'the form closed');
      assert.equal(await box.inputValue(), '');
      await compose.getByRole('status').filter({ hasText: /^Scheduled for / }).waitFor();
      const [mine] = await scheduledAtServer(owner);
      assert.equal(mine!.type, 'stream');
      assert.equal(mine!.to, generalId);
      assert.equal(mine!.topic, 'later');
      assert.equal(mine!.content, 'see you **tomorrow**');
      assert.equal(mine!.scheduled_delivery_timestamp, ts);

      // Listed; one scheduled elsewhere (a direct message) shows too, the sooner first.
      assertSuccess(await owner.post('/scheduled_messages', { type: 'direct', to: JSON.stringify([bob.id]), content: 'a word soon', scheduled_delivery_timestamp: ts - 1800 }));
      await compose.getByText('Scheduled messages (2)').click();
      const list = compose.getByRole('list', { name: 'Scheduled messages' });
      await eventually(async () => (await list.getByRole('listitem').count()) === 2, 'both listed');
      const rows = await list.getByRole('listitem').allTextContents();
      assert.ok(rows[0]!.includes('Bob Later') && rows[0]!.includes('a word soon'), rows[0]);
      // The text as the server rendered it, not its Markdown.
      assert.ok(rows[1]!.includes('#general \u203a later') && rows[1]!.includes('see you tomorrow') && !rows[1]!.includes('**'), rows[1]);

      // Edited: a new time, topic and text; the server has them and the list shows them.
      const row = list.getByRole('listitem').filter({ hasText: 'see you' });
      await row.getByRole('button', { name: 'Edit' }).click();
      const edit = row.getByRole('form', { name: 'Edit scheduled message' });
      assert.equal(await edit.getByLabel('Send at').inputValue(), when);
      assert.equal(await edit.getByLabel('Topic').inputValue(), 'later');
      assert.equal(await edit.getByLabel('Message').inputValue(), 'see you **tomorrow**');
      // A time in the past: the server's reason; nothing changes.
      await edit.getByLabel('Send at').fill(past);
      await edit.getByRole('button', { name: 'Save' }).click();
      await edit.getByRole('alert').waitFor();
      assert.match((await edit.getByRole('alert').textContent())!, /future/);
      assert.equal((await scheduledAtServer(owner)).find((m) => m.topic === 'later')?.scheduled_delivery_timestamp, ts);
      const [later, laterTs] = await browserTime(page, 3);
      await edit.getByLabel('Send at').fill(later);
      await edit.getByLabel('Topic').fill('much later');
      await edit.getByLabel('Message').fill('see you **next week**');
      await edit.getByRole('button', { name: 'Save' }).click();
      await eventually(async () => (await edit.count()) === 0, 'the edit form closed');
      const edited = (await scheduledAtServer(owner)).find((m) => m.scheduled_message_id === mine!.scheduled_message_id)!;
      assert.equal(edited.topic, 'much later');
      assert.equal(edited.content, 'see you **next week**');
      assert.equal(edited.scheduled_delivery_timestamp, laterTs);
      await eventually(async () => ((await row.textContent()) ?? '').includes('#general \u203a much later'), 'the new topic listed');
      await eventually(async () => ((await row.textContent()) ?? '').includes('see you next week'), 'the new text listed');
      assert.ok(!(await row.textContent())!.includes('**'));

      // Changed elsewhere: the list shows it.
      const dm = (await scheduledAtServer(owner)).find((m) => m.content === 'a word soon')!;
      assertSuccess(await owner.request('PATCH', `/scheduled_messages/${dm.scheduled_message_id}`, { content: 'a word, a bit later' }));
      await eventually(async () => (await list.getByRole('listitem').filter({ hasText: 'a word, a bit later' }).count()) === 1, 'the change made elsewhere listed');

      // Cancelled: gone at the server and from the list.
      await row.getByRole('button', { name: 'Cancel message' }).click();
      await eventually(async () => (await list.getByRole('listitem').count()) === 1, 'one left in the list');
      assert.deepEqual((await scheduledAtServer(owner)).map((m) => m.content), ['a word, a bit later']);
      await ctx.close();
    }));
  test('reminders: set on a message for the time chosen, with a note; listed with a link to the message; cancelled; one set elsewhere shows; a past time refused', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bobAccount = await t.makeUser({ password: PASSWORD, name: 'Bob Remind' });
      const bob = t.client(bobAccount);
      const remindersAtServer = async () => assertSuccess(await bob.get('/reminders')).reminders as Array<Record<string, any>>;
      const target = assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'plans', content: 'Review the budget' })).id as number;
      const page = await loginPage(await newContext(), t.url, bobAccount.email, PASSWORD);
      const row = messageRow(page, 'Review the budget');
      await row.hover();
      await row.getByRole('button', { name: 'More actions' }).click();
      await row.getByRole('menuitem', { name: 'Remind me about this' }).click();
      const form = row.getByRole('form', { name: 'Remind me about this message' });

      // A time in the past: the server's reason.
      const [past] = await browserTime(page, -2);
      await form.getByLabel('Remind me at').fill(past);
      await form.getByRole('button', { name: 'Set reminder' }).click();
      await form.getByRole('alert').waitFor();
      assert.deepEqual(await remindersAtServer(), []);

      // In three hours, with a note: the server has it, and it is listed.
      const [value, timestamp] = await browserTime(page, 3);
      await form.getByLabel('Remind me at').fill(value);
      await form.getByLabel('Note').fill('before Friday');
      await form.getByRole('button', { name: 'Set reminder' }).click();
      await eventually(async () => (await form.count()) === 0, 'the form closed');
      const [made] = await remindersAtServer();
      assert.equal(made!.reminder_target_message_id, target);
      assert.equal(made!.scheduled_delivery_timestamp, timestamp);
      assert.match(made!.content, /before Friday/);
      const list = page.getByRole('list', { name: 'Reminders' });
      await page.getByText('Reminders (1)').click();
      const item = list.getByRole('listitem');
      await item.waitFor();
      // What the reminder will say, as rendered: no Markdown of its link, mention or quote.
      const said = (await item.textContent()) ?? '';
      assert.match(said, /You requested a reminder for .*Note: before Friday/);
      assert.ok(!said.includes('**') && !said.includes('```'), said);
      assert.equal(await item.getByRole('link', { name: 'The message' }).getAttribute('href'), `#narrow/near/${target}`);

      // One set elsewhere shows; cancelling one deletes it at the server.
      assertSuccess(await bob.post('/reminders', { message_id: target, scheduled_delivery_timestamp: timestamp + 3600 }));
      await page.getByText('Reminders (2)').waitFor();
      await item.first().getByRole('button', { name: 'Cancel reminder' }).click();
      await page.getByText('Reminders (1)').waitFor();
      assert.deepEqual((await remindersAtServer()).map((r) => r.scheduled_delivery_timestamp), [timestamp + 3600]);
    }));
});
