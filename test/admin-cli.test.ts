/** The admin command line (src/cli/admin.ts), run as a child process against the test server's database. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { childEnv, Client, startTestServer, assertError, assertSuccess, spawnNode, stopNode, type NodeProcess, type TestServer } from './helpers.ts';
import { WebClient } from './web-helpers.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(() => t.close());

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(...args: string[]): Promise<Run> {
  return runAdmin(serverEnv(), args);
}

/** The environment of a command run on the test server's data. */
function serverEnv(): Record<string, string> {
  const cfg = t.server.svc.config;
  return {
    DATA_DIR: cfg.dataDir,
    EXTERNAL_URL: cfg.externalUrl,
    ...(cfg.databaseUrl ? { DATABASE_URL: cfg.databaseUrl } : {}),
    ...(cfg.pgSchema ? { PARLEY_PG_SCHEMA: cfg.pgSchema } : {}),
    // With several processes (TEST_CLUSTER), the command line joins them as an operator's would.
    ...(cfg.redisUrl ? { REDIS_URL: cfg.redisUrl, PARLEY_REDIS_PREFIX: cfg.redisPrefix } : {}),
  };
}

function runAdmin(env: Record<string, string>, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    // A command that hangs fails here within a minute instead of holding up the whole run.
    execFile(process.execPath, [join(root, 'src/cli/admin.ts'), ...args], { env: childEnv(env), cwd: root, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

test('bad arguments: usage on stderr, exit code 2', async () => {
  for (const args of [[], ['frobnicate'], ['create-user', '--name', 'No Email'], ['create-user', '--email', 'a@example.com', '--name', 'A', '--bogus', 'x'], ['change-role', 'someone'], ['change-role', 'someone', 'emperor'], ['api-key'], ['create-bot', '--owner', 'x@example.com', '--name', 'B', '--short-name', 'b', '--type', 'embedded']]) {
    const r = await cli(...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /Usage: parley-admin <command>/);
    assert.equal(r.stdout, '');
  }
  const help = await cli('--help');
  assert.equal(help.code, 0);
  assert.match(help.stdout, /create-user --email EMAIL --name NAME/);
});

test('errors: one line on stderr, exit code 1', async () => {
  for (const args of [['api-key', 'nobody@example.com'], ['deactivate', '999999'], ['zuliprc', 'ghost@example.com']]) {
    const r = await cli(...args);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /^parley-admin: error: no such user: /);
  }
  const dup = await cli('create-user', '--email', t.owner.email, '--name', 'Dup');
  assert.equal(dup.code, 1);
  assert.equal(dup.stderr, `parley-admin: error: Email '${t.owner.email}' already in use\n`);
  const last = await cli('deactivate', t.owner.email);
  assert.equal(last.code, 1);
  assert.equal(last.stderr, 'parley-admin: error: Cannot deactivate the only organization owner\n');
  const demote = await cli('change-role', String(t.owner.id), 'member');
  assert.equal(demote.code, 1);
  assert.match(demote.stderr, /only organization owner/);
});

test('create-user, api-key, zuliprc: the account works over the API', async () => {
  const r = await cli('create-user', '--email', 'cli-user@example.com', '--name', 'Cli User', '--password', 'cli-password-1', '--role', 'moderator');
  assert.equal(r.code, 0, r.stderr);
  const m = /^Created user cli-user@example\.com \(ID (\d+), role 300\)\n$/.exec(r.stdout);
  assert.ok(m, r.stdout);
  const id = Number(m[1]);
  const key = await cli('api-key', 'cli-user@example.com');
  assert.equal(key.code, 0);
  const apiKey = key.stdout.trim();
  assert.match(apiKey, /^[A-Za-z0-9]{32}$/);
  const me = assertSuccess(await t.client({ email: 'cli-user@example.com', apiKey }).get('/users/me'));
  assert.equal(me.user_id, id);
  assert.equal(me.role, 300);
  assert.equal(me.full_name, 'Cli User');
  // Welcome Bot greets the new user, as after POST /users (the greeting starred).
  const { messages } = assertSuccess(await t.client({ email: 'cli-user@example.com', apiKey }).get('/messages', { anchor: 'newest', num_before: 5, num_after: 0 }));
  assert.deepEqual(
    messages.map((m: { sender_email: string; type: string; flags: string[] }) => [m.sender_email, m.type, m.flags]),
    [['welcome-bot@zulip.com', 'private', ['starred']]],
  );
  // Password login works too.
  assertSuccess(await t.client(null).post('/fetch_api_key', { username: 'cli-user@example.com', password: 'cli-password-1' }));
  const rc = await cli('zuliprc', String(id));
  assert.equal(rc.code, 0);
  assert.equal(rc.stdout, `[api]\nemail=cli-user@example.com\nkey=${apiKey}\nsite=${t.server.svc.config.externalUrl}\n`);
});

test('change-role, regenerate-api-key, deactivate, reactivate', async () => {
  const u = await t.makeUser();
  const role = await cli('change-role', u.email, 'administrator');
  assert.equal(role.code, 0, role.stderr);
  assert.equal(role.stdout, `Role of ${u.email} is now 200\n`);
  assert.equal(assertSuccess(await t.client(t.owner).get(`/users/${u.id}`)).user.role, 200);
  assert.equal((await cli('change-role', u.email, '400')).code, 0);
  assert.equal(assertSuccess(await t.client(t.owner).get(`/users/${u.id}`)).user.role, 400);

  const regen = await cli('regenerate-api-key', String(u.id));
  assert.equal(regen.code, 0);
  const newKey = regen.stdout.trim();
  assert.notEqual(newKey, u.apiKey);
  assertError(await t.client(u).get('/users/me'), 401, 'UNAUTHORIZED', 'Invalid API key');
  const fresh = { email: u.email, apiKey: newKey };
  assertSuccess(await t.client(fresh).get('/users/me'));

  const bot = await t.makeUser({ isBot: true, botOwnerId: u.id });
  const off = await cli('deactivate', u.email);
  assert.equal(off.code, 0, off.stderr);
  assert.equal(off.stdout, `Deactivated ${u.email} and 1 bot(s)\n`);
  assertError(await t.client(fresh).get('/users/me'), 401, 'USER_DEACTIVATED');
  assertError(await t.client(bot).get('/users/me'), 401, 'USER_DEACTIVATED');
  const again = await cli('deactivate', u.email);
  assert.equal(again.code, 1);

  const on = await cli('reactivate', u.email);
  assert.equal(on.code, 0, on.stderr);
  assert.equal(on.stdout, `Reactivated ${u.email}\n`);
  assertSuccess(await t.client(fresh).get('/users/me'));
  assert.equal((await cli('reactivate', u.email)).code, 1);
});

test('create-bot: owned by the given user, usable with the printed key', async () => {
  const owner = await t.makeUser();
  const r = await cli('create-bot', '--owner', owner.email, '--name', 'Cli Bot', '--short-name', 'clibot', '--type', 'incoming-webhook');
  assert.equal(r.code, 0, r.stderr);
  const host = new URL(t.server.svc.config.externalUrl).hostname;
  const m = new RegExp(`^Created bot clibot-bot@${host.replace(/\./g, '\\.')} \\(ID (\\d+), owner ${owner.email.replace(/\./g, '\\.')}\\)\\nAPI key: ([A-Za-z0-9]{32})\\n$`).exec(r.stdout);
  assert.ok(m, r.stdout);
  // An incoming-webhook bot's key may only send messages (Zulip's rule).
  const sent = assertSuccess(await t.client({ email: `clibot-bot@${host}`, apiKey: m[2] }).post('/messages', { type: 'direct', to: [owner.id], content: 'hello' }));
  assert.equal(assertSuccess(await t.client(owner).get(`/messages/${sent.id}`)).message.sender_id, Number(m[1]));
  const seen = assertSuccess(await t.client(owner).get(`/users/${m[1]}`)).user;
  assert.equal(seen.bot_type, 2);
  assert.equal(seen.bot_owner_id, owner.id);
  const dup = await cli('create-bot', '--owner', owner.email, '--name', 'Other Bot', '--short-name', 'clibot');
  assert.equal(dup.code, 1);
  assert.equal(dup.stderr, 'parley-admin: error: Username already in use\n');
  const noOwner = await cli('create-bot', '--owner', 'nobody@example.com', '--name', 'X Bot', '--short-name', 'xb');
  assert.equal(noOwner.code, 1);
});

test('realm get / realm set: read and change organization settings', async () => {
  const all = await cli('realm', 'get');
  assert.equal(all.code, 0, all.stderr);
  const settings = JSON.parse(all.stdout);
  assert.equal(settings.enable_read_receipts, true);
  assert.equal(typeof settings.can_invite_users_group, 'number');
  const set = await cli('realm', 'set', 'enable_read_receipts', 'false');
  assert.equal(set.code, 0, set.stderr);
  assert.equal(set.stdout, 'Set enable_read_receipts to false\n');
  const one = await cli('realm', 'get', 'enable_read_receipts');
  assert.equal(one.stdout, 'false\n');
  assert.equal(assertSuccess(await t.client(t.owner).post('/register', { fetch_event_types: ['realm'] })).realm_enable_read_receipts, false);
  const text = await cli('realm', 'set', 'default_code_block_language', 'python');
  assert.equal(text.code, 0, text.stderr);
  assert.equal((await cli('realm', 'get', 'default_code_block_language')).stdout, '"python"\n');
  const retention = await cli('realm', 'set', 'message_retention_days', '"unlimited"');
  assert.equal(retention.code, 0, retention.stderr);
  assert.equal((await cli('realm', 'get', 'message_retention_days')).stdout, '-1\n');
  // Bad values get the API's error; unknown names are usage errors.
  const bad = await cli('realm', 'set', 'default_language', 'xx');
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr, "parley-admin: error: Invalid language 'xx'\n");
  const badType = await cli('realm', 'set', 'waiting_period_threshold', 'soon');
  assert.equal(badType.code, 1);
  assert.equal(badType.stderr, 'parley-admin: error: waiting_period_threshold is not valid JSON\n');
  const unknown = await cli('realm', 'set', 'frobnication', '1');
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown organization setting: frobnication/);
  assert.equal((await cli('realm', 'get', 'frobnication')).code, 1);
});

test('with several processes, a change made here is announced to the servers before the command ends', async (c) => {
  const cfg = t.server.svc.config;
  if (!cfg.redisUrl) return c.skip('needs REDIS_URL (TEST_REDIS_URL)');
  const u = await t.makeUser({ name: 'Announced' });
  const feed = `${cfg.redisPrefix}table-changes`;
  const redis = t.server.svc.redis!.cmd;
  const before = Number((await redis.hget(feed, 'users')) ?? 0);
  const off = await cli('deactivate', u.email);
  assert.equal(off.code, 0, off.stderr);
  assert.ok(Number(await redis.hget(feed, 'users')) > before, 'the users counter of the change feed moved');
  // So every server refuses the account's key at once.
  for (const node of t.nodes) {
    const res = await new Client(node.url, u).get('/users/me');
    assertError(res, 401, 'USER_DEACTIVATED');
  }
});

test('a setting it cannot use: one line on stderr, exit code 1', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-admin-settings-'));
  try {
    for (const args of [['backup', join(dir, 'b.sqlite3')], ['export', join(dir, 'e.tar.gz')], ['realm', 'get']]) {
      const r = await runAdmin({ ...serverEnv(), PORT: 'abc' }, args);
      assert.equal(r.code, 1, `${args[0]}: ${r.stderr}`);
      assert.equal(r.stderr, 'parley-admin: error: PORT must be a number, got "abc"\n');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a command on an empty DATA_DIR creates the organization and shows its owner password once', { timeout: 90_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-admin-empty-'));
  const env = { DATA_DIR: dir };
  let server: NodeProcess | undefined;
  try {
    const first = await runAdmin(env, ['realm', 'get', 'name']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^Created the organization and its owner: owner@parley\.local\n/);
    const pw = /Owner password \(shown once\): (\S+)/.exec(first.stdout);
    assert.ok(pw, first.stdout);
    const again = await runAdmin(env, ['realm', 'get', 'name']);
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stdout, /Created the organization|password/i);
    // A user created before the first server start joins the default channel, as one created later would.
    const made = await runAdmin(env, ['create-user', '--email', 'early@example.com', '--name', 'Early User', '--password', 'early-password-1']);
    assert.equal(made.code, 0, made.stderr);
    // The password shown logs the owner in on the server started afterwards.
    server = await spawnNode({ DATA_DIR: dir });
    const anon = new Client(server.url, null);
    assertSuccess(await anon.post('/fetch_api_key', { username: 'owner@parley.local', password: pw[1]! }));
    const subscribed = async (username: string, password: string) => {
      const { api_key } = assertSuccess(await anon.post('/fetch_api_key', { username, password }));
      const { subscriptions } = assertSuccess(await new Client(server!.url, { email: username, apiKey: api_key }).get('/users/me/subscriptions'));
      return (subscriptions as { name: string }[]).map((s) => s.name).sort();
    };
    assert.deepEqual(await subscribed('owner@parley.local', pw[1]!), ['core team', 'general']);
    assert.deepEqual(await subscribed('early@example.com', 'early-password-1'), ['general']);
  } finally {
    if (server) await stopNode(server);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('set-password: a generated or given password logs in, the old one no longer does, web sessions end', async () => {
  const email = 'set-password@example.com';
  assert.equal((await cli('create-user', '--email', email, '--name', 'Set Password', '--password', 'Old-pass-123')).code, 0);
  const anon = new Client(t.url, null);
  const web = new WebClient(t.url);
  assert.equal((await web.login(email, 'Old-pass-123')).status, 200);
  assert.equal((await web.get('/json/users/me')).status, 200);

  const generated = await cli('set-password', email);
  assert.equal(generated.code, 0, generated.stderr);
  assert.match(generated.stdout, new RegExp(`^Password of ${email} set; their web sessions ended\\n`));
  const pw = /New password \(shown once\): (\S+)/.exec(generated.stdout);
  assert.ok(pw, generated.stdout);
  assert.equal((await web.get('/json/users/me')).status, 401, 'the session ended');
  assertSuccess(await anon.post('/fetch_api_key', { username: email, password: pw[1]! }));
  assertError(await anon.post('/fetch_api_key', { username: email, password: 'Old-pass-123' }), 401, 'AUTHENTICATION_FAILED', 'Your username or password is incorrect');

  const given = await cli('set-password', email, '--password', 'Given-pass-456');
  assert.equal(given.code, 0, given.stderr);
  assert.doesNotMatch(given.stdout, /shown once/);
  assertSuccess(await anon.post('/fetch_api_key', { username: email, password: 'Given-pass-456' }));

  const weak = await cli('set-password', email, '--password', 'aaa');
  assert.equal(weak.code, 1);
  assert.equal(weak.stderr, 'parley-admin: error: New password is too weak!\n');
  const bot = await cli('create-bot', '--owner', email, '--name', 'Pw Bot', '--short-name', 'pw');
  const botEmail = /^Created bot (\S+) /.exec(bot.stdout)![1]!;
  const botPw = await cli('set-password', botEmail);
  assert.equal(botPw.code, 1);
  assert.equal(botPw.stderr, 'parley-admin: error: Bots have no password.\n');
  assert.equal((await cli('set-password')).code, 2);
});
