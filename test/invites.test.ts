/** Email invitations: POST/GET /invites, DELETE /invites/{id}, POST /invites/{id}/resend, invites_changed events. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  assertError,
  assertSchema,
  assertSuccess,
  openQueue,
  sentEmails,
  startTestServer,
  type Account,
  type Client,
  type Res,
  type TestServer,
} from './helpers.ts';
import { makeChannel, setRealmSetting } from './messages-fixtures.ts';
import { systemGroupIds } from '../src/store/groups.ts';

let t: TestServer;
let owner: Client;
let admin: Account;
let moderator: Account;
let member: Account;
let member2: Account;
let guest: Account;
let publicChannel: number;

const c = (a: Account): Client => t.client(a);

const emails = () => sentEmails(t.server.svc.config.dataDir);
const invitationEmailsTo = (addr: string) => emails().filter((e) => e.template === 'invitation' && e.to.includes(addr));

async function row(id: number) {
  return t.server.svc.store.db.selectFrom('invitations').selectAll().where('id', '=', id).executeTakeFirst();
}

async function inviteIdFor(email: string): Promise<number> {
  const r = await t.server.svc.store.db.selectFrom('invitations').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  return r.id;
}

/** GET /invites validated against Zulip's FL 247 schema (notify_referrer_on_join is newer). */
function assertInvitesSchema(res: Res): void {
  const body = structuredClone(res.body);
  for (const inv of body.invites) delete inv.notify_referrer_on_join;
  assertSchema({ ...res, body }, 'GET', '/invites');
}

let n = 0;
const fresh = (prefix = 'new') => `${prefix}${++n}@example.org`;

before(async () => {
  t = await startTestServer();
  owner = t.client(t.owner);
  admin = await t.makeUser({ role: 200, name: 'Admin' });
  moderator = await t.makeUser({ role: 300, name: 'Moderator' });
  member = await t.makeUser({ role: 400, name: 'Member' });
  member2 = await t.makeUser({ role: 400, name: 'Member Two' });
  guest = await t.makeUser({ role: 600, name: 'Guest' });
  publicChannel = await makeChannel(t, { name: 'invite-public' });
});
after(async () => {
  await t.close();
});

test('POST /invites: success, emails with registration links, stored parameters, invites_changed to admins and the inviter', async () => {
  const qOwner = await openQueue(owner, { event_types: ['invites_changed'] });
  const qAdmin = await openQueue(c(admin), { event_types: ['invites_changed'] });
  const qMember = await openQueue(c(member), { event_types: ['invites_changed'] });
  const qMember2 = await openQueue(c(member2), { event_types: ['invites_changed'] });
  const a = fresh();
  const b = fresh();
  const d = fresh();
  const res = await c(member).post('/invites', { invitee_emails: `${a}, Bee <${b}>\n${d},${a}`, stream_ids: [publicChannel] });
  assertSuccess(res);
  assertSchema(res, 'POST', '/invites');
  for (const addr of [a, b, d]) {
    const sent = invitationEmailsTo(addr);
    assert.equal(sent.length, 1, addr);
    assert.match(sent[0].text, new RegExp(`${t.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/accounts/do_confirm/[a-z0-9]{24}`));
    assert.match(sent[0].text, /Member/);
    const r = (await row(await inviteIdFor(addr)))!;
    assert.ok(sent[0].text.includes(`/accounts/do_confirm/${r.confirmation_key}`));
    assert.equal(r.referred_by, member.id);
    assert.equal(r.invited_as, 400);
    assert.equal(r.expiry_date, r.invited_at + 14400 * 60);
    assert.deepEqual(JSON.parse(r.stream_ids_json), [publicChannel]);
    assert.equal(r.notify_referrer_on_join, 1);
    assert.equal(r.include_realm_default_subscriptions, 0);
    assert.equal(r.welcome_message_custom_text, null);
  }
  assert.deepEqual(await qOwner.ofType('invites_changed'), [{ type: 'invites_changed', id: 0 }]);
  assert.equal((await qAdmin.ofType('invites_changed')).length, 1);
  assert.equal((await qMember.ofType('invites_changed')).length, 1);
  assert.equal((await qMember2.ofType('invites_changed')).length, 0, 'other members are not told');
});

test('POST /invites: optional parameters (expiry, never expiring, group_ids, defaults, notify, welcome text)', async () => {
  const groups = await systemGroupIds(t.server.svc.store.db, t.server.svc.realmId);
  void groups;
  const created = assertSuccess(await owner.post('/user_groups/create', { name: 'invitees', description: 'x', members: [t.owner.id] }));
  void created;
  const groupId = (await t.server.svc.store.db.selectFrom('user_groups').select('id').where('name', '=', 'invitees').executeTakeFirstOrThrow()).id;
  const a = fresh();
  assertSuccess(
    await owner.post('/invites', {
      invitee_emails: a,
      stream_ids: [],
      invite_expires_in_minutes: 60,
      group_ids: [groupId],
      include_realm_default_subscriptions: true,
      notify_referrer_on_join: false,
      welcome_message_custom_text: 'Welcome aboard!',
      invite_as: 600,
    }),
  );
  const r = (await row(await inviteIdFor(a)))!;
  assert.equal(r.expiry_date, r.invited_at + 3600);
  assert.deepEqual(JSON.parse(r.group_ids_json), [groupId]);
  assert.equal(r.include_realm_default_subscriptions, 1);
  assert.equal(r.notify_referrer_on_join, 0);
  assert.equal(r.welcome_message_custom_text, 'Welcome aboard!');
  assert.equal(r.invited_as, 600);

  const b = fresh();
  assertSuccess(await owner.post('/invites', { invitee_emails: b, stream_ids: [], invite_expires_in_minutes: null }));
  assert.equal((await row(await inviteIdFor(b)))!.expiry_date, null);
  const list = assertSuccess(await owner.get('/invites'));
  const entry = list.invites.find((i: any) => i.email === b);
  assert.equal(entry.expiry_date, null);

  // Non-administrators' welcome text is ignored.
  const m = fresh();
  assertSuccess(await c(member).post('/invites', { invitee_emails: m, stream_ids: [], welcome_message_custom_text: 'Hi' }));
  assert.equal((await row(await inviteIdFor(m)))!.welcome_message_custom_text, null);

  // Empty string is kept for administrators (no custom message).
  const e = fresh();
  assertSuccess(await c(admin).post('/invites', { invitee_emails: e, stream_ids: [], welcome_message_custom_text: '' }));
  assert.equal((await row(await inviteIdFor(e)))!.welcome_message_custom_text, '');

  assertError(
    await owner.post('/invites', { invitee_emails: fresh(), stream_ids: [], welcome_message_custom_text: 'é'.repeat(8001) }),
    400,
    'BAD_REQUEST',
    'welcome_message_custom_text is too long (limit: 8000 characters)',
  );
  assertSuccess(await owner.post('/invites', { invitee_emails: fresh(), stream_ids: [], welcome_message_custom_text: 'é'.repeat(8000) }));

  // Groups: unknown, system, and ones the caller may not add members to.
  assertError(await owner.post('/invites', { invitee_emails: fresh(), stream_ids: [], group_ids: [99999] }), 400, 'BAD_REQUEST', 'Invalid user group');
  assertError(
    await owner.post('/invites', { invitee_emails: fresh(), stream_ids: [], group_ids: [groups.get('role:members')] }),
    400,
    'BAD_REQUEST',
    'Insufficient permission',
  );
  assertError(await c(member).post('/invites', { invitee_emails: fresh(), stream_ids: [], group_ids: [groupId] }), 400, 'BAD_REQUEST', 'Insufficient permission');
});

test('POST /invites: parameter and request errors', async () => {
  const before = emails().length;
  assertError(await owner.post('/invites', { stream_ids: [] }), 400, 'BAD_REQUEST', 'You must specify at least one email address.');
  assertError(await owner.post('/invites', { invitee_emails: '', stream_ids: [] }), 400, 'BAD_REQUEST', 'You must specify at least one email address.');
  const missing = await owner.post('/invites', { invitee_emails: fresh() });
  assertError(missing, 400, 'REQUEST_VARIABLE_MISSING', "Missing 'stream_ids' argument");
  assert.equal(missing.body.var_name, 'stream_ids');
  assertError(await owner.post('/invites', { invitee_emails: fresh(), stream_ids: [], invite_as: 500 }), 400, 'BAD_REQUEST', 'Invalid invite_as');
  assertError(await owner.post('/invites', { invitee_emails: fresh(), stream_ids: [], invite_expires_in_minutes: 'soon' }), 400, 'BAD_REQUEST', 'invite_expires_in_minutes is not valid JSON');
  assertError(
    await owner.post('/invites', { invitee_emails: fresh(), stream_ids: [99999] }),
    400,
    'BAD_REQUEST',
    'Channel does not exist with id: 99999. No invites were sent.',
  );
  // A private channel the member cannot see counts as nonexistent.
  const secret = await makeChannel(t, { name: 'invite-secret', inviteOnly: true, subscribers: [t.owner.id] });
  assertError(
    await c(member).post('/invites', { invitee_emails: fresh(), stream_ids: [secret] }),
    400,
    'BAD_REQUEST',
    `Channel does not exist with id: ${secret}. No invites were sent.`,
  );
  // Guests and bots may not use the endpoint.
  assertError(await c(guest).post('/invites', { invitee_emails: fresh(), stream_ids: [] }), 400, 'BAD_REQUEST', 'Not allowed for guest users');
  const bot = await t.makeUser({ isBot: true, botOwnerId: t.owner.id, botType: 1, name: 'Invite Bot' });
  assertError(await c(bot).post('/invites', { invitee_emails: fresh(), stream_ids: [] }), 400, 'BAD_REQUEST', 'This endpoint does not accept bot requests.');
  assert.equal(emails().length, before, 'no email for failed requests');
});

test('POST /invites: channels must be default channels or ones the caller may add subscribers to', async () => {
  const groups = await systemGroupIds(t.server.svc.store.db, t.server.svc.realmId);
  const dflt = await makeChannel(t, { name: 'invite-default' });
  await t.server.svc.store.db.updateTable('streams').set({ is_default: 1 }).where('id', '=', dflt).execute();
  await setRealmSetting(t, 'can_add_subscribers_group', groups.get('role:administrators'));
  try {
    assertError(
      await c(member).post('/invites', { invitee_emails: fresh(), stream_ids: [publicChannel] }),
      400,
      'BAD_REQUEST',
      'You do not have permission to subscribe other users to channels.',
    );
    assertSuccess(await c(member).post('/invites', { invitee_emails: fresh(), stream_ids: [dflt] }));
    assertSuccess(await c(member).post('/invites', { invitee_emails: fresh(), stream_ids: [] }));
    assertSuccess(await c(admin).post('/invites', { invitee_emails: fresh(), stream_ids: [publicChannel, dflt] }));
  } finally {
    await setRealmSetting(t, 'can_add_subscribers_group', groups.get('role:members'));
  }
});

test('POST /invites: can_invite_users_group and role rules', async () => {
  const groups = await systemGroupIds(t.server.svc.store.db, t.server.svc.realmId);
  const reg = assertSuccess(await c(member).post('/register', { fetch_event_types: JSON.stringify(['realm']) }));
  assert.equal(reg.realm_can_invite_users_group, groups.get('role:members'), "Zulip's default");
  await setRealmSetting(t, 'can_invite_users_group', groups.get('role:moderators'));
  try {
    assertError(await c(member).post('/invites', { invitee_emails: fresh(), stream_ids: [] }), 400, 'BAD_REQUEST', 'Insufficient permission');
    assertSuccess(await c(moderator).post('/invites', { invitee_emails: fresh(), stream_ids: [] }));
  } finally {
    await setRealmSetting(t, 'can_invite_users_group', groups.get('role:members'));
  }
  const cases: Array<[Account | null, number, 'ok' | 'admin' | 'owner']> = [
    [member, 600, 'ok'],
    [member, 400, 'ok'],
    [member, 300, 'admin'],
    [member, 200, 'admin'],
    [member, 100, 'owner'],
    [moderator, 300, 'ok'],
    [moderator, 200, 'admin'],
    [moderator, 100, 'owner'],
    [admin, 200, 'ok'],
    [admin, 300, 'ok'],
    [admin, 100, 'owner'],
    [null, 100, 'ok'],
  ];
  for (const [who, role, expect] of cases) {
    const res = await (who ? c(who) : owner).post('/invites', { invitee_emails: fresh(), stream_ids: [], invite_as: role });
    if (expect === 'ok') assertSuccess(res);
    else assertError(res, 400, 'UNAUTHORIZED_PRINCIPAL', expect === 'admin' ? 'Must be an organization administrator' : 'Must be an organization owner');
  }
});

test('POST /invites: existing accounts give INVITATION_FAILED; the others are still invited', async () => {
  const gone = await t.makeUser({ name: 'Gone' });
  assertSuccess(await owner.delete(`/users/${gone.id}`));
  const q = await openQueue(owner, { event_types: ['invites_changed'] });
  const a = fresh();
  const res = await c(member).post('/invites', { invitee_emails: `${member2.email}, ${a}, ${gone.email.toUpperCase()}`, stream_ids: [] });
  assertError(
    res,
    400,
    'INVITATION_FAILED',
    "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
  );
  assert.deepEqual(res.body.errors, [
    [member2.email, 'Already has an account.', false],
    [gone.email.toUpperCase(), 'Account has been deactivated.', true],
  ]);
  assert.equal(res.body.sent_invitations, true);
  assert.equal(res.body.daily_limit_reached, false);
  assert.equal(res.body.license_limit_reached, false);
  assertSchema(res, 'POST', '/invites');
  assert.equal(invitationEmailsTo(a).length, 1);
  assert.equal(invitationEmailsTo(member2.email).length, 0);
  assert.equal((await q.ofType('invites_changed')).length, 1);

  const all = await c(member).post('/invites', { invitee_emails: `${member2.email}\n${t.owner.email}`, stream_ids: [] });
  assertError(all, 400, 'INVITATION_FAILED', "We weren't able to invite anyone.");
  assert.deepEqual(all.body.errors, [
    [member2.email, 'Already has an account.', false],
    [t.owner.email, 'Already has an account.', false],
  ]);
  assert.equal(all.body.sent_invitations, false);
  assert.equal(all.body.daily_limit_reached, false);
  assert.equal(all.body.license_limit_reached, false);

  const b = fresh();
  const bad = await c(member).post('/invites', { invitee_emails: `not-an-address, ${b}, ${member2.email}`, stream_ids: [] });
  assertError(bad, 400, 'INVITATION_FAILED', "Some emails did not validate, so we didn't send any invitations.");
  assert.deepEqual(bad.body.errors, [
    ['not-an-address', 'Invalid address.', false],
    [member2.email, 'Already has an account.', false],
  ]);
  assert.equal(bad.body.sent_invitations, false);
  assert.equal(invitationEmailsTo(b).length, 0);
  assert.equal(await t.server.svc.store.db.selectFrom('invitations').select('id').where('email', '=', b).executeTakeFirst(), undefined);
  assert.deepEqual(await q.ofType('invites_changed'), [], 'nothing changed');
});

test('GET /invites: administrators see all unexpired invitations, others their own', async () => {
  const mine = fresh('mine');
  const theirs = fresh('theirs');
  const expired = fresh('expired');
  assertSuccess(await c(member).post('/invites', { invitee_emails: `${mine}, ${expired}`, stream_ids: [], invite_as: 600 }));
  assertSuccess(await c(member2).post('/invites', { invitee_emails: theirs, stream_ids: [] }));
  await t.server.svc.store.db.updateTable('invitations').set({ expiry_date: 1000 }).where('email', '=', expired).execute();

  const res = await c(member).get('/invites');
  assertSuccess(res);
  assertInvitesSchema(res);
  const emailsSeen = res.body.invites.map((i: any) => i.email);
  assert.ok(emailsSeen.includes(mine));
  assert.ok(!emailsSeen.includes(theirs));
  assert.ok(!emailsSeen.includes(expired));
  assert.ok(res.body.invites.every((i: any) => i.invited_by_user_id === member.id));
  const inv = res.body.invites.find((i: any) => i.email === mine);
  const r = (await row(inv.id))!;
  assert.deepEqual(inv, {
    id: r.id,
    invited_by_user_id: member.id,
    invited: r.invited_at,
    expiry_date: r.expiry_date,
    invited_as: 600,
    email: mine,
    notify_referrer_on_join: true,
    is_multiuse: false,
  });

  const asAdmin = assertSuccess(await c(admin).get('/invites'));
  const adminSeen = asAdmin.invites.map((i: any) => i.email);
  assert.ok(adminSeen.includes(mine) && adminSeen.includes(theirs) && !adminSeen.includes(expired));
  assertError(await c(guest).get('/invites'), 400, 'BAD_REQUEST', 'Not allowed for guest users');
});

test('DELETE /invites/{id}: own invitations, administrators any (owners for owner invitations), events', async () => {
  const a = fresh();
  const b = fresh();
  const o = fresh();
  assertSuccess(await c(member).post('/invites', { invitee_emails: `${a}, ${b}`, stream_ids: [] }));
  assertSuccess(await owner.post('/invites', { invitee_emails: o, stream_ids: [], invite_as: 100 }));
  const idA = await inviteIdFor(a);
  const idB = await inviteIdFor(b);
  const idO = await inviteIdFor(o);

  assertError(await c(member2).delete(`/invites/${idA}`), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  assertError(await c(moderator).delete(`/invites/${idA}`), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  assertError(await c(admin).delete(`/invites/${idO}`), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
  assertError(await c(member).delete('/invites/999999'), 400, 'BAD_REQUEST', 'No such invitation');
  assertError(await c(guest).delete(`/invites/${idA}`), 400, 'BAD_REQUEST', 'Not allowed for guest users');

  const qOwner = await openQueue(owner, { event_types: ['invites_changed'] });
  const qMember = await openQueue(c(member), { event_types: ['invites_changed'] });
  const qMember2 = await openQueue(c(member2), { event_types: ['invites_changed'] });
  assertSuccess(await c(member).delete(`/invites/${idA}`));
  assert.equal(await row(idA), undefined);
  assertError(await c(member).delete(`/invites/${idA}`), 400, 'BAD_REQUEST', 'No such invitation');
  assertSuccess(await c(admin).delete(`/invites/${idB}`));
  assertSuccess(await owner.delete(`/invites/${idO}`));
  assert.equal((await qOwner.ofType('invites_changed')).length, 3);
  assert.equal((await qMember.ofType('invites_changed')).length, 2, 'the inviter hears about both of theirs');
  assert.equal((await qMember2.ofType('invites_changed')).length, 0);
});

test('POST /invites/{id}/resend: new link by email, same expiry, permissions', async () => {
  const a = fresh();
  const o = fresh();
  assertSuccess(await c(member).post('/invites', { invitee_emails: a, stream_ids: [] }));
  assertSuccess(await owner.post('/invites', { invitee_emails: o, stream_ids: [], invite_as: 100 }));
  const id = await inviteIdFor(a);
  const idO = await inviteIdFor(o);
  const before = (await row(id))!;
  await t.server.svc.store.db.updateTable('invitations').set({ invited_at: before.invited_at - 100 }).where('id', '=', id).execute();

  assertError(await c(member2).post(`/invites/${id}/resend`), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  assertError(await c(admin).post(`/invites/${idO}/resend`), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
  assertError(await c(member).post('/invites/999999/resend'), 400, 'BAD_REQUEST', 'No such invitation');
  assertError(await c(guest).post(`/invites/${id}/resend`), 400, 'BAD_REQUEST', 'Not allowed for guest users');

  const q = await openQueue(c(member), { event_types: ['invites_changed'] });
  const res = assertSuccess(await c(member).post(`/invites/${id}/resend`));
  const after = (await row(id))!;
  assert.equal(res.timestamp, after.invited_at);
  assert.ok(after.invited_at >= before.invited_at);
  assert.notEqual(after.confirmation_key, before.confirmation_key);
  assert.equal(after.expiry_date, before.expiry_date, 'expiry unchanged');
  const sent = invitationEmailsTo(a);
  assert.equal(sent.length, 2);
  assert.ok(sent[1].text.includes(`/accounts/do_confirm/${after.confirmation_key}`));
  assert.equal((await q.ofType('invites_changed')).length, 1);
  assertSuccess(await c(admin).post(`/invites/${id}/resend`));
  assertSuccess(await owner.post(`/invites/${idO}/resend`));
  assert.equal(invitationEmailsTo(a).length, 3);
});
