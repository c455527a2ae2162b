/**
 * `npm start`'s entry point. As `npm start`, builds the browser client first
 * when its bundle is missing or older than its sources (web/stale.js; the
 * build itself runs in a process of its own, web/build.ts). Then turns on
 * Node's compile cache, so the server's TypeScript is stripped and compiled
 * once and reused by every later start (and by its worker threads and
 * cluster workers), and loads the server (src/cli/serve.ts).
 *
 * This one file is plain JavaScript on purpose: Node strips the types of a
 * .ts file with a WebAssembly compiler that it loads on first use, which
 * costs about 100 ms and 17 MiB for the life of the process. With the cache
 * on before any TypeScript is loaded, a start with a warm cache never loads
 * that compiler.
 *
 * The cache lives in NODE_COMPILE_CACHE when set, else in
 * DATA_DIR/.cache/node-compile; Node keeps it consistent with the sources
 * and the Node version, and deleting it is always safe. After the sources
 * change, a child process fills it before the server loads (see
 * src/lib/compile-cache.js).
 */
import { execFileSync } from 'node:child_process';
import cluster from 'node:cluster';
import { enableCompileCache, flushCompileCache, getCompileCacheDir, registerHooks } from 'node:module';
import { join } from 'node:path';
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { makeDirs } from './lib/make-dirs.js';
// Only Node's own modules (and make-dirs.js, which uses only those) are
// imported statically: this project's own load
// after the V8 flags below are set (see the optimizing compiler, below).

// V8's young generation (two semi-spaces) starts at 1 MiB per semi-space and
// doubles whenever many young objects survive a collection, up to a maximum
// set from the machine's memory: 64 MiB on a 24 GiB machine, which a loaded
// server reaches and keeps resident. Only the command line can lower that
// maximum, but V8 reads the growth factor at every growth, so this process
// sets it: 1 (no growth) while the server loads its modules (which would
// grow it to the maximum for nothing: 20 MiB more at idle), then, once it
// serves, growth only while the semi-spaces are under YOUNG_SEMI_SPACE_MIB.
// Smaller young generations cost requests time, as objects that live across
// a request's awaits are copied and promoted more often: on GET /messages
// (newest 100), collection time per request measured 1 MiB ~250 µs, 16 MiB
// ~45 µs, 32 MiB ~25 µs. At 8 MiB the young generation holds 16 MiB after
// the benchmark's load instead of 64, and the benchmark's CPU time per
// request (npm run bench, two runs each on a shared 2-core machine) did not
// move beyond its run-to-run noise (±15%). The flag is process-wide, so
// worker threads follow the same rule (within their resource limits).
const YOUNG_SEMI_SPACE_MIB = 8;

// The old generation: after each full collection V8 lets it grow to up to
// four times what survived (its factor when the heap limit, which V8 sets
// from the machine's memory, is 2 GiB or more) before collecting it again. A loaded
// server keeps 30-40 MiB live there, and the benchmark's load left 70-90 MiB
// of old space, most of it garbage. V8 reads this factor at every full
// collection: once the server serves (start-up keeps V8's own sizing),
// OLD_GROWTH_PERCENT caps the growth at 1.5 times the live data (plus one
// young generation). With both caps the benchmark's after-load memory went
// from 298-321 MiB to 224-234 (same runs as above).
const OLD_GROWTH_PERCENT = 50;

// V8's memory reducer gives memory back once a process stops allocating: a
// few seconds after a full collection it checks the allocation rate, and
// when that is low it runs incremental collections that shrink the heap and
// release the pages V8 keeps pooled. It reads the rate from the collections
// themselves, so in a server that has gone quiet, where none runs any more,
// it keeps the rate of its last busy moment and waits forever (its trace
// says "high alloc" every 8 seconds). Every IDLE_CHECK_MS the server asks
// for one young-generation collection (about a millisecond) when there was
// none in the last interval but some since its last such request: the
// reducer then sees the quiet and does its work. In one pair of benchmark
// runs (npm run bench's request scenarios, 2-core development machine) the
// resident memory 15 seconds after the load was 118.5 MiB against 151.3
// without this (146-151 MiB right after the load in both), and 15 seconds
// after the start 89.6 against 93.4.
const IDLE_CHECK_MS = 2000;

// After a busy spell (at least BUSY_COLLECTIONS collections of V8's own
// since the last request) one young-generation collection was not always
// enough: in later runs of the same benchmark the reducer still said "high
// alloc" long after the load, and the memory 15 seconds after it was what
// it had been 1 second after it (157.0 and 164.9 MiB in two full runs). By
// then V8's heap held about 35 MiB, but 72 MiB of the process were V8's
// 256 KiB pages: the rest were pages V8 keeps pooled for reuse, which only
// a collection that reduces memory gives back. So after a busy spell the
// server asks for that collection itself (a full one, "last resort": V8
// collects until nothing more is freed, shrinks the young generation and
// releases its pooled pages; two full collections, a few tens of
// milliseconds, once per quiet spell). In three runs of the benchmark's
// request scenarios with it, the memory 1 second and 15 seconds after the
// load was 145.8 then 108.4 MiB, 153.6 then 119.9, and 120.2 then 121.2.
const BUSY_COLLECTIONS = 20;

/** Modules loaded between two flushes of the compile cache while the server loads (see where it is used). */
const FLUSH_EVERY_MODULES = 50;

/** This process only fills the compile cache (src/lib/compile-cache.js). */
const compileOnly = process.env.PARLEY_COMPILE_ONLY === '1';

const userCompileCache = process.env.NODE_COMPILE_CACHE;
const dir = userCompileCache || join(process.env.DATA_DIR || './data', '.cache', 'node-compile');
// Made here first (makeDirs ends where Node's own mkdir would spin: a
// DATA_DIR under /proc). A directory that cannot be made: no compile cache,
// and the server says what is wrong with DATA_DIR as it starts.
let cacheDirMade = true;
try {
  makeDirs(dir);
} catch {
  cacheDirMade = false;
}
if (cacheDirMade) {
  process.env.NODE_COMPILE_CACHE = dir;
  enableCompileCache(dir);
} else delete process.env.NODE_COMPILE_CACHE;
// Only now: the cache's directory is named after the V8 flags in force when it
// is enabled, and processes started with NODE_COMPILE_CACHE set (the cache's
// filling child, cluster workers) enable it before any of this file runs.
setFlagsFromString('--semi-space-growth-factor=1');
// No Maglev, V8's middle optimizing tier (hot functions go from the baseline
// tier to TurboFan). Maglev compiles on V8's background threads, and the
// memory of those compilations stays in those threads' malloc arenas: 24-33
// MiB of arenas after the benchmark's load, against 10-13 without Maglev. In
// six alternating runs each (npm run bench's request scenarios, 2-core
// development machine): 93-97 MiB idle against 100-103, and 146-156 MiB
// after the load against 166-186. CPU per request moved both ways within the
// noise for users/me, presence and reads; a message to a 100-member channel
// took 21% more at the median (5-60% in the six pairs). Set in every process
// before the server's modules load, after the compile cache is enabled: V8
// checks each cached compilation against the flags in force, so every
// process must load with the same ones (see above for the directory).
setFlagsFromString('--no-maglev');
// No TurboFan either until the server serves. Loading the server's ~600
// modules makes Node's module resolution hot, and V8 optimized some fifty of
// its functions; the first optimization brings the compiler's machine code
// into memory, about 8 MiB of the Node binary's pages that then stay
// resident in an idle server. Start-up code runs once, so it gains nothing
// from it. Set before this project's first module loads (Node resolving even
// the few that this file imported statically had Maglev compile two of its
// path functions: 2.3 MiB more of the binary), and turned back on once the
// server serves, where hot request code is optimized as before. Resident
// memory of an idle server, 9 s after its start (single starts on the
// 2-core AMD host, 27 November): 97 MiB before, 87 MiB with this.
setFlagsFromString('--no-opt');

// As `npm start` only (other ways of starting, such as the tests' servers,
// build nothing), and in a cluster (PARLEY_WORKERS) only in the primary. The
// build is a process of its own, with the compile cache setting it was given.
if (!compileOnly && process.env.npm_lifecycle_event === 'start' && cluster.isPrimary) {
  const { isStale } = await import('../web/stale.js');
  if (isStale()) {
    const env = { ...process.env };
    if (userCompileCache === undefined) delete env.NODE_COMPILE_CACHE;
    try {
      execFileSync(process.execPath, [fileURLToPath(new URL('../web/build.ts', import.meta.url))], { stdio: 'inherit', env });
    } catch (err) {
      process.exit(typeof err?.status === 'number' ? err.status : 1);
    }
  }
}

// Kysely from its bundle (vendor/build.ts) when one matches the installed version.
const { useVendorBundle } = await import('../vendor/load.js');
useVendorBundle();
if (compileOnly) {
  await import('./cli/serve.ts');
  flushCompileCache();
  // The Markdown render threads: a worker thread enables the compile cache
  // from NODE_COMPILE_CACHE as it starts, in a directory named after the V8
  // flags then off their defaults. In the server those are the ones above,
  // the old generation's growth once serving, and the young generation's
  // growth factor either at its default or 1 (capYoungGeneration), so one
  // render thread is run under each, and each writes its entries as it ends.
  // Without this, the first render thread after a change to the sources
  // found none of its entries and loaded the TypeScript stripper.
  try {
    setFlagsFromString('--opt');
    setFlagsFromString(`--heap-growing-percent=${OLD_GROWTH_PERCENT}`);
    const { warmRenderThread } = await import('./markdown/pool.ts');
    for (const factor of [2, 1]) {
      setFlagsFromString(`--semi-space-growth-factor=${factor}`);
      await warmRenderThread();
    }
  } catch (err) {
    console.error(`Parley: filling the render thread's compile cache failed (${err?.message ?? err})`);
  }
  process.exit(0);
}
// (No directory when the cache could not be enabled, or NODE_DISABLE_COMPILE_CACHE is set.)
const cacheDir = getCompileCacheDir();
if (cluster.isPrimary && cacheDir) {
  const { warmCompileCache } = await import('./lib/compile-cache.js');
  warmCompileCache(cacheDir, fileURLToPath(import.meta.url));
}
// Node keeps each compile cache entry it reads (the module's compiled code,
// about 5.7 MiB for the server's modules, by heaptrack) until the cache is
// flushed. Flushed only once everything has loaded, they are all in malloc's
// heap at once, and the holes they leave when freed stay resident (glibc
// gives back only the top of its heap). Flushing after every
// FLUSH_EVERY_MODULES modules lets each batch reuse the memory of the one
// before: the heap of an idle server went from 9.1 to 5.0 MiB (single
// starts, as above). A flush writes nothing new when the cache is warm.
let loaded = 0;
const flushing = registerHooks({
  load(url, context, next) {
    if (++loaded % FLUSH_EVERY_MODULES === 0) flushCompileCache();
    return next(url, context);
  },
});
const { serve } = await import('./cli/serve.ts');
const { QuietCollections } = await import('./lib/quiet-collections.js');
flushing.deregister();
flushCompileCache();
await serve();
// Once more for the modules the start loaded (otherwise Node flushes only at
// exit): a module loaded later reads its own entry again. In three
// alternating pairs of benchmark runs (request scenarios, 2-core development
// machine) the memory after the load was 147-148 MiB with this flush against
// 153-161 without, and CPU per request did not move beyond the noise: the
// freed heap is reused instead of grown.
flushCompileCache();
// The optimizing compiler, now that the server serves (see above); the filling
// child does the same before its render threads load.
setFlagsFromString('--opt');
setFlagsFromString(`--heap-growing-percent=${OLD_GROWTH_PERCENT}`);
capYoungGeneration();
wakeMemoryReducerWhenQuiet(QuietCollections);

/** After each collection: let the young generation double only while under the cap. */
function capYoungGeneration() {
  const limit = 2 * YOUNG_SEMI_SPACE_MIB * 1024 * 1024; // V8's new_space counts both semi-spaces
  let growing = false;
  const update = () => {
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    const grow = young !== undefined && young.space_size < limit;
    if (grow === growing) return;
    growing = grow;
    setFlagsFromString(`--semi-space-growth-factor=${grow ? 2 : 1}`);
  };
  update();
  new PerformanceObserver(update).observe({ entryTypes: ['gc'] });
}

/**
 * A full collection that gives memory back at once (the start was a busy
 * spell), then every IDLE_CHECK_MS: when the process has gone quiet, one
 * collection: a young-generation one, or after a busy spell a full one (see
 * IDLE_CHECK_MS and BUSY_COLLECTIONS).
 */
function wakeMemoryReducerWhenQuiet(QuietCollections) {
  // V8 gives scripts its collector only under --expose-gc, read when a context is made.
  setFlagsFromString('--expose-gc');
  let gc;
  try {
    gc = runInNewContext('gc');
  } catch {
    // (A V8 that does not give it this way: the server runs without this.)
  } finally {
    // Back to the flags the compile cache's entries were made under (see above).
    setFlagsFromString('--no-expose-gc');
  }
  if (typeof gc !== 'function') return;
  const { NODE_PERFORMANCE_GC_MINOR: MINOR, NODE_PERFORMANCE_GC_FLAGS_FORCED: FORCED } = perfConstants;
  const collections = new QuietCollections(BUSY_COLLECTIONS);
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      // Its own young-generation ones (the only forced young collections in
      // the server) are not V8's. Its full ones come without that flag and
      // count as V8's: a young-generation one follows them in a later quiet interval.
      if (e.detail?.kind === MINOR && e.detail.flags & FORCED) continue;
      collections.collected();
    }
  }).observe({ entryTypes: ['gc'] });
  // The start was a busy spell of its own: loading the server's modules left
  // the old generation with room in it that a full collection compacts
  // (20.2 MiB of which 16.8 in use, 9 s after a start). Asked for at once,
  // so a server is at its idle size from the start: 74.0 MiB 1 s after the
  // start and 74.3 MiB 15 s later, against 79.2 and 74.3 when asked for at
  // the first quiet check (npm run bench's start-up figures, 2-core AMD host,
  // 27 November); without it, 81.8-82.1 MiB 12 s after single starts.
  gc({ type: 'major', flavor: 'last-resort' });
  setInterval(() => {
    const ask = collections.tick();
    if (ask === 'minor') gc({ type: 'minor' });
    // V8's "last resort": full collections until nothing more is freed, which also shrink the young generation and release pooled pages.
    else if (ask === 'full') gc({ type: 'major', flavor: 'last-resort' });
  }, IDLE_CHECK_MS).unref();
}
