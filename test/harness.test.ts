/** The test harness itself (helpers.ts), where a mistake would only show as a hung or silent run. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

test('a --test-name-pattern that matches none of a file\'s tests ends the run: the server its before hook starts is closed', { timeout: 90_000 }, async () => {
  const started = Date.now();
  // A run of its own, not a subtest of this one (node:test marks its children with NODE_TEST_CONTEXT).
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(process.execPath, ['--test', '--test-name-pattern=no test is called this', join('test', 'drafts.test.ts')], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: a run that hangs is killed with the file's process under it.
    detached: true,
  });
  let output = '';
  for (const s of [child.stdout, child.stderr]) s.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  assert.equal(code, 0, `exit ${code} after ${Date.now() - started} ms:\n${output}`);
  assert.match(output, /ℹ fail 0/);
});
