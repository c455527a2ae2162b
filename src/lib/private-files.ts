/**
 * Private data at rest: DATA_DIR and every directory under it are 0700, and
 * the files in it (the database, which holds every API key, uploads, zuliprc,
 * the email log) are 0600. The process umask is 077 from the start, so
 * files SQLite creates (WAL, shared memory) are private too; modes are also
 * given explicitly, and fixed on start for data written by older versions.
 */
import { chmodSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirs } from './make-dirs.js';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Sets the process umask so new files are private (the main thread only: workers cannot). */
export function setPrivateUmask(): void {
  try {
    process.umask(0o077);
  } catch {
    // In a worker thread process.umask cannot be set; modes are explicit anyway.
  }
}

/** Creates (or fixes) a private directory. */
export function ensurePrivateDir(dir: string): void {
  makeDirs(dir, PRIVATE_DIR_MODE);
  chmodPrivate(dir, PRIVATE_DIR_MODE);
}

/** Makes an existing file or directory private; silently skips what is missing or not ours. */
export function chmodPrivate(path: string, mode: number = PRIVATE_FILE_MODE): void {
  try {
    if ((statSync(path).mode & 0o777) !== mode) chmodSync(path, mode);
  } catch {
    // missing, or owned by someone else: nothing to fix here
  }
}

/** On start: DATA_DIR 0700 and the SQLite files and zuliprc in it 0600. */
export function securePrivateData(dataDir: string): void {
  ensurePrivateDir(dataDir);
  for (const name of ['parley.sqlite3', 'parley.sqlite3-wal', 'parley.sqlite3-shm', 'zuliprc', 'emails.log']) {
    const p = join(dataDir, name);
    if (existsSync(p)) chmodPrivate(p);
  }
  const uploads = join(dataDir, 'uploads');
  if (existsSync(uploads)) chmodPrivate(uploads, PRIVATE_DIR_MODE);
}
