/**
 * Submessages (POST /submessage): the data behind message widgets (polls,
 * to-do lists). Sending "/poll ..." or "/todo ..." attaches the widget's first
 * submessage (Zulip's do_widget_post_save_actions); later votes, options and
 * tasks are submessages from any reader, checked as Zulip checks poll and
 * to-do data, and each one is a `submessage` event to the message's holders.
 */
import type { Services } from '../services.ts';
import type { Tx } from '../store/db.ts';
import { transaction } from '../store/db.ts';
import { badRequest } from '../lib/errors.ts';
import type { UserRow } from '../store/users.ts';
import { messageHolders } from '../store/messages.ts';
import { firstWidgetContent, hasSubmessageFrom, insertSubmessage } from '../store/submessages.ts';
import { accessMessageToModify, invalidMessage } from './access.ts';

const WIDGET_TYPES = ['poll', 'todo'];

/** The list-marker-free text of a line (Zulip strips one leading "-", "*" and spaces). */
const stripListMarker = (line: string): string => line.trim().replace(/\s*[-*]?\s*/, '');

/** Zulip's get_widget_data: the widget a message's content starts with, and its extra data. */
export function widgetData(content: string): { widget_type: string; extra_data: unknown } | null {
  const first = content.split(/\s+|\n+/)[0];
  if (!first.startsWith('/')) return null;
  const type = first.slice(1);
  if (!WIDGET_TYPES.includes(type)) return null;
  const lines = content.replace(first, '').split(/\r\n|\r|\n/);
  let title = '';
  if (lines.length && lines[0]) title = lines.shift()!.trim();
  if (type === 'poll') {
    const options = lines.map(stripListMarker).filter((o) => o.length > 0);
    return { widget_type: 'poll', extra_data: { question: title, options } };
  }
  const tasks = lines
    .map(stripListMarker)
    .filter((l) => l.length > 0)
    .map((l) => {
      const at = l.indexOf(':');
      return at < 0 ? { task: l.trim(), desc: '' } : { task: l.slice(0, at).trim(), desc: l.slice(at + 1).trim() };
    });
  return { widget_type: 'todo', extra_data: { task_list_title: title, tasks } };
}

/** Called in the sending transaction: the widget submessage of a "/poll" or "/todo" message. */
export async function attachWidget(tx: Tx, messageId: number, senderId: number, content: string): Promise<void> {
  const w = widgetData(content);
  if (w) await insertSubmessage(tx, { messageId, senderId, msgType: 'widget', content: JSON.stringify(w) });
}

type Checker = (value: unknown, path: string) => void;
const str: Checker = (v, path) => {
  if (typeof v !== 'string') throw badRequest(`${path} is not a string`);
};
const int: Checker = (v, path) => {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw badRequest(`${path} is not an integer`);
};
const bool: Checker = (v, path) => {
  if (typeof v !== 'boolean') throw badRequest(`${path} is not a boolean`);
};

/** Zulip's check_dict_only: exactly these keys, each of its type. */
function dictOnly(data: Record<string, unknown>, name: string, fields: Record<string, Checker>): void {
  for (const [key, check] of Object.entries(fields)) {
    if (!(key in data)) throw badRequest(`${key} key is missing from ${name}`);
    check(data[key], `${name}["${key}"]`);
  }
  const extra = Object.keys(data).filter((k) => !(k in fields)).sort();
  if (extra.length) throw badRequest(`Unexpected arguments: ${extra.join(', ')}`);
}

/** Zulip's validate_poll_data and validate_todo_data. */
function checkWidgetData(widgetType: string, data: unknown, isAuthor: boolean): void {
  const name = widgetType === 'poll' ? 'poll data' : 'todo data';
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw badRequest(`${name} is not a dict`);
  const d = data as Record<string, unknown>;
  if (!('type' in d)) throw badRequest(`type key is missing from ${name}`);
  str(d.type, `${name}["type"]`);
  if (widgetType === 'poll') {
    if (d.type === 'vote') return dictOnly(d, name, { type: str, key: str, vote: int });
    if (d.type === 'question') {
      if (!isAuthor) throw badRequest("You can't edit a question unless you are the author.");
      return dictOnly(d, name, { type: str, question: str });
    }
    if (d.type === 'new_option') return dictOnly(d, name, { type: str, option: str, idx: int });
    throw badRequest(`Unknown type for poll data: ${String(d.type)}`);
  }
  if (d.type === 'new_task') return dictOnly(d, name, { type: str, key: int, task: str, desc: str, completed: bool });
  if (d.type === 'strike') return dictOnly(d, name, { type: str, key: str });
  if (d.type === 'new_task_list_title') {
    if (!isAuthor) throw badRequest("You can't edit the task list title unless you are the author.");
    return dictOnly(d, name, { type: str, title: str });
  }
  throw badRequest(`Unknown type for todo data: ${String(d.type)}`);
}

export async function addSubmessage(svc: Services, user: UserRow, messageId: number, msgType: string, content: string): Promise<void> {
  const done = await transaction(svc.store, async (tx) => {
    const a = await accessMessageToModify(svc, tx, user, messageId);
    if (!a) throw invalidMessage();
    const msg = a.row;
    // The message's sender attaches the first submessage (Zulip's verify_submessage_sender).
    if (msg.sender_id !== user.id && !(await hasSubmessageFrom(tx, msg.id, msg.sender_id))) {
      throw badRequest('You cannot attach a submessage to this message.');
    }
    let data: unknown;
    try {
      data = JSON.parse(content);
    } catch {
      throw badRequest('Invalid json for submessage');
    }
    const widget = await firstWidgetContent(tx, msg.id);
    let widgetType: unknown;
    try {
      widgetType = widget === undefined ? undefined : (JSON.parse(widget) as Record<string, unknown>)?.widget_type;
    } catch {
      widgetType = undefined;
    }
    if (widgetType === 'poll' || widgetType === 'todo') checkWidgetData(widgetType, data, msg.sender_id === user.id);
    const id = await insertSubmessage(tx, { messageId: msg.id, senderId: user.id, msgType, content });
    const holders = (await messageHolders(tx, [msg.id])).get(msg.id) ?? [];
    return { id, holders };
  });
  svc.bus.send(
    { type: 'submessage', msg_type: msgType, message_id: messageId, submessage_id: done.id, sender_id: user.id, content },
    done.holders,
  );
}
