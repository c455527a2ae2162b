/**
 * The SQLite checkpointer (see NodeSqliteDatabase in sqlite-driver.ts):
 * copies the write-ahead log into the database file every `intervalMs` from
 * its own connection, so that copying and the fsyncs it needs never block
 * the request thread. PASSIVE checkpoints never wait for readers or writers.
 *
 * A checkpoint copies the log but does not shorten it: SQLite starts the log
 * over only when a write transaction begins while every frame is already
 * copied. Under steady writes that never happens (the group commit begins
 * each transaction as soon as the last one ends, and the checkpoint is always
 * a little behind), so once the log holds `restartBytes` this thread posts
 * 'full'. The request thread then waits before its next transaction and asks
 * for a checkpoint ({ checkpoint: n }); this thread copies what is left and
 * answers { checkpointed: n }, and the transaction that follows starts the
 * log over.
 *
 * Once it has had nothing to copy for `idleMs` (no frame written to the log
 * since its last checkpoint, and every frame copied), it ends: the request
 * thread starts it again after more writes (sqlite-driver.ts).
 *
 * Plain JavaScript on purpose (like src/main.js): a worker thread whose
 * script is TypeScript loads Node's type stripper (a WebAssembly module of
 * about 17 MiB) whenever the compile cache has no entry for it, for the
 * life of the thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DatabaseSync } from 'node:sqlite';

const { path, intervalMs, restartBytes, idleMs } = workerData;
const db = new DatabaseSync(path);
db.exec('PRAGMA busy_timeout = 1000');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const frameBytes = Number(db.prepare('PRAGMA page_size').get().page_size) + 24;
/** 'full' was posted and no 'checkpoint' has come since. */
let asked = false;
/** The log's frames at the last checkpoint, and since when it has not grown with every frame copied. */
let lastLog = -1;
let quietSince = Date.now();

/** Frames in the log as the checkpoint began; null when it could not run. */
function passive() {
  try {
    const r = checkpoint.get();
    const log = Number(r.log);
    if (log !== lastLog || Number(r.checkpointed) !== log) quietSince = Date.now();
    lastLog = log;
    return log;
  } catch {
    quietSince = Date.now();
    return null; // busy or locked: the next tick tries again
  }
}

function stop() {
  clearInterval(timer);
  db.close();
  parentPort.close();
}

const timer = setInterval(() => {
  if (!asked && Date.now() - quietSince >= idleMs) return stop();
  let frames = passive();
  if (!asked && frames !== null && frames * frameBytes >= restartBytes) {
    // Copy what was written meanwhile, so that little is left for the checkpoint the request thread waits for.
    for (let i = 0, prev = -1; i < 4 && frames !== null && frames !== prev; i++) {
      prev = frames;
      frames = passive();
    }
    asked = true;
    parentPort.postMessage('full');
  }
}, intervalMs);

parentPort.on('message', (msg) => {
  if (typeof msg === 'object' && msg.checkpoint !== undefined) {
    passive();
    asked = false;
    parentPort.postMessage({ checkpointed: msg.checkpoint });
    return;
  }
  if (msg === 'stop') stop();
});
