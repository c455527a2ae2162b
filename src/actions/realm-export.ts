/**
 * Organization data exports through the API (Zulip's POST/GET
 * /export/realm, DELETE /export/realm/{export_id}, GET
 * /export/realm/consents), administrators only. A request is checked and
 * recorded, then the archive is written in the background (never inside the
 * request) to DATA_DIR/exports/<realm_id>/<random>/<name>.tar.gz, served to
 * administrators at the export's URL. Every change of an export's state
 * sends `realm_export` (the organization's whole list) to the human
 * administrators (a change of a user's consent: export-consent.ts).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';
import { adminUserIds, allUsers, ROLE, userById } from '../store/users.ts';
import { sendMessage } from './messages.ts';
import { notificationBot } from './system-bots.ts';
import { openStore, transaction } from '../store/db.ts';
import { badRequest, requireAdmin } from '../lib/errors.ts';
import { userSettings } from '../lib/user-settings.ts';
import { emailSettings } from '../lib/email.ts';
import { nowSeconds } from '../lib/util.ts';
import { ensurePrivateDir } from '../lib/private-files.ts';
import { writeArchive } from '../store/archive.ts';
import type { ArchiveScope } from '../store/archive-tables.ts';
import {
  EXPORT_STATUS,
  exportSizeEstimate,
  exportsRequestedSince,
  insertRealmExport,
  realmExportById,
  realmExports,
  unfinishedExports,
  updateRealmExport,
  type RealmExportRow,
} from '../store/realm-exports.ts';
import { realmById } from '../store/realm.ts';
import { isAdminRole } from './users-format.ts';

/** The kinds POST /export/realm accepts. Zulip's third, full_without_consent, needs owner_full_content_access, which Parley does not have. */
export const EXPORT_TYPES = ['public', 'full_with_consent'] as const;
export type ExportType = (typeof EXPORT_TYPES)[number];

/** Zulip's limits on exports through the API: 5 a week, 250,000 messages, 20 GiB of uploads. */
export const EXPORT_LIMIT_PER_WEEK = 5;
export const MAX_MESSAGE_HISTORY = 250_000;
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024 * 1024;
/** Zulip's UserProfile.EMAIL_ADDRESS_VISIBILITY_NOBODY. */
const EMAIL_VISIBILITY_NOBODY = 4;

/** URL path prefix the archives are served under (administrators only). */
export const EXPORTS_URL_PREFIX = '/exports/';

export interface RealmExportDict {
  id: number;
  acting_user_id: number;
  export_time: number;
  export_url: string | null;
  deleted_timestamp: number | null;
  failed_timestamp: number | null;
  pending: boolean;
  export_type: string;
}

function checkAdmin(user: UserRow): void {
  if (!isAdminRole(user.role)) throw requireAdmin();
}

export function exportsRoot(svc: Services): string {
  return resolve(svc.config.dataDir, 'exports');
}

/** The archive file of an export path (`<realm_id>/<token>/<name>`); null for one that would leave the folder. */
export function exportFilePath(svc: Services, exportPath: string): string | null {
  const root = exportsRoot(svc);
  const full = resolve(root, exportPath);
  return full.startsWith(root + sep) ? full : null;
}

function exportDict(svc: Services, row: RealmExportRow): RealmExportDict {
  const url = row.status === EXPORT_STATUS.SUCCEEDED && row.export_path ? new URL(EXPORTS_URL_PREFIX + row.export_path, svc.config.externalUrl).toString() : null;
  return {
    id: row.id,
    acting_user_id: row.acting_user_id ?? 0,
    export_time: row.date_requested,
    export_url: url,
    deleted_timestamp: row.date_deleted,
    failed_timestamp: row.date_failed,
    pending: row.status === EXPORT_STATUS.REQUESTED || row.status === EXPORT_STATUS.STARTED,
    export_type: row.export_type,
  };
}

async function notifyExports(svc: Services): Promise<void> {
  const list = (await realmExports(svc.store.db, svc.realmId)).map((r) => exportDict(svc, r));
  svc.bus.send({ type: 'realm_export', exports: list }, await adminUserIds(svc.store.db, svc.realmId));
}

/** Zulip's FromAddress.SUPPORT: the server's administrator. */
function supportEmail(svc: Services): string {
  return svc.config.ownerEmail ?? emailSettings(svc.config).from;
}

/** Exports still being written, so a caller (shutdown, the command line, tests) can wait for them. */
const running = new Set<Promise<void>>();

export async function waitForExports(): Promise<void> {
  while (running.size) await Promise.allSettled([...running]);
}

export async function requestRealmExport(svc: Services, user: UserRow, exportType: ExportType): Promise<{ id: number }> {
  checkAdmin(user);
  const now = nowSeconds();
  const row = await transaction(svc.store, async (tx) => {
    if ((await exportsRequestedSince(tx, svc.realmId, now - 7 * 86400)) >= EXPORT_LIMIT_PER_WEEK) throw badRequest('Exceeded rate limit.');
    const size = await exportSizeEstimate(tx, svc.realmId);
    if (size.messages > MAX_MESSAGE_HISTORY || size.uploadBytes > MAX_UPLOAD_BYTES) {
      throw badRequest(`Please request a manual export from ${supportEmail(svc)}.`);
    }
    const owners = (await allUsers(tx, svc.realmId)).filter((u) => u.is_active && !u.is_bot && u.role === ROLE.OWNER);
    if (exportType === 'full_with_consent' && !owners.some((u) => userSettings(u.settings_json).allow_private_data_export === true)) {
      throw badRequest(`Make sure at least one Organization Owner is consenting to the export or contact ${supportEmail(svc)} for help.`);
    }
    if (exportType === 'public' && !owners.some((u) => userSettings(u.settings_json).email_address_visibility !== EMAIL_VISIBILITY_NOBODY)) {
      throw badRequest(
        `Make sure at least one Organization Owner allows other Administrators to see their email address or contact ${supportEmail(svc)} for help`,
      );
    }
    return insertRealmExport(tx, { realm_id: svc.realmId, acting_user_id: user.id, export_type: exportType, status: EXPORT_STATUS.REQUESTED, date_requested: now });
  });
  await notifyExports(svc);
  // The archive is written after the response, outside the request.
  const job = new Promise<void>((res) => setImmediate(res)).then(() => runExport(svc, row));
  running.add(job);
  void job.finally(() => running.delete(job));
  return { id: row.id };
}

async function scopeOf(svc: Services, exportType: string): Promise<ArchiveScope> {
  if (exportType !== 'full_with_consent') return { kind: 'public' };
  const users = await allUsers(svc.store.db, svc.realmId);
  return { kind: 'consent', userIds: users.filter((u) => !u.is_bot && userSettings(u.settings_json).allow_private_data_export === true).map((u) => u.id) };
}

/** Writes one requested export's archive; records and announces success or failure. */
async function runExport(svc: Services, row: RealmExportRow): Promise<void> {
  try {
    await updateRealmExport(svc.store.db, row.id, { status: EXPORT_STATUS.STARTED, date_started: nowSeconds() });
    const realm = await realmById(svc.store.db, svc.realmId);
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
    const name = `parley-export-${(realm.string_id || 'organization').replace(/[^a-zA-Z0-9_-]/g, '')}-${row.id}-${stamp}.tar.gz`;
    const exportPath = `${svc.realmId}/${randomBytes(16).toString('hex')}/${name}`;
    const file = exportFilePath(svc, exportPath)!;
    ensurePrivateDir(exportsRoot(svc));
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // Its own connection: a long read transaction must not hold the server's (SQLite has one).
    const store = openStore({ dataDir: svc.config.dataDir, databaseUrl: svc.config.databaseUrl, pgSchema: svc.config.pgSchema });
    let bytes: number;
    try {
      ({ bytes } = await writeArchive({ store, dataDir: svc.config.dataDir, file, scope: await scopeOf(svc, row.export_type), replaceApiKeys: true }));
    } catch (e) {
      rmSync(dirname(file), { recursive: true, force: true });
      throw e;
    } finally {
      await store.close();
    }
    await updateRealmExport(svc.store.db, row.id, { status: EXPORT_STATUS.SUCCEEDED, date_succeeded: nowSeconds(), export_path: exportPath, tarball_size_bytes: bytes });
    await tellRequester(svc, row);
  } catch (err) {
    svc.log.error({ err, exportId: row.id }, 'data export failed');
    try {
      await updateRealmExport(svc.store.db, row.id, { status: EXPORT_STATUS.FAILED, date_failed: nowSeconds() });
    } catch (e) {
      svc.log.error({ err: e, exportId: row.id }, 'could not record the failed data export');
      return;
    }
  }
  try {
    await notifyExports(svc);
  } catch (err) {
    svc.log.error({ err }, 'could not announce the data export');
  }
}

/** Zulip's notice to the administrator who asked: a direct message from Notification Bot pointing at the exports panel. */
async function tellRequester(svc: Services, row: RealmExportRow): Promise<void> {
  if (row.acting_user_id === null) return;
  try {
    const user = await userById(svc.store.db, svc.realmId, row.acting_user_id);
    if (!user?.is_active) return;
    const content = 'Your data export is complete. [View and download exports](#organization/data-exports-admin).';
    await sendMessage(svc, await notificationBot(svc), { type: 'private', to: JSON.stringify([user.id]), topic: undefined, content, clientName: 'Internal' });
  } catch (err) {
    svc.log.error({ err, exportId: row.id }, 'could not tell the requester about the data export');
  }
}

/** At start: exports a stopped process left unfinished are recorded as failed (as Zulip does when its worker dies). */
export async function failInterruptedExports(svc: Services): Promise<void> {
  const rows = await unfinishedExports(svc.store.db, svc.realmId);
  if (!rows.length) return;
  const now = nowSeconds();
  for (const r of rows) await updateRealmExport(svc.store.db, r.id, { status: EXPORT_STATUS.FAILED, date_failed: now });
  await notifyExports(svc);
}

export async function listRealmExports(svc: Services, user: UserRow): Promise<{ exports: RealmExportDict[] }> {
  checkAdmin(user);
  return { exports: (await realmExports(svc.store.db, svc.realmId)).map((r) => exportDict(svc, r)) };
}

export async function deleteRealmExport(svc: Services, user: UserRow, exportId: number): Promise<void> {
  checkAdmin(user);
  const exportPath = await transaction(svc.store, async (tx) => {
    const row = await realmExportById(tx, svc.realmId, exportId);
    if (!row) throw badRequest('Invalid data export ID');
    if (row.status === EXPORT_STATUS.DELETED) throw badRequest('Export already deleted');
    if (row.status === EXPORT_STATUS.FAILED) throw badRequest('Export failed, nothing to delete');
    if (row.status !== EXPORT_STATUS.SUCCEEDED) throw badRequest('Export still in progress');
    await updateRealmExport(tx, row.id, { status: EXPORT_STATUS.DELETED, date_deleted: nowSeconds() });
    return row.export_path;
  });
  const file = exportPath ? exportFilePath(svc, exportPath) : null;
  // The random folder holding the archive goes with it.
  if (file) rmSync(dirname(file), { recursive: true, force: true });
  await notifyExports(svc);
}

/** The archive of a succeeded, undeleted export at this path, for serving. */
export async function exportArchiveForDownload(svc: Services, user: UserRow, exportPath: string): Promise<string | null> {
  checkAdmin(user);
  const rows = await realmExports(svc.store.db, svc.realmId);
  const row = rows.find((r) => r.export_path === exportPath && r.status === EXPORT_STATUS.SUCCEEDED);
  return row ? exportFilePath(svc, exportPath) : null;
}

export async function exportConsents(
  svc: Services,
  user: UserRow,
): Promise<{ export_consents: Array<{ user_id: number; consented: boolean; email_address_visibility: number }> }> {
  checkAdmin(user);
  const users = (await allUsers(svc.store.db, svc.realmId)).filter((u) => u.is_active && !u.is_bot);
  return {
    export_consents: users.map((u) => {
      const s = userSettings(u.settings_json);
      return { user_id: u.id, consented: s.allow_private_data_export === true, email_address_visibility: Number(s.email_address_visibility) };
    }),
  };
}
