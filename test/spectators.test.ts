/**
 * Spectators: logged-out visitors reading web-public channels through the
 * web client's /json API, where the server enables web-public channels and
 * the organization spectator access (Zulip's allow_web_public_streams_access).
 * GET /json/messages with a `channels:web-public` narrow, and POST
 * /json/register without an event queue; both refused otherwise.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSchema, assertSuccess, type Account, type TestServer } from './helpers.ts';
import { WebClient } from './web-helpers.ts';

let t: TestServer;
let member: Account;
let webPublic: { id: number; name: string };
let publicOnly: { id: number; name: string };
const webIds: number[] = [];
let webNotice: number;
let publicId: number;
let dmId: number;

const narrow = (terms: Array<Record<string, unknown>>) => JSON.stringify(terms);
const WEB_PUBLIC = { operator: 'channels', operand: 'web-public' };

/** A visitor with no session: the csrftoken cookie only, as a browser has after opening a page. */
async function visitor(): Promise<WebClient> {
  const w = new WebClient(t.url);
  await w.get('/login/');
  assert.ok(w.jar.has('csrftoken'));
  return w;
}

async function setSpectatorAccess(on: boolean): Promise<void> {
  assertSuccess(await t.client(t.owner).patch('/realm', { enable_spectator_access: on }));
}

before(async () => {
  t = await startTestServer({ WEB_PUBLIC_STREAMS_ENABLED: 'true' });
  member = await t.makeUser({ name: 'Member Spectated' });
  const owner = t.client(t.owner);
  await setSpectatorAccess(true);
  for (const [name, web] of [
    ['spectated', true],
    ['members-only', false],
  ] as const) {
    assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: [{ name }], is_web_public: web, principals: [t.owner.id, member.id] }));
  }
  const streams = assertSuccess(await owner.get('/streams')).streams as Array<{ stream_id: number; name: string }>;
  const byName = (n: string) => streams.find((s) => s.name === n)!;
  webPublic = { id: byName('spectated').stream_id, name: 'spectated' };
  publicOnly = { id: byName('members-only').stream_id, name: 'members-only' };
  // First in it: Notification Bot's notice of its creation, in "channel events".
  webNotice = assertSuccess(await owner.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 1, narrow: narrow([{ operator: 'channel', operand: webPublic.id }]) })).messages[0].id;
  for (const topic of ['one', 'two', 'one']) {
    webIds.push(assertSuccess(await owner.post('/messages', { type: 'stream', to: webPublic.id, topic, content: `open ${topic}` })).id);
  }
  publicId = assertSuccess(await owner.post('/messages', { type: 'stream', to: publicOnly.id, topic: 'one', content: 'members only' })).id;
  dmId = assertSuccess(await owner.post('/messages', { type: 'direct', to: JSON.stringify([member.id]), content: 'private' })).id;
});
after(() => t.close());

test('GET /json/messages: a spectator reads web-public channels only, every message read', async () => {
  const w = await visitor();
  const res = await w.get('/json/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow: narrow([WEB_PUBLIC]) });
  const body = assertSuccess(res);
  assertSchema(res, 'get', '/messages');
  assert.deepEqual(
    body.messages.map((m: any) => m.id),
    [webNotice, ...webIds],
  );
  assert.ok(!body.messages.some((m: any) => m.id === publicId || m.id === dmId));
  for (const m of body.messages) {
    assert.deepEqual(m.flags, ['read']);
    assert.equal(m.stream_id, webPublic.id);
    // Avatars as URLs: a spectator is not told who uses a gravatar.
    assert.equal(typeof m.avatar_url, 'string');
  }
  assert.deepEqual([body.found_newest, body.found_oldest], [true, true]);
  // A channel and topic within it; `in:home` is dropped, as Zulip drops it for spectators.
  const topic = assertSuccess(
    await w.get('/json/messages', {
      anchor: 'oldest',
      num_before: 0,
      num_after: 10,
      narrow: narrow([WEB_PUBLIC, { operator: 'channel', operand: webPublic.id }, { operator: 'topic', operand: 'one' }, { operator: 'in', operand: 'home' }]),
    }),
  );
  assert.deepEqual(
    topic.messages.map((m: any) => m.id),
    [webIds[0], webIds[2]],
  );
  // A first-unread anchor is the newest end: a spectator has read everything.
  const firstUnread = assertSuccess(await w.get('/json/messages', { anchor: 'first_unread', num_before: 1, num_after: 1, narrow: narrow([WEB_PUBLIC]) }));
  assert.equal(firstUnread.anchor, 10000000000000000);
  assert.deepEqual(
    firstUnread.messages.map((m: any) => m.id),
    [webIds[2]],
  );
  // `with` a web-public message: its conversation.
  const withMsg = assertSuccess(
    await w.get('/json/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: narrow([WEB_PUBLIC, { operator: 'with', operand: webIds[1] }]) }),
  );
  assert.deepEqual(
    withMsg.messages.map((m: any) => m.id),
    [webIds[1]],
  );
  // A keyword search, highlighted.
  const search = assertSuccess(await w.get('/json/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: narrow([WEB_PUBLIC, { operator: 'search', operand: 'two' }]) }));
  assert.deepEqual(
    search.messages.map((m: any) => [m.id, m.flags]),
    [[webIds[1], ['read']]],
  );
  assert.match(search.messages[0].match_content, /<span class="highlight">two<\/span>/);
  // By IDs: only the web-public ones come back.
  const byIds = assertSuccess(await w.get('/json/messages', { message_ids: JSON.stringify([webIds[0], publicId, dmId]), narrow: narrow([WEB_PUBLIC]) }));
  assert.deepEqual(
    byIds.messages.map((m: any) => m.id),
    [webIds[0]],
  );
});

test('GET /json/messages: a spectator is asked to log in without a channels:web-public narrow or with other operators', async () => {
  const w = await visitor();
  const refused = async (terms: Array<Record<string, unknown>> | null) => {
    const res = await w.get('/json/messages', { anchor: 'newest', num_before: 5, num_after: 0, ...(terms ? { narrow: narrow(terms) } : {}) });
    assertError(res, 401, 'UNAUTHORIZED', 'Not logged in: API authentication or user session required');
    assert.equal(res.headers.get('www-authenticate'), 'Session realm="zulip"');
  };
  await refused(null);
  await refused([{ operator: 'channel', operand: webPublic.id }]);
  await refused([{ ...WEB_PUBLIC, negated: true }]);
  await refused([WEB_PUBLIC, { operator: 'is', operand: 'dm' }]);
  await refused([WEB_PUBLIC, { operator: 'is', operand: 'starred' }]);
  await refused([WEB_PUBLIC, { operator: 'dm', operand: [member.id] }]);
  await refused([WEB_PUBLIC, { operator: 'in', operand: 'all' }]);
  // A channel that is not web-public is unknown to a spectator.
  assertError(
    await w.get('/json/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: narrow([WEB_PUBLIC, { operator: 'channel', operand: publicOnly.name }]) }),
    400,
    'BAD_NARROW',
    `Invalid narrow operator: unknown web-public channel ${publicOnly.name}`,
  );
  assertError(
    await w.get('/json/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: narrow([WEB_PUBLIC, { operator: 'channel', operand: 'no-such-channel' }]) }),
    400,
    'BAD_NARROW',
    'Invalid narrow operator: unknown channel no-such-channel',
  );
  // The parameters are checked first, as for anyone.
  assertError(await w.get('/json/messages', { anchor: 'newest', num_before: 5001, num_after: 0, narrow: narrow([WEB_PUBLIC]) }), 400, 'BAD_REQUEST', 'Too many messages requested (maximum 5000).');
  // Under /api/v1 a client must authenticate, whatever the narrow.
  assertError(await t.client(null).get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: narrow([WEB_PUBLIC]) }), 401, 'UNAUTHORIZED');
  // Logged in, the same narrow is an ordinary one (the member's own flags).
  const mine = assertSuccess(await t.client(member).get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: narrow([WEB_PUBLIC]) }));
  assert.deepEqual(
    mine.messages.map((m: any) => m.id),
    [webNotice, ...webIds],
  );
  assert.ok(mine.messages.every((m: any) => !m.flags.includes('read')));
});

test('GET /json/messages/{id}: a message of a web-public channel for a spectator; any other is refused without saying whether it exists', async () => {
  const w = await visitor();
  const res = await w.get(`/json/messages/${webIds[1]}`);
  const one = assertSuccess(res);
  assertSchema(res, 'get', '/messages/{message_id}');
  assert.equal(one.raw_content, 'open two');
  assert.deepEqual([one.message.id, one.message.flags, one.message.subject], [webIds[1], ['read'], 'two']);
  for (const id of [publicId, dmId, 999999]) {
    assertError(await w.get(`/json/messages/${id}`), 401, 'UNAUTHORIZED', 'Not logged in: API authentication or user session required');
  }
  assertError(await t.client(null).get(`/messages/${webIds[1]}`), 401, 'UNAUTHORIZED');
});

test("GET /json/users/me/{id}/topics: a web-public channel's topics for a spectator", async () => {
  const w = await visitor();
  const res = assertSuccess(await w.get(`/json/users/me/${webPublic.id}/topics`));
  assert.deepEqual(
    res.topics.map((x: any) => [x.name, x.max_id]),
    [
      ['one', webIds[2]],
      ['two', webIds[1]],
      ['channel events', webNotice],
    ],
  );
  assertError(await w.get(`/json/users/me/${publicOnly.id}/topics`), 400, 'BAD_REQUEST', 'Invalid channel ID');
  assertError(await w.get('/json/users/me/999999/topics'), 400, 'BAD_REQUEST', 'Invalid channel ID');
  assertError(await t.client(null).get(`/users/me/${webPublic.id}/topics`), 401, 'UNAUTHORIZED');
});

test('GET /: the app for a visitor where spectators are allowed, else the login page', async () => {
  const w = new WebClient(t.url);
  const open = await w.get('/');
  // (No web client is built for these tests: the page is the "not built" one, but the app's, not a redirect.)
  assert.notEqual(open.status, 302);
  assert.ok(w.jar.has('csrftoken'));
  await setSpectatorAccess(false);
  try {
    const closed = await new WebClient(t.url).get('/');
    assert.equal(closed.status, 302);
    assert.equal(closed.headers.get('location'), '/login/');
  } finally {
    await setSpectatorAccess(true);
  }
});

test('POST /json/register: a spectator gets the organization as a guest sees it, web-public channels, nothing personal, no queue', async () => {
  const w = await visitor();
  const res = await w.post('/json/register', { apply_markdown: true });
  const reg = assertSuccess(res);
  assertSchema(res, 'post', '/register');
  assert.equal(reg.queue_id, null);
  assert.ok(!('last_event_id' in reg));
  assert.equal(typeof reg.zulip_feature_level, 'number');
  // Who "I" am: Zulip's anonymous stand-in.
  assert.deepEqual([reg.user_id, reg.full_name, reg.email, reg.is_guest, reg.is_admin, reg.is_owner], [0, 'Anonymous User', 'username@example.com', true, false, false]);
  assert.equal(reg.user_settings.web_home_view, 'recent');
  assert.equal(reg.user_settings.default_language, 'en');
  // The web-public channel as a subscription with a new subscription's settings; nothing else.
  assert.deepEqual(
    reg.subscriptions.map((s: any) => s.stream_id),
    [webPublic.id],
  );
  const sub = reg.subscriptions[0];
  assert.deepEqual([sub.name, sub.is_web_public, sub.is_muted, sub.in_home_view, sub.pin_to_top, sub.desktop_notifications], ['spectated', true, false, true, false, true]);
  assert.match(sub.color, /^#[0-9a-f]{6}$/);
  assert.deepEqual([reg.unsubscribed, reg.never_subscribed], [[], []]);
  assert.ok(!('streams' in reg));
  assert.deepEqual(reg.realm_default_streams, []);
  // Users, without custom profile fields; nothing personal.
  const person = reg.realm_users.find((u: any) => u.user_id === member.id);
  assert.equal(person.full_name, 'Member Spectated');
  assert.ok(!('profile_data' in person));
  assert.deepEqual(reg.custom_profile_fields, []);
  assert.equal(reg.unread_msgs.count, 0);
  assert.deepEqual([reg.unread_msgs.streams, reg.unread_msgs.pms, reg.unread_msgs.mentions], [[], [], []]);
  assert.deepEqual([reg.starred_messages, reg.drafts, reg.muted_users, reg.user_topics, reg.alert_words, reg.realm_bots, reg.recent_private_conversations], [[], [], [], [], [], [], []]);
  assert.deepEqual([reg.presences, reg.user_status], [{}, {}]);
  assert.ok(!('presence_last_update_id' in reg));
  assert.deepEqual([reg.realm_presence_disabled, reg.realm_allow_message_editing, reg.realm_enable_spectator_access], [true, false, true]);
  // Asked for some types only.
  const some = assertSuccess(await w.post('/json/register', { fetch_event_types: JSON.stringify(['subscription']) }));
  assert.deepEqual(Object.keys(some).sort(), ['msg', 'never_subscribed', 'queue_id', 'result', 'subscriptions', 'unsubscribed', 'zulip_feature_level', 'zulip_merge_base', 'zulip_version']);
});

test('POST /json/register: what a spectator may not ask for, and when it is refused', async () => {
  const w = await visitor();
  assertError(await w.post('/json/register', { client_gravatar: true }), 400, 'BAD_REQUEST', "Invalid 'client_gravatar' parameter for anonymous request");
  assertError(await w.post('/json/register', { include_subscribers: true }), 400, 'BAD_REQUEST', "Invalid 'include_subscribers' parameter for anonymous request");
  assertError(await w.post('/json/register', { include_subscribers: 'partial' }), 400, 'BAD_REQUEST', "Invalid 'include_subscribers' parameter for anonymous request");
  assertSuccess(await w.post('/json/register', { client_gravatar: false }));
  // Logged in, "partial" is taken as Zulip's clients send it (as is, not as a JSON string).
  const partial = assertSuccess(await t.client(member).post('/register', { include_subscribers: 'partial', fetch_event_types: JSON.stringify(['subscription']) }));
  assert.ok(partial.subscriptions.every((s: any) => Array.isArray(s.subscribers)));
  // A state-changing request without the CSRF token is refused before anything else.
  assertError(await w.post('/json/register', {}, { csrf: false }), 403, 'CSRF_FAILED');
  // Under /api/v1 a client must authenticate.
  assertError(await t.client(null).post('/register', {}), 401, 'UNAUTHORIZED');
  // An event queue needs a user.
  assertError(await w.get('/json/events', { queue_id: 'x', last_event_id: -1 }), 401, 'UNAUTHORIZED');
});

test('without spectator access (or the server setting) a visitor must log in', async () => {
  const w = await visitor();
  await setSpectatorAccess(false);
  try {
    const res = await w.post('/json/register', {});
    assertError(res, 401, 'UNAUTHORIZED', 'Not logged in: API authentication or user session required');
    assert.equal(res.headers.get('www-authenticate'), 'Session realm="zulip"');
    assertError(await w.get('/json/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: narrow([WEB_PUBLIC]) }), 401, 'UNAUTHORIZED');
  } finally {
    await setSpectatorAccess(true);
  }
  assertSuccess(await w.post('/json/register', {}));
  // A server without web-public channels has no spectators, whatever the organization says.
  const off = await startTestServer();
  try {
    const o = new WebClient(off.url);
    await o.get('/login/');
    assertError(await o.post('/json/register', {}), 401, 'UNAUTHORIZED');
    assertError(await o.get('/json/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: narrow([WEB_PUBLIC]) }), 401, 'UNAUTHORIZED');
    assertError(await o.get(`/json/users/me/${webPublic.id}/topics`), 401, 'UNAUTHORIZED');
  } finally {
    await off.close();
  }
});
