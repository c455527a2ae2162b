/**
 * Operations of Zulip's current API index added last: a user's subscribed
 * channels, updating subscriptions in one request, the thumbnail status of
 * an upload, the Welcome Bot's test message; and the declared list of
 * operations not provided (none of them is a route, each answers 404); docs/API.md as the routes generate it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account, streamIdOf } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';
import { ROLE } from '../src/store/users.ts';
import { allRoutes } from '../src/http/routes/index.ts';
import { displayPath, routesMarkdown } from '../src/cli/routes.ts';
import { NOT_PROVIDED } from '../src/http/routes/not-provided.ts';

let t: TestServer;
let admin: Account, alice: Account, bob: Account, guest: Account;
let pub: number, priv: number, other: number;

before(async () => {
  t = await startTestServer();
  admin = await t.makeUser({ name: 'Admin', role: ROLE.ADMINISTRATOR });
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  guest = await t.makeUser({ name: 'Guest', role: ROLE.GUEST });
  pub = await makeChannel(t, { name: 'open', subscribers: [alice.id, bob.id, guest.id] });
  priv = await makeChannel(t, { name: 'hidden', inviteOnly: true, subscribers: [alice.id] });
  other = await makeChannel(t, { name: 'elsewhere', subscribers: [alice.id] });
});
after(() => t.close());

const basic = (acc: Account) => ({ Authorization: 'Basic ' + Buffer.from(`${acc.email}:${acc.apiKey}`).toString('base64') });

test('GET /users/{user_id}/channels: the subscriptions the caller may see', async () => {
  const ids = async (viewer: Account, target: number) => assertSuccess(await t.client(viewer).get(`/users/${target}/channels`)).subscribed_channel_ids as number[];
  // Everyone joins general (and never core team).
  const general = await streamIdOf(t.client(alice), 'general');
  // Administrators see every channel Alice is in, including the private one.
  assert.deepEqual(await ids(admin, alice.id), [general, pub, priv, other].sort((a, b) => a - b));
  // Bob (not subscribed to the private channel) does not learn of it.
  assert.deepEqual(await ids(bob, alice.id), [general, pub, other].sort((a, b) => a - b));
  // Alice sees her own.
  assert.deepEqual(await ids(alice, alice.id), [general, pub, priv, other].sort((a, b) => a - b));
  // A guest sees only channels they are in themselves.
  assert.deepEqual(await ids(guest, alice.id), [general, pub].sort((a, b) => a - b));
  const res = await t.client(bob).get(`/users/${alice.id}/channels`);
  assert.deepEqual(Object.keys(res.body).sort(), ['msg', 'result', 'subscribed_channel_ids']);
  assertError(await t.client(bob).get('/users/999999/channels'), 400, 'BAD_REQUEST', 'No such user');
  assertError(await t.client(bob).get('/users/abc/channels'), 404, 'BAD_REQUEST');
});

test('PATCH /users/me/subscriptions: add and delete in one request, with their events', async () => {
  const b = t.client(bob);
  const q = await openQueue(b, { event_types: ['subscription'] });
  const res = await b.patch('/users/me/subscriptions', { add: [{ name: 'elsewhere' }], delete: ['open'] });
  assertSchema(res, 'PATCH', '/users/me/subscriptions');
  const body = assertSuccess(res);
  assert.deepEqual(body.subscribed, { [String(bob.id)]: ['elsewhere'] });
  assert.deepEqual(body.already_subscribed, {});
  assert.deepEqual(body.removed, ['open']);
  assert.deepEqual(body.not_removed, []);
  const events = await q.ofType('subscription');
  assert.deepEqual(events.map((e) => e.op).filter((op) => op === 'add' || op === 'remove'), ['add', 'remove']);
  assert.deepEqual(events.find((e) => e.op === 'remove').subscriptions.map((s: any) => s.stream_id), [pub]);
  assert.equal(assertSuccess(await t.client(bob).get(`/users/${bob.id}/subscriptions/${other}`)).is_subscribed, true);
  assert.equal(assertSuccess(await t.client(bob).get(`/users/${bob.id}/subscriptions/${pub}`)).is_subscribed, false);

  // Only one half.
  const again = assertSuccess(await b.patch('/users/me/subscriptions', { add: [{ name: 'open' }] }));
  assert.deepEqual(again.subscribed, { [String(bob.id)]: ['open'] });
  assert.equal(again.removed, undefined);
  assert.deepEqual(assertSuccess(await b.patch('/users/me/subscriptions', { delete: ['elsewhere'] })), { result: 'success', msg: '', removed: ['elsewhere'], not_removed: [] });
  assert.deepEqual(assertSuccess(await b.patch('/users/me/subscriptions', { delete: ['elsewhere'] })), { result: 'success', msg: '', removed: [], not_removed: ['elsewhere'] });
  // A private channel Bob cannot see does not exist for him, as with DELETE;
  // and then nothing is added either (Zulip runs both halves in one transaction).
  assertError(await b.patch('/users/me/subscriptions', { add: [{ name: 'elsewhere' }], delete: ['hidden'] }), 400, 'BAD_REQUEST', 'Channel(s) (hidden) do not exist');
  assert.equal(assertSuccess(await t.client(bob).get(`/users/${bob.id}/subscriptions/${other}`)).is_subscribed, false);
  // A channel the request creates can be named in both halves.
  const both = assertSuccess(await b.patch('/users/me/subscriptions', { add: [{ name: 'brand new' }], delete: ['brand new'] }));
  assert.deepEqual(both.subscribed, { [String(bob.id)]: ['brand new'] });
  assert.deepEqual(both.removed, ['brand new']);

  assertError(await b.patch('/users/me/subscriptions', {}), 400, 'BAD_REQUEST', 'Nothing to do. Specify at least one of "add" or "delete".');
  assertError(await b.patch('/users/me/subscriptions', { add: [], delete: [] }), 400, 'BAD_REQUEST', 'Nothing to do. Specify at least one of "add" or "delete".');
  assertError(await b.patch('/users/me/subscriptions', { add: ['open'] }), 400, 'BAD_REQUEST');
});

test('GET /thumbnail/status/{realm_id_str}/{filename}: the uploader\'s images only', async () => {
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  const upload = async (acc: Account, name: string, type: string) => {
    const form = new FormData();
    form.append('file', new Blob([type === 'image/png' ? png : 'x'], { type }), name);
    const res = await fetch(`${t.url}/api/v1/user_uploads`, { method: 'POST', headers: basic(acc), body: form });
    return ((await res.json()) as { url: string }).url.slice('/user_uploads/'.length);
  };
  const image = await upload(alice, 'photo.png', 'image/png');
  const text = await upload(alice, 'notes.txt', 'text/plain');
  const res = await t.client(alice).get(`/thumbnail/status/${image}`);
  assert.deepEqual(assertSuccess(res), { result: 'success', msg: '', has_thumbnail: true });
  assertError(await t.client(bob).get(`/thumbnail/status/${image}`), 400, 'BAD_REQUEST', 'Invalid attachment');
  assertError(await t.client(alice).get(`/thumbnail/status/${text}`), 400, 'BAD_REQUEST', 'Invalid attachment');
  assertError(await t.client(alice).get(`/thumbnail/status/${t.server.svc.realmId}/00/nothing/here.png`), 400, 'BAD_REQUEST', 'Invalid attachment');
  assertError(await t.client(alice).get('/thumbnail/status/unk/00/nothing/here.png'), 400, 'BAD_REQUEST', 'Invalid attachment');
});

test('POST /realm/test_welcome_bot_custom_message: administrators receive the Welcome Bot\'s messages', async () => {
  const a = t.client(admin);
  const q = await openQueue(a, { event_types: ['message'], apply_markdown: true });
  const res = assertSuccess(await a.post('/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: 'Welcome to **our** team!' }));
  assert.deepEqual(Object.keys(res).sort(), ['message_id', 'msg', 'result']);
  const events = (await q.ofType('message')).map((e) => e.message);
  // The usual welcome, then the custom text, both direct messages from Welcome Bot.
  assert.equal(events.length, 2);
  assert.equal(events[1].id, res.message_id);
  assert.equal(events[1].content, '<p>Welcome to <strong>our</strong> team!</p>');
  assert.equal(events[1].type, 'private');
  assert.match(events[0].content, /Welcome Bot/);
  // Unlike a new user's, this greeting is not starred.
  assert.deepEqual(assertSuccess(await a.get(`/messages/${events[0].id}`)).message.flags, []);
  assert.equal(events[0].sender_id, events[1].sender_id);
  assert.deepEqual(events[1].display_recipient.map((r: any) => r.id).sort(), [admin.id, events[1].sender_id].sort());

  assertError(await t.client(alice).post('/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: 'hi' }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  assertError(await a.post('/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: '' }), 400, 'BAD_REQUEST', 'Message must not be empty');
  assertError(await a.post('/realm/test_welcome_bot_custom_message', {}), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'welcome_message_custom_text' argument");
  assertError(await a.post('/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: 'x'.repeat(8001) }), 400, 'BAD_REQUEST');
});

test('Welcome Bot answers a direct message with the commands its greeting lists; not in a group, not by email', async () => {
  const a = t.client(bob);
  const q = await openQueue(a, { event_types: ['message'], apply_markdown: false });
  const botId = (assertSuccess(await t.client(admin).get('/users/welcome-bot@zulip.com')).user as { user_id: number }).user_id;
  const ask = async (content: string): Promise<string> => {
    const sent = assertSuccess(await a.post('/messages', { type: 'direct', to: JSON.stringify([botId]), content }));
    const events = (await q.ofType('message')).map((e) => e.message);
    assert.equal(events.length, 2, `the message and the answer to ${content}`);
    assert.equal(events[0].id, sent.id);
    const reply = events[1];
    assert.equal(reply.sender_id, botId);
    assert.equal(reply.type, 'private');
    assert.deepEqual(reply.display_recipient.map((r: { id: number }) => r.id).sort((x: number, y: number) => x - y), [bob.id, botId].sort((x, y) => x - y));
    return reply.content as string;
  };
  assert.match(await ask('help'), /^I know these words: `apps`, `profile`, `theme`, `channels`, `topics`, `message formatting`, `keyboard shortcuts`\.\n\n.*\(\/help\/getting-started-with-zulip\)/s);
  assert.match(await ask('?'), /^I know these words:/);
  // The whole message, in any case, chooses the answer; other spellings count.
  assert.match(await ask('Theme'), /\(\/help\/dark-theme\)/);
  assert.match(await ask('streams'), /\(\/help\/introduction-to-channels\)/);
  assert.match(await ask('keyboard'), /\(\/help\/keyboard-shortcuts\)/);
  assert.match(await ask('message formatting'), /\[Markdown\]/);
  assert.match(await ask('apps'), /mobile and desktop apps/);
  assert.match(await ask('topics'), /\(\/help\/introduction-to-topics\)/);
  assert.match(await ask('profile'), /\(\/help\/edit-your-profile\)/);
  assert.match(await ask('what can you do for me?'), /^Sorry, I did not understand that\. Try one of these messages: `apps`.*`help`\.$/);
  // The answers are read in the app: no missed-message email for them (nor for the greeting).
  const pending = await t.server.svc.store.db.selectFrom('missed_message_emails').select('message_id').where('user_id', '=', bob.id).execute();
  assert.deepEqual(pending, []);
  // A group conversation that includes Welcome Bot gets no answer.
  assertSuccess(await a.post('/messages', { type: 'direct', to: JSON.stringify([botId, alice.id]), content: 'help' }));
  // (An answer would be queued before the request is answered, as the answers above were.)
  const after = (await q.ofType('message')).map((e) => e.message);
  assert.equal(after.length, 1, 'only the group message');
  assert.equal(after[0].sender_id, bob.id);
});

test('operations not provided: declared with a reason, none is a route, each answers 404', async () => {
  const served = new Set(allRoutes().map((r) => `${r.method} ${displayPath(r.path)}`));
  assert.ok(NOT_PROVIDED.length > 0);
  for (const n of NOT_PROVIDED) {
    assert.ok(n.reason.length > 20, n.operation);
    assert.ok(!served.has(`${n.method} /api/v1${n.path}`), `${n.method} ${n.path} is declared not provided but is a route`);
    const res = await fetch(`${t.url}/api/v1${n.path}`, { method: n.method, headers: basic(alice) });
    assert.equal(res.status, 404, `${n.method} ${n.path}`);
    assert.deepEqual(await res.json(), { result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
  }
});

test('docs/API.md is what the route declarations generate (npm run -s routes -- --markdown > docs/API.md)', () => {
  const written = readFileSync(new URL('../docs/API.md', import.meta.url), 'utf8');
  assert.ok(written === routesMarkdown(allRoutes()), 'docs/API.md is out of date: run `npm run -s routes -- --markdown > docs/API.md`');
});
