/**
 * Whether the browser client's bundle (web/dist) is missing or older than a
 * file under web/: what web/build.ts rebuilds. Plain JavaScript, like
 * src/main.js, which checks this before every start: a check in a Node
 * process of its own (as `npm start` once ran `node web/build.ts` first)
 * cost about 200 ms, most of it loading TypeScript, against a few
 * milliseconds here.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const WEB_DIR = fileURLToPath(new URL('.', import.meta.url));

/** The newest modification time of a file under dir, leaving out dist/ and node_modules/. */
function newestSource(dir, distDir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (p === distDir || entry.name === 'node_modules') continue;
      newest = Math.max(newest, newestSource(p, distDir));
    } else {
      newest = Math.max(newest, statSync(p).mtimeMs);
    }
  }
  return newest;
}

/** @returns {boolean} */
export function isStale(webDir = WEB_DIR) {
  const distDir = join(webDir, 'dist');
  const stamp = join(distDir, 'index.html');
  if (!existsSync(stamp)) return true;
  return newestSource(webDir, distDir) > statSync(stamp).mtimeMs;
}
