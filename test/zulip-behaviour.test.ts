/**
 * Zulip behaviour around existing endpoints: GET /streams
 * include_owner_subscribed, history_limited, channel and subscription events
 * on role changes and (re)activation, and personal topic policies following
 * a moved topic.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, assertSuccess, openQueue, type TestServer, type Account } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';

let t: TestServer;
let alice: Account, bob: Account, carol: Account;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  carol = await t.makeUser({ name: 'Carol' });
});
after(() => t.close());

test('GET /streams include_owner_subscribed: a bot sees its owner\'s channels, private ones included', async () => {
  const priv = await makeChannel(t, { name: 'owner-private', inviteOnly: true, subscribers: [alice.id] });
  const other = await makeChannel(t, { name: 'not-owner-private', inviteOnly: true, subscribers: [bob.id] });
  const bot = await t.makeUser({ name: 'Owned bot', isBot: true, botOwnerId: alice.id, botType: 1 });
  const ids = async (params: Record<string, unknown>) => (assertSuccess(await t.client(bot).get('/streams', params)).streams as any[]).map((s) => s.stream_id);
  const withOwner = await ids({ include_public: false, include_owner_subscribed: true });
  assert.ok(withOwner.includes(priv));
  assert.ok(!withOwner.includes(other));
  assert.ok(!(await ids({})).includes(priv));
  // Only bots have owners.
  const forHuman = (assertSuccess(await t.client(bob).get('/streams', { include_public: false, include_subscribed: false, include_owner_subscribed: true })).streams as any[]).map((s) => s.stream_id);
  assert.deepEqual(forHuman, []);
});

test('history_limited: messages older than the visibility limit are cut, and the response says so', async () => {
  const t2 = await startTestServer({ PARLEY_MESSAGE_VISIBILITY_LIMIT: '3' });
  try {
    const u = await t2.makeUser({ name: 'Limited' });
    const sid = await makeChannel(t2, { name: 'limited', subscribers: [u.id] });
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(assertSuccess(await t2.client(u).post('/messages', { type: 'stream', to: sid, topic: 't', content: `m${i}` })).id);
    const all = assertSuccess(await t2.client(u).get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'channel', operand: sid }] }));
    assert.deepEqual(all.messages.map((m: any) => m.id), ids.slice(2));
    assert.equal(all.found_oldest, true);
    assert.equal(all.history_limited, true);
    const recent = assertSuccess(await t2.client(u).get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'channel', operand: sid }] }));
    assert.equal(recent.found_oldest, false);
    assert.equal(recent.history_limited, false);
  } finally {
    await t2.close();
  }
  const free = assertSuccess(await t.client(alice).get('/messages', { anchor: 'newest', num_before: 10, num_after: 0 }));
  assert.equal(free.history_limited, false);
});

test('a role change sends stream create/delete (and peer_add) for channels gained or lost', async () => {
  const priv = await makeChannel(t, { name: 'role-private', inviteOnly: true, subscribers: [alice.id] });
  const user = await t.makeUser({ name: 'Promoted' });
  const q = await openQueue(t.client(user), { event_types: ['stream', 'subscription'] });
  assertSuccess(await t.client(t.owner).patch(`/users/${user.id}`, { role: 200 }));
  const evs = await q.drain();
  const create = evs.find((e) => e.type === 'stream' && e.op === 'create');
  assert.ok(create, JSON.stringify(evs));
  assert.ok(create.streams.some((s: any) => s.stream_id === priv));
  const peer = evs.find((e) => e.type === 'subscription' && e.op === 'peer_add' && e.stream_ids[0] === priv);
  assert.deepEqual(peer.user_ids, [alice.id]);
  assertSuccess(await t.client(t.owner).patch(`/users/${user.id}`, { role: 400 }));
  const del = (await q.drain()).find((e) => e.type === 'stream' && e.op === 'delete');
  assert.ok(del);
  assert.ok(del.stream_ids.includes(priv));
  // The promoted user's state agrees: the private channel is gone again.
  const reg = assertSuccess(await t.client(user).post('/register', { fetch_event_types: ['stream'] }));
  assert.ok(!reg.streams.some((s: any) => s.stream_id === priv));
});

test('deactivation and reactivation: peer_remove and peer_add to those who see the subscriber lists', async () => {
  const sid = await makeChannel(t, { name: 'peers', subscribers: [alice.id, carol.id] });
  const priv = await makeChannel(t, { name: 'peers-private', inviteOnly: true, subscribers: [carol.id, alice.id] });
  const leaving = await t.makeUser({ name: 'Leaving' });
  const { subscribe } = await import('./messages-fixtures.ts');
  await subscribe(t, sid, [leaving.id]);
  await subscribe(t, priv, [leaving.id]);
  const qAlice = await openQueue(t.client(alice), { event_types: ['subscription'] });
  const qBob = await openQueue(t.client(bob), { event_types: ['subscription'] });
  assertSuccess(await t.client(t.owner).delete(`/users/${leaving.id}`));
  const mine = (e: any) => e.stream_ids[0] === sid || e.stream_ids[0] === priv;
  const removed = (await qAlice.ofType('subscription')).filter((e) => e.op === 'peer_remove' && mine(e));
  assert.deepEqual(removed.map((e) => e.stream_ids[0]).sort(), [sid, priv].sort());
  for (const e of removed) assert.deepEqual(e.user_ids, [leaving.id]);
  // Bob sees the public channel's subscribers only.
  assert.deepEqual((await qBob.ofType('subscription')).filter(mine).map((e) => [e.op, e.stream_ids[0]]), [['peer_remove', sid]]);
  assertSuccess(await t.client(t.owner).post(`/users/${leaving.id}/reactivate`));
  const added = (await qAlice.ofType('subscription')).filter((e) => e.op === 'peer_add' && mine(e));
  assert.deepEqual(added.map((e) => e.stream_ids[0]).sort(), [sid, priv].sort());
});

test('deactivation (FL 377/428): peer_remove for archived channels too, to clients that declared archived_channels', async () => {
  const live = await makeChannel(t, { name: 'peers-live', subscribers: [alice.id] });
  const archived = await makeChannel(t, { name: 'peers-archived', subscribers: [alice.id] });
  const archivedPrivate = await makeChannel(t, { name: 'peers-archived-private', inviteOnly: true, subscribers: [alice.id] });
  const leaving = await t.makeUser({ name: 'Leaving archived' });
  const { subscribe } = await import('./messages-fixtures.ts');
  for (const sid of [live, archived, archivedPrivate]) await subscribe(t, sid, [leaving.id]);
  for (const sid of [archived, archivedPrivate]) assertSuccess(await t.client(t.owner).delete(`/streams/${sid}`));
  const capable = await openQueue(t.client(alice), { event_types: ['subscription'], client_capabilities: { archived_channels: true } });
  const legacy = await openQueue(t.client(alice), { event_types: ['subscription'] });
  const bobCapable = await openQueue(t.client(bob), { event_types: ['subscription'], client_capabilities: { archived_channels: true } });
  assertSuccess(await t.client(t.owner).delete(`/users/${leaving.id}`));
  const mine = (e: any) => [live, archived, archivedPrivate].includes(e.stream_ids[0]);
  const peers = async (q: typeof capable) => (await q.ofType('subscription')).filter(mine).map((e) => [e.op, e.stream_ids, e.user_ids]);
  assert.deepEqual(
    (await peers(capable)).sort((a: any, b: any) => a[1][0] - b[1][0]),
    [live, archived, archivedPrivate].map((sid) => ['peer_remove', [sid], [leaving.id]]),
  );
  // Clients without archived_channels know no archived channel.
  assert.deepEqual(await peers(legacy), [['peer_remove', [live], [leaving.id]]]);
  // Bob sees the subscribers of the public ones only.
  assert.deepEqual((await peers(bobCapable)).sort((a: any, b: any) => a[1][0] - b[1][0]), [live, archived].map((sid) => ['peer_remove', [sid], [leaving.id]]));
});

test('personal topic policies move with the whole topic, merging into an existing one', async () => {
  const sid = await makeChannel(t, { name: 'policies', subscribers: [alice.id, bob.id, carol.id] });
  // Only the policies set here (starting a topic would follow it).
  await t.setUserSetting(alice, 'automatically_follow_topics_policy', 4);
  const a = t.client(alice);
  const first = assertSuccess(await a.post('/messages', { type: 'stream', to: sid, topic: 'old', content: 'x' })).id;
  assertSuccess(await a.post('/messages', { type: 'stream', to: sid, topic: 'existing', content: 'y' }));
  assertSuccess(await a.post('/user_topics', { stream_id: sid, topic: 'old', visibility_policy: 3 })); // followed
  assertSuccess(await t.client(bob).post('/user_topics', { stream_id: sid, topic: 'old', visibility_policy: 1 })); // muted
  assertSuccess(await t.client(bob).post('/user_topics', { stream_id: sid, topic: 'existing', visibility_policy: 2 })); // unmuted
  assertSuccess(await t.client(carol).post('/user_topics', { stream_id: sid, topic: 'old', visibility_policy: 1 }));
  const qAlice = await openQueue(a, { event_types: ['user_topic'] });

  // Renamed to a new topic: policies move unchanged.
  assertSuccess(await a.patch(`/messages/${first}`, { topic: 'renamed', propagate_mode: 'change_all', send_notification_to_old_thread: false, send_notification_to_new_thread: false }));
  const evs = await qAlice.ofType('user_topic');
  assert.deepEqual(evs.map((e) => [e.topic_name, e.visibility_policy]), [['old', 0], ['renamed', 3]]);
  const policies = async (acc: Account) =>
    (assertSuccess(await t.client(acc).post('/register', { fetch_event_types: ['user_topic'] })).user_topics as any[])
      .filter((r) => r.stream_id === sid)
      .map((r) => [r.topic_name, r.visibility_policy])
      .sort();
  assert.deepEqual(await policies(alice), [['renamed', 3]]);

  // Merged into a topic with messages: the more visible policy wins (unmuted over muted), muted+nothing → nothing.
  assertSuccess(await a.patch(`/messages/${first}`, { topic: 'existing', propagate_mode: 'change_all', send_notification_to_old_thread: false, send_notification_to_new_thread: false }));
  assert.deepEqual(await policies(bob), [['existing', 2]]);
  assert.deepEqual(await policies(carol), []);
  assert.deepEqual(await policies(alice), []);
});

test('automatic topic policies: starting a topic follows it (automatic_new_visibility_policy), mentions follow', async () => {
  const sid = await makeChannel(t, { name: 'auto-follow', subscribers: [alice.id, bob.id, carol.id] });
  await t.setUserSetting(alice, 'automatically_follow_topics_policy', 3); // Zulip's default: topics the user starts
  const qAlice = await openQueue(t.client(alice), { event_types: ['message', 'user_topic'] });
  const qCarol = await openQueue(t.client(carol), { event_types: ['message', 'user_topic'] });
  const sent = assertSuccess(await t.client(alice).post('/messages', { type: 'stream', to: sid, topic: 'new plans', content: 'hi @**Carol**' }));
  const first = sent.id;
  // The answer says so too (Zulip's automatic_new_visibility_policy, feature level 218).
  assert.equal(sent.automatic_new_visibility_policy, 3);
  const evs = await qAlice.drain();
  const ut = evs.find((e) => e.type === 'user_topic');
  assert.deepEqual({ ...ut, id: 0, last_updated: 0 }, { type: 'user_topic', id: 0, stream_id: sid, topic_name: 'new plans', last_updated: 0, visibility_policy: 3 });
  const msg = evs.find((e) => e.type === 'message');
  assert.equal(msg.message.id, first);
  assert.equal(msg.automatic_new_visibility_policy, 3);
  // Carol was mentioned: she follows the topic too; her message event has no automatic policy.
  const cevs = await qCarol.drain();
  assert.equal(cevs.find((e) => e.type === 'user_topic').visibility_policy, 3);
  assert.equal(cevs.find((e) => e.type === 'message').automatic_new_visibility_policy, undefined);
  // A second message in a followed topic changes nothing (the answer has no automatic_new_visibility_policy).
  assert.equal('automatic_new_visibility_policy' in assertSuccess(await t.client(alice).post('/messages', { type: 'stream', to: sid, topic: 'new plans', content: 'again' })), false);
  const again = await qAlice.drain();
  assert.deepEqual(again.filter((e) => e.type === 'user_topic'), []);
  assert.equal(again.find((e) => e.type === 'message').automatic_new_visibility_policy, undefined);
  // Bob replying in a topic he did not start: nothing with the default (on initiation).
  const qBob = await openQueue(t.client(bob), { event_types: ['user_topic'] });
  assertSuccess(await t.client(bob).post('/messages', { type: 'stream', to: sid, topic: 'new plans', content: 'me too' }));
  assert.deepEqual(await qBob.ofType('user_topic'), []);
  // "Topics I send a message to" follows on any message; "never" does nothing.
  await t.setUserSetting(bob, 'automatically_follow_topics_policy', 2);
  assertSuccess(await t.client(bob).post('/messages', { type: 'stream', to: sid, topic: 'new plans', content: 'and again' }));
  assert.equal((await qBob.ofType('user_topic'))[0].visibility_policy, 3);
  await t.setUserSetting(bob, 'automatically_follow_topics_policy', 4);
  assertSuccess(await t.client(bob).post('/messages', { type: 'stream', to: sid, topic: 'bob starts', content: 'x' }));
  assert.deepEqual(await qBob.ofType('user_topic'), []);
});

test('automatic unmute in a muted channel', async () => {
  const sid = await makeChannel(t, { name: 'auto-unmute', subscribers: [bob.id] });
  assertSuccess(await t.client(bob).post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: sid, property: 'is_muted', value: true }] }));
  await t.setUserSetting(bob, 'automatically_follow_topics_policy', 4);
  const q = await openQueue(t.client(bob), { event_types: ['user_topic'] });
  assert.equal(assertSuccess(await t.client(bob).post('/messages', { type: 'stream', to: sid, topic: 'muted chan', content: 'x' })).automatic_new_visibility_policy, 2);
  assert.equal((await q.ofType('user_topic'))[0].visibility_policy, 2);
});

test('the Welcome Bot greets new users, then sends the custom welcome text', async () => {
  const { setRealmSetting } = await import('./messages-fixtures.ts');
  await setRealmSetting(t, 'welcome_message_custom_text', 'Read #**general** first!');
  const created = assertSuccess(await t.client(t.owner).post('/users', { email: 'welcomed@example.org', password: 'a-long-enough-password-1', full_name: 'Welcomed' }));
  const rows = await t.server.svc.store.db.selectFrom('users').selectAll().where('id', '=', created.user_id).executeTakeFirstOrThrow();
  const newbie: Account = { id: rows.id, email: rows.delivery_email, apiKey: rows.api_key, row: rows };
  const got = assertSuccess(await t.client(newbie).get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, apply_markdown: false }));
  const fromBot = got.messages.filter((m: any) => m.sender_email === 'welcome-bot@zulip.com');
  assert.equal(fromBot.length, 2);
  assert.equal(
    fromBot[0].content,
    "Hi, and welcome! I'm Welcome Bot, and this direct message is just for you.\n\n" +
      `New here? The [getting started guide](${t.url}/help/getting-started-with-zulip) walks you through the basics.\n\n` +
      'Want a hand? Reply to this message (click it, or press `r`) with one of these words: `apps`, `profile`, `theme`, `channels`, `topics`, `message formatting`, `keyboard shortcuts`, `help`.',
  );
  assert.equal(fromBot[1].content, 'Read #**general** first!');
  assert.equal(fromBot[0].type, 'private');
  // The greeting is starred for the new user (as Zulip does); the custom text is not.
  assert.ok(fromBot[0].flags.includes('starred'), String(fromBot[0].flags));
  assert.ok(!fromBot[1].flags.includes('starred'), String(fromBot[1].flags));
  const starred = assertSuccess(await t.client(newbie).post('/register', { fetch_event_types: ['starred_messages'] })).starred_messages;
  assert.deepEqual(starred, [fromBot[0].id]);
  const reg = assertSuccess(await t.client(newbie).post('/register', { fetch_event_types: ['realm_user'] }));
  assert.ok(reg.cross_realm_bots.some((b: any) => b.email === 'welcome-bot@zulip.com'));
  await setRealmSetting(t, 'welcome_message_custom_text', '');
});

test('send_new_subscription_messages: Notification Bot tells users who subscribed them', async () => {
  const one = await makeChannel(t, { name: 'subs-one', subscribers: [alice.id] });
  await makeChannel(t, { name: 'subs-two', subscribers: [alice.id] });
  void one;
  const target = await t.makeUser({ name: 'Subscribed' });
  const q = await openQueue(t.client(target), { event_types: ['message'] });
  const res = assertSuccess(await t.client(alice).post('/users/me/subscriptions', { subscriptions: [{ name: 'subs-one' }], principals: [target.id] }));
  assert.equal(res.new_subscription_messages_sent, true);
  const [ev] = await q.ofType('message');
  assert.equal(ev.message.sender_email, 'notification-bot@zulip.com');
  const raw = assertSuccess(await t.client(target).get(`/messages/${ev.message.id}`, { apply_markdown: false })).message.content;
  assert.equal(raw, `@**Alice|${alice.id}** subscribed you to the channel #**subs-one**.`);
  assertSuccess(await t.client(alice).post('/users/me/subscriptions', { subscriptions: [{ name: 'subs-two' }, { name: 'subs-new' }], principals: [target.id] }));
  const raw2 = assertSuccess(await t.client(target).get(`/messages/${(await q.ofType('message'))[0].message.id}`, { apply_markdown: false })).message.content;
  // Newly created channels are not mentioned.
  assert.equal(raw2, `@**Alice|${alice.id}** subscribed you to the channel #**subs-two**.`);
  // Off: no message, and no new_subscription_messages_sent.
  const off = assertSuccess(await t.client(alice).post('/users/me/subscriptions', { subscriptions: [{ name: 'subs-three' }, { name: 'subs-one' }], principals: [bob.id], send_new_subscription_messages: false }));
  assert.equal(off.new_subscription_messages_sent, undefined);
  // Subscribing yourself sends no direct message (only the new channel's notice of its creation, already read).
  const qAlice = await openQueue(t.client(alice), { event_types: ['message'] });
  assertSuccess(await t.client(alice).post('/users/me/subscriptions', { subscriptions: [{ name: 'subs-four' }] }));
  assert.deepEqual(
    (await qAlice.ofType('message')).map((e) => [e.message.type, e.message.display_recipient, e.message.subject, e.flags]),
    [['stream', 'subs-four', 'channel events', ['read']]],
  );
});

/** The confirmation link of the latest email-change mail to `address` (from the server's emails.log). */
function confirmationLinkTo(address: string): string {
  const mails = readFileSync(join(t.server.svc.config.dataDir, 'emails.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const mail = mails.filter((x) => x.to.includes(address)).pop();
  const m = /\/accounts\/confirm_new_email\/([a-z0-9]+)\//.exec(mail.text);
  assert.ok(m, mail.text);
  return `${t.url}/accounts/confirm_new_email/${m[1]}/`;
}

test('email change through PATCH /settings: confirmation link to the new address, then the change and its events', async () => {
  const { assertError } = await import('./helpers.ts');
  const { setRealmSetting } = await import('./messages-fixtures.ts');
  const mover = await t.makeUser({ name: 'Mover', email: 'mover-old@example.org' });
  const c = t.client(mover);
  assertError(await c.patch('/settings', { email: 'not an address' }), 400, 'BAD_REQUEST', 'Invalid address.');
  assertError(await c.patch('/settings', { email: alice.email }), 400, 'BAD_REQUEST', 'Already has an account.');
  await setRealmSetting(t, 'email_changes_disabled', true);
  assertError(await c.patch('/settings', { email: 'mover-new@example.org' }), 400, 'BAD_REQUEST', 'Email address changes are disabled in this organization.');
  await setRealmSetting(t, 'email_changes_disabled', false);

  const res = await c.patch('/settings', { email: 'mover-new@example.org' });
  assertSuccess(res);
  // Nothing changes before the link is opened.
  assert.equal(assertSuccess(await c.get('/users/me')).email, 'mover-old@example.org');
  const link = confirmationLinkTo('mover-new@example.org');

  const qBob = await openQueue(t.client(bob), { event_types: ['realm_user'] });
  const page = await fetch(link);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /Email address changed/);
  // API clients now authenticate with the new address.
  assert.equal(assertSuccess(await t.client({ ...mover, email: 'mover-new@example.org' }).get('/users/me')).email, 'mover-new@example.org');
  const evs = await qBob.ofType('realm_user');
  assert.ok(evs.some((e) => e.person.user_id === mover.id && e.person.delivery_email === 'mover-new@example.org'));
  assert.ok(evs.some((e) => e.person.user_id === mover.id && e.person.new_email === 'mover-new@example.org'));
  // The old address is told; the link works once.
  assert.ok(readFileSync(join(t.server.svc.config.dataDir, 'emails.log'), 'utf8').includes('notify_change_in_email'));
  assert.equal((await fetch(link)).status, 410);
  assert.equal((await fetch(`${t.url}/accounts/confirm_new_email/nosuchkey/`)).status, 404);
});

test('two confirmation links for one new address opened at the same moment: one changes, the other finds it taken', async () => {
  for (let round = 0; round < 3; round++) {
    const wanted = `wanted-${round}@example.org`;
    const movers = await Promise.all([0, 1, 2].map((i) => t.makeUser({ name: `Claimant ${round}.${i}` })));
    const links: string[] = [];
    for (const u of movers) {
      assertSuccess(await t.client(u).patch('/settings', { email: wanted }));
      links.push(confirmationLinkTo(wanted));
    }
    const pages = await Promise.all(links.map((l) => fetch(l)));
    const texts = await Promise.all(pages.map((p) => p.text()));
    assert.deepEqual(pages.map((p) => p.status).sort(), [200, 400, 400], `round ${round}`);
    for (let i = 0; i < pages.length; i++) if (pages[i].status === 400) assert.match(texts[i], /Already has an account\./);
    const holders = [];
    // (The owner asks: the one who moved now signs in with the new address.)
    for (const u of movers) if (assertSuccess(await t.client(t.owner).get(`/users/${u.id}`)).user.delivery_email === wanted) holders.push(u.id);
    assert.equal(holders.length, 1, 'one account has the address');
  }
});
