/**
 * The scale-out part of `npm run bench` (when BENCH_DATABASE_URL and
 * BENCH_REDIS_URL are set): Parley on PostgreSQL + Redis as one process and
 * as PARLEY_WORKERS=2, side by side, each on a fresh schema and Redis prefix.
 *
 * - send: POST /messages to a channel under autocannon load while
 *   BENCH_FANOUT_QUEUES queues are registered (each message is delivered to
 *   all of them): messages/s, p50, p99.
 * - fan-out: BENCH_FANOUT_ROUNDS times, every queue has a waiting long-poll;
 *   one message is sent; the time from sending until each poll has it.
 *   Reported: p50 over all queues and rounds, and p50/p99 of the time until
 *   the last queue of a round has it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { deleteKeysWithPrefix } from '../src/lib/redis.ts';

export interface ScaleOutDeps {
  root: string;
  parleyEnv(dataDir: string, extra: Record<string, string>): NodeJS.ProcessEnv;
  readZuliprc(path: string): { email: string; key: string };
  startChild(name: string, script: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ url: string; proc: import('node:child_process').ChildProcess }>;
  stopChild(child: { proc: import('node:child_process').ChildProcess }): Promise<void>;
  load(body: string, base: string, authorization: string, seconds: number): Promise<{ requestsPerSecond: number; p50Ms: number; p99Ms: number; errors: number; non2xx: number }>;
  settings: { durationSeconds: number; warmupSeconds: number; connections: number };
}

export interface ScaleOutResult {
  config: string;
  send: { messagesPerSecond: number; p50Ms: number; p99Ms: number; errors: number; non2xx: number };
  fanout: { queues: number; rounds: number; p50Ms: number; lastQueueP50Ms: number; lastQueueP99Ms: number };
}

const SEND_BODY = new URLSearchParams({ type: 'channel', to: 'general', topic: 'bench', content: 'Hello **world**' }).toString();

function quantile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  if (!s.length) return 0;
  return Math.round(s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]! * 100) / 100;
}

async function runOne(deps: ScaleOutDeps, dbUrl: string, redisUrl: string, workers: number, queues: number, rounds: number): Promise<ScaleOutResult> {
  const tag = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const schema = `bench_so_${tag}`;
  const prefix = `parley-bench:${tag}:`;
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-so-'));
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  await c.query(`CREATE SCHEMA ${schema}`);
  let child: Awaited<ReturnType<ScaleOutDeps['startChild']>> | undefined;
  try {
    child = await deps.startChild(
      workers ? `parley (${workers} workers)` : 'parley (1 process)',
      join(deps.root, 'src', 'main.js'),
      deps.parleyEnv(dataDir, {
        DATABASE_URL: dbUrl,
        PARLEY_PG_SCHEMA: schema,
        REDIS_URL: redisUrl,
        PARLEY_REDIS_PREFIX: prefix,
        PARLEY_WORKERS: workers ? String(workers) : '',
      }),
      /listening on (http:\/\/\S+)/,
    );
    const base = child.url;
    const rc = deps.readZuliprc(join(dataDir, 'zuliprc'));
    const authorization = 'Basic ' + Buffer.from(`${rc.email}:${rc.key}`).toString('base64');
    const api = async (method: string, path: string, params: Record<string, string> = {}): Promise<any> => {
      const body = new URLSearchParams(params).toString();
      const url = method === 'GET' ? `${base}/api/v1${path}?${body}` : `${base}/api/v1${path}`;
      const res = await fetch(url, {
        method,
        headers: { authorization, ...(method === 'GET' ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
        body: method === 'GET' ? undefined : body,
      });
      const json = (await res.json()) as any;
      if (json.result !== 'success') throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
      return json;
    };
    // The queues: one owner's clients, each receiving every message in general.
    const qs: Array<{ id: string; last: number }> = [];
    for (let i = 0; i < queues; i++) {
      const r = await api('POST', '/register', { event_types: JSON.stringify(['message']), fetch_event_types: JSON.stringify(['realm']) });
      qs.push({ id: r.queue_id, last: r.last_event_id });
    }
    const drain = async (): Promise<void> => {
      await Promise.all(
        qs.map(async (q) => {
          const r = await api('GET', '/events', { queue_id: q.id, last_event_id: String(q.last), dont_block: 'true' });
          if (r.events.length) q.last = r.events[r.events.length - 1].id;
        }),
      );
    };

    // Fan-out latency.
    const each: number[] = [];
    const lastOfRound: number[] = [];
    for (let round = 0; round < rounds; round++) {
      await drain();
      let t0 = 0;
      const polls = qs.map(async (q) => {
        const r = await api('GET', '/events', { queue_id: q.id, last_event_id: String(q.last) });
        const t = performance.now();
        if (r.events.length) q.last = r.events[r.events.length - 1].id;
        return t;
      });
      // Let every poll reach its node and wait.
      await new Promise((r) => setTimeout(r, 100));
      t0 = performance.now();
      await api('POST', '/messages', Object.fromEntries(new URLSearchParams(SEND_BODY)));
      const times = (await Promise.all(polls)).map((t) => t - t0);
      each.push(...times);
      lastOfRound.push(Math.max(...times));
    }

    // Send throughput, every message fanned out to the queues.
    await deps.load(SEND_BODY, base, authorization, deps.settings.warmupSeconds);
    const send = await deps.load(SEND_BODY, base, authorization, deps.settings.durationSeconds);
    return {
      config: workers ? `PARLEY_WORKERS=${workers}` : '1 process',
      send: { messagesPerSecond: send.requestsPerSecond, p50Ms: send.p50Ms, p99Ms: send.p99Ms, errors: send.errors, non2xx: send.non2xx },
      fanout: { queues, rounds, p50Ms: quantile(each, 0.5), lastQueueP50Ms: quantile(lastOfRound, 0.5), lastQueueP99Ms: quantile(lastOfRound, 0.99) },
    };
  } finally {
    if (child) await deps.stopChild(child);
    await c.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => {});
    await c.end();
    await deleteKeysWithPrefix(redisUrl, prefix).catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One process and two workers, both on PostgreSQL + Redis. */
export async function runScaleOut(deps: ScaleOutDeps, dbUrl: string, redisUrl: string): Promise<ScaleOutResult[]> {
  const queues = Number(process.env.BENCH_FANOUT_QUEUES || 20);
  const rounds = Number(process.env.BENCH_FANOUT_ROUNDS || 30);
  const out: ScaleOutResult[] = [];
  for (const workers of [0, 2]) out.push(await runOne(deps, dbUrl, redisUrl, workers, queues, rounds));
  return out;
}
