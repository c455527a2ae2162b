/**
 * src/main.js: once the server has gone quiet after some work, it asks V8
 * for one young-generation collection, so that V8's memory reducer sees the
 * low allocation rate and gives memory back (see IDLE_CHECK_MS there). It
 * asks once per quiet spell, not again until other collections have run.
 * After a busy spell (BUSY_COLLECTIONS there) it asks for a full collection
 * that gives memory back instead, and it asks for one as soon as it serves.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, SAME_ON_EVERY_BACKEND, assertSuccess, spawnNode, stopNode } from './helpers.ts';

interface Gc {
  at: number;
  kind: number;
  flags: number;
}

function readGcs(log: string): Gc[] {
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    // (none yet)
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Gc);
}

/** The young-generation collections the server asks for itself. */
const askedMinor = (g: Gc) => g.kind === constants.NODE_PERFORMANCE_GC_MINOR && (g.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0;

/** Collections of V8's own (not asked for by the server) that began at `from` or later. */
const ownSince = (log: string, from: number): number => readGcs(log).filter((g) => !askedMinor(g) && g.at >= from).length;

/** The collections, for an assertion's message, with times from `zero`. */
const timeline = (gcs: Gc[], zero: number): string => gcs.map((g) => `${Math.round(g.at - zero)} ms: kind ${g.kind}, flags ${g.flags}`).join('\n');

function rssMiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

const preload = join(import.meta.dirname, 'fixtures', 'gc-log.mjs');
/**
 * Quiet time given to the server: its checks come every 2 s (IDLE_CHECK_MS),
 * the first after a load still sees the load's collections, and V8 may
 * finish a collection it started during the load a little later.
 */
const QUIET_MS = 7_000;
/** Time for a server just started to be done with what its start collected. */
const SETTLE_MS = 9_000;

test('a server that goes quiet after light work asks for one young-generation collection, and no more while it stays quiet', { skip: SAME_ON_EVERY_BACKEND }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-idle-memory-'));
  const log = join(dir, 'gc.log');
  const dataDir = join(dir, 'data');
  try {
    const n = await spawnNode({ DATA_DIR: dataDir, NODE_OPTIONS: `--import=${preload}`, GC_LOG: log });
    let loadStart = 0;
    let loadEnd = 0;
    try {
      // The collections of the start are behind the server's first requests
      // (a full one after them if they were many, then a young-generation one).
      await sleep(SETTLE_MS);
      // Anonymous (no per-user rate limit): a light load, until the young
      // generation has filled a few times (well under BUSY_COLLECTIONS).
      const client = new Client(n.url, null);
      loadStart = Date.now();
      for (let i = 0; ownSince(log, loadStart) < 3; i++) {
        assert.ok(i < 2000, 'the load ran collections of its own');
        for (let j = 0; j < 5; j++) assertSuccess(await client.get('/server_settings'));
      }
      loadEnd = Date.now();
      const own = ownSince(log, loadStart);
      assert.ok(own < 20, `a light load: ${own} collections`);
      await sleep(QUIET_MS);
    } finally {
      await stopNode(n);
    }
    const gcs = readGcs(log);
    assert.ok(gcs.some((g) => !askedMinor(g) && g.at >= loadStart && g.at <= loadEnd), 'the load ran collections of its own');
    assert.ok(gcs.some((g) => askedMinor(g) && g.at > loadEnd), `a collection was asked for after the load (times from its end):\n${timeline(gcs, loadEnd)}`);
    // Between two it asked for, at least one collection of V8's own.
    let sinceAsked = 1;
    for (const g of gcs) {
      if (!askedMinor(g)) sinceAsked++;
      else {
        assert.ok(sinceAsked > 0, `asked twice in one quiet spell (times from the load's end):\n${timeline(gcs, loadEnd)}`);
        sinceAsked = 0;
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('after a busy spell, the server that goes quiet gives memory back with a full collection', { skip: SAME_ON_EVERY_BACKEND || (process.platform !== 'linux' && 'reads /proc') }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-idle-memory-'));
  const log = join(dir, 'gc.log');
  try {
    const n = await spawnNode({ DATA_DIR: join(dir, 'data'), NODE_OPTIONS: `--import=${preload}`, GC_LOG: log });
    let loadEnd = 0;
    let atEnd = 0;
    let after = 0;
    try {
      const client = new Client(n.url, null);
      // Busy: requests on ten connections until the server has run 40
      // collections of its own during the load (BUSY_COLLECTIONS is 20; one
      // it asked for as the load began would count those before it).
      const deadline = Date.now() + 60_000;
      const loadStart = Date.now();
      while (ownSince(log, loadStart) < 40) {
        assert.ok(Date.now() < deadline, 'the load ran 40 collections within a minute');
        await Promise.all(
          Array.from({ length: 10 }, async () => {
            for (let i = 0; i < 50; i++) assertSuccess(await client.get('/server_settings'));
          }),
        );
      }
      loadEnd = Date.now();
      atEnd = rssMiB(n.proc.pid!);
      await sleep(QUIET_MS);
      after = rssMiB(n.proc.pid!);
    } finally {
      await stopNode(n);
    }
    const gcs = readGcs(log);
    // The full collection asked for is V8's "last resort": full collections
    // one right after the other until nothing more is freed (V8's own memory
    // reducer, the other source of full collections in a quiet process, runs
    // its two some hundreds of milliseconds apart).
    const majors = gcs.filter((g) => g.kind === constants.NODE_PERFORMANCE_GC_MAJOR && g.at > loadEnd + 500);
    assert.ok(
      majors.some((g, i) => i > 0 && g.at - majors[i - 1]!.at < 150),
      `full collections back to back once the server was quiet (times from the load's end):\n${timeline(gcs, loadEnd)}`,
    );
    assert.ok(after <= atEnd + 1, `no more memory while quiet: ${atEnd.toFixed(1)} MiB at the load's end, ${after.toFixed(1)} MiB ${QUIET_MS} ms later`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a server just started gives back what its start left with a full collection, before any request', { skip: SAME_ON_EVERY_BACKEND }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-idle-memory-'));
  const log = join(dir, 'gc.log');
  try {
    const n = await spawnNode({ DATA_DIR: join(dir, 'data'), NODE_OPTIONS: `--import=${preload}`, GC_LOG: log });
    try {
      await sleep(1000);
    } finally {
      await stopNode(n);
    }
    const gcs = readGcs(log);
    // V8's "last resort", as after a busy spell (see above): full collections
    // back to back (the start's own loading ran young-generation ones, and
    // at most a full one now and then).
    const majors = gcs.filter((g) => g.kind === constants.NODE_PERFORMANCE_GC_MAJOR);
    assert.ok(
      majors.some((g, i) => i > 0 && g.at - majors[i - 1]!.at < 150),
      `full collections back to back within a second of the start (times from the first collection):\n${timeline(gcs, gcs[0]?.at ?? 0)}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('no optimizing compiler while the server loads; once it serves, hot code is optimized', { skip: SAME_ON_EVERY_BACKEND }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-idle-memory-'));
  const log = join(dir, 'opt.log');
  // V8's status bits (its runtime's OptimizationStatus): optimization off, optimized code.
  const NEVER_OPTIMIZE = 1 << 1;
  const OPTIMIZED = 1 << 4;
  try {
    const n = await spawnNode({ DATA_DIR: join(dir, 'data'), NODE_OPTIONS: `--import=${join(import.meta.dirname, 'fixtures', 'opt-log.mjs')}`, OPT_LOG: log });
    try {
      await sleep(3000);
    } finally {
      await stopNode(n);
    }
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { when: string; status: number });
    const [first, ...serving] = lines;
    assert.equal(first?.when, 'listening');
    assert.ok(first.status & NEVER_OPTIMIZE, `not optimized while loading: status ${first.status.toString(2)}`);
    assert.ok(!(first.status & OPTIMIZED));
    assert.ok(serving.some((l) => l.status & OPTIMIZED), `optimized once serving: ${serving.map((l) => l.status.toString(2)).join(', ')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
