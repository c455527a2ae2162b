/** Zulip's HTTP conventions: envelope, errors, auth, parameter encoding. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, type Res, type TestServer, OWNER_EMAIL, OWNER_PASSWORD } from './helpers.ts';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(() => t.close());

test('server_settings needs no auth and reports feature level 483', async () => {
  const res = await t.client(null).get('/server_settings');
  const body = assertSuccess(res);
  assert.equal(body.zulip_feature_level, 483);
  assert.equal(typeof body.zulip_version, 'string');
  assert.equal(body.require_email_format_usernames, true);
  assert.equal(body.authentication_methods.password, true);
  assertSchema(res, 'GET', '/server_settings');
});

test('missing credentials: 401 with WWW-Authenticate', async () => {
  const res = await t.client(null).get('/users/me');
  assertError(res, 401, 'UNAUTHORIZED', 'Missing authorization header for basic auth');
  assert.equal(res.headers.get('www-authenticate'), 'Basic realm="zulip"');
});

test('bad credentials: malformed and wrong API keys', async () => {
  assertError(await t.client({ email: OWNER_EMAIL, apiKey: 'short' }).get('/users/me'), 401, 'UNAUTHORIZED', 'Malformed API key');
  assertError(await t.client({ email: OWNER_EMAIL, apiKey: 'a'.repeat(32) }).get('/users/me'), 401, 'UNAUTHORIZED', 'Invalid API key');
  assertError(await t.client({ email: 'other@example.com', apiKey: t.owner.apiKey }).get('/users/me'), 401, 'UNAUTHORIZED', 'Invalid API key');
  const res = await t.client(null).request('GET', '/users/me', {}, { headers: { Authorization: 'Bearer abc' } });
  assertError(res, 401, 'UNAUTHORIZED', 'This endpoint requires HTTP basic authentication.');
});

test('unknown path is a JSON 404; wrong method a JSON 405', async () => {
  const c = t.client(t.owner);
  const nf = await c.get('/no/such/endpoint');
  assert.equal(nf.status, 404);
  assert.equal(nf.body.result, 'error');
  const res = await c.put('/server_settings');
  assert.equal(res.status, 405);
  assert.deepEqual(res.body, { result: 'error', msg: 'Method Not Allowed', allowed_methods: ['GET'] });
  assert.equal(res.headers.get('allow'), 'GET');
  // A path's own methods, whichever other paths a URL could also match: a fixed segment before
  // a numeric ID, before any parameter, before the rest of the URL (a trailing slash ignored).
  const allowed = async (method: string, path: string) => {
    const r = await c.request(method, path);
    assert.equal(r.status, 405, `${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    assert.equal(r.body.msg, 'Method Not Allowed');
    return r.body.allowed_methods;
  };
  assert.deepEqual(await allowed('PATCH', '/users/me'), ['GET', 'DELETE']);
  assert.deepEqual(await allowed('POST', '/users/me/'), ['GET', 'DELETE']);
  assert.deepEqual(await allowed('GET', '/users/me/presence'), ['POST']);
  assert.deepEqual(await allowed('PUT', '/messages/12'), ['GET', 'DELETE', 'PATCH']);
  assert.deepEqual(await allowed('PUT', '/navigation_views'), ['GET', 'POST']);
  assert.deepEqual(await allowed('POST', '/navigation_views/a/b'), ['PATCH', 'DELETE']);
  // Not a path at all: a numeric ID that is not numeric, an extra segment.
  for (const path of ['/messages/abc', '/messages/12/zzz', '/users/me/presence/x']) {
    const r = await c.request('PUT', path);
    assert.equal(r.status, 404, path);
    assert.deepEqual(r.body, { result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
  }
});

test('unknown parameters are listed in ignored_parameters_unsupported', async () => {
  const res = await t.client(t.owner).get('/users', { zzz: 1, aaa: 'x' });
  const body = assertSuccess(res);
  assert.deepEqual(body.ignored_parameters_unsupported, ['aaa', 'zzz']);
  assertSchema(res, 'GET', '/users');
});

test('a parameter sent under two of its names is refused; one alias alone is no unknown parameter', async () => {
  const c = t.client(t.owner);
  const newest = async () => {
    const r = await c.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0 });
    return assertSuccess(r).messages.at(-1)?.id as number | undefined;
  };
  const before = await newest();
  const both = await c.post('/messages', { type: 'channel', to: 'general', topic: 'one', subject: 'two', content: 'x' });
  assertError(both, 400, 'REQUEST_CONFUSING_VAR', "Can't decide between 'topic' and 'subject' arguments");
  assert.equal(both.body.var_name1, 'topic');
  assert.equal(both.body.var_name2, 'subject');
  assert.equal(await newest(), before, 'nothing was sent');

  const alias = await c.post('/messages', { type: 'channel', to: 'general', subject: 'by alias', content: 'x', zzz: '1' });
  assert.deepEqual(assertSuccess(alias).ignored_parameters_unsupported, ['zzz']);
  const sent = await c.get(`/messages/${alias.body.id}`);
  assert.equal(assertSuccess(sent).message.subject, 'by alias');
});

test('parameter type errors use Zulip wording', async () => {
  const c = t.client(t.owner);
  assertError(await c.get('/users', { client_gravatar: 'yes' }), 400, 'BAD_REQUEST', 'client_gravatar is not valid JSON');
  assertError(await c.get('/users', { client_gravatar: 5 }), 400, 'BAD_REQUEST', 'client_gravatar is not a boolean');
  assertError(await c.get('/users', { user_ids: '[1,"a"]' }), 400, 'BAD_REQUEST', 'user_ids[1] is not an integer');
  assertError(await c.get('/users', { user_ids: '{}' }), 400, 'BAD_REQUEST', 'user_ids is not a list');
  const missing = await t.client(null).post('/fetch_api_key', { username: OWNER_EMAIL });
  assertError(missing, 400, 'REQUEST_VARIABLE_MISSING', "Missing 'password' argument");
  assert.equal(missing.body.var_name, 'password');
});

test('malformed requests never produce a 5xx or non-JSON body', async () => {
  const c = t.client(t.owner);
  const cases: Array<{ headers?: Record<string, string>; rawBody: string | Buffer }> = [
    { rawBody: '%%%=%%' },
    { rawBody: Buffer.from([0x61, 0x3d, 0xff, 0xfe]) },
    { rawBody: 'a=%C3%28' },
    { headers: { 'Content-Type': 'application/json' }, rawBody: '{"broken' },
    { headers: { 'Content-Type': 'text/plain' }, rawBody: 'hello' },
  ];
  for (const cs of cases) {
    const res = await c.request('POST', '/register', {}, { headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(cs.headers ?? {}) }, rawBody: cs.rawBody });
    assert.ok(res.status < 500, `status ${res.status} for ${String(cs.rawBody)}`);
    assert.ok(res.body.result === 'error' || res.body.result === 'success');
  }
  const big = await c.request('POST', '/register', {}, {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    rawBody: 'x=' + 'a'.repeat(27 * 1024 * 1024),
  });
  assert.equal(big.status, 413);
  assert.equal(big.body.result, 'error');
  const badQuery = await c.request('GET', '/users?user_ids=%FF', {});
  assertError(badQuery, 400, 'BAD_REQUEST');
});

test('fetch_api_key: password login, wrong password, rate limit', async () => {
  const anon = t.client(null);
  const ok = await anon.post('/fetch_api_key', { username: OWNER_EMAIL, password: OWNER_PASSWORD });
  const body = assertSuccess(ok);
  assert.equal(body.api_key, t.owner.apiKey);
  assert.equal(body.email, OWNER_EMAIL);
  assert.equal(body.user_id, t.owner.id);
  assertSchema(ok, 'POST', '/fetch_api_key');
  assertError(await anon.post('/fetch_api_key', { username: 'not-an-email', password: 'x' }), 400, 'BAD_REQUEST');
  const u = await t.makeUser({ password: 'right-password-1' });
  for (let i = 0; i < 5; i++) {
    assertError(await anon.post('/fetch_api_key', { username: u.email, password: 'wrong' }), 401, 'AUTHENTICATION_FAILED', 'Your username or password is incorrect');
  }
  assertError(await anon.post('/fetch_api_key', { username: u.email, password: 'right-password-1' }), 429, 'RATE_LIMIT_HIT');
});

test('failed API authentication is rate limited per client address', async () => {
  const t2 = await startTestServer({ PARLEY_AUTH_FAILURE_LIMIT: '3' });
  try {
    const bad = t2.client({ email: OWNER_EMAIL, apiKey: 'b'.repeat(32) });
    for (let i = 0; i < 3; i++) assertError(await bad.get('/users/me'), 401, 'UNAUTHORIZED');
    const limited = await bad.get('/users/me');
    assertError(limited, 429, 'RATE_LIMIT_HIT', 'API usage exceeded rate limit');
    assert.ok(Number(limited.body['retry-after']) > 0);
    // The address is blocked, whatever it sends now: a valid key too.
    assertError(await t2.client(t2.owner).get('/users/me'), 429, 'RATE_LIMIT_HIT', 'API usage exceeded rate limit');
  } finally {
    await t2.close();
  }
});

test('per-user API rate limit, with X-RateLimit-* headers on every counted answer', async () => {
  const t2 = await startTestServer({ PARLEY_API_RATE_LIMIT_PER_MINUTE: '5' });
  try {
    const c = t2.client(t2.owner);
    // Zulip's headers: the limit, the requests left, and the Unix second at which the limit is whole again.
    const limitHeaders = (res: Res) => ({
      limit: res.headers.get('x-ratelimit-limit'),
      remaining: res.headers.get('x-ratelimit-remaining'),
      reset: Number(res.headers.get('x-ratelimit-reset')),
    });
    const start = Math.floor(Date.now() / 1000);
    const resets: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await c.get('/users/me');
      assertSuccess(res);
      const h = limitHeaders(res);
      assert.deepEqual([h.limit, h.remaining], ['5', String(4 - i)]);
      assert.ok(Number.isInteger(h.reset) && h.reset >= start && h.reset <= start + 61, `reset ${h.reset}, start ${start}`);
      resets.push(h.reset);
    }
    // One window: the time it ends does not move as it fills.
    assert.ok(Math.max(...resets) - Math.min(...resets) <= 1, `resets ${resets}`);
    const limited = await c.get('/users/me');
    assertError(limited, 429, 'RATE_LIMIT_HIT', 'API usage exceeded rate limit');
    const h = limitHeaders(limited);
    assert.deepEqual([h.limit, h.remaining], ['5', '0']);
    assert.ok(Math.abs(h.reset - resets[0]!) <= 1, `reset ${h.reset} against ${resets[0]}`);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.ok(Number(limited.body['retry-after']) > 0);
    // Another user's limit is their own; a request no limit counts (no credentials) has no such headers.
    const other = await t2.makeUser();
    const res = await t2.client(other).get('/users/me');
    assertSuccess(res);
    assert.equal(res.headers.get('x-ratelimit-remaining'), '4');
    const anon = await t2.client(null).get('/server_settings');
    assertSuccess(anon);
    assert.equal(anon.headers.get('x-ratelimit-limit'), null);
  } finally {
    await t2.close();
  }
});

test('multipart/form-data bodies carry parameters like form-encoded ones', async () => {
  const form = new FormData();
  form.append('user_ids', JSON.stringify([t.owner.id]));
  form.append('bogus', 'x');
  const res = await fetch(`${t.url}/api/v1/users`, {
    method: 'GET',
    headers: { Authorization: t.client(t.owner).auth! },
  });
  assert.equal(res.status, 200);
  const reg = await fetch(`${t.url}/api/v1/register`, {
    method: 'POST',
    headers: { Authorization: t.client(t.owner).auth! },
    body: (() => {
      const f = new FormData();
      f.append('event_types', JSON.stringify(['realm_user']));
      f.append('fetch_event_types', JSON.stringify(['realm']));
      f.append('bogus', 'x');
      return f;
    })(),
  });
  const body = (await reg.json()) as Record<string, unknown>;
  assert.equal(reg.status, 200, JSON.stringify(body));
  assert.equal(body.result, 'success');
  assert.ok('max_message_length' in body);
  assert.ok(!('realm_users' in body));
  assert.deepEqual(body.ignored_parameters_unsupported, ['bogus']);
  const bad = await fetch(`${t.url}/api/v1/register`, {
    method: 'POST',
    headers: { Authorization: t.client(t.owner).auth!, 'Content-Type': 'multipart/form-data; boundary=xyz' },
    body: '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nunterminated',
  });
  assert.ok(bad.status < 500);
  assert.equal(((await bad.json()) as Record<string, unknown>).result, 'error');
});

test('GET /users anonymously: 401 unless the organization allows public access', async () => {
  assertError(await t.client(null).get('/users'), 401, 'UNAUTHORIZED');
  const t2 = await startTestServer({ WEB_PUBLIC_STREAMS_ENABLED: 'true' });
  try {
    const { updateRealm } = await import('../src/store/realm.ts');
    assertError(await t2.client(null).get('/users'), 401, 'UNAUTHORIZED');
    await updateRealm(t2.server.svc.store.db, t2.server.svc.realmId, { settings_json: JSON.stringify({ enable_spectator_access: true }) });
    const res = await t2.client(null).get('/users');
    const body = assertSuccess(res);
    assertSchema(res, 'GET', '/users');
    const owner = body.members.find((m: { user_id: number }) => m.user_id === t2.owner.id);
    assert.equal(owner.delivery_email, null, 'spectators never see real email addresses');
  } finally {
    await t2.close();
  }
});

test('a deactivated organization: 401 REALM_DEACTIVATED for API calls and password login', async () => {
  const t2 = await startTestServer();
  try {
    const { updateRealm } = await import('../src/store/realm.ts');
    await updateRealm(t2.server.svc.store.db, t2.server.svc.realmId, { deactivated: 1 });
    const res = await t2.client(t2.owner).get('/users/me');
    assertError(res, 401, 'REALM_DEACTIVATED', 'This organization has been deactivated');
    assertError(await t2.client(null).post('/fetch_api_key', { username: OWNER_EMAIL, password: OWNER_PASSWORD }), 401, 'REALM_DEACTIVATED');
  } finally {
    await t2.close();
  }
});

test('URLs that /register hands out resolve: emoji data and logo', async () => {
  const reg = assertSuccess(await t.client(t.owner).post('/register', { fetch_event_types: ['realm'] }));
  const emoji = await fetch(reg.server_emoji_data_url);
  assert.equal(emoji.status, 200);
  const data = (await emoji.json()) as { code_to_names: Record<string, string[]> };
  assert.deepEqual(data.code_to_names['1f642'], ['smile']);
  const logo = await fetch(reg.realm_logo_url);
  assert.equal(logo.status, 200);
  assert.match(logo.headers.get('content-type') ?? '', /image\/svg\+xml/);
  assert.match(reg.realm_icon_url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon$/);
});

test('the organization description is rendered as Zulip Markdown in /server_settings; /register has its raw text', async () => {
  const t2 = await startTestServer();
  try {
    const { updateRealm } = await import('../src/store/realm.ts');
    await updateRealm(t2.server.svc.store.db, t2.server.svc.realmId, { description: 'We **ship** <code>' });
    const s = assertSuccess(await t2.client(null).get('/server_settings'));
    assert.equal(s.realm_description, '<p>We <strong>ship</strong> &lt;code&gt;</p>');
    const reg = assertSuccess(await t2.client(t2.owner).post('/register', { fetch_event_types: ['realm'] }));
    assert.equal(reg.realm_description, 'We **ship** <code>');
  } finally {
    await t2.close();
  }
});
