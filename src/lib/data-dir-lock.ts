/**
 * One process per SQLite DATA_DIR: a lock (proper-lockfile: a lock
 * directory whose time the holder refreshes, taken over once stale, so a
 * crashed process does not block a restart for long).
 */
import { makeDirs } from './make-dirs.js';
import { join, resolve } from 'node:path';
import lockfile from 'proper-lockfile';

const STALE_MS = 10_000;

export class DataDirLockedError extends Error {}

/** Takes the DATA_DIR lock; returns its release. Throws DataDirLockedError when another process holds it. */
export async function lockDataDir(dataDir: string, onLost: (err: Error) => void): Promise<() => Promise<void>> {
  makeDirs(dataDir);
  const lockPath = join(dataDir, 'parley.lock');
  try {
    return await lockfile.lock(resolve(dataDir), { lockfilePath: lockPath, stale: STALE_MS, update: STALE_MS / 2, realpath: false, onCompromised: onLost });
  } catch (e) {
    if ((e as { code?: string }).code !== 'ELOCKED') throw e;
    throw new DataDirLockedError(
      `Another Parley process is using DATA_DIR ${resolve(dataDir)} (lock ${lockPath}). ` +
        `Stop it, or give this process its own DATA_DIR; to run several processes on one database use PostgreSQL and REDIS_URL ` +
        `(see "Running several processes" in README.md). If that process has crashed, start again in ${STALE_MS / 1000} s.`,
    );
  }
}
