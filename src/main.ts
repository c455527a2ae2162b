/**
 * `npm start`'s entry point. Turns on Node's compile cache first, so the
 * server's TypeScript is stripped and compiled once and reused by every
 * later start (and by its worker threads and cluster workers), then loads
 * the server (src/cli/serve.ts).
 *
 * The cache lives in NODE_COMPILE_CACHE when set, else in
 * DATA_DIR/.cache/node-compile; Node keeps it consistent with the sources
 * and the Node version, and deleting it is always safe.
 */
import { enableCompileCache } from 'node:module';
import { join } from 'node:path';

const dir = process.env.NODE_COMPILE_CACHE || join(process.env.DATA_DIR || './data', '.cache', 'node-compile');
process.env.NODE_COMPILE_CACHE = dir;
enableCompileCache(dir);
await import('./cli/serve.ts');
