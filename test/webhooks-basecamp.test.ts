/**
 * The Basecamp integration: Zulip's own test cases (payloads trimmed to what
 * is read): documents, questions and answers, messages, to-do lists, to-dos
 * and comments, and what is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('basecamp');
const { hook, expectPosted } = h;

const APP = 'https://3.basecamp.com/3688623/buckets/2957043';
const event = (kind: string, recording: Record<string, unknown>, project = 'Zulip HQ') => ({
  kind,
  creator: { name: 'Tomasz' },
  recording: { bucket: { name: project }, ...recording },
});
const doc = (title: string, id = 434455988) => ({ title, app_url: `${APP}/documents/${id}` });

test('basecamp: documents, questions, messages, to-do lists and to-dos, each verb', async () => {
  const m = await expectPosted(
    await hook('basecamp', event('document_active', doc('Sponsorship Package Outline', 432522214), 'Event Planning - Annual Conference')),
    'Event Planning - Annual Conference',
    `Tomasz activated the document [Sponsorship Package Outline](${APP}/documents/432522214).`,
  );
  assert.equal(m.client, 'ZulipBasecampWebhook');
  for (const verb of ['archived', 'publicized', 'created', 'trashed', 'unarchived']) {
    await expectPosted(await hook('basecamp', event(`document_${verb}`, doc('new doc'))), 'Zulip HQ', `Tomasz ${verb} the document [new doc](${APP}/documents/434455988).`);
  }
  for (const what of ['content', 'title']) {
    await expectPosted(
      await hook('basecamp', event(`document_${what}_changed`, doc('New doc edit', 432522214))),
      'Zulip HQ',
      `Tomasz changed ${what} of the document [New doc edit](${APP}/documents/432522214).`,
    );
  }
  const question = { title: 'Question', app_url: `${APP}/questions/432527747` };
  for (const verb of ['archived', 'created', 'trashed', 'unarchived']) {
    await expectPosted(await hook('basecamp', event(`question_${verb}`, question)), 'Zulip HQ', `Tomasz ${verb} the question [Question](${APP}/questions/432527747).`);
  }
  const message = (title: string) => ({ title, app_url: `${APP}/messages/430680605` });
  await expectPosted(await hook('basecamp', event('message_created', message('Message Title'))), 'Zulip HQ', `Tomasz created the message [Message Title](${APP}/messages/430680605).`);
  for (const verb of ['archived', 'trashed', 'unarchived']) {
    await expectPosted(await hook('basecamp', event(`message_${verb}`, message('Message Title new'))), 'Zulip HQ', `Tomasz ${verb} the message [Message Title new](${APP}/messages/430680605).`);
  }
  await expectPosted(await hook('basecamp', event('message_content_changed', message('Message Title new'))), 'Zulip HQ', `Tomasz changed content of the message [Message Title new](${APP}/messages/430680605).`);
  await expectPosted(await hook('basecamp', event('message_subject_changed', message('Message Title new'))), 'Zulip HQ', `Tomasz changed subject of the message [Message Title new](${APP}/messages/430680605).`);
  const list = (title: string) => ({ title, app_url: `${APP}/todolists/427050190` });
  await expectPosted(await hook('basecamp', event('todolist_created', list('NEW TO DO LIST'))), 'Zulip HQ', `Tomasz created the todo list [NEW TO DO LIST](${APP}/todolists/427050190).`);
  await expectPosted(await hook('basecamp', event('todolist_description_changed', list('NEW TO DO LIST'))), 'Zulip HQ', `Tomasz changed description of the todo list [NEW TO DO LIST](${APP}/todolists/427050190).`);
  await expectPosted(await hook('basecamp', event('todolist_name_changed', list('NEW Name TO DO LIST'))), 'Zulip HQ', `Tomasz changed name of the todo list [NEW Name TO DO LIST](${APP}/todolists/427050190).`);
  const todo = { title: 'New task', app_url: `${APP}/todos/427055624` };
  for (const [kind, text] of [
    ['todo_assignment_changed', 'changed assignment of'],
    ['todo_completed', 'completed'],
    ['todo_uncompleted', 'uncompleted'],
    ['todo_created', 'created'],
    ['todo_due_on_changed', 'changed due_on of'],
  ]) {
    await expectPosted(await hook('basecamp', event(kind!, todo)), 'Zulip HQ', `Tomasz ${text} the todo task [New task](${APP}/todos/427055624).`);
  }
});

test('basecamp: answers and comments name their question or task; a title ending in punctuation gets no full stop', async () => {
  const answerUrl = `${APP}/questions/432527747/answers/2017-03-16#__recording_432529636`;
  const answer = (title: string) => ({ title: `Answer of “${title}”`, app_url: answerUrl, parent: { title, app_url: `${APP}/questions/432527747` } });
  await expectPosted(
    await hook('basecamp', event('question_answer_archived', answer('Question?'))),
    'Zulip HQ',
    `Tomasz archived the [answer](${answerUrl}) of the question [Question?](${APP}/questions/432527747)`,
  );
  for (const [kind, text] of [
    ['question_answer_content_changed', 'changed content of'],
    ['question_answer_created', 'created'],
    ['question_answer_unarchived', 'unarchived'],
  ]) {
    await expectPosted(await hook('basecamp', event(kind!, answer('Question'))), 'Zulip HQ', `Tomasz ${text} the [answer](${answerUrl}) of the question [Question](${APP}/questions/432527747).`);
  }
  const commentUrl = `${APP}/todos/427055624#__recording_427058780`;
  await expectPosted(
    await hook('basecamp', event('comment_created', { title: 'Re: New task', app_url: commentUrl, parent: { title: 'New task', app_url: `${APP}/todos/427055624` } })),
    'Zulip HQ',
    `Tomasz created the [comment](${commentUrl}) of the task [New task](${APP}/todos/427055624).`,
  );
});

test('basecamp: kinds Zulip does not describe; malformed payloads; the URL generator\'s entry', async () => {
  for (const kind of ['vault_created', 'todo_archived', 'constructor']) {
    const res = await hook('basecamp', event(kind, doc('x')));
    assert.equal(res.status, 200);
    assert.equal(res.body.msg, `The '${kind}' event isn't currently supported by the Basecamp webhook; ignoring`);
  }
  assertError(await hook('basecamp', { kind: 'todo_created', creator: { name: 'Tomasz' }, recording: { title: 't', app_url: 'u' } }), 400, 'BAD_REQUEST', "payload['recording']['bucket'] is missing");
  assertError(await hook('basecamp', event('comment_created', { title: 't', app_url: 'u' })), 400, 'BAD_REQUEST', "payload['recording']['parent'] is missing");
  assert.deepEqual((await h.listed('basecamp'))?.all_event_types, ['document', 'question_answer', 'question', 'message', 'todolist', 'todo', 'comment']);
});
