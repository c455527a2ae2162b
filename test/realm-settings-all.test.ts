/**
 * PATCH /realm accepts every organization setting of Zulip's current
 * documentation: each value is stored, announced to every user with its
 * `realm` event, and returned by /register; none comes back in
 * ignored_parameters_unsupported. Also the allowed email domains endpoints.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type Account, type TestServer, streamIdOf } from './helpers.ts';
import { ROLE } from '../src/store/users.ts';

let t: TestServer;
let admin: Account;
let member: Account;
let privateId: number;
let publicId: number;

before(async () => {
  t = await startTestServer();
  admin = await t.makeUser({ role: ROLE.ADMINISTRATOR });
  member = await t.makeUser({ role: ROLE.MEMBER });
  const streams = assertSuccess(await t.client(t.owner).get('/streams')).streams;
  privateId = streams.find((s: any) => s.invite_only).stream_id;
  publicId = streams.find((s: any) => !s.invite_only).stream_id;
});
after(() => t.close());

const c = (a: Account) => t.client(a);

interface Case {
  /** The value sent (encoded as Zulip clients do). */
  send: unknown;
  /** What /register then reports as realm_<name> (default: the value sent). */
  state?: unknown;
  /** The events the change causes, as [property, value] (update) or ['default', {name: value}] (update_dict). */
  events?: Array<[string, unknown]>;
  dict?: boolean;
  /** The whole data of a single update_dict event, when it is not {name: value}. */
  data?: Record<string, unknown>;
}

/** Every simple setting of Zulip's PATCH /realm, with a value that differs from the default. */
const CASES: Record<string, () => Case> = {
  name: () => ({ send: 'Renamed' }),
  description: () => ({ send: 'About us', state: 'About us', dict: true, events: [['description', 'About us']], data: { description: 'About us', rendered_description: '<p>About us</p>' } }),
  invite_required: () => ({ send: false }),
  emails_restricted_to_domains: () => ({ send: true }),
  disallow_disposable_email_addresses: () => ({ send: false }),
  waiting_period_threshold: () => ({ send: 3 }),
  allow_message_editing: () => ({ send: false, dict: true }),
  message_content_edit_limit_seconds: () => ({ send: 1200, dict: true }),
  message_content_delete_limit_seconds: () => ({ send: 'unlimited', state: null }),
  move_messages_within_stream_limit_seconds: () => ({ send: 1200 }),
  move_messages_between_streams_limit_seconds: () => ({ send: 'unlimited', state: null }),
  // Announced alone since feature level 358 (no allow_edit_history event).
  message_edit_history_visibility_policy: () => ({ send: 'moves' }),
  // The deprecated mandatory_topics is still announced beside it (feature level 392).
  topics_policy: () => ({
    send: 'disable_empty_topic',
    events: [
      ['topics_policy', 'disable_empty_topic'],
      ['mandatory_topics', true],
    ],
  }),
  message_retention_days: () => ({ send: 30 }),
  inline_image_preview: () => ({ send: false }),
  inline_url_embed_preview: () => ({ send: true }),
  default_code_block_language: () => ({ send: 'python' }),
  digest_emails_enabled: () => ({ send: true }),
  digest_weekday: () => ({ send: 4 }),
  send_welcome_emails: () => ({ send: false }),
  message_content_allowed_in_email_notifications: () => ({ send: false }),
  welcome_message_custom_text: () => ({ send: 'Welcome aboard' }),
  require_e2ee_push_notifications: () => ({ send: true }),
  send_channel_events_messages: () => ({ send: false }),
  enable_read_receipts: () => ({ send: false }),
  enable_guest_user_indicator: () => ({ send: false }),
  enable_guest_user_dm_warning: () => ({ send: false }),
  enable_spectator_access: () => ({ send: true }),
  name_changes_disabled: () => ({ send: true }),
  email_changes_disabled: () => ({ send: true }),
  avatar_changes_disabled: () => ({ send: true }),
  require_unique_names: () => ({ send: true }),
  default_language: () => ({ send: 'de' }),
  org_type: () => ({ send: 20 }),
  want_advertise_in_communities_directory: () => ({ send: true }),
  video_chat_provider: () => ({ send: 0 }),
  jitsi_server_url: () => ({ send: JSON.stringify('https://jitsi.example.com'), state: 'https://jitsi.example.com', events: [['jitsi_server_url', 'https://jitsi.example.com']] }),
  gif_rating_policy: () => ({ send: 4 }),
  media_preview_size: () => ({ send: 150 }),
  default_avatar_source: () => ({ send: 'J' }),
  new_stream_announcements_stream_id: () => ({ send: privateId }),
  signup_announcements_stream_id: () => ({ send: publicId }),
  zulip_update_announcements_stream_id: () => ({ send: privateId }),
  moderation_request_channel_id: () => ({ send: privateId }),
};

/** Every organization group setting of Zulip's PATCH /realm. */
const GROUP_SETTINGS = [
  'can_access_all_users_group',
  'can_add_custom_emoji_group',
  'can_add_subscribers_group',
  'can_create_bots_group',
  'can_create_groups',
  'can_create_private_channel_group',
  'can_create_public_channel_group',
  'can_create_web_public_channel_group',
  'can_create_write_only_bots_group',
  'can_delete_any_message_group',
  'can_delete_own_message_group',
  'can_invite_users_group',
  'can_manage_all_groups',
  'can_manage_billing_group',
  'can_mention_many_users_group',
  'can_move_messages_between_channels_group',
  'can_move_messages_between_topics_group',
  'can_resolve_topics_group',
  'can_set_delete_message_policy_group',
  'can_set_topics_policy_group',
  'can_summarize_topics_group',
  'create_multiuse_invite_group',
  'direct_message_initiator_group',
  'direct_message_permission_group',
  'workplace_users_group',
];

/**
 * Every parameter of Zulip's current PATCH /realm (its update_realm view;
 * the endpoint has no page of its own in zulip.yaml, so the list is the
 * properties of the `realm` update_dict event's data in the current
 * zulip.yaml, plus the settings sent as `realm` update events, with the API
 * changelog's additions up to feature level 483: gif_rating_policy FL 453,
 * default_avatar_source FL 456, media_preview_size FL 469,
 * workplace_users_group FL 477). bot_creation_policy (removed at FL 344),
 * giphy_rating (renamed at FL 453), allow_edit_history (FL 358) and
 * mandatory_topics (FL 392) are no longer parameters: they come back in
 * ignored_parameters_unsupported, as from Zulip. authentication_methods
 * and string_id are checked separately.
 */
const ZULIP_WRITABLE = [
  'allow_message_editing', 'avatar_changes_disabled',
  'can_access_all_users_group', 'can_add_custom_emoji_group', 'can_add_subscribers_group', 'can_create_bots_group',
  'can_create_groups', 'can_create_private_channel_group', 'can_create_public_channel_group',
  'can_create_web_public_channel_group', 'can_create_write_only_bots_group', 'can_delete_any_message_group',
  'can_delete_own_message_group', 'can_invite_users_group', 'can_manage_all_groups', 'can_manage_billing_group',
  'can_mention_many_users_group', 'can_move_messages_between_channels_group', 'can_move_messages_between_topics_group',
  'can_resolve_topics_group', 'can_set_delete_message_policy_group', 'can_set_topics_policy_group',
  'can_summarize_topics_group', 'create_multiuse_invite_group', 'default_avatar_source', 'default_code_block_language',
  'default_language', 'description', 'digest_emails_enabled', 'digest_weekday', 'direct_message_initiator_group',
  'direct_message_permission_group', 'disallow_disposable_email_addresses', 'email_changes_disabled',
  'emails_restricted_to_domains', 'enable_guest_user_dm_warning', 'enable_guest_user_indicator', 'enable_read_receipts',
  'enable_spectator_access', 'gif_rating_policy', 'inline_image_preview', 'inline_url_embed_preview',
  'invite_required', 'jitsi_server_url', 'media_preview_size',
  'message_content_allowed_in_email_notifications', 'message_content_delete_limit_seconds',
  'message_content_edit_limit_seconds', 'message_edit_history_visibility_policy', 'message_retention_days',
  'moderation_request_channel_id', 'move_messages_between_streams_limit_seconds',
  'move_messages_within_stream_limit_seconds', 'name', 'name_changes_disabled', 'new_stream_announcements_stream_id',
  'org_type', 'require_e2ee_push_notifications', 'require_unique_names', 'send_channel_events_messages',
  'send_welcome_emails', 'signup_announcements_stream_id', 'topics_policy', 'video_chat_provider',
  'waiting_period_threshold', 'want_advertise_in_communities_directory', 'welcome_message_custom_text',
  'workplace_users_group', 'zulip_update_announcements_stream_id',
];

/** Organization fields Zulip reports but never takes through PATCH /realm (the server or uploads maintain them). */
const ZULIP_READ_ONLY = [
  'icon_source', 'icon_url', 'logo_source', 'logo_url', 'night_logo_source', 'night_logo_url', 'plan_type',
  'max_file_upload_size_mib', 'upload_quota_mib', 'push_notifications_enabled', 'push_notifications_enabled_end_timestamp',
  'presence_disabled', 'date_created', 'empty_topic_display_name',
];

test("Zulip's whole list: every writable setting is walked below and accepted; read-only fields are ignored", async () => {
  const walked = new Set([...Object.keys(CASES), ...GROUP_SETTINGS]);
  assert.deepEqual(ZULIP_WRITABLE.filter((n) => !walked.has(n)), [], 'settings the walk does not cover');
  assert.deepEqual([...walked].filter((n) => !ZULIP_WRITABLE.includes(n)), [], 'settings walked that Zulip does not have');
  const reg = await register(member);
  for (const name of ZULIP_WRITABLE) assert.notEqual(reg[`realm_${name}`], undefined, `realm_${name} missing from /register`);
  // The current values sent back all at once: nothing ignored, nothing changes.
  const q = await openQueue(c(member), { event_types: ['realm'] });
  const params: Record<string, unknown> = {};
  for (const name of ZULIP_WRITABLE) {
    if (name === 'description') continue; // /register reports it rendered
    let value = reg[`realm_${name}`];
    if (GROUP_SETTINGS.includes(name)) value = { new: value };
    else if (name.endsWith('_limit_seconds') && value === null) value = 'unlimited';
    else if (name === 'message_retention_days' && value === -1) value = 'unlimited';
    else if (name === 'jitsi_server_url') value = JSON.stringify(value ?? 'default');
    params[name] = value;
  }
  const res = assertSuccess(await c(t.owner).patch('/realm', params));
  assert.equal(res.ignored_parameters_unsupported, undefined);
  assert.deepEqual(await q.ofType('realm'), []);
  const ro = assertSuccess(await c(t.owner).patch('/realm', Object.fromEntries(ZULIP_READ_ONLY.map((n) => [n, reg[`realm_${n}`] ?? 1]))));
  assert.deepEqual([...ro.ignored_parameters_unsupported].sort(), [...ZULIP_READ_ONLY].sort());
});

const register = async (a: Account) => assertSuccess(await c(a).post('/register', { fetch_event_types: ['realm'] }));

test('every simple setting: stored, announced to every user, returned by /register, never ignored', async () => {
  for (const [name, make] of Object.entries(CASES)) {
    const k = make();
    const before = await register(member);
    const qMember = await openQueue(c(member), { event_types: ['realm'] });
    const qAdmin = await openQueue(c(admin), { event_types: ['realm'] });
    const res = assertSuccess(await c(t.owner).patch('/realm', { [name]: k.send }));
    assert.equal(res.ignored_parameters_unsupported, undefined, `${name} was ignored`);
    const expected = k.state === undefined ? k.send : k.state;
    const reg = await register(member);
    assert.notDeepEqual(before[`realm_${name}`], reg[`realm_${name}`], `${name} did not change`);
    assert.deepEqual(reg[`realm_${name}`], expected, name);
    const events = k.events ?? [[name, expected]];
    for (const q of [qMember, qAdmin]) {
      const got = (await q.ofType('realm')).map(({ id: _id, ...e }) => e);
      assert.deepEqual(
        got,
        events.map(([property, value]) =>
          k.dict
            ? { type: 'realm', op: 'update_dict', property: 'default', data: k.data ?? { [property]: value } }
            : { type: 'realm', op: 'update', property, value },
        ),
        name,
      );
    }
    // The same value again changes nothing and sends nothing.
    assertSuccess(await c(t.owner).patch('/realm', { [name]: k.send }));
    assert.deepEqual(await qMember.ofType('realm'), [], `${name} sent an event for no change`);
  }
});

test('every group setting: accepted, announced with update_dict, returned by /register', async () => {
  const groups = assertSuccess(await c(t.owner).get('/user_groups')).user_groups;
  const id = (n: string) => groups.find((g: any) => g.name === n).id;
  for (const name of GROUP_SETTINGS) {
    const current = (await register(member))[`realm_${name}`];
    assert.notEqual(current, undefined, `${name} missing from /register`);
    const next = name === 'can_access_all_users_group' ? id('role:members') : current === id('role:administrators') ? id('role:moderators') : id('role:administrators');
    const q = await openQueue(c(member), { event_types: ['realm'] });
    const res = assertSuccess(await c(t.owner).patch('/realm', { [name]: { new: next } }));
    assert.equal(res.ignored_parameters_unsupported, undefined, `${name} was ignored`);
    assert.deepEqual((await q.ofType('realm')).map(({ id: _id, ...e }) => e), [{ type: 'realm', op: 'update_dict', property: 'default', data: { [name]: next } }], name);
    assert.equal((await register(member))[`realm_${name}`], next, name);
  }
});

test('who may change what: owners only for joining, retention, full-member and group-management settings', async () => {
  for (const [name, value] of [
    ['invite_required', true],
    ['emails_restricted_to_domains', false],
    ['disallow_disposable_email_addresses', true],
    ['waiting_period_threshold', 1],
    ['message_retention_days', 5],
  ] as const) {
    assertError(await c(admin).patch('/realm', { [name]: value }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
  }
  assertError(await c(admin).patch('/realm', { authentication_methods: { Email: true } }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
  assertError(await c(member).patch('/realm', { enable_read_receipts: true }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  assertSuccess(await c(admin).patch('/realm', { inline_url_embed_preview: false }));
});

test("Zulip's errors for bad values", async () => {
  const bad = (params: Record<string, unknown>, msg: string, code = 'BAD_REQUEST') => c(t.owner).patch('/realm', params).then((r) => assertError(r, 400, code, msg));
  await bad({ default_language: 'xx' }, "Invalid language 'xx'");
  await bad({ video_chat_provider: 17 }, 'Invalid video_chat_provider 17');
  await bad({ gif_rating_policy: 9 }, 'Invalid gif_rating_policy 9');
  await bad({ media_preview_size: 120 }, 'Invalid media_preview_size');
  await bad({ default_avatar_source: 'U' }, 'Invalid default_avatar_source');
  await bad({ jitsi_server_url: JSON.stringify('not a url') }, 'jitsi_server_url is not an allowed_type');
  await bad({ message_retention_days: 0 }, "Bad value for 'message_retention_days': 0");
  await bad({ message_retention_days: 'forever' }, "Bad value for 'message_retention_days': forever");
  await bad({ waiting_period_threshold: -1 }, 'waiting_period_threshold is too small');
  await bad({ digest_weekday: 7 }, 'Invalid digest_weekday');
  await bad({ org_type: 11 }, 'Invalid org_type');
  await bad({ message_edit_history_visibility_policy: 'some' }, 'Invalid message_edit_history_visibility_policy');
  await bad({ moderation_request_channel_id: publicId }, 'Moderation request channel must be private.');
  await bad({ zulip_update_announcements_stream_id: 99999 }, 'Invalid channel ID');
  await bad({ string_id: 'newname' }, 'Must be a demo organization.');
  await bad({ authentication_methods: { Email: false } }, 'At least one authentication method must be enabled.');
  await bad({ authentication_methods: { GitHub: true } }, 'Invalid authentication method: GitHub');
  await bad({ welcome_message_custom_text: 'x'.repeat(8001) }, 'welcome_message_custom_text is too long (limit: 8000 characters)');
  // Turning a channel setting off: any negative value, stored as -1.
  assertSuccess(await c(t.owner).patch('/realm', { moderation_request_channel_id: -5 }));
  assert.equal((await register(member)).realm_moderation_request_channel_id, -1);
  // "default" returns jitsi_server_url to the server's.
  assertSuccess(await c(t.owner).patch('/realm', { jitsi_server_url: JSON.stringify('default') }));
  assert.equal((await register(member)).realm_jitsi_server_url, null);
});

test('allowed email domains: add, change, remove, events and /register', async () => {
  const ownerC = c(t.owner);
  assertError(await c(admin).post('/realm/domains', { domain: 'example.org', allow_subdomains: false }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
  assertError(await ownerC.post('/realm/domains', { domain: 'nodot', allow_subdomains: false }), 400, 'BAD_REQUEST', 'Invalid domain: Domain must have at least one dot (.)');
  assertError(await ownerC.post('/realm/domains', { domain: 'a..b', allow_subdomains: false }), 400, 'BAD_REQUEST', "Invalid domain: Consecutive '.' are not allowed.");
  assertError(await ownerC.post('/realm/domains', { domain: 'bad_char.org', allow_subdomains: false }), 400, 'BAD_REQUEST', "Invalid domain: Domain can only have letters, numbers, '.' and '-'s.");
  assertSuccess(await ownerC.patch('/realm', { emails_restricted_to_domains: false }));
  const q = await openQueue(c(member), { event_types: ['realm_domains', 'realm'] });
  const added = assertSuccess(await ownerC.post('/realm/domains', { domain: ' Example.ORG ', allow_subdomains: false }));
  assert.equal(added.new_domain[1], 'example.org');
  assert.equal(typeof added.new_domain[0], 'number');
  assertError(await ownerC.post('/realm/domains', { domain: 'example.org', allow_subdomains: true }), 400, 'BAD_REQUEST', 'The domain example.org is already a part of your organization.');
  assertSuccess(await ownerC.patch('/realm/domains/example.org', { allow_subdomains: true }));
  assertError(await ownerC.patch('/realm/domains/missing.org', { allow_subdomains: true }), 400, 'BAD_REQUEST', 'No entry found for domain missing.org.');
  const list = assertSuccess(await c(member).get('/realm/domains'));
  assert.deepEqual(list.domains, [{ domain: 'example.org', allow_subdomains: true }]);
  const regRes = await c(member).post('/register', { fetch_event_types: ['realm_domains'] });
  assert.deepEqual(assertSuccess(regRes).realm_domains, [{ domain: 'example.org', allow_subdomains: true }]);
  assertSchema(regRes, 'POST', '/register');
  assertSuccess(await ownerC.patch('/realm', { emails_restricted_to_domains: true }));
  assertSuccess(await ownerC.delete('/realm/domains/example.org'));
  assertError(await ownerC.delete('/realm/domains/example.org'), 400, 'BAD_REQUEST', 'No entry found for domain example.org.');
  const evs = (await q.drain()).map(({ id: _id, ...e }) => e);
  assert.deepEqual(evs, [
    { type: 'realm_domains', op: 'add', realm_domain: { domain: 'example.org', allow_subdomains: false } },
    { type: 'realm_domains', op: 'change', realm_domain: { domain: 'example.org', allow_subdomains: true } },
    { type: 'realm', op: 'update', property: 'emails_restricted_to_domains', value: true },
    { type: 'realm_domains', op: 'remove', domain: 'example.org' },
    // Without domains, the restriction cannot stand.
    { type: 'realm', op: 'update', property: 'emails_restricted_to_domains', value: false },
  ]);
});

test('parameters current Zulip no longer has: bot_creation_policy (FL 344) and giphy_rating (FL 453) are ignored', async () => {
  const before = await register(member);
  const q = await openQueue(c(member), { event_types: ['realm'] });
  const res = assertSuccess(await c(t.owner).patch('/realm', { bot_creation_policy: 3, giphy_rating: 0 }));
  assert.deepEqual([...res.ignored_parameters_unsupported].sort(), ['bot_creation_policy', 'giphy_rating']);
  assert.deepEqual(await q.ofType('realm'), []);
  const reg = await register(member);
  assert.equal(reg.realm_gif_rating_policy, before.realm_gif_rating_policy);
  for (const gone of ['realm_bot_creation_policy', 'realm_giphy_rating', 'giphy_rating_options']) assert.equal(reg[gone], undefined, gone);
  assert.deepEqual(Object.keys(reg.gif_rating_policy_options), ['disabled', 'y', 'g', 'pg', 'pg13', 'r']);
});

test('allow_edit_history (FL 358) and mandatory_topics (FL 392) are no longer parameters; /register still derives them', async () => {
  assertSuccess(await c(t.owner).patch('/realm', { message_edit_history_visibility_policy: 'all', topics_policy: 'allow_empty_topic' }));
  const q = await openQueue(c(member), { event_types: ['realm'] });
  const res = assertSuccess(await c(t.owner).patch('/realm', { allow_edit_history: false, mandatory_topics: true }));
  assert.deepEqual([...res.ignored_parameters_unsupported].sort(), ['allow_edit_history', 'mandatory_topics']);
  assert.deepEqual(await q.ofType('realm'), []);
  assertSuccess(await c(t.owner).patch('/realm', { message_edit_history_visibility_policy: 'none', topics_policy: 'disable_empty_topic' }));
  let reg = await register(member);
  assert.deepEqual([reg.realm_allow_edit_history, reg.realm_mandatory_topics], [false, true]);
  assertSuccess(await c(t.owner).patch('/realm', { message_edit_history_visibility_policy: 'moves', topics_policy: 'allow_empty_topic' }));
  reg = await register(member);
  assert.deepEqual([reg.realm_allow_edit_history, reg.realm_mandatory_topics], [true, false]);
  // A change of the edit history policy is announced alone; mandatory_topics still follows topics_policy.
  assert.deepEqual(
    (await q.ofType('realm')).map((e) => [e.property, e.value]),
    [
      ['message_edit_history_visibility_policy', 'none'],
      ['topics_policy', 'disable_empty_topic'],
      ['mandatory_topics', true],
      ['message_edit_history_visibility_policy', 'moves'],
      ['topics_policy', 'allow_empty_topic'],
      ['mandatory_topics', false],
    ],
  );
});

test('workplace_users_group: role:everyone by default; a group whose membership only administrators manage', async () => {
  const groups = assertSuccess(await c(t.owner).get('/user_groups')).user_groups;
  const id = (n: string) => groups.find((g: any) => g.name === n).id;
  const reg = await register(member);
  assert.equal(reg.server_supported_permission_settings.realm.workplace_users_group.default_group_name, 'role:everyone');
  const current = reg.realm_workplace_users_group;
  assertError(await c(admin).patch('/realm', { workplace_users_group: { new: id('role:members') } }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
  // A group its creator manages is refused; one only administrators can change is accepted.
  const open = assertSuccess(await c(admin).post('/user_groups/create', { name: 'staff open', description: '', members: [member.id] })).group_id;
  const msg = "'workplace_users_group' must be a group whose membership can only be managed by organization administrators.";
  assertError(await c(t.owner).patch('/realm', { workplace_users_group: { new: open } }), 400, 'BAD_REQUEST', msg);
  assertError(await c(t.owner).patch('/realm', { workplace_users_group: { new: { direct_members: [admin.id], direct_subgroups: [open] } } }), 400, 'BAD_REQUEST', msg);
  const closed = assertSuccess(
    await c(t.owner).post('/user_groups/create', {
      name: 'staff closed',
      description: '',
      members: [member.id],
      can_add_members_group: id('role:administrators'),
      can_manage_group: id('role:administrators'),
      can_remove_members_group: id('role:nobody'),
      can_join_group: id('role:nobody'),
    }),
  ).group_id;
  assertSuccess(await c(t.owner).patch('/realm', { workplace_users_group: { new: closed } }));
  assert.equal((await register(member)).realm_workplace_users_group, closed);
  assertSuccess(await c(t.owner).patch('/realm', { workplace_users_group: { new: current } }));
});

/** The system groups' names, to try every one against every setting. */
const SYSTEM_GROUP_NAMES = ['role:internet', 'role:everyone', 'role:members', 'role:fullmembers', 'role:moderators', 'role:administrators', 'role:owners', 'role:nobody'];

/** Whether a setting's configuration in server_supported_permission_settings accepts a system group alone. */
function configAllows(config: any, name: string): boolean {
  if (name === 'role:internet' && !config.allow_internet_group) return false;
  if (name === 'role:nobody' && !config.allow_nobody_group) return false;
  if (name === 'role:everyone' && !config.allow_everyone_group) return false;
  return config.allowed_system_groups.length === 0 || config.allowed_system_groups.includes(name);
}

test('server_supported_permission_settings: the shape of Zulip, and exactly what the server accepts', async () => {
  const regRes = await c(member).post('/register', { fetch_event_types: ['realm'] });
  assertSchema(regRes, 'POST', '/register');
  const supported = assertSuccess(regRes).server_supported_permission_settings;
  assert.deepEqual(Object.keys(supported).sort(), ['group', 'realm', 'stream']);
  const keys = ['allow_everyone_group', 'allow_internet_group', 'allow_nobody_group', 'allowed_system_groups', 'default_for_system_groups', 'default_group_name', 'require_system_group'];
  for (const kind of ['realm', 'stream', 'group']) for (const config of Object.values<any>(supported[kind])) assert.deepEqual(Object.keys(config).sort(), keys);
  assert.deepEqual(Object.keys(supported.realm).sort(), [...GROUP_SETTINGS].sort());
  assert.deepEqual(supported.realm.can_access_all_users_group, {
    require_system_group: true,
    allow_internet_group: false,
    allow_nobody_group: false,
    allow_everyone_group: true,
    default_group_name: 'role:everyone',
    default_for_system_groups: null,
    allowed_system_groups: ['role:everyone', 'role:members'],
  });
  assert.equal(supported.stream.can_administer_channel_group.default_group_name, 'channel_creator');
  assert.equal(supported.group.can_manage_group.default_group_name, 'group_creator');
  assert.equal(supported.group.can_mention_group.default_for_system_groups, 'role:nobody');

  const groups = assertSuccess(await c(t.owner).get('/user_groups')).user_groups;
  const id = (n: string) => groups.find((g: any) => g.name === n).id;
  const reg = await register(member);
  // Organization settings: every system group alone, accepted exactly when the configuration says so.
  for (const [setting, config] of Object.entries<any>(supported.realm)) {
    for (const name of SYSTEM_GROUP_NAMES) {
      const res = await c(t.owner).patch('/realm', { [setting]: { new: id(name) } });
      if (configAllows(config, name)) assertSuccess(res);
      else assertError(res, 400, 'BAD_REQUEST', `'${setting}' setting cannot be set to '${name}' group.`);
    }
    const anonymous = await c(t.owner).patch('/realm', { [setting]: { new: { direct_members: [member.id], direct_subgroups: [id('role:moderators')] } } });
    if (config.require_system_group) assertError(anonymous, 400, 'BAD_REQUEST', `'${setting}' must be a system user group.`);
    else assertSuccess(anonymous);
    assertSuccess(await c(t.owner).patch('/realm', { [setting]: { new: reg[`realm_${setting}`] } }));
  }
  // Channel settings.
  assertSuccess(await c(t.owner).post('/users/me/subscriptions', { subscriptions: [{ name: 'permission table' }] }));
  const streamId = await streamIdOf(c(t.owner), 'permission table');
  for (const [setting, config] of Object.entries<any>(supported.stream)) {
    for (const name of SYSTEM_GROUP_NAMES) {
      const res = await c(t.owner).patch(`/streams/${streamId}`, { [setting]: { new: id(name) } });
      if (configAllows(config, name)) assertSuccess(res);
      else assertError(res, 400, 'BAD_REQUEST', `'${setting}' setting cannot be set to '${name}' group.`);
    }
  }
  // User group settings.
  const groupId = assertSuccess(await c(t.owner).post('/user_groups/create', { name: 'permission table', description: '', members: [member.id] })).group_id;
  for (const [setting, config] of Object.entries<any>(supported.group)) {
    for (const name of SYSTEM_GROUP_NAMES) {
      const res = await c(t.owner).patch(`/user_groups/${groupId}`, { [setting]: { new: id(name) } });
      if (configAllows(config, name)) assertSuccess(res);
      else assertError(res, 400, 'BAD_REQUEST', `'${setting}' setting cannot be set to '${name}' group.`);
    }
  }
});
