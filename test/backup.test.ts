/**
 * `npm run admin -- backup FILE`: a consistent SQLite snapshot taken while
 * the server runs and writes; the copy opens, passes PRAGMA integrity_check
 * and holds the messages acknowledged before the backup began.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatabaseSync } from 'node:sqlite';
import { childEnv, startTestServer, assertSuccess, type TestServer } from './helpers.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

let t: TestServer;
let out: string;
before(async () => {
  t = await startTestServer();
  out = mkdtempSync(join(tmpdir(), 'parley-backup-'));
});
after(async () => {
  await t.close();
  rmSync(out, { recursive: true, force: true });
});

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const cfg = t.server.svc.config;
  const env: Record<string, string> = {
    DATA_DIR: cfg.dataDir,
    ...(cfg.databaseUrl ? { DATABASE_URL: cfg.databaseUrl } : {}),
    ...(cfg.pgSchema ? { PARLEY_PG_SCHEMA: cfg.pgSchema } : {}),
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [join(root, 'src/cli/admin.ts'), ...args], { env: childEnv(env), cwd: root }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

test('backup under write load: the copy opens, passes integrity_check and has the acknowledged messages', async (ctx) => {
  if (t.server.svc.store.dialect !== 'sqlite') {
    const r = await cli('backup', join(out, 'pg.sqlite3'));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /PostgreSQL: back it up with pg_dump/);
    ctx.diagnostic('PostgreSQL: the command points to pg_dump');
    return;
  }
  const owner = t.client(t.owner);
  const before = assertSuccess(await owner.post('/messages', { type: 'stream', to: 'general', topic: 'backup', content: 'before the backup' }));
  let writing = true;
  let written = 0;
  const writers = Array.from({ length: 4 }, async (_, w) => {
    while (writing) {
      assertSuccess(await owner.post('/messages', { type: 'stream', to: 'general', topic: 'load', content: `writer ${w} message ${written++}` }));
    }
  });
  const file = join(out, 'parley-backup.sqlite3');
  const r = await cli('backup', file);
  writing = false;
  await Promise.all(writers);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Backup written to .*parley-backup\.sqlite3 \(\d+ bytes, integrity check ok\)\n$/);
  assert.ok(written > 0, 'messages were being written during the backup');
  assert.equal(statSync(file).mode & 0o777, 0o600);

  const db = new DatabaseSync(file, { readOnly: true });
  try {
    assert.deepEqual(db.prepare('PRAGMA integrity_check').all().map((r) => ({ ...r })), [{ integrity_check: 'ok' }]);
    assert.deepEqual(db.prepare('PRAGMA foreign_key_check').all(), []);
    const row = db.prepare('SELECT content FROM messages WHERE id = ?').get(before.id) as { content: string } | undefined;
    assert.equal(row?.content, 'before the backup');
    const users = db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number };
    assert.ok(users.n >= 1);
  } finally {
    db.close();
  }

  // An existing file is never overwritten.
  const again = await cli('backup', file);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /already exists/);
  const usage = await cli('backup');
  assert.equal(usage.code, 2);
});
