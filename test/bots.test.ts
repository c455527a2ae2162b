/** Bots: POST/GET /bots, PATCH/DELETE /bots/{id}, API key regeneration, realm_bot events and state. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, assertComponent, type TestServer, type Account, streamIdOf } from './helpers.ts';
import { ROLE } from '../src/store/users.ts';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(() => t.close());

const c = (a: Account) => t.client(a);
const EVENTS = { event_types: ['realm_user', 'realm_bot'] };
const host = () => new URL(t.url).hostname;
let n = 0;
const short = () => `b${++n}x${Date.now().toString(36)}`;

async function roles() {
  return {
    admin: await t.makeUser({ role: ROLE.ADMINISTRATOR }),
    moderator: await t.makeUser({ role: ROLE.MODERATOR }),
    member: await t.makeUser({ role: ROLE.MEMBER }),
    guest: await t.makeUser({ role: ROLE.GUEST }),
  };
}

test('POST /bots: generic bot; response shape; realm_user add to all, realm_bot add to admins and owner only', async () => {
  const { admin, member, moderator } = await roles();
  const qa = await openQueue(c(admin), EVENTS);
  const qo = await openQueue(c(member), EVENTS);
  const qm = await openQueue(c(moderator), EVENTS);
  const s = short();
  const res = await c(member).post('/bots', { full_name: `Bot ${s}`, short_name: s });
  const body = assertSuccess(res);
  assert.deepEqual(Object.keys(body).sort(), [
    'api_key', 'avatar_url', 'default_all_public_streams', 'default_events_register_stream', 'default_sending_stream', 'msg', 'result', 'user_id',
  ]);
  assert.match(body.api_key, /^[A-Za-z0-9]{32}$/);
  assert.equal(body.default_sending_stream, null);
  assert.equal(body.default_events_register_stream, null);
  assert.equal(body.default_all_public_streams, false);
  assert.match(body.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\//);
  const email = `${s}-bot@${host()}`;

  for (const q of [qa, qo]) {
    const evs = await q.drain();
    assert.deepEqual(evs.map((e) => [e.type, e.op]), [['realm_user', 'add'], ['realm_bot', 'add']]);
    assert.equal(evs[0].person.user_id, body.user_id);
    assert.equal(evs[0].person.is_bot, true);
    assert.equal(evs[0].person.bot_type, 1);
    assert.equal(evs[0].person.bot_owner_id, member.id);
    assert.equal(evs[0].person.email, email);
    // Feature level 474: the name, address, type, owner, picture, state and API key are not in it.
    assert.deepEqual(evs[1].bot, {
      user_id: body.user_id,
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
      services: [],
    });
    assertComponent(evs[1].bot, 'Bot');
  }
  assert.deepEqual((await qm.drain()).map((e) => [e.type, e.op]), [['realm_user', 'add']]);

  // The bot authenticates with its email and key; user objects carry bot_type and bot_owner_id.
  const bot = { email, apiKey: body.api_key };
  const me = assertSuccess(await t.client(bot).get('/users/me'));
  assert.equal(me.is_bot, true);
  const seen = assertSuccess(await c(moderator).get(`/users/${body.user_id}`)).user;
  assert.equal(seen.bot_type, 1);
  assert.equal(seen.bot_owner_id, member.id);
});

test('POST /bots: incoming webhook bot', async () => {
  const { member } = await roles();
  const s = short();
  const body = assertSuccess(await c(member).post('/bots', { full_name: `Hook ${s}`, short_name: s, bot_type: 2 }));
  const u = assertSuccess(await c(member).get(`/users/${body.user_id}`)).user;
  assert.equal(u.bot_type, 2);
  assert.equal(u.email, `${s}-bot@${host()}`);
});

test('POST /bots: outgoing webhook bot lists its service in realm_bot', async () => {
  const { admin } = await roles();
  const qa = await openQueue(c(admin), EVENTS);
  const s = short();
  const body = assertSuccess(
    await c(admin).post('/bots', { full_name: `Out ${s}`, short_name: s, bot_type: 3, payload_url: JSON.stringify('https://hooks.example.com/x'), interface_type: 2 }),
  );
  const add = (await qa.ofType('realm_bot'))[0];
  assert.equal(add.bot.user_id, body.user_id);
  assert.equal(add.bot.services.length, 1);
  assert.equal(add.bot.services[0].base_url, 'https://hooks.example.com/x');
  assert.equal(add.bot.services[0].interface, 2);
  assert.match(add.bot.services[0].token, /^[A-Za-z0-9]{32}$/);
  assertError(
    await c(admin).post('/bots', { full_name: `Bad ${s}`, short_name: `${s}z`, bot_type: 3, payload_url: 'not a url' }),
    400,
    'BAD_REQUEST',
    'payload_url is not valid JSON',
  );
  assertError(
    await c(admin).post('/bots', { full_name: `Bad ${s}`, short_name: `${s}z`, bot_type: 3, payload_url: '"nope"' }),
    400,
    'BAD_REQUEST',
    'payload_url is not a URL',
  );
});

test('POST /bots: errors as Zulip', async () => {
  const { member, guest } = await roles();
  const m = c(member);
  const s = short();
  assertSuccess(await m.post('/bots', { full_name: `Taken ${s}`, short_name: s }));
  assertError(await m.post('/bots', { full_name: `Other ${s}`, short_name: s }), 400, 'BAD_REQUEST', 'Username already in use');
  assertError(await m.post('/bots', { full_name: `Taken ${s}`, short_name: `${s}2` }), 400, 'BAD_REQUEST', 'Name is already in use!');
  assertError(await m.post('/bots', { full_name: 'Blank', short_name: '   ' }), 400, 'BAD_REQUEST', 'Bad name or username');
  assertError(await m.post('/bots', { full_name: 'Spaces', short_name: 'has space' }), 400, 'BAD_REQUEST', 'Bad name or username');
  assertError(await m.post('/bots', { full_name: '', short_name: `${s}3` }), 400, 'BAD_REQUEST', 'Name too short!');
  assertError(await m.post('/bots', { full_name: 'Embedded', short_name: `${s}4`, bot_type: 4 }), 400, 'BAD_REQUEST', 'Embedded bots are not enabled.');
  assertError(await m.post('/bots', { full_name: 'Typed', short_name: `${s}5`, bot_type: 9 }), 400, 'BAD_REQUEST', 'Invalid bot type');
  assertError(await m.post('/bots', { full_name: 'Iface', short_name: `${s}6`, interface_type: 7 }), 400, 'BAD_REQUEST', 'Invalid interface type');
  assertError(await m.post('/bots', { short_name: `${s}7` }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'full_name' argument");
  assertError(await c(guest).post('/bots', { full_name: 'Guest Bot', short_name: `${s}8` }), 400, 'BAD_REQUEST', 'Not allowed for guest users');
  const bot = await t.makeUser({ isBot: true, botOwnerId: member.id });
  assertError(await c(bot).post('/bots', { full_name: 'Bot Bot', short_name: `${s}9` }), 400, 'BAD_REQUEST', 'This endpoint does not accept bot requests.');
});

test('GET /bots: the caller\'s active bots only', async () => {
  const { member, admin, guest } = await roles();
  const s = short();
  const mine = assertSuccess(await c(member).post('/bots', { full_name: `Mine ${s}`, short_name: s }));
  const gone = assertSuccess(await c(member).post('/bots', { full_name: `Gone ${s}`, short_name: `${s}g` }));
  assertSuccess(await c(admin).post('/bots', { full_name: `Admins ${s}`, short_name: `${s}a` }));
  assertSuccess(await c(member).delete(`/bots/${gone.user_id}`));
  const body = assertSuccess(await c(member).get('/bots'));
  assert.deepEqual(body.bots, [
    {
      username: `${s}-bot@${host()}`,
      full_name: `Mine ${s}`,
      api_key: mine.api_key,
      avatar_url: mine.avatar_url,
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
    },
  ]);
  assertError(await c(guest).get('/bots'), 400, 'BAD_REQUEST', 'Not allowed for guest users');
});

test('register: realm_bots lists all bots for administrators (not the system bots), own bots for others', async () => {
  const { member, admin, moderator } = await roles();
  const s = short();
  const mine = assertSuccess(await c(member).post('/bots', { full_name: `Reg ${s}`, short_name: s }));
  const reg = async (a: Account) => assertSuccess(await c(a).post('/register', { fetch_event_types: ['realm_bot'] })).realm_bots as any[];
  const forMember = await reg(member);
  assert.deepEqual(forMember, [
    { user_id: mine.user_id, default_sending_stream: null, default_events_register_stream: null, default_all_public_streams: false, services: [] },
  ]);
  const forAdmin = await reg(admin);
  assert.ok(forAdmin.some((b) => b.user_id === mine.user_id));
  // Not the system bots (Welcome Bot, Notification Bot...): Zulip keeps them in a realm of their own (cross_realm_bots).
  const system = assertSuccess(await c(admin).post('/register', { fetch_event_types: ['realm_user'] })).cross_realm_bots as any[];
  assert.ok(system.length > 0);
  for (const b of system) assert.ok(!forAdmin.some((x) => x.user_id === b.user_id), `${b.email} in realm_bots`);
  assert.ok(!(await reg(moderator)).some((b) => b.user_id === mine.user_id));
});

test('PATCH /bots/{id}: full_name; realm_user update to all (no realm_bot update since feature level 474)', async () => {
  const { member, admin, moderator } = await roles();
  const s = short();
  const b = assertSuccess(await c(member).post('/bots', { full_name: `Patch ${s}`, short_name: s }));
  const qa = await openQueue(c(admin), EVENTS);
  const qo = await openQueue(c(member), EVENTS);
  const qm = await openQueue(c(moderator), EVENTS);
  const res = assertSuccess(await c(member).patch(`/bots/${b.user_id}`, { full_name: `Patched ${s}` }));
  assert.equal(res.full_name, `Patched ${s}`);
  assert.equal(res.bot_owner, member.email);
  assert.equal(res.service_interface, 1);
  assert.equal(res.service_payload_url, null);
  assert.equal(res.config_data, null);
  for (const q of [qa, qo, qm]) {
    assert.deepEqual((await q.drain()).map((e) => [e.type, e.op, e.person]), [['realm_user', 'update', { user_id: b.user_id, full_name: `Patched ${s}` }]]);
  }
  // Same name: silently ignored.
  assertSuccess(await c(member).patch(`/bots/${b.user_id}`, { full_name: `Patched ${s}` }));
  assert.deepEqual(await qo.drain(), []);
});

test('PATCH /bots/{id}: who may edit, and errors', async () => {
  const { member, admin, moderator, guest } = await roles();
  const other = await t.makeUser();
  const s = short();
  const b = assertSuccess(await c(member).post('/bots', { full_name: `Perm ${s}`, short_name: s }));
  assertError(await c(moderator).patch(`/bots/${b.user_id}`, { full_name: 'X' }), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertError(await c(other).patch(`/bots/${b.user_id}`, { full_name: 'X' }), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertError(await c(guest).patch(`/bots/${b.user_id}`, { full_name: 'X' }), 400, 'BAD_REQUEST', 'Not allowed for guest users');
  assertError(await c(admin).patch('/bots/999999', { full_name: 'X' }), 400, 'BAD_REQUEST', 'No such bot');
  assertError(await c(admin).patch(`/bots/${member.id}`, { full_name: 'X' }), 400, 'BAD_REQUEST', 'No such bot');
  assertError(await c(admin).patch(`/bots/${b.user_id}`, { full_name: t.owner.row.full_name }), 400, 'BAD_REQUEST', 'Name is already in use!');
  assertError(await c(admin).patch(`/bots/${b.user_id}`, { bot_owner_id: 999999 }), 400, 'BAD_REQUEST', 'Failed to change owner, no such user');
  assertError(await c(admin).patch(`/bots/${b.user_id}`, { bot_owner_id: b.user_id }), 400, 'BAD_REQUEST', "Failed to change owner, bots can't own other bots");
  const gone = await t.makeUser();
  assertSuccess(await c(admin).delete(`/users/${gone.id}`));
  assertError(await c(admin).patch(`/bots/${b.user_id}`, { bot_owner_id: gone.id }), 400, 'BAD_REQUEST', 'Failed to change owner, user is deactivated');
  // Roles: the owning member may not change it; administrators may (not to owner).
  assertError(await c(member).patch(`/bots/${b.user_id}`, { role: ROLE.MODERATOR }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  assertError(await c(admin).patch(`/bots/${b.user_id}`, { role: ROLE.OWNER }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
  assertSuccess(await c(admin).patch(`/bots/${b.user_id}`, { role: ROLE.MODERATOR }));
  assert.equal(assertSuccess(await c(member).get(`/users/${b.user_id}`)).user.role, ROLE.MODERATOR);
});

test('PATCH /bots/{id}: a refused request changes nothing, whichever of its parts is refused', async () => {
  const { member, admin } = await roles();
  const s = short();
  const b = assertSuccess(await c(member).post('/bots', { full_name: `Whole ${s}`, short_name: s, bot_type: 3, payload_url: JSON.stringify('http://hook.example/') }));
  const q = await openQueue(c(admin), EVENTS);
  // What administrators are shown of bots (with the services), and the user.
  const state = async () => {
    const reg = assertSuccess(await c(admin).post('/register', { fetch_event_types: JSON.stringify(['realm_bot']) }));
    const bot = reg.realm_bots.find((x: { user_id: number }) => x.user_id === b.user_id);
    assert.ok(bot, 'the bot in realm_bots');
    return { bot, user: assertSuccess(await c(admin).get(`/users/${b.user_id}`)).user };
  };
  const before = await state();
  const refused: Array<[Record<string, unknown>, string, string]> = [
    [{ full_name: 'Renamed bot', role: ROLE.OWNER }, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner'],
    [{ full_name: 'Renamed bot', role: ROLE.MODERATOR, bot_owner_id: 999999 }, 'BAD_REQUEST', 'Failed to change owner, no such user'],
    [{ full_name: 'Renamed bot', bot_owner_id: admin.id, default_sending_stream: 'no such channel' }, 'BAD_REQUEST', "Invalid channel name 'no such channel'"],
    [{ full_name: 'Renamed bot', default_all_public_streams: true, service_payload_url: JSON.stringify('http://other.example/'), service_interface: 9 }, 'BAD_REQUEST', 'Invalid interface type'],
  ];
  for (const [params, code, msg] of refused) assertError(await c(admin).patch(`/bots/${b.user_id}`, params), 400, code, msg);
  assert.deepEqual(await state(), before);
  assert.deepEqual(await q.drain(), []);
  // The same changes, valid, all made.
  const res = assertSuccess(
    await c(admin).patch(`/bots/${b.user_id}`, {
      full_name: 'Renamed bot',
      role: ROLE.MODERATOR,
      bot_owner_id: admin.id,
      default_all_public_streams: true,
      service_payload_url: JSON.stringify('http://other.example/'),
      service_interface: 2,
    }),
  );
  assert.equal(res.full_name, 'Renamed bot');
  assert.equal(res.bot_owner, admin.email);
  const now = await state();
  assert.equal(now.user.role, ROLE.MODERATOR);
  assert.equal(now.bot.default_all_public_streams, true);
  assert.deepEqual(now.bot.services, [{ base_url: 'http://other.example/', interface: 2, token: before.bot.services[0].token }]);
});

test('PATCH /bots/{id}: short_name changes the bot\'s email (feature level 447); realm_user updates, no realm_bot update', async () => {
  const { member, admin, guest } = await roles();
  const s = short();
  const b = assertSuccess(await c(member).post('/bots', { full_name: `Short ${s}`, short_name: s }));
  const taken = short();
  assertSuccess(await c(member).post('/bots', { full_name: `Taken ${taken}`, short_name: taken }));
  const qs = await Promise.all([admin, member, guest].map((a) => openQueue(c(a), EVENTS)));
  const renamed = `${s}-renamed`;
  const newEmail = `${renamed}-bot@${host()}`;
  const res = assertSuccess(await c(member).patch(`/bots/${b.user_id}`, { short_name: `  ${renamed} ` }));
  assert.equal(res.full_name, `Short ${s}`);
  const avatar = assertSuccess(await c(admin).get(`/users/${b.user_id}`, { client_gravatar: false })).user.avatar_url;
  for (const q of qs) {
    assert.deepEqual((await q.drain()).map((e) => [e.type, e.op, e.person]), [
      ['realm_user', 'update', { user_id: b.user_id, delivery_email: newEmail }],
      ['realm_user', 'update', { user_id: b.user_id, avatar_source: 'G', avatar_url: avatar, avatar_url_medium: avatar, avatar_version: 1 }],
      ['realm_user', 'update', { user_id: b.user_id, new_email: newEmail }],
    ]);
  }
  const u = assertSuccess(await c(guest).get(`/users/${b.user_id}`)).user;
  assert.equal(u.email, newEmail);
  assert.equal(assertSuccess(await c(admin).get(`/users/${b.user_id}`)).user.delivery_email, newEmail);
  assert.deepEqual(assertSuccess(await c(member).get('/bots')).bots.filter((x: any) => x.full_name === `Short ${s}`).map((x: any) => x.username), [newEmail]);
  // The same address again: nothing to change, no event.
  assertSuccess(await c(member).patch(`/bots/${b.user_id}`, { short_name: renamed }));
  assert.deepEqual(await qs[1].drain(), []);

  // Errors, and a refused request changes nothing.
  for (const [short_name, msg] of [['   ', 'Bad name or username'], ['a b', 'Bad name or username'], [taken, 'Username already in use']]) {
    assertError(await c(member).patch(`/bots/${b.user_id}`, { full_name: `Other ${s}`, short_name }), 400, 'BAD_REQUEST', msg);
  }
  // An address of a deactivated account is taken too.
  const gone = short();
  const g = assertSuccess(await c(member).post('/bots', { full_name: `Gone ${gone}`, short_name: gone }));
  assertSuccess(await c(member).delete(`/bots/${g.user_id}`));
  for (const q of qs) await q.drain();
  assertError(await c(member).patch(`/bots/${b.user_id}`, { short_name: gone }), 400, 'BAD_REQUEST', 'Username already in use');
  const after = assertSuccess(await c(admin).get(`/users/${b.user_id}`)).user;
  assert.equal(after.email, newEmail);
  assert.equal(after.full_name, `Short ${s}`);
  assert.deepEqual(await qs[0].drain(), []);
});

test('PATCH /bots/{id}: changing the owner sends realm_bot delete/add to non-administrators, realm_user update to all', async () => {
  const { member, admin } = await roles();
  const newOwner = await t.makeUser();
  const bystander = await t.makeUser();
  const s = short();
  const b = assertSuccess(await c(member).post('/bots', { full_name: `Own ${s}`, short_name: s }));
  const qa = await openQueue(c(admin), EVENTS);
  const qold = await openQueue(c(member), EVENTS);
  const qnew = await openQueue(c(newOwner), EVENTS);
  const qby = await openQueue(c(bystander), EVENTS);
  const res = assertSuccess(await c(member).patch(`/bots/${b.user_id}`, { bot_owner_id: newOwner.id }));
  assert.equal(res.bot_owner, newOwner.email);
  const userUpdate = ['realm_user', 'update', { user_id: b.user_id, bot_owner_id: newOwner.id }];
  assert.deepEqual((await qold.drain()).map((e) => [e.type, e.op, e.person ?? e.bot]), [['realm_bot', 'delete', { user_id: b.user_id }], userUpdate]);
  const newEvents = await qnew.drain();
  assert.deepEqual(newEvents.map((e) => [e.type, e.op]), [['realm_bot', 'add'], ['realm_user', 'update']]);
  assert.equal(newEvents[0].bot.user_id, b.user_id);
  // Administrators list every bot already; since feature level 474 no realm_bot update with owner_id.
  assert.deepEqual((await qa.drain()).map((e) => [e.type, e.op, e.person ?? e.bot]), [userUpdate]);
  assert.deepEqual((await qby.drain()).map((e) => [e.type, e.op, e.person]), [userUpdate]);
  // The previous owner no longer administers it.
  assertError(await c(member).patch(`/bots/${b.user_id}`, { full_name: 'Back' }), 400, 'BAD_REQUEST', 'Insufficient permission');
  assert.equal(assertSuccess(await c(newOwner).get('/bots')).bots.length, 1);
});

test('POST /bots/{id}/api_key/regenerate: new key; no event (feature level 474)', async () => {
  const { member, admin, moderator } = await roles();
  const s = short();
  const b = assertSuccess(await c(member).post('/bots', { full_name: `Key ${s}`, short_name: s }));
  const email = `${s}-bot@${host()}`;
  const qa = await openQueue(c(admin), EVENTS);
  const qm = await openQueue(c(moderator), EVENTS);
  const res = assertSuccess(await c(member).post(`/bots/${b.user_id}/api_key/regenerate`));
  assert.match(res.api_key, /^[A-Za-z0-9]{32}$/);
  assert.notEqual(res.api_key, b.api_key);
  assert.equal(assertSuccess(await c(member).get(`/bots/${b.user_id}/api_key`)).api_key, res.api_key);
  assertError(await t.client({ email, apiKey: b.api_key }).get('/users/me'), 401, 'UNAUTHORIZED', 'Invalid API key');
  assertSuccess(await t.client({ email, apiKey: res.api_key }).get('/users/me'));
  assertError(await c(moderator).post(`/bots/${b.user_id}/api_key/regenerate`), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertError(await c(admin).post('/bots/999999/api_key/regenerate'), 400, 'BAD_REQUEST', 'No such bot');
  // A bot may regenerate its own key through /users/me.
  const own = assertSuccess(await t.client({ email, apiKey: res.api_key }).post('/users/me/api_key/regenerate'));
  assert.equal(assertSuccess(await c(member).get(`/bots/${b.user_id}/api_key`)).api_key, own.api_key);
  for (const q of [qa, qm]) assert.deepEqual(await q.drain(), []);
});

test('DELETE /bots/{id}: owner or admin deactivates; events; key stops working', async () => {
  const { member, admin, moderator } = await roles();
  const s = short();
  const b = assertSuccess(await c(member).post('/bots', { full_name: `Del ${s}`, short_name: s }));
  const email = `${s}-bot@${host()}`;
  assertError(await c(moderator).delete(`/bots/${b.user_id}`), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertError(await c(admin).delete(`/bots/${member.id}`), 400, 'BAD_REQUEST', 'No such bot');
  const qa = await openQueue(c(admin), EVENTS);
  const qm = await openQueue(c(moderator), EVENTS);
  assertSuccess(await c(member).delete(`/bots/${b.user_id}`));
  // realm_user update only: since feature level 474 no realm_bot update with is_active.
  for (const q of [qa, qm]) assert.deepEqual((await q.drain()).map((e) => [e.type, e.op, e.person]), [['realm_user', 'update', { user_id: b.user_id, is_active: false }]]);
  assertError(await t.client({ email, apiKey: b.api_key }).get('/users/me'), 401, 'USER_DEACTIVATED');
  // Its owner may reactivate it (Zulip's can_admin_user).
  assertSuccess(await c(member).post(`/users/${b.user_id}/reactivate`));
});

test('bot_creation_policy is gone (Zulip, feature level 344): can_create_bots_group and can_create_write_only_bots_group decide', async () => {
  const { member } = await roles();
  const { updateRealm, realmById } = await import('../src/store/realm.ts');
  const svc = t.server.svc;
  const realm = await realmById(svc.store.db, svc.realmId);
  const groups = assertSuccess(await c(t.owner).get('/user_groups')).user_groups;
  const id = (n: string) => groups.find((g: any) => g.name === n).id;
  try {
    // A value stored before the change restricts nothing any more.
    await updateRealm(svc.store.db, svc.realmId, { settings_json: JSON.stringify({ ...JSON.parse(realm.settings_json || '{}'), bot_creation_policy: 3 }) });
    const s = short();
    assertSuccess(await c(member).post('/bots', { full_name: `P ${s}`, short_name: s }));
    assertSuccess(await c(t.owner).patch('/realm', { can_create_bots_group: { new: id('role:administrators') } }));
    assertError(await c(member).post('/bots', { full_name: `Q ${s}`, short_name: `${s}q` }), 400, 'BAD_REQUEST', 'Insufficient permission');
    assertSuccess(await c(member).post('/bots', { full_name: `Q ${s}`, short_name: `${s}q`, bot_type: 2 }));
  } finally {
    await updateRealm(svc.store.db, svc.realmId, { settings_json: realm.settings_json });
  }
});

test('bots default channels: set by name on creation and PATCH, shown by name, realm_bot update, private bots, and the default register narrow', async () => {
  const { member, admin, moderator } = await roles();
  const s = short();
  const channel = async (name: string, who: Account[], invite_only = false) => {
    assertSuccess(
      await c(who[0]).post('/users/me/subscriptions', {
        subscriptions: JSON.stringify([{ name }]),
        principals: JSON.stringify(who.map((a) => a.id)),
        invite_only: JSON.stringify(invite_only),
      }),
    );
    return await streamIdOf(c(who[0]), name);
  };
  const alpha = `alpha ${s}`;
  const beta = `beta ${s}`;
  await channel(alpha, [member]);
  const betaId = await channel(beta, [member]);
  const secret = `secret ${s}`;
  await channel(secret, [admin], true);
  const mine = `mine ${s}`;
  await channel(mine, [member], true);

  // Unknown, private without access (an administrator's too), archived: Zulip's access_stream_by_name error.
  const archived = `gone ${s}`;
  const goneId = await channel(archived, [member]);
  assertSuccess(await c(admin).delete(`/streams/${goneId}`));
  for (const name of ['no such channel', secret, archived]) {
    assertError(await c(member).post('/bots', { full_name: `Dflt ${s}`, short_name: s, default_sending_stream: name }), 400, 'BAD_REQUEST', `Invalid channel name '${name}'`);
  }
  assertError(
    await c(moderator).post('/bots', { full_name: `Dflt ${s}`, short_name: s, default_events_register_stream: mine }),
    400,
    'BAD_REQUEST',
    `Invalid channel name '${mine}'`,
  );

  const qa = await openQueue(c(admin), EVENTS);
  const qo = await openQueue(c(member), EVENTS);
  const b = assertSuccess(
    await c(member).post('/bots', {
      full_name: `Dflt ${s}`,
      short_name: s,
      default_sending_stream: alpha,
      default_events_register_stream: alpha,
      default_all_public_streams: 'true',
    }),
  );
  assert.equal(b.default_sending_stream, alpha);
  assert.equal(b.default_events_register_stream, alpha);
  assert.equal(b.default_all_public_streams, true);
  const shown = { user_id: b.user_id, default_sending_stream: alpha, default_events_register_stream: alpha, default_all_public_streams: true, services: [] };
  for (const q of [qa, qo]) assert.deepEqual((await q.ofType('realm_bot')).map((e) => e.bot), [shown]);
  const listed = assertSuccess(await c(member).get('/bots')).bots.find((x: any) => x.full_name === `Dflt ${s}`);
  assert.equal(listed.default_sending_stream, alpha);
  assert.equal(listed.default_events_register_stream, alpha);
  const realmBots = async (a: Account) =>
    (assertSuccess(await c(a).post('/register', { fetch_event_types: JSON.stringify(['realm_bot']) })).realm_bots as any[]).find((x) => x.user_id === b.user_id);
  assert.deepEqual(await realmBots(admin), shown);

  // A bot that registers without a narrow gets its default channel's messages only.
  const bot = { email: `${s}-bot@${host()}`, apiKey: b.api_key, id: b.user_id } as Account;
  const qb = await openQueue(c(bot), { event_types: ['message'] });
  for (const to of [beta, alpha]) assertSuccess(await c(member).post('/messages', { type: 'stream', to, topic: 't', content: `to ${to}` }));
  assert.deepEqual((await qb.ofType('message')).map((e) => e.message.display_recipient), [alpha]);

  // PATCH: another channel; '' for none; each a realm_bot update to the administrators and the owner.
  const qm = await openQueue(c(moderator), EVENTS);
  const res = assertSuccess(await c(member).patch(`/bots/${b.user_id}`, { default_sending_stream: beta, default_events_register_stream: '' }));
  assert.equal(res.default_sending_stream, beta);
  assert.equal(res.default_events_register_stream, null);
  for (const q of [qa, qo]) {
    assert.deepEqual((await q.ofType('realm_bot')).map((e) => [e.op, e.bot]), [
      ['update', { user_id: b.user_id, default_sending_stream: beta }],
      ['update', { user_id: b.user_id, default_events_register_stream: null }],
    ]);
  }
  assert.deepEqual(await qm.drain(), []);
  // Without a default events channel, the bot's queue has every public channel's messages (default_all_public_streams).
  const qb2 = await openQueue(c(bot), { event_types: ['message'] });
  for (const to of [beta, alpha]) assertSuccess(await c(member).post('/messages', { type: 'stream', to, topic: 't', content: `again ${to}` }));
  assert.deepEqual((await qb2.ofType('message')).map((e) => e.message.display_recipient), [beta, alpha]);

  // A renamed channel shows under its new name.
  assertSuccess(await c(admin).patch(`/streams/${betaId}`, { new_name: `${beta} renamed` }));
  assert.equal((await realmBots(member)).default_sending_stream, `${beta} renamed`);

  // A private default channel makes a private bot: its realm_bot events go to its owner only.
  await qa.drain();
  assertSuccess(await c(member).patch(`/bots/${b.user_id}`, { default_events_register_stream: mine }));
  assert.deepEqual((await qo.ofType('realm_bot')).map((e) => e.bot), [{ user_id: b.user_id, default_events_register_stream: mine }]);
  assertSuccess(await c(member).patch(`/bots/${b.user_id}`, { default_all_public_streams: 'false' }));
  assert.deepEqual((await qo.ofType('realm_bot')).map((e) => e.bot), [{ user_id: b.user_id, default_all_public_streams: false }]);
  assert.deepEqual(await qa.ofType('realm_bot'), []);
  // Administrators still list it (they may administer every bot).
  assert.equal((await realmBots(admin)).default_events_register_stream, mine);
});

test('register: realm_incoming_webhook_bots lists the integrations this server accepts; realm_embedded_bots is empty', async () => {
  const { member } = await roles();
  const res = await c(member).post('/register', { fetch_event_types: JSON.stringify(['realm_incoming_webhook_bots', 'realm_embedded_bots']) });
  assertSchema(res, 'POST', '/register');
  const reg = assertSuccess(res);
  assert.deepEqual(reg.realm_embedded_bots, []);
  const github = reg.realm_incoming_webhook_bots.find((b: any) => b.name === 'github');
  // Zulip's shape: the event types a URL can filter on (only_events / exclude_events) and the URL's own options.
  assert.deepEqual(Object.keys(github), ['name', 'display_name', 'all_event_types', 'config_options', 'url_options']);
  assert.equal(github.display_name, 'GitHub');
  assert.ok(['push_commits', 'opened_pull_request', 'issues', 'ping'].every((e) => github.all_event_types.includes(e)), String(github.all_event_types));
  assert.deepEqual(github.config_options, []);
  assert.deepEqual(github.url_options, [
    { key: 'branches', label: '', validator: 'check_string' },
    { key: 'ignore_private_repositories', label: 'Exclude notifications from private repositories', validator: 'check_bool' },
    { key: 'include_repository_name', label: 'Include repository name in the notifications', validator: 'check_bool' },
  ]);
  const byName = (name: string) => reg.realm_incoming_webhook_bots.find((b: any) => b.name === name);
  assert.deepEqual(byName('grafana').all_event_types, ['ok', 'pending', 'alerting', 'paused', 'firing', 'resolved']);
  assert.deepEqual(byName('gitlab').url_options, [{ key: 'branches', label: '', validator: 'check_string' }]);
  assert.ok(byName('gitlab').all_event_types.includes('Merge Request Hook open'));
  // Integrations without event types or options, and Zulip's display names.
  assert.deepEqual(byName('alertmanager'), { name: 'alertmanager', display_name: 'Prometheus Alertmanager', all_event_types: null, config_options: [], url_options: [] });
  // Zulip lists Gogs's event types (in its order) and none for Gitea.
  for (const [name, display, events] of [['gogs', 'Gogs', ['issue_comment', 'issues', 'create', 'pull_request', 'push', 'release']], ['gitea', 'Gitea', null]] as const) {
    assert.deepEqual(byName(name), {
      name,
      display_name: display,
      all_event_types: events,
      config_options: [],
      url_options: [{ key: 'branches', label: '', validator: 'check_string' }],
    });
  }
  assert.deepEqual(byName('uptimerobot'), { name: 'uptimerobot', display_name: 'UptimeRobot', all_event_types: ['up', 'down'], config_options: [], url_options: [] });
  assert.deepEqual(byName('sentry'), { name: 'sentry', display_name: 'Sentry', all_event_types: null, config_options: [], url_options: [] });
  assert.equal(byName('json').display_name, 'JSON formatter');
  assert.equal(byName('slack_incoming').display_name, 'Slack-compatible webhook');
  for (const [name, display] of [['zapier', 'Zapier'], ['ifttt', 'IFTTT']]) {
    assert.deepEqual(byName(name), { name, display_name: display, all_event_types: null, config_options: [], url_options: [] });
  }
  // Each listed integration is one the server takes at /api/v1/external/<name>.
  const s = short();
  const bot = assertSuccess(await c(member).post('/bots', { full_name: `Hooks ${s}`, short_name: s, bot_type: 2 }));
  for (const { name } of reg.realm_incoming_webhook_bots) {
    const r = await fetch(`${t.url}/api/v1/external/${name}?api_key=${bot.api_key}&stream=nowhere`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    assert.notEqual(r.status, 404, name);
  }
  assert.equal(reg.realm_bots, undefined);
});

/** A bots request as multipart form data (as Zulip's web app sends a bot's avatar), with the given image files. */
async function multipart(a: Account, method: string, path: string, fields: Record<string, string>, files: Array<{ data: Buffer; type: string }>) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  files.forEach((f, i) => form.append(`file-${i}`, new Blob([new Uint8Array(f.data)], { type: f.type }), `avatar${i}.png`));
  const client = c(a);
  const res = await fetch(`${client.base}/api/v1${path}`, { method, headers: { Authorization: client.auth! }, body: form });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), headers: res.headers, text };
}

test('bots avatars: an image uploaded with POST /bots or PATCH /bots/{id} becomes the bot\'s avatar; more than one file, or not an image, is refused and changes nothing', async () => {
  const sharp = (await import('sharp')).default;
  const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#2266aa' } }).png().toBuffer();
  const image = { data: png, type: 'image/png' };
  const size = async (url: string) => {
    const res = await fetch(new URL(url, t.url));
    assert.equal(res.status, 200, url);
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    return [meta.width, meta.height];
  };
  const { admin, member } = await roles();
  const qa = await openQueue(c(admin), { ...EVENTS, client_gravatar: false });
  const s = short();
  const created = await multipart(member, 'POST', '/bots', { full_name: `Pictured ${s}`, short_name: s }, [image]);
  const body = assertSuccess(created);
  assert.match(body.avatar_url, new RegExp(`/user_avatars/\\d+/${body.user_id}\\.png\\?version=1$`));
  assert.deepEqual(await size(body.avatar_url), [100, 100]);
  const added = (await qa.drain()).find((e) => e.type === 'realm_user' && e.op === 'add');
  assert.equal(added.person.avatar_url, body.avatar_url);
  assert.equal(assertSuccess(await c(admin).get(`/users/${body.user_id}`, { client_gravatar: false })).user.avatar_url, body.avatar_url);

  // A new picture: the realm_user avatar update (no realm_bot update since feature level 474), the new image served.
  const other = await sharp({ create: { width: 20, height: 60, channels: 3, background: '#11aa44' } }).png().toBuffer();
  const patched = assertSuccess(await multipart(member, 'PATCH', `/bots/${body.user_id}`, { full_name: `Pictured ${s} two` }, [{ data: other, type: 'image/png' }]));
  assert.match(patched.avatar_url, /\.png\?version=2$/);
  assert.equal(patched.full_name, `Pictured ${s} two`);
  const evs = await qa.drain();
  assert.deepEqual(evs.map((e) => [e.type, e.op, Object.keys(e.person ?? {}).sort().join()]), [
    ['realm_user', 'update', 'full_name,user_id'],
    ['realm_user', 'update', 'avatar_source,avatar_url,avatar_url_medium,avatar_version,user_id'],
  ]);
  assert.deepEqual(evs[1].person, {
    user_id: body.user_id,
    avatar_source: 'U',
    avatar_url: patched.avatar_url,
    avatar_url_medium: patched.avatar_url.replace('.png?', '-medium.png?'),
    avatar_version: 2,
  });
  assert.deepEqual(await size(evs[1].person.avatar_url_medium), [500, 500]);
  // Sent as a form without a file, PATCH changes no picture.
  assertSuccess(await multipart(member, 'PATCH', `/bots/${body.user_id}`, { full_name: `Pictured ${s}` }, []));
  assert.deepEqual((await qa.drain()).map((e) => [e.type, e.op, Object.keys(e.person).sort().join()]), [['realm_user', 'update', 'full_name,user_id']]);

  // Refused: more than one file, or a file that is not an image; no bot is created, no change is made.
  const before = assertSuccess(await c(member).get('/bots')).bots.length;
  const s2 = short();
  for (const [files, code, msg] of [
    [[image, image], 'BAD_REQUEST', 'You may only upload one file at a time'],
    [[{ data: Buffer.from('plain'), type: 'text/plain' }], 'BAD_IMAGE', 'Invalid image format'],
    [[{ data: Buffer.from('not an image'), type: 'image/png' }], 'BAD_IMAGE', 'Could not decode image; did you upload an image file?'],
  ] as const) {
    assertError(await multipart(member, 'POST', '/bots', { full_name: `Refused ${s2}`, short_name: s2 }, [...files]), 400, code, msg);
    assertError(await multipart(member, 'PATCH', `/bots/${body.user_id}`, { full_name: `Renamed ${s2}` }, [...files]), 400, code, msg);
  }
  assert.equal(assertSuccess(await c(member).get('/bots')).bots.length, before);
  const still = assertSuccess(await c(admin).get(`/users/${body.user_id}`, { client_gravatar: false })).user;
  assert.equal(still.full_name, `Pictured ${s}`);
  assert.equal(still.avatar_url, patched.avatar_url);
  assert.deepEqual(await qa.drain(), []);
});
