/**
 * A real Zulip client library against Parley: zulip-js (the npm package,
 * unchanged) configured from a zuliprc file, as its users configure it.
 *
 * zulip-js sends GET/DELETE parameters in the query string and POST bodies
 * as multipart/form-data.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, OWNER_PASSWORD, type TestServer } from './helpers.ts';
import { zuliprc } from '../src/actions/realm.ts';

// zulip-js is CommonJS without type declarations: describe the part used here.
type Json = Record<string, any>;
interface ZulipClient {
  config: { apiURL: string; username: string; apiKey: string };
  users: { me: { getProfile(): Promise<Json> } };
  server: { settings(): Promise<Json> };
  queues: { register(p: Json): Promise<Json>; deregister(p: Json): Promise<Json> };
  events: { retrieve(p: Json): Promise<Json> };
  callEndpoint(endpoint: string, method?: string, params?: Json): Promise<Json>;
}
type ZulipInit = (config: { zuliprc: string } | { username: string; password?: string; apiKey?: string; realm: string }) => Promise<ZulipClient>;
const zulipInit = createRequire(import.meta.url)('zulip-js') as ZulipInit;

let t: TestServer;
let dir: string;
let rcPath: string;

before(async () => {
  t = await startTestServer({ PARLEY_HEARTBEAT_SECONDS: '1' });
  dir = mkdtempSync(join(tmpdir(), 'parley-zulipjs-'));
  rcPath = join(dir, 'zuliprc');
  writeFileSync(rcPath, zuliprc(t.owner.email, t.owner.apiKey, t.url));
});

after(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

test('zulip-js reads the zuliprc and fetches the own user', async () => {
  const z = await zulipInit({ zuliprc: rcPath });
  assert.equal(z.config.apiURL, `${t.url}/api/v1`);
  const me = await z.users.me.getProfile();
  assert.equal(me.result, 'success', JSON.stringify(me));
  assert.equal(me.user_id, t.owner.id);
  assert.equal(me.email, t.owner.email);
  assert.equal(me.is_owner, true);
});

test('zulip-js: server settings', async () => {
  const z = await zulipInit({ zuliprc: rcPath });
  const s = await z.server.settings();
  assert.equal(s.result, 'success', JSON.stringify(s));
  assert.equal(s.zulip_feature_level, 483);
  assert.equal(s.realm_url, t.url);
  assert.equal(typeof s.zulip_version, 'string');
});

test('zulip-js: register a queue, long-poll it (heartbeat), delete it', async () => {
  const z = await zulipInit({ zuliprc: rcPath });
  const reg = await z.queues.register({ event_types: ['heartbeat'] });
  assert.equal(reg.result, 'success', JSON.stringify(reg).slice(0, 500));
  assert.equal(typeof reg.queue_id, 'string');
  assert.equal(reg.zulip_feature_level, 483);

  // Non-blocking poll: nothing yet.
  const empty = await z.events.retrieve({ queue_id: reg.queue_id, last_event_id: reg.last_event_id, dont_block: true });
  assert.equal(empty.result, 'success', JSON.stringify(empty));
  assert.deepEqual(empty.events, []);

  // Blocking poll: answered by a heartbeat (PARLEY_HEARTBEAT_SECONDS=1).
  const polled = await z.events.retrieve({ queue_id: reg.queue_id, last_event_id: reg.last_event_id });
  assert.equal(polled.result, 'success', JSON.stringify(polled));
  assert.equal(polled.events.length, 1);
  assert.equal(polled.events[0].type, 'heartbeat');
  assert.equal(typeof polled.events[0].id, 'number');

  const del = await z.queues.deregister({ queue_id: reg.queue_id });
  assert.equal(del.result, 'success', JSON.stringify(del));
  const gone = await z.events.retrieve({ queue_id: reg.queue_id, last_event_id: polled.events[0].id, dont_block: true });
  assert.equal(gone.result, 'error');
  assert.equal(gone.code, 'BAD_EVENT_QUEUE_ID');
});

test('zulip-js: a wrong API key is an authentication error', async () => {
  const bad = join(dir, 'zuliprc-bad');
  writeFileSync(bad, zuliprc(t.owner.email, 'x'.repeat(32), t.url));
  const z = await zulipInit({ zuliprc: bad });
  const me = await z.users.me.getProfile();
  assert.equal(me.result, 'error');
  assert.equal(me.code, 'UNAUTHORIZED');
});

// zulip-js sends every POST body as multipart/form-data, which Zulip reads like
// a form-encoded body.
test('zulip-js: log in with a password (POST /fetch_api_key as multipart/form-data)', async () => {
  const z = await zulipInit({ username: t.owner.email, password: OWNER_PASSWORD, realm: t.url });
  assert.equal(z.config.apiKey, t.owner.apiKey);
  const me = await z.users.me.getProfile();
  assert.equal(me.user_id, t.owner.id);
});

test('zulip-js: POST parameters sent as multipart/form-data are read (register event_types)', async () => {
  const z = await zulipInit({ zuliprc: rcPath });
  const reg = await z.queues.register({ event_types: ['heartbeat'], fetch_event_types: '["realm"]' });
  assert.equal(reg.result, 'success', JSON.stringify(reg).slice(0, 500));
  assert.deepEqual(reg.ignored_parameters_unsupported ?? [], []);
  // Only the realm section was asked for: no user list.
  assert.equal('realm_users' in reg, false);
  assert.equal('realm_name' in reg, true);
});
