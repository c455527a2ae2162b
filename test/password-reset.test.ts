/**
 * "Forgot your password?": the form at /accounts/password/reset/, the email
 * it sends (a link for an account; why there is none otherwise), the link's
 * form, the new password in use (the old one refused, web sessions ended),
 * the link used once, dead after the password changes or after a day, and
 * the limits per email address and per client address.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, sentEmails, type Account, type TestServer } from './helpers.ts';
import { WebClient } from './web-helpers.ts';

let t: TestServer;
before(async () => {
  // Each form request comes from its own client address (X-Forwarded-For), unless a test says which.
  t = await startTestServer({ TRUST_PROXY: '127.0.0.1' });
});
after(() => t.close());

const OLD_PASSWORD = 'correct-horse-battery';
const NEW_PASSWORD = 'a-brand-new-password-7';

/** The password reset emails sent to `addr` (new accounts get a welcome email too). */
const resetEmailsTo = (addr: string) => sentEmails(t.server.svc.config.dataDir, addr).filter((m) => m.subject.startsWith('Reset your password for '));

let clients = 0;
/** POSTs form fields to `path` from client address `ip` (a new one each time unless given): the status, the page's error text (if any) and the page. */
async function postForm(
  path: string,
  fields: Record<string, string>,
  ip = `198.51.100.${++clients}`,
): Promise<{ status: number; error: string | null; html: string; headers: Headers }> {
  const res = await fetch(`${t.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': ip },
    body: new URLSearchParams(fields).toString(),
  });
  const html = await res.text();
  const m = /<p class="error" role="alert">([^<]*)<\/p>/.exec(html);
  return { status: res.status, error: m ? m[1].replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))) : null, html, headers: res.headers };
}

/** Asks for a link for `email`; the path of the link mailed (the last one), if any. */
async function askForLink(email: string): Promise<string | undefined> {
  const r = await postForm('/accounts/password/reset/', { email });
  assert.equal(r.status, 200, r.html);
  assert.match(r.html, /Check your email/);
  const mails = resetEmailsTo(email);
  return /\/accounts\/password\/reset\/[A-Za-z0-9]+\//.exec(mails.at(-1)?.text ?? '')?.[0];
}

async function fetchApiKey(email: string, password: string) {
  return t.client(null).post('/fetch_api_key', { username: email, password });
}

async function user(email: string): Promise<Account> {
  return t.makeUser({ email, password: OLD_PASSWORD });
}

test('the form asks for an address; a malformed one is refused with the form again', async () => {
  const page = await fetch(`${t.url}/accounts/password/reset/`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<input id="email" name="email" type="email"/);
  const r = await postForm('/accounts/password/reset/', { email: 'not an address' });
  assert.equal(r.status, 400);
  assert.equal(r.error, 'Enter a valid email address.');
});

test('an account gets a link; the new password set there works, the old one no longer does, and its web sessions end', async () => {
  const alice = await user('alice-reset@example.com');
  const web = new WebClient(t.url);
  assertSuccess(await web.login(alice.email, OLD_PASSWORD));
  assert.equal((await web.get('/')).status, 200);

  const link = await askForLink(alice.email);
  assert.ok(link, 'a link in the email');
  assert.equal(resetEmailsTo(alice.email).length, 1);
  const form = await fetch(`${t.url}${link}`);
  assert.equal(form.status, 200);
  const html = await form.text();
  assert.match(html, /value="alice-reset@example.com" readonly/);

  // Refusals re-show the form, and change nothing.
  assert.deepEqual((({ status, error }) => ({ status, error }))(await postForm(link, { new_password1: NEW_PASSWORD, new_password2: 'something else' })), {
    status: 400,
    error: 'The two passwords do not match.',
  });
  assert.deepEqual((({ status, error }) => ({ status, error }))(await postForm(link, { new_password1: 'abcdef', new_password2: 'abcdef' })), { status: 400, error: 'The password is too weak.' });
  assertSuccess(await fetchApiKey(alice.email, OLD_PASSWORD));

  const done = await postForm(link, { new_password1: NEW_PASSWORD, new_password2: NEW_PASSWORD });
  assert.equal(done.status, 200);
  assert.match(done.html, /Your password has been changed/);
  assert.equal(assertSuccess(await fetchApiKey(alice.email, NEW_PASSWORD)).api_key, alice.apiKey);
  assertError(await fetchApiKey(alice.email, OLD_PASSWORD), 401, 'AUTHENTICATION_FAILED');
  // The session from before the reset has ended: the page sends it to log in.
  const after = await web.get('/');
  assert.equal(after.status, 302);
  assert.equal(after.headers.get('location'), '/login/');

  // The link works once.
  assert.equal((await fetch(`${t.url}${link}`)).status, 410);
  assert.equal((await postForm(link, { new_password1: 'yet-another-password-9', new_password2: 'yet-another-password-9' })).status, 410);
  assertSuccess(await fetchApiKey(alice.email, NEW_PASSWORD));
});

test('one link used ends the others; a password changed elsewhere ends them; a link lasts a day', async () => {
  const bob = await user('bob-reset@example.com');
  const first = await askForLink(bob.email);
  const second = await askForLink(bob.email);
  assert.ok(first && second && first !== second);
  assert.equal((await postForm(second, { new_password1: NEW_PASSWORD, new_password2: NEW_PASSWORD })).status, 200);
  assert.equal((await fetch(`${t.url}${first}`)).status, 410);

  const carol = await user('carol-reset@example.com');
  const link = await askForLink(carol.email);
  assertSuccess(await t.client(carol).patch('/settings', { old_password: OLD_PASSWORD, new_password: NEW_PASSWORD }));
  assert.equal((await fetch(`${t.url}${link}`)).status, 410);
  assert.equal((await postForm(link!, { new_password1: 'yet-another-password-9', new_password2: 'yet-another-password-9' })).status, 410);
  assertSuccess(await fetchApiKey(carol.email, NEW_PASSWORD));

  const dan = await user('dan-reset@example.com');
  const old = await askForLink(dan.email);
  assert.equal((await fetch(`${t.url}${old}`)).status, 200);
  const db = t.server.svc.store.db;
  await db.updateTable('password_resets').set({ created: Math.floor(Date.now() / 1000) - 24 * 3600 - 5 }).where('user_id', '=', dan.id).execute();
  assert.equal((await fetch(`${t.url}${old}`)).status, 410);
});

test('no account, a deactivated one or a bot: the same page, and an email saying why there is no link', async () => {
  const nobody = 'nobody-reset@example.com';
  assert.equal(await askForLink(nobody), undefined);
  assert.match(resetEmailsTo(nobody)[0]!.text, /there is no account with this address/);

  const erin = await user('erin-reset@example.com');
  assertSuccess(await t.client(t.owner).delete(`/users/${erin.id}`));
  assert.equal(await askForLink(erin.email), undefined);
  assert.match(resetEmailsTo(erin.email).at(-1)!.text, /has been deactivated/);

  const bot = await t.makeUser({ isBot: true, botOwnerId: t.owner.id, name: 'Reset Bot' });
  assert.equal(await askForLink(bot.email), undefined);
  assert.match(resetEmailsTo(bot.email).at(-1)!.text, /there is no account with this address/);
});

test('links that never were: 404', async () => {
  assert.equal((await fetch(`${t.url}/accounts/password/reset/not-a-key/`)).status, 404);
  assert.equal((await fetch(`${t.url}/accounts/password/reset/${'A'.repeat(32)}/`)).status, 404);
  assert.equal((await postForm(`/accounts/password/reset/${'A'.repeat(32)}/`, { new_password1: NEW_PASSWORD, new_password2: NEW_PASSWORD })).status, 404);
});

test('two requests an hour per address: the third is refused with when to try again, and mails nothing', async () => {
  const frank = await user('frank-reset@example.com');
  assert.ok(await askForLink(frank.email));
  // The limit is per address whatever its case; the link goes to the account's own address.
  assert.equal((await postForm('/accounts/password/reset/', { email: 'FRANK-RESET@example.com' })).status, 200);
  assert.equal(resetEmailsTo(frank.email).length, 2);
  const third = await postForm('/accounts/password/reset/', { email: frank.email });
  assert.equal(third.status, 429);
  assert.match(third.html, /Try again in \d+ minutes?\./);
  assert.ok(Number(third.headers.get('retry-after')) > 0);
  assert.equal(resetEmailsTo(frank.email).length, 2);
  // Another address is not held up.
  assert.ok(await askForLink((await user('gina-reset@example.com')).email));
});

test('five emails a day from one client address (any email addresses): the sixth is refused with when to try again, and mails nothing', async () => {
  const ip = '203.0.113.7';
  for (let i = 1; i <= 5; i++) assert.equal((await postForm('/accounts/password/reset/', { email: `nobody-${i}@example.com` }, ip)).status, 200);
  const henry = await user('henry-reset@example.com');
  const sixth = await postForm('/accounts/password/reset/', { email: henry.email }, ip);
  assert.equal(sixth.status, 429);
  assert.match(sixth.html, /Too many emails were asked for from your network\. Try again in \d+ minutes?\./);
  assert.ok(Number(sixth.headers.get('retry-after')) > 0);
  assert.equal(resetEmailsTo(henry.email).length, 0);
  // Another client address is not held up.
  assert.equal((await postForm('/accounts/password/reset/', { email: henry.email }, '203.0.113.8')).status, 200);
  assert.equal(resetEmailsTo(henry.email).length, 1);
});
