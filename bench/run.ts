/**
 * `npm run bench`: Parley against a bare node:http server, on loopback.
 *
 * Starts both as child processes of this Node (process.execPath): Parley on a
 * fresh temporary DATA_DIR (SQLite, or PostgreSQL in a fresh schema when
 * BENCH_DATABASE_URL is set) and bench/bare-server.mjs. For each scenario it
 * drives both with autocannon (in this process) for a warm-up and then a
 * measured run of fixed duration at fixed connections, and reports
 * requests/s, p50 and p99 latency and the Parley/bare ratios, plus the
 * resident memory (VmRSS) of both servers after start and after the load.
 * Results are printed as a table and written to .bench/results.json.
 *
 * Settings (environment):
 *   BENCH_DURATION      measured seconds per scenario and server (default 5)
 *   BENCH_WARMUP        warm-up seconds before each measured run (default 1)
 *   BENCH_CONNECTIONS   concurrent connections (default 10)
 *   BENCH_SCENARIOS     comma-separated scenario names to run (default: all)
 *   BENCH_DATABASE_URL  run Parley on this PostgreSQL database (own schema)
 *   BENCH_REDIS_URL     with BENCH_DATABASE_URL: also compare one process with
 *                       PARLEY_WORKERS=2 on PostgreSQL + Redis (bench/scaleout.ts)
 *
 * To add a scenario, append to SCENARIOS below. A scenario whose endpoint
 * answers 404 (not implemented yet) is skipped with a note.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { runScaleOut, type ScaleOutResult } from './scaleout.ts';

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
}

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
    body: new URLSearchParams({ type: 'channel', to: 'general', topic: 'bench', content: 'Hello **world**, see https://example.com :smile:' }).toString(),
  },
  {
    // Read the newest 50 messages of a channel (runs after send-message has filled it).
    name: 'get-messages',
    description: 'GET /messages newest 50 in a channel narrow',
    method: 'GET',
    path:
      '/api/v1/messages?' +
      new URLSearchParams({ anchor: 'newest', num_before: '50', num_after: '0', narrow: JSON.stringify([{ operator: 'channel', operand: 'general' }]) }).toString(),
    auth: true,
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
  connections: Math.round(num('BENCH_CONNECTIONS', 10)),
  scenarios: (process.env.BENCH_SCENARIOS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
  databaseUrl: process.env.BENCH_DATABASE_URL || undefined,
  redisUrl: process.env.BENCH_REDIS_URL || undefined,
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
function startChild(name: string, script: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<Child> {
  const proc = spawn(process.execPath, [script], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
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
        const m = ready.exec(line);
        if (m && !done) {
          done = true;
          clearTimeout(timer);
          resolve({ name, proc, url: m[1]!, output });
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
  const samples = new Float64Array(MAX_SAMPLES);
  let n = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      { ...requestOptions(s, base, authorization), connections: settings.connections, duration: seconds, timeout: 10 },
      (err, result) => {
        if (err) return reject(err);
        const lat = samples.subarray(0, n).sort();
        let sum = 0;
        for (const x of lat) sum += x;
        const completed = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
        resolve({
          requestsPerSecond: Math.round(completed / result.duration),
          p50Ms: quantile(lat, 0.5),
          p99Ms: quantile(lat, 0.99),
          meanMs: n ? Math.round((sum / n) * 1000) / 1000 : 0,
          requests: completed,
          errors: result.errors,
          timeouts: result.timeouts,
          non2xx: result.non2xx,
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

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : null);
const fmt = (v: number | null | undefined, digits = 2) => (v === null || v === undefined ? '-' : Number.isInteger(v) ? String(v) : v.toFixed(digits));

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
    `Parley benchmark: ${settings.durationSeconds} s measured (+${settings.warmupSeconds} s warm-up) per scenario and server, ` +
      `${settings.connections} connections, ${database}, Node ${process.versions.node}, ${cpus().length} CPUs`,
  );

  let parley: Child | undefined;
  let bare: Child | undefined;
  try {
    parley = await startChild('parley', join(root, 'src', 'main.ts'), parleyEnv(dataDir, { DATABASE_URL: settings.databaseUrl ?? '', PARLEY_PG_SCHEMA: pgSchema ?? '' }), /listening on (http:\/\/\S+)/);
    bare = await startChild('bare', join(here, 'bare-server.mjs'), { PATH: process.env.PATH, PORT: '0' }, /^listening (\d+)$/);
    bare.url = `http://127.0.0.1:${bare.url}`;
    for (const c of [parley, bare]) {
      const host = new URL(c.url).hostname;
      if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') throw new Error(`${c.name} is not on loopback: ${c.url}`);
    }

    const rc = readZuliprc(join(dataDir, 'zuliprc'));
    const authorization = 'Basic ' + Buffer.from(`${rc.email}:${rc.key}`).toString('base64');

    await sleep(1000);
    const memStart = { parley: rssMiB(parley.proc.pid), bare: rssMiB(bare.proc.pid) };

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
      await load(s, parley.url, authorization, settings.warmupSeconds);
      const p = await load(s, parley.url, authorization, settings.durationSeconds);
      await load(s, bare.url, authorization, settings.warmupSeconds);
      const b = await load(s, bare.url, authorization, settings.durationSeconds);
      const problems = p.errors + p.non2xx + b.errors + b.non2xx;
      console.log(problems ? `done, with ${p.errors} errors and ${p.non2xx} non-2xx from Parley` : 'done');
      if (p.non2xx || p.errors) failed = true;
      results.push({
        ...s,
        status: 'ok',
        parley: p,
        bare: b,
        ratio: { requestsPerSecond: ratio(p.requestsPerSecond, b.requestsPerSecond), p50: ratio(p.p50Ms, b.p50Ms), p99: ratio(p.p99Ms, b.p99Ms) },
      });
    }

    await sleep(1000);
    const memAfter = { parley: rssMiB(parley.proc.pid), bare: rssMiB(bare.proc.pid) };
    const memPeak = { parley: rssMiB(parley.proc.pid, 'VmHWM'), bare: rssMiB(bare.proc.pid, 'VmHWM') };

    // Report
    console.log('');
    const rows = [['scenario', 'Parley req/s', 'bare req/s', 'ratio', 'Parley p50 ms', 'bare p50 ms', 'ratio', 'Parley p99 ms', 'bare p99 ms', 'ratio']];
    for (const r of results) {
      if (r.status !== 'ok') {
        rows.push([String(r.name), String(r.status), '', '', '', '', '', '', '', '']);
        continue;
      }
      const p = r.parley as Measurement;
      const b = r.bare as Measurement;
      const q = r.ratio as { requestsPerSecond: number | null; p50: number | null; p99: number | null };
      rows.push([String(r.name), fmt(p.requestsPerSecond), fmt(b.requestsPerSecond), fmt(q.requestsPerSecond), fmt(p.p50Ms, 3), fmt(b.p50Ms, 3), fmt(q.p50), fmt(p.p99Ms, 3), fmt(b.p99Ms, 3), fmt(q.p99)]);
    }
    console.log(table(rows));
    console.log('');
    console.log(
      table([
        ['memory (VmRSS, MiB)', 'Parley', 'bare', 'ratio'],
        ['after start (idle)', fmt(memStart.parley, 1), fmt(memStart.bare, 1), fmt(ratio(memStart.parley ?? 0, memStart.bare ?? 0))],
        ['after load', fmt(memAfter.parley, 1), fmt(memAfter.bare, 1), fmt(ratio(memAfter.parley ?? 0, memAfter.bare ?? 0))],
        ['peak (VmHWM)', fmt(memPeak.parley, 1), fmt(memPeak.bare, 1), fmt(ratio(memPeak.parley ?? 0, memPeak.bare ?? 0))],
      ]),
    );

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
      settings: { durationSeconds: settings.durationSeconds, warmupSeconds: settings.warmupSeconds, connections: settings.connections },
      scenarios: results,
      memoryMiB: { afterStart: memStart, afterLoad: memAfter, peak: memPeak },
      scaleOut,
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
