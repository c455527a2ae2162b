/** Reading users: GET /users (filters), /users/me, /users/{user_id}, /users/{email}. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, type TestServer, type Account } from './helpers.ts';
import { ROLE } from '../src/store/users.ts';

let t: TestServer;
let member: Account, guest: Account, bot: Account;

before(async () => {
  t = await startTestServer();
  member = await t.makeUser({ name: 'Mira Member' });
  guest = await t.makeUser({ name: 'Gil Guest', role: ROLE.GUEST });
  bot = await t.makeUser({ name: 'Beep Bot', isBot: true, botOwnerId: member.id });
});
after(() => t.close());

test('GET /users/{user_id}: the user object, schema, errors', async () => {
  const res = await t.client(guest).get(`/users/${member.id}`, { client_gravatar: false });
  const body = assertSuccess(res);
  assertSchema(res, 'GET', '/users/{user_id}');
  assert.equal(body.user.user_id, member.id);
  assert.equal(body.user.full_name, 'Mira Member');
  assert.equal(body.user.role, ROLE.MEMBER);
  assert.match(body.user.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\//);
  assert.equal(body.user.profile_data, undefined, 'only with include_custom_profile_fields');
  const withProfile = assertSuccess(await t.client(guest).get(`/users/${member.id}`, { include_custom_profile_fields: true }));
  assert.deepEqual(withProfile.user.profile_data, {});
  assert.equal(withProfile.user.avatar_url, null, 'client_gravatar defaults to true');
  const botRes = assertSuccess(await t.client(member).get(`/users/${bot.id}`));
  assert.equal(botRes.user.is_bot, true);
  assert.equal(botRes.user.bot_owner_id, member.id);
  assert.equal(botRes.user.bot_type, 1);
  assertError(await t.client(member).get('/users/987654'), 400, 'BAD_REQUEST', 'No such user');
});

test('GET /users/{email}: by real email, case-insensitive; unknown email', async () => {
  const res = await t.client(guest).get(`/users/${encodeURIComponent(member.email.toUpperCase())}`);
  const body = assertSuccess(res);
  assertSchema(res, 'GET', '/users/{email}');
  assert.equal(body.user.user_id, member.id);
  assertError(await t.client(guest).get('/users/nobody%40example.com'), 400, 'BAD_REQUEST', 'No such user');
});

test('GET /users/{email} (feature level 302): a real address finds its user only when their email visibility lets the caller see it; a dummy address always', async () => {
  const admin = await t.makeUser({ role: ROLE.ADMINISTRATOR });
  const moderator = await t.makeUser({ role: ROLE.MODERATOR });
  const host = new URL(t.url).hostname;
  // One user per email_address_visibility: 1 everyone, 2 members, 5 moderators, 3 admins, 4 nobody.
  const visibilities = [1, 2, 5, 3, 4];
  const targets = [];
  for (const visibility of visibilities) {
    const u = await t.makeUser();
    assertSuccess(await t.client(u).patch('/settings', { email_address_visibility: visibility }));
    targets.push({ visibility, id: u.id, real: u.row.delivery_email });
  }
  const sees: Record<string, number[]> = { guest: [1], member: [1, 2], moderator: [1, 2, 5], admin: [1, 2, 5, 3] };
  const viewers: Record<string, Account> = { guest, member, moderator, admin };
  for (const [name, viewer] of Object.entries(viewers)) {
    for (const target of targets) {
      const byReal = await t.client(viewer).get(`/users/${encodeURIComponent(target.real.toUpperCase())}`);
      if (sees[name].includes(target.visibility)) assert.equal(assertSuccess(byReal).user.user_id, target.id, `${name} finds visibility ${target.visibility}`);
      else assertError(byReal, 400, 'BAD_REQUEST', 'No such user');
      // The dummy address works for every user, whatever their visibility (also 1, whose API email is the real one).
      const byDummy = await t.client(viewer).get(`/users/user${target.id}@${host}`);
      assert.equal(assertSuccess(byDummy).user.user_id, target.id);
      assertSchema(byDummy, 'GET', '/users/{email}');
    }
  }
  // A member whose address nobody may see does not find itself by it either (as Zulip); by its dummy address it does.
  const hidden = await t.makeUser();
  assertSuccess(await t.client(hidden).patch('/settings', { email_address_visibility: 4 }));
  assertError(await t.client(hidden).get(`/users/${encodeURIComponent(hidden.row.delivery_email)}`), 400, 'BAD_REQUEST', 'No such user');
  assert.equal(assertSuccess(await t.client(hidden).get(`/users/user${hidden.id}@${host}`)).user.user_id, hidden.id);
  assertError(await t.client(guest).get(`/users/user987654@${host}`), 400, 'BAD_REQUEST', 'No such user');
  assertError(await t.client(guest).get(`/users/user${member.id}@other.example`), 400, 'BAD_REQUEST', 'No such user');
});

test('GET /users: all users, user_ids filter, custom profile fields', async () => {
  const all = assertSuccess(await t.client(member).get('/users'));
  const ids = all.members.map((m: { user_id: number }) => m.user_id);
  for (const a of [t.owner, member, guest, bot]) assert.ok(ids.includes(a.id));
  const some = await t.client(member).get('/users', { user_ids: [guest.id, bot.id] });
  assertSchema(some, 'GET', '/users');
  assert.deepEqual(assertSuccess(some).members.map((m: { user_id: number }) => m.user_id), [guest.id, bot.id]);
  assertError(await t.client(member).get('/users', { user_ids: [guest.id, 987654] }), 400, 'BAD_REQUEST', 'Invalid user ID: 987654');
  const prof = assertSuccess(await t.client(member).get('/users', { include_custom_profile_fields: true, user_ids: [member.id, bot.id] }));
  assert.deepEqual(prof.members[0].profile_data, {});
  assert.equal(prof.members[1].profile_data, undefined, 'bots carry no profile_data');
});

test('GET /users/me: own object with delivery_email', async () => {
  const res = await t.client(member).get('/users/me');
  const body = assertSuccess(res);
  assertSchema(res, 'GET', '/users/me');
  assert.equal(body.user_id, member.id);
  assert.equal(body.delivery_email, member.email);
  assert.deepEqual(body.profile_data, {});
});

test('PATCH /users/{email}: the user is named as in GET /users/{email} (real address only when visible, dummy always)', async () => {
  const admin = await t.makeUser({ role: ROLE.ADMINISTRATOR });
  const host = new URL(t.url).hostname;
  const target = await t.makeUser({ name: 'Nora Nobody' });
  assertSuccess(await t.client(target).patch('/settings', { email_address_visibility: 4 }));
  const real = target.row.delivery_email;
  assertError(await t.client(admin).patch(`/users/${encodeURIComponent(real)}`, { full_name: 'Renamed Nora' }), 400, 'BAD_REQUEST', 'No such user');
  assertSuccess(await t.client(admin).patch(`/users/user${target.id}@${host}`, { full_name: 'Renamed Nora' }));
  assert.equal(assertSuccess(await t.client(admin).get(`/users/${target.id}`)).user.full_name, 'Renamed Nora');
  const open = await t.makeUser({ name: 'Otto Open' });
  assertSuccess(await t.client(admin).patch(`/users/${encodeURIComponent(open.row.delivery_email.toUpperCase())}`, { full_name: 'Otto Renamed' }));
  assert.equal(assertSuccess(await t.client(admin).get(`/users/${open.id}`)).user.full_name, 'Otto Renamed');
});

test('direct message recipients and narrow operands named by email: the address the API shows, not a hidden real one', async () => {
  const hidden = await t.makeUser({ name: 'Hidden Address' });
  assertSuccess(await t.client(hidden).patch('/settings', { email_address_visibility: 4 }));
  const dummy = assertSuccess(await t.client(member).get(`/users/${hidden.id}`)).user.email;
  assert.notEqual(dummy, hidden.email);
  assertError(await t.client(member).post('/messages', { type: 'direct', to: JSON.stringify([hidden.email]), content: 'hi' }), 400, 'BAD_REQUEST', `Invalid email '${hidden.email}'`);
  const sent = assertSuccess(await t.client(member).post('/messages', { type: 'direct', to: JSON.stringify([dummy]), content: 'hi' }));
  const narrow = (operand: string) => JSON.stringify([{ operator: 'dm', operand }]);
  const found = assertSuccess(await t.client(member).get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: narrow(dummy) })).messages;
  assert.deepEqual(found.map((m: any) => m.id), [sent.id]);
  assertError(await t.client(member).get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: narrow(hidden.email) }), 400, 'BAD_NARROW', `Invalid narrow operator: unknown user in ${hidden.email}`);
});
