/**
 * The web client's server side: login sessions in an HttpOnly cookie, CSRF
 * double-submit, logout, sessions ended by deactivation / password change /
 * API key regeneration, the /json mirror of the API (register, events
 * long-poll, uploads), the pages at / and /login/ and the static files.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, assertError, assertSuccess, assertSchema, OWNER_EMAIL, OWNER_PASSWORD, type TestServer, type Account } from './helpers.ts';
import { WebClient, type SetCookie } from './web-helpers.ts';
import { regenerateApiKey } from '../src/actions/users-admin.ts';

const INDEX_HTML = '<!doctype html><html><head><title>Parley</title></head><body><div id="app"></div></body></html>';
const JS = 'console.log("parley");';

let t: TestServer;
let dist: string;

before(async () => {
  dist = mkdtempSync(join(tmpdir(), 'parley-dist-'));
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), INDEX_HTML);
  writeFileSync(join(dist, 'assets', 'index-abc123.js'), JS);
  writeFileSync(join(dist, 'assets', 'index-abc123.css'), 'body{margin:0}');
  writeFileSync(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  t = await startTestServer({ WEB_DIST_DIR: dist });
});
after(async () => {
  await t.close();
  rmSync(dist, { recursive: true, force: true });
});

const PASSWORD = 'correct-horse-battery';

async function userWithPassword(): Promise<Account> {
  return t.makeUser({ password: PASSWORD });
}

async function loggedIn(acc: Account): Promise<WebClient> {
  const w = new WebClient(t.url);
  assertSuccess(await w.login(acc.email, PASSWORD));
  return w;
}

function cookie(cookies: SetCookie[], name: string): SetCookie {
  const c = cookies.find((x) => x.name === name);
  assert.ok(c, `no Set-Cookie for ${name}`);
  return c;
}

test('GET / without a session redirects to /login/ and sets a csrftoken cookie', async () => {
  const w = new WebClient(t.url);
  const res = await w.get('/');
  assert.equal(res.status, 302);
  assert.equal(res.headers.get('location'), '/login/');
  const csrf = cookie(res.cookies, 'csrftoken');
  assert.match(csrf.value, /^[A-Za-z0-9_-]{32}$/);
  assert.equal(csrf.attrs.has('httponly'), false);
  assert.equal(csrf.attrs.get('samesite'), 'Lax');
  assert.equal(csrf.attrs.get('path'), '/');
  assert.equal(csrf.attrs.has('secure'), false);
  // An existing token is kept.
  const again = await w.get('/login/');
  assert.equal(again.cookies.length, 0);
});

test('GET /login/ serves the client page (no-cache); with a session it redirects to /, and / serves the page', async () => {
  const w = new WebClient(t.url);
  const page = await w.get('/login/');
  assert.equal(page.status, 200);
  assert.equal(page.text, INDEX_HTML);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal(page.headers.get('cache-control'), 'no-cache');
  assert.equal((await w.get('/login')).status, 200);

  const acc = await userWithPassword();
  assertSuccess(await w.post('/accounts/login/', { username: acc.email, password: PASSWORD }));
  const redirect = await w.get('/login/');
  assert.equal(redirect.status, 302);
  assert.equal(redirect.headers.get('location'), '/');
  const home = await w.get('/');
  assert.equal(home.status, 200);
  assert.equal(home.text, INDEX_HTML);
  assert.equal(home.headers.get('cache-control'), 'no-cache');
});

test('static files: content types, immutable caching of hashed assets, 404s', async () => {
  const w = new WebClient(t.url);
  const js = await w.get('/static/assets/index-abc123.js');
  assert.equal(js.status, 200);
  assert.equal(js.text, JS);
  assert.match(js.headers.get('content-type') ?? '', /^(application|text)\/javascript/);
  assert.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  const css = await w.get('/static/assets/index-abc123.css');
  assert.match(css.headers.get('content-type') ?? '', /^text\/css/);
  const svg = await w.get('/static/favicon.svg');
  assert.equal(svg.status, 200);
  assert.match(svg.headers.get('content-type') ?? '', /^image\/svg\+xml/);
  assert.equal(svg.headers.get('cache-control'), 'no-cache');
  const missing = await w.get('/static/assets/nope.js');
  assert.equal(missing.status, 404);
  assert.equal(missing.body.result, 'error');
  assert.equal((await w.get('/static/../package.json')).status, 404);
  // The server's own static documents are still there.
  const emoji = await w.get('/static/generated/emoji/emoji_api.json');
  assert.equal(emoji.status, 200);
  assert.ok(emoji.body.code_to_names);
});

test('a missing web/dist answers 503 with a page saying how to build the client', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'parley-nodist-'));
  const s = await startTestServer({ WEB_DIST_DIR: join(empty, 'dist') });
  try {
    const w = new WebClient(s.url);
    const res = await w.get('/login/');
    assert.equal(res.status, 503);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(res.text, /web client is not built/);
    assert.match(res.text, /npm ci/);
    assert.equal((await w.get('/')).status, 302);
    assert.equal((await w.get('/static/assets/x.js')).status, 404);
    // Login works without the client files.
    assertSuccess(await w.post('/accounts/login/', { username: OWNER_EMAIL, password: OWNER_PASSWORD }));
    assert.equal((await w.get('/')).status, 503);
  } finally {
    await s.close();
    rmSync(empty, { recursive: true, force: true });
  }
});

test('login: session and csrftoken cookies with their attributes; the API key is never sent', async () => {
  const acc = await userWithPassword();
  const w = new WebClient(t.url);
  await w.get('/login/');
  const anonymous = w.jar.get('csrftoken');
  const res = await w.post('/accounts/login/', { username: acc.email, password: PASSWORD });
  assert.deepEqual(res.body, { result: 'success', msg: '' });
  assert.equal(res.status, 200);
  assert.equal(res.text.includes(acc.apiKey), false);
  const session = cookie(res.cookies, 'sessionid');
  assert.match(session.value, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(session.attrs.has('httponly'), true);
  assert.equal(session.attrs.get('samesite'), 'Lax');
  assert.equal(session.attrs.get('path'), '/');
  assert.equal(session.attrs.has('secure'), false);
  const maxAge = Number(session.attrs.get('max-age'));
  assert.ok(maxAge > 14 * 24 * 3600 - 60 && maxAge <= 14 * 24 * 3600, `Max-Age ${maxAge}`);
  const expires = Date.parse(session.attrs.get('expires') ?? '');
  assert.ok(Math.abs(expires - (Date.now() + 14 * 24 * 3600 * 1000)) < 120_000, 'Expires 14 days ahead');
  const csrf = cookie(res.cookies, 'csrftoken');
  assert.notEqual(csrf.value, anonymous);
  assert.equal(csrf.attrs.has('httponly'), false);
  assert.equal(csrf.attrs.get('samesite'), 'Lax');
  assert.equal(csrf.attrs.get('path'), '/');

  const me = await w.get('/json/users/me');
  assertSuccess(me);
  assert.equal(me.body.user_id, acc.id);
  assert.equal(me.text.includes(acc.apiKey), false);
});

test('login accepts a JSON body', async () => {
  const acc = await userWithPassword();
  const w = new WebClient(t.url);
  await w.get('/login/');
  const res = await w.request('POST', '/accounts/login/', {
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: acc.email, password: PASSWORD }),
  });
  assertSuccess(res);
  assertSuccess(await w.get('/json/users/me'));
  const bad = await w.request('POST', '/accounts/login/', { headers: { 'Content-Type': 'application/json' }, body: '{"username' });
  assertError(bad, 400, 'BAD_REQUEST', 'Malformed JSON');
});

test('cookies are Secure when EXTERNAL_URL is https', async () => {
  const s = await startTestServer({ EXTERNAL_URL: 'https://chat.example.com' });
  try {
    const w = new WebClient(s.url);
    const page = await w.get('/login/');
    assert.equal(cookie(page.cookies, 'csrftoken').attrs.has('secure'), true);
    const res = await w.post('/accounts/login/', { username: OWNER_EMAIL, password: OWNER_PASSWORD });
    assertSuccess(res);
    assert.equal(cookie(res.cookies, 'sessionid').attrs.has('secure'), true);
    assert.equal(cookie(res.cookies, 'csrftoken').attrs.has('secure'), true);
  } finally {
    await s.close();
  }
});

test('login failures use the errors of fetch_api_key', async () => {
  const acc = await userWithPassword();
  const w = new WebClient(t.url);
  await w.get('/login/');
  assertError(await w.post('/accounts/login/', { username: acc.email, password: 'wrong' }), 401, 'AUTHENTICATION_FAILED', 'Your username or password is incorrect');
  assertError(await w.post('/accounts/login/', { username: 'nobody@example.com', password: 'x' }), 401, 'AUTHENTICATION_FAILED', 'Your username or password is incorrect');
  assertError(await w.post('/accounts/login/', { username: 'not an email', password: 'x' }), 400, 'BAD_REQUEST', 'Enter a valid email address.');
  const missing = await w.post('/accounts/login/', { username: acc.email });
  assertError(missing, 400, 'REQUEST_VARIABLE_MISSING', "Missing 'password' argument");
  assert.equal(missing.body.var_name, 'password');
  assert.equal(w.jar.has('sessionid'), false);

  const gone = await userWithPassword();
  assertSuccess(await t.client(t.owner).delete(`/users/${gone.id}`));
  assertError(await w.post('/accounts/login/', { username: gone.email, password: PASSWORD }), 401, 'USER_DEACTIVATED', 'Account is deactivated');
});

test('login is rate limited per username: 429 RATE_LIMIT_HIT with Retry-After', async () => {
  const acc = await userWithPassword();
  const w = new WebClient(t.url);
  await w.get('/login/');
  for (let i = 0; i < 5; i++) {
    assertError(await w.post('/accounts/login/', { username: acc.email, password: 'wrong' }), 401, 'AUTHENTICATION_FAILED');
  }
  const limited = await w.post('/accounts/login/', { username: acc.email, password: PASSWORD });
  assertError(limited, 429, 'RATE_LIMIT_HIT', 'API usage exceeded rate limit');
  assert.ok(Number(limited.headers.get('retry-after')) > 0);
  assert.equal(typeof limited.body['retry-after'], 'number');
  // The API login shares the limit.
  assertError(await t.client(null).post('/fetch_api_key', { username: acc.email, password: PASSWORD }), 429, 'RATE_LIMIT_HIT');
});

test('login with a deactivated organization', async () => {
  const s = await startTestServer();
  try {
    await s.server.svc.store.db.updateTable('realm').set({ deactivated: 1 }).execute();
    const w = new WebClient(s.url);
    await w.get('/login/');
    assertError(await w.post('/accounts/login/', { username: OWNER_EMAIL, password: OWNER_PASSWORD }), 401, 'REALM_DEACTIVATED', 'This organization has been deactivated');
  } finally {
    await s.close();
  }
});

test('CSRF: login and /json writes need X-CSRFToken equal to the cookie and to the session token', async () => {
  const acc = await userWithPassword();
  const anon = new WebClient(t.url);
  assertError(await anon.post('/accounts/login/', { username: acc.email, password: PASSWORD }), 403, 'CSRF_FAILED', 'CSRF error: CSRF cookie not set.');
  await anon.get('/login/');
  const noHeader = await anon.post('/accounts/login/', { username: acc.email, password: PASSWORD }, { csrf: false });
  assertError(noHeader, 403, 'CSRF_FAILED', 'CSRF error: CSRF token missing.');
  assert.equal(noHeader.body.reason, 'CSRF token missing.');
  assertError(
    await anon.post('/accounts/login/', { username: acc.email, password: PASSWORD }, { csrf: 'x'.repeat(32) }),
    403,
    'CSRF_FAILED',
    "CSRF error: CSRF token from the 'X-Csrftoken' HTTP header incorrect.",
  );
  assert.equal(anon.jar.has('sessionid'), false);

  const a = await loggedIn(acc);
  const b = await loggedIn(acc);
  const params = { type: 'stream', to: 'general', topic: 'csrf', content: 'hello' };
  // A forged cross-site request: cookies are sent, but no header.
  assertError(await a.post('/json/messages', params, { csrf: false }), 403, 'CSRF_FAILED', 'CSRF error: CSRF token missing.');
  assertError(await a.post('/json/messages', params, { csrf: 'y'.repeat(32) }), 403, 'CSRF_FAILED', "CSRF error: CSRF token from the 'X-Csrftoken' HTTP header incorrect.");
  // The token of another session (sent with matching cookie) does not fit this session.
  const stolen = b.jar.get('csrftoken')!;
  const forged = new WebClient(t.url);
  forged.jar.set('sessionid', a.jar.get('sessionid')!);
  forged.jar.set('csrftoken', stolen);
  assertError(await forged.post('/json/messages', params), 403, 'CSRF_FAILED', "CSRF error: CSRF token from the 'X-Csrftoken' HTTP header incorrect.");
  assertError(await forged.request('DELETE', '/json/users/me/muted_users/1'), 403, 'CSRF_FAILED');
  // Reads need no token.
  assertSuccess(await a.request('GET', '/json/users/me', { csrf: false }));
  // The genuine request.
  assertSuccess(await a.post('/json/messages', params));
});

test('CSRF: a state-changing request from a foreign Origin is refused, even with the right token', async () => {
  const acc = await userWithPassword();
  const w = await loggedIn(acc);
  const params = { type: 'stream', to: 'general', topic: 'origin', content: 'hi' };
  const foreign = await w.post('/json/messages', params, { headers: { Origin: 'https://evil.example' } });
  assertError(foreign, 403, 'CSRF_FAILED', 'CSRF error: Origin checking failed - https://evil.example does not match any trusted origins.');
  assert.equal(foreign.body.reason, 'Origin checking failed - https://evil.example does not match any trusted origins.');
  assertError(await w.post('/accounts/logout/', {}, { headers: { Origin: 'null' } }), 403, 'CSRF_FAILED');
  // The server's own origin (the Host the browser used) passes.
  assertSuccess(await w.post('/json/messages', params, { headers: { Origin: t.url } }));
  const anon = new WebClient(t.url);
  await anon.get('/login/');
  assertSuccess(await anon.post('/accounts/login/', { username: acc.email, password: PASSWORD }, { headers: { Origin: t.url } }));
});

test('GET /accounts/login/ sends the browser to /login/', async () => {
  const res = await new WebClient(t.url).get('/accounts/login/');
  assert.equal(res.status, 302);
  assert.equal(res.headers.get('location'), '/login/');
});

test('the help center links of Welcome Bot\'s greeting lead to the same article on Zulip\'s help center', async () => {
  const w = new WebClient(t.url);
  for (const [path, to] of [
    ['/help/getting-started-with-zulip', 'https://zulip.com/help/getting-started-with-zulip'],
    ['/help/getting-your-organization-started-with-zulip', 'https://zulip.com/help/getting-your-organization-started-with-zulip'],
    ['/help/', 'https://zulip.com/help/'],
    ['/help', 'https://zulip.com/help/'],
    ['/help/star-a-message?x=1', 'https://zulip.com/help/star-a-message?x=1'],
  ] as const) {
    const res = await w.get(path);
    assert.equal(res.status, 302, path);
    assert.equal(res.headers.get('location'), to, path);
  }
});

test('/json without a session is 401 as Zulip answers it; Basic auth is not accepted there', async () => {
  const w = new WebClient(t.url);
  const res = await w.get('/json/users/me');
  assertError(res, 401, 'UNAUTHORIZED', 'Not logged in: API authentication or user session required');
  assert.equal(res.headers.get('www-authenticate'), 'Session realm="zulip"');
  const basic = await w.request('GET', '/json/users/me', {
    headers: { Authorization: 'Basic ' + Buffer.from(`${t.owner.email}:${t.owner.apiKey}`).toString('base64') },
  });
  assertError(basic, 401, 'UNAUTHORIZED', 'Not logged in: API authentication or user session required');
  // A made-up session id.
  w.jar.set('sessionid', 'A'.repeat(43));
  assertError(await w.get('/json/users/me'), 401, 'UNAUTHORIZED');
  // Public endpoints answer without a session.
  assertSuccess(await w.get('/json/server_settings'));
  // POST /fetch_api_key (email and password for the key) is not mirrored: /json/fetch_api_key is the logged-in user's own, below.
  await w.get('/login/');
  assertError(await w.post('/json/fetch_api_key', { username: OWNER_EMAIL, password: OWNER_PASSWORD }), 401, 'UNAUTHORIZED');
});

test('/json/fetch_api_key: the logged-in user has their API key by giving their password again (Zulip\u2019s json_fetch_api_key); failures count toward the login limit; not under /api/v1', async () => {
  const acc = await userWithPassword();
  const w = await loggedIn(acc);
  assertError(await w.post('/json/fetch_api_key', { password: 'not-my-password' }), 400, 'BAD_REQUEST', 'Password is incorrect.');
  assertError(await w.post('/json/fetch_api_key'), 400, 'BAD_REQUEST', 'Password is incorrect.');
  const r = assertSuccess(await w.post('/json/fetch_api_key', { password: PASSWORD }));
  assert.equal(r.api_key, acc.apiKey);
  assert.equal(r.email, acc.email);
  // Under /api/v1 it is the public POST /fetch_api_key, which needs the email too.
  assertError(await t.client(acc).post('/fetch_api_key', { password: PASSWORD }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'username' argument");
  // Three more failures make five: the next try waits, whatever the password.
  for (let i = 0; i < 3; i++) assertError(await w.post('/json/fetch_api_key', { password: 'wrong' }), 400, 'BAD_REQUEST', 'Password is incorrect.');
  assertError(await w.post('/json/fetch_api_key', { password: PASSWORD }), 429, 'RATE_LIMIT_HIT');
});

test('/json mirrors the API: same answers as /api/v1 for the session user', async () => {
  const acc = await userWithPassword();
  const w = await loggedIn(acc);
  const api = t.client(acc);
  for (const path of ['/users/me', '/users', '/streams', '/users/me/subscriptions', `/users/${acc.id}`]) {
    const viaJson = await w.get(`/json${path}`);
    const viaApi = await api.get(path);
    assertSuccess(viaJson);
    assert.deepEqual(viaJson.body, viaApi.body, path);
  }
  assertSchema(await w.get('/json/users/me'), 'GET', '/users/me');
  // Writes, with parameters and errors as under /api/v1.
  const sent = assertSuccess(await w.post('/json/messages', { type: 'stream', to: 'general', topic: 'web', content: 'from the browser' }));
  const fetched = assertSuccess(await w.get('/json/messages', { anchor: sent.id, num_before: 0, num_after: 0, narrow: [] }));
  assert.equal(fetched.messages[0].content, '<p>from the browser</p>');
  assert.equal(fetched.messages[0].client, 'website');
  assertError(await w.post('/json/messages', { type: 'stream', to: 'general', topic: 'web' }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'content' argument");
  assertSuccess(await w.patch(`/json/messages/${sent.id}`, { content: 'edited' }));
  assertSuccess(await w.post(`/json/messages/${sent.id}/reactions`, { emoji_name: 'smile' }));
  const unknown = await w.get('/json/no/such/endpoint');
  assert.equal(unknown.status, 404);
  const wrongMethod = await w.request('PUT', '/json/server_settings');
  assert.equal(wrongMethod.status, 405);
  assert.deepEqual(wrongMethod.body.allowed_methods, ['GET']);
});

test('/json/register and a /json/events long-poll deliver events; no API key in the state', async () => {
  const acc = await userWithPassword();
  const w = await loggedIn(acc);
  const reg = assertSuccess(await w.post('/json/register', { event_types: ['message'] }));
  const full = await w.post('/json/register', {});
  assertSuccess(full);
  assert.equal(full.text.includes(acc.apiKey), false);
  const poll = w.get('/json/events', { queue_id: reg.queue_id, last_event_id: reg.last_event_id });
  const other = await t.makeUser();
  assertSuccess(await t.client(other).post('/messages', { type: 'direct', to: [acc.id], content: 'ping' }));
  const events = assertSuccess(await poll);
  const msg = events.events.find((e: { type: string }) => e.type === 'message');
  assert.ok(msg, JSON.stringify(events.events));
  assert.equal(msg.message.content, 'ping');
  // The queue belongs to the user, not to the session or the transport.
  assertSuccess(await t.client(acc).get('/events', { queue_id: reg.queue_id, last_event_id: msg.id, dont_block: true }));
});

test('uploads through /json with the session, and files served with the session cookie', async () => {
  const acc = await userWithPassword();
  const w = await loggedIn(acc);
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
  const form = new FormData();
  form.append('file', new Blob([png], { type: 'image/png' }), 'pic.png');
  assertError(await w.request('POST', '/json/user_uploads', { body: form, csrf: false }), 403, 'CSRF_FAILED');
  const form2 = new FormData();
  form2.append('file', new Blob([png], { type: 'image/png' }), 'pic.png');
  const up = assertSuccess(await w.request('POST', '/json/user_uploads', { body: form2 }));
  assert.match(up.url, /^\/user_uploads\/\d+\/.+\/pic\.png$/);
  const file = await fetch(t.url + up.url, { headers: { Cookie: w.cookieHeader() } });
  assert.equal(file.status, 200);
  assert.equal(file.headers.get('content-type'), 'image/png');
  assert.deepEqual(Buffer.from(await file.arrayBuffer()), png);
  const anonymous = await fetch(t.url + up.url);
  assert.equal(anonymous.status, 401);
  const temp = assertSuccess(await w.get('/json' + up.url));
  assert.match(temp.url, /^\/user_uploads\/temporary\//);
  assertError(await new WebClient(t.url).get('/json' + up.url), 401, 'UNAUTHORIZED');
});

test('logout ends the session server-side and clears the cookie; it needs the CSRF token', async () => {
  const acc = await userWithPassword();
  const w = await loggedIn(acc);
  const sessionId = w.jar.get('sessionid')!;
  assertError(await w.post('/accounts/logout/', {}, { csrf: false }), 403, 'CSRF_FAILED');
  const res = await w.post('/accounts/logout/');
  assert.deepEqual(res.body, { result: 'success', msg: '' });
  const cleared = cookie(res.cookies, 'sessionid');
  assert.equal(cleared.value, '');
  assert.ok(cleared.attrs.get('max-age') === '0' || Date.parse(cleared.attrs.get('expires') ?? '') < Date.now());
  assert.equal(w.jar.has('sessionid'), false);
  assertError(await w.get('/json/users/me'), 401, 'UNAUTHORIZED');
  // The old cookie replayed does not work either.
  const replay = new WebClient(t.url);
  replay.jar.set('sessionid', sessionId);
  assertError(await replay.get('/json/users/me'), 401, 'UNAUTHORIZED');
  assert.equal((await replay.get('/')).status, 302);
  // The fresh anonymous token lets the login form work again.
  assertSuccess(await w.post('/accounts/login/', { username: acc.email, password: PASSWORD }));
});

test('deactivation ends every session of the user', async () => {
  const acc = await userWithPassword();
  const w = await loggedIn(acc);
  assertSuccess(await w.get('/json/users/me'));
  assertSuccess(await t.client(t.owner).delete(`/users/${acc.id}`));
  assertError(await w.get('/json/users/me'), 401, 'UNAUTHORIZED');
  const rows = await t.server.svc.store.db.selectFrom('sessions').select('user_id').where('user_id', '=', acc.id).execute();
  assert.equal(rows.length, 0);
  // Reactivated, the old session stays ended.
  assertSuccess(await t.client(t.owner).post(`/users/${acc.id}/reactivate`));
  assertError(await w.get('/json/users/me'), 401, 'UNAUTHORIZED');
});

test('a password change ends the other sessions (the session that changed it stays)', async () => {
  const acc = await userWithPassword();
  const a = await loggedIn(acc);
  const b = await loggedIn(acc);
  assertSuccess(await a.patch('/json/settings', { old_password: PASSWORD, new_password: 'another-long-passphrase' }));
  assertSuccess(await a.get('/json/users/me'));
  assertError(await b.get('/json/users/me'), 401, 'UNAUTHORIZED');
  // Through the API (no session), every session ends.
  assertSuccess(await t.client(acc).patch('/settings', { old_password: 'another-long-passphrase', new_password: PASSWORD }));
  assertError(await a.get('/json/users/me'), 401, 'UNAUTHORIZED');
});

test('API key regeneration ends the sessions; the API key is not in the session response', async () => {
  const acc = await userWithPassword();
  const a = await loggedIn(acc);
  const b = await loggedIn(acc);
  const regen = assertSuccess(await a.post('/json/users/me/api_key/regenerate'));
  assert.match(regen.api_key, /^[A-Za-z0-9]{32}$/);
  assertSuccess(await a.get('/json/users/me'));
  assertError(await b.get('/json/users/me'), 401, 'UNAUTHORIZED');
  assertSuccess(await t.client({ email: acc.email, apiKey: regen.api_key }).post('/users/me/api_key/regenerate'));
  assertError(await a.get('/json/users/me'), 401, 'UNAUTHORIZED');
});

test('an API key regenerated by the admin command ends the sessions', async () => {
  const acc = await userWithPassword();
  const w = await loggedIn(acc);
  // The function `parley-admin regenerate-api-key` runs.
  await regenerateApiKey(t.server.svc, acc.row);
  assertError(await w.get('/json/users/me'), 401, 'UNAUTHORIZED');
});

test('an expired session is refused and removed', async () => {
  const acc = await userWithPassword();
  const w = await loggedIn(acc);
  const db = t.server.svc.store.db;
  await db.updateTable('sessions').set({ expires: Date.now() - 1000 }).where('user_id', '=', acc.id).execute();
  assertError(await w.get('/json/users/me'), 401, 'UNAUTHORIZED');
  assert.equal((await w.get('/')).status, 302);
  const rows = await db.selectFrom('sessions').select('id_hash').where('user_id', '=', acc.id).execute();
  assert.equal(rows.length, 0);
});

test('sessions are stored as hashes only', async () => {
  const acc = await userWithPassword();
  const w = await loggedIn(acc);
  const sessionId = w.jar.get('sessionid')!;
  const rows = await t.server.svc.store.db.selectFrom('sessions').selectAll().where('user_id', '=', acc.id).execute();
  assert.equal(rows.length, 1);
  assert.notEqual(rows[0].id_hash, sessionId);
  assert.match(rows[0].id_hash, /^[0-9a-f]{64}$/);
  assert.equal(rows[0].csrf_token, w.jar.get('csrftoken'));
});

test('the per-user API rate limit applies to /json and is shared with /api/v1, with the X-RateLimit-* headers', async () => {
  const s = await startTestServer({ PARLEY_API_RATE_LIMIT_PER_MINUTE: '3' });
  try {
    const w = new WebClient(s.url);
    assertSuccess(await w.login(OWNER_EMAIL, OWNER_PASSWORD));
    // Each counted answer carries Zulip's X-RateLimit-* headers, whichever way it came.
    const answers = [await w.get('/json/users/me'), await s.client(s.owner).get('/users/me'), await w.get('/json/users/me')];
    answers.forEach((res, i) => {
      assertSuccess(res);
      assert.equal(res.headers.get('x-ratelimit-limit'), '3');
      assert.equal(res.headers.get('x-ratelimit-remaining'), String(2 - i));
      assert.match(res.headers.get('x-ratelimit-reset') ?? '', /^\d{10}$/);
    });
    const limited = await w.get('/json/users/me');
    assertError(limited, 429, 'RATE_LIMIT_HIT', 'API usage exceeded rate limit');
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');
  } finally {
    await s.close();
  }
});
