/**
 * Bad input on every endpoint of Zulip's OpenAPI description: wrong types,
 * integers outside every column's range, NUL bytes, huge lists and malformed
 * JSON, in query strings, bodies and path segments. Whatever the endpoint,
 * the answer is never a 5xx and always Zulip's JSON envelope. Also the
 * framework's own errors (bad percent-encoding, oversized URL and body,
 * malformed JSON bodies) and a real 500.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { WebClient } from './web-helpers.ts';
import { Client, haveOpenApi, readOpenApiDocument, startTestServer, assertError, assertSuccess, type TestServer } from './helpers.ts';

type Kind = 'int' | 'bool' | 'number' | 'array' | 'object' | 'string' | 'any';
interface FuzzParam {
  name: string;
  in: 'path' | 'query' | 'body';
  kind: Kind;
  itemKind: Kind;
  example: unknown;
}
interface Operation {
  method: string;
  path: string;
  params: FuzzParam[];
}
type Variant = 'wrong-type' | 'overflow' | 'nul' | 'huge-list' | 'malformed-json';
const VARIANTS: Variant[] = ['wrong-type', 'overflow', 'nul', 'huge-list', 'malformed-json'];

/** Operations that take no parameters and would end the fuzzing account's session: not sent. */
const SELF_DESTRUCTIVE = new Set(['DELETE /users/me', 'POST /users/me/api_key/regenerate']);

function kindOf(schema: any): Kind {
  if (!schema) return 'any';
  if (schema.type === 'integer') return 'int';
  if (schema.type === 'boolean') return 'bool';
  if (schema.type === 'number') return 'number';
  if (schema.type === 'array') return 'array';
  if (schema.type === 'object') return 'object';
  if (schema.type === 'string') return 'string';
  const alts = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(alts)) {
    const kinds = alts.map(kindOf);
    if (kinds.includes('array')) return 'array';
    if (kinds.includes('int')) return 'int';
    return kinds[0] ?? 'any';
  }
  return 'any';
}

function loadOperations(): Operation[] {
  const doc = readOpenApiDocument() as any;
  const resolve = (x: any): any => {
    while (x && x.$ref) x = x.$ref.split('/').slice(1).reduce((o: any, k: string) => o[k], doc);
    return x;
  };
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of ['get', 'post', 'patch', 'put', 'delete']) {
      const op = item[method];
      if (!op) continue;
      const params: FuzzParam[] = [];
      for (const raw of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
        const prm = resolve(raw);
        if (prm.in !== 'path' && prm.in !== 'query') continue;
        const schema = resolve(prm.schema ?? prm.content?.['application/json']?.schema);
        params.push({
          name: prm.name,
          in: prm.in,
          kind: kindOf(schema),
          itemKind: kindOf(resolve(schema?.items)),
          example: prm.example ?? schema?.example,
        });
      }
      const form = op.requestBody?.content?.['application/x-www-form-urlencoded']?.schema;
      for (const [name, s0] of Object.entries<any>(resolve(form)?.properties ?? {})) {
        const schema = resolve(s0);
        params.push({ name, in: 'body', kind: kindOf(schema), itemKind: kindOf(resolve(schema?.items)), example: schema?.example });
      }
      ops.push({ method: method.toUpperCase(), path, params });
    }
  }
  return ops;
}

const HUGE = 20_000;

/** The bad text for a parameter in a variant, or undefined when the variant has none for it. */
function badValue(p: FuzzParam, variant: Variant): string | undefined {
  const isJson = p.kind !== 'string';
  switch (variant) {
    case 'wrong-type':
      if (p.kind === 'int' || p.kind === 'number') return p.in === 'path' ? 'abc' : '"abc"';
      if (p.kind === 'bool') return 'maybe';
      if (p.kind === 'array') return '{"a": 1}';
      if (p.kind === 'object') return '[1, 2]';
      return p.in === 'path' ? undefined : '{"not": "a string"}';
    case 'overflow':
      if (p.kind === 'int') return p.in === 'path' ? '99999999999999999999999' : '-9223372036854775809';
      if (p.kind === 'number') return '1e400';
      if (p.kind === 'array') return p.itemKind === 'int' ? '[-1, -9223372036854775809, 9007199254740993]' : '[9223372036854775808]';
      if (p.kind === 'object') return '{"id": 9223372036854775808, "stream_id": 9007199254740993}';
      return p.in === 'path' ? undefined : '9223372036854775808';
    case 'nul':
      if (p.kind === 'string' || p.kind === 'any') return 'a\u0000b';
      if (p.kind === 'array') return JSON.stringify(['a\u0000b']);
      if (p.kind === 'object') return JSON.stringify({ 'a\u0000': 'b\u0000' });
      return p.in === 'path' ? '1\u0000' : undefined;
    case 'huge-list':
      if (p.kind === 'array') {
        const items = Array.from({ length: HUGE }, (_, i) => (p.itemKind === 'string' ? `s${i}` : i + 1));
        return JSON.stringify(items);
      }
      if (p.kind === 'string' && p.in !== 'path') return 'x'.repeat(100_000);
      return undefined;
    case 'malformed-json':
      return isJson && p.in !== 'path' ? '[1, {"a":' : undefined;
  }
}

/** A valid value. Path IDs name nothing that exists, so the fuzzing account is never the one acted on. */
function exampleValue(p: FuzzParam): string | undefined {
  if (p.in === 'path' && p.kind === 'int') return '2147483000';
  if (p.example === undefined) return p.in === 'path' ? 'x' : undefined;
  return typeof p.example === 'string' ? p.example : JSON.stringify(p.example);
}

interface Sent {
  method: string;
  url: string;
  body?: string;
  contentType?: string;
}

function build(op: Operation, values: Map<FuzzParam, string | undefined>): Sent {
  let url = '/api/v1' + op.path;
  const query = new URLSearchParams();
  const body = new URLSearchParams();
  for (const p of op.params) {
    const val = values.get(p);
    if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(val ?? '1'));
    else if (val === undefined) continue;
    else if (p.in === 'query' || op.method === 'GET') query.append(p.name, val);
    else body.append(p.name, val);
  }
  const qs = query.toString();
  if (qs) url += `?${qs}`;
  const bodyText = body.toString();
  return bodyText ? { method: op.method, url, body: bodyText, contentType: 'application/x-www-form-urlencoded' } : { method: op.method, url };
}

/** Every request an operation gets: each variant with all its parameters bad, then each parameter bad alone. */
function requestsFor(op: Operation): Sent[] {
  const out: Sent[] = [];
  const key = `${op.method} ${op.path}`;
  if (SELF_DESTRUCTIVE.has(key)) return out;
  for (const variant of VARIANTS) {
    const all = new Map<FuzzParam, string | undefined>();
    let any = false;
    for (const p of op.params) {
      const bad = badValue(p, variant);
      if (bad !== undefined) any = true;
      all.set(p, bad ?? exampleValue(p));
    }
    if (any || op.params.length === 0) out.push(build(op, all));
    if (variant === 'wrong-type' || variant === 'malformed-json') continue;
    for (const target of op.params) {
      const bad = badValue(target, variant);
      if (bad === undefined || op.params.length === 1) continue;
      const one = new Map<FuzzParam, string | undefined>();
      for (const p of op.params) one.set(p, p === target ? bad : exampleValue(p));
      out.push(build(op, one));
    }
  }
  if (op.method !== 'GET') {
    // A JSON body (Zulip takes form fields) that is not even valid JSON.
    const path = build(op, new Map(op.params.map((p) => [p, exampleValue(p)]))).url.split('?')[0]!;
    out.push({ method: op.method, url: path, body: '{"content": "x", ', contentType: 'application/json' });
  }
  return out;
}

/** How requests authenticate: HTTP Basic under /api/v1, or the web session (cookies and CSRF token) under /json. */
type Auth = string | { cookie: string; csrf: string };

/** Raw HTTP (fetch would refuse NUL in URLs and oversized headers). */
function send(base: URL, auth: Auth, sent: Sent): Promise<{ status: number; text: string; type: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = typeof auth === 'string' ? { Authorization: auth } : { Cookie: auth.cookie, 'X-CSRFToken': auth.csrf };
    const path = typeof auth === 'string' ? sent.url : sent.url.replace(/^\/api\/v1\//, '/json/');
    if (sent.body !== undefined) {
      headers['Content-Type'] = sent.contentType!;
      headers['Content-Length'] = Buffer.byteLength(sent.body);
    }
    const req = httpRequest(
      { host: base.hostname, port: base.port, method: sent.method, path: path.replaceAll('\u0000', '%00'), headers, insecureHTTPParser: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), type: String(res.headers['content-type'] ?? '') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(sent.body);
  });
}

function assertEnvelope(res: { status: number; text: string; type: string }, what: string): void {
  assert.ok(res.status < 500, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
  if (res.status < 400 && !res.type.includes('json')) return; // a served file or redirect
  let body: any;
  try {
    body = JSON.parse(res.text);
  } catch {
    assert.fail(`${what}: not JSON (${res.status}): ${res.text.slice(0, 200)}`);
  }
  assert.ok(body.result === 'success' || body.result === 'error', `${what}: no result: ${res.text.slice(0, 200)}`);
  assert.equal(typeof body.msg, 'string', `${what}: no msg`);
  if (body.result === 'error') {
    assert.ok(res.status >= 400, `${what}: error with status ${res.status}`);
    if (res.status !== 405) assert.equal(typeof body.code, 'string', `${what}: no code: ${res.text.slice(0, 200)}`);
  } else {
    assert.ok(res.status < 300, `${what}: success with status ${res.status}`);
  }
}

async function withServer(fn: (ts: TestServer, auth: string, session: Auth) => Promise<void>): Promise<void> {
  const ts = await startTestServer();
  try {
    const admin = await ts.makeUser({ role: 200, name: 'Fuzzing Admin', password: 'fuzzing-password-1' });
    const auth = 'Basic ' + Buffer.from(`${admin.email}:${admin.apiKey}`).toString('base64');
    // A second administrator logged in to the web client, for the /json mirror.
    const webAdmin = await ts.makeUser({ role: 200, name: 'Fuzzing Web Admin', password: 'fuzzing-password-2' });
    const web = new WebClient(ts.url);
    assert.equal((await web.login(webAdmin.email, 'fuzzing-password-2')).status, 200);
    await fn(ts, auth, { cookie: web.cookieHeader(), csrf: web.jar.get('csrftoken')! });
  } finally {
    await ts.close();
  }
}

test('every OpenAPI endpoint answers bad input with a Zulip error, never a 5xx (/api/v1 and /json)', { skip: !haveOpenApi() && 'needs ../shared' }, async () => {
  const ops = loadOperations();
  assert.ok(ops.length > 80, `only ${ops.length} operations in the OpenAPI`);
  await withServer(async (ts, auth, session) => {
    const base = new URL(ts.url);
    let count = 0;
    let prev = '';
    const failures: string[] = [];
    const successes = new Map<Auth, number>();
    const denied = new Map<Auth, number>();
    for (const op of ops) {
      for (const [sent, via] of requestsFor(op).flatMap((r): Array<[Sent, Auth]> => [[r, auth], [r, session]])) {
        const what = `${sent.method} ${typeof via === 'string' ? '' : '(session) '}${sent.url.slice(0, 160)}`;
        const res = await send(base, via, sent);
        if (res.status < 300) successes.set(via, (successes.get(via) ?? 0) + 1);
        else if (res.status === 401 || res.status === 403) denied.set(via, (denied.get(via) ?? 0) + 1);
        if (process.env.FUZZ_DEBUG && res.text.includes('USER_DEACTIVATED')) throw new Error(`deactivated before ${what}; previous ${prev}`);
        prev = `${what} ${sent.body?.slice(0, 200)} -> ${res.status} ${res.text.slice(0, 100)}`;
        count++;
        try {
          assertEnvelope(res, what);
        } catch (e) {
          failures.push((e as Error).message);
        }
      }
    }
    assert.deepEqual(failures, [], `${failures.length} of ${count} requests failed`);
    assert.ok(count > 500, `only ${count} requests`);
    // Both ways in reached the endpoints (not only their authentication).
    for (const via of [auth, session]) assert.ok((successes.get(via) ?? 0) > 20, `${successes.get(via)} successes, ${denied.get(via)} refusals`);
    // The fuzzing accounts survived: the requests above were not all turned away as unauthenticated.
    for (const via of [auth, session]) {
      const me = await send(base, via, { method: 'GET', url: '/api/v1/users/me' });
      assert.equal(me.status, 200, me.text);
    }
  });
});

test('integers outside the column range, NUL bytes and huge lists: 400 with Zulip\'s message', async () => {
  await withServer(async (ts, auth) => {
    const base = new URL(ts.url);
    const cases: Array<[Sent, string]> = [
      [{ method: 'GET', url: '/api/v1/messages/9007199254740993' }, 'message_id is too large'],
      [{ method: 'GET', url: '/api/v1/users/99999999999999999999999' }, 'user_id is too large'],
      [{ method: 'POST', url: '/api/v1/mark_stream_as_read', body: 'stream_id=-9223372036854775809', contentType: 'application/x-www-form-urlencoded' }, 'stream_id is too small'],
      [{ method: 'POST', url: '/api/v1/messages/flags', body: `messages=${encodeURIComponent('[-1,-9223372036854775809]')}&op=add&flag=read`, contentType: 'application/x-www-form-urlencoded' }, 'messages[1] is too small'],
      [{ method: 'POST', url: '/api/v1/users/me/status', body: 'emoji_name=a%00b', contentType: 'application/x-www-form-urlencoded' }, 'emoji_name contains NULL (0x00) characters.'],
      [{ method: 'GET', url: '/api/v1/get_stream_id?stream=%00' }, 'stream contains NULL (0x00) characters.'],
      [{ method: 'POST', url: '/api/v1/user_topics', body: 'stream_id=1&topic=a%00b&visibility_policy=1', contentType: 'application/x-www-form-urlencoded' }, 'topic contains NULL (0x00) characters.'],
      [{ method: 'POST', url: '/api/v1/users/me/alert_words', body: `alert_words=${encodeURIComponent('["a\\u0000b"]')}`, contentType: 'application/x-www-form-urlencoded' }, 'alert_words contains NULL (0x00) characters.'],
      [{ method: 'POST', url: '/api/v1/typing', body: `op=start&to=${encodeURIComponent(JSON.stringify(Array.from({ length: 40_000 }, (_, i) => i + 1)))}`, contentType: 'application/x-www-form-urlencoded' }, 'to is too long'],
    ];
    for (const [sent, msg] of cases) {
      const res = await send(base, auth, sent);
      const body = JSON.parse(res.text);
      assert.equal(res.status, 400, `${sent.url}: ${res.text}`);
      assert.deepEqual(body, { result: 'error', msg, code: 'BAD_REQUEST' }, sent.url);
    }
    // A user lookup by a path string with NUL.
    const byEmail = await send(base, auth, { method: 'GET', url: '/api/v1/users/%00' });
    assert.equal(byEmail.status, 400, byEmail.text);
    assert.equal(JSON.parse(byEmail.text).code, 'BAD_REQUEST');
  });
});

test("the framework's own errors and real 500s use Zulip's envelope", async () => {
  await withServer(async (ts, auth) => {
    const base = new URL(ts.url);
    const client = ts.client(ts.owner);

    const badUrl = await send(base, auth, { method: 'GET', url: '/api/v1/streams/%ff%fe' });
    assert.equal(badUrl.status, 400);
    assert.deepEqual(JSON.parse(badUrl.text), { result: 'error', msg: 'Malformed URL: invalid percent-encoding', code: 'BAD_REQUEST' });

    const longUrl = await send(base, auth, { method: 'GET', url: `/api/v1/users?x=${'a'.repeat(20_000)}` });
    assert.equal(longUrl.status, 431);
    assert.deepEqual(JSON.parse(longUrl.text), { result: 'error', msg: 'Request Header Fields Too Large', code: 'BAD_REQUEST' });

    const bigBody = await client.request('POST', '/messages', {}, { rawBody: `content=${'x'.repeat(6 * 1024 * 1024)}`, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    assertError(bigBody, 413, 'BAD_REQUEST', 'Request body too large');

    const badJson = await client.request('POST', '/messages', {}, { rawBody: '{"type": "stream", ', headers: { 'Content-Type': 'application/json' } });
    assertError(badJson, 400, 'REQUEST_VARIABLE_MISSING', "Missing 'type' argument");

    const badParamJson = await client.post('/messages/flags', { messages: '[1,', op: 'add', flag: 'read' });
    assertError(badParamJson, 400, 'BAD_REQUEST', 'messages is not valid JSON');

    const unknownPath = await client.get('/no/such/endpoint');
    assertError(unknownPath, 404, 'BAD_REQUEST', 'Not Found');

    // A real 500: the database goes away under the server.
    await ts.server.svc.store.db.destroy();
    // (Asked of that server: with TEST_CLUSTER, ts.client would spread requests over the others too.)
    const broken = await new Client(ts.url, ts.owner).get('/users/me');
    assert.equal(broken.status, 500);
    assert.deepEqual(broken.body, { result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' });
  });
});

test('narrows: out-of-range IDs and more terms than any real narrow are 400s', async () => {
  await withServer(async (ts) => {
    const owner = ts.client(ts.owner);
    const page = { anchor: 'newest', num_before: 5, num_after: 0 };
    for (const narrow of [[{ operator: 'id', operand: 9223372036854775807 }], [{ operator: 'sender', operand: -9007199254740991 }], [{ operator: 'dm', operand: [1, 4294967296] }]]) {
      const res = await owner.get('/messages', { ...page, narrow });
      assert.equal(res.status, 400, res.text);
      assert.match(res.body.msg, /^operand is too (large|small)$/);
    }
    const huge = Array.from({ length: 101 }, (_, i) => ['stream', `s${i}`]);
    assertError(await owner.post('/register', { narrow: huge, event_types: ['message'] }), 400, 'BAD_REQUEST', 'narrow is too long');
    assertError(await owner.get('/messages', { ...page, narrow: huge.slice(0, 101).map(([operator, operand]) => ({ operator, operand })) }), 400, 'BAD_REQUEST', 'narrow is too long');
    assertSuccess(await owner.post('/register', { narrow: [['stream', 'general']], event_types: ['message'] }));
  });
});
