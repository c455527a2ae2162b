/**
 * Fills Node's compile cache for the server's modules before the server
 * loads them (src/main.js). A TypeScript module missing from the cache is
 * stripped of its types by Node's WebAssembly type stripper, which then
 * stays loaded for the life of the process: after every change to the
 * sources (an upgrade, for one) the first start ran with about 24 MiB more
 * resident memory (128 MiB idle against 104 on the development machine)
 * until it was restarted. So when the sources changed since the cache was
 * last filled, a child process loads the modules without starting anything
 * (PARLEY_COMPILE_ONLY=1), writes their cache entries and exits; the server
 * then loads every module from the cache and never loads the stripper.
 *
 * Whether the sources changed is told by a stamp in the cache directory:
 * the newest modification time and the number of the .ts and .js files
 * under src/ (the .js ones include src/main.js, whose V8 flags every cached
 * compilation must have been made under).
 * A wrong answer costs only memory or one needless child, never
 * correctness: Node checks each entry against its source before using it.
 *
 * Plain JavaScript, like src/main.js, for the same reason.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SRC_DIR = fileURLToPath(new URL('..', import.meta.url));

/** A child that takes longer is stopped (it normally takes one to two seconds). */
const CHILD_TIMEOUT_MS = 120_000;

/** The stamp's file name in the versioned cache directory (module.getCompileCacheDir()). */
export const STAMP_FILE = 'parley-sources';

/**
 * Node's own diagnostic options, which the filling child must not repeat: a
 * second inspector would find the parent's port taken, and a second profile
 * would be written for a process nobody asked about. (They are Node's, not
 * V8's, so leaving them out does not change the compile cache's directory.)
 */
const DIAGNOSTIC_OPTION = /^--(inspect|inspect-brk|inspect-wait|inspect-port|debug-port|cpu-prof|heap-prof)(-dir|-name|-interval)?(=|$)/;
/** The ones of them that take their value as the next argument when written without "=". */
const TAKES_VALUE = /^--(inspect-port|debug-port|(cpu|heap)-prof-(dir|name|interval))$/;

/** The parent's Node options for the filling child: all but the diagnostic ones. */
export function childNodeArgs(execArgv = process.execArgv) {
  const out = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i];
    if (!DIAGNOSTIC_OPTION.test(arg)) out.push(arg);
    else if (TAKES_VALUE.test(arg)) i++;
  }
  return out;
}

/**
 * Node's NODE_OPTIONS for the filling child: the parent's, but the
 * diagnostic ones (as childNodeArgs). Read as Node reads it: options are
 * separated by spaces, double quotes group, and inside quotes a backslash
 * takes the next character as it is. Returns undefined for undefined.
 */
export function childNodeOptions(nodeOptions = process.env.NODE_OPTIONS) {
  if (nodeOptions === undefined) return undefined;
  const args = [];
  let current = null;
  let quoted = false;
  for (let i = 0; i < nodeOptions.length; i++) {
    let c = nodeOptions[i];
    if (c === '\\' && quoted && i + 1 < nodeOptions.length) c = nodeOptions[++i];
    else if (c === ' ' && !quoted) {
      if (current !== null) args.push(current);
      current = null;
      continue;
    } else if (c === '"') {
      quoted = !quoted;
      current ??= '';
      continue;
    }
    current = (current ?? '') + c;
  }
  if (current !== null) args.push(current);
  return childNodeArgs(args)
    .map((a) => (a === '' || /[ "\\]/.test(a) ? `"${a.replace(/["\\]/g, '\\$&')}"` : a))
    .join(' ');
}

/** "<newest mtime> <count>" of the .ts and .js files under dir. */
export function sourcesFingerprint(dir = SRC_DIR) {
  let newest = 0;
  let count = 0;
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.name.endsWith('.ts') || entry.name.endsWith('.js')) {
        newest = Math.max(newest, statSync(p).mtimeMs);
        count++;
      }
    }
  };
  walk(dir);
  return `${newest} ${count}`;
}

/**
 * Runs `entry` (src/main.js) in a child with PARLEY_COMPILE_ONLY=1 and the
 * same Node flags and NODE_OPTIONS (but the diagnostic ones, childNodeArgs
 * and childNodeOptions) when the stamp in
 * `cacheDir` does not match the sources, then records the stamp. A failed
 * child (or one stopped after CHILD_TIMEOUT_MS) is reported and otherwise
 * ignored: the server compiles what it needs itself, as before.
 */
export function warmCompileCache(cacheDir, entry) {
  const stampPath = join(cacheDir, STAMP_FILE);
  const fingerprint = sourcesFingerprint();
  let stamp = null;
  try {
    stamp = readFileSync(stampPath, 'utf8');
  } catch {
    // no stamp yet
  }
  if (stamp === fingerprint) return;
  try {
    execFileSync(process.execPath, [...childNodeArgs(), entry], {
      env: { ...process.env, NODE_OPTIONS: childNodeOptions(), PARLEY_COMPILE_ONLY: '1' },
      stdio: 'inherit',
      timeout: CHILD_TIMEOUT_MS,
    });
    writeFileSync(stampPath, fingerprint);
  } catch (err) {
    console.error(`Parley: filling the compile cache failed (${err?.message ?? err}); starting without it`);
  }
}
