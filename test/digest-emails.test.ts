/**
 * Digest emails: on the organization's digest weekday, inactive users with
 * enable_digest_emails get the hot conversations of their channels; active
 * users, other weekdays and a second pass within 12 hours get none; the
 * digest's unsubscribe link turns it off. (Email goes to emails.log here.)
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sentEmails, startTestServer, assertSuccess, type TestServer, type Account } from './helpers.ts';
import { deliverDigestEmails } from '../src/actions/digest-emails.ts';

let t: TestServer;
let dave: Account;
let erin: Account;
const CHANNEL = 'launch plans';

before(async () => {
  t = await startTestServer();
  dave = await t.makeUser({ name: 'Dave Idle' });
  erin = await t.makeUser({ name: 'Erin Busy' });
  assertSuccess(await t.client(t.owner).post('/users/me/subscriptions', { subscriptions: [{ name: CHANNEL }], principals: [t.owner.id, dave.id, erin.id] }));
});
after(() => t.close());

const emails = () => sentEmails(t.server.svc.config.dataDir);

async function setRealm(values: Record<string, unknown>) {
  const db = t.server.svc.store.db;
  const row = await db.selectFrom('realm').select(['id', 'settings_json']).executeTakeFirstOrThrow();
  await db.updateTable('realm').set({ settings_json: JSON.stringify({ ...JSON.parse(row.settings_json || '{}'), ...values }) }).where('id', '=', row.id).execute();
}

const weekday = (ms: number) => (new Date(ms).getUTCDay() + 6) % 7;

test('inactive users get a digest of hot conversations on the digest weekday; once', async () => {
  const now = Date.now();
  assertSuccess(await t.client(erin).post('/users/me/presence', { status: 'active' }));
  const mk = t.makeUser({ name: 'Frank Talker' });
  const frank = await mk;
  assertSuccess(await t.client(t.owner).post('/users/me/subscriptions', { subscriptions: [{ name: CHANNEL }], principals: [frank.id] }));
  assertSuccess(await t.client(t.owner).post('/messages', { type: 'stream', to: CHANNEL, topic: 'rocket', content: 'Countdown starts Monday.' }));
  assertSuccess(await t.client(frank).post('/messages', { type: 'stream', to: CHANNEL, topic: 'rocket', content: 'Fuel is ready.' }));

  await setRealm({ digest_emails_enabled: false, digest_weekday: weekday(now) });
  assert.equal(await deliverDigestEmails(t.server.svc, now), 0);
  await setRealm({ digest_emails_enabled: true, digest_weekday: (weekday(now) + 1) % 7 });
  assert.equal(await deliverDigestEmails(t.server.svc, now), 0);

  await setRealm({ digest_emails_enabled: true, digest_weekday: weekday(now) });
  const before = emails().length;
  const sent = await deliverDigestEmails(t.server.svc, now);
  const digests = emails().slice(before);
  assert.equal(sent, digests.length);
  const toDave = digests.filter((e) => e.to[0] === dave.email);
  assert.equal(toDave.length, 1);
  assert.equal(toDave[0].template, 'digest');
  assert.equal(toDave[0].subject, 'Parley digest');
  assert.match(toDave[0].text, /^Hello Dave Idle,\n/);
  assert.match(toDave[0].text, /Hot conversations:\n\n#launch plans > rocket\nhttp\S+\/#narrow\/channel\/\d+-launch-plans\/topic\/rocket\n.*: Countdown starts Monday\.\nFrank Talker: Fuel is ready\./);
  assert.match(toDave[0].text, /Unsubscribe from digest emails:\nhttp\S+\/accounts\/unsubscribe\/digest\/\S+\n$/);
  // Erin was active just now.
  assert.equal(digests.filter((e) => e.to[0] === erin.email).length, 0);

  // Within 12 hours nobody gets a second one.
  assert.equal(await deliverDigestEmails(t.server.svc, now + 3600 * 1000), 0);

  // The digest's unsubscribe link turns digests off.
  const link = /(http\S+\/accounts\/unsubscribe\/digest\/\S+)/.exec(toDave[0].text)![1];
  const res = await fetch(link);
  assert.equal(res.status, 200);
  assert.match(await res.text(), /unsubscribed from digest emails/);
  const state = assertSuccess(await t.client(dave).post('/register', { fetch_event_types: ['user_settings'] }));
  assert.equal(state.user_settings.enable_digest_emails, false);
});

test("a digest leaves out muted and archived channels and bots' messages, and lists the new public channels that are not archived", async () => {
  const now = Date.now() + 13 * 3600 * 1000;
  const gina = await t.makeUser({ name: 'Gina Quiet' });
  const bot = await t.makeUser({ name: 'Build Bot', isBot: true, botOwnerId: t.owner.id });
  const owner = t.client(t.owner);
  for (const name of ['ops', 'old plans']) {
    assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [t.owner.id, gina.id, bot.id] }));
  }
  assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: CHANNEL }], principals: [gina.id] }));
  const ids = assertSuccess(await t.client(gina).get('/users/me/subscriptions')).subscriptions as Array<{ name: string; stream_id: number }>;
  const idOf = (name: string) => ids.find((s) => s.name === name)!.stream_id;
  assertSuccess(await t.client(gina).post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: idOf(CHANNEL), property: 'is_muted', value: true }] }));
  assertSuccess(await owner.post('/messages', { type: 'stream', to: 'ops', topic: 'deploy', content: 'Deploying at noon.' }));
  assertSuccess(await t.client(bot).post('/messages', { type: 'stream', to: 'ops', topic: 'builds', content: 'Build 42 passed.' }));
  assertSuccess(await owner.post('/messages', { type: 'stream', to: 'old plans', topic: 'retired', content: 'Shelved for good.' }));
  assertSuccess(await owner.delete(`/streams/${idOf('old plans')}`));

  await setRealm({ digest_emails_enabled: true, digest_weekday: weekday(now) });
  const before = emails().length;
  await deliverDigestEmails(t.server.svc, now);
  const toGina = emails()
    .slice(before)
    .filter((e) => e.to[0] === gina.email);
  assert.equal(toGina.length, 1);
  const text: string = toGina[0].text;
  assert.match(text, /#ops > deploy\n\S+\n.*: Deploying at noon\./);
  assert.doesNotMatch(text, /builds|Build 42/);
  assert.doesNotMatch(text, /rocket|Countdown/);
  // Nor the conversations of archived channels.
  assert.doesNotMatch(text, /retired|Shelved/);
  // Every public channel of this young organization is new, except the archived one.
  const listed = [...text.matchAll(/^#([^:\n]+): http/gm)].map((m) => m[1]);
  assert.deepEqual(listed, ['general', CHANNEL, 'ops']);
});
