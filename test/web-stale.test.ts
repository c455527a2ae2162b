/**
 * web/stale.js, which src/main.js asks before each start whether the browser
 * client must be built again, and which web/build.ts uses too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isStale, WEB_DIR } from '../web/stale.js';
import { isStale as buildIsStale } from '../web/build.ts';

test('the bundle is stale when missing or older than any file under web/ outside dist/ and node_modules/', () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-web-'));
  try {
    const at = (path: string, seconds: number) => {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), 'x');
      utimesSync(join(dir, path), seconds, seconds);
    };
    at('src/app.tsx', 1_000);
    at('src/lib/deep/util.ts', 1_100);
    assert.equal(isStale(dir), true, 'no bundle');
    at('dist/index.html', 2_000);
    assert.equal(isStale(dir), false);
    at('dist/assets/late.js', 3_000);
    at('node_modules/pkg/index.js', 3_000);
    assert.equal(isStale(dir), false, 'dist/ and node_modules/ are not sources');
    at('src/lib/deep/util.ts', 2_500);
    assert.equal(isStale(dir), true, 'a source changed after the build');
    at('dist/index.html', 2_600);
    assert.equal(isStale(dir), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(buildIsStale, isStale, 'web/build.ts decides with the same check');
  assert.match(WEB_DIR, /[\\/]web[\\/]$/);
});
