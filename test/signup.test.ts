/** Accepting invitations: GET/POST /accounts/do_confirm/<key>. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sentEmails, assertSuccess, openQueue, startTestServer, type Account, type Client, type TestServer } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';
import { sql } from 'kysely';

let t: TestServer;
let owner: Client;
let member: Account;
let bystander: Account;
let publicChannel: number;
let secretChannel: number;
let groupId: number;

const c = (a: Account): Client => t.client(a);
let n = 0;
const fresh = () => `joiner${++n}@example.org`;

function keyFor(addr: string): string {
  const mails = sentEmails(t.server.svc.config.dataDir, addr).filter((e) => e.template === 'invitation');
  const m = /\/accounts\/do_confirm\/([a-z0-9]+)/.exec(mails[mails.length - 1].text);
  assert.ok(m, 'registration link in the email');
  return m[1];
}

async function invite(by: Client, params: Record<string, unknown> = {}): Promise<{ email: string; key: string }> {
  const email = fresh();
  assertSuccess(await by.post('/invites', { invitee_emails: email, stream_ids: [], ...params }));
  return { email, key: keyFor(email) };
}

async function page(method: 'GET' | 'POST', key: string, form?: Record<string, string>): Promise<{ status: number; html: string; headers: Headers }> {
  const res = await fetch(`${t.url}/accounts/do_confirm/${key}`, {
    method,
    headers: form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {},
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  return { status: res.status, html: await res.text(), headers: res.headers };
}

const GOOD_PASSWORD = 'correct-horse-9';

async function userByEmail(email: string) {
  return t.server.svc.store.db.selectFrom('users').selectAll().where('delivery_email', '=', email).execute();
}

async function fetchApiKey(email: string, password: string) {
  return t.client(null).post('/fetch_api_key', { username: email, password });
}

before(async () => {
  t = await startTestServer();
  owner = t.client(t.owner);
  member = await t.makeUser({ role: 400, name: 'Inviting Member' });
  bystander = await t.makeUser({ role: 400, name: 'Bystander' });
  publicChannel = await makeChannel(t, { name: 'signup-public' });
  secretChannel = await makeChannel(t, { name: 'signup-secret', inviteOnly: true, subscribers: [t.owner.id] });
  assertSuccess(await owner.post('/user_groups/create', { name: 'newcomers', description: 'x', members: [t.owner.id] }));
  groupId = (await t.server.svc.store.db.selectFrom('user_groups').select('id').where('name', '=', 'newcomers').executeTakeFirstOrThrow()).id;
});
after(async () => {
  await t.close();
});

test('GET: the form shows the invited address, self-contained, escaped', async () => {
  const { email, key } = await invite(owner);
  const res = await page('GET', key);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/html/);
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  assert.ok(res.html.includes(email));
  assert.match(res.html, /name="full_name"/);
  assert.match(res.html, /<input id="password" name="password" type="password" required minlength="6" maxlength="100" autocomplete="new-password">/);
  assert.doesNotMatch(res.html, /<script|<link|src=|https?:\/\/(?!127)/, 'no external assets or scripts');
});

test('GET: unknown key is 404, malformed key too', async () => {
  let res = await page('GET', 'nosuchkey0000000000000000');
  assert.equal(res.status, 404);
  assert.match(res.html, /This confirmation link is invalid/);
  res = await page('GET', encodeURIComponent('<script>x</script>'));
  assert.equal(res.status, 404);
  assert.doesNotMatch(res.html, /<script>x/);
});

test('POST: bad name or password re-shows the form with the error, escaped, and creates nothing', async () => {
  const { email, key } = await invite(owner);
  let res = await page('POST', key, { full_name: 'Good Name', password: 'ab' });
  assert.equal(res.status, 400);
  assert.match(res.html, /The password is too weak\./);
  res = await page('POST', key, { full_name: 'Good Name', password: 'password123' });
  assert.equal(res.status, 400);
  assert.match(res.html, /The password is too weak\./);
  assert.ok(res.html.includes('value="Good Name"'));
  res = await page('POST', key, { full_name: '', password: GOOD_PASSWORD });
  assert.equal(res.status, 400);
  assert.match(res.html, /Name too short!/);
  res = await page('POST', key, { full_name: '<img onerror=x>"', password: '' });
  assert.equal(res.status, 400);
  assert.doesNotMatch(res.html, /<img onerror/);
  assert.ok(res.html.includes('&#60;img onerror=x&#62;&#34;'));
  res = await page('POST', key, { full_name: 'Bad*Name', password: GOOD_PASSWORD });
  assert.equal(res.status, 400);
  assert.match(res.html, /Invalid characters in name!/);
  res = await page('POST', key, {});
  assert.equal(res.status, 400);
  assert.equal((await userByEmail(email)).length, 0);
  // Still usable afterwards.
  assert.equal((await page('GET', key)).status, 200);
});

test('POST: creates the account with the invited role, channels, groups; events; referrer notified; link then used', async () => {
  const qOwner = await openQueue(owner, { event_types: ['realm_user', 'invites_changed', 'message'], apply_markdown: false });
  const qMember = await openQueue(c(member), { event_types: ['invites_changed', 'message'], apply_markdown: false });
  const qBystander = await openQueue(c(bystander), { event_types: ['realm_user', 'invites_changed', 'message'] });
  const { email, key } = await invite(owner, { stream_ids: [publicChannel, secretChannel], group_ids: [groupId], invite_as: 300 });
  // A second invitation to the same address (from the member) gets revoked.
  assertSuccess(await c(member).post('/invites', { invitee_emails: email, stream_ids: [] }));
  const otherKey = keyFor(email);
  assert.notEqual(otherKey, key);
  await qOwner.drain();
  await qMember.drain();
  await qBystander.drain();

  const res = await page('POST', key, { full_name: 'New Person', password: GOOD_PASSWORD });
  assert.equal(res.status, 200, res.html);
  assert.match(res.html, /account has been created/);
  assert.ok(res.html.includes(email));
  assert.ok(res.html.includes(t.url));

  const [u] = await userByEmail(email);
  assert.equal(u.role, 300);
  assert.equal(u.full_name, 'New Person');
  const fetched = await fetchApiKey(email, GOOD_PASSWORD);
  assertSuccess(fetched);
  const me = t.client({ email, apiKey: fetched.body.api_key });
  const subs = assertSuccess(await me.get('/users/me/subscriptions'));
  const names = subs.subscriptions.map((s: { name: string }) => s.name).sort();
  assert.deepEqual(names, ['signup-public', 'signup-secret'], 'only the invited channels (general is a default channel)');
  const members = assertSuccess(await owner.get(`/user_groups/${groupId}/members`));
  assert.ok(members.members.includes(u.id));

  const ownerEvents = await qOwner.drain();
  const add = ownerEvents.filter((e) => e.type === 'realm_user' && e.op === 'add');
  assert.equal(add.length, 1);
  assert.equal(add[0].person.user_id, u.id);
  assert.ok(ownerEvents.some((e) => e.type === 'invites_changed'));
  const signup = ownerEvents.filter((e) => e.type === 'message' && e.message.subject === 'signups');
  assert.equal(signup.length, 1);
  assert.equal(signup[0].message.content, `@_**New Person|${u.id}** joined this organization.`);
  const dms = ownerEvents.filter((e) => e.type === 'message' && e.message.type === 'private');
  assert.equal(dms.length, 1, 'notify_referrer_on_join defaults to true');
  assert.match(dms[0].message.content, new RegExp(`^@_\\*\\*New Person\\|${u.id}\\*\\* accepted your invitation to join `));

  const bystanderEvents = await qBystander.drain();
  assert.equal(bystanderEvents.filter((e) => e.type === 'realm_user' && e.op === 'add').length, 1);
  assert.equal(bystanderEvents.filter((e) => e.type === 'invites_changed').length, 0);

  // The member's invitation was revoked: they hear invites_changed and it is no longer listed.
  const memberEvents = await qMember.drain();
  assert.ok(memberEvents.some((e) => e.type === 'invites_changed'));
  const listed = assertSuccess(await c(member).get('/invites'));
  assert.equal(listed.invites.filter((i: { email: string }) => i.email === email).length, 0);
  const otherPage = await page('GET', otherKey);
  assert.equal(otherPage.status, 410);

  // Reusing the key: the account exists; nothing new is created.
  for (const method of ['GET', 'POST'] as const) {
    const again = await page(method, key, method === 'POST' ? { full_name: 'Other', password: GOOD_PASSWORD } : undefined);
    assert.equal(again.status, 200);
    assert.match(again.html, /already exists/);
  }
  assert.equal((await userByEmail(email)).length, 1);
});

test('POST: referrer gets a Notification Bot direct message when asked, not otherwise; defaults when asked', async () => {
  const q = await openQueue(c(member), { event_types: ['message'], apply_markdown: false });
  const a = await invite(c(member), { stream_ids: [publicChannel], include_realm_default_subscriptions: true });
  const b = await invite(c(member), { stream_ids: [publicChannel], notify_referrer_on_join: false });
  assert.equal((await page('POST', a.key, { full_name: 'Alpha Joiner', password: GOOD_PASSWORD })).status, 200);
  assert.equal((await page('POST', b.key, { full_name: 'Beta Joiner', password: GOOD_PASSWORD })).status, 200);
  const [ua] = await userByEmail(a.email);
  const dms = (await q.drain()).filter((e) => e.type === 'message' && e.message.type === 'private');
  assert.equal(dms.length, 1);
  assert.equal(dms[0].message.sender_email, 'notification-bot@zulip.com');
  const realmName = (await t.server.svc.store.db.selectFrom('realm').select('name').executeTakeFirstOrThrow()).name;
  assert.equal(dms[0].message.content, `@_**Alpha Joiner|${ua.id}** accepted your invitation to join ${realmName}!`);
  assert.equal(ua.role, 400);

  const subsOf = async (email: string) => {
    const k = await fetchApiKey(email, GOOD_PASSWORD);
    const r = assertSuccess(await t.client({ email, apiKey: k.body.api_key }).get('/users/me/subscriptions'));
    return r.subscriptions.map((s: { name: string }) => s.name).sort();
  };
  assert.deepEqual(await subsOf(a.email), ['general', 'signup-public']);
  assert.deepEqual(await subsOf(b.email), ['signup-public']);
});

test('expired keys are refused', async () => {
  const { email, key } = await invite(owner);
  await t.server.svc.store.db.updateTable('invitations').set({ expiry_date: 1000 }).where('email', '=', email).execute();
  let res = await page('GET', key);
  assert.equal(res.status, 410);
  assert.match(res.html, /expired/);
  res = await page('POST', key, { full_name: 'Late Person', password: GOOD_PASSWORD });
  assert.equal(res.status, 410);
  assert.equal((await userByEmail(email)).length, 0);
});

test('an address that got an account another way: the link says the account exists', async () => {
  const { email, key } = await invite(owner);
  await t.makeUser({ email, name: 'Made By Admin' });
  const res = await page('POST', key, { full_name: 'Someone', password: GOOD_PASSWORD });
  assert.equal(res.status, 200);
  assert.match(res.html, /already exists/);
  assert.equal((await userByEmail(email)).length, 1);
});

test('concurrent submissions of one key create one account', async () => {
  const { email, key } = await invite(owner, { stream_ids: [publicChannel] });
  const results = await Promise.all(
    Array.from({ length: 4 }, (_, i) => page('POST', key, { full_name: `Racer ${i}`, password: GOOD_PASSWORD })),
  );
  for (const r of results) assert.ok(r.status < 500, r.html);
  assert.equal(results.filter((r) => /account has been created/.test(r.html)).length, 1);
  assert.equal((await userByEmail(email)).length, 1);
});

test('a failure while the account is being set up creates nothing: the link still works, and then gives the account its channels and groups', async () => {
  assertSuccess(await owner.post('/user_groups/create', { name: 'fragile', description: 'x', members: [t.owner.id] }));
  const db = t.server.svc.store.db;
  const fragile = (await db.selectFrom('user_groups').select('id').where('name', '=', 'fragile').executeTakeFirstOrThrow()).id;
  const { email, key } = await invite(owner, { stream_ids: [publicChannel], group_ids: [fragile, groupId] });
  // The database refuses the membership in "fragile", after the account and its subscriptions are written.
  if (t.server.svc.store.dialect === 'postgres') {
    await sql`CREATE FUNCTION refuse_fragile() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$ LANGUAGE plpgsql`.execute(db);
    await sql`CREATE TRIGGER refuse_fragile BEFORE INSERT ON user_group_members FOR EACH ROW WHEN (NEW.group_id = ${sql.lit(fragile)}) EXECUTE FUNCTION refuse_fragile()`.execute(db);
  } else {
    await sql`CREATE TRIGGER refuse_fragile BEFORE INSERT ON user_group_members WHEN NEW.group_id = ${sql.lit(fragile)} BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`.execute(db);
  }
  try {
    const failed = await page('POST', key, { full_name: 'Unlucky Person', password: GOOD_PASSWORD });
    // The form again, asking to try again.
    assert.equal(failed.status, 400);
    assert.match(failed.html, /Something went wrong\. Please try again\./);
    assert.deepEqual(await userByEmail(email), [], 'no account');
    const subscribed = await db.selectFrom('subscriptions').innerJoin('users', 'users.id', 'subscriptions.user_id').select('users.id').where('users.delivery_email', '=', email).execute();
    assert.deepEqual(subscribed, []);
    const form = await page('GET', key);
    assert.equal(form.status, 200);
    assert.ok(form.html.includes(email), 'the link still shows the form');
  } finally {
    await sql`DROP TRIGGER refuse_fragile${sql.raw(t.server.svc.store.dialect === 'postgres' ? ' ON user_group_members' : '')}`.execute(db);
  }
  const res = await page('POST', key, { full_name: 'Unlucky Person', password: GOOD_PASSWORD });
  assert.match(res.html, /account has been created/);
  const [u] = await userByEmail(email);
  const fetched = assertSuccess(await fetchApiKey(email, GOOD_PASSWORD));
  const subs = assertSuccess(await t.client({ email, apiKey: fetched.api_key }).get('/users/me/subscriptions'));
  assert.deepEqual(subs.subscriptions.map((s: { name: string }) => s.name), ['signup-public']);
  for (const g of [fragile, groupId]) assert.ok(assertSuccess(await owner.get(`/user_groups/${g}/members`)).members.includes(u.id));
});

test('a new account finds the newest messages of its channels whose history it may read in its feed: historical, the newest 20 unread', async () => {
  const shared = await makeChannel(t, { name: 'history-shared', inviteOnly: true, historyPublic: true, subscribers: [t.owner.id] });
  const protectedChannel = await makeChannel(t, { name: 'history-protected', inviteOnly: true, historyPublic: false, subscribers: [t.owner.id] });
  const open = await makeChannel(t, { name: 'history-open', subscribers: [t.owner.id] });
  const notJoined = await makeChannel(t, { name: 'history-elsewhere', subscribers: [t.owner.id] });
  const sent: number[] = [];
  const send = async (to: number, content: string) => sent.push(assertSuccess(await owner.post('/messages', { type: 'stream', to, topic: 'before', content })).id);
  for (let i = 1; i <= 24; i++) await send(open, `open ${i}`);
  await send(shared, 'shared one');
  await send(protectedChannel, 'protected one');
  await send(notJoined, 'elsewhere one');
  await send(open, 'open 25');

  const { email, key } = await invite(owner, { stream_ids: [shared, protectedChannel, open] });
  assert.equal((await page('POST', key, { full_name: 'Late Joiner', password: GOOD_PASSWORD })).status, 200);
  const me = t.client({ email, apiKey: (await fetchApiKey(email, GOOD_PASSWORD)).body.api_key });
  const feed = assertSuccess(await me.get('/messages', { anchor: 'newest', num_before: 100, num_after: 0, apply_markdown: false }));
  const channelMessages = feed.messages.filter((m: { type: string }) => m.type === 'stream');
  // 25 in the public channel and the one of the private channel with shared history, oldest first.
  const expected = [...Array.from({ length: 24 }, (_, i) => `open ${i + 1}`), 'shared one', 'open 25'];
  assert.deepEqual(channelMessages.map((m: { content: string }) => m.content), expected);
  for (const m of channelMessages) assert.ok(m.flags.includes('historical'), `${m.content}: ${m.flags}`);
  const unread = channelMessages.filter((m: { flags: string[] }) => !m.flags.includes('read')).map((m: { content: string }) => m.content);
  assert.deepEqual(unread, expected.slice(-20));
  const state = assertSuccess(await me.post('/register', { event_types: ['message'], fetch_event_types: ['message', 'update_message_flags'] }));
  const unreadIds = state.unread_msgs.streams.flatMap((s: { unread_message_ids: number[] }) => s.unread_message_ids).sort((a: number, b: number) => a - b);
  assert.deepEqual(unreadIds, channelMessages.slice(-20).map((m: { id: number }) => m.id));
  // The protected channel's message is not in it, and cannot be read; the welcome greeting is.
  assert.ok(!feed.messages.some((m: { content: string }) => m.content === 'protected one' || m.content === 'elsewhere one'));
  assert.equal(feed.messages.filter((m: { type: string }) => m.type === 'private').length, 1);
  assert.ok(sent.length === 28);
});
