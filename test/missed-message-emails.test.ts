/**
 * Missed-message emails against a real local SMTP server started here
 * (smtp-server): offline users get the messages they missed, batched; online
 * users and messages read meanwhile get none; content follows the settings;
 * the unsubscribe link works without logging in; each batch is sent once.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { startTestServer, assertSuccess, type TestServer, type Account } from './helpers.ts';
import { deliverMissedMessageEmails } from '../src/actions/missed-message-emails.ts';

let smtp: SMTPServer;
const inbox: ParsedMail[] = [];
const waiters: Array<() => void> = [];
let t: TestServer;
let alice: Account;
let bob: Account;
let carol: Account;
const CHANNEL = 'general talk';

before(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          inbox.push(mail);
          for (const w of waiters.splice(0)) w();
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  // The email module reads SMTP_URL from the environment (this test file runs in its own process).
  process.env.SMTP_URL = `smtp://127.0.0.1:${port}`;
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice Sender' });
  bob = await t.makeUser({ name: 'Bob Away' });
  // These tests are about mentions and direct messages: a mention must not make Bob follow the topic.
  await t.setUserSetting(bob, 'automatically_follow_topics_where_mentioned', false);
  carol = await t.makeUser({ name: 'Carol Online' });
  for (const u of [bob, carol]) await t.setUserSetting(u, 'email_notifications_batching_period_seconds', 1);
  assertSuccess(await t.client(t.owner).post('/users/me/subscriptions', { subscriptions: [{ name: CHANNEL }], principals: [alice.id, bob.id, carol.id] }));
});
after(async () => {
  await t.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

/** Waits for an email to `to` whose subject matches, among those received after the first `after`. */
async function mailTo(to: string, subject: string, after = 0): Promise<ParsedMail> {
  for (;;) {
    const m = inbox.slice(after).find((x) => x.to && !Array.isArray(x.to) && x.to.value[0].address === to && x.subject === subject);
    if (m) return m;
    await new Promise<void>((resolve) => waiters.push(resolve));
  }
}

const pendingRows = (userId: number) => t.server.svc.store.db.selectFrom('missed_message_emails').selectAll().where('user_id', '=', userId).execute();

test('an offline user receives the direct message they missed; an online user receives none', async () => {
  // Carol has a client running (presence reported just now); Bob has none.
  assertSuccess(await t.client(carol).post('/users/me/presence', { status: 'active' }));
  assertSuccess(await t.client(alice).post('/messages', { type: 'private', to: JSON.stringify([carol.id]), content: 'Carol, you are here' }));
  assert.deepEqual(await pendingRows(carol.id), []);

  const sent = assertSuccess(await t.client(alice).post('/messages', { type: 'private', to: JSON.stringify([bob.id]), content: 'Bob, **where** are you?' }));
  const mail = await mailTo(bob.email, 'DMs with Alice Sender');
  assert.equal(mail.from?.value[0].address, 'noreply@parley.local');
  assert.equal(mail.from?.value[0].name, 'Parley notifications');
  const text = mail.text ?? '';
  assert.match(text, /^Alice Sender:\nBob, \*\*where\*\* are you\?\n\nView or reply in Parley Zulip:\n/);
  const sorted = [alice.id, bob.id].sort((a, b) => a - b).join(',');
  assert.ok(text.includes(`${t.url}/#narrow/dm/${sorted}-dm/near/${sent.id}`), text);
  assert.ok(text.includes('You are receiving this because you received direct messages.'));
  assert.match(text, new RegExp(`Unsubscribe from missed-message emails:\n${t.url}/accounts/unsubscribe/missed_messages/[A-Za-z0-9_-]+\n`));
  // Sent exactly once: the batch's rows are claimed.
  const rows = await pendingRows(bob.id);
  assert.equal(rows.length, 1);
  assert.notEqual(rows[0].sent_at, null);
  assert.equal(inbox.filter((m) => (m.to as any).value[0].address === carol.email && !m.subject?.startsWith('Welcome to ')).length, 0);
});

test('messages within the batching period go out in one email per conversation; mentions in a channel', async () => {
  await t.setUserSetting(bob, 'email_notifications_batching_period_seconds', 3600);
  const a = assertSuccess(await t.client(alice).post('/messages', { type: 'stream', to: CHANNEL, topic: 'plans', content: '@**Bob Away** lunch?' }));
  const b = assertSuccess(await t.client(alice).post('/messages', { type: 'stream', to: CHANNEL, topic: 'plans', content: 'or dinner, @**Bob Away**' }));
  // A message without a mention in a channel without email notifications is not emailed.
  assertSuccess(await t.client(alice).post('/messages', { type: 'stream', to: CHANNEL, topic: 'plans', content: 'anyone else?' }));
  const rows = (await pendingRows(bob.id)).filter((r) => r.sent_at === null);
  assert.deepEqual(rows.map((r) => [r.message_id, r.trigger]), [[a.id, 'mentioned'], [b.id, 'mentioned']]);
  // Both joined the batch of the first one.
  assert.equal(rows[0].scheduled_at, rows[1].scheduled_at);
  // The batch comes due.
  await t.server.svc.store.db.updateTable('missed_message_emails').set({ scheduled_at: Date.now() - 1 }).where('user_id', '=', bob.id).where('sent_at', 'is', null).execute();
  const mail = await mailTo(bob.email, `#${CHANNEL} > plans`);
  assert.match(mail.text ?? '', /^Alice Sender:\n@\*\*Bob Away\*\* lunch\?\nor dinner, @\*\*Bob Away\*\*\n\nView or reply in Parley Zulip:\n/);
  assert.ok((mail.text ?? '').includes('/#narrow/channel/'));
  assert.ok((mail.text ?? '').includes('You are receiving this because you were personally mentioned.'));
});

test('messages read before the batch is due are not emailed; content can be left out', async () => {
  await t.setUserSetting(bob, 'email_notifications_batching_period_seconds', 3600);
  const m = assertSuccess(await t.client(alice).post('/messages', { type: 'private', to: JSON.stringify([bob.id]), content: 'read me soon' }));
  assertSuccess(await t.client(bob).post('/messages/flags', { messages: JSON.stringify([m.id]), op: 'add', flag: 'read' }));
  await t.server.svc.store.db.updateTable('missed_message_emails').set({ scheduled_at: Date.now() - 1 }).where('user_id', '=', bob.id).where('sent_at', 'is', null).execute();
  const before = inbox.length;
  await deliverMissedMessageEmails(t.server.svc);
  assert.equal(inbox.length, before);
  assert.ok((await pendingRows(bob.id)).every((r) => r.sent_at !== null));

  await t.setUserSetting(bob, 'message_content_in_email_notifications', false);
  const seen = inbox.length;
  assertSuccess(await t.client(alice).post('/messages', { type: 'private', to: JSON.stringify([bob.id]), content: 'secret content' }));
  await t.server.svc.store.db.updateTable('missed_message_emails').set({ scheduled_at: Date.now() - 1 }).where('user_id', '=', bob.id).where('sent_at', 'is', null).execute();
  const latest = await mailTo(bob.email, 'DMs with Alice Sender', seen);
  assert.ok(!(latest.text ?? '').includes('secret content'));
  assert.match(latest.text ?? '', /^This email does not include message content because you have disabled message content in email notifications\./);
  await t.setUserSetting(bob, 'message_content_in_email_notifications', true);
});

test('concurrent passes send a batch once', async () => {
  await t.setUserSetting(bob, 'email_notifications_batching_period_seconds', 3600);
  const seen = inbox.length;
  assertSuccess(await t.client(alice).post('/messages', { type: 'private', to: JSON.stringify([bob.id]), content: 'exactly once please' }));
  await t.server.svc.store.db.updateTable('missed_message_emails').set({ scheduled_at: Date.now() - 1 }).where('user_id', '=', bob.id).where('sent_at', 'is', null).execute();
  await Promise.all([deliverMissedMessageEmails(t.server.svc), deliverMissedMessageEmails(t.server.svc), deliverMissedMessageEmails(t.server.svc)]);
  await mailTo(bob.email, 'DMs with Alice Sender', seen);
  const copies = inbox.filter((m) => (m.text ?? '').includes('exactly once please'));
  assert.equal(copies.length, 1);
});

test('the unsubscribe link works without logging in and turns missed-message emails off', async () => {
  const mail = inbox.find((m) => (m.to as any).value[0].address === bob.email && m.subject === 'DMs with Alice Sender')!;
  const link = /(http\S+\/accounts\/unsubscribe\/missed_messages\/\S+)/.exec(mail.text ?? '')![1];
  const res = await fetch(link);
  assert.equal(res.status, 200);
  assert.match(await res.text(), /successfully unsubscribed from missed message emails/);
  const state = assertSuccess(await t.client(bob).post('/register', { fetch_event_types: ['user_settings'] }));
  assert.equal(state.user_settings.enable_offline_email_notifications, false);
  const before = (await pendingRows(bob.id)).length;
  assertSuccess(await t.client(alice).post('/messages', { type: 'private', to: JSON.stringify([bob.id]), content: 'no email for this' }));
  assert.equal((await pendingRows(bob.id)).length, before);

  const bad = await fetch(`${t.url}/accounts/unsubscribe/missed_messages/nonsense`);
  assert.equal(bad.status, 404);
});
