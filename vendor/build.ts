/**
 * Bundles Kysely into a few files (vendor/dist), which src/main.js loads in
 * place of the package's own 257 modules: Node's ES module loader spends
 * close to a millisecond on each module it resolves, links and evaluates,
 * and a start with the bundle measured 100-150 ms shorter (see the README's
 * benchmark section). Only Kysely is bundled: it is plain ES modules
 * without side effects, the largest part of what a start loads, and
 * bundling changes nothing of how it runs.
 *
 * Run by `npm ci` / `npm install` (the `prepare` script), which are also
 * what installs another version of Kysely; it rebuilds only when the bundle
 * is missing, was made from another version or was made in an older way
 * (BUILD; `--force` rebuilds regardless). `npm start` does not run it: a
 * check in a process of its own would cost a start more (about 130 ms)
 * than the bundle saves, and src/main.js ignores a bundle that does not
 * match the installed version.
 * Without the bundler (an install without devDependencies) it does
 * nothing, and the server loads Kysely from node_modules as usual.
 *
 * vendor/dist/manifest.json names the package version the bundle was made
 * from and the file of each module specifier; src/main.js uses the bundle
 * only while that version is the installed one (vendor/load.js).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { findPackageJSON } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { usableManifest, type Manifest } from './load.js';

const vendorDir = dirname(fileURLToPath(import.meta.url));
const root = dirname(vendorDir);

/** The bundled package, and the specifiers src/ imports from it (each an entry of the bundle). */
export const PACKAGE = 'kysely';
export const ENTRIES: Record<string, string> = { kysely: 'kysely.js', 'kysely/migration': 'kysely-migration.js' };
/**
 * The version of how the bundle is made (the options below). A bundle made
 * otherwise is still used, but the next `npm ci` / `npm install` rebuilds it.
 * 2: without comments, in ASCII.
 */
export const BUILD = 2;

export function installedVersion(): string {
  const path = findPackageJSON(PACKAGE, join(root, 'package.json'));
  if (!path) throw new Error(`${PACKAGE} is not installed`);
  return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
}

/** Whether the bundle in outDir is missing, incomplete, made from another version (what src/main.js would not use) or made in an older way. */
export function isStale(outDir = join(vendorDir, 'dist')): boolean {
  const manifest = usableManifest(pathToFileURL(outDir + '/'));
  return manifest === null || manifest.build !== BUILD;
}

/** Builds the bundle into outDir (vendor/dist by default; tests build into a temporary folder). */
export async function buildVendor(outDir = join(vendorDir, 'dist')): Promise<Manifest> {
  const { rolldown } = await import('rolldown');
  rmSync(outDir, { recursive: true, force: true });
  const input = Object.fromEntries(Object.entries(ENTRIES).map(([spec, file]) => [file.replace(/\.js$/, ''), spec]));
  const bundle = await rolldown({ input, cwd: root, platform: 'node', logLevel: 'warn' });
  // Without comments and in ASCII: V8 keeps each module's source text in the
  // heap for as long as the process runs, and a single character outside
  // Latin-1 (a dash in one of Kysely's doc comments) makes it keep the whole
  // text at two bytes a character. The bundle's source went from about
  // 900 KB of heap to 300 KB; the code itself is left as it is (names,
  // lines), for readable stack traces.
  await bundle.write({
    dir: outDir,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
    comments: false,
    charset: 'ascii',
  });
  await bundle.close();
  const manifest: Manifest = { package: PACKAGE, version: installedVersion(), build: BUILD, modules: ENTRIES };
  writeFileSync(join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!process.argv.includes('--force') && !isStale()) process.exit(0);
  try {
    await import('rolldown');
  } catch {
    console.log('vendor/build.ts: the bundler (a devDependency) is not installed; the server will load Kysely from node_modules');
    process.exit(0);
  }
  try {
    await buildVendor();
  } catch (err) {
    // Never a failed install for it: without the bundle the server loads Kysely from node_modules.
    rmSync(join(vendorDir, 'dist'), { recursive: true, force: true });
    console.warn(`vendor/build.ts: the Kysely bundle could not be built (${(err as Error).message}); the server will load Kysely from node_modules`);
  }
}
