/** User administration: POST /users, PATCH/DELETE /users/{id}, DELETE /users/me, reactivation, API keys. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account } from './helpers.ts';
import { ROLE } from '../src/store/users.ts';
import { createUser } from '../src/actions/users.ts';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(() => t.close());

const c = (a: Account) => t.client(a);
const EVENTS = { event_types: ['realm_user', 'realm_bot'] };

function emails(): any[] {
  const file = join(t.server.svc.config.dataDir, 'emails.log');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

async function roles() {
  return {
    admin: await t.makeUser({ role: ROLE.ADMINISTRATOR }),
    moderator: await t.makeUser({ role: ROLE.MODERATOR }),
    member: await t.makeUser({ role: ROLE.MEMBER }),
    guest: await t.makeUser({ role: ROLE.GUEST }),
  };
}

// ---------------------------------------------------------------------------
// POST /users

test('POST /users: administrators create accounts; everyone gets realm_user add', async () => {
  const { admin, member } = await roles();
  const qm = await openQueue(c(member), EVENTS);
  const res = await c(admin).post('/users', { email: 'created1@example.com', password: 'correct horse battery', full_name: 'New Person' });
  const body = assertSuccess(res);
  assertSchema(res, 'POST', '/users');
  assert.equal(typeof body.user_id, 'number');
  const adds = (await qm.ofType('realm_user')).filter((e) => e.op === 'add');
  assert.equal(adds.length, 1);
  assert.equal(adds[0].person.user_id, body.user_id);
  assert.equal(adds[0].person.full_name, 'New Person');
  // The new account can log in with its password.
  const login = await t.client(null).post('/fetch_api_key', { username: 'created1@example.com', password: 'correct horse battery' });
  assert.equal(assertSuccess(login).user_id, body.user_id);
  // Welcome Bot's greeting waits in the app: no missed-message email is planned for it.
  const pending = await t.server.svc.store.db.selectFrom('missed_message_emails').select('message_id').where('user_id', '=', body.user_id).execute();
  assert.deepEqual(pending, []);
  // The owner may create users too.
  assertSuccess(await c(t.owner).post('/users', { email: 'created2@example.com', password: 'another good one', full_name: 'Second' }));
  // Each new account gets the account-registered email: where to log in, with which address; no password.
  const realmName = assertSuccess(await c(t.owner).get('/server_settings')).realm_name as string;
  for (const [email, name, password] of [['created1@example.com', 'New Person', 'correct horse battery'], ['created2@example.com', 'Second', 'another good one']]) {
    const mails = emails().filter((m) => m.to.includes(email));
    assert.equal(mails.length, 1, email);
    assert.equal(mails[0].template, 'account_registered');
    assert.equal(mails[0].subject, `Welcome to ${realmName}`);
    assert.ok(mails[0].text.startsWith(`Hello ${name},\n`), mails[0].text);
    assert.ok(mails[0].text.includes(`Organization URL: ${t.server.svc.config.externalUrl}\n`), mails[0].text);
    assert.ok(mails[0].text.includes(`email address: ${email}\n`), mails[0].text);
    assert.ok(!mails[0].text.includes(password));
  }
  // Bots get none.
  assertSuccess(await c(admin).post('/bots', { full_name: 'Mail Less Bot', short_name: 'mailless' }));
  assert.equal(emails().filter((m) => m.template === 'account_registered' && /mailless/.test(m.to.join())).length, 0);
});

test('POST /users: the realm_user add event carries delivery_email to those who may see it, null to the rest', async () => {
  const { admin, moderator, member, guest } = await roles();
  const queues = { admin, moderator, member, guest };
  const open = async () => Object.fromEntries(await Promise.all(Object.entries(queues).map(async ([k, a]) => [k, await openQueue(c(a), EVENTS)] as const)));
  const seen = async (qs: Record<string, Awaited<ReturnType<typeof openQueue>>>, userId: number) =>
    Object.fromEntries(
      await Promise.all(
        Object.entries(qs).map(async ([k, q]) => {
          const adds = (await q.ofType('realm_user')).filter((e) => e.op === 'add' && e.person.user_id === userId);
          assert.equal(adds.length, 1, `${k}: one realm_user add`);
          return [k, adds[0].person.delivery_email] as const;
        }),
      ),
    );
  // Everyone may see addresses (the default): everyone gets it, as /register gives it.
  let qs = await open();
  const first = assertSuccess(await c(admin).post('/users', { email: 'visible1@example.com', password: 'correct horse battery', full_name: 'Visible' })).user_id;
  assert.deepEqual(await seen(qs, first), { admin: 'visible1@example.com', moderator: 'visible1@example.com', member: 'visible1@example.com', guest: 'visible1@example.com' });
  const registered = assertSuccess(await c(member).post('/register', { fetch_event_types: ['realm_user'] })).realm_users.find((u: any) => u.user_id === first);
  assert.equal(registered.delivery_email, 'visible1@example.com');
  // New accounts visible to administrators only.
  assertSuccess(await c(t.owner).patch('/realm/user_settings_defaults', { email_address_visibility: 3 }));
  try {
    qs = await open();
    const second = assertSuccess(await c(admin).post('/users', { email: 'hidden1@example.com', password: 'correct horse battery', full_name: 'Hidden' })).user_id;
    assert.deepEqual(await seen(qs, second), { admin: 'hidden1@example.com', moderator: null, member: null, guest: null });
  } finally {
    assertSuccess(await c(t.owner).patch('/realm/user_settings_defaults', { email_address_visibility: 1 }));
  }
});

test('POST /users: non-administrators are refused (per role)', async () => {
  const { moderator, member, guest } = await roles();
  for (const who of [moderator, member, guest]) {
    const res = await c(who).post('/users', { email: `x${who.id}@example.com`, password: 'abcdef123', full_name: 'X' });
    assertError(res, 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  }
  const bot = await t.makeUser({ isBot: true, botOwnerId: member.id });
  assertError(await c(bot).post('/users', { email: 'y@example.com', password: 'abcdef123', full_name: 'Y' }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
});

test('POST /users: Zulip errors for duplicates, bad addresses, weak passwords, names, missing fields', async () => {
  const { admin } = await roles();
  const a = c(admin);
  assertError(await a.post('/users', { email: t.owner.email, password: 'abcdef123', full_name: 'Dup' }), 400, 'BAD_REQUEST', `Email '${t.owner.email}' already in use`);
  assertError(await a.post('/users', { email: 'OWNER@example.com', password: 'abcdef123', full_name: 'Dup' }), 400, 'BAD_REQUEST', "Email 'OWNER@example.com' already in use");
  assertError(await a.post('/users', { email: 'not-an-email', password: 'abcdef123', full_name: 'Bad' }), 400, 'BAD_REQUEST', 'Bad name or username');
  assertError(await a.post('/users', { email: 'weak@example.com', password: 'abc', full_name: 'Weak' }), 400, 'BAD_REQUEST', 'The password is too weak.');
  // Zulip's rule: zxcvbn's estimate of at least 10,000 guesses, so common
  // passwords of any length are refused, and more than 100 characters too.
  for (const password of ['password', 'qwerty123', 'iloveyou1', 'x'.repeat(101), `${'Zq8#mP'.repeat(17)}`]) {
    assertError(await a.post('/users', { email: 'weak@example.com', password, full_name: 'Weak' }), 400, 'BAD_REQUEST', 'The password is too weak.');
  }
  // The estimate runs in a process of its own: its word lists never load in the server's process (here, the test's own).
  assert.ok(!Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('/node_modules/zxcvbn/')));
  assertError(await a.post('/users', { email: 'n@example.com', password: 'abcdef123', full_name: '   ' }), 400, 'BAD_REQUEST', 'Name too short!');
  assertError(await a.post('/users', { email: 'n@example.com', password: 'abcdef123', full_name: 'x'.repeat(101) }), 400, 'BAD_REQUEST', 'Name too long!');
  assertError(await a.post('/users', { email: 'n@example.com', password: 'abcdef123', full_name: 'Bad*Name' }), 400, 'BAD_REQUEST', 'Invalid characters in name!');
  assertError(await a.post('/users', { email: 'n@example.com', password: 'abcdef123', full_name: 'Name|12' }), 400, 'BAD_REQUEST', 'Invalid format!');
  const missing = await a.post('/users', { email: 'n@example.com', full_name: 'N' });
  assertError(missing, 400, 'REQUEST_VARIABLE_MISSING', "Missing 'password' argument");
});

test('POST /users: several requests for one new address at the same moment make one account; the others are told it is in use', async () => {
  const { admin } = await roles();
  const a = c(admin);
  const email = `race-${Date.now().toString(36)}@example.com`;
  const results = await Promise.all(Array.from({ length: 6 }, (_, i) => a.post('/users', { email, password: 'abcdef123', full_name: `Race ${i}` })));
  const ok = results.filter((r) => r.status === 200);
  assert.equal(ok.length, 1, results.map((r) => `${r.status} ${JSON.stringify(r.body)}`).join('\n'));
  for (const r of results) if (r.status !== 200) assertError(r, 400, 'BAD_REQUEST', `Email '${email}' already in use`);
  const users = assertSuccess(await a.get('/users')).members.filter((u: { delivery_email?: string | null; email: string }) => (u.delivery_email ?? u.email) === email);
  assert.equal(users.length, 1);
  assert.equal(users[0].user_id, ok[0]!.body.user_id);

  // The same race without the request's slower steps (the password's hash), so that the transactions overlap.
  const again = `race2-${Date.now().toString(36)}@example.com`;
  const made = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => createUser(t.server.svc, { email: again, fullName: `Race ${i}`, password: null })));
  assert.equal(made.filter((m) => m.status === 'fulfilled').length, 1, made.map((m) => (m.status === 'rejected' ? String(m.reason) : 'made')).join('\n'));
  for (const m of made) if (m.status === 'rejected') assert.equal((m.reason as Error).message, `Email '${again}' already in use`);
});

// ---------------------------------------------------------------------------
// PATCH /users/{user_id}

test('PATCH /users/{id}: full_name change sends realm_user update to all active users', async () => {
  const { admin, member, guest } = await roles();
  const target = await t.makeUser();
  const qs = await Promise.all([member, guest, target].map((u) => openQueue(c(u), EVENTS)));
  const res = await c(admin).patch(`/users/${target.id}`, { full_name: '  Renamed Person ' });
  assertSuccess(res);
  assertSchema(res, 'PATCH', '/users/{user_id}');
  for (const q of qs) {
    const evs = await q.drain();
    assert.deepEqual(evs.map((e) => ({ type: e.type, op: e.op, person: e.person })), [
      { type: 'realm_user', op: 'update', person: { user_id: target.id, full_name: 'Renamed Person' } },
    ]);
  }
  const got = assertSuccess(await c(member).get(`/users/${target.id}`));
  assert.equal(got.user.full_name, 'Renamed Person');
  // Blank or unchanged names are ignored silently; no event.
  assertSuccess(await c(admin).patch(`/users/${target.id}`, { full_name: '   ' }));
  assertSuccess(await c(admin).patch(`/users/${target.id}`, { full_name: 'Renamed Person' }));
  assert.deepEqual(await qs[0].drain(), []);
  assertError(await c(admin).patch(`/users/${target.id}`, { full_name: 'x'.repeat(101) }), 400, 'BAD_REQUEST', 'Name too long!');
});

test('PATCH /users/{id} on a bot: realm_user update to all (no realm_bot update since feature level 474)', async () => {
  const { admin, member, moderator } = await roles();
  const bot = await t.makeUser({ isBot: true, botOwnerId: member.id, name: 'Helper Bot' });
  const qa = await openQueue(c(admin), EVENTS);
  const qo = await openQueue(c(member), EVENTS);
  const qm = await openQueue(c(moderator), EVENTS);
  assertSuccess(await c(admin).patch(`/users/${bot.id}`, { full_name: 'Helper Bot 2' }));
  for (const q of [qa, qo, qm]) {
    assert.deepEqual((await q.drain()).map((e) => [e.type, e.op, e.person]), [['realm_user', 'update', { user_id: bot.id, full_name: 'Helper Bot 2' }]]);
  }
  // The bot's owner (a member) may rename their own bot through this endpoint too.
  assertSuccess(await c(member).patch(`/users/${bot.id}`, { full_name: 'Helper Bot 3' }));
});

test('PATCH /users/{id}: role changes and who may make them', async () => {
  const { admin, moderator, member, guest } = await roles();
  const target = await t.makeUser();
  const qs = await Promise.all([guest, target].map((u) => openQueue(c(u), EVENTS)));
  // Administrators can change non-owner roles.
  assertSuccess(await c(admin).patch(`/users/${target.id}`, { role: ROLE.MODERATOR }));
  for (const q of qs) {
    assert.deepEqual((await q.drain()).map((e) => [e.op, e.person]), [['update', { user_id: target.id, role: ROLE.MODERATOR }]]);
  }
  assert.equal(assertSuccess(await c(admin).get(`/users/${target.id}`)).user.role, ROLE.MODERATOR);
  // Same role: no event.
  assertSuccess(await c(admin).patch(`/users/${target.id}`, { role: ROLE.MODERATOR }));
  assert.deepEqual(await qs[0].drain(), []);
  // Moderators, members and guests cannot administer other users at all.
  for (const who of [moderator, member, guest]) {
    assertError(await c(who).patch(`/users/${target.id}`, { role: ROLE.MEMBER }), 400, 'BAD_REQUEST', 'Insufficient permission');
    assertError(await c(who).patch(`/users/${target.id}`, { full_name: 'Nope' }), 400, 'BAD_REQUEST', 'Insufficient permission');
  }
  // Only owners grant or revoke the owner role.
  assertError(await c(admin).patch(`/users/${target.id}`, { role: ROLE.OWNER }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
  assertSuccess(await c(t.owner).patch(`/users/${target.id}`, { role: ROLE.OWNER }));
  assertError(await c(admin).patch(`/users/${target.id}`, { role: ROLE.MEMBER }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
  assertSuccess(await c(t.owner).patch(`/users/${target.id}`, { role: ROLE.MEMBER }));
  // Invalid values.
  assertError(await c(admin).patch(`/users/${target.id}`, { role: 150 }), 400, 'BAD_REQUEST', 'Invalid role');
  assertError(await c(admin).patch(`/users/${target.id}`, { role: 'admin' }), 400, 'BAD_REQUEST', 'role is not valid JSON');
  assertError(await c(admin).patch('/users/999999', { role: ROLE.MEMBER }), 400, 'BAD_REQUEST', 'No such user');
});

test('PATCH /users/{id}: the only owner keeps the owner role; a bot owner may not change their bot\'s role', async () => {
  assertError(
    await c(t.owner).patch(`/users/${t.owner.id}`, { role: ROLE.ADMINISTRATOR }),
    400,
    'BAD_REQUEST',
    'The owner permission cannot be removed from the only organization owner.',
  );
  const member = await t.makeUser();
  const bot = await t.makeUser({ isBot: true, botOwnerId: member.id });
  assertError(await c(member).patch(`/users/${bot.id}`, { role: ROLE.MODERATOR }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
});

test('PATCH /users/{id}: a refused request changes nothing, whichever of its parts is refused', async () => {
  const target = await t.makeUser();
  const fieldName = `Desk ${Date.now()}`;
  const field = assertSuccess(await c(t.owner).post('/realm/profile_fields', { name: fieldName, field_type: 1 }));
  const q = await openQueue(c(t.owner), EVENTS);
  const before = assertSuccess(await c(t.owner).get(`/users/${target.id}`, { include_custom_profile_fields: true })).user;
  const refused: Array<[Record<string, unknown>, string]> = [
    [{ role: ROLE.MODERATOR, full_name: 'x'.repeat(101) }, 'Name too long!'],
    [{ role: ROLE.MODERATOR, full_name: 'Renamed', profile_data: JSON.stringify([{ id: 999999, value: 'x' }]) }, 'Field id 999999 not found.'],
    [{ full_name: 'Renamed', profile_data: JSON.stringify([{ id: field.id, value: 'x'.repeat(51) }]) }, `${fieldName} is too long (limit: 50 characters)`],
  ];
  for (const [params, msg] of refused) assertError(await c(t.owner).patch(`/users/${target.id}`, params), 400, 'BAD_REQUEST', msg);
  assert.deepEqual(assertSuccess(await c(t.owner).get(`/users/${target.id}`, { include_custom_profile_fields: true })).user, before);
  assert.deepEqual(await q.drain(), []);
  // The same changes, valid, all made.
  assertSuccess(await c(t.owner).patch(`/users/${target.id}`, { role: ROLE.MODERATOR, full_name: 'Renamed', profile_data: JSON.stringify([{ id: field.id, value: 'Room 4' }]) }));
  const after = assertSuccess(await c(t.owner).get(`/users/${target.id}`, { include_custom_profile_fields: true })).user;
  assert.equal(after.role, ROLE.MODERATOR);
  assert.equal(after.full_name, 'Renamed');
  assert.equal(after.profile_data[field.id].value, 'Room 4');
});

// ---------------------------------------------------------------------------
// DELETE /users/{user_id}

test('DELETE /users/{id}: administrators only (per role)', async () => {
  const { moderator, member, guest } = await roles();
  const target = await t.makeUser();
  for (const who of [moderator, member, guest]) {
    assertError(await c(who).delete(`/users/${target.id}`), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  }
  const bot = await t.makeUser({ isBot: true, botOwnerId: member.id });
  assertError(await c(bot).delete(`/users/${target.id}`), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  assert.equal(assertSuccess(await c(member).get(`/users/${target.id}`)).user.is_active, true);
});

test('DELETE /users/{id}: the only owner cannot be deactivated; admins cannot deactivate owners', async () => {
  const { admin } = await roles();
  const res = await c(t.owner).delete(`/users/${t.owner.id}`);
  assertError(res, 400, 'BAD_REQUEST', 'Cannot deactivate the only organization owner');
  assertError(await c(admin).delete(`/users/${t.owner.id}`), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
  assertError(await c(admin).delete('/users/999999'), 400, 'BAD_REQUEST', 'No such user');
  const bot = await t.makeUser({ isBot: true, botOwnerId: admin.id });
  assertError(await c(admin).delete(`/users/${bot.id}`), 400, 'BAD_REQUEST', 'No such user');
});

test('DELETE /users/{id}: deactivates the user and their bots, with events to the right users', async () => {
  const { admin, member } = await roles();
  const target = await t.makeUser({ name: 'Leaving Person' });
  const bot = await t.makeUser({ isBot: true, botOwnerId: target.id, name: 'Leaving Bot' });
  const qa = await openQueue(c(admin), EVENTS);
  const qm = await openQueue(c(member), EVENTS);
  const qt = await openQueue(c(target), EVENTS);
  const res = await c(admin).delete(`/users/${target.id}`);
  assertSuccess(res);
  assertSchema(res, 'DELETE', '/users/{user_id}');
  // The realm_user updates only, for administrators too (since feature level 474 no realm_bot update).
  for (const q of [qa, qm]) {
    assert.deepEqual((await q.drain()).map((e) => [e.type, e.op, e.person]), [
      ['realm_user', 'update', { user_id: bot.id, is_active: false }],
      ['realm_user', 'update', { user_id: target.id, is_active: false }],
    ]);
  }
  // The deactivated user's queues are gone, and their API key (and the bot's) stop working.
  const poll = await c(admin).get('/events', { queue_id: qt.queueId, last_event_id: -1, dont_block: true });
  assertError(poll, 400, 'BAD_EVENT_QUEUE_ID');
  assertError(await c(target).get('/users/me'), 401, 'USER_DEACTIVATED', 'Account is deactivated');
  assertError(await c(bot).get('/users/me'), 401, 'USER_DEACTIVATED', 'Account is deactivated');
  const got = assertSuccess(await c(admin).get(`/users/${target.id}`));
  assert.equal(got.user.is_active, false);
  assert.equal(got.user.full_name, 'Leaving Person');
  // Already deactivated.
  assertError(await c(admin).delete(`/users/${target.id}`), 400, 'BAD_REQUEST', 'User is deactivated');
  // No notification email unless asked for.
  assert.equal(emails().filter((m) => m.to.includes(target.email) && m.template === 'deactivate').length, 0);
});

test('DELETE /users/{id}: actions are validated with Zulip wording', async () => {
  const { admin } = await roles();
  const target = await t.makeUser();
  const a = c(admin);
  assertError(await a.delete(`/users/${target.id}`, { actions: { delete_everything: true } }), 400, 'BAD_REQUEST', 'Argument "delete_everything" at actions["delete_everything"] is unexpected');
  assertError(await a.delete(`/users/${target.id}`, { actions: { delete_profile: 'yes' } }), 400, 'BAD_REQUEST', 'actions["delete_profile"] is not a boolean');
  assertError(await a.delete(`/users/${target.id}`, { actions: { delete_direct_messages: 1 } }), 400, 'BAD_REQUEST', 'actions["delete_direct_messages"] is not a boolean');
  assertError(await a.delete(`/users/${target.id}`, { actions: [] }), 400, 'BAD_REQUEST', 'actions is not a dict');
  assertError(await a.delete(`/users/${target.id}`, { actions: '{nope' }), 400, 'BAD_REQUEST', 'actions is not valid JSON');
  assertError(
    await a.delete(`/users/${target.id}`, { deactivation_notification_comment: 'x'.repeat(2001) }),
    400,
    'BAD_REQUEST',
    'deactivation_notification_comment is too long (limit: 2000 characters)',
  );
  // Nothing happened.
  assert.equal(assertSuccess(await a.get(`/users/${target.id}`)).user.is_active, true);
  // All four flags are accepted (message deletion has nothing to delete yet).
  assertSuccess(
    await a.delete(`/users/${target.id}`, {
      actions: { delete_profile: false, delete_public_channel_messages: true, delete_private_channel_messages: true, delete_direct_messages: true },
    }),
  );
});

test('DELETE /users/{id} with delete_profile: bots then the user become "Deleted user"', async () => {
  const { admin, member } = await roles();
  const target = await t.makeUser({ name: 'Profile Person' });
  const bot = await t.makeUser({ isBot: true, botOwnerId: target.id, name: 'Profile Bot' });
  const qm = await openQueue(c(member), EVENTS);
  assertSuccess(await c(admin).delete(`/users/${target.id}`, { actions: { delete_profile: true } }));
  const names = (await qm.ofType('realm_user')).filter((e) => 'full_name' in e.person).map((e) => e.person);
  assert.deepEqual(names, [
    { user_id: bot.id, full_name: 'Deleted user' },
    { user_id: target.id, full_name: 'Deleted user' },
  ]);
  for (const id of [bot.id, target.id]) {
    const u = assertSuccess(await c(admin).get(`/users/${id}`, { client_gravatar: false })).user;
    assert.equal(u.full_name, 'Deleted user');
    assert.equal(u.is_active, false);
    assert.match(u.avatar_url, /gravatar/);
  }
});

test('DELETE /users/{id}: deactivation_notification_comment sends the notification email', async () => {
  const { admin } = await roles();
  const withText = await t.makeUser();
  const plain = await t.makeUser();
  assertSuccess(await c(admin).delete(`/users/${withText.id}`, { deactivation_notification_comment: '  Farewell, and thanks!\n' }));
  assertSuccess(await c(admin).delete(`/users/${plain.id}`, { deactivation_notification_comment: '' }));
  const mine = emails().filter((m) => m.to.includes(withText.email) && m.template !== 'account_registered');
  assert.equal(mine.length, 1);
  assert.equal(mine[0].template, 'deactivate');
  assert.match(mine[0].subject, /deactivated/);
  assert.match(mine[0].text, /Farewell, and thanks!/);
  const plainMail = emails().filter((m) => m.to.includes(plain.email) && m.template !== 'account_registered');
  assert.equal(plainMail.length, 1);
  assert.doesNotMatch(plainMail[0].text, /following comment/);
});

test('DELETE /users/{id}: an owner may deactivate another owner', async () => {
  const other = await t.makeUser({ role: ROLE.OWNER });
  assertSuccess(await c(t.owner).delete(`/users/${other.id}`));
});

// ---------------------------------------------------------------------------
// DELETE /users/me

test('DELETE /users/me: the only owner gets CANNOT_DEACTIVATE_LAST_USER', async () => {
  const res = await c(t.owner).delete('/users/me');
  assertError(res, 400, 'CANNOT_DEACTIVATE_LAST_USER', 'Cannot deactivate the only organization owner.');
  assert.equal(res.body.is_last_owner, true);
  assert.equal(res.body.entity, 'organization owner');
});

test('DELETE /users/me: a member deactivates themselves (and their bots); others are told', async () => {
  const { admin } = await roles();
  const me = await t.makeUser();
  const bot = await t.makeUser({ isBot: true, botOwnerId: me.id });
  const qa = await openQueue(c(admin), EVENTS);
  assertSuccess(await c(me).delete('/users/me'));
  assert.deepEqual((await qa.drain()).map((e) => [e.type, (e.person ?? e.bot).user_id, (e.person ?? e.bot).is_active]), [
    ['realm_user', bot.id, false],
    ['realm_user', me.id, false],
  ]);
  assertError(await c(me).get('/users/me'), 401, 'USER_DEACTIVATED');
});

test('DELETE /users/me: the only active user gets is_last_owner false', async () => {
  const solo = await startTestServer();
  try {
    const res = await solo.client(solo.owner).delete('/users/me');
    assertError(res, 400, 'CANNOT_DEACTIVATE_LAST_USER', 'Cannot deactivate the only user.');
    assert.equal(res.body.is_last_owner, false);
    assert.equal(res.body.entity, 'user');
  } finally {
    await solo.close();
  }
});

// ---------------------------------------------------------------------------
// POST /users/{user_id}/reactivate

test('POST /users/{id}/reactivate: administrators reactivate; events and login work again', async () => {
  const { admin, moderator, member, guest } = await roles();
  const target = await t.makeUser();
  assertSuccess(await c(admin).delete(`/users/${target.id}`));
  for (const who of [moderator, member, guest]) {
    assertError(await c(who).post(`/users/${target.id}/reactivate`), 400, 'BAD_REQUEST', 'Insufficient permission');
  }
  const qm = await openQueue(c(member), EVENTS);
  const res = await c(admin).post(`/users/${target.id}/reactivate`);
  assertSuccess(res);
  assertSchema(res, 'POST', '/users/{user_id}/reactivate');
  assert.deepEqual((await qm.drain()).map((e) => [e.type, e.op, e.person]), [['realm_user', 'update', { user_id: target.id, is_active: true }]]);
  assertSuccess(await c(target).get('/users/me'));
  assertError(await c(admin).post('/users/999999/reactivate'), 400, 'BAD_REQUEST', 'No such user');
});

test('POST /users/{id}/reactivate on a bot: realm_user update to all (no realm_bot update since feature level 474)', async () => {
  const { admin, member, moderator } = await roles();
  const bot = await t.makeUser({ isBot: true, botOwnerId: member.id });
  assertSuccess(await c(member).delete(`/bots/${bot.id}`));
  const qa = await openQueue(c(admin), EVENTS);
  const qo = await openQueue(c(member), EVENTS);
  const qm = await openQueue(c(moderator), EVENTS);
  assertSuccess(await c(admin).post(`/users/${bot.id}/reactivate`));
  for (const q of [qa, qo, qm]) {
    assert.deepEqual((await q.drain()).map((e) => [e.type, e.person]), [['realm_user', { user_id: bot.id, is_active: true }]]);
  }
});

// ---------------------------------------------------------------------------
// POST /users/me/api_key/regenerate

test('POST /users/me/api_key/regenerate: new key works, old key does not', async () => {
  const me = await t.makeUser();
  const res = await c(me).post('/users/me/api_key/regenerate');
  const body = assertSuccess(res);
  assert.match(body.api_key, /^[A-Za-z0-9]{32}$/);
  assert.notEqual(body.api_key, me.apiKey);
  assertError(await c(me).get('/users/me'), 401, 'UNAUTHORIZED', 'Invalid API key');
  assertSuccess(await t.client({ email: me.email, apiKey: body.api_key }).get('/users/me'));
});

test('two owners demoting or deactivating each other at the same moment: one of them stays owner', async () => {
  const s = await startTestServer();
  try {
    const observer = s.client(await s.makeUser({ role: ROLE.ADMINISTRATOR }));
    const ownerIds = async () => (assertSuccess(await observer.get('/users')).members as any[]).filter((u) => u.is_active && u.role === ROLE.OWNER && !u.is_bot).map((u) => u.user_id);
    let sole: Account = s.owner;
    for (let round = 0; round < 3; round++) {
      const other = await s.makeUser({ role: ROLE.OWNER });
      const pair = [sole, other];
      const results = await Promise.all(pair.map((me, i) => s.client(me).patch(`/users/${pair[1 - i]!.id}`, { role: ROLE.MEMBER })));
      const ok = results.filter((r) => r.status === 200);
      assert.equal(ok.length, 1, 'one demotion goes through');
      // The other is refused: as the only owner left, or (when it ran after the first committed) as a member now.
      const refused = results.find((r) => r.status !== 200)!;
      assert.equal(refused.status, 400);
      assert.ok(['The owner permission cannot be removed from the only organization owner.', 'Insufficient permission'].includes(refused.body.msg), refused.body.msg);
      const left = await ownerIds();
      assert.equal(left.length, 1);
      sole = pair.find((a) => a.id === left[0])!;
    }
    for (let round = 0; round < 3; round++) {
      const other = await s.makeUser({ role: ROLE.OWNER });
      const pair = [sole, other];
      const results = await Promise.all(pair.map((me) => s.client(me).delete('/users/me')));
      assert.equal(results.filter((r) => r.status === 200).length, 1, 'one deactivation goes through');
      assertError(results.find((r) => r.status !== 200)!, 400, 'CANNOT_DEACTIVATE_LAST_USER', 'Cannot deactivate the only organization owner.');
      const left = await ownerIds();
      assert.equal(left.length, 1);
      sole = pair.find((a) => a.id === left[0])!;
    }
  } finally {
    await s.close();
  }
});

test('POST /users: the account joins at its first login (date_joined then, with a realm_user update), not before (feature level 475)', async () => {
  const { admin, member } = await roles();
  const email = `first-login-${Date.now()}@example.com`;
  const password = 'correct horse battery staple';
  const id = assertSuccess(await c(admin).post('/users', { email, password, full_name: 'Late Joiner' })).user_id;
  const joined = async () => assertSuccess(await c(member).get(`/users/${id}`)).user.date_joined as string;
  const created = await joined();
  // A second later, the first login.
  await new Promise((r) => setTimeout(r, 1100));
  const q = await openQueue(c(member), { event_types: ['realm_user'] });
  const key = assertSuccess(await t.client(null).post('/fetch_api_key', { username: email, password })).api_key;
  const first = await joined();
  assert.ok(Date.parse(first) > Date.parse(created), `${first} after ${created}`);
  assert.deepEqual((await q.ofType('realm_user')).map((e) => e.person), [{ user_id: id, date_joined: first }]);
  // Later logins change nothing.
  await new Promise((r) => setTimeout(r, 1100));
  assertSuccess(await t.client(null).post('/fetch_api_key', { username: email, password }));
  assert.equal(await joined(), first);
  assert.deepEqual(await q.ofType('realm_user'), []);
  assert.equal(assertSuccess(await t.client({ email, apiKey: key }).get('/users/me')).date_joined, first);
  // Accounts made otherwise (sign-up, invitation, bots, the test helper) join when made.
  const other = await t.makeUser({ password });
  const before = assertSuccess(await c(member).get(`/users/${other.id}`)).user.date_joined;
  await new Promise((r) => setTimeout(r, 1100));
  assertSuccess(await t.client(null).post('/fetch_api_key', { username: other.email, password }));
  assert.equal(assertSuccess(await c(member).get(`/users/${other.id}`)).user.date_joined, before);
});
