/**
 * Data exports: POST/GET /export/realm, DELETE /export/realm/{id}, GET
 * /export/realm/consents, the realm_export and realm_export_consent events,
 * the archive served to administrators, and the command line's export and
 * import: a round trip into a fresh Parley (a new DATA_DIR, or a new
 * PostgreSQL schema with TEST_DATABASE_URL) keeping IDs, messages,
 * subscriptions, flags, groups, uploads, passwords and API keys.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import tar from 'tar-stream';
import pg from 'pg';
import {
  startTestServer,
  assertError,
  assertSuccess,
  assertComponent,
  assertSchema,
  openQueue,
  sleep,
  Client,
  childEnv,
  OWNER_EMAIL,
  type TestServer,
  type Account,
} from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';
import { ROLE } from '../src/store/users.ts';
import { failInterruptedExports, waitForExports } from '../src/actions/realm-export.ts';
import { insertRealmExport } from '../src/store/realm-exports.ts';
import { importArchive, writeArchive } from '../src/store/archive.ts';
import { archivedTables, readRows, type TableInfo } from '../src/store/archive-tables.ts';
import { openStore } from '../src/store/db.ts';
import { migrate } from '../src/store/migrations.ts';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';

let t: TestServer;
let admin: Account, member: Account, alice: Account;
let O: Client, AD: Client, M: Client, A: Client;
let pubId: number, privId: number;

const ADMIN_ERROR = 'Must be an organization administrator';

before(async () => {
  t = await startTestServer();
  admin = await t.makeUser({ name: 'Admin', role: ROLE.ADMINISTRATOR });
  member = await t.makeUser({ name: 'Member' });
  alice = await t.makeUser({ name: 'Alice', password: 'alice-password-123' });
  [O, AD, M, A] = [t.owner, admin, member, alice].map((u) => t.client(u));
  pubId = await makeChannel(t, { name: 'export-pub', subscribers: [t.owner.id, alice.id, member.id] });
  privId = await makeChannel(t, { name: 'export-priv', inviteOnly: true, subscribers: [t.owner.id, alice.id] });
});
after(async () => {
  await waitForExports();
  await t.close();
});

const authHeader = (acc: Account | null) => (acc ? { Authorization: 'Basic ' + Buffer.from(`${acc.email}:${acc.apiKey}`).toString('base64') } : {});

async function download(url: string, acc: Account | null): Promise<{ status: number; headers: Headers; data: Buffer }> {
  const res = await fetch(url, { headers: authHeader(acc) });
  return { status: res.status, headers: res.headers, data: Buffer.from(await res.arrayBuffer()) };
}

/** The entries of a .tar.gz archive (names and contents). */
async function readArchive(data: Buffer): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const extract = tar.extract();
  Readable.from([data]).pipe(createGunzip()).pipe(extract);
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const c of entry) chunks.push(c as Buffer);
    out.set(entry.header.name, Buffer.concat(chunks));
  }
  return out;
}

function tableRows(entries: Map<string, Buffer>, table: string): Array<Record<string, any>> {
  const rows: Array<Record<string, any>> = [];
  for (const [name, data] of entries) {
    if (!name.startsWith(`tables/${table}/`)) continue;
    for (const line of data.toString('utf8').split('\n')) if (line) rows.push(JSON.parse(line));
  }
  return rows;
}

/** Reads a queue until an export event shows every export finished (the archive is written in the background). */
async function untilSettled(q: Awaited<ReturnType<typeof openQueue>>, seen: any[]): Promise<any> {
  for (let i = 0; i < 400; i++) {
    seen.push(...(await q.ofType('realm_export')));
    const last = seen[seen.length - 1];
    if (last && last.exports.every((e: any) => !e.pending)) return last;
    await waitForExports();
    await sleep(25);
  }
  throw new Error('the export never finished');
}

test('exports: administrators only, with Zulip errors for everyone else', async () => {
  assertError(await M.post('/export/realm'), 400, 'UNAUTHORIZED_PRINCIPAL', ADMIN_ERROR);
  assertError(await M.get('/export/realm'), 400, 'UNAUTHORIZED_PRINCIPAL', ADMIN_ERROR);
  assertError(await M.delete('/export/realm/1'), 400, 'UNAUTHORIZED_PRINCIPAL', ADMIN_ERROR);
  assertError(await M.get('/export/realm/consents'), 400, 'UNAUTHORIZED_PRINCIPAL', ADMIN_ERROR);
  assertError(await O.post('/export/realm', { export_type: 'full_without_consent' }), 400, 'BAD_REQUEST', 'Invalid export_type');
  assertError(await O.post('/export/realm', { export_type: 2 }), 400, 'BAD_REQUEST', 'Invalid export_type');
  // No owner consents yet: a full export with consent is refused.
  assertError(
    await O.post('/export/realm', { export_type: 'full_with_consent' }),
    400,
    'BAD_REQUEST',
    `Make sure at least one Organization Owner is consenting to the export or contact ${OWNER_EMAIL} for help.`,
  );
  assertError(await O.delete('/export/realm/99999'), 400, 'BAD_REQUEST', 'Invalid data export ID');
  assertSuccess(await O.get('/export/realm'));
});

test('consents: GET /export/realm/consents and realm_export_consent events to administrators only', async () => {
  const res = assertSuccess(await AD.get('/export/realm/consents'));
  const mine = res.export_consents.find((c: any) => c.user_id === member.id);
  assert.deepEqual(mine, { user_id: member.id, consented: false, email_address_visibility: 1 });
  assert.ok(!res.export_consents.some((c: any) => c.user_id === t.owner.id && c.consented));
  const qo = await openQueue(O, { event_types: ['realm_export_consent'] });
  const qa = await openQueue(AD, { event_types: ['realm_export_consent'] });
  const qm = await openQueue(M, { event_types: ['realm_export_consent'] });
  assertSuccess(await M.patch('/settings', { allow_private_data_export: true }));
  for (const q of [qo, qa]) assert.deepEqual((await q.ofType('realm_export_consent')).map(({ id: _id, ...e }) => e), [{ type: 'realm_export_consent', user_id: member.id, consented: true }]);
  assert.deepEqual(await qm.ofType('realm_export_consent'), []);
  const after = assertSuccess(await O.get('/export/realm/consents'));
  assert.equal(after.export_consents.find((c: any) => c.user_id === member.id).consented, true);
});

test('public export: request, realm_export events, list, download for administrators, delete', async () => {
  const sentPub = assertSuccess(await O.post('/messages', { type: 'stream', to: pubId, topic: 'export', content: 'public words' })).id;
  const sentPriv = assertSuccess(await O.post('/messages', { type: 'stream', to: privId, topic: 'export', content: 'private words' })).id;
  const qo = await openQueue(O, { event_types: ['realm_export'] });
  const qa = await openQueue(AD, { event_types: ['realm_export'] });
  const qm = await openQueue(M, { event_types: ['realm_export'] });
  const res = assertSuccess(await AD.post('/export/realm'));
  assert.deepEqual(Object.keys(res).sort(), ['id', 'msg', 'result']);
  const seen: any[] = [];
  const done = await untilSettled(qa, seen);
  // First the pending export, then the finished one.
  const first = seen[0].exports.find((e: any) => e.id === res.id);
  assert.equal(first.pending, true);
  assert.equal(first.export_url, null);
  const exp = done.exports.find((e: any) => e.id === res.id);
  for (const e of done.exports) assertComponent(e, 'RealmExport');
  for (const ev of seen) assertSchema({ status: 200, body: { result: 'success', msg: '', queue_id: 'q', events: [ev] }, headers: new Headers(), text: '' }, 'GET', '/events');
  assert.equal(exp.acting_user_id, admin.id);
  assert.equal(exp.export_type, 'public');
  assert.equal(exp.pending, false);
  assert.equal(exp.failed_timestamp, null);
  assert.equal(exp.deleted_timestamp, null);
  assert.equal(typeof exp.export_time, 'number');
  assert.match(exp.export_url, /^http:\/\/127\.0\.0\.1:\d+\/exports\/\d+\/[0-9a-f]{32}\/parley-export-.*\.tar\.gz$/);
  assert.ok((await qo.ofType('realm_export')).length >= 2, 'the owner hears about it too');
  assert.deepEqual(await qm.ofType('realm_export'), [], 'members never get export events');
  // Notification Bot tells the administrator who asked.
  const notice = assertSuccess(await AD.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: false })).messages[0];
  assert.equal(notice.sender_email, 'notification-bot@zulip.com');
  assert.equal(notice.type, 'private');
  assert.equal(notice.content, 'Your data export is complete. [View and download exports](#organization/data-exports-admin).');

  const list = assertSuccess(await O.get('/export/realm'));
  assert.deepEqual(list.exports.find((e: any) => e.id === res.id), exp);
  for (const e of list.exports) assertComponent(e, 'RealmExport');

  // The archive: administrators only.
  assert.equal((await download(exp.export_url, member)).status, 403);
  assert.equal((await download(exp.export_url, null)).status, 401);
  const got = await download(exp.export_url, t.owner);
  assert.equal(got.status, 200);
  assert.equal(got.headers.get('content-type'), 'application/gzip');
  const entries = await readArchive(got.data);
  const manifest = JSON.parse(entries.get('manifest.json')!.toString('utf8'));
  assert.equal(manifest.format, 'parley-organization-archive');
  assert.equal(manifest.scope, 'public');
  const messageIds = tableRows(entries, 'messages').map((m) => m.id);
  assert.ok(messageIds.includes(sentPub), 'public channel messages are in a public export');
  assert.ok(!messageIds.includes(sentPriv), 'private channel messages are not');
  assert.ok(!tableRows(entries, 'streams').some((s) => s.id === privId), 'private channels are not');
  assert.deepEqual(tableRows(entries, 'sessions'), []);
  assert.deepEqual(tableRows(entries, 'drafts'), []);
  for (const name of ['sessions', 'drafts', 'channel_email_addresses', 'bot_services', 'invitations', 'direct_groups', 'user_topics']) {
    assert.ok(!manifest.tables.some((tb: any) => tb.name === name), `${name} is not in a public export`);
  }
  assert.ok(manifest.tables.some((tb: any) => tb.name === 'user_groups'));
  const users = tableRows(entries, 'users');
  assert.ok(users.some((u) => u.id === alice.id));
  assert.ok(!users.some((u) => u.api_key === alice.apiKey || u.api_key === t.owner.apiKey), 'no usable API key leaves the server');

  // Delete: the file goes, the event says so, and a second delete is refused.
  assertSuccess(await AD.delete(`/export/realm/${res.id}`));
  const [deleted] = (await qa.ofType('realm_export')).slice(-1);
  const d = deleted.exports.find((e: any) => e.id === res.id);
  assert.equal(typeof d.deleted_timestamp, 'number');
  assert.equal(d.export_url, null);
  assert.deepEqual(await qm.ofType('realm_export'), []);
  assert.equal((await download(exp.export_url, t.owner)).status, 404);
  assertError(await AD.delete(`/export/realm/${res.id}`), 400, 'BAD_REQUEST', 'Export already deleted');
});

test('a failed export is reported with failed_timestamp, and one a stopped server left unfinished too', async () => {
  const exportsDir = join(t.server.svc.config.dataDir, 'exports');
  rmSync(exportsDir, { recursive: true, force: true });
  writeFileSync(exportsDir, 'in the way'); // the archive cannot be written
  const qa = await openQueue(AD, { event_types: ['realm_export'] });
  try {
    const res = assertSuccess(await O.post('/export/realm'));
    const done = await untilSettled(qa, []);
    const exp = done.exports.find((e: any) => e.id === res.id);
    assertComponent(exp, 'RealmExport');
    assert.equal(exp.pending, false);
    assert.equal(typeof exp.failed_timestamp, 'number');
    assert.equal(exp.export_url, null);
    assert.equal(exp.deleted_timestamp, null);
    assertError(await O.delete(`/export/realm/${res.id}`), 400, 'BAD_REQUEST', 'Export failed, nothing to delete');
  } finally {
    rmSync(exportsDir, { force: true });
  }
  // An export recorded as started by a process that stopped (a week ago, so the weekly limit does not count it).
  const svc = t.server.svc;
  const row = await insertRealmExport(svc.store.db, { realm_id: svc.realmId, acting_user_id: t.owner.id, export_type: 'public', status: 1, date_requested: Date.now() / 1000 - 8 * 86400 });
  await failInterruptedExports(svc);
  await t.eventsDelivered();
  const [ev] = (await qa.ofType('realm_export')).slice(-1);
  const interrupted = ev.exports.find((e: any) => e.id === row.id);
  assert.equal(interrupted.pending, false);
  assert.equal(typeof interrupted.failed_timestamp, 'number');
});

test('full export with consent: private data of consenting users; five exports a week', async () => {
  assertSuccess(await O.patch('/settings', { allow_private_data_export: true }));
  const dm = assertSuccess(await M.post('/messages', { type: 'direct', to: JSON.stringify([alice.id]), content: 'consented dm' })).id;
  const qa = await openQueue(AD, { event_types: ['realm_export'] });
  const res = assertSuccess(await O.post('/export/realm', { export_type: 'full_with_consent' }));
  const done = await untilSettled(qa, []);
  const exp = done.exports.find((e: any) => e.id === res.id);
  assert.equal(exp.export_type, 'full_with_consent');
  const archive = (await download(exp.export_url, admin)).data;
  const entries = await readArchive(archive);
  assert.equal(JSON.parse(entries.get('manifest.json')!.toString('utf8')).scope, 'consent');
  // It imports like any other archive; the API keys in it were replaced, the passwords work.
  await withImported(archive, async (url) => {
    const login = assertSuccess(await new Client(url, null).post('/fetch_api_key', { username: alice.email, password: 'alice-password-123' }));
    assert.notEqual(login.api_key, alice.apiKey);
    const A2 = new Client(url, { email: alice.email, apiKey: login.api_key }, { n: 0 });
    const dms = assertSuccess(await A2.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'dm' }]) })).messages;
    assert.ok(dms.some((m: any) => m.id === dm));
    assertError(await new Client(url, alice).get('/users/me'), 401, 'UNAUTHORIZED');
  });
  assert.ok(tableRows(entries, 'messages').some((m) => m.id === dm), "a consenting user's direct messages are in it");
  assert.ok(tableRows(entries, 'streams').some((s) => s.id === privId), "the consenting owner's private channel is in it");

  // Deleting an unfinished export is refused; the weekly limit counts every request (5).
  const pending = assertSuccess(await O.post('/export/realm'));
  assertError(await O.delete(`/export/realm/${pending.id}`), 400, 'BAD_REQUEST', 'Export still in progress');
  assertSuccess(await O.post('/export/realm'));
  assertError(await O.post('/export/realm'), 400, 'BAD_REQUEST', 'Exceeded rate limit.');
  await untilSettled(qa, []);
});

// ---------------------------------------------------------------------------
// The command line: export, import into a fresh Parley, and the API on it.

const ADMIN_CLI = join(import.meta.dirname, '..', 'src', 'cli', 'admin.ts');

/** Runs the admin command line with `env` and only what a child needs of this process's environment (childEnv). */
function runAdmin(env: Record<string, string>, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    execFile(process.execPath, [ADMIN_CLI, ...args], { env: childEnv(env) }, (err, stdout, stderr) => {
      res({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function freshTarget(): Promise<{ env: Record<string, string>; dataDir: string; cleanup(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-import-'));
  const dbUrl = process.env.TEST_DATABASE_URL;
  if (!dbUrl) return { env: { DATA_DIR: dataDir, DATABASE_URL: '', PARLEY_PG_SCHEMA: '' }, dataDir, cleanup: async () => rmSync(dataDir, { recursive: true, force: true }) };
  const schema = `imp_${process.pid}_${randomBytes(4).toString('hex')}`;
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  await c.query(`CREATE SCHEMA ${schema}`);
  await c.end();
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: dbUrl, PARLEY_PG_SCHEMA: schema },
    dataDir,
    async cleanup() {
      rmSync(dataDir, { recursive: true, force: true });
      const c2 = new pg.Client({ connectionString: dbUrl });
      await c2.connect();
      await c2.query(`DROP SCHEMA ${schema} CASCADE`);
      await c2.end();
    },
  };
}

/** Imports an archive into a fresh Parley with the command line and runs `fn` against a server started on it. */
async function withImported(archive: Buffer, fn: (url: string) => Promise<void>): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'parley-archive-'));
  const file = join(workDir, 'api.tar.gz');
  writeFileSync(file, archive);
  const target = await freshTarget();
  try {
    const imported = await runAdmin(target.env, ['import', file]);
    assert.equal(imported.code, 0, imported.stderr);
    const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', PARLEY_API_RATE_LIMIT_PER_MINUTE: '0', ...target.env } as NodeJS.ProcessEnv);
    const server = await startServer(config);
    try {
      await fn(server.url);
    } finally {
      await server.close();
    }
  } finally {
    await target.cleanup();
    rmSync(workDir, { recursive: true, force: true });
  }
}

test('round trip: export on the command line, import into a fresh Parley, same IDs, messages, flags, groups, uploads and credentials', async () => {
  // The organization: channels, messages, a direct message, a reaction, a starred message, an upload, a group, a setting.
  const png = randomBytes(3000);
  const form = new FormData();
  form.append('file', new Blob([png], { type: 'application/octet-stream' }), 'picture.bin');
  const up = await fetch(`${t.url}/api/v1/user_uploads`, { method: 'POST', headers: authHeader(alice), body: form });
  const upload = (await up.json()) as { url: string };
  const m1 = assertSuccess(await A.post('/messages', { type: 'stream', to: pubId, topic: 'trip', content: `with a file [picture.bin](${upload.url})` })).id;
  const m2 = assertSuccess(await A.post('/messages', { type: 'stream', to: privId, topic: 'trip', content: 'secret' })).id;
  const m3 = assertSuccess(await A.post('/messages', { type: 'direct', to: JSON.stringify([member.id]), content: 'hello member' })).id;
  assertSuccess(await M.post(`/messages/${m1}/reactions`, { emoji_name: 'smile' }));
  assertSuccess(await A.post('/messages/flags', { messages: [m2], op: 'add', flag: 'starred' }));
  const group = assertSuccess(await O.post('/user_groups/create', { name: 'travellers', description: 'round trip', members: [alice.id, member.id] })).group_id as number;
  assertSuccess(await A.patch('/settings', { enter_sends: true }));
  const before = {
    messages: assertSuccess(await A.get('/messages', { anchor: 'newest', num_before: 100, num_after: 0, apply_markdown: false })).messages,
    subs: assertSuccess(await A.get('/users/me/subscriptions')).subscriptions,
    groups: assertSuccess(await A.get('/user_groups')).user_groups,
    me: assertSuccess(await A.get('/users/me')),
  };
  const workDir = mkdtempSync(join(tmpdir(), 'parley-archive-'));
  const file = join(workDir, 'org.tar.gz');
  const source = t.server.svc.config;
  const sourceEnv = { DATA_DIR: source.dataDir, DATABASE_URL: source.databaseUrl ?? '', PARLEY_PG_SCHEMA: source.pgSchema ?? '' };
  const exported = await runAdmin(sourceEnv, ['export', file]);
  assert.equal(exported.code, 0, exported.stderr);
  assert.match(exported.stdout, /^Exported \d+ rows and \d+ files to .*org\.tar\.gz \(\d+ bytes\)\n$/);
  assert.equal((await runAdmin(sourceEnv, ['export', file])).stderr, `parley-admin: error: ${file} already exists\n`);
  // Into the source itself: refused (on SQLite the running server holds DATA_DIR; on PostgreSQL the database is not empty).
  const refused = await runAdmin(sourceEnv, ['import', file]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, source.databaseUrl ? /^parley-admin: error: this Parley is not empty/ : /^parley-admin: error: Another Parley process is using DATA_DIR/);

  const target = await freshTarget();
  try {
    const imported = await runAdmin(target.env, ['import', file]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /^Imported \d+ rows of \d+ tables and \d+ files from /);
    const again = await runAdmin(target.env, ['import', file]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^parley-admin: error: this Parley is not empty/);

    const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', PARLEY_API_RATE_LIMIT_PER_MINUTE: '0', ...target.env } as NodeJS.ProcessEnv);
    if (!config.databaseUrl) delete config.databaseUrl;
    const server = await startServer(config);
    try {
      assert.equal(server.bootstrap.created, undefined, 'the imported organization is used, none is created');
      server.svc.config.externalUrl = server.url;
      const A2 = new Client(server.url, alice, { n: 0 });
      const me = assertSuccess(await A2.get('/users/me'));
      assert.equal(me.user_id, alice.id, 'the old API key works');
      assert.deepEqual(me, { ...before.me, avatar_url: me.avatar_url });
      const messages = assertSuccess(await A2.get('/messages', { anchor: 'newest', num_before: 100, num_after: 0, apply_markdown: false })).messages;
      assert.deepEqual(messages, before.messages, 'messages, reactions and flags are all there with the same IDs');
      assert.ok(messages.find((m: any) => m.id === m2).flags.includes('starred'));
      assert.ok(messages.find((m: any) => m.id === m3));
      assert.deepEqual(messages.find((m: any) => m.id === m1).reactions.map((r: any) => [r.emoji_name, r.user_id]), [['smile', member.id]]);
      assert.deepEqual(assertSuccess(await A2.get('/users/me/subscriptions')).subscriptions, before.subs);
      assert.deepEqual(assertSuccess(await A2.get('/user_groups')).user_groups, before.groups);
      assert.ok(before.groups.some((g: any) => g.id === group));
      const file2 = await download(`${server.url}${upload.url}`, alice);
      assert.equal(file2.status, 200);
      assert.deepEqual(file2.data, png, 'the upload is served with the same bytes');
      // The password works too, and new rows get new IDs (PostgreSQL's sequences were moved past the imported ones).
      const login = await new Client(server.url, null).post('/fetch_api_key', { username: alice.email, password: 'alice-password-123' });
      assert.equal(assertSuccess(login).api_key, alice.apiKey);
      const m4 = assertSuccess(await A2.post('/messages', { type: 'stream', to: pubId, topic: 'trip', content: 'after the move' })).id;
      assert.ok(m4 > m3);
      const g2 = assertSuccess(await new Client(server.url, t.owner).post('/user_groups/create', { name: 'later', description: 'x', members: [alice.id] })).group_id;
      assert.ok(g2 > group);
    } finally {
      await server.close();
    }
  } finally {
    await target.cleanup();
    rmSync(workDir, { recursive: true, force: true });
  }
});

test('import: a file that is no archive is refused and leaves the target empty', async () => {
  const workDir = mkdtempSync(join(tmpdir(), 'parley-archive-'));
  const bad = join(workDir, 'bad.tar.gz');
  writeFileSync(bad, 'not an archive');
  const target = await freshTarget();
  try {
    const res = await runAdmin(target.env, ['import', bad]);
    assert.equal(res.code, 1);
    assert.equal(res.stderr, 'parley-admin: error: not a gzip-compressed Parley archive\n');
    assert.equal((await runAdmin(target.env, ['import', join(workDir, 'missing.tar.gz')])).stderr, `parley-admin: error: no such file: ${join(workDir, 'missing.tar.gz')}\n`);
    assert.equal((await runAdmin(target.env, ['import'])).code, 2);
  } finally {
    await target.cleanup();
    rmSync(workDir, { recursive: true, force: true });
  }
});

test('every table survives an export and import row for row, read in batches of 3 (both backends)', async () => {
  const source = t.server.svc;
  const workDir = mkdtempSync(join(tmpdir(), 'parley-archive-'));
  const file = join(workDir, 'small-batches.tar.gz');
  const progress: Array<[number, number]> = [];
  const res = await writeArchive({ store: source.store, dataDir: source.config.dataDir, file, scope: { kind: 'full' }, batch: 3, onProgress: (d, n) => progress.push([d, n]) });
  assert.ok(res.rows > 50, `${res.rows} rows`);
  assert.deepEqual(progress[progress.length - 1], [res.rows + res.files, res.rows + res.files]);
  const target = await freshTarget();
  const store = openStore({ dataDir: target.dataDir, databaseUrl: target.env.DATABASE_URL || undefined, pgSchema: target.env.PARLEY_PG_SCHEMA || undefined });
  try {
    await migrate(store);
    const imported = await importArchive({ store, dataDir: target.dataDir, file });
    assert.equal(imported.rows, res.rows);
    assert.equal(imported.files, res.files);
    const entries = await readArchive(readFileSync(file));
    const all = async (db: typeof store.db, table: TableInfo) => {
      const out: unknown[] = [];
      for await (const page of readRows(db, table, null, 500)) out.push(...page.map((r) => ({ ...r })));
      return out;
    };
    const sourceTables = new Map((await archivedTables(source.store.db, source.store.dialect)).map((tb) => [tb.name, tb]));
    const tables = await archivedTables(store.db, store.dialect);
    assert.deepEqual(tables.map((tb) => tb.name), [...sourceTables.keys()]);
    for (const table of tables) {
      const archived = tableRows(entries, table.name);
      // What was imported is what the archive holds, row for row ...
      assert.deepEqual(await all(store.db, table), archived, `table ${table.name}`);
      // ... and the archive holds the source's rows (tables that background jobs may write meanwhile aside).
      if (!['email_unsubscribe_keys', 'missed_message_emails', 'digest_emails', 'outgoing_webhook_jobs', 'user_presence', 'sessions'].includes(table.name)) {
        assert.deepEqual(archived, await all(source.store.db, sourceTables.get(table.name)!), `source table ${table.name}`);
      }
    }
    assert.ok(tableRows(entries, 'user_messages').length > 3, 'user_messages (a two-column key) spans several batches');
    assert.ok(tableRows(entries, 'subscriptions').length > 3);
  } finally {
    await store.close();
    await target.cleanup();
    rmSync(workDir, { recursive: true, force: true });
  }
});
