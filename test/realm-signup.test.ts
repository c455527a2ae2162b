/**
 * Organization settings that govern who may join and what members may
 * change about themselves: invite_required (sign-up without an invitation at
 * /accounts/home/ and /register/), emails_restricted_to_domains with the
 * allowed domains and disallow_disposable_email_addresses (sign-up, through
 * reusable links too, and invitations), email_changes_disabled and
 * avatar_changes_disabled (administrators exempt).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, openQueue, sentEmails, type Account, type TestServer } from './helpers.ts';
import { ROLE } from '../src/store/users.ts';

let t: TestServer;
let admin: Account;
let member: Account;

before(async () => {
  t = await startTestServer();
  admin = await t.makeUser({ role: ROLE.ADMINISTRATOR });
  member = await t.makeUser({ role: ROLE.MEMBER });
});
after(() => t.close());

const c = (a: Account) => t.client(a);
const setting = async (params: Record<string, unknown>) => assertSuccess(await c(t.owner).patch('/realm', params));

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

const emailsTo = (addr: string) => sentEmails(t.server.svc.config.dataDir, addr);

/** POSTs an address to a sign-up form; returns the status and the page's error text, if any. */
async function signUp(path: string, email: string): Promise<{ status: number; error: string | null }> {
  const res = await fetch(`${t.url}${path}`, form({ email }));
  const html = await res.text();
  const m = /<p class="error" role="alert">([^<]*)<\/p>/.exec(html);
  const error = m ? m[1].replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))) : null;
  return { status: res.status, error };
}

test('invite_required: sign-up without an invitation is refused while on, and works once off', async () => {
  const page = await fetch(`${t.url}/accounts/home/`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /Joining this organization requires an invitation\./);
  assert.deepEqual(await signUp('/accounts/home/', 'walkin@example.org'), {
    status: 400,
    error: 'Please request an invite for walkin@example.org from the organization administrator.',
  });
  assert.deepEqual(await signUp('/register/', 'walkin@example.org'), {
    status: 400,
    error: 'Please request an invite for walkin@example.org from the organization administrator.',
  });
  assert.deepEqual(emailsTo('walkin@example.org'), []);

  await setting({ invite_required: false });
  assert.doesNotMatch(await (await fetch(`${t.url}/register/`)).text(), /requires an invitation/);
  assert.deepEqual(await signUp('/accounts/home/', 'walkin@example.org'), { status: 200, error: null });
  const [mail] = emailsTo('walkin@example.org');
  const key = /\/accounts\/do_confirm\/([A-Za-z0-9]+)/.exec(mail.text)?.[1];
  assert.ok(key, mail.text);
  // A pending sign-up is not an invitation anyone sent.
  assert.deepEqual(assertSuccess(await c(admin).get('/invites')).invites, []);

  const q = await openQueue(c(member), { event_types: ['realm_user'] });
  const done = await fetch(`${t.url}/accounts/do_confirm/${key}`, form({ full_name: 'Walk In', password: 'a-long-enough-password-1' }));
  assert.equal(done.status, 200);
  assert.match(await done.text(), /Your account has been created/);
  const added = (await q.ofType('realm_user')).find((e) => e.op === 'add');
  assert.equal(added?.person.full_name, 'Walk In');
  assert.equal(added?.person.role, ROLE.MEMBER);
  // New members join the default channels.
  const general = assertSuccess(await c(admin).get('/streams')).streams.find((s: any) => s.name === 'general');
  assert.ok((assertSuccess(await c(admin).get(`/streams/${general.stream_id}/members`)).subscribers as number[]).includes(added!.person.user_id));
  // An existing account cannot sign up again.
  assert.deepEqual(await signUp('/accounts/home/', member.email), { status: 400, error: 'An account with this email address already exists. Log in instead.' });
  await setting({ invite_required: true });
});

test('disallow_disposable_email_addresses and emails_restricted_to_domains govern sign-up, also through reusable links', async () => {
  await setting({ invite_required: false });
  const link = assertSuccess(await c(admin).post('/invites/multiuse', {})).invite_link as string;
  const joinPath = new URL(link).pathname;
  for (const path of ['/accounts/home/', joinPath]) {
    // Disposable addresses: refused by default.
    assert.deepEqual(await signUp(path, 'throwaway@mailinator.com'), { status: 400, error: 'Please use your real email address.' });
  }
  await setting({ disallow_disposable_email_addresses: false });
  assert.deepEqual(await signUp('/accounts/home/', 'throwaway@mailinator.com'), { status: 200, error: null });

  assertSuccess(await c(t.owner).post('/realm/domains', { domain: 'corp.example', allow_subdomains: true }));
  assertSuccess(await c(t.owner).post('/realm/domains', { domain: 'plain.example', allow_subdomains: false }));
  await setting({ emails_restricted_to_domains: true });
  for (const path of ['/accounts/home/', joinPath]) {
    assert.deepEqual(await signUp(path, 'someone@elsewhere.org'), {
      status: 400,
      error: 'Your email address, someone@elsewhere.org, is not in one of the domains that are allowed to register for accounts in this organization.',
    });
    assert.deepEqual(await signUp(path, 'someone@sub.plain.example'), {
      status: 400,
      error: 'Your email address, someone@sub.plain.example, is not in one of the domains that are allowed to register for accounts in this organization.',
    });
    assert.deepEqual(await signUp(path, 'some+tag@corp.example'), { status: 400, error: 'Email addresses containing + are not allowed in this organization.' });
  }
  assert.deepEqual(await signUp('/accounts/home/', 'someone@corp.example'), { status: 200, error: null });
  assert.deepEqual(await signUp(joinPath, 'other@team.corp.example'), { status: 200, error: null });
  assert.deepEqual(await signUp('/register/', 'third@plain.example'), { status: 200, error: null });
  // Invitations say it their own way.
  const refused = await c(admin).post('/invites', { invitee_emails: 'x@elsewhere.org', stream_ids: [] });
  assertError(refused, 400, 'INVITATION_FAILED', "Some emails did not validate, so we didn't send any invitations.");
  assert.deepEqual(refused.body.errors, [['x@elsewhere.org', 'Outside your domain.', false]]);
  await setting({ emails_restricted_to_domains: false, disallow_disposable_email_addresses: true, invite_required: true });
});

test('email_changes_disabled: members may not change their address, administrators may', async () => {
  await setting({ email_changes_disabled: true });
  assertError(await c(member).patch('/settings', { email: 'moved@example.org' }), 400, 'BAD_REQUEST', 'Email address changes are disabled in this organization.');
  assert.deepEqual(emailsTo('moved@example.org'), []);
  assertSuccess(await c(admin).patch('/settings', { email: 'admin-moved@example.org' }));
  assert.equal(emailsTo('admin-moved@example.org').length, 1);
  await setting({ email_changes_disabled: false });
  const mover = await t.makeUser({ role: ROLE.MEMBER });
  assertSuccess(await c(mover).patch('/settings', { email: 'moved@example.org' }));
  const [mail] = emailsTo('moved@example.org');
  const link = /\/accounts\/confirm_new_email\/[A-Za-z0-9]+\//.exec(mail.text)?.[0];
  assert.ok(link, mail.text);
  const address = async () => assertSuccess(await c(admin).get(`/users/${mover.id}`)).user.delivery_email;
  // Disabled again before the link is opened: the change is refused then too.
  await setting({ email_changes_disabled: true });
  const refused = await fetch(`${t.url}${link}`);
  assert.equal(refused.status, 400);
  assert.match(await refused.text(), /Email address changes are disabled in this organization\./);
  assert.equal(await address(), mover.email);
  await setting({ email_changes_disabled: false });
  assert.equal((await fetch(`${t.url}${link}`)).status, 200);
  assert.equal(await address(), 'moved@example.org');
});

test('PATCH /settings: an address change with a name that is refused starts nothing', async () => {
  const mover = await t.makeUser({ role: ROLE.MEMBER });
  const before = assertSuccess(await c(admin).get(`/users/${mover.id}`)).user;
  assertError(await c(mover).patch('/settings', { email: 'renamed-mover@example.org', full_name: 'Bad*Name' }), 400, 'BAD_REQUEST', 'Invalid characters in name!');
  assert.deepEqual(emailsTo('renamed-mover@example.org'), [], 'no confirmation sent');
  assert.deepEqual(assertSuccess(await c(admin).get(`/users/${mover.id}`)).user, before);
  // Both refused: the address's error comes first, as in Zulip.
  assertError(await c(mover).patch('/settings', { email: 'not an address', full_name: 'Bad*Name' }), 400, 'BAD_REQUEST', 'Invalid address.');
  // Both fine: both done.
  assertSuccess(await c(mover).patch('/settings', { email: 'renamed-mover@example.org', full_name: 'Good Name' }));
  assert.equal(emailsTo('renamed-mover@example.org').length, 1);
  assert.equal(assertSuccess(await c(admin).get(`/users/${mover.id}`)).user.full_name, 'Good Name');
});

test('avatar_changes_disabled: members may not change their avatar, administrators may', async () => {
  await setting({ avatar_changes_disabled: true });
  assertError(await c(member).delete('/users/me/avatar'), 400, 'BAD_REQUEST', 'Avatar changes are disabled in this organization.');
  assertSuccess(await c(admin).delete('/users/me/avatar'));
  await setting({ avatar_changes_disabled: false });
  assertSuccess(await c(member).delete('/users/me/avatar'));
});
