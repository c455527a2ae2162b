/**
 * `mkdir -p` that always ends. Node's recursive mkdir (fs.mkdir with
 * `recursive`, and module.enableCompileCache making its directory) retries
 * forever where a directory exists but nothing can be made in it and the
 * answer is ENOENT, as in /proc or /sys: DATA_DIR=/proc/parley hung the
 * start at full CPU, silently. This makes each missing directory in turn,
 * from the top, and throws the first error (ENOENT, EACCES, ENOTDIR...).
 * Plain JavaScript: src/main.js uses it before the compile cache is on.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * @param {string} dir
 * @param {number} [mode] of the directories made
 */
export function makeDirs(dir, mode = 0o777) {
  const full = resolve(dir);
  const missing = [];
  for (let p = full; !statSync(p, { throwIfNoEntry: false }); p = dirname(p)) {
    missing.push(p);
    if (dirname(p) === p) break;
  }
  // There already, but a file: mkdir's own EEXIST.
  if (!missing.length && !statSync(full).isDirectory()) mkdirSync(full);
  for (const p of missing.reverse()) {
    try {
      mkdirSync(p, { mode });
    } catch (e) {
      // Made meanwhile by someone else: fine if it is a directory.
      if (/** @type {NodeJS.ErrnoException} */ (e).code !== 'EEXIST' || !statSync(p).isDirectory()) throw e;
    }
  }
}
