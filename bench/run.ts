/**
 * `npm run bench`: Parley against a bare node:http server, on loopback.
 *
 * Starts both as child processes of this Node (process.execPath): Parley on a
 * fresh temporary DATA_DIR (SQLite, or PostgreSQL in a fresh schema when
 * BENCH_DATABASE_URL is set) and bench/bare-server.mjs. For each scenario it
 * drives both with autocannon (in this process) for a warm-up and then for
 * a measured time at fixed connections, taken in slices that alternate
 * between the two servers (so that a change in the machine's speed during
 * the scenario weighs on both alike), and reports
 * requests/s, p50 and p99 latency and the Parley/bare ratios, plus the
 * resident memory (VmRSS) of both servers after start and after the load.
 * Results are printed as a table and written to .bench/results.json.
 *
 * Settings (environment):
 *   BENCH_DURATION      measured seconds per scenario and server (default 5)
 *   BENCH_SLICES        slices the measured time of each server is cut into, alternating
 *                       Parley and bare (default 3)
 *   BENCH_WARMUP        warm-up seconds before each measured run (default 1)
 *   BENCH_CONNECTIONS   concurrent connections (default 10)
 *   BENCH_SCENARIOS     comma-separated scenario names to run (default: all)
 *   BENCH_DATABASE_URL  run Parley on this PostgreSQL database (own schema)
 *   BENCH_REDIS_URL     with BENCH_DATABASE_URL: also compare one process with
 *                       PARLEY_WORKERS=2 on PostgreSQL + Redis (bench/scaleout.ts)
 *   BENCH_PARLEY_NODE_ARGS  extra node flags for Parley, e.g. "--cpu-prof --cpu-prof-dir=.bench/prof"
 *   BENCH_REQUESTS_ONLY=1   skip the fan-out, queue-memory and long-history figures
 *   BENCH_CHILD_LOG=PATH    append each server's output lines to PATH.parley and PATH.bare
 *   BENCH_STARTUP_ONLY=1    only the cold start and the idle memory (no load): a quick check of both
 *   BENCH_SETTLE_SECONDS    seconds after which the memory is read again, idle after start and after
 *                           the load (default 15; 0 skips these readings)
 *   BENCH_MEMORY_DETAIL=1   with each reading of Parley's memory, where it is (from /proc/<pid>/smaps)
 *   BENCH_FANOUT_USERS, BENCH_FANOUT_MESSAGES, BENCH_FANOUT_WARMUP, BENCH_QUEUES, BENCH_SMALL_HISTORY,
 *   BENCH_BIG_HISTORY  sizes of those figures (1000, 20, 1, 10000, 10000, 1000000)
 *
 * To add a scenario, append to SCENARIOS below. A scenario whose endpoint
 * answers 404 (not implemented yet) is skipped with a note.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { DatabaseSync } from 'node:sqlite';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { LongPoller } from './long-poller.ts';
import { runScaleOut, type ScaleOutResult } from './scaleout.ts';
import { useUnicodeLower } from '../src/store/sqlite-driver.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');

// ---------------------------------------------------------------------------
// Scenarios

export interface Scenario {
  name: string;
  description: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Full request path, including /api/v1. */
  path: string;
  /** Send the owner's credentials (HTTP Basic). */
  auth: boolean;
  /** Form-encoded request body (sent as application/x-www-form-urlencoded). */
  body?: string;
  /**
   * A read that needs messages to read: before its warm-up, the owner sends
   * this many to the channel (as send-message and send-100 do) if it has
   * fewer, so the read measures the same page whichever scenarios ran first.
   */
  fill?: { channel: string; messages: number };
}

/** The message the send scenarios post (and `fill` sends). */
const BENCH_MESSAGE = 'Hello **world**, see https://example.com :smile:';

export const SCENARIOS: Scenario[] = [
  {
    name: 'users-me',
    description: 'GET /users/me (authenticated)',
    method: 'GET',
    path: '/api/v1/users/me',
    auth: true,
  },
  {
    name: 'server-settings',
    description: 'GET /server_settings (anonymous)',
    method: 'GET',
    path: '/api/v1/server_settings',
    auth: false,
  },
  {
    // Presence ping, as clients send it every minute.
    name: 'presence-ping',
    description: 'POST /users/me/presence status=active',
    method: 'POST',
    path: '/api/v1/users/me/presence',
    auth: true,
    body: 'status=active',
  },
  {
    // Send a channel message (Markdown rendering, one transaction, fan-out) to "general".
    name: 'send-message',
    description: 'POST /messages to a channel',
    method: 'POST',
    path: '/api/v1/messages',
    auth: true,
    body: new URLSearchParams({ type: 'channel', to: 'general', topic: 'bench', content: BENCH_MESSAGE }).toString(),
  },
  {
    // Send to a channel with 100 subscribers (seeded before the run): one
    // message row, 100 user_messages rows, 100 events.
    name: 'send-100',
    description: 'POST /messages to a 100-subscriber channel',
    method: 'POST',
    path: '/api/v1/messages',
    auth: true,
    body: new URLSearchParams({ type: 'channel', to: 'hundred', topic: 'bench', content: BENCH_MESSAGE }).toString(),
  },
  {
    // Read the newest 100 messages of the 100-subscriber channel (filled by send-100, or by `fill`).
    name: 'get-messages-100',
    description: 'GET /messages newest 100 in a channel narrow',
    method: 'GET',
    path:
      '/api/v1/messages?' +
      new URLSearchParams({ anchor: 'newest', num_before: '100', num_after: '0', narrow: JSON.stringify([{ operator: 'channel', operand: 'hundred' }]) }).toString(),
    auth: true,
    fill: { channel: 'hundred', messages: 100 },
  },
  {
    // Read the newest 50 messages of a channel (filled by send-message, or by `fill`).
    name: 'get-messages',
    description: 'GET /messages newest 50 in a channel narrow',
    method: 'GET',
    path:
      '/api/v1/messages?' +
      new URLSearchParams({ anchor: 'newest', num_before: '50', num_after: '0', narrow: JSON.stringify([{ operator: 'channel', operand: 'general' }]) }).toString(),
    auth: true,
    fill: { channel: 'general', messages: 50 },
  },
];

// ---------------------------------------------------------------------------
// Settings

function num(name: string, dflt: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return n;
}

const settings = {
  durationSeconds: num('BENCH_DURATION', 5),
  warmupSeconds: num('BENCH_WARMUP', 1),
  slices: Math.round(num('BENCH_SLICES', 3)),
  connections: Math.round(num('BENCH_CONNECTIONS', 10)),
  scenarios: (process.env.BENCH_SCENARIOS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
  databaseUrl: process.env.BENCH_DATABASE_URL || undefined,
  redisUrl: process.env.BENCH_REDIS_URL || undefined,
  /** Long-polling subscribers of the fan-out channel. */
  fanoutUsers: Math.round(num('BENCH_FANOUT_USERS', 1000)),
  /** Messages sent (one at a time) in the fan-out scenario. */
  fanoutMessages: Math.round(num('BENCH_FANOUT_MESSAGES', 20)),
  /** Messages sent first in the fan-out scenario and left out of its percentiles. */
  fanoutWarmup: Math.round(num('BENCH_FANOUT_WARMUP', 1)),
  /** Event queues registered for the queue-memory figure. */
  queues: Math.round(num('BENCH_QUEUES', 10_000)),
  /** Messages in the channel of the large-history read. */
  bigHistory: Math.round(num('BENCH_BIG_HISTORY', 1_000_000)),
  /** Messages in the channel of the small-history read it is compared with. */
  smallHistory: Math.round(num('BENCH_SMALL_HISTORY', 10_000)),
  /** Only the request scenarios (no fan-out, queue memory or large-history figures). */
  requestsOnly: process.env.BENCH_REQUESTS_ONLY === '1',
  /** Only the start-up figures: cold start and idle memory. */
  startupOnly: process.env.BENCH_STARTUP_ONLY === '1',
  /**
   * Seconds after which the idle memory and the memory after the load are
   * read a second time (0: not read): the server gives memory back a while
   * after it goes quiet (src/main.js, IDLE_CHECK_MS).
   */
  settleSeconds: process.env.BENCH_SETTLE_SECONDS === '0' ? 0 : num('BENCH_SETTLE_SECONDS', 15),
  /** Print where Parley's resident memory is at each reading. */
  memoryDetail: process.env.BENCH_MEMORY_DETAIL === '1',
};

const STARTUP_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

// ---------------------------------------------------------------------------
// Child processes

interface Child {
  name: string;
  proc: ChildProcess;
  url: string;
  output: string[];
  /** Milliseconds from spawn to the ready line (cold start). */
  startMs: number;
}

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const c of children) c.kill('SIGTERM');
    process.exit(130);
  });
}

/** Spawns `node <script>` and waits for a stdout line matching `ready` (group 1 = URL). */
function startChild(name: string, script: string, env: NodeJS.ProcessEnv, ready: RegExp, nodeArgs: string[] = []): Promise<Child> {
  const spawnedAt = performance.now();
  const proc = spawn(process.execPath, [...nodeArgs, script], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(proc);
  proc.on('exit', () => children.delete(proc));
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${name} did not start within ${STARTUP_TIMEOUT_MS / 1000} s`)), STARTUP_TIMEOUT_MS);
    let done = false;
    function fail(err: Error) {
      if (done) return;
      done = true;
      clearTimeout(timer);
      proc.kill('SIGKILL');
      reject(new Error(`${err.message}\n--- ${name} output:\n${output.join('\n')}`));
    }
    let buffered = '';
    // Both streams are always drained, so a chatty child can never block on a full pipe.
    proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (output.length < 200) output.push(line);
        if (process.env.BENCH_CHILD_LOG) appendFileSync(`${process.env.BENCH_CHILD_LOG}.${name}`, line + '\n');
        const m = ready.exec(line);
        if (m && !done) {
          done = true;
          clearTimeout(timer);
          resolve({ name, proc, url: m[1]!, output, startMs: Math.round(performance.now() - spawnedAt) });
        }
      }
    });
    proc.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      if (output.length < 200) output.push(...chunk.trimEnd().split('\n'));
    });
    proc.on('error', (err) => fail(err));
    proc.on('exit', (code, signal) => fail(new Error(`${name} exited early (code ${code}, signal ${signal})`)));
  });
}

async function stopChild(child: Child): Promise<void> {
  const { proc } = child;
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/** CPU time (user + system, all threads) a process has used, in ms (Linux /proc), or null elsewhere. */
function cpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

/** CPU microseconds per request, from the CPU milliseconds a server used for them (null: not read). */
function cpuPerRequest(cpuMs: number | null, requests: number): number | null {
  if (cpuMs === null || requests === 0) return null;
  return Math.round((cpuMs * 1000) / requests);
}

/** Resident memory of a process in MiB (Linux /proc), or null elsewhere. */
function rssMiB(pid: number | undefined, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number | null {
  if (pid === undefined) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return m ? Math.round((Number(m[1]) / 1024) * 10) / 10 : null;
  } catch {
    return null;
  }
}

/**
 * Where a process's resident memory is, in MiB, from /proc/<pid>/smaps: the
 * Node binary's pages, other files (libraries), malloc's main heap, V8's
 * heap (its 256 KiB pages), malloc's heaps of other threads (64 MiB-aligned
 * reservations) and other anonymous memory (thread stacks, V8's code space
 * and large objects). The V8 and thread-heap parts are read from the
 * mappings' shapes, so they are close, not exact.
 */
function memoryDetail(pid: number | undefined): string {
  if (pid === undefined) return '';
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return '';
  }
  const kib = new Map<string, number>();
  let part = '';
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) {
      const [, start, end, name] = m;
      const size = (parseInt(end!, 16) - parseInt(start!, 16)) / 1024;
      if (name!.endsWith('/bin/node')) part = 'node binary';
      else if (name!.startsWith('/')) part = 'other files';
      else if (name === '[heap]') part = 'malloc main heap';
      else if (name) part = 'other anonymous';
      else if (size === 256) part = 'V8 heap pages';
      else if (parseInt(start!, 16) % (64 * 1024 * 1024) === 0 && size <= 64 * 1024) part = 'thread malloc heaps';
      else part = 'other anonymous';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) kib.set(part, (kib.get(part) ?? 0) + Number(rss[1]));
  }
  return [...kib].map(([k, v]) => `${k} ${(v / 1024).toFixed(1)}`).join(', ');
}

/** With BENCH_MEMORY_DETAIL=1: prints where Parley's memory is at a reading. */
function printMemoryDetail(label: string, parley: Child): void {
  if (settings.memoryDetail) console.log(`Parley's memory ${label} (MiB): ${memoryDetail(parley.proc.pid)}`);
}

/** A row of the memory table: both servers' figures and their ratio. */
function memoryRow(label: string, m: { parley: number | null; bare: number | null }): string[] {
  return [label, fmt(m.parley, 1), fmt(m.bare, 1), fmt(ratio(m.parley ?? 0, m.bare ?? 0))];
}

/** Both servers' resident memory once `settleSeconds` more have passed with no load (null when 0). */
async function settledMemory(parley: Child, bare: Child): Promise<{ parley: number | null; bare: number | null } | null> {
  if (!settings.settleSeconds) return null;
  await sleep(settings.settleSeconds * 1000);
  printMemoryDetail(`${settings.settleSeconds} s later`, parley);
  return { parley: rssMiB(parley.proc.pid), bare: rssMiB(bare.proc.pid) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------
// Load

interface Measurement {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  requests: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}

/** One autocannon run: its counts, and its latencies (ms) for merging with other runs. */
interface Run {
  seconds: number;
  requests: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  latencies: Float64Array;
}

/** The measurement of several runs of one server taken together. */
function measurement(runs: Run[]): Measurement {
  const n = runs.reduce((sum, r) => sum + r.latencies.length, 0);
  const lat = new Float64Array(n);
  let at = 0;
  for (const r of runs) {
    lat.set(r.latencies, at);
    at += r.latencies.length;
  }
  lat.sort();
  let sum = 0;
  for (const x of lat) sum += x;
  const requests = runs.reduce((total, r) => total + r.requests, 0);
  const seconds = runs.reduce((total, r) => total + r.seconds, 0);
  return {
    requestsPerSecond: seconds > 0 ? Math.round(requests / seconds) : 0,
    p50Ms: quantile(lat, 0.5),
    p99Ms: quantile(lat, 0.99),
    meanMs: n ? Math.round((sum / n) * 1000) / 1000 : 0,
    requests,
    errors: runs.reduce((total, r) => total + r.errors, 0),
    timeouts: runs.reduce((total, r) => total + r.timeouts, 0),
    non2xx: runs.reduce((total, r) => total + r.non2xx, 0),
  };
}

function requestOptions(s: Scenario, base: string, authorization: string | undefined) {
  const headers: Record<string, string> = { 'user-agent': 'ZulipPython/0.9.0 (parley bench)' };
  if (s.auth && authorization) headers.authorization = authorization;
  if (s.body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
  return { url: base + s.path, method: s.method, headers, body: s.body };
}

/** Latency quantile (ms) from unsorted samples; autocannon's own histogram has 1 ms resolution. */
function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  const v = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  return Math.round(v * 1000) / 1000;
}

const MAX_SAMPLES = 5_000_000;

function load(s: Scenario, base: string, authorization: string | undefined, seconds: number): Promise<Measurement> {
  return run(s, base, authorization, seconds).then((r) => measurement([r]));
}

function run(s: Scenario, base: string, authorization: string | undefined, seconds: number): Promise<Run> {
  const samples = new Float64Array(MAX_SAMPLES);
  let n = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      { ...requestOptions(s, base, authorization), connections: settings.connections, duration: seconds, timeout: 10 },
      (err, result) => {
        if (err) return reject(err);
        resolve({
          seconds: result.duration,
          requests: result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'],
          errors: result.errors,
          timeouts: result.timeouts,
          non2xx: result.non2xx,
          latencies: samples.slice(0, n),
        });
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      if (n < MAX_SAMPLES) samples[n++] = responseTime;
    });
  });
}

/** One request before the load: is the endpoint there and does it succeed? */
async function probe(s: Scenario, base: string, authorization: string | undefined): Promise<{ status: number; text: string }> {
  const o = requestOptions(s, base, authorization);
  const res = await fetch(o.url, { method: o.method, headers: o.headers, body: o.body });
  return { status: res.status, text: (await res.text()).slice(0, 300) };
}

// ---------------------------------------------------------------------------
// Seeding the database directly (fast; the same SQL on SQLite and PostgreSQL)

interface SeedDb {
  run(sql: string, params?: unknown[]): Promise<void>;
  all<T>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

async function openSeedDb(dataDir: string, pgSchema: string | undefined): Promise<SeedDb> {
  if (settings.databaseUrl) {
    const c = new pg.Client({ connectionString: settings.databaseUrl });
    await c.connect();
    await c.query(`SET search_path TO ${pgSchema}`);
    const numbered = (sql: string) => {
      let i = 0;
      return sql.replace(/\?/g, () => `$${++i}`);
    };
    return {
      run: async (sql, params = []) => void (await c.query(numbered(sql), params)),
      all: async <T>(sql: string, params: unknown[] = []) => (await c.query(numbered(sql), params)).rows as T[],
      close: () => c.end(),
    };
  }
  const db = new DatabaseSync(join(dataDir, 'parley.sqlite3'));
  useUnicodeLower(db); // as the server's connection: its indexes on lower() depend on it
  db.exec('PRAGMA busy_timeout = 10000');
  return {
    run: async (sql, params = []) => void db.prepare(sql).run(...(params as never[])),
    all: async <T>(sql: string, params: unknown[] = []) => db.prepare(sql).all(...(params as never[])) as T[],
    close: async () => db.close(),
  };
}

interface Credentials {
  email: string;
  key: string;
}

const FAN_PREFIX = 'fan';
const MEMBER_ROLE = 400;

/**
 * Adds `count` member accounts (fan1@bench.local …) with known API keys,
 * copying the owner's settings, and subscribes them: the first
 * `hundredSubscribers - 1` to "hundred", all to "fanout". The server must
 * be stopped (it may keep users in memory).
 */
async function seedUsers(db: SeedDb, ownerEmail: string, count: number, hundredSubscribers: number): Promise<Credentials[]> {
  const [owner] = await db.all<{ id: number; realm_id: number; settings_json: string }>('SELECT id, realm_id, settings_json FROM users WHERE delivery_email = ?', [ownerEmail]);
  if (!owner) throw new Error('the owner account is missing');
  const creds: Credentials[] = [];
  const now = Math.floor(Date.now() / 1000);
  for (let start = 1; start <= count; start += 200) {
    const rows: string[] = [];
    const params: unknown[] = [];
    for (let i = start; i < Math.min(start + 200, count + 1); i++) {
      const email = `${FAN_PREFIX}${i}@bench.local`;
      const key = `benchkey${String(i).padStart(24, '0')}`;
      creds.push({ email, key });
      rows.push(`(${owner.realm_id}, ?, ?, ?, ?, ${MEMBER_ROLE}, ${now}, ?)`);
      params.push(email, email, `Fan ${i}`, key, owner.settings_json);
    }
    await db.run(`INSERT INTO users (realm_id, email, delivery_email, full_name, api_key, role, date_joined, settings_json) VALUES ${rows.join(', ')}`, params);
  }
  const streams = await db.all<{ id: number; name: string }>("SELECT id, name FROM streams WHERE name IN ('hundred', 'fanout')");
  const streamId = (name: string) => streams.find((x) => x.name === name)!.id;
  const fans = await db.all<{ id: number }>(`SELECT id FROM users WHERE delivery_email LIKE '${FAN_PREFIX}%@bench.local' ORDER BY id`);
  for (const [name, users] of [
    ['hundred', fans.slice(0, hundredSubscribers - 1)],
    ['fanout', fans],
  ] as const) {
    for (let i = 0; i < users.length; i += 500) {
      const rows = users.slice(i, i + 500).map((u) => `(${u.id}, ${streamId(name)}, 1, '#76ce90')`);
      await db.run(`INSERT INTO subscriptions (user_id, stream_id, active, color) VALUES ${rows.join(', ')}`);
    }
  }
  return creds;
}

/** Fills a channel with messages from the owner (and their user_messages rows) up to `total`. */
async function seedHistory(db: SeedDb, ownerEmail: string, channel: string, total: number): Promise<void> {
  const [owner] = await db.all<{ id: number; realm_id: number }>('SELECT id, realm_id FROM users WHERE delivery_email = ?', [ownerEmail]);
  const [stream] = await db.all<{ id: number }>('SELECT id FROM streams WHERE name = ?', [channel]);
  const [{ n, top }] = await db.all<{ n: number; top: number | null }>(
    `SELECT COUNT(*) AS n, MAX(id) AS top FROM messages WHERE recipient_type = 2 AND recipient_id = ${stream!.id}`,
  );
  const before = Number(top ?? 0);
  const base = Math.floor(Date.now() / 1000) - total;
  for (let have = Number(n); have < total; ) {
    const batch = Math.min(100_000, total - have);
    await db.run(
      `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${batch}) ` +
        'INSERT INTO messages (realm_id, sender_id, recipient_type, recipient_id, topic, content, rendered_content, date_sent, sending_client) ' +
        `SELECT ${owner!.realm_id}, ${owner!.id}, 2, ${stream!.id}, 'topic ' || (i % 50), 'message ' || i, '<p>message ' || i || '</p>', ${base + have} + i, 'bench' FROM seq`,
    );
    have += batch;
  }
  await db.run(
    `INSERT INTO user_messages (user_id, message_id, flags) SELECT ${owner!.id}, id, 1 FROM messages WHERE recipient_type = 2 AND recipient_id = ${stream!.id} AND id > ${before}`,
  );
}

/** Sends the benchmark message to `channel` until it holds at least `messages`. */
async function fillChannel(base: string, owner: Credentials, channel: string, messages: number): Promise<void> {
  const narrow = JSON.stringify([{ operator: 'channel', operand: channel }]);
  const page = await call(base, owner, 'GET', '/api/v1/messages?' + new URLSearchParams({ anchor: 'newest', num_before: String(messages), num_after: '0', narrow }).toString());
  const have = (page.messages as unknown[]).length;
  for (let i = have; i < messages; i++) {
    await call(base, owner, 'POST', '/api/v1/messages', { type: 'channel', to: channel, topic: 'bench', content: BENCH_MESSAGE });
  }
}

// ---------------------------------------------------------------------------
// Event queues: many long-polling clients

const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

/** One HTTP request with Basic auth and a form body; resolves with the parsed JSON. */
function call(base: string, c: Credentials, method: string, path: string, form?: Record<string, string>): Promise<Record<string, unknown>> {
  const body = form ? new URLSearchParams(form).toString() : undefined;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      base + path,
      {
        method,
        agent,
        headers: {
          authorization: 'Basic ' + Buffer.from(`${c.email}:${c.key}`).toString('base64'),
          ...(body ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
          if (res.statusCode !== 200) reject(new Error(`${method} ${path}: ${res.statusCode} ${JSON.stringify(json)}`));
          else resolve(json);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `fn` over `items`, `width` at a time. */
async function pool<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

const REGISTER_FORM = { event_types: '["message"]', fetch_event_types: '["message"]' };

/**
 * Every fan-out user registers a queue and long-polls it (on its own
 * connection, with the lean client of long-poller.ts); the owner then sends
 * messages to "fanout" one at a time. The latency of a delivery is from the
 * start of the send request to the poll's answer at the client.
 *
 * The first `warmup` messages are sent and timed the same way but left out of
 * the percentiles (reported on their own), as the request scenarios leave out
 * their warm-up seconds: they are the first runs of the delivery path with
 * 1,000 waiting polls, on the server and in this client.
 *
 * A poller stamps its answer's arrival at once. After an answer with a
 * message it sends its next poll only once every poller has that message
 * (or the wait for it has ended), so that this one-threaded client spends
 * no time writing 1,000 new requests while answers are still arriving: a
 * late stamp would be the load generator's time, not the server's. The
 * server writes a message's answers in one run of its event loop and reads
 * no new poll before that run ends, so the polls' timing does not change
 * its work; and it loses nothing meanwhile, as events keep in the queue
 * until the next poll. The benchmark waits 200 ms after each message, in
 * which the new polls arrive.
 */
async function fanout(base: string, owner: Credentials, users: Credentials[], messages: number, warmup: number) {
  const received = new Map<string, number[]>(); // message content -> arrival times
  let stop = false;
  // Closed from a message's send until every poller has it; open otherwise.
  let gate: Promise<void> = Promise.resolve();
  let openGate = (): void => {};
  const pollers: LongPoller[] = [];
  await pool(users, 20, async (u) => {
    const q = await call(base, u, 'POST', '/api/v1/register', REGISTER_FORM);
    const poller = new LongPoller(base, 'Basic ' + Buffer.from(`${u.email}:${u.key}`).toString('base64'));
    pollers.push(poller);
    const queue = encodeURIComponent(String(q.queue_id));
    let last = -1;
    const poll = async (): Promise<void> => {
      while (!stop) {
        const r = await poller.poll(`/api/v1/events?queue_id=${queue}&last_event_id=${last}`).catch(() => null);
        if (!r) return;
        const at = performance.now();
        let message = false;
        for (const e of r.events) {
          last = Math.max(last, e.id as number);
          if (e.type === 'message') {
            message = true;
            const content = String((e.message as Record<string, unknown>).content);
            const key = content.replace(/<[^>]*>/g, '');
            (received.get(key) ?? received.set(key, []).get(key)!).push(at);
          }
        }
        if (message) await gate;
        else await new Promise((resolve) => setImmediate(resolve));
      }
    };
    void poll();
  });
  await sleep(2000); // every poll is waiting
  const latencies: number[] = [];
  /** Per message, warm-up ones first: when its last poller had it (ms after the send started). */
  const lastDelivery: number[] = [];
  let missing = 0;
  for (let k = 0; k < warmup + messages; k++) {
    const content = `fanout ${k}`;
    gate = new Promise((resolve) => (openGate = resolve));
    const t0 = performance.now();
    await call(base, owner, 'POST', '/api/v1/messages', { type: 'channel', to: 'fanout', topic: 'fanout', content });
    const deadline = performance.now() + 10_000;
    while ((received.get(content)?.length ?? 0) < users.length && performance.now() < deadline) await sleep(5);
    openGate();
    const times = received.get(content) ?? [];
    // A message no poller had has no last delivery (a measured one is also counted in `missing`).
    lastDelivery.push(times.length ? Math.max(...times) - t0 : NaN);
    if (k >= warmup) {
      missing += users.length - times.length;
      for (const t of times) latencies.push(t - t0);
    }
    await sleep(200);
  }
  stop = true;
  openGate();
  for (const p of pollers) p.close();
  const sorted = Float64Array.from(latencies).sort();
  const measuredLast = Float64Array.from(lastDelivery.slice(warmup).filter(Number.isFinite)).sort();
  const warmupLast = lastDelivery.slice(0, warmup);
  return {
    users: users.length,
    messages,
    warmupMessages: warmup,
    deliveries: latencies.length,
    missing,
    p50Ms: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
    maxMs: quantile(sorted, 1),
    lastDeliveryMs: lastDelivery.map((x) => Math.round(x * 10) / 10),
    warmupLastMaxMs: warmupLast.length && warmupLast.every(Number.isFinite) ? Math.max(...warmupLast) : null,
    lastDeliveryP50Ms: measuredLast.length ? quantile(measuredLast, 0.5) : null,
    lastDeliveryMaxMs: measuredLast.length ? quantile(measuredLast, 1) : null,
  };
}

/** Resident memory added by registering `count` more event queues (owner's, message events). */
async function queueMemory(base: string, owner: Credentials, pid: number, count: number) {
  await sleep(1000);
  const before = rssMiB(pid);
  await pool(Array.from({ length: count }, (_, i) => i), 10, async () => void (await call(base, owner, 'POST', '/api/v1/register', REGISTER_FORM)));
  await sleep(2000);
  const after = rssMiB(pid);
  return { queues: count, beforeMiB: before, afterMiB: after, addedMiB: before !== null && after !== null ? Math.round((after - before) * 10) / 10 : null };
}

// ---------------------------------------------------------------------------
// Main

/** The environment of a Parley under test: loopback, any free port, no rate limit, a known owner. */
function parleyEnv(dataDir: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    PARLEY_API_RATE_LIMIT_PER_MINUTE: '0',
    PARLEY_OWNER_EMAIL: 'owner@parley.local',
    PARLEY_OWNER_PASSWORD: 'bench-owner-password',
    ...extra,
  };
}

function readZuliprc(path: string): { email: string; key: string; site: string } {
  const out: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = /^\s*(\w+)\s*=\s*(.*?)\s*$/.exec(line);
    if (m) out[m[1]!] = m[2]!;
  }
  if (!out.email || !out.key) throw new Error(`${path} has no email/key`);
  return { email: out.email, key: out.key, site: out.site ?? '' };
}

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 1000) / 1000 : null);
const fmt = (v: number | null | undefined, digits = 3) => (v === null || v === undefined ? '-' : Number.isInteger(v) ? String(v) : v.toFixed(digits));

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r, ri) => {
      const line = r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
      return ri === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('  ')}` : line;
    })
    .join('\n');
}

async function main(): Promise<number> {
  const selected = settings.scenarios.length ? SCENARIOS.filter((s) => settings.scenarios.includes(s.name)) : SCENARIOS;
  const unknown = settings.scenarios.filter((n) => !SCENARIOS.some((s) => s.name === n));
  if (unknown.length) throw new Error(`unknown scenario(s): ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);

  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-'));
  let pgSchema: string | undefined;
  if (settings.databaseUrl) {
    pgSchema = `bench_${process.pid}_${Date.now().toString(36)}`;
    const c = new pg.Client({ connectionString: settings.databaseUrl });
    await c.connect();
    await c.query(`CREATE SCHEMA ${pgSchema}`);
    await c.end();
  }
  const database = settings.databaseUrl ? 'postgresql' : 'sqlite';

  console.log(
    `Parley benchmark: ${settings.durationSeconds} s measured in ${settings.slices} alternating slices (+${settings.warmupSeconds} s warm-up) per scenario and server, ` +
      `${settings.connections} connections, ${database}, Node ${process.versions.node}, ${cpus().length} CPUs`,
  );

  let parley: Child | undefined;
  let bare: Child | undefined;
  try {
    const nodeArgs = (process.env.BENCH_PARLEY_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
    const startParley = () => startChild('parley', join(root, 'src', 'main.js'), parleyEnv(dataDir, { DATABASE_URL: settings.databaseUrl ?? '', PARLEY_PG_SCHEMA: pgSchema ?? '' }), /listening on (http:\/\/\S+)/, nodeArgs);
    parley = await startParley();
    const firstStartMs = parley.startMs;
    const rc = readZuliprc(join(dataDir, 'zuliprc'));
    const owner: Credentials = { email: rc.email, key: rc.key };
    const authorization = 'Basic ' + Buffer.from(`${rc.email}:${rc.key}`).toString('base64');

    // The channels of the larger scenarios, then their members, seeded
    // directly while the server is stopped; the restart is the cold start.
    await call(parley.url, owner, 'POST', '/api/v1/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'hundred' }, { name: 'fanout' }, { name: 'history' }]),
    });
    await stopChild(parley);
    const seedDb = await openSeedDb(dataDir, pgSchema);
    const fans = await seedUsers(seedDb, owner.email, Math.max(settings.fanoutUsers, 99), 100);
    parley = await startParley();
    const coldStartMs = parley.startMs;
    console.log(`cold start: ${coldStartMs} ms (first start, creating the organization: ${firstStartMs} ms)`);
    bare = await startChild('bare', join(here, 'bare-server.mjs'), { PATH: process.env.PATH, PORT: '0' }, /^listening (\d+)$/);
    bare.url = `http://127.0.0.1:${bare.url}`;
    for (const c of [parley, bare]) {
      const host = new URL(c.url).hostname;
      if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') throw new Error(`${c.name} is not on loopback: ${c.url}`);
    }

    await sleep(1000);
    const memStart = { parley: rssMiB(parley.proc.pid), bare: rssMiB(bare.proc.pid) };
    printMemoryDetail('1 s after the start', parley);
    const memStartSettled = await settledMemory(parley, bare);
    if (settings.startupOnly) {
      console.log(`idle memory (VmRSS): Parley ${fmt(memStart.parley, 1)} MiB, bare ${fmt(memStart.bare, 1)} MiB`);
      if (memStartSettled) console.log(`idle memory ${settings.settleSeconds} s later: Parley ${fmt(memStartSettled.parley, 1)} MiB, bare ${fmt(memStartSettled.bare, 1)} MiB`);
      await seedDb.close();
      return 0;
    }

    const results: Array<Record<string, unknown>> = [];
    let failed = false;
    for (const s of selected) {
      const check = await probe(s, parley.url, authorization);
      if (check.status === 404) {
        console.log(`- ${s.name}: skipped: ${s.method} ${s.path} is not implemented yet (404)`);
        results.push({ ...s, status: 'skipped', note: `${s.method} ${s.path} answered 404 (not implemented yet)` });
        continue;
      }
      if (check.status < 200 || check.status >= 300) {
        console.log(`- ${s.name}: ERROR: probe answered ${check.status}: ${check.text}`);
        results.push({ ...s, status: 'error', note: `probe answered ${check.status}: ${check.text}` });
        failed = true;
        continue;
      }
      process.stdout.write(`- ${s.name}: ${s.description} ... `);
      if (s.fill) await fillChannel(parley.url, owner, s.fill.channel, s.fill.messages);
      await load(s, parley.url, authorization, settings.warmupSeconds);
      await load(s, bare.url, authorization, settings.warmupSeconds);
      // The measured time in slices, Parley and bare in turn: the machine's
      // speed drifts over seconds, and each server gets its share of every phase.
      // Each server's runs, and its CPU time over them (null where /proc cannot tell).
      const sides = [parley, bare].map((child) => ({ child, runs: [] as Run[], cpuMs: 0 as number | null }));
      for (let i = 0; i < settings.slices; i++) {
        for (const side of sides) {
          const c0 = cpuMs(side.child.proc.pid);
          side.runs.push(await run(s, side.child.url, authorization, settings.durationSeconds / settings.slices));
          const c1 = cpuMs(side.child.proc.pid);
          side.cpuMs = side.cpuMs === null || c0 === null || c1 === null ? null : side.cpuMs + (c1 - c0);
        }
      }
      const [p, b] = sides.map((side) => measurement(side.runs)) as [Measurement, Measurement];
      const pCpu = cpuPerRequest(sides[0]!.cpuMs, p.requests);
      const bCpu = cpuPerRequest(sides[1]!.cpuMs, b.requests);
      const problems = p.errors + p.non2xx + b.errors + b.non2xx;
      console.log(problems ? `done, with ${p.errors} errors and ${p.non2xx} non-2xx from Parley` : 'done');
      if (p.non2xx || p.errors) failed = true;
      results.push({
        ...s,
        status: 'ok',
        parley: p,
        bare: b,
        cpuMicrosPerRequest: { parley: pCpu, bare: bCpu },
        ratio: {
          requestsPerSecond: ratio(p.requestsPerSecond, b.requestsPerSecond),
          p50: ratio(p.p50Ms, b.p50Ms),
          p99: ratio(p.p99Ms, b.p99Ms),
          cpu: pCpu && bCpu ? ratio(bCpu, pCpu) : null,
        },
      });
    }

    await sleep(1000);
    const memAfter = { parley: rssMiB(parley.proc.pid), bare: rssMiB(bare.proc.pid) };
    printMemoryDetail('1 s after the load', parley);
    const memPeak = { parley: rssMiB(parley.proc.pid, 'VmHWM'), bare: rssMiB(bare.proc.pid, 'VmHWM') };
    const memAfterSettled = await settledMemory(parley, bare);

    let fan: Awaited<ReturnType<typeof fanout>> | undefined;
    let queueMem: Awaited<ReturnType<typeof queueMemory>> | undefined;
    let history: { small: Measurement; big: Measurement; smallMessages: number; bigMessages: number; p50Ratio: number | null } | undefined;
    if (!settings.requestsOnly) {
      process.stdout.write(`- fanout: ${settings.fanoutUsers} long-polling subscribers, ${settings.fanoutWarmup} warm-up + ${settings.fanoutMessages} messages ... `);
      fan = await fanout(parley.url, owner, fans.slice(0, settings.fanoutUsers), settings.fanoutMessages, settings.fanoutWarmup);
      console.log('done');
      process.stdout.write(`- queues: memory of ${settings.queues} more event queues ... `);
      queueMem = await queueMemory(parley.url, owner, parley.proc.pid!, settings.queues);
      console.log('done');
      const read: Scenario = {
        name: 'get-history',
        description: 'GET /messages newest 100 of a long channel',
        method: 'GET',
        path:
          '/api/v1/messages?' +
          new URLSearchParams({ anchor: 'newest', num_before: '100', num_after: '0', narrow: JSON.stringify([{ operator: 'channel', operand: 'history' }]) }).toString(),
        auth: true,
      };
      const measureAt = async (messages: number): Promise<Measurement> => {
        process.stdout.write(`- history: seeding ${messages} messages ... `);
        const t0 = performance.now();
        await seedHistory(seedDb, owner.email, 'history', messages);
        process.stdout.write(`${((performance.now() - t0) / 1000).toFixed(1)} s; newest 100 ... `);
        await load(read, parley!.url, authorization, settings.warmupSeconds);
        const m = await load(read, parley!.url, authorization, settings.durationSeconds);
        console.log('done');
        return m;
      };
      const small = await measureAt(settings.smallHistory);
      const big = await measureAt(settings.bigHistory);
      history = { small, big, smallMessages: settings.smallHistory, bigMessages: settings.bigHistory, p50Ratio: ratio(big.p50Ms, small.p50Ms) };
    }
    await seedDb.close();

    // Report
    console.log('');
    const rows = [['scenario', 'Parley req/s', 'bare req/s', 'ratio', 'Parley p50 ms', 'bare p50 ms', 'ratio', 'Parley p99 ms', 'bare p99 ms', 'ratio', 'CPU µs/req P', 'bare', 'CPU ratio']];
    for (const r of results) {
      if (r.status !== 'ok') {
        rows.push([String(r.name), String(r.status), '', '', '', '', '', '', '', '', '', '', '']);
        continue;
      }
      const p = r.parley as Measurement;
      const b = r.bare as Measurement;
      const q = r.ratio as { requestsPerSecond: number | null; p50: number | null; p99: number | null; cpu: number | null };
      const c = r.cpuMicrosPerRequest as { parley: number | null; bare: number | null };
      rows.push([
        String(r.name),
        fmt(p.requestsPerSecond),
        fmt(b.requestsPerSecond),
        fmt(q.requestsPerSecond),
        fmt(p.p50Ms, 3),
        fmt(b.p50Ms, 3),
        fmt(q.p50),
        fmt(p.p99Ms, 3),
        fmt(b.p99Ms, 3),
        fmt(q.p99),
        fmt(c.parley),
        fmt(c.bare),
        fmt(q.cpu),
      ]);
    }
    console.log(table(rows));
    console.log('');
    console.log(
      table([
        ['memory (VmRSS, MiB)', 'Parley', 'bare', 'ratio'],
        memoryRow('after start (idle)', memStart),
        ...(memStartSettled ? [memoryRow(`idle, ${settings.settleSeconds} s later`, memStartSettled)] : []),
        memoryRow('after load', memAfter),
        ...(memAfterSettled ? [memoryRow(`after load, ${settings.settleSeconds} s later`, memAfterSettled)] : []),
        memoryRow('peak (VmHWM)', memPeak),
      ]),
    );
    console.log('');
    const figures = [['figure', 'value']];
    figures.push(['cold start (restart with data), ms', fmt(coldStartMs)]);
    figures.push(['first start (creates the organization), ms', fmt(firstStartMs)]);
    if (fan) {
      figures.push([`fan-out to ${fan.users} long-pollers: deliveries (missing)`, `${fan.deliveries} (${fan.missing})`]);
      figures.push(['fan-out delivery p50 / p99 / max, ms', `${fmt(fan.p50Ms, 1)} / ${fmt(fan.p99Ms, 1)} / ${fmt(fan.maxMs, 1)}`]);
      figures.push(['fan-out: last delivery of a message, p50 / max, ms', `${fmt(fan.lastDeliveryP50Ms, 1)} / ${fmt(fan.lastDeliveryMaxMs, 1)}`]);
      figures.push([`fan-out: last delivery of the warm-up message${fan.warmupMessages === 1 ? '' : 's'} (not above), ms`, fmt(fan.warmupLastMaxMs, 1)]);
    }
    if (queueMem) figures.push([`${queueMem.queues} more event queues, MiB RSS added`, `${fmt(queueMem.addedMiB, 1)} (${fmt(queueMem.beforeMiB, 1)} -> ${fmt(queueMem.afterMiB, 1)})`]);
    if (history) {
      figures.push([`newest 100 of ${history.smallMessages} messages: req/s, p50 ms`, `${fmt(history.small.requestsPerSecond)}, ${fmt(history.small.p50Ms, 3)}`]);
      figures.push([`newest 100 of ${history.bigMessages} messages: req/s, p50 ms`, `${fmt(history.big.requestsPerSecond)}, ${fmt(history.big.p50Ms, 3)}`]);
      figures.push(['p50 ratio large / small history', fmt(history.p50Ratio)]);
    }
    console.log(table(figures));

    // Scale-out: one process vs PARLEY_WORKERS=2, both on PostgreSQL + Redis.
    let scaleOut: ScaleOutResult[] | string;
    if (settings.databaseUrl && settings.redisUrl) {
      console.log('\nScale-out (PostgreSQL + Redis): send throughput and fan-out latency, one process vs two workers ...');
      scaleOut = await runScaleOut(
        {
          root,
          parleyEnv,
          readZuliprc,
          startChild,
          stopChild,
          load: (body, base, auth, seconds) =>
            load({ name: 'send', description: '', method: 'POST', path: '/api/v1/messages', auth: true, body }, base, auth, seconds),
          settings,
        },
        settings.databaseUrl,
        settings.redisUrl,
      );
      const [one, two] = scaleOut;
      console.log(
        table([
          ['scale-out (PostgreSQL + Redis)', one!.config, two!.config],
          ['send: messages/s', fmt(one!.send.messagesPerSecond), fmt(two!.send.messagesPerSecond)],
          ['send: p50 ms', fmt(one!.send.p50Ms, 3), fmt(two!.send.p50Ms, 3)],
          ['send: p99 ms', fmt(one!.send.p99Ms, 3), fmt(two!.send.p99Ms, 3)],
          [`fan-out to ${one!.fanout.queues} queues: p50 ms (each queue)`, fmt(one!.fanout.p50Ms), fmt(two!.fanout.p50Ms)],
          ['fan-out: p50 ms (last queue of a message)', fmt(one!.fanout.lastQueueP50Ms), fmt(two!.fanout.lastQueueP50Ms)],
          ['fan-out: p99 ms (last queue of a message)', fmt(one!.fanout.lastQueueP99Ms), fmt(two!.fanout.lastQueueP99Ms)],
        ]),
      );
      for (const r of scaleOut) if (r.send.errors || r.send.non2xx) failed = true;
    } else {
      scaleOut = 'skipped: set BENCH_DATABASE_URL and BENCH_REDIS_URL';
      console.log(`\nScale-out comparison ${scaleOut}.`);
    }

    const out = {
      date: new Date().toISOString(),
      node: process.versions.node,
      platform: `${process.platform} ${process.arch}`,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      database,
      settings: { durationSeconds: settings.durationSeconds, slices: settings.slices, warmupSeconds: settings.warmupSeconds, connections: settings.connections },
      scenarios: results,
      memoryMiB: { afterStart: memStart, afterStartSettled: memStartSettled, afterLoad: memAfter, afterLoadSettled: memAfterSettled, peak: memPeak },
      scaleOut,
      coldStartMs,
      firstStartMs,
      fanout: fan,
      queueMemory: queueMem,
      history,
    };
    mkdirSync(join(root, '.bench'), { recursive: true });
    const outPath = join(root, '.bench', 'results.json');
    writeFileSync(outPath, JSON.stringify(out, null, 2) + '\n');
    console.log(`\nResults written to ${outPath}`);
    return failed ? 1 : 0;
  } finally {
    if (parley) await stopChild(parley);
    if (bare) await stopChild(bare);
    rmSync(dataDir, { recursive: true, force: true });
    if (settings.databaseUrl && pgSchema) {
      const c = new pg.Client({ connectionString: settings.databaseUrl });
      await c.connect();
      await c.query(`DROP SCHEMA ${pgSchema} CASCADE`);
      await c.end();
    }
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
