/** Uploaded files (attachments) and the messages that reference them. */
import { sql } from 'kysely';
import type { Tx } from './db.ts';
import { RECIPIENT } from './messages.ts';

export interface AttachmentRow {
  id: number;
  realm_id: number;
  path_id: string;
  file_name: string;
  content_type: string;
  owner_id: number;
  size: number;
  create_time: number;
  /** An uploaded image's width and height as shown, and its frames; frames 0: not an image; null: uploaded before these were read. */
  image_width: number | null;
  image_height: number | null;
  image_frames: number | null;
}

export async function insertAttachment(db: Tx, row: Omit<AttachmentRow, 'id'>): Promise<AttachmentRow> {
  const r = await db.insertInto('attachments').values(row).returning('id').executeTakeFirstOrThrow();
  return { id: r.id, ...row, size: Number(row.size), create_time: Number(row.create_time) };
}

function normalize(r: AttachmentRow): AttachmentRow {
  return { ...r, size: Number(r.size), create_time: Number(r.create_time) };
}

export async function attachmentByPathId(db: Tx, realmId: number, pathId: string): Promise<AttachmentRow | undefined> {
  const r = await db.selectFrom('attachments').selectAll().where('realm_id', '=', realmId).where('path_id', '=', pathId).executeTakeFirst();
  return r && normalize(r);
}

export async function attachmentsByPathIds(db: Tx, realmId: number, pathIds: string[]): Promise<AttachmentRow[]> {
  if (pathIds.length === 0) return [];
  const rows = await db.selectFrom('attachments').selectAll().where('realm_id', '=', realmId).where('path_id', 'in', pathIds).execute();
  return rows.map(normalize);
}

/** Up to `limit` of the organization's files whose image size and frames were never read (uploaded before they were). */
export async function attachmentsWithoutImageInfo(db: Tx, realmId: number, limit: number): Promise<AttachmentRow[]> {
  const rows = await db.selectFrom('attachments').selectAll().where('realm_id', '=', realmId).where('image_frames', 'is', null).orderBy('id').limit(limit).execute();
  return rows.map(normalize);
}

/** Records what was read of an uploaded file: an image's size and frames, or null for a file that is no image. */
export async function setAttachmentImage(db: Tx, id: number, image: { width: number; height: number; frames: number } | null): Promise<void> {
  await db
    .updateTable('attachments')
    .set({ image_width: image?.width ?? null, image_height: image?.height ?? null, image_frames: image?.frames ?? 0 })
    .where('id', '=', id)
    .execute();
}

export async function attachmentById(db: Tx, realmId: number, id: number): Promise<AttachmentRow | undefined> {
  const r = await db.selectFrom('attachments').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst();
  return r && normalize(r);
}

export async function attachmentsByOwner(db: Tx, ownerId: number): Promise<AttachmentRow[]> {
  const rows = await db.selectFrom('attachments').selectAll().where('owner_id', '=', ownerId).orderBy('id').execute();
  return rows.map(normalize);
}

/** The IDs of the messages (still existing) that reference each attachment, ascending. */
export async function attachmentMessages(db: Tx, attachmentIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (attachmentIds.length === 0) return out;
  const rows = await db
    .selectFrom('attachment_messages as am')
    .innerJoin('messages as m', 'm.id', 'am.message_id')
    .select(['am.attachment_id', 'm.id'])
    .where('am.attachment_id', 'in', attachmentIds)
    .orderBy('m.id')
    .execute();
  for (const r of rows) {
    let list = out.get(r.attachment_id);
    if (!list) out.set(r.attachment_id, (list = []));
    list.push(Number(r.id));
  }
  return out;
}

/** Links a message to an attachment; false if it was linked already. */
export async function linkAttachmentMessage(db: Tx, attachmentId: number, messageId: number): Promise<boolean> {
  const existing = await db
    .selectFrom('attachment_messages')
    .select('attachment_id')
    .where('attachment_id', '=', attachmentId)
    .where('message_id', '=', messageId)
    .executeTakeFirst();
  if (existing) return false;
  await db.insertInto('attachment_messages').values({ attachment_id: attachmentId, message_id: messageId }).execute();
  return true;
}

/** The attachments a message references. */
export async function attachmentsOfMessage(db: Tx, messageId: number): Promise<AttachmentRow[]> {
  const rows = await db
    .selectFrom('attachment_messages as am')
    .innerJoin('attachments as a', 'a.id', 'am.attachment_id')
    .selectAll('a')
    .where('am.message_id', '=', messageId)
    .orderBy('a.id')
    .execute();
  return rows.map(normalize);
}

/** Stops a message referencing an attachment (an edit removed its link). */
export async function unlinkAttachmentMessage(db: Tx, attachmentId: number, messageId: number): Promise<void> {
  await db.deleteFrom('attachment_messages').where('attachment_id', '=', attachmentId).where('message_id', '=', messageId).execute();
}

export async function deleteAttachmentRow(db: Tx, id: number): Promise<void> {
  await db.deleteFrom('attachment_messages').where('attachment_id', '=', id).execute();
  await db.deleteFrom('attachments').where('id', '=', id).execute();
}

/** Total size of the organization's uploaded files, in bytes. */
export async function realmUploadSpaceUsed(db: Tx, realmId: number): Promise<number> {
  const r = await db
    .selectFrom('attachments')
    .select(sql<number | string | null>`sum(size)`.as('total'))
    .where('realm_id', '=', realmId)
    .executeTakeFirst();
  return Number(r?.total ?? 0);
}

/** Whether a message referencing the attachment was sent to a public channel (web-public too, when `webPublic`). */
export async function referencedInPublicChannel(db: Tx, attachmentId: number, webPublic: boolean): Promise<boolean> {
  let q = db
    .selectFrom('attachment_messages as am')
    .innerJoin('messages as m', 'm.id', 'am.message_id')
    .innerJoin('streams as s', 's.id', 'm.recipient_id')
    .select('m.id')
    .where('am.attachment_id', '=', attachmentId)
    .where('m.recipient_type', '=', RECIPIENT.STREAM)
    .where('s.invite_only', '=', 0);
  if (webPublic) q = q.where('s.is_web_public', '=', 1);
  return !!(await q.limit(1).executeTakeFirst());
}

/** Whether the user received (has a user_messages row for) a message referencing the attachment. */
export async function receivedReferencingMessage(db: Tx, attachmentId: number, userId: number): Promise<boolean> {
  const r = await db
    .selectFrom('attachment_messages as am')
    .innerJoin('user_messages as um', 'um.message_id', 'am.message_id')
    .select('um.message_id')
    .where('am.attachment_id', '=', attachmentId)
    .where('um.user_id', '=', userId)
    .limit(1)
    .executeTakeFirst();
  return !!r;
}

/**
 * Whether the user is subscribed to a channel with history public to
 * subscribers where a message referencing the attachment was sent.
 */
export async function referencedInSubscribedHistoryChannel(db: Tx, attachmentId: number, userId: number): Promise<boolean> {
  const r = await db
    .selectFrom('attachment_messages as am')
    .innerJoin('messages as m', 'm.id', 'am.message_id')
    .innerJoin('streams as s', 's.id', 'm.recipient_id')
    .innerJoin('subscriptions as sub', (j) => j.onRef('sub.stream_id', '=', 's.id'))
    .select('m.id')
    .where('am.attachment_id', '=', attachmentId)
    .where('m.recipient_type', '=', RECIPIENT.STREAM)
    .where('sub.user_id', '=', userId)
    .where('sub.active', '=', 1)
    .where('s.history_public_to_subscribers', '=', 1)
    .limit(1)
    .executeTakeFirst();
  return !!r;
}
