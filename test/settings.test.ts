/** PATCH /settings, PATCH /realm/user_settings_defaults: validation, permissions, events, /register state. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account, settingsAtServer } from './helpers.ts';
import { ROLE } from '../src/store/users.ts';
import { updateRealm } from '../src/store/realm.ts';

let t: TestServer;
let admin: Account, moderator: Account, member: Account, guest: Account, other: Account, bot: Account;

before(async () => {
  t = await startTestServer();
  admin = await t.makeUser({ role: ROLE.ADMINISTRATOR });
  moderator = await t.makeUser({ role: ROLE.MODERATOR });
  member = await t.makeUser({ role: ROLE.MEMBER, password: 'Initial-pass-42' });
  guest = await t.makeUser({ role: ROLE.GUEST });
  other = await t.makeUser({ role: ROLE.MEMBER });
  bot = await t.makeUser({ isBot: true, botOwnerId: member.id });
});
after(() => t.close());

const sortByProp = (evs: any[]) => [...evs].sort((a, b) => String(a.property).localeCompare(String(b.property)));

test('PATCH /settings: user_settings event to the user only, whatever the client (no legacy events since feature level 439)', async () => {
  const modern = await openQueue(t.client(member), { client_capabilities: { user_settings_object: true } });
  const legacy = await openQueue(t.client(member), {});
  const otherQ = await openQueue(t.client(other), {});
  const res = await t.client(member).patch('/settings', { twenty_four_hour_time: true, enable_sounds: false, web_font_size_px: 14, unknown_setting: 'x' });
  const body = assertSuccess(res);
  assertSchema(res, 'PATCH', '/settings');
  assert.deepEqual(body.ignored_parameters_unsupported, ['unknown_setting']);
  const m = (await modern.drain()).map(({ id: _id, ...e }) => e);
  m.splice(0, m.length, ...sortByProp(m));
  assert.deepEqual(m, sortByProp([
    { type: 'user_settings', op: 'update', property: 'twenty_four_hour_time', value: true },
    { type: 'user_settings', op: 'update', property: 'enable_sounds', value: false },
    { type: 'user_settings', op: 'update', property: 'web_font_size_px', value: 14 },
  ]));
  // A client without user_settings_object gets the same events, and no update_display_settings / update_global_notifications.
  assert.deepEqual(sortByProp((await legacy.drain()).map(({ id: _id, ...e }) => e)), m);
  assert.deepEqual(await otherQ.drain(), []);
  // Unchanged values send nothing.
  assertSuccess(await t.client(member).patch('/settings', { twenty_four_hour_time: true }));
  assert.deepEqual(await modern.drain(), []);
  // New state is visible at /register in user_settings only, also to clients asking for the legacy types.
  const st = (await openQueue(t.client(member), { fetch_event_types: ['user_settings', 'update_display_settings', 'update_global_notifications'] })).state;
  assert.equal(st.user_settings.twenty_four_hour_time, true);
  assert.equal(st.user_settings.enable_sounds, false);
  assert.equal(st.user_settings.web_font_size_px, 14);
  assert.ok(Array.isArray(st.user_settings.available_notification_sounds));
  assert.ok(st.user_settings.emojiset_choices.some((e: any) => e.key === 'google'));
  for (const gone of ['twenty_four_hour_time', 'enable_sounds', 'emojiset_choices', 'available_notification_sounds']) assert.equal(st[gone], undefined, gone);
  const otherState = (await openQueue(t.client(other), { fetch_event_types: ['user_settings'] })).state;
  assert.equal(otherState.user_settings.twenty_four_hour_time, false);
});

test('PATCH /settings: invalid values with Zulip messages', async () => {
  const c = t.client(member);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ color_scheme: 7 }, 'Invalid color_scheme'],
    [{ emojiset: 'apple' }, 'Invalid emojiset'],
    [{ web_home_view: 'stream' }, 'Invalid web_home_view'],
    // The recent conversations view is 'recent' since feature level 454.
    [{ web_home_view: 'recent_topics' }, 'Invalid web_home_view'],
    [{ web_left_sidebar_show_channel_folders: 'no' }, 'web_left_sidebar_show_channel_folders is not valid JSON'],
    [{ web_left_sidebar_unreads_count_summary: 0 }, 'web_left_sidebar_unreads_count_summary is not a boolean'],
    [{ demote_inactive_streams: 0 }, 'Invalid demote_inactive_streams'],
    [{ user_list_style: 4 }, 'Invalid user_list_style'],
    [{ desktop_icon_count_display: 5 }, 'Invalid desktop_icon_count_display'],
    [{ email_address_visibility: 6 }, 'Invalid email_address_visibility'],
    [{ web_animate_image_previews: 'sometimes' }, 'Invalid web_animate_image_previews'],
    [{ resolved_topic_notice_auto_read_policy: 'maybe' }, 'Invalid resolved_topic_notice_auto_read_policy'],
    [{ enter_sends: 'yes' }, 'enter_sends is not valid JSON'],
    [{ enter_sends: 1 }, 'enter_sends is not a boolean'],
    [{ notification_sound: 'bogus' }, "Invalid notification sound 'bogus'"],
    [{ email_notifications_batching_period_seconds: 0 }, 'Invalid email batching period: 0 seconds'],
    [{ email_notifications_batching_period_seconds: 604801 }, 'Invalid email batching period: 604801 seconds'],
    [{ default_language: 'xx' }, 'Invalid default_language'],
    [{ timezone: 'Mars/Olympus' }, 'timezone is not a recognized time zone'],
  ];
  for (const [params, msg] of cases) assertError(await c.patch('/settings', params), 400, 'BAD_REQUEST', msg);
  assertSuccess(await c.patch('/settings', { notification_sound: 'ding', default_language: 'de', web_home_view: 'recent', emojiset: 'text' }));
  const st = (await openQueue(c, { fetch_event_types: ['user_settings'] })).state.user_settings;
  assert.equal(st.notification_sound, 'ding');
  assert.equal(st.default_language, 'de');
  assert.equal(st.web_home_view, 'recent');
  assert.equal(st.emojiset, 'text');
  assertError(await t.client(bot).patch('/settings', { enter_sends: true }), 400, 'BAD_REQUEST', 'This endpoint does not accept bot requests.');
});

test('PATCH /settings: default_language event carries language_name; timezone goes to everyone', async () => {
  const mine = await openQueue(t.client(member), { client_capabilities: { user_settings_object: true } });
  const theirs = await openQueue(t.client(other), {});
  assertSuccess(await t.client(member).patch('/settings', { default_language: 'fr', timezone: 'Europe/Paris' }));
  const m = (await mine.drain()).map(({ id: _id, ...e }) => e);
  assert.deepEqual(m.filter((e) => e.type === 'user_settings'), [
    { type: 'user_settings', op: 'update', property: 'default_language', value: 'fr', language_name: 'français' },
    { type: 'user_settings', op: 'update', property: 'timezone', value: 'Europe/Paris' },
  ]);
  const o = (await theirs.drain()).map(({ id: _id, ...e }) => e);
  assert.deepEqual(o, [{ type: 'realm_user', op: 'update', person: { email: member.email, user_id: member.id, timezone: 'Europe/Paris' } }]);
  const u = assertSuccess(await t.client(other).get(`/users/${member.id}`)).user;
  assert.equal(u.timezone, 'Europe/Paris');
});

test('PATCH /settings: full_name changes, validation, realm_user event to everyone', async () => {
  const qs = await Promise.all([member, other, guest].map((a) => openQueue(t.client(a), { event_types: ['realm_user'] })));
  assertSuccess(await t.client(member).patch('/settings', { full_name: '  Mem Renamed  ' }));
  for (const q of qs) {
    assert.deepEqual((await q.ofType('realm_user')).map((e) => e.person), [{ user_id: member.id, full_name: 'Mem Renamed' }]);
  }
  const c = t.client(member);
  assertError(await c.patch('/settings', { full_name: 'A' }), 400, 'BAD_REQUEST', 'Name too short!');
  assertError(await c.patch('/settings', { full_name: 'x'.repeat(101) }), 400, 'BAD_REQUEST', 'Name too long!');
  assertError(await c.patch('/settings', { full_name: 'Bad*Name' }), 400, 'BAD_REQUEST', 'Invalid characters in name!');
  assertError(await c.patch('/settings', { full_name: 'Name|12' }), 400, 'BAD_REQUEST', 'Invalid format!');
  // Name changes disabled: silently ignored for members, allowed for admins.
  await updateRealm(t.server.svc.store.db, t.server.svc.realmId, { settings_json: JSON.stringify({ name_changes_disabled: true }) });
  try {
    assertSuccess(await c.patch('/settings', { full_name: 'Not Applied' }));
    assert.equal(assertSuccess(await c.get('/users/me')).full_name, 'Mem Renamed');
    assertSuccess(await t.client(admin).patch('/settings', { full_name: 'Admin Renamed' }));
    assert.equal(assertSuccess(await t.client(admin).get('/users/me')).full_name, 'Admin Renamed');
  } finally {
    await updateRealm(t.server.svc.store.db, t.server.svc.realmId, { settings_json: '{}' });
  }
});

test('PATCH /settings: password change needs the old password and a strong new one', async () => {
  const c = t.client(member);
  assertError(await c.patch('/settings', { old_password: 'wrong', new_password: 'Another-pass-77' }), 400, 'BAD_REQUEST', 'Wrong password!');
  assertError(await c.patch('/settings', { new_password: 'Another-pass-77' }), 400, 'BAD_REQUEST', 'Wrong password!');
  assertError(await c.patch('/settings', { old_password: 'Initial-pass-42', new_password: 'abc' }), 400, 'BAD_REQUEST', 'New password is too weak!');
  assertError(await c.patch('/settings', { old_password: 'Initial-pass-42', new_password: 'aaaaaaaa' }), 400, 'BAD_REQUEST', 'New password is too weak!');
  // Lengths count characters, as Zulip's: three emoji are three characters (six UTF-16 units).
  for (const weak of ['password1', 'qwerty123', 'x'.repeat(101), '\u{1f419}\u{1f98a}\u{1f422}']) {
    assertError(await c.patch('/settings', { old_password: 'Initial-pass-42', new_password: weak }), 400, 'BAD_REQUEST', 'New password is too weak!');
  }
  assertSuccess(await c.patch('/settings', { old_password: 'Initial-pass-42', new_password: 'Another-pass-77' }));
  const anon = t.client(null);
  assertSuccess(await anon.post('/fetch_api_key', { username: member.email, password: 'Another-pass-77' }));
  assertError(await anon.post('/fetch_api_key', { username: member.email, password: 'Initial-pass-42' }), 401, 'AUTHENTICATION_FAILED');
  // Six characters with no word or pattern in them are enough (zxcvbn: about a million guesses).
  assertSuccess(await c.patch('/settings', { old_password: 'Another-pass-77', new_password: 'Zq8#mP' }));
  assertSuccess(await anon.post('/fetch_api_key', { username: member.email, password: 'Zq8#mP' }));
  assertSuccess(await c.patch('/settings', { old_password: 'Zq8#mP', new_password: 'Another-pass-77' }));
});

test('PATCH /realm/user_settings_defaults: administrators only', async () => {
  for (const acct of [moderator, member, guest]) {
    assertError(await t.client(acct).patch('/realm/user_settings_defaults', { enter_sends: true }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  }
  for (const acct of [admin, t.owner]) {
    const res = await t.client(acct).patch('/realm/user_settings_defaults', { starred_message_counts: acct === admin ? false : true });
    assertSuccess(res);
    assertSchema(res, 'PATCH', '/realm/user_settings_defaults');
  }
});

test('PATCH /realm/user_settings_defaults: every listed parameter validated', async () => {
  const c = t.client(t.owner);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ web_channel_default_view: 5 }, 'Invalid web_channel_default_view'],
    [{ color_scheme: 0 }, 'Invalid color_scheme'],
    [{ web_home_view: 'nowhere' }, 'Invalid web_home_view'],
    [{ web_home_view: 'recent_topics' }, 'Invalid web_home_view'],
    [{ web_left_sidebar_show_channel_folders: 1 }, 'web_left_sidebar_show_channel_folders is not a boolean'],
    [{ web_left_sidebar_unreads_count_summary: 'x' }, 'web_left_sidebar_unreads_count_summary is not valid JSON'],
    [{ emojiset: 'apple' }, 'Invalid emojiset'],
    [{ demote_inactive_streams: 4 }, 'Invalid demote_inactive_streams'],
    [{ user_list_style: 0 }, 'Invalid user_list_style'],
    [{ web_animate_image_previews: 'x' }, 'Invalid web_animate_image_previews'],
    [{ web_stream_unreads_count_display_policy: 4 }, 'Invalid web_stream_unreads_count_display_policy'],
    [{ desktop_icon_count_display: 0 }, 'Invalid desktop_icon_count_display'],
    [{ automatically_follow_topics_policy: 5 }, 'Invalid automatically_follow_topics_policy'],
    [{ automatically_unmute_topics_in_muted_streams_policy: 0 }, 'Invalid automatically_unmute_topics_in_muted_streams_policy'],
    [{ resolved_topic_notice_auto_read_policy: 'sometimes' }, 'Invalid resolved_topic_notice_auto_read_policy'],
    [{ email_address_visibility: 0 }, 'Invalid email_address_visibility'],
    [{ realm_name_in_email_notifications_policy: 4 }, 'Invalid realm_name_in_email_notifications_policy'],
    [{ notification_sound: 'nope' }, "Invalid notification sound 'nope'"],
    [{ email_notifications_batching_period_seconds: -1 }, 'Invalid email batching period: -1 seconds'],
    [{ web_font_size_px: 'big' }, 'web_font_size_px is not valid JSON'],
    [{ web_line_height_percent: 1.5 }, 'web_line_height_percent is not an integer'],
    [{ hide_ai_features: 'maybe' }, 'hide_ai_features is not valid JSON'],
    [{ web_inbox_show_channel_folders: 3 }, 'web_inbox_show_channel_folders is not a boolean'],
  ];
  for (const [params, msg] of cases) assertError(await c.patch('/realm/user_settings_defaults', params), 400, 'BAD_REQUEST', msg);
  // Per-user-only settings are not organization defaults.
  const res = assertSuccess(await c.patch('/realm/user_settings_defaults', { timezone: 'UTC' }));
  assert.deepEqual(res.ignored_parameters_unsupported, ['timezone']);
});

test('realm defaults: events to everyone, /register state, new users only', async () => {
  const before = await t.makeUser({ role: ROLE.MEMBER });
  const qs = await Promise.all([member, guest, before].map((a) => openQueue(t.client(a), { event_types: ['realm_user_settings_defaults'] })));
  const res = await t.client(admin).patch('/realm/user_settings_defaults', {
    color_scheme: 2, emojiset: 'twitter', enter_sends: true, web_home_view: 'all_messages', notification_sound: 'chime', email_address_visibility: 3,
  });
  assertSuccess(res);
  for (const q of qs) {
    const evs = (await q.ofType('realm_user_settings_defaults')).map(({ id: _id, ...e }) => e);
    assert.deepEqual(sortByProp(evs), sortByProp([
      { type: 'realm_user_settings_defaults', op: 'update', property: 'color_scheme', value: 2 },
      { type: 'realm_user_settings_defaults', op: 'update', property: 'emojiset', value: 'twitter' },
      { type: 'realm_user_settings_defaults', op: 'update', property: 'enter_sends', value: true },
      { type: 'realm_user_settings_defaults', op: 'update', property: 'web_home_view', value: 'all_messages' },
      { type: 'realm_user_settings_defaults', op: 'update', property: 'notification_sound', value: 'chime' },
      { type: 'realm_user_settings_defaults', op: 'update', property: 'email_address_visibility', value: 3 },
    ]));
  }
  // Unchanged: no event.
  assertSuccess(await t.client(admin).patch('/realm/user_settings_defaults', { color_scheme: 2 }));
  assert.deepEqual(await qs[0].ofType('realm_user_settings_defaults'), []);
  const st = (await openQueue(t.client(guest), { fetch_event_types: ['realm_user_settings_defaults'] })).state.realm_user_settings_defaults;
  assert.equal(st.color_scheme, 2);
  assert.equal(st.emojiset, 'twitter');
  assert.equal(st.enter_sends, true);
  assert.ok(Array.isArray(st.available_notification_sounds));
  assert.ok(Array.isArray(st.emojiset_choices));
  assert.equal(st.timezone, undefined);
  // The existing user keeps the old values; a new user gets the new defaults.
  const oldState = (await openQueue(t.client(before), { fetch_event_types: ['user_settings'] })).state.user_settings;
  assert.equal(oldState.color_scheme, 1);
  assert.equal(oldState.emojiset, 'google');
  assert.equal(oldState.enter_sends, false);
  const fresh = await t.makeUser({ role: ROLE.MEMBER });
  const newState = (await openQueue(t.client(fresh), { fetch_event_types: ['user_settings'] })).state.user_settings;
  assert.equal(newState.color_scheme, 2);
  assert.equal(newState.emojiset, 'twitter');
  assert.equal(newState.enter_sends, true);
  assert.equal(newState.web_home_view, 'all_messages');
  assert.equal(newState.notification_sound, 'chime');
  assert.equal(newState.email_address_visibility, 3);
  // Admin-only email visibility from the defaults applies to the new user's public email.
  const seen = assertSuccess(await t.client(other).get(`/users/${fresh.id}`)).user;
  assert.equal(seen.delivery_email, null);
});

test('web_left_sidebar_show_channel_folders (FL 411) and web_left_sidebar_unreads_count_summary (FL 398): defaults, PATCH, events, organization defaults', async () => {
  const u = await t.makeUser({ role: ROLE.MEMBER });
  const c = t.client(u);
  const reg = (await openQueue(c, { fetch_event_types: ['user_settings', 'realm_user_settings_defaults'], client_capabilities: { user_settings_object: true } })).state;
  assert.equal(reg.user_settings.web_left_sidebar_show_channel_folders, true);
  assert.equal(reg.user_settings.web_left_sidebar_unreads_count_summary, true);
  assert.equal(reg.realm_user_settings_defaults.web_left_sidebar_show_channel_folders, true);
  assert.equal(reg.realm_user_settings_defaults.web_left_sidebar_unreads_count_summary, true);

  const legacy = await openQueue(c, {});
  const res = await c.patch('/settings', { web_left_sidebar_show_channel_folders: false, web_left_sidebar_unreads_count_summary: false });
  assertSuccess(res);
  assertSchema(res, 'PATCH', '/settings');
  // Modern settings: user_settings events only, no legacy update_display_settings.
  assert.deepEqual(sortByProp((await legacy.drain()).map(({ id: _id, ...e }) => e)), [
    { type: 'user_settings', op: 'update', property: 'web_left_sidebar_show_channel_folders', value: false },
    { type: 'user_settings', op: 'update', property: 'web_left_sidebar_unreads_count_summary', value: false },
  ]);
  const st = (await openQueue(c, { fetch_event_types: ['user_settings'] })).state.user_settings;
  assert.equal(st.web_left_sidebar_show_channel_folders, false);
  assert.equal(st.web_left_sidebar_unreads_count_summary, false);

  // Organization defaults: event to everyone, and new users start from them.
  const q = await openQueue(t.client(member), { event_types: ['realm_user_settings_defaults'] });
  const dres = await t.client(admin).patch('/realm/user_settings_defaults', { web_left_sidebar_show_channel_folders: false, web_left_sidebar_unreads_count_summary: false });
  assertSuccess(dres);
  assertSchema(dres, 'PATCH', '/realm/user_settings_defaults');
  assert.deepEqual(sortByProp((await q.ofType('realm_user_settings_defaults')).map(({ id: _id, ...e }) => e)), [
    { type: 'realm_user_settings_defaults', op: 'update', property: 'web_left_sidebar_show_channel_folders', value: false },
    { type: 'realm_user_settings_defaults', op: 'update', property: 'web_left_sidebar_unreads_count_summary', value: false },
  ]);
  const fresh = await t.makeUser({ role: ROLE.MEMBER });
  const fst = (await openQueue(t.client(fresh), { fetch_event_types: ['user_settings'] })).state.user_settings;
  assert.equal(fst.web_left_sidebar_show_channel_folders, false);
  assert.equal(fst.web_left_sidebar_unreads_count_summary, false);
  assertSuccess(await t.client(admin).patch('/realm/user_settings_defaults', { web_left_sidebar_show_channel_folders: true, web_left_sidebar_unreads_count_summary: true }));
});

test('PATCH /settings email_address_visibility: the API address and delivery_email follow it, with the realm_user events', async () => {
  const u = await t.makeUser({ role: ROLE.MEMBER, name: 'Visible person' });
  const real = u.email;
  const dummy = `user${u.id}@${new URL(t.url).hostname}`;
  const shown = async (viewer: Account) => {
    const user = assertSuccess(await t.client(viewer).get(`/users/${u.id}`)).user;
    return [user.email, user.delivery_email];
  };
  // Everyone may see it (1): the real address is the API address.
  assertSuccess(await t.client(u).patch('/settings', { email_address_visibility: 1 }));
  assert.deepEqual(await shown(other), [real, real]);
  const qa = await openQueue(t.client(admin), { event_types: ['realm_user'] });
  const qm = await openQueue(t.client(other), { event_types: ['realm_user'] });
  const qmod = await openQueue(t.client(moderator), { event_types: ['realm_user'] });
  // Each realm_user update's fields (the Gravatar's, which follows the address, by its source only).
  const changes = async (q: Awaited<ReturnType<typeof openQueue>>) =>
    (await q.ofType('realm_user')).map(({ person: { user_id, avatar_url: _u, avatar_url_medium: _m, avatar_version: _v, ...rest } }) => ({ user_id, ...rest }));

  // Administrators only (3): a dummy API address; members lose the real one.
  assertSuccess(await t.client(u).patch('/settings', { email_address_visibility: 3 }));
  assert.deepEqual(await changes(qm), [{ user_id: u.id, delivery_email: null }, { user_id: u.id, new_email: dummy }, { user_id: u.id, avatar_source: 'G' }]);
  assert.deepEqual(await changes(qa), [{ user_id: u.id, new_email: dummy }, { user_id: u.id, avatar_source: 'G' }]);
  await qmod.drain();
  assert.deepEqual(await shown(other), [dummy, null]);
  assert.deepEqual(await shown(admin), [dummy, real]);
  // The user still calls the API with the real address, and is shown the dummy one.
  assert.equal(assertSuccess(await t.client(u).get('/users/me')).email, dummy);

  // Moderators (5): no API address change (neither value is "everyone"); moderators gain the real one.
  assertSuccess(await t.client(u).patch('/settings', { email_address_visibility: 5 }));
  assert.deepEqual(await changes(qmod), [{ user_id: u.id, delivery_email: real }]);
  assert.deepEqual(await changes(qm), []);
  assert.deepEqual(await changes(qa), []);

  // Back to everyone: the real address again, and members see it.
  assertSuccess(await t.client(u).patch('/settings', { email_address_visibility: 1 }));
  assert.deepEqual(await changes(qm), [{ user_id: u.id, delivery_email: real }, { user_id: u.id, new_email: real }, { user_id: u.id, avatar_source: 'G' }]);
  assert.deepEqual(await shown(other), [real, real]);
});

test('PATCH /settings target_users (FL 444): an administrator changes settings for users and groups, skipping, if asked, those who chose themselves', async () => {
  const A = t.client(admin);
  const alice = await t.makeUser({ role: ROLE.MEMBER });
  const bob = await t.makeUser({ role: ROLE.MEMBER });
  const carol = await t.makeUser({ role: ROLE.MEMBER });
  const dave = await t.makeUser({ role: ROLE.MEMBER });
  const groupBot = await t.makeUser({ isBot: true, botOwnerId: carol.id });
  const group = assertSuccess(await A.post('/user_groups/create', { name: 'target settings', description: '', members: JSON.stringify([carol.id, groupBot.id]) })).group_id as number;
  const settingsOf = async (who: Account) => {
    return (await settingsAtServer(t.client(who))) as Record<string, unknown>;
  };
  const target = (v: Record<string, unknown>) => JSON.stringify(v);

  // Alice picks her home view herself (another than the one she has: an unchanged value is no choice).
  const chosen = (await settingsOf(alice)).web_home_view === 'all_messages' ? 'inbox' : 'all_messages';
  assertSuccess(await t.client(alice).patch('/settings', { web_home_view: chosen }));
  const aliceQ = await openQueue(t.client(alice), {});
  const bobQ = await openQueue(t.client(bob), {});
  const res = await A.patch('/settings', { target_users: target({ user_ids: [alice.id, bob.id], skip_if_already_edited: true }), web_home_view: 'recent', web_font_size_px: 19 });
  assertSuccess(res);
  assertSchema(res, 'PATCH', '/settings');
  assert.equal(res.body.ignored_parameters_unsupported, undefined);
  // Alice keeps the view she chose; the color scheme, which she never set, changes for both.
  assert.equal((await settingsOf(alice)).web_home_view, chosen);
  assert.equal((await settingsOf(alice)).web_font_size_px, 19);
  assert.equal((await settingsOf(bob)).web_home_view, 'recent');
  assert.equal((await settingsOf(bob)).web_font_size_px, 19);
  assert.deepEqual((await aliceQ.drain()).map(({ id: _id, ...e }) => e), [{ type: 'user_settings', op: 'update', property: 'web_font_size_px', value: 19 }]);
  assert.deepEqual(sortByProp((await bobQ.drain()).map(({ id: _id, ...e }) => e)), sortByProp([
    { type: 'user_settings', op: 'update', property: 'web_home_view', value: 'recent' },
    { type: 'user_settings', op: 'update', property: 'web_font_size_px', value: 19 },
  ]));
  // An administrator's change is not the user's own choice: with skip_if_already_edited, Bob's view changes again.
  assertSuccess(await A.patch('/settings', { target_users: target({ user_ids: [bob.id], skip_if_already_edited: true }), web_home_view: 'inbox' }));
  assert.equal((await settingsOf(bob)).web_home_view, 'inbox');
  // Without skip_if_already_edited, Alice's choice is overridden too.
  assertSuccess(await A.patch('/settings', { target_users: target({ user_ids: [alice.id], skip_if_already_edited: false }), web_home_view: 'recent' }));
  assert.equal((await settingsOf(alice)).web_home_view, 'recent');

  // A group's members (its bot left out), and users named by ID besides; deactivated users named by ID too.
  assertSuccess(await A.delete(`/users/${dave.id}`));
  assertSuccess(await A.patch('/settings', { target_users: target({ group_ids: [group], user_ids: [dave.id], skip_if_already_edited: false }), fluid_layout_width: true }));
  assert.equal((await settingsOf(carol)).fluid_layout_width, true);
  assert.equal((await settingsOf(bob)).fluid_layout_width, false);
  assertSuccess(await A.post(`/users/${dave.id}/reactivate`));
  assert.equal((await settingsOf(dave)).fluid_layout_width, true);

  // Errors.
  const body = { web_home_view: 'inbox' };
  assertError(await t.client(member).patch('/settings', { target_users: target({ user_ids: [bob.id], skip_if_already_edited: true }), ...body }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  assertError(await A.patch('/settings', { target_users: target({ skip_if_already_edited: true }), ...body }), 400, 'BAD_REQUEST', 'Either user_ids or group_ids must be provided.');
  assertError(await A.patch('/settings', { target_users: target({ user_ids: [bob.id] }), ...body }), 400, 'BAD_REQUEST', 'target_users["skip_if_already_edited"] field is missing');
  assertError(await A.patch('/settings', { target_users: target({ user_ids: [bob.id], skip_if_already_edited: true }), send_read_receipts: false }), 400, 'BAD_REQUEST', 'Cannot change this setting for other users.');
  assertError(await A.patch('/settings', { target_users: target({ user_ids: [bob.id], skip_if_already_edited: true }), timezone: 'Europe/Paris' }), 400, 'BAD_REQUEST', 'Cannot change this setting for other users.');
  assertError(await A.patch('/settings', { target_users: target({ user_ids: [bob.id], skip_if_already_edited: true }), email: 'new@example.com' }), 400, 'BAD_REQUEST', 'Cannot change this setting for other users.');
  assertError(await A.patch('/settings', { target_users: target({ user_ids: [groupBot.id], skip_if_already_edited: true }), ...body }), 400, 'BAD_REQUEST', `Invalid user ID: ${groupBot.id}`);
  assertError(await A.patch('/settings', { target_users: target({ user_ids: [987654], skip_if_already_edited: true }), ...body }), 400, 'BAD_REQUEST', 'Invalid user ID: 987654');
  assertError(await A.patch('/settings', { target_users: target({ group_ids: [987654], skip_if_already_edited: true }), ...body }), 400, 'BAD_REQUEST', 'Invalid user group ID: 987654');
  assertError(await A.patch('/settings', { target_users: target({ user_ids: [bob.id], skip_if_already_edited: true }), web_home_view: 'nowhere' }), 400, 'BAD_REQUEST');
  // Nothing of those refused requests was changed.
  assert.equal((await settingsOf(bob)).web_home_view, 'inbox');
});
