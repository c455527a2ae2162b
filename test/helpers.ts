/**
 * Test harness: starts a real server in-process on a free port (SQLite in a
 * temporary DATA_DIR, or PostgreSQL in a fresh schema when TEST_DATABASE_URL
 * is set), and talks to it over HTTP the way Zulip clients do: HTTP Basic
 * auth, form-encoded bodies, JSON-encoded list/object/int/bool values.
 * Success responses can be checked against Zulip's OpenAPI description when
 * ../shared is present.
 */
import { spawn } from 'node:child_process';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { mkdtempSync, rmSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash, randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import { after } from 'node:test';
import pg from 'pg';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../src/config.ts';
import { startServer, type RunningServer } from '../src/server.ts';
import { deleteKeysWithPrefix } from '../src/lib/redis.ts';
import { createUser } from '../src/actions/users.ts';
import { updateUser, type UserRow } from '../src/store/users.ts';

const here = dirname(fileURLToPath(import.meta.url));
export const SHARED_DIR = join(here, '..', '..', 'shared');
export const OPENAPI_PATH = join(SHARED_DIR, 'reference', 'zulip-openapi-fl247.yaml');

export const OWNER_EMAIL = 'owner@example.com';
export const OWNER_PASSWORD = 'owner-password-123';

export interface Account {
  id: number;
  email: string;
  apiKey: string;
  row: UserRow;
}

export interface TestServer {
  url: string;
  /** The first node (the only one unless TEST_CLUSTER is set). */
  server: RunningServer;
  /** Every node of the test deployment; clients spread their requests over them. */
  nodes: RunningServer[];
  owner: Account;
  client(account: { email: string; apiKey: string } | null): Client;
  /** Sets a personal setting straight in the store, sending no event (setup only). */
  setUserSetting(account: { id: number }, name: string, value: unknown): Promise<void>;
  /** Creates an account directly through the action layer (setup only). */
  makeUser(opts?: { role?: number; name?: string; email?: string; password?: string; isBot?: boolean; botOwnerId?: number; botType?: number }): Promise<Account>;
  /**
   * Settles once the events of actions the test called directly (not
   * through a request, which waits for them before it answers) have reached
   * their queues: on a cluster they go through Redis after the action returns.
   */
  eventsDelivered(): Promise<void>;
  close(): Promise<void>;
}

export interface Res {
  status: number;
  body: Record<string, any>;
  headers: Headers;
  text: string;
}

export type Params = Record<string, unknown>;

/** Encodes a parameter the way Zulip's client libraries do. */
export function encodeValue(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function formBody(params: Params): string {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) sp.append(k, encodeValue(v));
  return sp.toString();
}

export class Client {
  readonly base: string;
  readonly auth: string | null;
  private readonly bases: string[];
  private readonly turn: { n: number };
  /** With several base URLs (a cluster), requests go round-robin over them. */
  constructor(base: string | string[], account: { email: string; apiKey: string } | null, turn = { n: 0 }) {
    this.bases = Array.isArray(base) ? base : [base];
    this.base = this.bases[0];
    this.turn = turn;
    this.auth = account ? 'Basic ' + Buffer.from(`${account.email}:${account.apiKey}`).toString('base64') : null;
  }
  async request(method: string, path: string, params: Params = {}, init: { headers?: Record<string, string>; rawBody?: string | Buffer } = {}): Promise<Res> {
    const headers: Record<string, string> = { 'User-Agent': 'ZulipPython/0.9.0 (parley tests)', ...(init.headers ?? {}) };
    if (this.auth) headers.Authorization = this.auth;
    const base = this.bases.length === 1 ? this.base : this.bases[this.turn.n++ % this.bases.length];
    let url = `${base}/api/v1${path}`;
    let body: string | Buffer | undefined;
    if (init.rawBody !== undefined) {
      body = init.rawBody;
    } else if (method === 'GET' || method === 'HEAD') {
      const qs = formBody(params);
      if (qs) url += `?${qs}`;
    } else {
      body = formBody(params);
      headers['Content-Type'] ??= 'application/x-www-form-urlencoded';
    }
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    let parsed: Record<string, any>;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`non-JSON response ${res.status} for ${method} ${path}: ${text.slice(0, 200)}`);
    }
    return { status: res.status, body: parsed, headers: res.headers, text };
  }
  get(path: string, params?: Params) {
    return this.request('GET', path, params);
  }
  post(path: string, params?: Params) {
    return this.request('POST', path, params);
  }
  patch(path: string, params?: Params) {
    return this.request('PATCH', path, params);
  }
  delete(path: string, params?: Params) {
    return this.request('DELETE', path, params);
  }
  put(path: string, params?: Params) {
    return this.request('PUT', path, params);
  }
}

/**
 * The skip reason of tests that run the same whatever the backend: they
 * start their own server on SQLite, or none. CI's PostgreSQL and cluster
 * runs (TEST_DATABASE_URL) leave them to the SQLite run.
 */
export const SAME_ON_EVERY_BACKEND: string | false = process.env.TEST_DATABASE_URL ? 'the same on every backend: runs without TEST_DATABASE_URL' : false;

let pgSchemaCounter = 0;

/**
 * How many nodes a test server has: TEST_CLUSTER (default 1). More than one
 * needs TEST_DATABASE_URL and TEST_REDIS_URL: the nodes then share one
 * PostgreSQL schema, one Redis key prefix and one DATA_DIR, as the peers of
 * a real deployment do, and test clients send their requests round-robin.
 */
export const CLUSTER_SIZE = Math.max(1, Number(process.env.TEST_CLUSTER || 1));
const redisUrl = process.env.TEST_REDIS_URL || undefined;
if (CLUSTER_SIZE > 1 && !(process.env.TEST_DATABASE_URL && redisUrl)) {
  throw new Error('TEST_CLUSTER needs TEST_DATABASE_URL (PostgreSQL) and TEST_REDIS_URL');
}

/** Creates a PostgreSQL schema of a test's own in the database at `url`. */
export async function createPgSchema(url: string, schema: string): Promise<void> {
  await pgQuery(url, `CREATE SCHEMA ${schema}`);
}

/** Drops a schema that createPgSchema made, with everything in it. */
export async function dropPgSchema(url: string, schema: string): Promise<void> {
  await pgQuery(url, `DROP SCHEMA ${schema} CASCADE`);
}

async function pgQuery(url: string, text: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

/** Test servers still starting (see the hook below). */
const starting = new Set<Promise<TestServer>>();

// With --test-name-pattern matching none of a file's tests, node:test runs
// the file's `after` hooks without waiting for its `before` hooks: `after(()
// => t.close())` found no server yet, and the server that `before` went on
// to start kept the process alive for good. This hook, registered before any
// test file's own (the file imports this module first), waits for the starts
// under way, so the file's `after` finds its server. Starts have long ended
// by the time a normal run gets here: then it does nothing.
after(() => Promise.all([...starting].map((p) => p.catch(() => undefined))));

/** Starts a fresh server (or cluster, see CLUSTER_SIZE). Environment overrides apply to its configuration. */
export function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const p = startTestServerNow(env);
  starting.add(p);
  const done = () => void starting.delete(p);
  p.then(done, done);
  return p;
}

async function startTestServerNow(env: Record<string, string>): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-test-'));
  const dbUrl = process.env.TEST_DATABASE_URL;
  const unique = `${process.pid}_${Date.now().toString(36)}_${pgSchemaCounter++}_${randomBytes(3).toString('hex')}`;
  let schema: string | undefined;
  if (dbUrl) {
    schema = `t_${unique}`;
    await createPgSchema(dbUrl, schema);
  }
  const redisPrefix = `parley-test:${unique}:`;
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    PARLEY_OWNER_EMAIL: OWNER_EMAIL,
    PARLEY_OWNER_PASSWORD: OWNER_PASSWORD,
    PARLEY_API_RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'warn',
    ...(dbUrl ? { DATABASE_URL: dbUrl, PARLEY_PG_SCHEMA: schema } : {}),
    // CI's cluster run caps each node's pool, so several test files' nodes at once stay below PostgreSQL's connection limit.
    ...(dbUrl && process.env.TEST_PG_POOL_MAX ? { PARLEY_PG_POOL_MAX: process.env.TEST_PG_POOL_MAX } : {}),
    ...(redisUrl ? { REDIS_URL: redisUrl, PARLEY_REDIS_PREFIX: redisPrefix } : {}),
    ...env,
  } as NodeJS.ProcessEnv);
  const server = await startServer(config);
  const nodes = [server];
  for (let i = 1; i < CLUSTER_SIZE; i++) nodes.push(await startServer({ ...config, port: 0 }));
  const url = server.url;
  const urls = nodes.map((n) => n.url);
  const ownerRow = server.bootstrap.created!.owner;
  const owner: Account = { id: ownerRow.id, email: ownerRow.delivery_email, apiKey: ownerRow.api_key, row: ownerRow };
  // Every node answers with the deployment's one URL (the load balancer's, in production).
  for (const node of nodes) node.svc.config.externalUrl = url;
  const turn = { n: 0 };
  let n = 0;
  const eventsDelivered = async () => {
    for (const node of nodes) await node.svc.bus.flush();
  };
  return {
    url,
    server,
    nodes,
    owner,
    client: (account) => new Client(urls, account, turn),
    async setUserSetting(account, name, value) {
      const db = server.svc.store.db;
      const row = await db.selectFrom('users').select('settings_json').where('id', '=', account.id).executeTakeFirstOrThrow();
      const settings = JSON.parse(row.settings_json || '{}') as Record<string, unknown>;
      settings[name] = value;
      await updateUser(db, account.id, { settings_json: JSON.stringify(settings) });
      // The other nodes hear of it before the test's next request (a write outside a transaction is announced after it).
      await server.svc.store.changes.announced();
    },
    async makeUser(opts = {}) {
      n++;
      const email = opts.email ?? `user${n}-${randomBytes(2).toString('hex')}@example.com`;
      const row = await createUser(server.svc, {
        email,
        fullName: opts.name ?? `Test User ${n}`,
        password: opts.password,
        role: opts.role,
        isBot: opts.isBot,
        botOwnerId: opts.botOwnerId,
        botType: opts.botType,
      });
      await eventsDelivered();
      return { id: row.id, email: row.delivery_email, apiKey: row.api_key, row };
    },
    eventsDelivered,
    async close() {
      for (const node of nodes) await node.close();
      if (redisUrl) await deleteKeysWithPrefix(redisUrl, redisPrefix);
      rmSync(dataDir, { recursive: true, force: true });
      if (dbUrl && schema) await dropPgSchema(dbUrl, schema);
    },
  };
}

export { updateUser };

// ---------------------------------------------------------------------------
// Assertions

/** Asserts a Zulip error response: status, code and (optionally) message. */
export function assertError(res: Res, status: number, code: string, msg?: string | RegExp): void {
  assert.equal(res.body.result, 'error', `expected error, got ${res.text}`);
  assert.equal(res.status, status, `status for ${res.text}`);
  assert.equal(res.body.code, code, `code for ${res.text}`);
  if (typeof msg === 'string') assert.equal(res.body.msg, msg);
  else if (msg) assert.match(res.body.msg, msg);
}

export function assertSuccess(res: Res): Record<string, any> {
  assert.equal(res.status, 200, `expected 200, got ${res.status}: ${res.text}`);
  assert.equal(res.body.result, 'success', res.text);
  assert.equal(res.body.msg, '');
  return res.body;
}

/** The user's settings as the server has them: `user_settings` from POST /register. */
/** A channel's ID by its name, as `api`'s user looks it up (GET /get_stream_id). */
export async function streamIdOf(api: Client, name: string): Promise<number> {
  return assertSuccess(await api.get('/get_stream_id', { stream: name })).stream_id as number;
}

export async function settingsAtServer(api: Client): Promise<Record<string, any>> {
  return assertSuccess(await api.request('POST', '/register', { fetch_event_types: JSON.stringify(['user_settings']) })).user_settings as Record<string, any>;
}

// ---------------------------------------------------------------------------
// OpenAPI validation

/**
 * Fields Zulip added after feature level 247 (the reference OpenAPI's level);
 * they are removed from a copy of the response before validating it.
 */
export const POST_247_FIELDS = new Set<string>([
  // Data exports: their kind (FL 304).
  'export_type',
  // POST /register: the queue's idle timeout (FL 481).
  'idle_queue_timeout_secs',
  // Messages: when one last moved (FL 365).
  'last_moved_timestamp',
  // POST /register: the thumbnails made of uploaded images (FL 273).
  'server_thumbnail_formats',
  // Organization settings newer than feature level 247 (Zulip's current API).
  'realm_can_add_custom_emoji_group',
  'realm_can_create_bots_group',
  'realm_can_create_write_only_bots_group',
  'realm_enable_guest_user_dm_warning',
  'realm_message_edit_history_visibility_policy',
  'realm_require_e2ee_push_notifications',
  'realm_send_channel_events_messages',
  'realm_welcome_message_custom_text',
  'realm_gif_rating_policy', // FL 453 (realm_giphy_rating before)
  'gif_rating_policy_options', // FL 453
  'tenor_api_key', // FL 442
  'realm_default_avatar_source', // FL 456
  'realm_media_preview_size', // FL 469
  'realm_workplace_users_group', // FL 477
  'max_channel_folder_description_length',
  'max_channel_folder_name_length',
  'max_reminder_note_length',
  'realm_direct_message_permission_group',
  'reminders',
  'realm_can_manage_billing_group',
  'realm_can_move_messages_between_channels_group',
  'realm_can_move_messages_between_topics_group',
  'realm_can_resolve_topics_group',
  'realm_can_set_delete_message_policy_group',
  'realm_can_set_topics_policy_group',
  'realm_can_summarize_topics_group',
  'realm_direct_message_initiator_group',
  'is_imported_stub', // FL 433
  'realm_url', // FL 257 (realm_uri before)
  'ignored_because_not_subscribed_channels', // POST /messages/flags(/narrow), Zulip 10 (exact FL unverified)
  // channels, subscriptions and user groups (fields added after FL 247)
  'creator_id', // FL 254 (channels), FL 292 (user groups)
  'is_archived', // FL 315
  'is_recently_active', // FL 323
  'can_send_message_group', // FL 333
  'can_administer_channel_group', // FL 325
  'can_add_subscribers_group', // FL 342
  'can_subscribe_group', // FL 357
  'folder_id', // FL 389
  'topics_policy', // FL 392
  'subscriber_count', // FL 394
  'can_move_messages_out_of_channel_group', // FL 396
  'can_move_messages_within_channel_group', // FL 396
  'can_resolve_topics_group', // FL 402
  'can_delete_any_message_group', // FL 407
  'can_delete_own_message_group', // FL 407
  'partial_subscribers', // FL 412
  'can_create_topic_group', // FL 441
  'can_manage_group', // FL 283 (user groups)
  'deactivated', // FL 290 (user groups)
  'can_join_group', // FL 301
  'can_add_members_group', // FL 305
  'can_leave_group', // FL 308
  'can_remove_members_group', // FL 324
  'group_id', // FL 317 (POST /user_groups/create response)
  // 'parent>field' names a field only inside objects held under key parent.
  'realm_user_groups>date_created', // FL 292 (channels had date_created before)
  'user_groups>date_created', // FL 292
  'group>date_created', // FL 292 (user_group add event)
  'realm_can_create_public_channel_group', // FL 264
  'realm_can_create_private_channel_group', // FL 266
  'realm_can_create_web_public_channel_group', // FL 280
  'realm_can_add_subscribers_group', // FL 341
  'realm_can_create_groups', // FL 299
  'realm_can_manage_all_groups', // FL 305
  'presence_last_update_id', // FL 263
  'realm_max_file_upload_size_mib', // FL 306
  'realm_moderation_request_channel_id', // FL 331
  'realm_empty_topic_display_name', // FL 334
  'password_max_length', // FL 338
  'realm_topics_policy', // FL 392
  'realm_can_delete_any_message_group', // FL 281
  'realm_can_delete_own_message_group', // FL 291
  'realm_can_invite_users_group', // FL 321
  'realm_can_mention_many_users_group', // FL 352
  'saved_snippets', // FL 297
  'devices', // FL 468 (POST /register)
  'new_subscription_messages_sent', // FL 397 (POST /users/me/subscriptions)
  'server_report_message_types', // FL 435
  'channel_folders', // FL 389
  'navigation_views', // FL 390
  'navigation_tour_video_url', // FL 369
  'max_bulk_new_subscription_messages', // FL 397
  'realm_owner_full_content_access', // FL 438
  'server_min_deactivated_realm_deletion_days', // FL 332
  'server_max_deactivated_realm_deletion_days', // FL 332
  'realm_incoming_webhook_bots>config_options', // FL 318
  'realm_incoming_webhook_bots>url_options', // FL 403
  // A leading '/' names a field only at the top level of a response.
  '/date_joined', // the current user's, in POST /register
  '/role', // the current user's, in POST /register
  '/realm_default_streams', // a list of channel IDs in current Zulip (objects at FL 247)
  'editable_by_user', // FL 296 (custom profile fields)
  'use_for_user_matching', // FL 455 (custom profile fields)
  // user settings added after FL 247 (user_settings / realm_user_settings_defaults)
  'receives_typing_notifications',
  'web_channel_default_view',
  'web_suggest_update_timezone',
  'web_animate_image_previews',
  'hide_ai_features',
  'web_inbox_show_channel_folders',
  'web_left_sidebar_show_channel_folders', // FL 411
  'web_left_sidebar_unreads_count_summary', // FL 398
  'web_navigate_to_sent_message',
  'resolved_topic_notice_auto_read_policy',
  'allow_private_data_export',
  // Attachments: message_ids (FL 472) replaced messages; detached_uploads in PATCH /messages/{id} (FL 285).
  'attachment>message_ids',
  'attachments>message_ids',
  'detached_uploads',
  // Linkifiers: reverse linkification (FL 471, 478).
  'example_input',
  'reverse_template',
  'alternative_url_templates',
]);

let ajv: Ajv | null | undefined;
let openapi: any;
const compiled = new Map<string, ReturnType<Ajv['compile']>>();

/**
 * The reference OpenAPI document (OPENAPI_PATH, which must exist), parsed.
 * Parsing its megabyte of YAML takes about 0.6 s of CPU in each test file's
 * process that needs it; the first such process of a run keeps the result as
 * JSON in the temporary directory, named by the YAML's SHA-256, and the
 * others read that (a few milliseconds).
 */
export function readOpenApiDocument(): any {
  const text = readFileSync(OPENAPI_PATH, 'utf8');
  const cache = join(tmpdir(), `parley-openapi-${createHash('sha256').update(text).digest('hex').slice(0, 24)}.json`);
  try {
    return JSON.parse(readFileSync(cache, 'utf8'));
  } catch {
    // Not made yet (or unreadable): parse the YAML.
  }
  const doc = parseYaml(text);
  try {
    const part = `${cache}.${process.pid}`;
    writeFileSync(part, JSON.stringify(doc));
    renameSync(part, cache);
  } catch {
    // A read-only temporary directory: every process parses the YAML.
  }
  return doc;
}

function loadOpenApi(): Ajv | null {
  if (ajv !== undefined) return ajv;
  if (!existsSync(OPENAPI_PATH)) return (ajv = null);
  openapi = readOpenApiDocument();
  const a = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  (addFormatsModule as unknown as (a: Ajv) => void)(a);
  a.addSchema({ components: fixRefs(openapi.components, false) }, 'openapi.json');
  return (ajv = a);
}

/**
 * Rewrites OpenAPI 3.0 schema text into JSON Schema Ajv understands:
 * `nullable: true` becomes a null alternative, and (for response schemas
 * compiled on their own) component references point into openapi.json.
 */
function fixRefs(schema: unknown, rewriteRefs = true): unknown {
  if (Array.isArray(schema)) return schema.map((s) => fixRefs(s, rewriteRefs));
  if (schema && typeof schema === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(schema)) {
      if (k === '$ref' && rewriteRefs && typeof val === 'string' && val.startsWith('#/components/')) out[k] = 'openapi.json' + val;
      else out[k] = fixRefs(val, rewriteRefs);
    }
    if ((out as { nullable?: boolean }).nullable === true) {
      delete out.nullable;
      if (typeof out.type === 'string') out.type = [out.type, 'null'];
      else return { anyOf: [out, { type: 'null' }] };
    }
    return out;
  }
  return schema;
}

function stripNewFields(v: unknown, top = true, parent = ''): unknown {
  if (Array.isArray(v)) return v.map((x) => stripNewFields(x, false, parent));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(v)) {
      if (POST_247_FIELDS.has(k) || (top && POST_247_FIELDS.has(`/${k}`)) || POST_247_FIELDS.has(`${parent}>${k}`)) continue;
      out[k] = stripNewFields(val, false, k);
    }
    return out;
  }
  return v;
}

function explain(a: Ajv, errors: unknown): string {
  const list = (errors ?? []) as Array<{ instancePath: string; message?: string; params?: Record<string, unknown> }>;
  return list
    .slice(0, 8)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${e.params?.additionalProperty ? `(${String(e.params.additionalProperty)})` : ''}`)
    .join('; ') || a.errorsText(null);
}

/** Whether the reference OpenAPI file is available (tests skip schema checks when not). */
export function haveOpenApi(): boolean {
  return loadOpenApi() !== null;
}

/**
 * Validates a response body against the OpenAPI schema for (method, path,
 * status). Skips silently when ../shared is absent; fails when the schema is
 * present but the body does not match.
 */
export function assertSchema(res: Res, method: string, path: string): void {
  const a = loadOpenApi();
  if (!a) return;
  const key = `${method} ${path} ${res.status}`;
  let validate = compiled.get(key);
  if (!validate) {
    const op = openapi.paths?.[path]?.[method.toLowerCase()];
    assert.ok(op, `OpenAPI has no ${method} ${path}`);
    let resp = op.responses?.[String(res.status)];
    if (typeof resp?.$ref === 'string') resp = openapi.components?.responses?.[resp.$ref.split('/').pop()];
    assert.ok(resp, `OpenAPI has no ${res.status} response for ${method} ${path}`);
    const schema = resp.content?.['application/json']?.schema;
    assert.ok(schema, `OpenAPI has no JSON schema for ${method} ${path} ${res.status}`);
    validate = a.compile(fixRefs(schema) as object);
    compiled.set(key, validate);
  }
  const body = stripNewFields(res.body);
  if (!validate(body)) {
    assert.fail(`${method} ${path}: response does not match OpenAPI schema: ${explain(a, validate.errors)}\n${JSON.stringify(body).slice(0, 1500)}`);
  }
}

/** Validates one object against a named component schema (e.g. events). */
export function assertComponent(value: unknown, component: string): void {
  const a = loadOpenApi();
  if (!a) return;
  const key = `component ${component}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = a.compile({ $ref: `openapi.json#/components/schemas/${component}` });
    compiled.set(key, validate);
  }
  if (!validate(stripNewFields(value))) assert.fail(`${component}: ${explain(a, validate.errors)}\n${JSON.stringify(value).slice(0, 1500)}`);
}

// ---------------------------------------------------------------------------
// Events

/** Registers a queue for `client` and returns a helper to read its events. */
export async function openQueue(client: Client, params: Params = {}) {
  const res = await client.post('/register', params);
  assertSuccess(res);
  const queueId: string = res.body.queue_id;
  let last: number = res.body.last_event_id;
  return {
    queueId,
    state: res.body,
    /** Events queued so far (non-blocking), acknowledged as read. */
    async drain(): Promise<any[]> {
      const r = await client.get('/events', { queue_id: queueId, last_event_id: last, dont_block: true });
      assertSuccess(r);
      const events = r.body.events as any[];
      if (events.length) last = events[events.length - 1].id;
      return events;
    },
    /** The queued events of one type (non-blocking). */
    async ofType(type: string): Promise<any[]> {
      return (await this.drain()).filter((e) => e.type === type);
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An email a server sent: a line of DATA_DIR/emails.log, where mail goes without SMTP. */
export interface SentEmail {
  to: string[];
  from: string;
  subject: string;
  text: string;
  template: string;
  date: string;
}

/** The emails the server with this DATA_DIR has sent so far, oldest first (those to `addr`, when given). */
export function sentEmails(dataDir: string, addr?: string): SentEmail[] {
  const file = join(dataDir, 'emails.log');
  if (!existsSync(file)) return [];
  const all = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as SentEmail);
  return addr === undefined ? all : all.filter((e) => e.to.includes(addr));
}

// ---------------------------------------------------------------------------
// Servers as child processes (`node src/main.js`), for tests that need real processes

export interface NodeProcess {
  proc: import('node:child_process').ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The owner account a server's first start wrote to DATA_DIR/zuliprc. */
export function zuliprcAccount(dataDir: string): { email: string; apiKey: string } {
  const rc = readFileSync(join(dataDir, 'zuliprc'), 'utf8');
  return { email: /email=(.*)/.exec(rc)![1]!, apiKey: /key=(.*)/.exec(rc)![1]! };
}

/**
 * The environment of a test's child process (a server, a command): `env` on
 * top of PATH and HOME, and of Node's compile cache when the run has one
 * (NODE_COMPILE_CACHE, as CI sets it), so that a child reuses the modules
 * compiled before instead of compiling them again (`env` may set its own).
 */
export function childEnv(env: Record<string, string>): Record<string, string> {
  const inherited: Record<string, string> = { PATH: process.env.PATH ?? '' };
  if (process.env.HOME) inherited.HOME = process.env.HOME;
  if (process.env.NODE_COMPILE_CACHE) inherited.NODE_COMPILE_CACHE = process.env.NODE_COMPILE_CACHE;
  return { ...inherited, ...env };
}

/**
 * Starts `node src/main.js` with `env` (see childEnv) and waits for its
 * "listening" line. Rejects with the output if it exits first.
 */
export function spawnNode(env: Record<string, string>): Promise<NodeProcess> {
  const root = join(here, '..');
  const proc = spawn(process.execPath, [join(root, 'src', 'main.js')], {
    cwd: root,
    env: childEnv({ HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  proc.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => proc.on('exit', (code, signal) => r({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`server did not report listening within 30 s:\n${out}`));
    }, 30_000);
    proc.stdout!.on('data', () => {
      const m = /Parley listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[1]!, output: () => out, exited });
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited before listening (code ${code}, signal ${signal}):\n${out}`));
    });
  });
}

/** SIGTERM, then SIGKILL if it has not exited within 15 s. */
export async function stopNode(n: NodeProcess): Promise<void> {
  if (n.proc.exitCode !== null || n.proc.signalCode !== null) return;
  n.proc.kill('SIGTERM');
  const timer = setTimeout(() => n.proc.kill('SIGKILL'), 15_000);
  await n.exited;
  clearTimeout(timer);
}

/**
 * POST /register as zulip-flutter sends it (lib/api/route/events.dart): all
 * event types and all state, a queue that lives 12 hours, every value JSON.
 */
export const FLUTTER_REGISTER = {
  idle_queue_timeout: '"mobile"',
  apply_markdown: true,
  client_gravatar: false,
  slim_presence: true,
  client_capabilities: {
    notification_settings_null: true,
    bulk_message_deletion: true,
    user_avatar_url_field_optional: true,
    stream_typing_notifications: true,
    user_settings_object: true,
    include_deactivated_groups: true,
    empty_topic_name: true,
    individual_emoji_changes: true,
  },
};

/**
 * A TCP relay to the PostgreSQL server of `url`, for tests that act on a
 * connection's bytes (stop relaying, hold them back): the URL to connect
 * through, and each relayed connection's two sockets, process side first.
 */
export async function databaseRelay(url: string): Promise<{ url: string; links: Array<{ client: Socket; server: Socket }>; close(): void }> {
  const target = new URL(url);
  const links: Array<{ client: Socket; server: Socket }> = [];
  const relay = createServer((client) => {
    const server = connect(Number(target.port || 5432), target.hostname);
    client.pipe(server);
    server.pipe(client);
    client.on('error', () => {});
    server.on('error', () => {});
    links.push({ client, server });
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const via = new URL(url);
  via.hostname = '127.0.0.1';
  via.port = String((relay.address() as AddressInfo).port);
  return {
    url: via.toString(),
    links,
    close() {
      for (const { client, server } of links) {
        client.destroy();
        server.destroy();
      }
      relay.close();
    },
  };
}

/**
 * A TCP proxy to the Redis of `url` that a test can cut (every connection
 * dropped, new ones refused) and restore, on the same port; `hold` stops
 * passing what the clients send (their commands stay unanswered, as on a
 * connection that has died without a word); `mute` stops passing Redis's
 * answers (the commands run, their answers are lost) from a given command
 * on.
 */
export async function redisProxy(url: string): Promise<{ url: string; cut(): void; restore(): void; hold(): void; mute(from: RegExp): void; close(): Promise<void> }> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  let down = false;
  let held = false;
  let muted = false;
  let muteFrom: RegExp | null = null;
  const proxy = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (d: Buffer) => {
      if (muteFrom?.test(d.toString('latin1'))) muted = true;
      if (!held) upstream.write(d);
    });
    upstream.on('data', (d: Buffer) => {
      if (!muted) client.write(d);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const dropAll = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    url: `redis://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    cut() {
      down = true;
      held = false;
      muted = false;
      muteFrom = null;
      dropAll();
    },
    restore() {
      down = false;
    },
    hold() {
      held = true;
    },
    /** Redis's answers are dropped (commands run, their replies never arrive) from the first sent bytes that match `from` on. */
    mute(from: RegExp) {
      muteFrom = from;
    },
    async close() {
      dropAll();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

/** How `p` settled, or 'pending' if it had not within `ms`. */
export async function settledWithin(p: Promise<unknown>, ms: number): Promise<{ value?: unknown; error?: Error } | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  const outcome = p.then(
    (value) => ({ value }),
    (error: Error) => ({ error }),
  );
  try {
    return await Promise.race([outcome, late]);
  } finally {
    clearTimeout(timer);
  }
}
