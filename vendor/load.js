/**
 * Points the imports of the bundled package (vendor/build.ts) at the bundle,
 * for the rest of this process's main thread. Called by src/main.js before
 * the server loads. Does nothing (and returns false) when the bundle is
 * missing, or was made from a version other than the one installed, so an
 * install without it, or an upgrade not yet rebuilt, loads the package from
 * node_modules as usual.
 *
 * Plain JavaScript, like src/main.js, so that it runs before any TypeScript
 * is loaded.
 */
import { existsSync, readFileSync } from 'node:fs';
import { findPackageJSON, registerHooks } from 'node:module';

export const DIST = new URL('./dist/', import.meta.url);

/**
 * The bundle's manifest when the bundle in `dir` is complete and was made
 * from the installed version of its package; null otherwise. (vendor/build.ts
 * rebuilds when this is null, and when the manifest's `build` is older.)
 */
export function usableManifest(dir = DIST) {
  try {
    const manifest = JSON.parse(readFileSync(new URL('manifest.json', dir), 'utf8'));
    const pkg = findPackageJSON(manifest.package, import.meta.url);
    if (!pkg || JSON.parse(readFileSync(pkg, 'utf8')).version !== manifest.version) return null;
    if (!Object.values(manifest.modules).every((file) => existsSync(new URL(file, dir)))) return null;
    return manifest;
  } catch {
    return null;
  }
}

/** @returns {boolean} whether the bundle is in use */
export function useVendorBundle(dir = DIST) {
  const manifest = usableManifest(dir);
  if (!manifest) return false;
  const urls = new Map(Object.entries(manifest.modules).map(([spec, file]) => [spec, new URL(file, dir).href]));
  const subpath = `${manifest.package}/`;
  registerHooks({
    resolve(specifier, context, next) {
      const url = urls.get(specifier);
      if (url) return { url, format: 'module', shortCircuit: true };
      // Another entry point of the package would load a second copy of its classes beside the bundle's.
      if (specifier.startsWith(subpath)) throw new Error(`${specifier} is not in the vendor bundle: add it to ENTRIES in vendor/build.ts`);
      return next(specifier, context);
    },
  });
  return true;
}

