/**
 * src/lib/compile-cache.js: after the sources change, a child process fills
 * Node's compile cache before the server loads its modules, so the server
 * never loads Node's TypeScript stripper (which stays resident for the life
 * of the process once loaded).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, SAME_ON_EVERY_BACKEND, assertSuccess, spawnNode, stopNode, zuliprcAccount } from './helpers.ts';
import { childNodeArgs, childNodeOptions, STAMP_FILE, sourcesFingerprint } from '../src/lib/compile-cache.js';

const STRIPPER = 'NativeModule internal/deps/amaro/dist/index';
const preload = join(import.meta.dirname, 'fixtures', 'module-list.mjs');

test('a start with a cold compile cache fills it in a child first; neither the server nor its render thread loads the type stripper', { skip: SAME_ON_EVERY_BACKEND }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-compile-cache-'));
  const lists = join(dataDir, 'module-lists');
  const cacheBase = join(dataDir, 'cache');
  // NODE_DEBUG_NATIVE=COMPILE_CACHE: Node reports, for each module, whether V8 accepted its cached compilation.
  const env = { DATA_DIR: join(dataDir, 'data'), NODE_COMPILE_CACHE: cacheBase, NODE_OPTIONS: `--import=${preload}`, MODULE_LISTS_DIR: lists, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' };
  mkdirSync(lists);
  /** Starts and stops a server; returns its pid, its output and the module lists of the processes it ran. */
  const run = async (whileRunning?: (output: () => string, url: string) => Promise<void>): Promise<{ server: number; output: string; lists: Map<string, string> }> => {
    for (const f of readdirSync(lists)) rmSync(join(lists, f));
    const n = await spawnNode(env);
    const pid = n.proc.pid!;
    try {
      await whileRunning?.(n.output, n.url);
    } finally {
      await stopNode(n);
    }
    return { server: pid, output: n.output(), lists: new Map(readdirSync(lists).map((f) => [f, readFileSync(join(lists, f), 'utf8')])) };
  };
  /** How many cached compilations V8 accepted and rejected. */
  const verdicts = (output: string) => ({
    accepted: output.match(/V8 code cache for .* was accepted/g)?.length ?? 0,
    rejected: output.match(/V8 code cache for .* was rejected/g)?.length ?? 0,
  });
  /** The stamp, in the server's directory (render threads have directories of their own). */
  const stampPath = () => {
    const versioned = readdirSync(cacheBase).find((d) => readdirSync(join(cacheBase, d)).includes(STAMP_FILE));
    assert.ok(versioned, 'a directory holds the stamp');
    return join(cacheBase, versioned, STAMP_FILE);
  };
  try {
    // Cold: the filling child needs the stripper; the server does not.
    const cold = await run();
    assert.equal(cold.lists.size, 2, 'the server and one filling child');
    const child = [...cold.lists.keys()].find((p) => p !== String(cold.server))!;
    assert.ok(cold.lists.get(child)!.includes(STRIPPER), 'the child compiled the TypeScript');
    assert.ok(cold.lists.get(String(cold.server))!.includes('NativeModule http'), 'the list is the server\'s');
    assert.ok(!cold.lists.get(String(cold.server))!.includes(STRIPPER), 'the server loaded every module from the cache');
    assert.equal(readFileSync(stampPath(), 'utf8'), sourcesFingerprint());
    // The child loaded with the server's V8 flags (src/main.js sets them in both): V8 used every compilation it cached.
    const first = verdicts(cold.output);
    assert.ok(first.accepted > 100, `the server used the child's compilations (${first.accepted})`);
    assert.equal(first.rejected, 0);

    // Warm: no child. The server drops the entries it read as it loads (every
    // FLUSH_EVERY_MODULES modules) and once serving (flushCompileCache in
    // src/main.js), not only at exit: the preload counts the calls. Its render thread (started by a message with a code
    // block) needs the stripper no more: the child filled the thread's own
    // directory too (see src/main.js).
    const warm = await run(async (_output, url) => {
      const owner = new Client(url, zuliprcAccount(env.DATA_DIR));
      assertSuccess(await owner.post('/messages', { type: 'stream', to: 'general', topic: 't', content: '```js\nlet x = 1;\n```' }));
    });
    const flushes = warm.lists.get(String(warm.server))!.split('\n').filter((l) => l === 'flushCompileCache()').length;
    assert.ok(flushes >= 10, `the server flushed its compile cache as it loaded its ~600 modules, and once serving (${flushes} flushes)`);
    // Each thread reports the directory it enables, the request thread first.
    const [serverDir, threadDir, ...others] = [...warm.output.matchAll(/resolved path \S+ \+ (\S+) ->/g)].map((m) => m[1]!);
    assert.ok(serverDir && threadDir && threadDir !== serverDir, 'a render thread started, with a directory of its own');
    assert.deepEqual(others, []);
    const threadReads = [...warm.output.matchAll(/reading cache from \S+\/([^/\s]+)\/\w+ for StrippedTypeScript \S+\.\.\.(.*)$/gm)].filter((m) => m[1] === threadDir);
    assert.ok(threadReads.length > 0, 'the render thread read its modules from the cache');
    for (const [line, , result] of threadReads) assert.doesNotMatch(result!, /no such file/, line);
    assert.deepEqual([...warm.lists.keys()], [String(warm.server)]);
    assert.ok(!warm.lists.get(String(warm.server))!.includes(STRIPPER));
    assert.equal(verdicts(warm.output).rejected, 0);

    // A stamp that does not match the sources: filled again.
    writeFileSync(stampPath(), 'other sources');
    const again = await run();
    assert.equal(again.lists.size, 2);
    assert.ok(!again.lists.get(String(again.server))!.includes(STRIPPER));
    assert.equal(readFileSync(stampPath(), 'utf8'), sourcesFingerprint());
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a filling child that fails is reported, and the server starts all the same', { skip: SAME_ON_EVERY_BACKEND }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-compile-cache-'));
  const cacheBase = join(dataDir, 'cache');
  try {
    const n = await spawnNode({ DATA_DIR: join(dataDir, 'data'), NODE_COMPILE_CACHE: cacheBase, NODE_OPTIONS: `--import=${preload}`, FAIL_COMPILE_ONLY: '1' });
    try {
      const res = await fetch(`${n.url}/api/v1/server_settings`);
      assert.equal(res.status, 200);
      assert.match(n.output(), /Parley: filling the compile cache failed \(Command failed: .*\); starting without it/);
    } finally {
      await stopNode(n);
    }
    assert.ok(!readdirSync(cacheBase).some((d) => readdirSync(join(cacheBase, d)).includes(STAMP_FILE)), 'no stamp: the next start tries again');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("the filling child gets the parent's Node options but not its inspector or profiler ones", () => {
  assert.deepEqual(childNodeArgs(['--max-old-space-size=512', '--inspect=9230', '--cpu-prof', '--cpu-prof-dir', '/tmp/p', '--heap-prof-name=h', '--inspect-brk', '--enable-source-maps']), [
    '--max-old-space-size=512',
    '--enable-source-maps',
  ]);
  assert.deepEqual(childNodeArgs(['--inspect-port', '9231', '--conditions=x', '--debug-port=9232']), ['--conditions=x']);
  assert.deepEqual(childNodeArgs([]), []);
});

test('NODE_OPTIONS for the filling child: read as Node reads it, without the inspector or profiler options', () => {
  assert.equal(childNodeOptions(undefined), undefined);
  assert.equal(childNodeOptions(''), '');
  assert.equal(childNodeOptions('--import=x  --cpu-prof --cpu-prof-dir /tmp/p --max-old-space-size=512 --inspect'), '--import=x --max-old-space-size=512');
  // Quotes group; inside them a backslash takes the next character as it is.
  assert.equal(childNodeOptions('"--require=/a b/c.js" --inspect-port "9230" --title="x \\"y\\""'), '"--require=/a b/c.js" "--title=x \\"y\\""');
  assert.equal(childNodeOptions('--heap-prof --enable-source-maps'), '--enable-source-maps');
});

test('the stamp follows the .ts and .js files (src/main.js sets the V8 flags), not other files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-fingerprint-'));
  try {
    mkdirSync(join(dir, 'lib'));
    for (const f of ['a.ts', 'main.js', 'lib/b.ts', 'notes.md']) writeFileSync(join(dir, f), '');
    const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
    for (const f of ['a.ts', 'main.js', 'lib/b.ts', 'notes.md']) utimesSync(join(dir, f), t(0), t(0));
    const before = sourcesFingerprint(dir);
    assert.equal(before, `${t(0).getTime()} 3`);
    utimesSync(join(dir, 'notes.md'), t(5), t(5));
    assert.equal(sourcesFingerprint(dir), before);
    utimesSync(join(dir, 'main.js'), t(9), t(9));
    assert.equal(sourcesFingerprint(dir), `${t(9).getTime()} 3`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
