/**
 * Consistent SQLite backups while the server runs: `VACUUM INTO` copies the
 * database as of one read transaction (in WAL mode readers never block the
 * server's writes, and the copy is a compact, self-contained database file).
 * SQLite's online backup API would restart on every write from the server's
 * connection, so it might never finish under load. PostgreSQL is backed up
 * with pg_dump (see the README).
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { chmodPrivate } from '../lib/private-files.ts';
import { useUnicodeLower } from './sqlite-driver.ts';

export class BackupError extends Error {}

/** Writes a snapshot of DATA_DIR's database to `file` (which must not exist yet), mode 0600. */
export function backupSqlite(dataDir: string, file: string): { bytes: number } {
  const source = join(dataDir, 'parley.sqlite3');
  if (!existsSync(source)) throw new BackupError(`no database at ${source}`);
  if (existsSync(file)) throw new BackupError(`${file} already exists`);
  const partial = `${file}.partial`;
  rmSync(partial, { force: true });
  const db = new DatabaseSync(source, { readOnly: true });
  useUnicodeLower(db);
  try {
    db.exec('PRAGMA busy_timeout = 10000');
    db.prepare('VACUUM INTO ?').run(partial);
  } finally {
    db.close();
  }
  chmodPrivate(partial);
  renameSync(partial, file);
  const check = new DatabaseSync(file, { readOnly: true });
  useUnicodeLower(check);
  try {
    const row = check.prepare('PRAGMA integrity_check').get() as { integrity_check: string };
    if (row.integrity_check !== 'ok') throw new BackupError(`the backup failed its integrity check: ${row.integrity_check}`);
    const pages = check.prepare('PRAGMA page_count').get() as { page_count: number };
    const size = check.prepare('PRAGMA page_size').get() as { page_size: number };
    return { bytes: pages.page_count * size.page_size };
  } finally {
    check.close();
  }
}
