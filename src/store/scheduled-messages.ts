/** Scheduled messages: rows of a sender, due rows for the delivery timer. */
import type { Selectable, Insertable, Updateable } from 'kysely';
import type { Tx } from './db.ts';
import type { ScheduledMessagesTable } from './schema.ts';

export type ScheduledMessageRow = Selectable<ScheduledMessagesTable>;

/** Zulip's ScheduledMessage delivery types: a message sent later, or a reminder to its creator. */
export const DELIVERY_TYPE = { SEND_LATER: 1, REMIND: 2 } as const;

export async function insertScheduledMessage(db: Tx, row: Insertable<ScheduledMessagesTable>): Promise<number> {
  const r = await db.insertInto('scheduled_messages').values(row).returning('id').executeTakeFirstOrThrow();
  return r.id;
}

/** A sender's scheduled message (delivered or not; reminders excluded), or undefined. */
export async function scheduledMessageOf(db: Tx, realmId: number, senderId: number, id: number): Promise<ScheduledMessageRow | undefined> {
  return ofSender(db, realmId, senderId, DELIVERY_TYPE.SEND_LATER).where('id', '=', id).executeTakeFirst();
}

/** A user's reminder (delivered or not), or undefined. */
export async function reminderOf(db: Tx, realmId: number, senderId: number, id: number): Promise<ScheduledMessageRow | undefined> {
  return ofSender(db, realmId, senderId, DELIVERY_TYPE.REMIND).where('id', '=', id).executeTakeFirst();
}

function ofSender(db: Tx, realmId: number, senderId: number, deliveryType: number) {
  return db.selectFrom('scheduled_messages').selectAll().where('realm_id', '=', realmId).where('sender_id', '=', senderId).where('delivery_type', '=', deliveryType);
}

export async function scheduledMessageById(db: Tx, id: number): Promise<ScheduledMessageRow | undefined> {
  return db.selectFrom('scheduled_messages').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A sender's undelivered scheduled messages (failed ones included; reminders excluded), by delivery time. */
export async function undeliveredScheduledMessages(db: Tx, realmId: number, senderId: number): Promise<ScheduledMessageRow[]> {
  return ofSender(db, realmId, senderId, DELIVERY_TYPE.SEND_LATER).where('delivered', '=', 0).orderBy('scheduled_timestamp').orderBy('id').execute();
}

/** A user's undelivered reminders (failed ones included), by delivery time. */
export async function undeliveredReminders(db: Tx, realmId: number, senderId: number): Promise<ScheduledMessageRow[]> {
  return ofSender(db, realmId, senderId, DELIVERY_TYPE.REMIND).where('delivered', '=', 0).orderBy('scheduled_timestamp').orderBy('id').execute();
}

/** Undelivered, not failed messages due at `now` (UNIX seconds), oldest first. */
export async function dueScheduledMessages(db: Tx, realmId: number, now: number, limit = 100): Promise<ScheduledMessageRow[]> {
  return db
    .selectFrom('scheduled_messages')
    .selectAll()
    .where('realm_id', '=', realmId)
    .where('delivered', '=', 0)
    .where('failed', '=', 0)
    .where('scheduled_timestamp', '<=', Math.floor(now))
    .orderBy('scheduled_timestamp')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function updateScheduledMessage(db: Tx, id: number, set: Updateable<ScheduledMessagesTable>): Promise<void> {
  await db.updateTable('scheduled_messages').set(set).where('id', '=', id).execute();
}

/** Updates a row not yet delivered; false if it was delivered meanwhile (nothing changed). */
export async function updateUndeliveredScheduledMessage(db: Tx, id: number, set: Updateable<ScheduledMessagesTable>): Promise<boolean> {
  const r = await db.updateTable('scheduled_messages').set(set).where('id', '=', id).where('delivered', '=', 0).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Marks a row delivered if it is still as it was read when due: not deleted,
 * sent, failed or edited meanwhile. False if it was not (nothing changed).
 */
export async function markScheduledMessageDelivered(db: Tx, row: ScheduledMessageRow, messageId: number): Promise<boolean> {
  const r = await db
    .updateTable('scheduled_messages')
    .set({ delivered: 1, delivered_message_id: messageId })
    .where('id', '=', row.id)
    .where('delivered', '=', 0)
    .where('failed', '=', 0)
    .where('scheduled_timestamp', '=', row.scheduled_timestamp)
    .where('content', '=', row.content)
    .where('recipient_type', '=', row.recipient_type)
    .where('to_json', '=', row.to_json)
    .where('topic', '=', row.topic)
    .where('stream_id', row.stream_id === null ? 'is' : '=', row.stream_id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function deleteScheduledMessage(db: Tx, id: number): Promise<void> {
  await db.deleteFrom('scheduled_messages').where('id', '=', id).execute();
}
