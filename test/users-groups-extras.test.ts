/**
 * Users and groups: POST /users/{id}/status (administrators), PATCH
 * /users/{email}, GET /bots/{id}/api_key, GET /user_groups/{id}/subgroups,
 * GET /user_groups/{id}/members/{user_id}, and reusable invitation links
 * (POST /invites/multiuse, GET /invites, DELETE /invites/multiuse/{id})
 * with the /join/<key>/ sign-up they lead to.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';

let t: TestServer;
let admin: Account, alice: Account, bob: Account;

before(async () => {
  t = await startTestServer();
  admin = await t.makeUser({ name: 'Admin', role: 200 });
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
});
after(() => t.close());

test('POST /users/{id}/status: administrators set another user\'s or a bot\'s status, with the event', async () => {
  const q = await openQueue(t.client(bob), { event_types: ['user_status'] });
  assertSuccess(await t.client(admin).post(`/users/${alice.id}/status`, { status_text: ' on vacation ', emoji_name: 'car' }));
  const [ev] = await q.ofType('user_status');
  assert.deepEqual(ev, { type: 'user_status', id: ev.id, user_id: alice.id, status_text: 'on vacation', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });
  assert.deepEqual(assertSuccess(await t.client(bob).get(`/users/${alice.id}/status`)).status, { status_text: 'on vacation', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });
  assertError(await t.client(bob).post(`/users/${alice.id}/status`, { status_text: 'x' }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  assertError(await t.client(admin).post('/users/999999/status', { status_text: 'x' }), 400, 'BAD_REQUEST', 'No such user');
  assertError(await t.client(admin).post(`/users/${alice.id}/status`, { emoji_code: '1f697' }), 400, 'BAD_REQUEST', 'Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  assertError(await t.client(admin).post(`/users/${alice.id}/status`, {}), 400, 'BAD_REQUEST', 'Client did not pass any new values.');
  const bot = await t.makeUser({ name: 'Status bot', isBot: true, botOwnerId: alice.id, botType: 1 });
  assertSuccess(await t.client(admin).post(`/users/${bot.id}/status`, { status_text: 'beep' }));
});

test('PATCH /users/{email} updates the user named by email', async () => {
  const target = await t.makeUser({ name: 'Emailed' });
  const res = await t.client(t.owner).patch(`/users/${encodeURIComponent(target.email)}`, { full_name: 'Renamed By Email', role: 300 });
  assertSuccess(res);
  const u = assertSuccess(await t.client(t.owner).get(`/users/${target.id}`)).user;
  assert.equal(u.full_name, 'Renamed By Email');
  assert.equal(u.role, 300);
  assertError(await t.client(t.owner).patch('/users/nobody@example.com', { full_name: 'X' }), 400, 'BAD_REQUEST', 'No such user');
  assertError(await t.client(alice).patch(`/users/${encodeURIComponent(target.email)}`, { full_name: 'X' }), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertError(await t.client(t.owner).patch(`/users/${encodeURIComponent(target.email)}`, { role: 7 }), 400, 'BAD_REQUEST', 'Invalid role');
});

test('GET /bots/{id}/api_key: the key, for the owner and administrators', async () => {
  const created = assertSuccess(await t.client(alice).post('/bots', { full_name: 'Key bot', short_name: 'keybot' }));
  const res = assertSuccess(await t.client(alice).get(`/bots/${created.user_id}/api_key`));
  assert.equal(res.api_key, created.api_key);
  assert.equal(assertSuccess(await t.client(admin).get(`/bots/${created.user_id}/api_key`)).api_key, created.api_key);
  assertError(await t.client(bob).get(`/bots/${created.user_id}/api_key`), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertError(await t.client(alice).get(`/bots/${bob.id}/api_key`), 400, 'BAD_REQUEST', 'No such bot');
  const regenerated = assertSuccess(await t.client(alice).post(`/bots/${created.user_id}/api_key/regenerate`)).api_key;
  assert.equal(assertSuccess(await t.client(alice).get(`/bots/${created.user_id}/api_key`)).api_key, regenerated);
});

test('user group subgroups and membership checks', async () => {
  const o = t.client(t.owner);
  const inner = assertSuccess(await o.post('/user_groups/create', { name: 'inner', description: '', members: [alice.id] })).group_id;
  const middle = assertSuccess(await o.post('/user_groups/create', { name: 'middle', description: '', members: [bob.id], subgroups: [inner] })).group_id;
  const outer = assertSuccess(await o.post('/user_groups/create', { name: 'outer', description: '', members: [], subgroups: [middle] })).group_id;

  const direct = await t.client(bob).get(`/user_groups/${outer}/subgroups`, { direct_subgroup_only: true });
  assertSuccess(direct);
  assertSchema(direct, 'GET', '/user_groups/{user_group_id}/subgroups');
  assert.deepEqual(direct.body.subgroups, [middle]);
  assert.deepEqual(assertSuccess(await t.client(bob).get(`/user_groups/${outer}/subgroups`)).subgroups, [inner, middle].sort((a, b) => a - b));
  assert.deepEqual(assertSuccess(await t.client(bob).get(`/user_groups/${inner}/subgroups`)).subgroups, []);
  assertError(await t.client(bob).get('/user_groups/999999/subgroups'), 400, 'BAD_REQUEST', 'Invalid user group');

  const m = await t.client(bob).get(`/user_groups/${outer}/members/${alice.id}`);
  assertSuccess(m);
  assertSchema(m, 'GET', '/user_groups/{user_group_id}/members/{user_id}');
  assert.equal(m.body.is_user_group_member, true);
  assert.equal(assertSuccess(await t.client(bob).get(`/user_groups/${outer}/members/${alice.id}`, { direct_member_only: true })).is_user_group_member, false);
  assert.equal(assertSuccess(await t.client(bob).get(`/user_groups/${inner}/members/${alice.id}`, { direct_member_only: true })).is_user_group_member, true);
  assert.equal(assertSuccess(await t.client(bob).get(`/user_groups/${inner}/members/${bob.id}`)).is_user_group_member, false);
  assertError(await t.client(bob).get(`/user_groups/${outer}/members/999999`), 400, 'BAD_REQUEST', 'No such user');
  assertError(await t.client(bob).get(`/user_groups/999999/members/${alice.id}`), 400, 'BAD_REQUEST', 'Invalid user group');
});

function lastEmailTo(addr: string): { text: string; template: string } {
  const file = join(t.server.svc.config.dataDir, 'emails.log');
  assert.ok(existsSync(file));
  const mails = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.to.includes(addr));
  assert.ok(mails.length, `an email to ${addr}`);
  return mails[mails.length - 1];
}

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

test('reusable invitation links: create, list, sign up through /join/, revoke', async () => {
  const chan = await makeChannel(t, { name: 'multiuse-chan', subscribers: [admin.id] });
  const qAdmin = await openQueue(t.client(admin), { event_types: ['invites_changed'] });
  // Members may not create links by default (create_multiuse_invite_group: administrators).
  assertError(await t.client(alice).post('/invites/multiuse', {}), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertError(await t.client(admin).post('/invites/multiuse', { invite_as: 100 }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
  assertError(await t.client(admin).post('/invites/multiuse', { stream_ids: [999999] }), 400, 'BAD_REQUEST', 'Invalid channel ID 999999. No invites were sent.');

  const created = assertSuccess(await t.client(admin).post('/invites/multiuse', { invite_expires_in_minutes: 60, stream_ids: [chan], invite_as: 300 }));
  const m = /^(.*)\/join\/([a-z0-9]{24})\/$/.exec(created.invite_link);
  assert.ok(m, created.invite_link);
  assert.equal(m[1], t.url);
  const key = m[2];
  assert.equal((await qAdmin.ofType('invites_changed')).length, 1);

  const list = await t.client(admin).get('/invites');
  assertSuccess(list);
  assertSchema(list, 'GET', '/invites');
  const link = list.body.invites.find((i: any) => i.is_multiuse);
  assert.deepEqual({ ...link, id: 0, invited: 0, expiry_date: 0 }, { id: 0, invited_by_user_id: admin.id, invited: 0, expiry_date: 0, invited_as: 300, link_url: created.invite_link, is_multiuse: true });
  assert.equal(link.expiry_date - link.invited, 3600);
  assert.deepEqual(assertSuccess(await t.client(alice).get('/invites')).invites.filter((i: any) => i.is_multiuse), []);

  // The sign-up page asks for an address, then mails a confirmation link.
  const page = await fetch(`${t.url}/join/${key}/`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<input id="email" name="email" type="email"/);
  const bad = await fetch(`${t.url}/join/${key}/`, form({ email: 'not-an-address' }));
  assert.equal(bad.status, 400);
  assert.match(await bad.text(), /Please enter a valid email address\./);
  const taken = await fetch(`${t.url}/join/${key}/`, form({ email: alice.email }));
  assert.equal(taken.status, 400);
  const sent = await fetch(`${t.url}/join/${key}/`, form({ email: 'newcomer@example.org' }));
  assert.equal(sent.status, 200);
  assert.match(await sent.text(), /Check your email/);
  const mail = lastEmailTo('newcomer@example.org');
  const confirm = /\/accounts\/do_confirm\/([a-z0-9]+)/.exec(mail.text);
  assert.ok(confirm, mail.text);
  // The pending sign-up is not listed as an email invitation.
  assert.equal(assertSuccess(await t.client(admin).get('/invites')).invites.filter((i: any) => !i.is_multiuse).length, 0);
  const done = await fetch(`${t.url}/accounts/do_confirm/${confirm[1]}`, form({ full_name: 'New Comer', password: 'a-long-enough-password-1' }));
  assert.equal(done.status, 200);
  assert.match(await done.text(), /Your account has been created/);
  const users = assertSuccess(await t.client(admin).get('/users')).members as any[];
  const newcomer = users.find((u) => u.delivery_email === 'newcomer@example.org' || u.email === 'newcomer@example.org');
  assert.ok(newcomer);
  assert.equal(newcomer.role, 300);
  const subs = assertSuccess(await t.client(admin).get(`/streams/${chan}/members`)).subscribers as number[];
  assert.ok(subs.includes(newcomer.user_id));

  // The link stays usable until revoked.
  assert.equal((await fetch(`${t.url}/join/${key}/`)).status, 200);
  assertError(await t.client(alice).delete(`/invites/multiuse/${link.id}`), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  assertSuccess(await t.client(admin).delete(`/invites/multiuse/${link.id}`));
  assertError(await t.client(admin).delete(`/invites/multiuse/${link.id}`), 400, 'BAD_REQUEST', 'Invitation has already been revoked');
  assertError(await t.client(admin).delete('/invites/multiuse/999999'), 400, 'BAD_REQUEST', 'No such invitation');
  assert.equal((await fetch(`${t.url}/join/${key}/`)).status, 410);
  assert.equal((await fetch(`${t.url}/join/nosuchkey/`)).status, 404);
  assert.deepEqual(assertSuccess(await t.client(admin).get('/invites')).invites.filter((i: any) => i.is_multiuse), []);
});
