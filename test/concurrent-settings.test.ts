/**
 * Settings changed at the same moment by different requests all stay: an
 * organization's, a user's, a channel's and a group's settings are each kept
 * in one JSON column that a change rewrites whole (on PostgreSQL, without a
 * lock, the last writer would drop the others' changes). Names with no
 * unique index (groups, channel folders) are taken once, and rules across
 * rows (a default channel is public; a domain restriction needs a domain)
 * hold when two requests change them at once.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertSuccess, type TestServer, type Client, type Res } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';

let t: TestServer;
let owner: Client;
let groupId: (name: string) => number;

before(async () => {
  t = await startTestServer();
  owner = t.client(t.owner);
  const groups = assertSuccess(await owner.get('/user_groups')).user_groups as Array<{ id: number; name: string }>;
  groupId = (name) => groups.find((g) => g.name === name)!.id;
});
after(() => t.close());

/** Sends every change at once, each its own request, and expects each to succeed. */
async function allAtOnce(changes: Array<() => Promise<unknown>>): Promise<void> {
  for (const r of await Promise.all(changes.map((f) => f()))) assertSuccess(r as never);
}

const USER_SETTINGS = ['enter_sends', 'left_side_userlist', 'fluid_layout_width', 'high_contrast_mode', 'starred_message_counts', 'translate_emoticons', 'display_emoji_reaction_users', 'receives_typing_notifications'];
const REALM_SETTINGS = ['avatar_changes_disabled', 'name_changes_disabled', 'email_changes_disabled', 'send_welcome_emails', 'digest_emails_enabled', 'inline_image_preview', 'inline_url_embed_preview', 'message_content_allowed_in_email_notifications'];

test('user settings: each of several changes sent at once is kept', async () => {
  const before = assertSuccess(await owner.post('/register', { fetch_event_types: ['user_settings'] })).user_settings;
  await allAtOnce(USER_SETTINGS.map((name) => () => owner.patch('/settings', { [name]: !before[name] })));
  const after = assertSuccess(await owner.post('/register', { fetch_event_types: ['user_settings'] })).user_settings;
  assert.deepEqual(
    USER_SETTINGS.map((n) => [n, after[n]]),
    USER_SETTINGS.map((n) => [n, !before[n]]),
  );
});

test('organization settings: each of several changes sent at once is kept', async () => {
  const before = assertSuccess(await owner.post('/register', { fetch_event_types: ['realm'] }));
  await allAtOnce(REALM_SETTINGS.map((name) => () => owner.patch('/realm', { [name]: !before[`realm_${name}`] })));
  const after = assertSuccess(await owner.post('/register', { fetch_event_types: ['realm'] }));
  assert.deepEqual(
    REALM_SETTINGS.map((n) => [n, after[`realm_${n}`]]),
    REALM_SETTINGS.map((n) => [n, !before[`realm_${n}`]]),
  );
});

test('channel and group permission settings: each of several changes sent at once is kept', async () => {
  const channel = await makeChannel(t, { name: 'many changes', subscribers: [t.owner.id] });
  const channelSettings = ['can_add_subscribers_group', 'can_remove_subscribers_group', 'can_send_message_group', 'can_resolve_topics_group', 'can_move_messages_within_channel_group', 'can_delete_own_message_group'];
  const moderators = groupId('role:moderators');
  await allAtOnce(channelSettings.map((name) => () => owner.patch(`/streams/${channel}`, { [name]: { new: moderators } })));
  const stream = assertSuccess(await owner.get(`/streams/${channel}`)).stream;
  assert.deepEqual(
    channelSettings.map((n) => [n, stream[n]]),
    channelSettings.map((n) => [n, moderators]),
  );

  const group = assertSuccess(await owner.post('/user_groups/create', { name: 'many changes', description: '', members: [t.owner.id] })).group_id as number;
  const groupSettings = ['can_add_members_group', 'can_join_group', 'can_leave_group', 'can_manage_group', 'can_mention_group', 'can_remove_members_group'];
  const admins = groupId('role:administrators');
  await allAtOnce(groupSettings.map((name) => () => owner.patch(`/user_groups/${group}`, { [name]: { new: admins } })));
  const g = (assertSuccess(await owner.get('/user_groups')).user_groups as Array<Record<string, unknown>>).find((x) => x.id === group)!;
  assert.deepEqual(
    groupSettings.map((n) => [n, g[n]]),
    groupSettings.map((n) => [n, admins]),
  );
});

test('one name taken by several requests at the same moment: a group and a channel folder are created once', async () => {
  const tries = 6;
  const groups = await Promise.all(Array.from({ length: tries }, () => owner.post('/user_groups/create', { name: 'one name', description: '', members: [t.owner.id] })));
  assert.equal(groups.filter((r) => r.status === 200).length, 1);
  for (const r of groups.filter((x) => x.status !== 200)) assert.deepEqual([r.status, r.body.msg], [400, "User group 'one name' already exists."]);
  const listed = (assertSuccess(await owner.get('/user_groups')).user_groups as Array<{ name: string }>).filter((g) => g.name === 'one name');
  assert.equal(listed.length, 1);

  const folders = await Promise.all(Array.from({ length: tries }, () => owner.post('/channel_folders/create', { name: 'One folder', description: '' })));
  assert.equal(folders.filter((r) => r.status === 200).length, 1);
  for (const r of folders.filter((x) => x.status !== 200)) assert.deepEqual([r.status, r.body.msg], [400, 'Channel folder name already in use']);
  const all = (assertSuccess(await owner.get('/channel_folders')).channel_folders as Array<{ name: string }>).filter((f) => f.name === 'One folder');
  assert.equal(all.length, 1);
});

test('making a channel private and making it a default channel at the same moment: never both', async () => {
  for (let round = 0; round < 5; round++) {
    const channel = await makeChannel(t, { name: `default or private ${round}`, subscribers: [t.owner.id] });
    const [priv, dflt] = await Promise.all([owner.patch(`/streams/${channel}`, { is_private: true }), owner.post('/default_streams', { stream_id: channel })]);
    const stream = assertSuccess(await owner.get(`/streams/${channel}`)).stream;
    const defaults = assertSuccess(await owner.post('/register', { fetch_event_types: ['default_streams'] })).realm_default_streams as number[];
    assert.ok(!(stream.invite_only && defaults.includes(channel)), 'a private default channel');
    // One of them went through; the other was refused with Zulip's error, or went through first.
    assert.ok(priv.status === 200 || dflt.status === 200);
    if (priv.status !== 200) assert.deepEqual([priv.status, priv.body.msg], [400, 'A default channel cannot be private.']);
    if (dflt.status !== 200) assert.deepEqual([dflt.status, dflt.body.msg], [400, 'Private channels cannot be made default.']);
  }
});

test('the last two allowed email domains removed at the same moment: the restriction is lifted', async () => {
  for (let round = 0; round < 3; round++) {
    const domains = [`a${round}.example.net`, `b${round}.example.net`];
    for (const domain of domains) assertSuccess(await owner.post('/realm/domains', { domain, allow_subdomains: false }));
    assertSuccess(await owner.patch('/realm', { emails_restricted_to_domains: true }));
    for (const r of await Promise.all(domains.map((d) => owner.delete(`/realm/domains/${d}`)))) assertSuccess(r);
    const reg = assertSuccess(await owner.post('/register', { fetch_event_types: ['realm', 'realm_domains'] }));
    assert.deepEqual(reg.realm_domains, []);
    assert.equal(reg.realm_emails_restricted_to_domains, false, 'no domain left, so no restriction');
  }
});

test('a user muting someone, or following a topic, from several requests at once: done once, the others answered as Zulip does', async () => {
  const other = await t.makeUser({ name: 'Muted at once' });
  const mutes = await Promise.all(Array.from({ length: 4 }, () => owner.post(`/users/me/muted_users/${other.id}`)));
  assert.equal(mutes.filter((r) => r.status === 200).length, 1);
  for (const r of mutes.filter((x) => x.status !== 200)) assert.deepEqual([r.status, r.body.msg], [400, 'User already muted']);
  const muted = assertSuccess(await owner.post('/register', { fetch_event_types: ['muted_users'] })).muted_users as Array<{ id: number }>;
  assert.equal(muted.filter((m) => m.id === other.id).length, 1);

  const channel = await makeChannel(t, { name: 'followed at once', subscribers: [t.owner.id] });
  const follows = await Promise.all(Array.from({ length: 4 }, () => owner.post('/user_topics', { stream_id: channel, topic: 'busy', visibility_policy: 3 })));
  for (const r of follows) assertSuccess(r);
  const topics = (assertSuccess(await owner.post('/register', { fetch_event_types: ['user_topic'] })).user_topics as Array<{ stream_id: number; topic_name: string; visibility_policy: number }>).filter((u) => u.stream_id === channel);
  assert.deepEqual(topics.map((u) => [u.topic_name, u.visibility_policy]), [['busy', 3]]);
});

test('a device registering its push token, or a view saved, from several requests at once: stored once, every request answered', async () => {
  const tokens = await Promise.all(Array.from({ length: 4 }, () => owner.post('/users/me/android_gcm_reg_id', { token: 'same-device-token' })));
  for (const r of tokens) assertSuccess(r);
  const rows = await t.server.svc.store.db.selectFrom('push_device_tokens').select('id').where('user_id', '=', t.owner.id).where('token', '=', 'same-device-token').execute();
  assert.equal(rows.length, 1);

  const views = await Promise.all(Array.from({ length: 4 }, () => owner.post('/navigation_views', { fragment: 'narrow/is/mentioned', is_pinned: true })));
  assert.equal(views.filter((r) => r.status === 200).length, 1);
  for (const r of views.filter((x) => x.status !== 200)) assert.deepEqual([r.status, r.body.msg], [400, 'Navigation view already exists.']);
});

test('a channel, a linkifier, a code playground or a profile field asked for by several requests at once: made once, the others refused as a later request would be', async () => {
  const cases: Array<[string, () => Promise<Res>]> = [
    ['channel', () => owner.post('/channels/create', { name: 'made at once', subscribers: JSON.stringify([t.owner.id]) })],
    ['linkifier', () => owner.post('/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example.com/{id}' })],
    ['playground', () => owner.post('/realm/playgrounds', { name: 'Runner', pygments_language: 'Python', url_template: 'https://run.example.com/?code={code}' })],
    ['profile field', () => owner.post('/realm/profile_fields', { name: 'Desk', field_type: 1 })],
  ];
  for (const [what, ask] of cases) {
    const results = await Promise.all(Array.from({ length: 4 }, ask));
    assert.equal(results.filter((r) => r.status === 200).length, 1, `${what}: made once`);
    const later = await ask();
    assert.equal(later.status, 400, `${what}: a later request is refused`);
    for (const r of results.filter((x) => x.status !== 200)) assert.deepEqual([r.status, r.body.code, r.body.msg], [400, later.body.code, later.body.msg], what);
  }
});

test('one profile value set, or one allowed domain added, by several requests at once: every value request answered, the domain added once', async () => {
  const field = assertSuccess(await owner.post('/realm/profile_fields', { name: 'Room', field_type: 1 })).id as number;
  const values = await Promise.all(['a', 'b', 'c', 'd'].map((v) => owner.patch('/users/me/profile_data', { data: JSON.stringify([{ id: field, value: `room ${v}` }]) })));
  for (const r of values) assertSuccess(r);
  const me = assertSuccess(await owner.get(`/users/${t.owner.id}`, { include_custom_profile_fields: true })).user;
  assert.match(me.profile_data[String(field)].value, /^room [abcd]$/);

  const domains = await Promise.all(Array.from({ length: 4 }, () => owner.post('/realm/domains', { domain: 'once.example.org', allow_subdomains: false })));
  assert.equal(domains.filter((r) => r.status === 200).length, 1);
  for (const r of domains.filter((x) => x.status !== 200)) assert.deepEqual([r.status, r.body.msg], [400, 'The domain once.example.org is already a part of your organization.']);
});

test('one email address given to several new accounts at once: one account, the others refused as a later request would be', async () => {
  // Bots: no password to hash, which would spread the requests apart.
  const create = () => owner.post('/bots', { full_name: 'Made At Once', short_name: 'twice' });
  const results = await Promise.all(Array.from({ length: 4 }, create));
  assert.equal(results.filter((r) => r.status === 200).length, 1);
  const later = await create();
  assert.equal(later.status, 400);
  // The bot's address and its name are both taken by then: a request refused before its transaction may name either.
  for (const r of results.filter((x) => x.status !== 200)) {
    assert.equal(r.status, 400);
    assert.ok([later.body.msg, 'Name is already in use!'].includes(r.body.msg), r.body.msg);
  }
});

test('a user setting a status from several requests at once: every request answered, one status kept', async () => {
  const mine = await t.makeUser({ name: 'Busy Status' });
  const me = t.client(mine);
  const results = await Promise.all(['lunch', 'meeting', 'travel', 'away'].map((text) => me.post('/users/me/status', { status_text: text })));
  for (const r of results) assertSuccess(r);
  const status = assertSuccess(await me.get(`/users/${mine.id}/status`)).status;
  assert.ok(['lunch', 'meeting', 'travel', 'away'].includes(status.status_text), status.status_text);
});
