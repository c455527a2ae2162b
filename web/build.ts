/**
 * Builds the browser client (web/src → web/dist) with Vite when the bundle is
 * missing or older than any source file under web/ (web/stale.js). Run by
 * `npm ci` / `npm install` (the `prepare` script), and by src/main.js
 * (`npm start`) when that check finds the bundle out of date, so a user
 * never needs a separate build command. `--force` rebuilds regardless.
 *
 * Output: web/dist/index.html and content-hashed files under web/dist/assets/,
 * served by the server at /static/ (hence `base: '/static/'`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isStale, WEB_DIR } from './stale.js';

export { isStale };

const distDir = join(WEB_DIR, 'dist');
const stamp = join(distDir, 'index.html');

/** Builds into outDir (web/dist by default; tests build into a temporary copy). */
export async function buildWeb(outDir = distDir): Promise<void> {
  const { build } = await import('vite');
  await build({
    configFile: false,
    root: WEB_DIR,
    base: '/static/',
    logLevel: 'warn',
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      assetsInlineLimit: 0,
      chunkSizeWarningLimit: 400,
    },
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const force = process.argv.includes('--force');
  if (!force && !isStale()) process.exit(0);
  let vite = true;
  try {
    await import('vite');
  } catch {
    vite = false;
  }
  if (!vite) {
    // Installed without dev dependencies: keep whatever bundle there is.
    console.warn(existsSync(stamp) ? 'web client: Vite not installed; serving the existing build in web/dist' : 'web client: Vite not installed (npm ci without dev dependencies?); the browser client is not built');
    process.exit(0);
  }
  const t0 = Date.now();
  console.log('Building the web client (web/dist)…');
  await buildWeb();
  console.log(`Web client built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
