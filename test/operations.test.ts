/**
 * Operations: GET /health, the Prometheus listener (METRICS_PORT), the
 * access log (one JSON line per request, never credentials), TRUST_PROXY,
 * and private data at rest (DATA_DIR 0700; database, uploads, zuliprc 0600).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Client, assertError, assertSuccess, startTestServer, sleep } from './helpers.ts';

const mode = (p: string): number => statSync(p).mode & 0o777;

/**
 * The text of an access log file once it holds `count` lines: each line is
 * written after its response has gone out, and asynchronously (waits at most 2 s).
 */
async function accessLogText(file: string, count: number): Promise<string> {
  const lines = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0);
  for (let waited = 0; lines() < count && waited < 2000; waited += 10) await sleep(10);
  return readFileSync(file, 'utf8');
}

test('GET /health: no authentication, checks the database', async () => {
  const t = await startTestServer();
  try {
    const ok = await fetch(`${t.url}/health`);
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { result: 'success', msg: '' });
    assert.equal(ok.headers.get('cache-control'), 'no-store');
    // With the database gone, the health check says so (and nothing else breaks the process).
    await t.server.svc.store.db.destroy();
    const down = await fetch(`${t.url}/health`);
    assert.equal(down.status, 500);
    assert.deepEqual(await down.json(), { result: 'error', msg: 'Database is not available', code: 'SERVER_NOT_READY' });
  } finally {
    await t.close().catch(() => {});
  }
});

test('metrics: off by default; on METRICS_PORT, Prometheus text with requests, queues, long-polls, messages, database time', async () => {
  const plain = await startTestServer();
  try {
    assert.equal(plain.server.metricsUrl, undefined);
    assert.equal(plain.server.svc.metrics, undefined);
    assert.equal((await fetch(`${plain.url}/metrics`)).status, 404);
  } finally {
    await plain.close();
  }

  const t = await startTestServer({ METRICS_PORT: '0' });
  try {
    const url = t.server.metricsUrl!;
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(new URL(url).port, new URL(t.url).port, 'a separate listener');
    // The metrics are the first node's own: its requests only (with TEST_CLUSTER, t.client spreads them).
    const owner = new Client(t.url, t.owner);
    assertSuccess(await owner.get('/users/me'));
    assertSuccess(await owner.post('/messages', { type: 'stream', to: 'general', topic: 'metrics', content: 'counted' }));
    const q = assertSuccess(await owner.post('/register', { event_types: ['message'] }));
    const poll = owner.get('/events', { queue_id: q.queue_id, last_event_id: q.last_event_id });
    // The long-poll is counted once the server holds it, however long the request takes to arrive.
    for (let waited = 0; !(await t.server.svc.queues.isWaiting(q.queue_id)) && waited < 5000; waited += 10) await sleep(10);
    const res = await fetch(`${url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    const text = await res.text();
    assert.match(text, /parley_http_requests_total\{method="GET",route="\/api\/v1\/users\/me",status="200"\} 1/);
    assert.match(text, /parley_http_request_duration_seconds_bucket\{le="[^"]+",method="POST",route="\/api\/v1\/messages"\} \d/);
    assert.match(text, /parley_messages_sent_total \d+/);
    assert.ok(Number(/parley_messages_sent_total (\d+)/.exec(text)![1]) >= 1);
    assert.match(text, /parley_event_queues [1-9]/);
    assert.match(text, /parley_event_longpolls_waiting 1/);
    assert.match(text, /parley_db_query_duration_seconds_count [1-9]/);
    assert.match(text, /parley_process_cpu_seconds_total/);
    assert.match(text, /parley_nodejs_heap_size_used_bytes/);
    assert.equal((await fetch(`${url}/other`)).status, 404);
    assertSuccess(await owner.delete('/events', { queue_id: q.queue_id }));
    await poll;
  } finally {
    await t.close();
  }
});

test('access log: one JSON line per request with method, route, status, duration, user; never credentials', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-access-'));
  const file = join(dir, 'access.log');
  const t = await startTestServer({ ACCESS_LOG: file });
  try {
    const owner = t.client(t.owner);
    assertSuccess(await owner.get('/users/me'));
    assertError(await t.client({ email: t.owner.email, apiKey: 'x'.repeat(32) }).get('/users/me'), 401, 'UNAUTHORIZED');
    await fetch(`${t.url}/api/v1/fetch_api_key`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'username=owner%40example.com&password=supersecretpw',
    });
    await fetch(`${t.url}/api/v1/no/such/thing?api_key=${t.owner.apiKey}`);
    await fetch(`${t.url}/api/v1/messages/12?api_key=${t.owner.apiKey}`, { method: 'PUT' });
    const text = await accessLogText(file, 5);
    const lines = text.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.length, 5);
    const [me, bad, login, missing, wrongMethod] = lines;
    assert.equal(me.method, 'GET');
    assert.equal(me.route, '/api/v1/users/me');
    assert.equal(me.status, 200);
    assert.equal(me.user_id, t.owner.id);
    assert.equal(typeof me.duration_ms, 'number');
    assert.equal(me.ip, '127.0.0.1');
    assert.equal(me.msg, 'request');
    assert.equal(bad.status, 401);
    assert.equal(bad.user_id, null);
    assert.equal(login.route, '/api/v1/fetch_api_key');
    assert.equal(missing.status, 404);
    assert.equal(missing.route, '(unmatched)');
    // A wrong method is logged with the path's route, never the URL.
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.route, '/api/v1/messages/:message_id(^\\d+$)');
    for (const secret of [t.owner.apiKey, 'supersecretpw', 'xxxxxxxx', 'Basic ', 'authorization']) assert.ok(!text.includes(secret), `access log leaks ${secret}`);
    assert.equal(mode(file), 0o600);
  } finally {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('access log file: every line of a burst is in the file once the server has closed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-access-'));
  const file = join(dir, 'logs', 'access.log');
  const t = await startTestServer({ ACCESS_LOG: file });
  let closed = false;
  try {
    const owner = t.client(t.owner);
    const answers = await Promise.all(Array.from({ length: 40 }, () => owner.get('/users/me')));
    for (const a of answers) assertSuccess(a);
    await t.close();
    closed = true;
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.filter((l) => l.route === '/api/v1/users/me' && l.status === 200).length, 40);
    assert.equal(mode(file), 0o600);
  } finally {
    if (!closed) await t.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('TRUST_PROXY: the client address comes from X-Forwarded-For only when set (access log and rate limits)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-proxy-'));
  const direct = await startTestServer({ ACCESS_LOG: join(dir, 'direct.log'), PARLEY_AUTH_FAILURE_LIMIT: '2' });
  const proxied = await startTestServer({ ACCESS_LOG: join(dir, 'proxied.log'), TRUST_PROXY: '127.0.0.1', PARLEY_AUTH_FAILURE_LIMIT: '2' });
  try {
    for (const t of [direct, proxied]) {
      const bad = t.client({ email: t.owner.email, apiKey: 'y'.repeat(32) });
      const asClient = (ip: string) => bad.request('GET', '/users/me', {}, { headers: { 'X-Forwarded-For': ip } });
      await asClient('203.0.113.7');
      await asClient('203.0.113.7');
      // A third failure from the same address is rate limited.
      assertError(await asClient('203.0.113.7'), 429, 'RATE_LIMIT_HIT');
      // Another client behind the proxy is only limited when the proxy is not trusted.
      const other = await asClient('198.51.100.4');
      if (t === proxied) assertError(other, 401, 'UNAUTHORIZED', 'Invalid API key');
      else assertError(other, 429, 'RATE_LIMIT_HIT');
    }
    const ips = async (name: string) => (await accessLogText(join(dir, name), 4)).trim().split('\n').map((l) => JSON.parse(l).ip);
    assert.deepEqual(new Set(await ips('direct.log')), new Set(['127.0.0.1']));
    assert.deepEqual(new Set(await ips('proxied.log')), new Set(['203.0.113.7', '198.51.100.4']));
  } finally {
    await direct.close();
    await proxied.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('private data at rest: DATA_DIR 0700, database, uploads, zuliprc and email log 0600', async (t) => {
  const t1 = await startTestServer();
  try {
    const dataDir = t1.server.svc.config.dataDir;
    const owner = t1.client(t1.owner);
    const form = new FormData();
    form.append('file', new Blob(['secret bytes'], { type: 'text/plain' }), 'secret.txt');
    const up = await fetch(`${t1.url}/api/v1/user_uploads`, { method: 'POST', headers: { Authorization: owner.auth! }, body: form });
    assert.equal(up.status, 200);
    assertSuccess(await owner.post('/invites', { invitee_emails: 'new@example.com', stream_ids: [] }));
    assert.equal(mode(dataDir), 0o700);
    assert.equal(mode(join(dataDir, 'zuliprc')), 0o600);
    assert.equal(mode(join(dataDir, 'emails.log')), 0o600);
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? [join(dir, e.name), ...walk(join(dir, e.name))] : [join(dir, e.name)]));
    const uploads = walk(join(dataDir, 'uploads'));
    assert.ok(uploads.some((p) => p.endsWith('secret.txt')));
    for (const p of uploads) assert.equal(mode(p), statSync(p).isDirectory() ? 0o700 : 0o600, p);
    if (t1.server.svc.store.dialect === 'sqlite') {
      const dbFiles = readdirSync(dataDir).filter((n) => n.startsWith('parley.sqlite3'));
      assert.ok(dbFiles.includes('parley.sqlite3'));
      for (const n of dbFiles) assert.equal(mode(join(dataDir, n)), 0o600, n);
    } else {
      t.diagnostic('PostgreSQL: no database files in DATA_DIR');
    }
    assert.equal(process.umask() & 0o077, 0o077, 'umask set at start');
  } finally {
    await t1.close();
  }
});
