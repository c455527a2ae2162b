/**
 * Message widgets (polls and to-do lists): their state, rebuilt by replaying
 * a message's submessages in order, as Zulip's web app does. The first
 * submessage, from the message's sender, says which widget it is and holds
 * its starting data; each later one is a vote, a new option, a new question,
 * a new task, a struck task or a new title, from any reader.
 */
import type { Message, Submessage } from './model.ts';

/** The most options (or tasks) one user may add: Zulip ignores larger indexes. */
const MAX_IDX = 1000;

export interface PollOption {
  /** "canned,N" for the message's own options, "<sender_id>,<idx>" for added ones. */
  key: string;
  option: string;
  /** Who voted for it, in the order they voted. */
  voters: number[];
}

export interface Poll {
  kind: 'poll';
  question: string;
  options: PollOption[];
  /** The `idx` of the next option this user adds. */
  nextIdx: number;
}

export interface Task {
  /** "N,canned" for the message's own tasks, "<key>,<sender_id>" for added ones. */
  key: string;
  task: string;
  desc: string;
  completed: boolean;
}

export interface TodoList {
  kind: 'todo';
  title: string;
  tasks: Task[];
  /** The `key` of the next task this user adds. */
  nextKey: number;
}

export type Widget = Poll | TodoList;

function parse(content: string): Record<string, unknown> | null {
  try {
    const data: unknown = JSON.parse(content);
    return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const isIdx = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_IDX;
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

function addOption(poll: Poll, key: string, option: string): void {
  // The /poll syntax allows the same option twice; only the first counts.
  if (poll.options.some((o) => o.option === option)) return;
  // A key used again replaces its option, in its place (as Zulip's web app does).
  const at = poll.options.findIndex((o) => o.key === key);
  if (at >= 0) poll.options[at] = { key, option, voters: [] };
  else poll.options.push({ key, option, voters: [] });
}

function applyPoll(poll: Poll, authorId: number, me: number, senderId: number, data: Record<string, unknown>): void {
  if (data.type === 'new_option' && isIdx(data.idx) && typeof data.option === 'string') {
    addOption(poll, `${senderId},${data.idx}`, data.option);
    // An option added from another of my devices.
    if (senderId === me && poll.nextIdx <= data.idx) poll.nextIdx = data.idx + 1;
  } else if (data.type === 'vote' && typeof data.key === 'string') {
    const option = poll.options.find((o) => o.key === data.key);
    if (!option) return;
    const others = option.voters.filter((id) => id !== senderId);
    if (data.vote === 1) option.voters = [...others, senderId];
    else if (data.vote === -1) option.voters = others;
  } else if (data.type === 'question' && typeof data.question === 'string' && senderId === authorId) {
    poll.question = data.question;
  }
}

function addTask(list: TodoList, key: string, task: string, desc: string, completed: boolean): void {
  if (list.tasks.some((t) => t.task === task)) return;
  const at = list.tasks.findIndex((t) => t.key === key);
  if (at >= 0) list.tasks[at] = { key, task, desc, completed };
  else list.tasks.push({ key, task, desc, completed });
}

function applyTodo(list: TodoList, authorId: number, me: number, senderId: number, data: Record<string, unknown>): void {
  if (data.type === 'new_task' && isIdx(data.key) && typeof data.task === 'string' && typeof data.desc === 'string') {
    addTask(list, `${data.key},${senderId}`, data.task, data.desc, data.completed === true);
    // Zulip's web app counts past the last key it saw of its own before adding one.
    if (senderId === me && list.nextKey <= data.key + 1) list.nextKey = data.key + 2;
  } else if (data.type === 'strike' && typeof data.key === 'string') {
    const task = list.tasks.find((t) => t.key === data.key);
    if (task) task.completed = !task.completed;
  } else if (data.type === 'new_task_list_title' && typeof data.title === 'string' && senderId === authorId) {
    list.title = data.title;
  }
}

/** The message's widget as its submessages leave it, seen by user `me`; null when it is not a widget. */
export function widgetOf(m: Message, me: number): Widget | null {
  const [first, ...rest] = m.submessages;
  if (!first || first.msg_type !== 'widget' || first.sender_id !== m.sender_id) return null;
  const start = parse(first.content);
  const extra = (start?.extra_data ?? {}) as Record<string, unknown>;
  let apply: (s: Submessage, data: Record<string, unknown>) => void;
  let widget: Widget;
  if (start?.widget_type === 'poll') {
    const poll: Poll = { kind: 'poll', question: typeof extra.question === 'string' ? extra.question : '', options: [], nextIdx: 1 };
    strings(extra.options).forEach((option, i) => addOption(poll, `canned,${i}`, option));
    apply = (s, data) => applyPoll(poll, m.sender_id, me, s.sender_id, data);
    widget = poll;
  } else if (start?.widget_type === 'todo') {
    const title = typeof extra.task_list_title === 'string' && extra.task_list_title ? extra.task_list_title : 'Task list';
    const list: TodoList = { kind: 'todo', title, tasks: [], nextKey: 2 };
    const tasks = Array.isArray(extra.tasks) ? (extra.tasks as Array<Record<string, unknown>>) : [];
    tasks.forEach((t, i) => {
      if (typeof t?.task === 'string') addTask(list, `${i},canned`, t.task, typeof t.desc === 'string' ? t.desc : '', false);
    });
    apply = (s, data) => applyTodo(list, m.sender_id, me, s.sender_id, data);
    widget = list;
  } else {
    return null;
  }
  for (const s of rest) {
    const data = s.msg_type === 'widget' ? parse(s.content) : null;
    if (data) apply(s, data);
  }
  return widget;
}
