/**
 * The SQLite checkpointer (see NodeSqliteDatabase in sqlite-driver.ts):
 * copies the write-ahead log into the database file every `intervalMs` from
 * its own connection, so that copying and the fsyncs it needs never block
 * the request thread. PASSIVE checkpoints never wait for readers or writers.
 *
 * Plain JavaScript on purpose (like src/main.js): a worker thread whose
 * script is TypeScript loads Node's type stripper (a WebAssembly module of
 * about 17 MiB) whenever the compile cache has no entry for it, for the
 * life of the thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DatabaseSync } from 'node:sqlite';

const { path, intervalMs } = workerData;
const db = new DatabaseSync(path);
db.exec('PRAGMA busy_timeout = 1000');

const timer = setInterval(() => {
  try {
    db.exec('PRAGMA wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or locked: the next tick tries again.
  }
}, intervalMs);

parentPort.on('message', (msg) => {
  if (msg !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
