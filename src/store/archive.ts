/**
 * Organization archives: one gzip-compressed tar file holding every table
 * of the database as JSON Lines and the files under DATA_DIR (uploads, and
 * the public images: avatars, custom emoji, the organization's icon and
 * logos). Written while the server runs (one read transaction, so the rows
 * are one consistent snapshot), read back into an empty Parley on either
 * backend with every ID kept.
 *
 * Layout (README.md, "Moving an organization", describes it for operators):
 *   manifest.json                    format, version, migrations, tables with columns and row counts
 *   tables/<table>/<000001>.jsonl    up to BATCH rows per entry, one JSON object per line, in key order
 *   files/uploads/<path_id>          uploaded files
 *   files/avatars/<path>             avatars, custom emoji, organization icon and logos
 * Tables come parents first, so an import inserts them in archive order.
 */
import { createReadStream, createWriteStream, existsSync, readdirSync, renameSync, rmSync, statSync, mkdirSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import type tar from 'tar-stream';
import type { RawBuilder } from 'kysely';
import type { Store } from './db.ts';
import {
  appliedMigrations,
  archivedTables,
  countRows,
  databaseIsEmpty,
  deferForeignKeys,
  insertRows,
  readColumn,
  readRows,
  resetSequences,
  scopeCondition,
  type ArchiveScope,
  type Row,
  type TableInfo,
} from './archive-tables.ts';
import { chmodPrivate, PRIVATE_DIR_MODE } from '../lib/private-files.ts';
import { PARLEY_VERSION } from '../lib/version.ts';
import { newApiKey } from '../lib/util.ts';
import { lazyModule } from '../lib/lazy.ts';

// Loaded by the first export or import, not by every server start.
const tarStream = lazyModule<typeof import('tar-stream')>('tar-stream');

export const ARCHIVE_FORMAT = 'parley-organization-archive';
export const ARCHIVE_VERSION = 1;
/** Rows per table entry: the most an export or import holds in memory of one table. */
export const BATCH = 1000;
/** The folders of DATA_DIR an archive carries. */
export const FILE_DIRS = ['uploads', 'avatars'] as const;

export class ArchiveError extends Error {}

export interface Manifest {
  format: typeof ARCHIVE_FORMAT;
  version: number;
  parley_version: string;
  /** UNIX seconds. */
  created: number;
  /** The backend it was written from (informational: archives move between backends). */
  dialect: string;
  scope: ArchiveScope['kind'];
  /** Migrations of the database it was written from; an import needs the same. */
  migrations: string[];
  tables: Array<{ name: string; columns: string[]; rows: number }>;
  /** Files planned; the archive holds at most this many (one deleted meanwhile is skipped). */
  files: number;
}

/** Progress of a long export or import: `done` out of `total` units (rows and files, or bytes). */
export type ProgressFn = (done: number, total: number) => void;

export interface WriteOptions {
  store: Store;
  dataDir: string;
  /** Where to write; a `.partial` file beside it until complete. */
  file: string;
  scope: ArchiveScope;
  /** Rows per table entry (default BATCH). */
  batch?: number;
  /** Replaces every API key by a fresh random one (archives that administrators download carry no usable credentials). */
  replaceApiKeys?: boolean;
  onProgress?: ProgressFn;
}

function walk(root: string): string[] {
  if (!existsSync(root)) return [];
  const out: string[] = [];
  const visit = (dir: string) => {
    for (const ent of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, ent.name);
      if (ent.isDirectory()) visit(full);
      else if (ent.isFile()) out.push(relative(root, full).split(sep).join('/'));
    }
  };
  visit(root);
  return out.sort();
}

function addEntry(pack: tar.Pack, name: string, data: Buffer): Promise<void> {
  return new Promise((res, rej) => pack.entry({ name, size: data.length, mode: 0o600 }, data, (err) => (err ? rej(err) : res())));
}

/** Adds one file from disk, streamed; false when it vanished meanwhile (deleted after the snapshot). */
async function addFile(pack: tar.Pack, name: string, path: string): Promise<boolean> {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) return false;
    size = st.size;
  } catch {
    return false;
  }
  if (size === 0) {
    await addEntry(pack, name, Buffer.alloc(0));
    return true;
  }
  await new Promise<void>((res, rej) => {
    const entry = pack.entry({ name, size, mode: 0o600 }, (err) => (err ? rej(err) : res()));
    // Exactly the size announced in the header, even if the file grows meanwhile.
    pipeline(createReadStream(path, { start: 0, end: size - 1 }), entry).catch(rej);
  });
  return true;
}

/** Writes the archive of the database and files; returns its size and contents. */
export async function writeArchive(opts: WriteOptions): Promise<{ bytes: number; rows: number; files: number }> {
  const partial = `${opts.file}.partial`;
  rmSync(partial, { force: true });
  const pack = tarStream().pack();
  const written = pipeline(pack, createGzip(), createWriteStream(partial, { mode: 0o600 }));
  let rowsDone = 0;
  let filesDone = 0;
  const work = async () => {
    const snapshot = opts.store.dialect === 'postgres' ? opts.store.db.transaction().setIsolationLevel('repeatable read') : opts.store.db.transaction();
    await snapshot.execute(async (tx) => {
      const tables = await archivedTables(tx, opts.store.dialect);
      const plan: Array<{ table: TableInfo; cond: RawBuilder<unknown> | null; rows: number }> = [];
      for (const table of tables) {
        const cond = scopeCondition(opts.scope, table.name);
        if (cond === false) continue;
        plan.push({ table, cond, rows: await countRows(tx, table, cond) });
      }
      const attachments = tables.find((t) => t.name === 'attachments');
      const uploadsCond = opts.scope.kind === 'full' ? null : attachments ? scopeCondition(opts.scope, 'attachments') : false;
      const avatarFiles = walk(join(opts.dataDir, 'avatars'));
      const uploadFiles = opts.scope.kind === 'full' ? walk(join(opts.dataDir, 'uploads')) : null;
      const scopedUploads = uploadFiles === null && attachments && uploadsCond !== false ? await countRows(tx, attachments, uploadsCond) : 0;
      const fileCount = avatarFiles.length + (uploadFiles?.length ?? scopedUploads);
      const totalRows = plan.reduce((n, p) => n + p.rows, 0);
      const total = totalRows + fileCount;
      const manifest: Manifest = {
        format: ARCHIVE_FORMAT,
        version: ARCHIVE_VERSION,
        parley_version: PARLEY_VERSION,
        created: Math.floor(Date.now() / 1000),
        dialect: opts.store.dialect,
        scope: opts.scope.kind,
        migrations: await appliedMigrations(tx),
        tables: plan.map((p) => ({ name: p.table.name, columns: p.table.columns, rows: p.rows })),
        files: fileCount,
      };
      await addEntry(pack, 'manifest.json', Buffer.from(JSON.stringify(manifest, null, 2) + '\n'));
      opts.onProgress?.(0, total);
      for (const { table, cond } of plan) {
        let seq = 0;
        for await (const page of readRows(tx, table, cond, opts.batch ?? BATCH)) {
          const lines = page.map((r) => JSON.stringify(opts.replaceApiKeys && table.name === 'users' ? { ...r, api_key: newApiKey() } : r));
          await addEntry(pack, `tables/${table.name}/${String(++seq).padStart(6, '0')}.jsonl`, Buffer.from(lines.join('\n') + '\n'));
          rowsDone += page.length;
          opts.onProgress?.(rowsDone + filesDone, total);
        }
      }
      const addDir = async (dir: string, paths: Iterable<string> | AsyncIterable<string[]>) => {
        const root = join(opts.dataDir, dir);
        const one = async (p: string) => {
          if (await addFile(pack, `files/${dir}/${p}`, join(root, p))) filesDone++;
          opts.onProgress?.(rowsDone + filesDone, total);
        };
        if (Symbol.asyncIterator in paths) {
          for await (const page of paths) for (const p of page) await one(p);
        } else for (const p of paths) await one(p);
      };
      await addDir('avatars', avatarFiles);
      if (uploadFiles) await addDir('uploads', uploadFiles);
      else if (attachments && uploadsCond !== false) await addDir('uploads', readColumn(tx, attachments, 'path_id', uploadsCond, opts.batch ?? BATCH));
    });
    pack.finalize();
  };
  try {
    await Promise.all([work().catch((e) => { pack.destroy(e as Error); throw e; }), written]);
  } catch (e) {
    rmSync(partial, { force: true });
    throw e;
  }
  renameSync(partial, opts.file);
  chmodPrivate(opts.file);
  return { bytes: statSync(opts.file).size, rows: rowsDone, files: filesDone };
}

// ---------------------------------------------------------------------------
// Import

export interface ReadOptions {
  store: Store;
  dataDir: string;
  file: string;
  /** Progress in bytes of the (compressed) archive read. */
  onProgress?: ProgressFn;
}

async function entryBuffer(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function dirHasFiles(dir: string): boolean {
  return existsSync(dir) && walk(dir).length > 0;
}

/** Checks that the database and DATA_DIR hold nothing an import would mix with. */
export async function checkEmptyTarget(store: Store, dataDir: string): Promise<void> {
  if (!(await databaseIsEmpty(store.db))) {
    throw new ArchiveError(
      'this Parley is not empty (it has an organization or users): import into a fresh DATA_DIR, or an empty PostgreSQL database or schema, before the server has started on it',
    );
  }
  for (const dir of FILE_DIRS) {
    if (dirHasFiles(join(dataDir, dir))) throw new ArchiveError(`this Parley is not empty: ${join(dataDir, dir)} holds files`);
  }
}

/** Restores an archive into an empty database and DATA_DIR; returns what it restored. */
export async function importArchive(opts: ReadOptions): Promise<{ tables: number; rows: number; files: number; manifest: Manifest }> {
  await checkEmptyTarget(opts.store, opts.dataDir);
  const ours = await appliedMigrations(opts.store.db);
  const size = statSync(opts.file).size;
  const staging = join(opts.dataDir, `.import-${randomBytes(6).toString('hex')}`);
  mkdirSync(staging, { recursive: true, mode: PRIVATE_DIR_MODE });
  const extract = tarStream().extract();
  let unpacked: Promise<void> = Promise.resolve();
  /** Starts reading the file; called right before the entries are consumed (nothing may flow past them). */
  const startReading = () => {
    const source = createReadStream(opts.file);
    let read = 0;
    source.on('data', (chunk) => {
      read += chunk.length;
      opts.onProgress?.(read, size);
    });
    unpacked = pipeline(source, createGunzip(), extract);
    unpacked.catch(() => {}); // reported by the loop (the extract stream is destroyed) and awaited below
  };
  let manifest: Manifest | null = null;
  let rows = 0;
  let files = 0;
  const counts = new Map<string, number>();
  const work = async () => {
    await opts.store.db.transaction().execute(async (tx) => {
      await deferForeignKeys(tx, opts.store.dialect);
      const tables = new Map((await archivedTables(tx, opts.store.dialect)).map((t) => [t.name, t]));
      startReading();
      for await (const entry of extract) {
        const name = entry.header.name;
        if (!manifest) {
          if (name !== 'manifest.json') throw new ArchiveError('not a Parley archive (no manifest.json first)');
          manifest = JSON.parse((await entryBuffer(entry)).toString('utf8')) as Manifest;
          if (manifest.format !== ARCHIVE_FORMAT) throw new ArchiveError('not a Parley archive');
          if (manifest.version !== ARCHIVE_VERSION) throw new ArchiveError(`archive format version ${manifest.version} is not supported (this Parley reads version ${ARCHIVE_VERSION})`);
          if (manifest.migrations.join('\n') !== ours.join('\n')) {
            throw new ArchiveError(
              `the archive was written by a Parley with another database schema (Parley ${manifest.parley_version}, ${manifest.migrations.length} migrations; this one has ${ours.length}): import it with the same version of Parley`,
            );
          }
          continue;
        }
        const tableMatch = /^tables\/([a-z0-9_]+)\/\d+\.jsonl$/.exec(name);
        if (tableMatch) {
          const table = tables.get(tableMatch[1]!);
          if (!table) throw new ArchiveError(`the archive has a table this Parley does not: ${tableMatch[1]}`);
          const text = (await entryBuffer(entry)).toString('utf8');
          const list = text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Row);
          await insertRows(tx, table, list);
          rows += list.length;
          counts.set(table.name, (counts.get(table.name) ?? 0) + list.length);
          continue;
        }
        const fileMatch = /^files\/(uploads|avatars)\/(.+)$/.exec(name);
        if (fileMatch && entry.header.type === 'file') {
          const root = resolve(staging, fileMatch[1]!);
          const target = resolve(root, fileMatch[2]!);
          if (!target.startsWith(root + sep)) throw new ArchiveError(`unsafe file name in the archive: ${name}`);
          await mkdir(dirname(target), { recursive: true, mode: PRIVATE_DIR_MODE });
          await pipeline(entry as unknown as NodeJS.ReadableStream, createWriteStream(target, { mode: 0o600 }));
          files++;
          continue;
        }
        throw new ArchiveError(`unexpected entry in the archive: ${name}`);
      }
      if (!manifest) throw new ArchiveError('not a Parley archive (empty)');
      for (const t of (manifest as Manifest).tables) {
        if ((counts.get(t.name) ?? 0) !== t.rows) throw new ArchiveError(`the archive is incomplete: table ${t.name} has ${counts.get(t.name) ?? 0} rows of ${t.rows}`);
      }
      // Files may be fewer than announced: one deleted between the snapshot and its turn is skipped by the writer.
      if (files > (manifest as Manifest).files) throw new ArchiveError(`the archive is damaged: ${files} files of ${(manifest as Manifest).files}`);
      await resetSequences(tx, opts.store.dialect, [...tables.values()]);
    });
  };
  try {
    await work().catch((e) => {
      extract.destroy(e as Error);
      throw e;
    });
    await unpacked;
    for (const dir of FILE_DIRS) {
      const from = join(staging, dir);
      if (!existsSync(from)) continue;
      rmSync(join(opts.dataDir, dir), { recursive: true, force: true });
      renameSync(from, join(opts.dataDir, dir));
    }
  } catch (e) {
    if (e instanceof SyntaxError) throw new ArchiveError(`the archive is damaged: ${e.message}`);
    if ((e as { code?: string }).code === 'Z_DATA_ERROR' || (e as { code?: string }).code === 'Z_BUF_ERROR') throw new ArchiveError('not a gzip-compressed Parley archive');
    throw e;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return { tables: (manifest as Manifest | null)?.tables.length ?? 0, rows, files, manifest: manifest! };
}
