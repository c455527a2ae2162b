/** Subscriptions: subscribe/unsubscribe (legacy), lists, subscriber lists, personal settings; their events; posting rules. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account, streamIdOf } from './helpers.ts';
import { ROLE } from '../src/store/users.ts';
import { accessStreamById, canPost, canReadFullHistory } from '../src/actions/access.ts';
import { Groups } from '../src/actions/group-settings.ts';

let t: TestServer;
let admin: Account;
let member: Account;
let other: Account;
let guest: Account;
let bot: Account;
before(async () => {
  t = await startTestServer();
  admin = await t.makeUser({ role: ROLE.ADMINISTRATOR, name: 'Admin' });
  member = await t.makeUser({ name: 'Member' });
  other = await t.makeUser({ name: 'Other' });
  guest = await t.makeUser({ role: ROLE.GUEST, name: 'Guest' });
  bot = await t.makeUser({ isBot: true, botOwnerId: 0 || undefined, name: 'A Bot' });
});
after(() => t.close());

const c = (a: Account) => t.client(a);
let n = 0;
const uniq = (p: string) => `${p} ${++n}`;

async function create(by: Account, params: Record<string, unknown>): Promise<number> {
  const res = await c(by).post('/channels/create', { subscribers: [by.id], ...params });
  return assertSuccess(res).id;
}

test('POST /users/me/subscriptions: creates missing channels, subscribes, reports already_subscribed', async () => {
  const name = uniq('legacy');
  const res = await c(member).post('/users/me/subscriptions', { subscriptions: [{ name, description: 'd', color: '#123456' }] });
  assertSchema(res, 'POST', '/users/me/subscriptions');
  assert.deepEqual(assertSuccess(res).subscribed, { [String(member.id)]: [name] });
  assert.deepEqual(res.body.already_subscribed, {});
  const again = await c(member).post('/users/me/subscriptions', { subscriptions: [{ name }] });
  assert.deepEqual(assertSuccess(again).already_subscribed, { [String(member.id)]: [name] });
  const subs = assertSuccess(await c(member).get('/users/me/subscriptions')).subscriptions;
  const sub = subs.find((s: any) => s.name === name);
  assert.equal(sub.color, '#123456');
  assert.equal(sub.description, 'd');
  assert.equal(sub.creator_id, member.id);
  // Another member joins the public channel by name.
  const join = await c(other).post('/users/me/subscriptions', { subscriptions: [{ name }] });
  assert.deepEqual(assertSuccess(join).subscribed, { [String(other.id)]: [name] });
  assertError(await c(member).post('/users/me/subscriptions', { subscriptions: [{ name: '' }] }), 400, 'BAD_REQUEST', "Channel name can't be empty!");
  assertError(await c(guest).post('/users/me/subscriptions', { subscriptions: [{ name: uniq('guest new') }] }), 400, 'BAD_REQUEST', 'Insufficient permission');
});

test('subscribing others: principals, permissions, events (add to them, peer_add to others)', async () => {
  const id = await create(member, { name: uniq('principals') });
  const name = assertSuccess(await c(member).get(`/streams/${id}`)).stream.name;
  const qOther = await openQueue(c(other), { event_types: ['subscription'] });
  const qAdmin = await openQueue(c(admin), { event_types: ['subscription'] });
  const qGuest = await openQueue(c(guest), { event_types: ['subscription'] });
  const res = await c(member).post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [other.email] });
  assert.deepEqual(assertSuccess(res).subscribed, { [String(other.id)]: [name] });
  const add = await qOther.ofType('subscription');
  assert.equal(add.length, 1);
  assert.equal(add[0].op, 'add');
  assert.equal(add[0].subscriptions[0].stream_id, id);
  assert.deepEqual(add[0].subscriptions[0].subscribers, [member.id, other.id]);
  const peer = await qAdmin.ofType('subscription');
  assert.deepEqual(peer.map((e) => [e.op, e.stream_ids, e.user_ids]), [['peer_add', [id], [other.id]]]);
  assert.equal((await qGuest.drain()).length, 0);
  assertError(await c(guest).post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [admin.id] }), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertError(await c(member).post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [424242] }), 400, 'BAD_REQUEST', 'No such user');
  // Guests subscribed by a member see the channel from then on.
  assertSuccess(await c(member).post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [guest.id] }));
  const ge = await qGuest.drain();
  assert.ok(ge.some((e) => e.type === 'subscription' && e.op === 'add'));
});

test('private channels: unauthorized subscriptions, fatal or listed; channel admins may add', async () => {
  const name = uniq('secret');
  const id = await create(member, { name, invite_only: true });
  assertError(await c(other).post('/users/me/subscriptions', { subscriptions: [{ name }] }), 400, 'BAD_REQUEST', `Unable to access channel (${name}).`);
  const nf = await c(other).post('/users/me/subscriptions', { subscriptions: [{ name }], authorization_errors_fatal: false });
  assert.deepEqual(assertSuccess(nf).unauthorized, [name]);
  assert.deepEqual(nf.body.subscribed, {});
  // The creator administers the channel and may add others; they get a stream create first.
  const qOther = await openQueue(c(other), { event_types: ['stream', 'subscription'] });
  assertSuccess(await c(member).post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [other.id] }));
  const evs = await qOther.drain();
  assert.deepEqual(evs.map((e) => `${e.type}:${e.op}`), ['stream:create', 'subscription:add']);
  assert.equal(evs[0].streams[0].stream_id, id);
  // An administrator may subscribe people to a private channel; can_subscribe_group lets a member join.
  const name2 = uniq('secret2');
  const id2 = await create(member, { name: name2, invite_only: true, can_subscribe_group: { direct_members: [other.id], direct_subgroups: [] } });
  assertSuccess(await c(admin).post('/users/me/subscriptions', { subscriptions: [{ name: name2 }], principals: [admin.id] }));
  assert.deepEqual(assertSuccess(await c(other).post('/users/me/subscriptions', { subscriptions: [{ name: name2 }] })).subscribed, { [String(other.id)]: [name2] });
  assert.deepEqual(assertSuccess(await c(member).get(`/streams/${id2}/members`)).subscribers, [admin.id, member.id, other.id]);
});

test('DELETE /users/me/subscriptions: removed / not_removed, permissions, events', async () => {
  const name = uniq('leave');
  const id = await create(member, { name, subscribers: [member.id, other.id] });
  const qOther = await openQueue(c(other), { event_types: ['subscription', 'stream'] });
  const qAdmin = await openQueue(c(admin), { event_types: ['subscription'] });
  const res = await c(member).delete('/users/me/subscriptions', { subscriptions: [name] });
  assertSchema(res, 'DELETE', '/users/me/subscriptions');
  assert.deepEqual(assertSuccess(res), { result: 'success', msg: '', removed: [name], not_removed: [] });
  assert.deepEqual((await qOther.ofType('subscription')).map((e) => [e.op, e.stream_ids, e.user_ids]), [['peer_remove', [id], [member.id]]]);
  assert.equal((await qAdmin.ofType('subscription'))[0].op, 'peer_remove');
  const again = await c(member).delete('/users/me/subscriptions', { subscriptions: [name] });
  assert.deepEqual(assertSuccess(again).not_removed, [name]);
  assertError(await c(member).delete('/users/me/subscriptions', { subscriptions: ['no such channel zz'] }), 400, 'BAD_REQUEST', 'Channel(s) (no such channel zz) do not exist');
  // Removing others needs can_remove_subscribers_group (administrators by default) or channel administration.
  assertError(await c(guest).delete('/users/me/subscriptions', { subscriptions: [name], principals: [other.id] }), 400, 'BAD_REQUEST', 'Channel(s) (' + name + ') do not exist');
  const qSelf = await openQueue(c(other), { event_types: ['subscription'] });
  assertSuccess(await c(admin).delete('/users/me/subscriptions', { subscriptions: [name], principals: [other.id] }));
  const rm = await qSelf.ofType('subscription');
  assert.deepEqual(rm.map((e) => [e.op, e.subscriptions]), [['remove', [{ name, stream_id: id }]]]);
  const third = uniq('keep');
  await create(other, { name: third, subscribers: [other.id, member.id] });
  assertError(await c(member).delete('/users/me/subscriptions', { subscriptions: [third], principals: [other.id] }), 400, 'BAD_REQUEST', 'Insufficient permission');
});

test('leaving a private channel: stream delete to the user who lost access; unsubscribed state', async () => {
  const name = uniq('private leave');
  const id = await create(member, { name, invite_only: true, subscribers: [member.id, other.id] });
  const q = await openQueue(c(other), { event_types: ['stream', 'subscription'] });
  assertSuccess(await c(other).delete('/users/me/subscriptions', { subscriptions: [name] }));
  const evs = await q.drain();
  assert.deepEqual(evs.map((e) => `${e.type}:${e.op}`), ['subscription:remove', 'stream:delete']);
  const st = await openQueue(c(other), { fetch_event_types: ['subscription'] });
  assert.ok(!st.state.unsubscribed.some((s: any) => s.stream_id === id));
  assert.ok(!st.state.never_subscribed.some((s: any) => s.stream_id === id));
  // The channel's creator still sees it; a public channel left shows in unsubscribed.
  const pubName = uniq('public leave');
  const pub = await create(member, { name: pubName, subscribers: [member.id, other.id] });
  assertSuccess(await c(other).delete('/users/me/subscriptions', { subscriptions: [pubName] }));
  const st2 = await openQueue(c(other), { fetch_event_types: ['subscription'] });
  assert.ok(st2.state.unsubscribed.some((s: any) => s.stream_id === pub));
});

test('GET /users/me/subscriptions: include_subscribers false/true/partial; register subscription state', async () => {
  const id = await create(member, { name: uniq('subs list'), subscribers: [member.id, other.id, bot.id] });
  const plain = await c(member).get('/users/me/subscriptions');
  assertSchema(plain, 'GET', '/users/me/subscriptions');
  const s0 = assertSuccess(plain).subscriptions.find((s: any) => s.stream_id === id);
  assert.equal(s0.subscribers, undefined);
  for (const k of ['color', 'is_muted', 'in_home_view', 'pin_to_top', 'desktop_notifications', 'audible_notifications', 'push_notifications', 'email_notifications', 'wildcard_mentions_notify', 'stream_weekly_traffic', 'first_message_id', 'rendered_description', 'date_created', 'creator_id', 'is_recently_active', 'topics_policy', 'folder_id', 'can_delete_any_message_group']) {
    assert.ok(k in s0, k);
  }
  const full = await c(member).get('/users/me/subscriptions', { include_subscribers: true });
  assertSchema(full, 'GET', '/users/me/subscriptions');
  assert.deepEqual(full.body.subscriptions.find((s: any) => s.stream_id === id).subscribers, [member.id, other.id, bot.id]);
  // Small channels get full lists even with partial.
  const partial = await c(member).get('/users/me/subscriptions', { include_subscribers: 'partial' });
  assert.deepEqual(partial.body.subscriptions.find((s: any) => s.stream_id === id).subscribers, [member.id, other.id, bot.id]);
  assertError(await c(member).get('/users/me/subscriptions', { include_subscribers: 'maybe' }), 400, 'BAD_REQUEST', 'Invalid include_subscribers');
  const reg = await openQueue(c(member), { fetch_event_types: ['subscription'], include_subscribers: true });
  assert.deepEqual(reg.state.subscriptions.find((s: any) => s.stream_id === id).subscribers, [member.id, other.id, bot.id]);
  const never = await openQueue(c(admin), { fetch_event_types: ['subscription'] });
  assert.ok(never.state.never_subscribed.some((s: any) => s.stream_id === id));
});

test('GET /streams/{id}/members and GET /users/{user_id}/subscriptions/{stream_id}', async () => {
  const id = await create(member, { name: uniq('members'), invite_only: true, subscribers: [member.id, other.id] });
  const res = await c(other).get(`/streams/${id}/members`);
  assertSchema(res, 'GET', '/streams/{stream_id}/members');
  assert.deepEqual(assertSuccess(res).subscribers, [member.id, other.id]);
  assertError(await c(guest).get(`/streams/${id}/members`), 400, 'BAD_REQUEST', 'Invalid channel ID');
  const st = await c(member).get(`/users/${other.id}/subscriptions/${id}`);
  assertSchema(st, 'GET', '/users/{user_id}/subscriptions/{stream_id}');
  assert.equal(assertSuccess(st).is_subscribed, true);
  assert.equal(assertSuccess(await c(member).get(`/users/${admin.id}/subscriptions/${id}`)).is_subscribed, false);
  assertError(await c(member).get(`/users/999999/subscriptions/${id}`), 400, 'BAD_REQUEST', 'No such user');
  assertError(await c(guest).get(`/users/${other.id}/subscriptions/${id}`), 400, 'BAD_REQUEST', 'Invalid channel ID');
});

test('PATCH /users/me/subscriptions/{id}: each property, value types, is_muted/in_home_view events', async () => {
  const id = await create(member, { name: uniq('props') });
  const q = await openQueue(c(member), { event_types: ['subscription'] });
  const qOther = await openQueue(c(other), { event_types: ['subscription'] });
  const res = await c(member).patch(`/users/me/subscriptions/${id}`, { property: 'is_muted', value: true });
  assertSuccess(res);
  const evs = await q.ofType('subscription');
  assert.deepEqual(evs.map((e) => [e.op, e.stream_id, e.property, e.value]), [
    ['update', id, 'is_muted', true],
    ['update', id, 'in_home_view', false],
  ]);
  assert.equal((await qOther.drain()).length, 0);
  assertSuccess(await c(member).patch(`/users/me/subscriptions/${id}`, { property: 'in_home_view', value: true }));
  assert.deepEqual((await q.ofType('subscription')).map((e) => [e.property, e.value]), [['in_home_view', true], ['is_muted', false]]);
  for (const [property, value] of [['color', '#abcdef'], ['pin_to_top', true], ['desktop_notifications', false], ['audible_notifications', true], ['push_notifications', true], ['email_notifications', false], ['wildcard_mentions_notify', true]] as const) {
    assertSuccess(await c(member).patch(`/users/me/subscriptions/${id}`, { property, value }));
  }
  const sub = assertSuccess(await c(member).get('/users/me/subscriptions')).subscriptions.find((s: any) => s.stream_id === id);
  assert.deepEqual(
    [sub.color, sub.pin_to_top, sub.desktop_notifications, sub.audible_notifications, sub.push_notifications, sub.email_notifications, sub.wildcard_mentions_notify, sub.is_muted],
    ['#abcdef', true, false, true, true, false, true, false],
  );
  assertError(await c(member).patch(`/users/me/subscriptions/${id}`, { property: 'bogus', value: true }), 400, 'BAD_REQUEST', 'Unknown subscription property: bogus');
  assertError(await c(member).patch(`/users/me/subscriptions/${id}`, { property: 'color', value: 'red' }), 400, 'BAD_REQUEST', 'color is not a valid hex color code');
  assertError(await c(member).patch(`/users/me/subscriptions/${id}`, { property: 'pin_to_top', value: 'yes' }), 400, 'BAD_REQUEST', 'pin_to_top is not a boolean');
  assertError(await c(other).patch(`/users/me/subscriptions/${id}`, { property: 'pin_to_top', value: true }), 400, 'BAD_REQUEST', `Not subscribed to channel ID ${id}`);
  assertError(await c(member).patch('/users/me/subscriptions/999999', { property: 'pin_to_top', value: true }), 400, 'BAD_REQUEST', 'Invalid channel ID');
});

test('POST /users/me/subscriptions/properties: bulk updates', async () => {
  const a = await create(member, { name: uniq('bulk a') });
  const b = await create(member, { name: uniq('bulk b') });
  const q = await openQueue(c(member), { event_types: ['subscription'] });
  const res = await c(member).post('/users/me/subscriptions/properties', {
    subscription_data: [
      { stream_id: a, property: 'pin_to_top', value: true },
      { stream_id: b, property: 'is_muted', value: true },
      { stream_id: b, property: 'color', value: '#000000' },
    ],
  });
  assertSchema(res, 'POST', '/users/me/subscriptions/properties');
  assertSuccess(res);
  assert.equal((await q.ofType('subscription')).length, 4);
  const subs = assertSuccess(await c(member).get('/users/me/subscriptions')).subscriptions;
  assert.equal(subs.find((s: any) => s.stream_id === a).pin_to_top, true);
  assert.equal(subs.find((s: any) => s.stream_id === b).is_muted, true);
  assert.equal(subs.find((s: any) => s.stream_id === b).color, '#000000');
  assertError(
    await c(member).post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: a, property: 'is_muted' }] }),
    400,
    'BAD_REQUEST',
    'subscription_data[0]["value"] field is missing',
  );
});

test('colours: new subscriptions pick an unused palette colour', async () => {
  const u = await t.makeUser({ name: 'Colourful' });
  const colors = new Set<string>();
  for (let i = 0; i < 3; i++) {
    await create(member, { name: uniq('colour'), subscribers: [u.id] });
  }
  for (const s of assertSuccess(await c(u).get('/users/me/subscriptions')).subscriptions) colors.add(s.color);
  // The first colour went to "general", the default channel every new user joins.
  assert.deepEqual([...colors], ['#76ce90', '#fae589', '#a6c7e5', '#e79ab5']);
});

test('channel-access rules: posting and history (used by the message layer)', async () => {
  const svc = t.server.svc;
  const db = svc.store.db;
  const pub = await create(member, { name: uniq('post pub') });
  const priv = await create(member, { name: uniq('post priv'), invite_only: true });
  const admins = assertSuccess(await c(t.owner).get('/user_groups')).user_groups.find((g: any) => g.name === 'role:administrators').id;
  const announce = await create(admin, { name: uniq('post admins'), can_send_message_group: admins });
  const groups = await Groups.load(db, svc.realmId);
  const access = (a: Account, id: number) => accessStreamById(svc, db, a.row, id, groups);
  assert.equal(canPost(other.row, await access(other, pub), groups), true);
  assert.equal(canPost(member.row, await access(member, priv), groups), true);
  await assert.rejects(access(other, priv));
  const adminPriv = await access(admin, priv);
  assert.equal(adminPriv.metadata, true);
  assert.equal(adminPriv.content, false);
  assert.equal(canPost(admin.row, adminPriv, groups), false);
  assert.equal(canPost(member.row, await access(member, announce), groups), false);
  assert.equal(canPost(admin.row, await access(admin, announce), groups), true);
  assert.equal(canReadFullHistory(await access(other, pub)), true);
  assert.equal(canReadFullHistory(await access(member, priv)), false);
  await assert.rejects(access(guest, pub));
});

test('include_subscribers=partial: channels with 250+ subscribers list bots and recently active users', async () => {
  const many: number[] = [];
  for (let i = 0; i < 250; i++) many.push((await t.makeUser({ name: `Crowd ${i}` })).id);
  const id = await create(member, { name: uniq('crowd'), subscribers: [...many, bot.id] });
  // A message sent now makes its sender "recently active" (presence counts too when present).
  await t.server.svc.store.db
    .insertInto('messages')
    .values({ realm_id: t.server.svc.realmId, sender_id: many[7], recipient_type: 2, recipient_id: id, topic: 't', content: 'x', rendered_content: '<p>x</p>', date_sent: Date.now() / 1000 })
    .execute();
  const res = await c(bot).get('/users/me/subscriptions', { include_subscribers: 'partial' });
  const sub = assertSuccess(res).subscriptions.find((s: any) => s.stream_id === id);
  assert.equal(sub.subscribers, undefined);
  assert.deepEqual(sub.partial_subscribers, [many[7], bot.id].sort((a, b) => a - b));
  assert.equal(sub.subscriber_count, 251);
  assert.equal(sub.first_message_id !== null, true);
  const full = await c(bot).get('/users/me/subscriptions', { include_subscribers: true });
  assert.equal(full.body.subscriptions.find((s: any) => s.stream_id === id).subscribers.length, 251);
});

test('a new organization has "general" (default) and "core team" (private); new users join the default channels', async () => {
  const ownerSubs = assertSuccess(await c(t.owner).get('/users/me/subscriptions')).subscriptions.map((s: any) => s.name);
  assert.ok(ownerSubs.includes('general') && ownerSubs.includes('core team'));
  const streams = assertSuccess(await c(t.owner).get('/streams', { include_all: true })).streams;
  const general = streams.find((s: any) => s.name === 'general');
  const core = streams.find((s: any) => s.name === 'core team');
  assert.equal(general.invite_only, false);
  assert.equal(core.invite_only, true);
  const q = await openQueue(c(t.owner), { fetch_event_types: ['default_streams', 'realm'] });
  assert.deepEqual(q.state.realm_default_streams, [general.stream_id]);
  assert.equal(q.state.realm_new_stream_announcements_stream_id, general.stream_id);
  assert.equal(q.state.realm_signup_announcements_stream_id, core.stream_id);
  const watcher = await openQueue(c(t.owner), { event_types: ['subscription'] });
  const fresh = await t.makeUser({ name: 'Newcomer' });
  const subs = assertSuccess(await c(fresh).get('/users/me/subscriptions')).subscriptions.map((s: any) => s.name);
  assert.ok(subs.includes('general'));
  assert.ok(!subs.includes('core team'));
  const peer = (await watcher.ofType('subscription')).find((e) => e.op === 'peer_add');
  assert.deepEqual(peer && { stream_ids: peer.stream_ids, user_ids: peer.user_ids }, { stream_ids: [general.stream_id], user_ids: [fresh.id] });
});

test('a first start that stopped after creating the organization, before its channels: the next start makes them', async () => {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { openStore } = await import('../src/store/db.ts');
  const { migrate } = await import('../src/store/migrations.ts');
  const { ensureRealm } = await import('../src/actions/realm.ts');
  const { startServer } = await import('../src/server.ts');
  const { Client, createPgSchema, dropPgSchema } = await import('./helpers.ts');
  const base = t.server.svc.config;
  const config = { ...base, dataDir: mkdtempSync(join(tmpdir(), 'parley-first-start-')), port: 0 };
  if (base.databaseUrl) {
    config.pgSchema = `${base.pgSchema}_again`;
    await createPgSchema(base.databaseUrl, config.pgSchema);
  }
  try {
    // What the first start had done when it stopped: the organization and its owner.
    const store = openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, pgSchema: config.pgSchema });
    await migrate(store);
    const boot = await ensureRealm(store, config);
    await store.close();
    const ownerRow = boot.created!.owner;
    const server = await startServer(config);
    try {
      const owner = new Client(server.url, { email: ownerRow.delivery_email, apiKey: ownerRow.api_key });
      const subs = assertSuccess(await owner.get('/users/me/subscriptions')).subscriptions.map((s: any) => s.name).sort();
      assert.deepEqual(subs, ['core team', 'general']);
      const q = await openQueue(owner, { fetch_event_types: ['default_streams'] });
      assert.equal(q.state.realm_default_streams.length, 1);
    } finally {
      await server.close();
    }
    // And only then: a start with channels makes no more.
    const again = await startServer(config);
    try {
      const owner = new Client(again.url, { email: ownerRow.delivery_email, apiKey: ownerRow.api_key });
      const names = assertSuccess(await owner.get('/streams', { include_all: true })).streams.map((s: any) => s.name).sort();
      assert.deepEqual(names, ['core team', 'general']);
    } finally {
      await again.close();
    }
  } finally {
    rmSync(config.dataDir, { recursive: true, force: true });
    if (base.databaseUrl) await dropPgSchema(base.databaseUrl, config.pgSchema!);
  }
});

test('register: the can_create_*_streams booleans follow the organization group settings', async () => {
  const g = await t.makeUser({ name: 'Guesty', role: ROLE.GUEST });
  const m = await t.makeUser({ name: 'Membery' });
  const gs = (await openQueue(c(g), { fetch_event_types: ['realm_user'] })).state;
  const ms = (await openQueue(c(m), { fetch_event_types: ['realm_user'] })).state;
  const os = (await openQueue(c(t.owner), { fetch_event_types: ['realm_user'] })).state;
  assert.deepEqual([gs.can_create_public_streams, gs.can_create_private_streams], [false, false]);
  assert.deepEqual([ms.can_create_public_streams, ms.can_create_private_streams], [true, true]);
  // can_subscribe_other_users is gone since feature level 341.
  assert.equal(ms.can_subscribe_other_users, undefined);
  assert.equal(ms.can_create_web_public_streams, false);
  assert.equal(os.can_create_web_public_streams, false, 'web-public channels are off on this server');
});

test('one user subscribing to one channel from several requests at once, and a new channel asked for by several: each answered, done once', async () => {
  for (const fresh of [false, true]) {
    const name = uniq('subscribed at once');
    if (!fresh) assertSuccess(await c(admin).post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name }]) }));
    const results = await Promise.all(Array.from({ length: 4 }, () => c(member).post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name }]) })));
    for (const r of results) assertSuccess(r);
    const subscribed = results.filter((r) => Object.keys(r.body.subscribed).length > 0);
    assert.equal(subscribed.length, 1, 'subscribed by one request; the others find it done');
    for (const r of results.filter((x) => x !== subscribed[0])) assert.deepEqual(Object.values(r.body.already_subscribed), [[name]]);
    const streams = (assertSuccess(await c(admin).get('/streams')).streams as Array<{ name: string }>).filter((s) => s.name === name);
    assert.equal(streams.length, 1);
  }
});

test('/register without notification_settings_null: subscription settings that follow the default are the default\'s value', async () => {
  const u = await t.makeUser({ name: 'Old App User' });
  const name = uniq('old app');
  const id = await create(u, { name });
  assertSuccess(await c(u).patch('/settings', { enable_stream_push_notifications: true, enable_stream_audible_notifications: false }));
  assertSuccess(await c(u).patch(`/users/me/subscriptions/${id}`, { property: 'desktop_notifications', value: true }));
  const settingsOf = async (caps: Record<string, boolean>) => {
    const reg = assertSuccess(await c(u).post('/register', { fetch_event_types: ['subscription'], client_capabilities: caps }));
    const sub = reg.subscriptions.find((s: any) => s.stream_id === id);
    return [sub.desktop_notifications, sub.audible_notifications, sub.push_notifications, sub.email_notifications, sub.wildcard_mentions_notify];
  };
  // Zulip fills in the four notification settings (wildcard_mentions_notify stays as it is).
  assert.deepEqual(await settingsOf({}), [true, false, true, false, null]);
  assert.deepEqual(await settingsOf({ notification_settings_null: true }), [true, null, null, null, null]);
  // Channels left too.
  assertSuccess(await c(u).delete('/users/me/subscriptions', { subscriptions: [name] }));
  const reg = assertSuccess(await c(u).post('/register', { fetch_event_types: ['subscription'] }));
  assert.equal(reg.unsubscribed.find((s: any) => s.stream_id === id).push_notifications, true);
});

test('principals by email (feature level 302): a real address only when its email visibility lets the caller see it; a dummy address always', async () => {
  const name = uniq('principal emails');
  await create(admin, { name });
  const host = new URL(t.url).hostname;
  const adminsOnly = await t.makeUser({ name: 'Hidden Address' });
  assertSuccess(await c(adminsOnly).patch('/settings', { email_address_visibility: 3 }));
  const real = assertSuccess(await c(admin).get(`/users/${adminsOnly.id}`)).user.delivery_email;
  // A member may not name the user by an address it may not see.
  assertError(await c(member).post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [real] }), 400, 'BAD_REQUEST', 'No such user');
  assert.deepEqual(assertSuccess(await c(admin).get(`/streams/${await streamIdOf(c(admin), name)}/members`)).subscribers, [admin.id]);
  // The dummy address names it for anyone; an administrator may also use the real one.
  const dummy = await c(member).post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [`user${adminsOnly.id}@${host}`] });
  assert.deepEqual(assertSuccess(dummy).subscribed, { [String(adminsOnly.id)]: [name] });
  assertSuccess(await c(admin).delete('/users/me/subscriptions', { subscriptions: [name], principals: [real.toUpperCase()] }));
  assertError(await c(member).delete('/users/me/subscriptions', { subscriptions: [name], principals: [real] }), 400, 'BAD_REQUEST', 'No such user');
});

test('archived channels (FL 362): subscribing and unsubscribing, self and others, as in other channels; only archived_channels clients hear of it', async () => {
  const name = uniq('archived subs');
  const id = await create(member, { name, subscribers: [member.id] });
  assertSuccess(await c(member).delete(`/streams/${id}`));
  const types = { event_types: ['subscription', 'stream'] };
  const otherCap = await openQueue(c(other), { ...types, client_capabilities: { archived_channels: true } });
  const otherOld = await openQueue(c(other), types);
  const memberCap = await openQueue(c(member), { ...types, client_capabilities: { archived_channels: true } });
  const memberOld = await openQueue(c(member), types);
  const ops = (evs: Record<string, any>[]) => evs.map((e) => [`${e.type}:${e.op}`, e.stream_ids ?? e.subscriptions?.map((s: any) => s.stream_id), e.user_ids]);

  // Joining by oneself, as a public channel.
  assert.deepEqual(assertSuccess(await c(other).post('/users/me/subscriptions', { subscriptions: [{ name }] })).subscribed, { [String(other.id)]: [name] });
  assert.deepEqual(ops(await otherCap.drain()), [['subscription:add', [id], undefined]]);
  assert.deepEqual(ops(await memberCap.drain()), [['subscription:peer_add', [id], [other.id]]]);
  // Subscribing someone else, by the channel's administrator.
  assert.deepEqual(assertSuccess(await c(member).post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [admin.id] })).subscribed, {
    [String(admin.id)]: [name],
  });
  assert.deepEqual(ops(await memberCap.drain()), [['subscription:peer_add', [id], [admin.id]]]);
  assert.deepEqual(ops(await otherCap.drain()), [['subscription:peer_add', [id], [admin.id]]]);
  assert.deepEqual(assertSuccess(await c(member).get(`/streams/${id}/members`)).subscribers, [admin.id, member.id, other.id]);
  // A client that declared archived_channels lists it among the subscriptions; one that did not, nowhere.
  const capState = await openQueue(c(other), { fetch_event_types: ['subscription'], client_capabilities: { archived_channels: true } });
  assert.ok(capState.state.subscriptions.some((s: any) => s.stream_id === id && s.is_archived));
  // A personal setting of the subscription.
  assertSuccess(await c(other).post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: id, property: 'pin_to_top', value: true }] }));
  assert.deepEqual((await otherCap.drain()).map((e) => [e.op, e.stream_id, e.property, e.value]), [['update', id, 'pin_to_top', true]]);
  // Leaving, and removing someone else.
  assert.deepEqual(assertSuccess(await c(other).delete('/users/me/subscriptions', { subscriptions: [name] })).removed, [name]);
  assert.deepEqual(ops(await otherCap.drain()), [['subscription:remove', [id], undefined]]);
  assert.deepEqual(ops(await memberCap.drain()), [['subscription:peer_remove', [id], [other.id]]]);
  assert.deepEqual(assertSuccess(await c(member).delete('/users/me/subscriptions', { subscriptions: [name], principals: [admin.id] })).removed, [name]);
  assert.deepEqual(ops(await memberCap.drain()), [['subscription:peer_remove', [id], [admin.id]]]);
  assert.deepEqual(assertSuccess(await c(member).get(`/streams/${id}/members`)).subscribers, [member.id]);
  // The permissions are those of any channel: a guest may not subscribe others.
  assertError(await c(guest).post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [admin.id] }), 400, 'BAD_REQUEST', 'Insufficient permission');
  // Clients without archived_channels were told nothing of all this.
  assert.deepEqual(await otherOld.drain(), []);
  assert.deepEqual(await memberOld.drain(), []);
});

test('archived private channels (FL 362): a new subscriber gets the channel and its subscription only with archived_channels', async () => {
  const name = uniq('archived secret');
  const id = await create(member, { name, invite_only: true, subscribers: [member.id] });
  assertSuccess(await c(member).delete(`/streams/${id}`));
  const types = { event_types: ['subscription', 'stream'] };
  const cap = await openQueue(c(other), { ...types, client_capabilities: { archived_channels: true } });
  const old = await openQueue(c(other), types);
  // Not a subscriber and no access: as for any private channel.
  assertError(await c(other).post('/users/me/subscriptions', { subscriptions: [{ name }] }), 400, 'BAD_REQUEST', `Unable to access channel (${name}).`);
  assertSuccess(await c(member).post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [other.id] }));
  const evs = await cap.drain();
  assert.deepEqual(evs.map((e) => `${e.type}:${e.op}`), ['stream:create', 'subscription:add']);
  assert.equal(evs[0].streams[0].stream_id, id);
  assert.equal(evs[0].streams[0].is_archived, true);
  assertSuccess(await c(other).delete('/users/me/subscriptions', { subscriptions: [name] }));
  assert.deepEqual((await cap.drain()).map((e) => `${e.type}:${e.op}`), ['subscription:remove', 'stream:delete']);
  assert.deepEqual(await old.drain(), []);
});

test('register (FL 362): never_subscribed has the archived channels one may see, for clients that declared archived_channels', async () => {
  const name = uniq('archived never');
  const id = await create(member, { name, subscribers: [member.id] });
  assertSuccess(await c(member).delete(`/streams/${id}`));
  const fresh = await t.makeUser({ name: uniq('Newcomer') });
  const cap = await openQueue(c(fresh), { fetch_event_types: ['subscription'], client_capabilities: { archived_channels: true } });
  const found = cap.state.never_subscribed.find((s: any) => s.stream_id === id);
  assert.equal(found?.is_archived, true);
  const old = await openQueue(c(fresh), { fetch_event_types: ['subscription'] });
  assert.ok(!old.state.never_subscribed.some((s: any) => s.stream_id === id));
});
