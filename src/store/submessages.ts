/** Submessages (widget data attached to messages): the SQL. */
import type { Selectable } from 'kysely';
import type { Tx } from './db.ts';
import { preparedIn } from './prepared.ts';
import type { SubmessagesTable } from './schema.ts';

export type SubmessageRow = Selectable<SubmessagesTable>;

export async function insertSubmessage(db: Tx, v: { messageId: number; senderId: number; msgType: string; content: string }): Promise<number> {
  const r = await db
    .insertInto('submessages')
    .values({ message_id: v.messageId, sender_id: v.senderId, msg_type: v.msgType, content: v.content })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(r.id);
}

/** Submessages of the messages, by message, oldest first. */
const submessagesForQuery = preparedIn((db, ids) => db.selectFrom('submessages').selectAll().where('message_id', 'in', ids), 10000);

export async function submessagesFor(db: Tx, messageIds: number[]): Promise<Map<number, SubmessageRow[]>> {
  const out = new Map<number, SubmessageRow[]>();
  if (!messageIds.length) return out;
  const rows = (await submessagesForQuery(db, [], messageIds)).sort((a, b) => a.message_id - b.message_id || a.id - b.id);
  for (const r of rows) {
    const list = out.get(r.message_id);
    if (list) list.push(r);
    else out.set(r.message_id, [r]);
  }
  return out;
}

/** Whether the message has any submessage: a widget's (Zulip's is_widget_message). */
export async function hasSubmessages(db: Tx, messageId: number): Promise<boolean> {
  return !!(await db.selectFrom('submessages').select('id').where('message_id', '=', messageId).limit(1).executeTakeFirst());
}

export async function hasSubmessageFrom(db: Tx, messageId: number, senderId: number): Promise<boolean> {
  return !!(await db.selectFrom('submessages').select('id').where('message_id', '=', messageId).where('sender_id', '=', senderId).executeTakeFirst());
}

/** The content of the message's first `widget` submessage, if any. */
export async function firstWidgetContent(db: Tx, messageId: number): Promise<string | undefined> {
  const r = await db.selectFrom('submessages').select('content').where('message_id', '=', messageId).where('msg_type', '=', 'widget').orderBy('id').limit(1).executeTakeFirst();
  return r?.content;
}
