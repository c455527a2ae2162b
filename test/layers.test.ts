/**
 * The import graph of src/: layers only point down and no module imports
 * itself back through a loop. See "Layers" in docs/DEVELOPING.md.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

/**
 * What each layer may import (besides itself). A layer is the first folder
 * under src/, or the file name for the files directly in src/.
 */
const MAY_IMPORT: Record<string, string[]> = {
  lib: ['config'],
  config: ['lib'],
  emoji: ['lib'],
  markdown: ['emoji', 'lib'],
  store: ['lib', 'config'],
  events: ['lib', 'config'],
  services: ['config', 'store', 'events', 'markdown', 'lib'],
  actions: ['state', 'services', 'store', 'events', 'markdown', 'emoji', 'lib', 'config'],
  state: ['actions', 'services', 'store', 'events', 'markdown', 'emoji', 'lib', 'config'],
  http: ['actions', 'state', 'services', 'store', 'events', 'markdown', 'emoji', 'lib', 'config'],
  server: ['http', 'actions', 'state', 'services', 'store', 'events', 'markdown', 'emoji', 'lib', 'config'],
  main: ['cli', 'server', 'http', 'actions', 'state', 'services', 'store', 'events', 'markdown', 'emoji', 'lib', 'config'],
  cli: ['server', 'http', 'actions', 'state', 'services', 'store', 'events', 'markdown', 'emoji', 'lib', 'config'],
};

/** Routes and the store never meet: SQL stays below the actions. */
const FORBIDDEN_FILES: Array<[RegExp, RegExp]> = [[/^http\/routes\//, /^store\/(?!.*types)/]];

/** The files under dir whose names match (the TypeScript modules by default). */
function files(dir: string, name: RegExp = /\.ts$/): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name), name) : name.test(e.name) ? [join(dir, e.name)] : [],
  );
}

function layerOf(rel: string): string {
  const first = rel.split('/')[0]!;
  return first.endsWith('.ts') ? first.slice(0, -3) : first;
}

/** module (path relative to src) -> modules it imports (type imports included). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets: string[] = [];
    for (const m of text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']+)'|^\s*import\s+'(\.[^']+)'/gm)) {
      targets.push(relative(SRC, resolve(dirname(file), (m[1] ?? m[2])!)));
    }
    graph.set(relative(SRC, file), targets);
  }
  return graph;
}

test('layers only import downwards', () => {
  const bad: string[] = [];
  for (const [from, targets] of importGraph()) {
    const layer = layerOf(from);
    const allowed = MAY_IMPORT[layer];
    assert.ok(allowed, `no layer rule for src/${from} (add "${layer}" to MAY_IMPORT)`);
    for (const to of targets) {
      const target = layerOf(to);
      if (target !== layer && !allowed.includes(target)) bad.push(`src/${from} -> src/${to}`);
      for (const [a, b] of FORBIDDEN_FILES) if (a.test(from) && b.test(to)) bad.push(`src/${from} -> src/${to}`);
    }
  }
  assert.deepEqual(bad, [], 'imports that point up a layer (move the shared piece to src/lib or down a layer)');
});

test('no import loops', () => {
  const graph = importGraph();
  const loops: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (m: string): void => {
    state.set(m, 'open');
    stack.push(m);
    for (const t of graph.get(m) ?? []) {
      if (state.get(t) === 'open') loops.push(stack.slice(stack.indexOf(t)).concat(t).join(' -> '));
      else if (!state.has(t)) visit(t);
    }
    stack.pop();
    state.set(m, 'done');
  };
  for (const m of [...graph.keys()].sort()) if (!state.has(m)) visit(m);
  assert.deepEqual(loops, [], 'import loops (move the shared piece into a module both can import)');
});

test('SQL stays in the store', () => {
  const leaks: string[] = [];
  for (const file of files(SRC)) {
    const rel = relative(SRC, file);
    if (layerOf(rel) === 'store') continue;
    const text = readFileSync(file, 'utf8');
    if (/^import\s+\{[^}]*\bsql\b[^}]*\}\s+from\s+'kysely'/m.test(text)) leaks.push(`src/${rel}: imports kysely's sql`);
    for (const m of text.matchAll(/\.(selectFrom|insertInto|updateTable|deleteFrom)\(/g)) leaks.push(`src/${rel}: .${m[1]}(`);
  }
  assert.deepEqual(leaks, [], 'queries outside src/store (add a store function instead)');
});

test('the checker sees a reverse import', () => {
  // A guard against the regex going blind: the layer rules reject store -> actions.
  assert.ok(!MAY_IMPORT.store!.includes('actions'));
  const graph = importGraph();
  assert.ok((graph.get('actions/messages.ts') ?? []).some((t) => t.startsWith('store/')), 'actions/messages.ts imports the store');
});

test('source files keep to Latin-1', () => {
  // V8 keeps every loaded module's source text in the heap for the life of
  // the process, at two bytes a character when any one character lies
  // outside Latin-1. Write such characters in strings as \u escapes.
  const wide: string[] = [];
  const sources = files(SRC, /\.(ts|js)$/);
  assert.ok(sources.some((f) => f.endsWith('main.js')));
  for (const file of sources) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (/[^\x00-\xff]/.test(line)) wide.push(`src/${relative(SRC, file)}:${i + 1}`);
    });
  }
  assert.deepEqual(wide, [], 'characters outside Latin-1');
});
