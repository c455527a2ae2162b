/**
 * src/main.js: once the server has gone quiet after some work, it asks V8
 * for one young-generation collection, so that V8's memory reducer sees the
 * low allocation rate and gives memory back (see IDLE_CHECK_MS there). It
 * asks once per quiet spell, not again until other collections have run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, assertSuccess, spawnNode, stopNode } from './helpers.ts';

const preload = join(import.meta.dirname, 'fixtures', 'gc-log.mjs');
/**
 * Quiet time given to the server: its checks come every 2 s (IDLE_CHECK_MS),
 * the first after a load still sees the load's collections, and V8 may
 * finish a collection it started during the load a little later.
 */
const QUIET_MS = 7_000;

test('a server that goes quiet after work asks for one young-generation collection, and no more while it stays quiet', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-idle-memory-'));
  const log = join(dir, 'gc.log');
  const dataDir = join(dir, 'data');
  try {
    const n = await spawnNode({ DATA_DIR: dataDir, NODE_OPTIONS: `--import=${preload}`, GC_LOG: log });
    let loadStart = 0;
    let loadEnd = 0;
    try {
      // Anonymous (no per-user rate limit), and enough for the young generation to fill several times.
      const client = new Client(n.url, null);
      loadStart = Date.now();
      for (let i = 0; i < 600; i++) assertSuccess(await client.get('/server_settings'));
      loadEnd = Date.now();
      await sleep(QUIET_MS);
    } finally {
      await stopNode(n);
    }
    const gcs = readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { at: number; kind: number; flags: number });
    const timeline = () => gcs.map((g) => `${Math.round(g.at - loadEnd)} ms: kind ${g.kind}, flags ${g.flags}`).join('\n');
    const asked = (g: { kind: number; flags: number }) => g.kind === constants.NODE_PERFORMANCE_GC_MINOR && (g.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0;
    assert.ok(gcs.some((g) => !asked(g) && g.at >= loadStart && g.at <= loadEnd), 'the load ran collections of its own');
    assert.ok(gcs.some((g) => asked(g) && g.at > loadEnd), `a collection was asked for after the load (times from its end):\n${timeline()}`);
    // Between two it asked for, at least one collection of V8's own.
    let sinceAsked = 1;
    for (const g of gcs) {
      if (!asked(g)) sinceAsked++;
      else {
        assert.ok(sinceAsked > 0, `asked twice in one quiet spell (times from the load's end):\n${timeline()}`);
        sinceAsked = 0;
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
