/**
 * The Kysely bundle (vendor/build.ts) that src/main.js loads in place of the
 * package's modules: it exports what the package exports, with one copy of
 * each class, and is used only while it matches the installed version.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { NodeSqliteDatabase } from '../src/store/sqlite-driver.ts';
import { buildVendor, ENTRIES, installedVersion, isStale } from '../vendor/build.ts';

const root = join(import.meta.dirname, '..');

let hasBundler = true;
try {
  await import('rolldown');
} catch {
  hasBundler = false;
}

/** Runs `code` as an ES module in a child Node whose imports resolve from the project root; returns its stdout. */
function runModule(code: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' });
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourcesUnder(join(dir, e.name)) : /\.(ts|js)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

test('every Kysely module that src/ imports is an entry of the bundle', () => {
  const specifiers = new Set<string>();
  for (const file of sourcesUnder(join(root, 'src'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/from '(kysely(?:\/[^']*)?)'/g)) specifiers.add(m[1]!);
  }
  assert.ok(specifiers.has('kysely'));
  assert.deepEqual([...specifiers].filter((s) => !(s in ENTRIES)), []);
});

test('the bundle exports what Kysely exports, its two entries share the package internals, and it is used only while it matches the installed version', { skip: !hasBundler && 'the bundler (a devDependency) is not installed' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-vendor-'));
  try {
    const manifest = await buildVendor(dir);
    assert.equal(manifest.version, installedVersion());
    assert.equal(isStale(dir), false);
    // V8 keeps module source in the heap, at two bytes a character if any character is outside Latin-1.
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.js'))) assert.doesNotMatch(readFileSync(join(dir, file), 'utf8'), /[^\x00-\x7f]/, file);

    const url = (spec: string) => pathToFileURL(join(dir, ENTRIES[spec]!)).href;
    const bundled = (await import(url('kysely'))) as Record<string, unknown>;
    const bundledMigration = (await import(url('kysely/migration'))) as Record<string, unknown>;
    const original = (await import('kysely')) as Record<string, unknown>;
    const originalMigration = (await import('kysely/migration')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(bundled).sort(), Object.keys(original).sort());
    assert.deepEqual(Object.keys(bundledMigration).sort(), Object.keys(originalMigration).sort());
    assert.equal(typeof bundled.Kysely, 'function');
    assert.notEqual(bundled.Kysely, original.Kysely);

    // The two entries share the package's internals: the bundle's Migrator migrates through the bundle's Kysely.
    const { Kysely, SqliteDialect } = bundled as unknown as typeof import('kysely');
    const { Migrator } = bundledMigration as unknown as typeof import('kysely/migration');
    const db = new Kysely<Record<string, Record<string, unknown>>>({ dialect: new SqliteDialect({ database: new NodeSqliteDatabase(':memory:') }) });
    try {
      const migrator = new Migrator({
        db,
        provider: { getMigrations: async () => ({ '0001': { up: async (d) => void (await d.schema.createTable('t').addColumn('id', 'integer').execute()) } }) },
      });
      const { error, results } = await migrator.migrateToLatest();
      assert.equal(error, undefined);
      assert.deepEqual(results?.map((r) => [r.migrationName, r.status]), [['0001', 'Success']]);
      assert.deepEqual((await db.introspection.getTables()).map((t) => t.name), ['t']);
    } finally {
      await db.destroy();
    }

    // In a process that calls useVendorBundle (as src/main.js does), the package's specifiers resolve to the bundle.
    const dirUrl = pathToFileURL(dir + '/').href;
    const probe = (d: string) =>
      JSON.parse(
        runModule(
          `import { useVendorBundle } from './vendor/load.js';
           const used = useVendorBundle(new URL(${JSON.stringify(d)}));
           const { Kysely, sql } = await import('kysely');
           const { Migrator } = await import('kysely/migration');
           let other = null;
           try { import.meta.resolve('kysely/helpers/postgres'); } catch (e) { other = e.message; }
           console.log(JSON.stringify({ used, kysely: import.meta.resolve('kysely'), migration: import.meta.resolve('kysely/migration'),
             works: typeof Kysely === 'function' && typeof Migrator === 'function' && sql\`select 1\`.compile !== undefined, other }));`,
        ),
      ) as { used: boolean; kysely: string; migration: string; works: boolean; other: string | null };
    const inUse = probe(dirUrl);
    assert.deepEqual(inUse, {
      used: true,
      kysely: url('kysely'),
      migration: url('kysely/migration'),
      works: true,
      other: 'kysely/helpers/postgres is not in the vendor bundle: add it to ENTRIES in vendor/build.ts',
    });

    // Made in an older way: still used, but the next build replaces it.
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, build: undefined }));
    assert.equal(isStale(dir), true);
    assert.equal(probe(dirUrl).used, true);

    // Made from another version: not used (and the next build replaces it).
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, version: '0.0.1' }));
    assert.equal(isStale(dir), true);
    const stale = probe(dirUrl);
    assert.equal(stale.used, false);
    assert.match(stale.kysely, /\/node_modules\/kysely\//);
    assert.match(stale.migration, /\/node_modules\/kysely\//);
    assert.equal(stale.works, true);
    assert.equal(stale.other, null);

    // No bundle at all: the same.
    rmSync(dir, { recursive: true, force: true });
    assert.equal(isStale(dir), true);
    assert.equal(probe(dirUrl).used, false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
