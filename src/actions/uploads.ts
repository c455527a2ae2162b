/**
 * Uploaded files: POST /user_uploads (stored under $DATA_DIR/uploads/<path_id>,
 * path_id = realm ID / random / sanitized name, as Zulip), who may read a
 * file (Zulip's validate_attachment_request), claiming files referenced by a
 * sent message, GET/DELETE /attachments, short-lived unauthenticated URLs,
 * and the `attachment` events to the owner.
 */
import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../lib/private-files.ts';
import { dirname, resolve, sep } from 'node:path';
import type { Services } from '../services.ts';
import type { Tx } from '../store/db.ts';
import { fileTooLargeMessage, type UploadedFile } from '../lib/uploaded-file.ts';
import { ApiError, badRequest } from '../lib/errors.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { THUMBNAIL_ACCEPT_IMAGE_TYPES, thumbnailUpload } from '../lib/images.ts';
import { chooseFormat, type UploadImageInfo } from '../lib/thumbnail-formats.ts';
import { startPeriodicJob } from '../lib/periodic.ts';
import { withClusterLock } from '../store/locks.ts';
import { realmById } from '../store/realm.ts';
import { ROLE, type UserRow } from '../store/users.ts';
import {
  attachmentById,
  attachmentByPathId,
  attachmentMessages,
  attachmentsByOwner,
  attachmentsByPathIds,
  attachmentsOfMessage,
  attachmentsWithoutImageInfo,
  deleteAttachmentRow,
  insertAttachment,
  linkAttachmentMessage,
  realmUploadSpaceUsed,
  receivedReferencingMessage,
  referencedInPublicChannel,
  referencedInSubscribedHistoryChannel,
  setAttachmentImage,
  unlinkAttachmentMessage,
  type AttachmentRow,
} from '../store/attachments.ts';

/** Seconds a temporary (unauthenticated) file URL stays valid (Zulip's SIGNED_ACCESS_TOKEN_VALIDITY_IN_SECONDS). */
export const TEMPORARY_URL_SECONDS = 60;

const EXTENSION_TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', svg: 'image/svg+xml',
  bmp: 'image/bmp', ico: 'image/vnd.microsoft.icon', tif: 'image/tiff', tiff: 'image/tiff', pdf: 'application/pdf',
  mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime', mp3: 'audio/mpeg', ogg: 'audio/ogg', wav: 'audio/x-wav',
  txt: 'text/plain', md: 'text/markdown', csv: 'text/csv', html: 'text/html', htm: 'text/html', json: 'application/json',
  xml: 'text/xml', zip: 'application/zip', gz: 'application/gzip', tar: 'application/x-tar', doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', py: 'text/x-python', js: 'text/javascript',
};

/** The file's type: the one the client sent, else guessed from the name (Zulip's get_file_info). */
function contentTypeFor(mimetype: string, name: string): string {
  const given = mimetype.trim().toLowerCase();
  if (given && given !== 'application/octet-stream') return given;
  const ext = /\.([^.]+)$/.exec(name)?.[1]?.toLowerCase();
  return (ext && EXTENSION_TYPES[ext]) || 'application/octet-stream';
}

/**
 * Zulip's sanitize_name: safe for a filesystem and a URL. Unicode letters and
 * digits stay; other characters except '.', '-', '_' and whitespace are
 * dropped; runs of '-' and whitespace become one '-'.
 */
export function sanitizeName(value: string): string {
  let v = value.normalize('NFKC');
  v = v.replace(/[^\p{L}\p{N}_\s.-]/gu, '').trim();
  v = v.replace(/[-\s]+/gu, '-');
  if (v === '' || v === '.' || v === '..') return 'uploaded-file';
  return v;
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

export function uploadsRoot(svc: Services): string {
  return resolve(svc.config.dataDir, 'uploads');
}

/** The file's location on disk; null for a path that would leave the uploads folder. */
export function uploadFilePath(svc: Services, pathId: string): string | null {
  const root = uploadsRoot(svc);
  const full = resolve(root, pathId);
  return full.startsWith(root + sep) ? full : null;
}

/**
 * Zulip's Attachment.to_dict: create_time in seconds (milliseconds before
 * feature level 443; the row keeps milliseconds) and the IDs of the
 * messages that reference the file (`message_ids`, feature level 472;
 * before, `messages` of {id, date_sent}).
 */
function attachmentDict(a: AttachmentRow, messageIds: number[]): Record<string, unknown> {
  return {
    id: a.id,
    name: a.file_name,
    path_id: a.path_id,
    size: a.size,
    create_time: Math.floor(a.create_time / 1000),
    message_ids: messageIds,
  };
}

async function notifyAttachment(svc: Services, ownerId: number, op: 'add' | 'update' | 'remove', attachment: Record<string, unknown>): Promise<void> {
  const used = await realmUploadSpaceUsed(svc.store.db, svc.realmId);
  svc.bus.send({ type: 'attachment', op, attachment, upload_space_used: used }, [ownerId]);
}

/**
 * Stores a new upload as an attachment of `user`: a fresh path_id
 * (realm ID / random / sanitized name, as Zulip), `place` puts the bytes at
 * its location on disk, then the attachment row and the `attachment` add
 * event. Returns Zulip's upload answer.
 */
async function storeUpload(
  svc: Services,
  user: UserRow,
  fileName: string,
  contentType: string,
  size: number,
  place: (diskPath: string) => Promise<void>,
): Promise<{ uri: string; url: string; filename: string }> {
  const pathId = [String(svc.realmId), randomInt(0, 256).toString(16), randomBytes(18).toString('base64url'), sanitizeName(fileName)].join('/');
  const diskPath = uploadFilePath(svc, pathId);
  if (!diskPath) throw badRequest('Invalid file name');
  await mkdir(dirname(diskPath), { recursive: true, mode: PRIVATE_DIR_MODE });
  await place(diskPath);
  let row: AttachmentRow;
  try {
    const image = await makeThumbnails(svc, pathId, diskPath, contentType);
    row = await insertAttachment(svc.store.db, {
      realm_id: svc.realmId,
      path_id: pathId,
      file_name: fileName,
      content_type: contentType,
      owner_id: user.id,
      size,
      create_time: Date.now(),
      image_width: image?.width ?? null,
      image_height: image?.height ?? null,
      image_frames: image?.frames ?? 0,
    });
  } catch (e) {
    await rm(diskPath, { force: true });
    await rm(thumbnailDir(svc, pathId), { recursive: true, force: true });
    throw e;
  }
  await notifyAttachment(svc, user.id, 'add', attachmentDict(row, []));
  const url = `/user_uploads/${pathId}`;
  return { uri: url, url, filename: fileName };
}

/** Where an upload's thumbnails are kept: uploads/thumbnail/<path_id>/<format name>. */
function thumbnailDir(svc: Services, pathId: string): string {
  return resolve(uploadsRoot(svc), 'thumbnail', pathId);
}

/** The file of one of an upload's thumbnails; null for a name that would leave its folder. */
export function thumbnailFilePath(svc: Services, pathId: string, name: string): string | null {
  const dir = thumbnailDir(svc, pathId);
  const full = resolve(dir, name);
  return dir.startsWith(resolve(uploadsRoot(svc), 'thumbnail') + sep) && dirname(full) === dir ? full : null;
}

/** What is known of an uploaded image; null for a file that is not one, or one uploaded before images were read. */
export function uploadImageInfo(a: AttachmentRow): UploadImageInfo | null {
  if (!a.image_frames || a.image_width === null || a.image_height === null) return null;
  return { width: a.image_width, height: a.image_height, frames: a.image_frames, contentType: a.content_type };
}

/**
 * Makes the thumbnails of an uploaded image (Zulip makes them in a worker
 * soon after the upload; here they exist before the upload's answer, so a
 * message never shows a loading placeholder). Null when the file is not an
 * image libvips reads.
 */
async function makeThumbnails(svc: Services, pathId: string, diskPath: string, contentType: string): Promise<UploadImageInfo | null> {
  const made = await thumbnailUpload(diskPath, contentType);
  if (!made) return null;
  const dir = thumbnailDir(svc, pathId);
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  for (const t of made.thumbnails) await writeFile(resolve(dir, t.format.name), t.data, { mode: PRIVATE_FILE_MODE });
  return made.info;
}

/**
 * The thumbnail of an uploaded image in the format named (or the closest
 * made one); null when the file is not such an image or the name is no
 * format. A missing thumbnail file (an organization imported without them)
 * is made again from the image.
 */
export async function readThumbnail(svc: Services, attachment: AttachmentRow, name: string): Promise<Buffer | null> {
  const info = uploadImageInfo(attachment);
  const format = info && chooseFormat(info, name);
  if (!format) return null;
  const file = thumbnailFilePath(svc, attachment.path_id, format.name);
  if (!file) return null;
  try {
    return await readFile(file);
  } catch {
    const original = uploadFilePath(svc, attachment.path_id);
    if (!original || !(await makeThumbnails(svc, attachment.path_id, original, attachment.content_type))) return null;
    return readFile(file).catch(() => null);
  }
}

/** Files read per batch of the backfill below. */
const BACKFILL_BATCH = 50;

/**
 * Reads the files uploaded before uploaded images were read (image_frames
 * null): makes an image's thumbnails and stores its size, so that messages
 * sent from then on that link it show its thumbnail (messages already sent
 * keep their previews); other files are marked as no image. With several
 * processes one does it (a cluster lock). Returns how many files were read.
 */
export async function backfillUploadImages(svc: Services, opts = { wait: false }): Promise<number> {
  let read = 0;
  await withClusterLock(svc.store, BACKFILL_LOCK, opts, async () => {
    for (;;) {
      const rows = await attachmentsWithoutImageInfo(svc.store.db, svc.realmId, BACKFILL_BATCH);
      if (rows.length === 0) return;
      for (const a of rows) {
        const file = uploadFilePath(svc, a.path_id);
        const image = file ? await makeThumbnails(svc, a.path_id, file, a.content_type).catch(() => null) : null;
        await setAttachmentImage(svc.store.db, a.id, image);
        read++;
      }
    }
  });
  return read;
}
const BACKFILL_LOCK = 'upload-image-backfill';

/** The backfill at start (a pass finds nothing once done), then daily; never keeps the process alive. */
export function startUploadImageBackfill(svc: Services, intervalMs = 86_400_000): { stop(): Promise<void> } {
  return startPeriodicJob(svc.log, 'uploaded image backfill', intervalMs, () => backfillUploadImages(svc));
}

/** POST /user_uploads. */
export async function uploadFile(svc: Services, user: UserRow, files: UploadedFile[]): Promise<{ uri: string; url: string; filename: string }> {
  // As with Django's parser, a file part without a file name is no file.
  const real = files.filter((f) => f.filename !== '');
  if (real.length === 0) throw badRequest('You must specify a file to upload');
  if (real.length !== 1) throw badRequest('You may only upload one file at a time');
  const file = real[0];
  const maxMib = svc.config.maxFileUploadSizeMib;
  if (file.data.length > maxMib * 1024 * 1024) throw badRequest(fileTooLargeMessage(maxMib));
  const fileName = decodeName(file.filename);
  return storeUpload(svc, user, fileName, contentTypeFor(file.mimetype, fileName), file.data.length, (diskPath) =>
    writeFile(diskPath, file.data, { mode: PRIVATE_FILE_MODE }),
  );
}

/**
 * A finished resumable (tus) upload becomes an attachment, as Zulip's
 * pre-finish hook makes it: the name from the `filename` metadata
 * ("uploaded-file" when empty, "." or ".."), the type from `filetype` or
 * else guessed from the name. The received file at `receivedPath` is moved
 * into place. Returns `{url, filename}`, the body of the final response.
 */
export async function finishResumableUpload(
  svc: Services,
  user: UserRow,
  receivedPath: string,
  size: number,
  metadata: Record<string, string | null | undefined>,
): Promise<{ url: string; filename: string }> {
  let fileName = metadata.filename ?? '';
  if (fileName === '' || fileName === '.' || fileName === '..') fileName = 'uploaded-file';
  const { url, filename } = await storeUpload(svc, user, fileName, contentTypeFor(metadata.filetype ?? '', fileName), size, async (diskPath) => {
    await rename(receivedPath, diskPath);
    await chmod(diskPath, PRIVATE_FILE_MODE);
  });
  return { url, filename };
}

/**
 * Zulip's validate_attachment_request: undefined when no such file; else
 * whether the caller (null: a spectator) may read it. The owner always may;
 * members (not guests) once it is linked from a public-channel message;
 * recipients of a linking message; subscribers of a channel with shared
 * history where it was linked. Spectators only for web-public channels.
 */
export async function validateAttachmentRequest(
  svc: Services,
  db: Tx,
  user: UserRow | null,
  pathId: string,
): Promise<{ attachment: AttachmentRow; authorized: boolean } | undefined> {
  const attachment = await attachmentByPathId(db, svc.realmId, pathId);
  if (!attachment) return undefined;
  const ok = (authorized: boolean) => ({ attachment, authorized });
  if (!user) {
    if (!svc.config.webPublicStreamsEnabled) return ok(false);
    const realm = await realmById(db, svc.realmId);
    if (!realmSettings(realm.settings_json).enable_spectator_access) return ok(false);
    return ok(await referencedInPublicChannel(db, attachment.id, true));
  }
  if (user.realm_id !== attachment.realm_id) return ok(false);
  if (user.id === attachment.owner_id) return ok(true);
  if (user.role !== ROLE.GUEST && (await referencedInPublicChannel(db, attachment.id, false))) return ok(true);
  if (await receivedReferencingMessage(db, attachment.id, user.id)) return ok(true);
  return ok(await referencedInSubscribedHistoryChannel(db, attachment.id, user.id));
}

export async function readUpload(svc: Services, pathId: string): Promise<Buffer | null> {
  const p = uploadFilePath(svc, pathId);
  if (!p) return null;
  try {
    return await readFile(p);
  } catch {
    return null;
  }
}

/**
 * Upload paths linked from rendered message HTML (Zulip's
 * potential_attachment_path_ids): links to /user_uploads/..., including
 * the relative "user_uploads/..." form the renderer makes of this server's
 * absolute URLs, and audio players' sources (thumbnails are not files of
 * their own).
 */
export function uploadPathIds(html: string): string[] {
  const out = new Set<string>();
  for (const m of html.matchAll(/(?:href|src)="\/?user_uploads\/(?!thumbnail\/)([^"?#]+)/g)) {
    const raw = m[1].replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
    out.add(raw);
    out.add(decodeName(raw));
  }
  return [...out];
}

/**
 * Links the files a new message references to it (those the sender may
 * read, as Zulip's do_claim_attachments). Runs inside the send
 * transaction; await the returned function after commit to send the
 * `attachment` update events (to each file's owner).
 */
export async function claimMessageAttachments(svc: Services, tx: Tx, sender: UserRow, messageId: number, html: string): Promise<() => Promise<void>> {
  const candidates = await attachmentsByPathIds(tx, svc.realmId, uploadPathIds(html));
  const claimed: AttachmentRow[] = [];
  for (const a of candidates) {
    const v = await validateAttachmentRequest(svc, tx, sender, a.path_id);
    if (!v?.authorized) continue;
    if (await linkAttachmentMessage(tx, a.id, messageId)) claimed.push(a);
  }
  return async () => {
    if (claimed.length === 0) return;
    const messages = await attachmentMessages(svc.store.db, claimed.map((a) => a.id));
    for (const a of claimed) await notifyAttachment(svc, a.owner_id, 'update', attachmentDict(a, messages.get(a.id) ?? []));
  };
}

/**
 * A content edit's files (Zulip's check_attachment_reference_change): those
 * the new content no longer links stop referencing the message, newly linked
 * ones are claimed as when sending. Runs inside the edit's transaction.
 * Returns the editor's files that no message references any more (the
 * edit's `detached_uploads`, Zulip's Attachment objects) and the function
 * that sends, after commit, the `attachment` update events of every file
 * whose messages changed (to its owner).
 */
export async function relinkEditedMessageAttachments(
  svc: Services,
  tx: Tx,
  editor: UserRow,
  messageId: number,
  html: string,
): Promise<{ detached: Array<Record<string, unknown>>; notify: () => Promise<void> }> {
  const linked = new Set(uploadPathIds(html));
  const unlinked = (await attachmentsOfMessage(tx, messageId)).filter((a) => !linked.has(a.path_id));
  for (const a of unlinked) await unlinkAttachmentMessage(tx, a.id, messageId);
  const notifyClaimed = await claimMessageAttachments(svc, tx, editor, messageId, html);
  const still = await attachmentMessages(tx, unlinked.map((a) => a.id));
  const detached = unlinked.filter((a) => a.owner_id === editor.id && !still.get(a.id)?.length).map((a) => attachmentDict(a, []));
  return {
    detached,
    notify: async () => {
      await notifyClaimed();
      if (unlinked.length === 0) return;
      const messages = await attachmentMessages(svc.store.db, unlinked.map((a) => a.id));
      for (const a of unlinked) await notifyAttachment(svc, a.owner_id, 'update', attachmentDict(a, messages.get(a.id) ?? []));
    },
  };
}

/**
 * GET /thumbnail/status/{realm_id_str}/{filename}: whether the uploader's
 * image has all its thumbnails. Zulip answers for images it thumbnails
 * (ImageAttachment rows), "Invalid attachment" otherwise. Parley makes an
 * image's thumbnails before answering its upload, so an image never lacks
 * one; files uploaded before images were read count by their type.
 */
export async function thumbnailStatus(svc: Services, user: UserRow, pathId: string): Promise<{ has_thumbnail: boolean }> {
  const a = await attachmentByPathId(svc.store.db, svc.realmId, pathId);
  const image = a && (a.image_frames === null ? THUMBNAIL_ACCEPT_IMAGE_TYPES.has(a.content_type) : a.image_frames > 0);
  if (!a || a.owner_id !== user.id || !image) throw badRequest('Invalid attachment');
  return { has_thumbnail: true };
}

/** GET /attachments. */
export async function listAttachments(svc: Services, user: UserRow): Promise<Record<string, unknown>> {
  const db = svc.store.db;
  const rows = await attachmentsByOwner(db, user.id);
  const messages = await attachmentMessages(db, rows.map((a) => a.id));
  return {
    attachments: rows.map((a) => attachmentDict(a, messages.get(a.id) ?? [])),
    upload_space_used: await realmUploadSpaceUsed(db, svc.realmId),
  };
}

/** DELETE /attachments/{attachment_id}: the owner removes the file and its record. */
export async function removeAttachment(svc: Services, user: UserRow, id: number): Promise<void> {
  const a = await attachmentById(svc.store.db, svc.realmId, id);
  if (!a || a.owner_id !== user.id) throw badRequest('Invalid attachment');
  const p = uploadFilePath(svc, a.path_id);
  try {
    if (p) await rm(p, { force: true });
    await rm(thumbnailDir(svc, a.path_id), { recursive: true, force: true });
  } catch {
    throw badRequest('An error occurred while deleting the attachment. Please try again later.');
  }
  await deleteAttachmentRow(svc.store.db, a.id);
  await notifyAttachment(svc, user.id, 'remove', { id });
}

// Temporary URLs: /user_uploads/temporary/<token>/<filename>, the token a
// hex encoding of "path_id:issued:signature" signed with a per-process key.
const TOKEN_KEY = randomBytes(32);

function sign(data: string): string {
  return createHmac('sha256', TOKEN_KEY).update('user_uploads_' + data).digest('base64url');
}

export function temporaryUrl(pathId: string, now = Date.now()): string {
  const data = `${pathId}:${Math.floor(now / 1000).toString(36)}`;
  const token = Buffer.from(`${data}:${sign(data)}`, 'utf8').toString('hex').toUpperCase();
  const filename = pathId.split('/').pop() ?? '';
  return `/user_uploads/temporary/${token}/${encodeURIComponent(filename)}`;
}

/** The path_id a temporary token grants, or an error as Zulip ("Invalid token", "Invalid filename"). */
export function pathIdFromToken(token: string, filename: string, now = Date.now()): string {
  const invalid = () => new ApiError('Invalid token');
  if (!/^(?:[0-9A-Fa-f]{2})+$/.test(token)) throw invalid();
  const text = Buffer.from(token, 'hex').toString('utf8');
  const sigAt = text.lastIndexOf(':');
  const data = text.slice(0, sigAt);
  const tsAt = data.lastIndexOf(':');
  if (sigAt < 0 || tsAt < 0) throw invalid();
  const expected = Buffer.from(sign(data));
  const given = Buffer.from(text.slice(sigAt + 1));
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
  const issued = parseInt(data.slice(tsAt + 1), 36);
  if (!Number.isFinite(issued) || now / 1000 - issued > TEMPORARY_URL_SECONDS) throw invalid();
  const pathId = data.slice(0, tsAt);
  if (pathId.split('/').pop() !== filename) throw new ApiError('Invalid filename');
  return pathId;
}
