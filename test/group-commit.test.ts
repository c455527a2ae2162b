/**
 * SQLite's group commit (src/store/db.ts): transactions that arrive together
 * share one COMMIT, yet each one still commits or rolls back on its own, runs
 * in its caller's async context, and settles only once its writes are
 * durable. PostgreSQL runs each transaction on its own connection, so these
 * tests are SQLite's alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { closeSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { sql } from 'kysely';
import { openStore, transaction, type Store } from '../src/store/db.ts';
import { NodeSqliteDatabase } from '../src/store/sqlite-driver.ts';

const skip = process.env.TEST_DATABASE_URL ? 'group commit is SQLite only' : false;

async function withStore(fn: (store: Store, file: string) => Promise<void>, opts: { walRestartBytes?: number } = {}): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-group-'));
  const store = openStore({ dataDir, ...opts });
  try {
    await sql`CREATE TABLE probe (id INTEGER PRIMARY KEY, v TEXT NOT NULL)`.execute(store.db);
    await fn(store, join(dataDir, 'parley.sqlite3'));
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

test('concurrent transactions: a failing one is rolled back alone, the others commit', { skip }, async () => {
  await withStore(async (store) => {
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        transaction(store, async (tx) => {
          await sql`INSERT INTO probe (v) VALUES (${`row ${i}`})`.execute(tx);
          // Give others the chance to queue behind this one.
          await new Promise((r) => setImmediate(r));
          if (i === 7) throw new Error('seven fails');
          return i;
        }),
      ),
    );
    for (const [i, r] of results.entries()) {
      if (i === 7) {
        assert.equal(r.status, 'rejected');
        assert.equal((r as PromiseRejectedResult).reason.message, 'seven fails');
      } else {
        assert.deepEqual(r, { status: 'fulfilled', value: i });
      }
    }
    const rows = await sql<{ v: string }>`SELECT v FROM probe ORDER BY id`.execute(store.db);
    assert.deepEqual(
      rows.rows.map((r) => r.v),
      Array.from({ length: 20 }, (_, i) => `row ${i}`).filter((v) => v !== 'row 7'),
    );
  });
});

test('a transaction settles only after its commit: another connection already sees its rows', { skip }, async () => {
  await withStore(async (store, file) => {
    const other = new DatabaseSync(file);
    try {
      const seen = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          transaction(store, async (tx) => {
            await sql`INSERT INTO probe (v) VALUES (${`x${i}`})`.execute(tx);
          }).then(() => (other.prepare('SELECT v FROM probe WHERE v = ?').get(`x${i}`) as { v: string } | undefined)?.v),
        ),
      );
      assert.deepEqual(seen, ['x0', 'x1', 'x2', 'x3', 'x4']);
    } finally {
      other.close();
    }
  });
});

test('each transaction runs in the async context of its caller', { skip }, async () => {
  await withStore(async (store) => {
    const als = new AsyncLocalStorage<string>();
    const seen = await Promise.all(
      ['a', 'b', 'c', 'd'].map((name) =>
        als.run(name, () =>
          transaction(store, async (tx) => {
            await sql`INSERT INTO probe (v) VALUES (${name})`.execute(tx);
            return als.getStore();
          }),
        ),
      ),
    );
    assert.deepEqual(seen, ['a', 'b', 'c', 'd']);
  });
});

test('a transaction after a failed one starts clean', { skip }, async () => {
  await withStore(async (store) => {
    await assert.rejects(
      transaction(store, async (tx) => {
        await sql`INSERT INTO probe (v) VALUES ('gone')`.execute(tx);
        await sql`INSERT INTO probe (id, v) VALUES (NULL, NULL)`.execute(tx); // NOT NULL violation
      }),
      /NOT NULL/,
    );
    await transaction(store, async (tx) => {
      await sql`INSERT INTO probe (v) VALUES ('kept')`.execute(tx);
    });
    const rows = await sql<{ v: string }>`SELECT v FROM probe ORDER BY id`.execute(store.db);
    assert.deepEqual(rows.rows.map((r) => r.v), ['kept']);
  });
});

test('a full database: the transactions that fail say so, none of their rows stay, and later ones commit', { skip }, async () => {
  await withStore(async (store) => {
    // SQLite answers as for a full disk once the file would pass max_page_count.
    const pages = (await sql<{ page_count: number }>`PRAGMA page_count`.execute(store.db)).rows[0]!.page_count;
    await sql.raw(`PRAGMA max_page_count = ${pages + 8}`).execute(store.db);
    const big = 'x'.repeat(12_000); // three pages or more a row
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        transaction(store, async (tx) => {
          await sql`INSERT INTO probe (v) VALUES (${`${i} ${big}`})`.execute(tx);
          await new Promise((r) => setImmediate(r));
          return i;
        }),
      ),
    );
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.ok(failed.length > 0, 'some transaction did not fit');
    for (const r of failed) assert.match(r.reason.message, /database or disk is full/);
    const committed = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const kept = (await sql<{ v: string }>`SELECT v FROM probe ORDER BY id`.execute(store.db)).rows.map((r) => Number(r.v.split(' ')[0]));
    assert.deepEqual(kept, committed);
    // Room again: the next transactions commit.
    await sql`PRAGMA max_page_count = 1073741823`.execute(store.db);
    await Promise.all([0, 1].map((n) => transaction(store, (tx) => sql`INSERT INTO probe (v) VALUES (${`after ${n}`})`.execute(tx))));
    const after = (await sql<{ v: string }>`SELECT v FROM probe WHERE v LIKE 'after %' ORDER BY v`.execute(store.db)).rows.map((r) => r.v);
    assert.deepEqual(after, ['after 0', 'after 1']);
  });
});

/** The write-ahead log header's checkpoint sequence number: SQLite adds one each time it starts the log over. */
function logRestarts(file: string): number {
  const header = Buffer.alloc(32);
  const fd = openSync(`${file}-wal`, 'r');
  try {
    if (readSync(fd, header, 0, 32, 0) < 32) return 0;
  } finally {
    closeSync(fd);
  }
  return header.readUInt32BE(12);
}

test('under writes that never pause, the log is still started over once it is long, and no write is lost', { skip }, async () => {
  await withStore(
    async (store, file) => {
      let committed = 0;
      let stop = false;
      const writer = async () => {
        while (!stop) {
          await transaction(store, async (tx) => {
            for (let i = 0; i < 10; i++) await sql`INSERT INTO probe (v) VALUES (${randomBytes(400).toString('hex')})`.execute(tx);
          });
          committed += 10;
        }
      };
      // Eight writers keep the group commit busy: each transaction begins as the last one ends.
      const writers = Array.from({ length: 8 }, writer);
      const first = logRestarts(file);
      const deadline = Date.now() + 20_000;
      let restarts = 0;
      while (restarts < 3 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        restarts = logRestarts(file) - first;
      }
      stop = true;
      await Promise.all(writers);
      assert.ok(restarts >= 3, `the log was started over ${restarts} times in 20 s of writes`);
      const count = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM probe`.execute(store.db);
      assert.equal(Number(count.rows[0]!.n), committed);
    },
    { walRestartBytes: 256 * 1024 },
  );
});

test('the checkpoint thread starts after 100 writes that changed rows, ends once it has had nothing to copy, and starts again after as many', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-checkpointer-'));
  const db = new NodeSqliteDatabase(join(dir, 'parley.sqlite3'), { checkpointerIdleMs: 300 });
  const write = (n: number) => {
    for (let i = 0; i < n; i++) db.prepare('INSERT INTO probe (v) VALUES (?)').run([randomBytes(200).toString('hex')]);
  };
  try {
    db.prepare('CREATE TABLE probe (id INTEGER PRIMARY KEY, v TEXT NOT NULL)').run([]);
    // Writes that find nothing to change (a quiet server's background jobs) do not count.
    for (let i = 0; i < 150; i++) db.prepare('DELETE FROM probe WHERE id < 0').run([]);
    for (let i = 0; i < 150; i++) db.prepare('UPDATE probe SET v = ? WHERE id < 0 RETURNING id').all(['x']);
    assert.equal(db.checkpointerRunning, false, 'not for writes that changed nothing');
    write(99);
    assert.equal(db.checkpointerRunning, false, 'not before 100 writes');
    write(1);
    assert.equal(db.checkpointerRunning, true);
    const deadline = Date.now() + 10_000;
    while (db.checkpointerRunning && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(db.checkpointerRunning, false, 'it ended after a quiet spell');
    write(99);
    assert.equal(db.checkpointerRunning, false, 'not again before 100 more writes');
    write(1);
    assert.equal(db.checkpointerRunning, true, 'again after 100 more');
    assert.deepEqual(db.prepare('SELECT COUNT(*) AS n FROM probe').all([]), [{ n: 200 }]);
  } finally {
    await db.stopBackground();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
