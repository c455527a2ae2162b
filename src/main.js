/**
 * `npm start`'s entry point. Turns on Node's compile cache first, so the
 * server's TypeScript is stripped and compiled once and reused by every
 * later start (and by its worker threads and cluster workers), then loads
 * the server (src/cli/serve.ts).
 *
 * This one file is plain JavaScript on purpose: Node strips the types of a
 * .ts file with a WebAssembly compiler that it loads on first use, which
 * costs about 100 ms and 17 MiB for the life of the process. With the cache
 * on before any TypeScript is loaded, a start with a warm cache never loads
 * that compiler.
 *
 * The cache lives in NODE_COMPILE_CACHE when set, else in
 * DATA_DIR/.cache/node-compile; Node keeps it consistent with the sources
 * and the Node version, and deleting it is always safe.
 */
import { enableCompileCache } from 'node:module';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';

// V8 sizes the young generation from the machine's memory (up to 64 MiB per
// semi-space on a large machine) and grows it whenever many young objects
// survive, as they do while the server loads its modules. A server's
// requests leave little behind, so a small young generation costs no
// throughput and keeps tens of MiB out of the resident memory. Its maximum
// can only be set on the command line, but how fast it grows is read at
// every growth: a factor of 1 keeps it at its initial size (1 MiB per
// semi-space). Set here, before anything is loaded, so it holds for the
// whole process (worker threads have their own limits).
setFlagsFromString('--semi-space-growth-factor=1');

const dir = process.env.NODE_COMPILE_CACHE || join(process.env.DATA_DIR || './data', '.cache', 'node-compile');
process.env.NODE_COMPILE_CACHE = dir;
enableCompileCache(dir);
await import('./cli/serve.ts');
