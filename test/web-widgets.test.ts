/**
 * Polls and to-do lists in the web client, in real Chromium, with two people
 * in two browsers: a "/poll" and a "/todo" sent from the compose box show as
 * widgets to both; each vote, added option, edited question, struck task,
 * added task and edited title is a submessage at the server and shows live in
 * the other browser; a reload rebuilds the same state from the messages'
 * submessages; the server's refusal (a widget whose message is gone) and the
 * client's (an option already there) show as alerts. Skipped (with one line
 * saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD, type Client } from './helpers.ts';
import { browserTests, channelLink, eventGate, eventually, loginPage, PASSWORD, send, withWebServer } from './web-browser.ts';

/** The newest message whose content contains `text`, as GET /messages gives it, with its submessages' senders and parsed contents. */
async function messageAtServer(api: Client, text: string): Promise<{ id: number; subs: Array<{ sender_id: number; data: Record<string, unknown> }> }> {
  const r = assertSuccess(await api.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, apply_markdown: false }));
  const m = (r.messages as Array<Record<string, any>>).filter((x) => String(x.content).includes(text)).pop();
  assert.ok(m, `a message with ${text}`);
  const subs = (m.submessages as Array<Record<string, any>>).map((s) => ({ sender_id: s.sender_id as number, data: JSON.parse(s.content) as Record<string, unknown> }));
  return { id: m.id as number, subs };
}

/** The last submessage of that message, once there are `count`. */
async function lastSubmessage(api: Client, text: string, count: number): Promise<{ sender_id: number; data: Record<string, unknown> }> {
  let subs: Awaited<ReturnType<typeof messageAtServer>>['subs'] = [];
  await eventually(async () => (subs = (await messageAtServer(api, text)).subs).length === count, `${count} submessages on "${text}"`);
  return subs[count - 1]!;
}

/** The widget named `name` (a region) in each page, once every page shows it. */
async function shownTo(pages: Page[], name: string): Promise<Locator[]> {
  const regions = pages.map((p) => p.getByRole('region', { name, exact: true }));
  for (const r of regions) await r.waitFor();
  return regions;
}

/** A poll option's line (its vote button, text and voters). */
const optionLine = (poll: Locator, option: string) => poll.getByRole('list', { name: 'Options' }).getByRole('listitem').filter({ hasText: option });

await browserTests('the web client in Chromium: polls and to-do lists', (newContext) => {
  test('a poll and a to-do list: votes, options, question, tasks, strikes and title, live for the other reader, at the server, after a reload; refusals shown', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Voter' });
      const bobApi = t.client(bob);
      const ownerName = t.owner.row.full_name;
      const ctxA = await newContext();
      const ctxB = await newContext();
      const gateB = await eventGate(ctxB);
      const a = await loginPage(ctxA, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      const b = await loginPage(ctxB, t.url, bob.email, PASSWORD);
      await (await channelLink(a, 'general')).click();

      // The poll, sent from the compose box: both see it instead of its text.
      await send(a, 'lunch', '/poll Lunch?\nPizza\nSalad');
      const [pollA, pollB] = await shownTo([a, b], 'Poll: Lunch?');
      assert.deepEqual(await pollB.getByRole('list', { name: 'Options' }).getByRole('listitem').allTextContents(), ['0Pizza', '0Salad']);
      const poll = await messageAtServer(owner, '/poll Lunch?');
      assert.deepEqual(poll.subs, [{ sender_id: t.owner.id, data: { widget_type: 'poll', extra_data: { question: 'Lunch?', options: ['Pizza', 'Salad'] } } }]);
      // Only the author may edit the question.
      assert.equal(await pollB.getByRole('button', { name: 'Edit question' }).count(), 0);

      // Bob votes: the server has the vote; the owner sees the count and the name live.
      await pollB.getByRole('button', { name: 'Vote for Pizza' }).click();
      assert.deepEqual(await lastSubmessage(owner, '/poll Lunch?', 2), { sender_id: bob.id, data: { type: 'vote', key: 'canned,0', vote: 1 } });
      await eventually(async () => (await optionLine(pollA, 'Pizza').textContent()) === `1Pizza(Bob Voter)`, 'the vote shown to the owner');
      // (Bob's page has it from its own event, which may come after the owner's.)
      await eventually(async () => (await pollB.getByRole('button', { name: 'Vote for Pizza' }).getAttribute('aria-pressed')) === 'true', 'pressed true for Bob');

      // Bob takes his vote back.
      await pollB.getByRole('button', { name: 'Vote for Pizza' }).click();
      assert.deepEqual(await lastSubmessage(owner, '/poll Lunch?', 3), { sender_id: bob.id, data: { type: 'vote', key: 'canned,0', vote: -1 } });
      await eventually(async () => (await optionLine(pollA, 'Pizza').textContent()) === '0Pizza', 'the vote taken back for the owner');
      // (Bob's page has it from its own event, which may come after the owner's.)
      await eventually(async () => (await pollB.getByRole('button', { name: 'Vote for Pizza' }).getAttribute('aria-pressed')) === 'false', 'pressed false for Bob');

      // The owner adds an option; Bob sees it and votes for it (its key is the adder's ID and index).
      const addOption = pollA.getByRole('form', { name: 'Add option' });
      await addOption.getByLabel('New option').fill('Tacos');
      await addOption.getByRole('button', { name: 'Add option' }).click();
      assert.deepEqual(await lastSubmessage(bobApi, '/poll Lunch?', 4), { sender_id: t.owner.id, data: { type: 'new_option', idx: 1, option: 'Tacos' } });
      await optionLine(pollB, 'Tacos').waitFor();
      // (The field empties once the owner's page has the answer, which can come after the server had it.)
      await eventually(async () => (await addOption.getByLabel('New option').inputValue()) === '', 'the new option field emptied');
      await pollB.getByRole('button', { name: 'Vote for Tacos' }).click();
      assert.deepEqual(await lastSubmessage(owner, '/poll Lunch?', 5), { sender_id: bob.id, data: { type: 'vote', key: `${t.owner.id},1`, vote: 1 } });
      await eventually(async () => (await optionLine(pollA, 'Tacos').textContent()) === '1Tacos(Bob Voter)', 'the vote for the new option');

      // An option already there: the client says so and sends nothing.
      const addOptionB = pollB.getByRole('form', { name: 'Add option' });
      await addOptionB.getByLabel('New option').fill('Pizza');
      await addOptionB.getByRole('button', { name: 'Add option' }).click();
      await addOptionB.getByRole('alert').filter({ hasText: 'This option is already in the poll.' }).waitFor();
      assert.equal((await messageAtServer(owner, '/poll Lunch?')).subs.length, 5);

      // The author edits the question; Bob sees the new one.
      await pollA.getByRole('button', { name: 'Edit question' }).click();
      const editQuestion = pollA.getByRole('form', { name: 'Edit question' });
      await editQuestion.getByLabel('Question').fill('Lunch on Friday?');
      await editQuestion.getByRole('button', { name: 'Save' }).click();
      assert.deepEqual(await lastSubmessage(bobApi, '/poll Lunch?', 6), { sender_id: t.owner.id, data: { type: 'question', question: 'Lunch on Friday?' } });
      const [pollA2] = await shownTo([a, b], 'Poll: Lunch on Friday?');
      await pollA2.getByRole('heading', { name: 'Lunch on Friday?' }).waitFor();

      // The to-do list: both see its title, tasks and descriptions.
      await send(a, 'launch', '/todo Launch\nWrite docs: the README\nShip');
      const [todoA, todoB] = await shownTo([a, b], 'To-do list: Launch');
      assert.deepEqual(await todoB.getByRole('list', { name: 'Tasks' }).getByRole('listitem').allTextContents(), ['Write docs: the README', 'Ship']);
      assert.deepEqual((await messageAtServer(owner, '/todo Launch')).subs[0]!.data, {
        widget_type: 'todo',
        extra_data: { task_list_title: 'Launch', tasks: [{ task: 'Write docs', desc: 'the README' }, { task: 'Ship', desc: '' }] },
      });

      // Bob strikes a task: at the server, and checked for the owner.
      await todoB.getByRole('checkbox', { name: 'Write docs' }).check();
      assert.deepEqual(await lastSubmessage(owner, '/todo Launch', 2), { sender_id: bob.id, data: { type: 'strike', key: '0,canned' } });
      await eventually(() => todoA.getByRole('checkbox', { name: 'Write docs' }).isChecked(), 'the struck task checked for the owner');
      assert.equal(await todoA.getByRole('checkbox', { name: 'Ship' }).isChecked(), false);

      // The owner adds a task with a description; Bob sees it.
      const addTask = todoA.getByRole('form', { name: 'Add task' });
      await addTask.getByLabel('New task').fill('Announce');
      await addTask.getByLabel('Description').fill('on the blog');
      await addTask.getByRole('button', { name: 'Add task' }).click();
      assert.deepEqual(await lastSubmessage(bobApi, '/todo Launch', 3), {
        sender_id: t.owner.id,
        data: { type: 'new_task', key: 2, task: 'Announce', desc: 'on the blog', completed: false },
      });
      await eventually(
        async () => (await todoB.getByRole('list', { name: 'Tasks' }).getByRole('listitem').allTextContents()).join('|') === 'Write docs: the README|Ship|Announce: on the blog',
        'the new task shown to Bob',
      );

      // The author edits the title; Bob, who may not, has no way to.
      assert.equal(await todoB.getByRole('button', { name: 'Edit title' }).count(), 0);
      await todoA.getByRole('button', { name: 'Edit title' }).click();
      await todoA.getByRole('form', { name: 'Edit title' }).getByLabel('Title').fill('Launch day');
      await todoA.getByRole('form', { name: 'Edit title' }).getByRole('button', { name: 'Save' }).click();
      assert.deepEqual(await lastSubmessage(bobApi, '/todo Launch', 4), { sender_id: t.owner.id, data: { type: 'new_task_list_title', title: 'Launch day' } });
      await shownTo([a, b], 'To-do list: Launch day');

      // A reload rebuilds the same state from the messages' submessages.
      await b.reload();
      const [pollR] = await shownTo([b], 'Poll: Lunch on Friday?');
      const [todoR] = await shownTo([b], 'To-do list: Launch day');
      assert.deepEqual(await pollR.getByRole('list', { name: 'Options' }).getByRole('listitem').allTextContents(), ['0Pizza', '0Salad', '1Tacos(Bob Voter)']);
      assert.equal(await pollR.getByRole('button', { name: 'Vote for Tacos' }).getAttribute('aria-pressed'), 'true');
      assert.deepEqual(await todoR.getByRole('list', { name: 'Tasks' }).getByRole('listitem').allTextContents(), ['Write docs: the README', 'Ship', 'Announce: on the blog']);
      assert.equal(await todoR.getByRole('checkbox', { name: 'Write docs' }).isChecked(), true);
      assert.equal(await todoR.getByRole('checkbox', { name: 'Announce' }).isChecked(), false);
      // The owner votes, and the reloaded page follows live.
      await pollA2.getByRole('button', { name: 'Vote for Tacos' }).click();
      await eventually(async () => (await optionLine(pollR, 'Tacos').textContent()) === `2Tacos(Bob Voter, ${ownerName})`, 'the owner\'s vote after the reload');
      assert.deepEqual(await lastSubmessage(bobApi, '/poll Lunch?', 7), { sender_id: t.owner.id, data: { type: 'vote', key: `${t.owner.id},1`, vote: 1 } });

      // The server's refusal: the to-do list's message deleted while Bob's page has not heard of it yet.
      const todo = await messageAtServer(owner, '/todo Launch');
      gateB.hold();
      assertSuccess(await owner.delete(`/messages/${todo.id}`));
      await todoR.getByRole('checkbox', { name: 'Ship' }).click();
      await todoR.getByRole('alert').waitFor();
      assert.equal(await todoR.getByRole('alert').textContent(), 'Invalid message(s)');
      assert.equal(await todoR.getByRole('checkbox', { name: 'Ship' }).isChecked(), false);
      gateB.release();
      await eventually(async () => (await todoR.count()) === 0, 'the deleted list gone from Bob\'s page');
      await ctxA.close();
      await ctxB.close();
    }));
});
