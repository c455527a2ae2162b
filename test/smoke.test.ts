/**
 * Smoke test of `npm start` as a new user runs it: `node src/main.js` as a
 * child process on a free port with an empty DATA_DIR (SQLite, or PostgreSQL
 * in a fresh schema when TEST_DATABASE_URL is set).
 *
 * First start creates the organization and owner, prints a generated
 * password once and writes $DATA_DIR/zuliprc; a restart keeps the data and
 * creates nothing; SIGTERM answers a waiting long-poll and exits 0.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { get as httpGet } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Client, assertSuccess, createPgSchema, dropPgSchema, sleep, spawnNode, zuliprcAccount, type NodeProcess } from './helpers.ts';

const dbUrl = process.env.TEST_DATABASE_URL;

let dataDir: string;
let port: number;
let schema: string | undefined;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const p = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(p));
    });
  });
}

type Running = NodeProcess;

/** The environment of the shared DATA_DIR's server (and database schema). */
function startEnv(extraEnv: Record<string, string> = {}): Record<string, string> {
  return {
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ...(dbUrl && schema ? { DATABASE_URL: dbUrl, PARLEY_PG_SCHEMA: schema } : {}),
    ...extraEnv,
  };
}

/** Starts `node src/main.js` and waits for its "listening" line. */
function start(extraEnv: Record<string, string> = {}): Promise<Running> {
  return spawnNode(startEnv(extraEnv));
}

async function stop(r: Running): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  r.proc.kill('SIGTERM');
  const timer = setTimeout(() => r.proc.kill('SIGKILL'), 15_000);
  const result = await r.exited;
  clearTimeout(timer);
  return result;
}

function parseZuliprc(text: string): { section: string; values: Record<string, string> } {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const values: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const m = /^(\w+)=(.*)$/.exec(line);
    assert.ok(m, `zuliprc line is not key=value: ${JSON.stringify(line)}`);
    values[m[1]!] = m[2]!;
  }
  return { section: lines[0]!, values };
}

const basic = (email: string, key: string) => 'Basic ' + Buffer.from(`${email}:${key}`).toString('base64');

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'parley-smoke-'));
  port = await freePort();
  if (dbUrl) {
    schema = `smoke_${process.pid}_${randomBytes(3).toString('hex')}`;
    await createPgSchema(dbUrl, schema);
  }
});

after(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  if (dbUrl && schema) await dropPgSchema(dbUrl, schema);
});

/**
 * The output of a `node src/main.js` that must fail before listening: it
 * exits with code 1 and says why without a stack trace.
 */
async function failedStart(env: Record<string, string>): Promise<string> {
  const message = await spawnNode(env).then(
    (n) => (n.proc.kill('SIGKILL'), null),
    (e: Error) => e.message,
  );
  assert.ok(message, `started with ${JSON.stringify(env)}`);
  assert.match(message, /exited before listening \(code 1,/);
  assert.doesNotMatch(message, /^\s+at /m, 'no stack trace');
  return message;
}

// The tests below run in order and share DATA_DIR: first start, restart, shutdown.
let rc: Record<string, string>;
let generatedPassword: string;

test('first start: creates the owner, prints a generated password once, writes zuliprc', { timeout: 60_000 }, async () => {
  const r = await start();
  try {
    const out = r.output();
    assert.match(out, /Created the organization and its owner: owner@parley\.local/);
    const pw = [...out.matchAll(/Owner password \(shown once\): (\S+)/g)];
    assert.equal(pw.length, 1, out);
    generatedPassword = pw[0]![1]!;
    assert.ok(generatedPassword.length >= 12);
    assert.equal(r.url, `http://127.0.0.1:${port}`);

    const zuliprcPath = join(dataDir, 'zuliprc');
    assert.equal(statSync(zuliprcPath).mode & 0o077, 0, 'zuliprc is readable by the owner only');
    const parsed = parseZuliprc(readFileSync(zuliprcPath, 'utf8'));
    assert.equal(parsed.section, '[api]');
    assert.deepEqual(Object.keys(parsed.values).sort(), ['email', 'key', 'site']);
    rc = parsed.values;
    assert.equal(rc.email, 'owner@parley.local');
    assert.match(rc.key!, /^[A-Za-z0-9]{32}$/);
    assert.equal(rc.site, `http://127.0.0.1:${port}`);

    const me = await fetch(`${rc.site}/api/v1/users/me`, { headers: { Authorization: basic(rc.email!, rc.key!) } });
    assert.equal(me.status, 200);
    const body = (await me.json()) as Record<string, any>;
    assert.equal(body.result, 'success');
    assert.equal(body.email, rc.email);
    assert.equal(body.role, 100);

    // The printed password logs in and yields the zuliprc's key.
    const login = await fetch(`${rc.site}/api/v1/fetch_api_key`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: rc.email!, password: generatedPassword }).toString(),
    });
    const lb = (await login.json()) as Record<string, any>;
    assert.equal(login.status, 200, JSON.stringify(lb));
    assert.equal(lb.api_key, rc.key);
    assert.equal(lb.email, rc.email);

    // Welcome Bot greets the first owner, as Zulip greets an organization's creator: one direct message, starred and unread.
    const greetings = await ownerMessages();
    assert.equal(greetings.length, 1, JSON.stringify(greetings));
    const [greeting] = greetings;
    assert.equal(greeting.type, 'private');
    assert.equal(greeting.sender_full_name, 'Welcome Bot');
    assert.match(greeting.content, /I'm Welcome Bot, and this direct message is just for you\./);
    assert.match(greeting.content, />the set-up guide<\/a>/, 'the administrators\' guide is named');
    assert.deepEqual(greeting.flags, ['starred']);
  } finally {
    const { code } = await stop(r);
    assert.equal(code, 0, r.output());
  }
});

test('restart keeps the data and creates nothing', { timeout: 60_000 }, async () => {
  assert.ok(rc, 'first start ran');
  const before = readFileSync(join(dataDir, 'zuliprc'), 'utf8');
  const r = await start();
  try {
    const out = r.output();
    assert.doesNotMatch(out, /Created the organization/);
    assert.doesNotMatch(out, /password/i);
    assert.doesNotMatch(out, /zuliprc/);
    assert.equal(readFileSync(join(dataDir, 'zuliprc'), 'utf8'), before);
    const me = await fetch(`${rc.site}/api/v1/users/me`, { headers: { Authorization: basic(rc.email!, rc.key!) } });
    assert.equal(me.status, 200);
    assert.equal(((await me.json()) as Record<string, any>).email, rc.email);
    const users = await fetch(`${rc.site}/api/v1/users`, { headers: { Authorization: basic(rc.email!, rc.key!) } });
    const members = ((await users.json()) as Record<string, any>).members as Array<{ email: string; is_bot: boolean }>;
    assert.equal(members.filter((m) => !m.is_bot).length, 1, 'still one human account');
    assert.equal((await ownerMessages()).length, 1, 'no second greeting');
  } finally {
    const { code } = await stop(r);
    assert.equal(code, 0, r.output());
  }
});

/** The owner's messages, newest last (at most 10). */
async function ownerMessages(): Promise<Array<Record<string, any>>> {
  const res = await fetch(`${rc.site}/api/v1/messages?${new URLSearchParams({ anchor: 'newest', num_before: '10', num_after: '0' })}`, {
    headers: { Authorization: basic(rc.email!, rc.key!) },
  });
  const body = (await res.json()) as Record<string, any>;
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.messages;
}

/** GET over a fresh connection (agent: false → `Connection: close`), resolving with status and JSON body. */
function getOnce(url: string, headers: Record<string, string>): Promise<{ status: number; body: Record<string, any> }> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
        } catch (e) {
          reject(e);
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject); // e.g. ECONNRESET
  });
}

/**
 * Registers a queue, starts a long-poll on it, sends SIGTERM while it waits,
 * and returns the poll's answer and the exit status.
 */
async function sigtermDuringPoll(keepAlive: boolean) {
  const r = await start();
  const auth = basic(rc.email!, rc.key!);
  let signalled = false;
  try {
    const reg = await fetch(`${rc.site}/api/v1/register`, {
      method: 'POST',
      // Keep-alive: the poll then reuses this connection, as a client's session does.
      headers: { Authorization: auth, 'Content-Type': 'application/x-www-form-urlencoded', ...(keepAlive ? {} : { Connection: 'close' }) },
      body: 'event_types=%5B%22message%22%5D',
    });
    const rb = (await reg.json()) as Record<string, any>;
    assert.equal(rb.result, 'success', JSON.stringify(rb).slice(0, 300));
    const url = `${rc.site}/api/v1/events?${new URLSearchParams({ queue_id: rb.queue_id, last_event_id: String(rb.last_event_id) })}`;
    const poll = keepAlive
      ? fetch(url, { headers: { Authorization: auth } }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, any> }))
      : getOnce(url, { Authorization: auth });
    // Let the poll reach the server and start waiting (the heartbeat is 45 s away).
    await new Promise((res) => setTimeout(res, 500));
    r.proc.kill('SIGTERM');
    signalled = true;
    const answered = await poll; // rejects if the connection was reset
    // Bounded wait for the exit; a server still running after it is killed.
    const timer = setTimeout(() => r.proc.kill('SIGKILL'), 20_000);
    const exit = await r.exited;
    clearTimeout(timer);
    return { answered, exit, output: r.output() };
  } finally {
    if (!signalled) await stop(r);
  }
}

test('SIGTERM while a request runs whose client has gone: the request finishes before the database closes', { timeout: 60_000 }, async () => {
  assert.ok(rc, 'first start ran');
  // POST /users checks the password's strength in a child process first, held here for 3 s.
  const r = await start({ NODE_OPTIONS: `--import=${join(import.meta.dirname, 'fixtures', 'slow-password-check.mjs')}`, SLOW_PASSWORD_CHECK_MS: '3000' });
  let signalled = false;
  const email = `late-${randomBytes(3).toString('hex')}@example.com`;
  try {
    const gone = new AbortController();
    const sent = fetch(`${rc.site}/api/v1/users`, {
      method: 'POST',
      headers: { Authorization: basic(rc.email!, rc.key!), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email, password: 'a late but long passphrase 42', full_name: 'Late Comer' }).toString(),
      signal: gone.signal,
    }).catch(() => null);
    // Received and checking the password; then the client goes, and the server is told to stop.
    await sleep(1000);
    gone.abort();
    await sent;
    r.proc.kill('SIGTERM');
    signalled = true;
    const timer = setTimeout(() => r.proc.kill('SIGKILL'), 20_000);
    const exit = await r.exited;
    clearTimeout(timer);
    assert.equal(exit.code, 0, r.output());
    assert.doesNotMatch(r.output(), /"level":50|unhandled error/, 'no error logged');
  } finally {
    if (!signalled) await stop(r);
  }
  // The request was received whole: it was carried out.
  const again = await start();
  try {
    const res = await fetch(`${rc.site}/api/v1/users/${encodeURIComponent(email)}`, { headers: { Authorization: basic(rc.email!, rc.key!) } });
    assert.equal(res.status, 200, await res.text());
  } finally {
    const { code } = await stop(again);
    assert.equal(code, 0, again.output());
  }
});

test('a second process on the same data refuses to start and says why', { timeout: 60_000 }, async () => {
  assert.ok(rc, 'first start ran');
  const r = await start();
  try {
    // SQLite: the same DATA_DIR; PostgreSQL: the same database without REDIS_URL.
    const second = await failedStart(startEnv({ PORT: '0' }));
    assert.match(second, dbUrl ? /Parley cannot start: Another Parley process \(pid \d+ on .*\) is serving this PostgreSQL database\. Several processes need REDIS_URL/ : /Parley cannot start: Another Parley process is using DATA_DIR .*Stop it, or give this process its own DATA_DIR/);
    const me = await fetch(`${rc.site}/api/v1/users/me`, { headers: { Authorization: basic(rc.email!, rc.key!) } });
    assert.equal(me.status, 200, 'the first process still serves');
  } finally {
    const { code } = await stop(r);
    assert.equal(code, 0, r.output());
  }
});

test('SIGTERM answers a waiting long-poll and exits 0', { timeout: 60_000 }, async () => {
  assert.ok(rc, 'first start ran');
  const { answered, exit, output } = await sigtermDuringPoll(false);
  assert.equal(answered.status, 200, JSON.stringify(answered.body));
  assert.equal(answered.body.result, 'success');
  assert.deepEqual(answered.body.events, []);
  assert.equal(exit.signal, null, output);
  assert.equal(exit.code, 0, output);
});

test(
  'SIGTERM with a keep-alive client: the answered long-poll does not hold the exit',
  { timeout: 60_000 },
  async () => {
    assert.ok(rc, 'first start ran');
    const { answered, exit, output } = await sigtermDuringPoll(true);
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    assert.deepEqual(answered.body.events, []);
    assert.equal(exit.signal, null, `still running 20 s after SIGTERM:\n${output}`);
    assert.equal(exit.code, 0, output);
  },
);

test('a first start that cannot listen still shows the owner password, says why, and the next start serves that owner', { timeout: 90_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-smoke-port-'));
  const ownSchema = dbUrl ? `smoke_port_${process.pid}_${randomBytes(3).toString('hex')}` : undefined;
  const pgEnv: Record<string, string> = dbUrl && ownSchema ? { DATABASE_URL: dbUrl, PARLEY_PG_SCHEMA: ownSchema } : {};
  const env = (p: number) => ({ PORT: String(p), DATA_DIR: dir, LOG_LEVEL: 'info', ...pgEnv });
  if (ownSchema) await createPgSchema(dbUrl!, ownSchema);
  // Another program holds the port.
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const takenPort = (taken.address() as { port: number }).port;
  try {
    const failed = await failedStart(env(takenPort));
    assert.ok(failed.includes(`Parley cannot start: cannot listen on 127.0.0.1:${takenPort}: the address is already in use. Set HOST and PORT`), failed);
    assert.match(failed, /Created the organization and its owner: owner@parley\.local/);
    const pw = /Owner password \(shown once\): (\S+)/.exec(failed);
    assert.ok(pw, failed);
    const written = zuliprcAccount(dir);

    // The next start, on a free port, creates nothing; the password shown logs the owner in.
    const r = await spawnNode(env(await freePort()));
    try {
      assert.doesNotMatch(r.output(), /Created the organization|password/i);
      const login = assertSuccess(await new Client(r.url, null).post('/fetch_api_key', { username: 'owner@parley.local', password: pw[1]! }));
      assert.equal(login.api_key, written.apiKey, 'the zuliprc written on the first start holds the key');
    } finally {
      const { code } = await stop(r);
      assert.equal(code, 0, r.output());
    }
  } finally {
    await new Promise((resolve) => taken.close(resolve));
    rmSync(dir, { recursive: true, force: true });
    if (ownSchema) await dropPgSchema(dbUrl!, ownSchema);
  }
});

test('a start that cannot use its settings says why in one line and exits 1', { timeout: 90_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-smoke-settings-'));
  const closedPort = await freePort();
  const failing = (env: Record<string, string>) => failedStart({ DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'info', ...env });
  const ownSchema = dbUrl ? `smoke_settings_${process.pid}_${randomBytes(3).toString('hex')}` : undefined;
  try {
    assert.match(await failing({ PORT: 'abc' }), /Parley cannot start: PORT must be a number, got "abc"/);
    assert.match(await failing({ PORT: '70000' }), /Parley cannot start: PORT must be a port number \(0 to 65535\), got "70000"/);
    assert.match(await failing({ LOG_LEVEL: 'verbose' }), /Parley cannot start: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"/);
    // DATA_DIR below a file.
    writeFileSync(join(dir, 'file'), '');
    assert.match(await failing({ DATA_DIR: join(dir, 'file', 'data') }), /Parley cannot start: cannot use DATA_DIR .*\/file\/data: ENOTDIR: not a directory/);
    if (existsSync('/proc/self')) {
      // Where nothing can be made (Node's own recursive mkdir retried this forever).
      assert.match(await failing({ DATA_DIR: '/proc/parley-data' }), /Parley cannot start: cannot use DATA_DIR \/proc\/parley-data: (ENOENT: no such file or directory|EACCES: permission denied), mkdir '\/proc\/parley-data'/);
      assert.match(await failing({ DATA_DIR: '/proc' }), /Parley cannot start: cannot use DATA_DIR \/proc: unable to open database file/);
    }
    // A database nobody answers at; the password is not shown.
    const db = await failing({ DATABASE_URL: `postgres://parley:secret@127.0.0.1:${closedPort}/parley` });
    assert.ok(db.includes(`Parley cannot start: cannot connect to the PostgreSQL database postgres://parley:***@127.0.0.1:${closedPort}/parley: connect ECONNREFUSED`), db);
    assert.doesNotMatch(db, /secret/);
    if (dbUrl && ownSchema) {
      // Redis nobody answers at: nothing is created before it is reached.
      await createPgSchema(dbUrl, ownSchema);
      const c = new pg.Client({ connectionString: dbUrl });
      await c.connect();
      try {
        const redis = await failing({ DATABASE_URL: dbUrl, PARLEY_PG_SCHEMA: ownSchema, REDIS_URL: `redis://:secret@127.0.0.1:${closedPort}` });
        assert.ok(redis.includes(`Parley cannot start: cannot connect to Redis at redis://:***@127.0.0.1:${closedPort}: connect ECONNREFUSED`), redis);
        assert.doesNotMatch(redis, /Created the organization|secret/);
        const realms = await c.query(`SELECT count(*)::int AS n FROM ${ownSchema}.realm`);
        assert.equal(realms.rows[0].n, 0);
      } finally {
        await c.end();
        await dropPgSchema(dbUrl, ownSchema);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('PostgreSQL ending the server\'s connections: it logs the loss, keeps serving and keeps its data', { timeout: 90_000, skip: dbUrl ? false : 'needs TEST_DATABASE_URL' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-smoke-pg-lost-'));
  const ownSchema = `smoke_lost_${process.pid}_${randomBytes(3).toString('hex')}`;
  await createPgSchema(dbUrl!, ownSchema);
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  let r: Running | undefined;
  try {
    r = await spawnNode({ PORT: String(await freePort()), DATA_DIR: dir, LOG_LEVEL: 'info', DATABASE_URL: dbUrl!, PARLEY_PG_SCHEMA: ownSchema });
    const owner = new Client(r.url, zuliprcAccount(dir));
    const send = (content: string) => owner.post('/messages', { type: 'stream', to: 'general', topic: 'restart', content });
    assertSuccess(await send('before'));
    // What a PostgreSQL restart or an administrator does to the process's connections.
    const ended = await c.query(`SELECT array_agg(pid) AS pids FROM (SELECT pid FROM pg_stat_activity WHERE application_name = $1 OFFSET 0) AS p WHERE pg_terminate_backend(pid)`, [`parley ${r.proc.pid}`]);
    const pids: number[] = ended.rows[0].pids ?? [];
    assert.ok(pids.length >= 2, `ended ${pids.length} connections`);
    // Ending is asynchronous: a session not yet gone could still begin the next request's transaction.
    for (let i = 0; i < 200 && (await c.query('SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1::int[])', [pids])).rowCount; i++) await sleep(20);
    const deadline = Date.now() + 10_000;
    while (!/database connection lost/.test(r.output()) && Date.now() < deadline) await sleep(50);
    assert.match(r.output(), /database connection lost/);
    assert.equal(r.proc.exitCode, null, r.output());
    assertSuccess(await send('after'));
    const read = assertSuccess(await owner.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'topic', operand: 'restart' }] }));
    assert.deepEqual(read.messages.map((m: { content: string }) => m.content), ['<p>before</p>', '<p>after</p>']);
  } finally {
    const exit = r ? await stop(r) : null;
    await c.end();
    await dropPgSchema(dbUrl!, ownSchema);
    rmSync(dir, { recursive: true, force: true });
    if (r) assert.equal(exit!.code, 0, r.output());
  }
});
