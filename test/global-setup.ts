/**
 * The test runner's global setup (`--test-global-setup` in package.json's
 * test script): builds the browser client once, into a temporary directory
 * that every browser test file of the run then serves (builtClient in
 * test/web-browser.ts, through PARLEY_TEST_WEB_DIST), instead of one build
 * in each file's process (about a second of CPU each). Not where the browser
 * tests skip for a cluster run (TEST_CLUSTER); a build that fails leaves
 * each file to build its own, as a file run on its own does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let dir: string | null = null;

export async function globalSetup(): Promise<void> {
  if (Number(process.env.TEST_CLUSTER || 1) > 1 || process.env.PARLEY_TEST_WEB_DIST) return;
  const out = mkdtempSync(join(tmpdir(), 'parley-webdist-'));
  try {
    const { buildWeb } = await import('../web/build.ts');
    await buildWeb(out);
  } catch (err) {
    console.log(`# the browser client could not be built once for all files (${String(err)}): each file builds its own`);
    rmSync(out, { recursive: true, force: true });
    return;
  }
  dir = out;
  process.env.PARLEY_TEST_WEB_DIST = out;
}

export async function globalTeardown(): Promise<void> {
  if (dir) rmSync(dir, { recursive: true, force: true });
}
