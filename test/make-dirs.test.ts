/** src/lib/make-dirs.js: `mkdir -p` that ends, with the first error. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDirs } from '../src/lib/make-dirs.js';

test('makeDirs makes the missing directories with the mode given, and accepts existing ones', () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-make-dirs-'));
  try {
    const deep = join(dir, 'a', 'b', 'c');
    makeDirs(deep, 0o700);
    assert.ok(statSync(deep).isDirectory());
    for (const p of [join(dir, 'a'), join(dir, 'a', 'b'), deep]) assert.equal(statSync(p).mode & 0o777, 0o700 & ~process.umask());
    makeDirs(deep);
    makeDirs(dir);
    writeFileSync(join(dir, 'file'), '');
    assert.throws(() => makeDirs(join(dir, 'file', 'x')), { code: 'ENOTDIR' });
    assert.throws(() => makeDirs(join(dir, 'file')), { code: 'EEXIST' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('makeDirs fails at once where nothing can be made (Node\'s recursive mkdir retries forever there)', { skip: !existsSync('/proc/self') && 'no /proc' }, () => {
  assert.throws(() => makeDirs('/proc/parley-x/y'), (e: NodeJS.ErrnoException) => ['ENOENT', 'EACCES'].includes(e.code!) && e.path === '/proc/parley-x');
});
