/**
 * Basecamp (/api/v1/external/basecamp): what happened to a document, a
 * question or its answer, a message, a to-do list, a to-do or a comment
 * (the payload's `kind`, e.g. `todo_completed`), in Zulip's words; the
 * event type is the kind of thing (`document`, `question_answer`, ...);
 * topic: the project's name.
 */
import { endsWithPunctuation } from './python-text.ts';
import type { Wild } from './wild.ts';
import { jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';

/** The kinds Zulip describes. */
const KINDS = new Set([
  'document_active',
  'document_created',
  'document_archived',
  'document_unarchived',
  'document_publicized',
  'document_title_changed',
  'document_content_changed',
  'document_trashed',
  'question_archived',
  'question_created',
  'question_trashed',
  'question_unarchived',
  'question_answer_archived',
  'question_answer_content_changed',
  'question_answer_created',
  'question_answer_trashed',
  'question_answer_unarchived',
  'message_archived',
  'message_content_changed',
  'message_created',
  'message_subject_changed',
  'message_trashed',
  'message_unarchived',
  'comment_created',
  'todolist_created',
  'todolist_description_changed',
  'todolist_name_changed',
  'todo_assignment_changed',
  'todo_completed',
  'todo_uncompleted',
  'todo_created',
  'todo_due_on_changed',
]);

/** Each kind of thing, most specific prefix first, and how its message names it. */
const THINGS: Array<[string, string]> = [
  ['document', 'the document'],
  ['question_answer', ''],
  ['question', 'the question'],
  ['message', 'the message'],
  ['todolist', 'the todo list'],
  ['todo', 'the todo task'],
  ['comment', ''],
];

/** "created", "activated", "changed title of", ... */
function verb(kind: string, prefix: string): string {
  const rest = kind.split(prefix).join('');
  if (rest === 'active') return 'activated';
  const changed = /^([A-z]*)_changed/.exec(rest);
  return changed ? `changed ${changed[1]} of` : rest;
}

const ended = (text: string, title: string): string => (endsWithPunctuation(title) ? text : `${text}.`);

function body(thing: string, kind: string, p: Wild): string {
  const recording = p.at('recording');
  const who = p.at('creator').at('name').str();
  const v = verb(kind, `${thing}_`);
  if (thing === 'question_answer' || thing === 'comment') {
    const parent = recording.at('parent');
    const title = parent.at('title').str();
    const what = thing === 'comment' ? 'task' : 'question';
    return ended(`${who} ${v} the [${thing === 'comment' ? 'comment' : 'answer'}](${recording.at('app_url').str()}) of the ${what} [${title}](${parent.at('app_url').str()})`, title);
  }
  const title = recording.at('title').str();
  const named = THINGS.find(([t]) => t === thing)![1];
  return ended(`${who} ${v} ${named} [${title}](${recording.at('app_url').str()})`, title);
}

export const basecamp: Integration = {
  name: 'Basecamp',
  eventTypes: THINGS.map(([t]) => t),
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const kind = p.at('kind').str();
    const thing = KINDS.has(kind) ? THINGS.find(([t]) => kind.startsWith(`${t}_`))?.[0] : undefined;
    if (!thing) throw unsupportedEvent('Basecamp', kind);
    const topic = p.at('recording').at('bucket').at('name').str();
    return [{ topic, body: body(thing, kind, p), eventType: thing }];
  },
};
