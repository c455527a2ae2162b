/**
 * Compatibility with the real Zulip clients' strict parsers.
 *
 * zulip-flutter (Dart, json_serializable) and zulip-terminal (Python) fail to
 * connect when a key they require is missing or has another JSON type. The
 * tables below list, per client, the keys each one reads without a fallback
 * and the JSON type it expects, derived from reading the clients' sources
 * (files cited per table; facts only, no code copied). Each client's calls
 * are made with the exact parameters it sends.
 *
 * Type names: string, integer, number, boolean, array, object, null;
 * 'a|b' allows either. A key ending in '?' is optional: checked only when present.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertSuccess, openQueue, FLUTTER_REGISTER, type Account, type Client, type TestServer, streamIdOf } from './helpers.ts';

type Spec = Record<string, string>;

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Asserts every required key of `spec` is in `obj` with an allowed JSON type. */
function assertShape(obj: unknown, spec: Spec, where: string): void {
  assert.equal(jsonType(obj), 'object', `${where}: expected an object, got ${JSON.stringify(obj)?.slice(0, 200)}`);
  const o = obj as Record<string, unknown>;
  for (const [rawKey, types] of Object.entries(spec)) {
    const optional = rawKey.endsWith('?');
    const key = optional ? rawKey.slice(0, -1) : rawKey;
    if (!(key in o)) {
      assert.ok(optional, `${where}: missing required key '${key}'`);
      continue;
    }
    const allowed = types.split('|');
    const actual = jsonType(o[key]);
    const ok = allowed.includes(actual) || (actual === 'integer' && allowed.includes('number'));
    assert.ok(ok, `${where}.${key}: expected ${types}, got ${actual} (${JSON.stringify(o[key])?.slice(0, 120)})`);
  }
}

function assertEach(list: unknown, spec: Spec, where: string, nonEmpty = true): void {
  assert.ok(Array.isArray(list), `${where}: expected an array`);
  if (nonEmpty) assert.ok(list.length > 0, `${where}: expected at least one item to check`);
  list.forEach((item, i) => assertShape(item, spec, `${where}[${i}]`));
}

function assertEachValue(map: unknown, spec: Spec, where: string, nonEmpty = true): void {
  assert.equal(jsonType(map), 'object', `${where}: expected an object`);
  const entries = Object.entries(map as Record<string, unknown>);
  if (nonEmpty) assert.ok(entries.length > 0, `${where}: expected at least one entry to check`);
  for (const [k, v] of entries) assertShape(v, spec, `${where}[${k}]`);
}

// ---------------------------------------------------------------------------
// zulip-flutter: lib/api/route/events.dart (register parameters),
// lib/api/model/initial_snapshot.dart (+ .g.dart), lib/api/model/model.dart (+ .g.dart),
// lib/api/model/events.dart (+ .g.dart), lib/api/model/reaction.dart,
// lib/api/route/messages.dart, lib/api/route/realm.dart, lib/api/route/users.dart.

/** InitialSnapshot (lib/api/model/initial_snapshot.dart). */
const FLUTTER_SNAPSHOT: Spec = {
  'queue_id': 'string|null',
  'last_event_id': 'integer',
  'zulip_feature_level': 'integer',
  'zulip_version': 'string',
  'zulip_merge_base': 'string',
  'alert_words': 'array',
  'custom_profile_fields': 'array',
  'max_stream_name_length': 'integer',
  'max_topic_length': 'integer',
  'server_presence_ping_interval_seconds': 'integer',
  'server_presence_offline_threshold_seconds': 'integer',
  'server_typing_started_expiry_period_milliseconds?': 'integer',
  'server_typing_stopped_wait_period_milliseconds?': 'integer',
  'server_typing_started_wait_period_milliseconds?': 'integer',
  'muted_users': 'array',
  'presences': 'object',
  'realm_emoji': 'object',
  'realm_user_groups': 'array',
  'recent_private_conversations': 'array',
  'saved_snippets?': 'array',
  'subscriptions': 'array',
  'channel_folders?': 'array',
  'unread_msgs': 'object',
  'starred_messages': 'array',
  'streams': 'array',
  'user_status': 'object',
  'user_settings': 'object',
  'user_topics': 'array',
  'devices?': 'object',
  'realm_can_delete_any_message_group?': 'integer|object',
  'realm_can_delete_own_message_group?': 'integer|object',
  'realm_delete_own_message_policy?': 'integer',
  'realm_wildcard_mention_policy': 'integer',
  'realm_topics_policy?': 'string',
  'realm_mandatory_topics?': 'boolean',
  'realm_name': 'string',
  'realm_waiting_period_threshold': 'integer',
  'realm_message_content_delete_limit_seconds': 'integer|null',
  'realm_allow_message_editing': 'boolean',
  'realm_message_content_edit_limit_seconds': 'integer|null',
  'realm_enable_read_receipts': 'boolean',
  'realm_icon_url': 'string',
  'realm_presence_disabled': 'boolean',
  'realm_default_external_accounts': 'object',
  'max_file_upload_size_mib': 'integer',
  'server_thumbnail_formats?': 'array',
  'server_emoji_data_url': 'string',
  'event_queue_longpoll_timeout_seconds': 'integer',
  'realm_moderation_request_channel_id?': 'integer|null',
  'realm_empty_topic_display_name?': 'string',
  'realm_users': 'array',
  'realm_non_active_users': 'array',
  'cross_realm_bots': 'array',
  'server_report_message_types?': 'array',
};

/** User (model.dart); is_active may be absent in register lists (filled in by the client). */
const FLUTTER_USER: Spec = {
  user_id: 'integer',
  'delivery_email?': 'string|null',
  email: 'string',
  full_name: 'string',
  date_joined: 'string',
  is_active: 'boolean',
  is_bot: 'boolean',
  'bot_type?': 'integer|null',
  'bot_owner_id?': 'integer|null',
  role: 'integer',
  timezone: 'string',
  'avatar_url?': 'string|null',
  avatar_version: 'integer',
  'profile_data?': 'object',
  'is_system_bot?': 'boolean',
};

/** ZulipStream (model.dart). */
const FLUTTER_STREAM: Spec = {
  stream_id: 'integer',
  name: 'string',
  'is_archived?': 'boolean',
  description: 'string',
  rendered_description: 'string',
  date_created: 'integer',
  'first_message_id?': 'integer|null',
  invite_only: 'boolean',
  is_web_public: 'boolean',
  history_public_to_subscribers: 'boolean',
  'message_retention_days?': 'integer|null',
  'topics_policy?': 'string',
  'stream_post_policy?': 'integer',
  'folder_id?': 'integer|null',
  'can_add_subscribers_group?': 'integer|object',
  'can_delete_any_message_group?': 'integer|object',
  'can_delete_own_message_group?': 'integer|object',
  'can_send_message_group?': 'integer|object',
  'can_subscribe_group?': 'integer|object',
  'is_recently_active?': 'boolean',
  'stream_weekly_traffic?': 'integer|null',
};

/** Subscription (model.dart): the channel plus personal settings; color is "#rrggbb". */
const FLUTTER_SUBSCRIPTION: Spec = {
  ...FLUTTER_STREAM,
  'desktop_notifications?': 'boolean|null',
  'email_notifications?': 'boolean|null',
  'wildcard_mentions_notify?': 'boolean|null',
  'push_notifications?': 'boolean|null',
  'audible_notifications?': 'boolean|null',
  pin_to_top: 'boolean',
  is_muted: 'boolean',
  color: 'string',
};

/** Message (model.dart; StreamMessage / DmMessage; flags merged in from message events). */
const FLUTTER_MESSAGE: Spec = {
  client: 'string',
  content: 'string',
  content_type: 'string',
  id: 'integer',
  is_me_message: 'boolean',
  'last_edit_timestamp?': 'integer|null',
  'edit_history?': 'array',
  reactions: 'array',
  sender_email: 'string',
  sender_full_name: 'string',
  sender_id: 'integer',
  sender_realm_str: 'string',
  timestamp: 'integer',
  flags: 'array',
  'submessages?': 'array',
  'match_content?': 'string|null',
  'match_subject?': 'string|null',
  type: 'string',
};
const FLUTTER_STREAM_MESSAGE: Spec = { ...FLUTTER_MESSAGE, stream_id: 'integer', subject: 'string', display_recipient: 'string' };
const FLUTTER_DM_MESSAGE: Spec = { ...FLUTTER_MESSAGE, display_recipient: 'array' };

const FLUTTER_CUSTOM_PROFILE_FIELD: Spec = { id: 'integer', type: 'integer', order: 'integer', name: 'string', hint: 'string', field_data: 'string', 'display_in_profile_summary?': 'boolean' };
const FLUTTER_USER_GROUP: Spec = { id: 'integer', members: 'array', direct_subgroup_ids: 'array', name: 'string', description: 'string', is_system_group: 'boolean', 'deactivated?': 'boolean' };
const FLUTTER_UNREADS: Spec = { count: 'integer', pms: 'array', streams: 'array', huddles: 'array', mentions: 'array', old_unreads_missing: 'boolean' };
const FLUTTER_USER_SETTINGS: Spec = {
  twenty_four_hour_time: 'boolean|null',
  starred_message_counts: 'boolean',
  display_emoji_reaction_users: 'boolean',
  emojiset: 'string',
  'web_inbox_show_channel_folders?': 'boolean',
  presence_enabled: 'boolean',
};
const FLUTTER_REALM_EMOJI: Spec = { id: 'string', name: 'string', source_url: 'string', 'still_url?': 'string|null', deactivated: 'boolean', 'author_id?': 'integer|null' };
const FLUTTER_USER_TOPIC: Spec = { stream_id: 'integer', topic_name: 'string', last_updated: 'integer', visibility_policy: 'integer' };
const FLUTTER_EXTERNAL_ACCOUNT: Spec = { name: 'string', text: 'string', hint: 'string', url_pattern: 'string' };

/** GET /messages result (lib/api/route/messages.dart). */
const FLUTTER_GET_MESSAGES: Spec = { anchor: 'integer', found_newest: 'boolean', found_oldest: 'boolean', found_anchor: 'boolean', history_limited: 'boolean', messages: 'array' };

/** GET /server_settings (lib/api/route/realm.dart). */
const FLUTTER_SERVER_SETTINGS: Spec = {
  authentication_methods: 'object',
  external_authentication_methods: 'array',
  zulip_feature_level: 'integer',
  zulip_version: 'string',
  zulip_merge_base: 'string',
  push_notifications_enabled: 'boolean',
  is_incompatible: 'boolean',
  email_auth_enabled: 'boolean',
  require_email_format_usernames: 'boolean',
  realm_uri: 'string',
  realm_name: 'string',
  realm_icon: 'string',
  realm_description: 'string',
  realm_web_public_access_enabled: 'boolean',
};

/** Events (lib/api/model/events.dart), by type (and op). Every event has an integer id. */
const FLUTTER_EVENTS: Record<string, Spec> = {
  'message': { id: 'integer', message: 'object', flags: 'array', 'local_message_id?': 'string|null' },
  'typing': { id: 'integer', op: 'string', message_type: 'string', sender: 'object', 'recipients?': 'array', 'stream_id?': 'integer', 'topic?': 'string' },
  'presence': { id: 'integer', user_id: 'integer', server_timestamp: 'number', presence: 'object' },
  'subscription/add': { id: 'integer', subscriptions: 'array' },
  'subscription/remove': { id: 'integer', subscriptions: 'array' },
  'subscription/update': { id: 'integer', stream_id: 'integer', property: 'string', value: 'boolean|string' },
  'subscription/peer_add': { id: 'integer', stream_ids: 'array', user_ids: 'array' },
  'subscription/peer_remove': { id: 'integer', stream_ids: 'array', user_ids: 'array' },
  'stream/create': { id: 'integer', streams: 'array' },
  'stream/delete': { id: 'integer', 'stream_ids?': 'array', 'streams?': 'array' },
  'stream/update': { id: 'integer', stream_id: 'integer', name: 'string', property: 'string', 'rendered_description?': 'string', 'history_public_to_subscribers?': 'boolean', 'is_web_public?': 'boolean' },
  'realm_user/add': { id: 'integer', person: 'object' },
  'realm_user/update': { id: 'integer', person: 'object' },
  'user_status': { id: 'integer', user_id: 'integer', 'status_text?': 'string|null', 'emoji_name?': 'string|null', 'emoji_code?': 'string|null', 'reaction_type?': 'string|null' },
  'update_message_flags/add': { id: 'integer', flag: 'string', messages: 'array', all: 'boolean' },
  'update_message_flags/remove': { id: 'integer', flag: 'string', messages: 'array', 'message_details?': 'object' },
  'delete_message': { id: 'integer', message_ids: 'array', message_type: 'string', 'stream_id?': 'integer', 'topic?': 'string' },
  'custom_profile_fields': { id: 'integer', fields: 'array' },
  'user_settings/update': { id: 'integer', property: 'string' },
  'heartbeat': { id: 'integer' },
};

// ---------------------------------------------------------------------------
// zulip-terminal: zulipterminal/model.py (register parameters, initial_data
// keys read with [] rather than .get), zulipterminal/helper.py
// (classify_unread_counts), zulipterminal/api_types.py.

const TERMINAL_EVENT_TYPES = ['message', 'update_message', 'reaction', 'submessage', 'subscription', 'typing', 'update_message_flags', 'user_settings', 'realm_emoji', 'realm_user'];
const TERMINAL_REGISTER = {
  event_types: TERMINAL_EVENT_TYPES,
  fetch_event_types: ['realm', 'presence', 'subscription', 'message', 'starred_messages', 'update_message_flags', 'muted_topics', 'realm_user', 'realm_user_groups', 'user_settings', 'realm_emoji', 'custom_profile_fields', 'zulip_version'],
  client_gravatar: true,
  apply_markdown: true,
  include_subscribers: true,
};

const TERMINAL_INITIAL_DATA: Spec = {
  queue_id: 'string',
  last_event_id: 'integer',
  max_message_id: 'integer',
  zulip_version: 'string',
  zulip_feature_level: 'integer',
  subscriptions: 'array',
  muted_topics: 'array',
  realm_user_groups: 'array',
  realm_emoji: 'object',
  user_settings: 'object',
  realm_message_retention_days: 'integer|null',
  user_id: 'integer',
  email: 'string',
  full_name: 'string',
  realm_name: 'string',
  custom_profile_fields: 'array',
  presences: 'object',
  realm_users: 'array',
  cross_realm_bots: 'array',
  unread_msgs: 'object',
  starred_messages: 'array',
};
const TERMINAL_SUBSCRIPTION: Spec = {
  stream_id: 'integer',
  name: 'string',
  color: 'string',
  description: 'string',
  invite_only: 'boolean',
  subscribers: 'array',
  pin_to_top: 'boolean',
  is_muted: 'boolean',
  desktop_notifications: 'boolean|null',
  message_retention_days: 'integer|null',
};
const TERMINAL_USER: Spec = { user_id: 'integer', full_name: 'string', email: 'string', is_bot: 'boolean' };
const TERMINAL_USER_SETTINGS: Spec = { send_private_typing_notifications: 'boolean', twenty_four_hour_time: 'boolean', pm_content_in_desktop_notifications: 'boolean' };
const TERMINAL_UNREADS: Spec = { mentions: 'array', pms: 'array', streams: 'array', huddles: 'array' };
const TERMINAL_CUSTOM_PROFILE_FIELD: Spec = { id: 'integer', name: 'string', type: 'integer', field_data: 'string', order: 'integer' };
const TERMINAL_GET_MESSAGES: Spec = { anchor: 'integer', found_newest: 'boolean', messages: 'array' };
const TERMINAL_MESSAGE: Spec = { id: 'integer', sender_id: 'integer', content: 'string', timestamp: 'integer', type: 'string', display_recipient: 'string|array', sender_full_name: 'string', sender_email: 'string', reactions: 'array', submessages: 'array', flags: 'array', topic_links: 'array' };
const TERMINAL_EVENTS: Record<string, Spec> = {
  'message': { message: 'object', flags: 'array' },
  'typing': { op: 'string', sender: 'object' },
  'subscription/update': { stream_id: 'integer', property: 'string' },
  'subscription/add': { subscriptions: 'array' },
  'subscription/peer_add': { stream_ids: 'array', user_ids: 'array' },
  'update_message_flags/add': { op: 'string', all: 'boolean', flag: 'string', messages: 'array' },
  'update_message_flags/remove': { op: 'string', all: 'boolean', flag: 'string', messages: 'array' },
  'realm_user/update': { person: 'object' },
  'user_settings/update': { op: 'string', property: 'string' },
};

// ---------------------------------------------------------------------------

let t: TestServer;
let owner: Client;
let member: Account;
let guest: Account;
let bot: Account;
let secretId: number;
let streamMsg: number;
let dmMsg: number;
let groupDmMsg: number;

before(async () => {
  t = await startTestServer();
  owner = t.client(t.owner);
  member = await t.makeUser({ name: 'Member Compat' });
  guest = await t.makeUser({ name: 'Guest Compat', role: 600 });
  bot = await t.makeUser({ name: 'Bot Compat', isBot: true, botOwnerId: t.owner.id, botType: 1 });
  const db = t.server.svc.store.db;
  const field = assertSuccess(await owner.post('/realm/profile_fields', { name: 'Phone', field_type: 1, hint: 'a number' })).id as number;
  assertSuccess(await owner.patch('/users/me/profile_data', { data: [{ id: field, value: '555' }] }));
  assertSuccess(await owner.post('/users/me/status', { status_text: 'in a meeting', emoji_name: 'car' }));
  assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'compat secret' }], invite_only: true, principals: [t.owner.id, member.id] }));
  secretId = await streamIdOf(owner, 'compat secret');
  streamMsg = assertSuccess(await owner.post('/messages', { type: 'stream', to: 'general', topic: 'compat', content: 'hello' })).id;
  assertSuccess(await t.client(member).post('/messages', { type: 'stream', to: 'compat secret', topic: 'plans', content: 'hi @**all**' }));
  dmMsg = assertSuccess(await t.client(member).post('/messages', { type: 'direct', to: [t.owner.id], content: 'a dm' })).id;
  groupDmMsg = assertSuccess(await t.client(member).post('/messages', { type: 'direct', to: [t.owner.id, guest.id], content: 'a group dm' })).id;
  assertSuccess(await owner.post('/messages/flags', { messages: [streamMsg], op: 'add', flag: 'starred' }));
  assertSuccess(await owner.post('/users/me/presence', { status: 'active' }));
  assertSuccess(await t.client(member).post('/users/me/presence', { status: 'idle' }));
  // Rows for features with no API yet, to check the shapes of their register sections.
  await db.insertInto('realm_emoji').values({ realm_id: t.server.svc.realmId, name: 'parrot', author_id: t.owner.id, file_name: 'parrot.png', deactivated: 0 }).execute();
  // (Starting the topic made the owner follow it: replace that with a muted row.)
  await db.deleteFrom('user_topics').where('user_id', '=', t.owner.id).where('stream_id', '=', 1).where('topic', '=', 'compat').execute();
  await db.insertInto('user_topics').values({ user_id: t.owner.id, stream_id: 1, topic: 'compat', visibility_policy: 1, last_updated: Math.floor(Date.now() / 1000) }).execute();
});
after(() => t.close());

test('zulip-flutter: POST /register has every key the app requires, with the right types', async () => {
  const s = assertSuccess(await owner.post('/register', FLUTTER_REGISTER));
  assertShape(s, FLUTTER_SNAPSHOT, 'register');
  assertEach(s.custom_profile_fields, FLUTTER_CUSTOM_PROFILE_FIELD, 'custom_profile_fields');
  assertEach(s.realm_user_groups, FLUTTER_USER_GROUP, 'realm_user_groups');
  assertEach(s.recent_private_conversations, { max_message_id: 'integer', user_ids: 'array' }, 'recent_private_conversations');
  assertEach(s.subscriptions, FLUTTER_SUBSCRIPTION, 'subscriptions');
  for (const sub of s.subscriptions) assert.match(sub.color, /^#[0-9a-f]{6}$/);
  assertEach(s.streams, FLUTTER_STREAM, 'streams');
  assertShape(s.unread_msgs, FLUTTER_UNREADS, 'unread_msgs');
  assertEach(s.unread_msgs.pms, { other_user_id: 'integer', unread_message_ids: 'array' }, 'unread_msgs.pms');
  assertEach(s.unread_msgs.streams, { topic: 'string', stream_id: 'integer', unread_message_ids: 'array' }, 'unread_msgs.streams');
  assertEach(s.unread_msgs.huddles, { user_ids_string: 'string', unread_message_ids: 'array' }, 'unread_msgs.huddles');
  // Welcome Bot's greeting to the first owner (starred, as every new account's is), then the one starred here.
  assert.equal(s.starred_messages.length, 2);
  assert.equal(s.starred_messages[1], streamMsg);
  // Presence in the modern (slim) format: user ID → timestamps.
  assertEachValue(s.presences, { active_timestamp: 'integer', idle_timestamp: 'integer' }, 'presences');
  for (const k of Object.keys(s.presences)) assert.match(k, /^\d+$/);
  assertEachValue(s.user_status, { 'status_text?': 'string', 'emoji_name?': 'string', 'emoji_code?': 'string', 'reaction_type?': 'string' }, 'user_status');
  assertShape(s.user_settings, FLUTTER_USER_SETTINGS, 'user_settings');
  assert.ok(['google', 'google-blob', 'twitter', 'text'].includes(s.user_settings.emojiset));
  assertEachValue(s.realm_emoji, FLUTTER_REALM_EMOJI, 'realm_emoji');
  assertEach(s.user_topics, FLUTTER_USER_TOPIC, 'user_topics');
  assertEachValue(s.realm_default_external_accounts, FLUTTER_EXTERNAL_ACCOUNT, 'realm_default_external_accounts');
  // Enumerations the app decodes strictly.
  assert.ok([1, 2, 3, 5, 6, 7].includes(s.realm_wildcard_mention_policy));
  if ('realm_delete_own_message_policy' in s) assert.ok([1, 2, 3, 4, 5].includes(s.realm_delete_own_message_policy));
  assert.ok('realm_can_delete_own_message_group' in s || 'realm_delete_own_message_policy' in s, 'one of the delete-own-message permissions');
  for (const u of [...s.realm_users, ...s.realm_non_active_users, ...s.cross_realm_bots]) {
    assertShape({ is_active: true, ...u }, FLUTTER_USER, `user ${u.user_id}`);
    assert.ok([100, 200, 300, 400, 600].includes(u.role));
  }
  const kinds = s.realm_users.map((u: any) => (u.is_bot ? 'bot' : u.role === 600 ? 'guest' : 'member'));
  for (const k of ['bot', 'guest', 'member']) assert.ok(kinds.includes(k), `realm_users includes a ${k}`);
  const me = s.realm_users.find((u: any) => u.user_id === t.owner.id);
  assertEachValue(me.profile_data, { value: 'string', 'rendered_value?': 'string' }, 'profile_data');
  // Push notifications are not offered; the snapshot must not claim them.
  assert.equal(s.realm_push_notifications_enabled, false);
});

test('zulip-flutter: GET /messages, GET /users/me, GET /server_settings parse', async () => {
  const r = assertSuccess(
    await owner.get('/messages', { narrow: [], anchor: 'newest', num_before: 20, num_after: 0, client_gravatar: false, apply_markdown: true, allow_empty_topic_name: true }),
  );
  assertShape(r, FLUTTER_GET_MESSAGES, 'GET /messages');
  const byId = new Map<number, any>(r.messages.map((m: any) => [m.id, m]));
  assertShape(byId.get(streamMsg), FLUTTER_STREAM_MESSAGE, 'stream message');
  for (const id of [dmMsg, groupDmMsg]) {
    assertShape(byId.get(id), FLUTTER_DM_MESSAGE, 'direct message');
    assertEach(byId.get(id).display_recipient, { id: 'integer' }, 'display_recipient');
  }
  for (const m of r.messages) {
    assert.ok(['stream', 'private'].includes(m.type));
    for (const f of m.flags) assert.equal(typeof f, 'string');
  }
  const one = assertSuccess(await owner.get(`/messages/${streamMsg}`, { apply_markdown: true, allow_empty_topic_name: true }));
  assertShape(one.message, { ...FLUTTER_STREAM_MESSAGE, 'flags?': 'array' }, 'GET /messages/{id}');
  assertShape(assertSuccess(await owner.get('/users/me')), { user_id: 'integer' }, 'GET /users/me');
  const ss = assertSuccess(await t.client(null).get('/server_settings'));
  assertShape(ss, FLUTTER_SERVER_SETTINGS, 'GET /server_settings');
  assertShape(ss.authentication_methods, { ldap: 'boolean' }, 'authentication_methods');
  assert.equal(ss.push_notifications_enabled, false);
});

test('zulip-terminal: POST /register has every key the client reads, with the right types', async () => {
  const s = assertSuccess(await owner.post('/register', TERMINAL_REGISTER));
  assertShape(s, TERMINAL_INITIAL_DATA, 'register');
  assertEach(s.subscriptions, TERMINAL_SUBSCRIPTION, 'subscriptions');
  assertEach(s.realm_users, TERMINAL_USER, 'realm_users');
  assertEach(s.realm_user_groups, { id: 'integer', name: 'string' }, 'realm_user_groups');
  assertShape(s.user_settings, TERMINAL_USER_SETTINGS, 'user_settings');
  assertShape(s.unread_msgs, TERMINAL_UNREADS, 'unread_msgs');
  assertEach(s.unread_msgs.pms, { sender_id: 'integer', unread_message_ids: 'array' }, 'unread_msgs.pms');
  assertEach(s.unread_msgs.streams, { stream_id: 'integer', topic: 'string', unread_message_ids: 'array' }, 'unread_msgs.streams');
  assertEach(s.unread_msgs.huddles, { user_ids_string: 'string', unread_message_ids: 'array' }, 'unread_msgs.huddles');
  for (const h of s.unread_msgs.huddles) assert.match(h.user_ids_string, /^\d+(,\d+)*$/);
  assertEach(s.custom_profile_fields, TERMINAL_CUSTOM_PROFILE_FIELD, 'custom_profile_fields');
  assertEachValue(s.realm_emoji, { name: 'string', deactivated: 'boolean' }, 'realm_emoji');
  // muted_topics: [channel name, topic, date muted] triples.
  assert.ok(s.muted_topics.length > 0);
  for (const m of s.muted_topics) assert.deepEqual(m.map(jsonType), ['string', 'string', 'integer']);
  // Legacy presence (no slim_presence): by email, per client plus "aggregated".
  assertEachValue(s.presences, { aggregated: 'object' }, 'presences');
  for (const [email, p] of Object.entries<any>(s.presences)) {
    assert.match(email, /@/);
    assertShape(p.aggregated, { status: 'string', timestamp: 'integer' }, `presences[${email}].aggregated`);
    for (const [client, cp] of Object.entries<any>(p)) if (client !== 'aggregated') assertShape(cp, { status: 'string', timestamp: 'integer' }, `presences[${email}][${client}]`);
  }
  // Presence pings answer with the same legacy map.
  const ping = assertSuccess(await owner.post('/users/me/presence', { status: 'active', new_user_input: true }));
  assertShape(ping, { presences: 'object' }, 'POST /users/me/presence');
});

test('zulip-terminal: GET /messages parses', async () => {
  const r = assertSuccess(
    await owner.get('/messages', { anchor: 0, num_before: 30, num_after: 10, apply_markdown: true, use_first_unread_anchor: true, client_gravatar: true, narrow: '[]' }),
  );
  assertShape(r, TERMINAL_GET_MESSAGES, 'GET /messages');
  assertEach(r.messages, TERMINAL_MESSAGE, 'messages');
  for (const m of r.messages) if (m.type === 'stream') assertShape(m, { stream_id: 'integer', subject: 'string' }, 'stream message');
});

function eventKey(e: any): string {
  return e.op !== undefined && !['message', 'typing', 'delete_message', 'user_status', 'presence'].includes(e.type) ? `${e.type}/${e.op}` : e.type;
}

test('events parse in both clients: message, typing, presence, subscription, stream, realm_user, user_status, flags, deletion', async () => {
  const flutterQ = await openQueue(owner, FLUTTER_REGISTER);
  const terminalQ = await openQueue(owner, TERMINAL_REGISTER);

  // Messages (channel and direct), typing (direct and channel).
  assertSuccess(await t.client(member).post('/messages', { type: 'stream', to: 'general', topic: 'events', content: 'event msg' }));
  assertSuccess(await t.client(member).post('/messages', { type: 'direct', to: [t.owner.id], content: 'event dm' }));
  assertSuccess(await t.client(member).post('/typing', { op: 'start', type: 'direct', to: [t.owner.id] }));
  assertSuccess(await t.client(member).post('/typing', { op: 'start', type: 'channel', stream_id: 1, topic: 'events' }));
  // Presence of another user.
  assertSuccess(await t.client(member).post('/users/me/presence', { status: 'active', new_user_input: true }));
  // A new channel: stream create, subscription add and peer_add; then property updates and removal.
  assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'compat events' }], principals: [t.owner.id, member.id] }));
  const chan = await streamIdOf(owner, 'compat events');
  assertSuccess(await owner.post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: chan, property: 'pin_to_top', value: true }, { stream_id: chan, property: 'color', value: '#a6c7e5' }] }));
  assertSuccess(await owner.patch(`/streams/${chan}`, { description: 'now described' }));
  assertSuccess(await t.client(member).delete('/users/me/subscriptions', { subscriptions: ['compat events'] }));
  assertSuccess(await owner.delete('/users/me/subscriptions', { subscriptions: ['compat events'] }));
  // Users: a new one, a renamed one; a status.
  const newcomer = await t.makeUser({ name: 'Newcomer Compat' });
  assertSuccess(await owner.patch(`/users/${newcomer.id}`, { full_name: 'Renamed Compat' }));
  assertSuccess(await owner.post('/users/me/status', { status_text: 'back', emoji_name: '', emoji_code: '', reaction_type: '' }));
  // Flags: read (add), starred (add and remove).
  assertSuccess(await owner.post('/messages/flags', { messages: [dmMsg], op: 'add', flag: 'read' }));
  assertSuccess(await owner.post('/messages/flags', { messages: [dmMsg], op: 'add', flag: 'starred' }));
  assertSuccess(await owner.post('/messages/flags', { messages: [dmMsg], op: 'remove', flag: 'starred' }));
  assertSuccess(await owner.post('/messages/flags', { messages: [dmMsg], op: 'remove', flag: 'read' }));
  // Deletion: a deactivated user's messages.
  const leaver = await t.makeUser({ name: 'Leaver Compat' });
  assertSuccess(await t.client(leaver).post('/messages', { type: 'stream', to: 'general', topic: 'bye', content: 'bye' }));
  assertSuccess(await t.client(leaver).post('/messages', { type: 'direct', to: [t.owner.id], content: 'bye dm' }));
  assertSuccess(await owner.delete(`/users/${leaver.id}`, { actions: { delete_public_channel_messages: true, delete_private_channel_messages: true, delete_direct_messages: true } }));

  const flutterEvents = await flutterQ.drain();
  const seen = new Set<string>();
  for (const e of flutterEvents) {
    const key = eventKey(e);
    const spec = FLUTTER_EVENTS[key];
    if (!spec) continue;
    seen.add(key);
    assertShape(e, spec, `flutter event ${key}`);
    switch (key) {
      case 'message': {
        const m = { ...e.message, flags: e.flags };
        assertShape(m, m.type === 'stream' ? FLUTTER_STREAM_MESSAGE : FLUTTER_DM_MESSAGE, 'message event message');
        break;
      }
      case 'typing':
        assertShape(e.sender, { user_id: 'integer' }, 'typing.sender');
        assert.ok(['stream', 'direct', 'private'].includes(e.message_type));
        if (e.message_type === 'stream') assertShape(e, { stream_id: 'integer', topic: 'string' }, 'stream typing');
        else assertEach(e.recipients, { user_id: 'integer' }, 'typing.recipients');
        break;
      case 'presence':
        assertEachValue(e.presence, { client: 'string', status: 'string', timestamp: 'integer', pushable: 'boolean' }, 'presence.presence');
        for (const p of Object.values<any>(e.presence)) assert.ok(['active', 'idle'].includes(p.status));
        break;
      case 'subscription/add':
        assertEach(e.subscriptions, FLUTTER_SUBSCRIPTION, 'subscription add');
        break;
      case 'subscription/remove':
        assertEach(e.subscriptions, { stream_id: 'integer' }, 'subscription remove');
        break;
      case 'subscription/update':
        if (e.property === 'color') assert.match(e.value, /^#[0-9a-f]{6}$/);
        else assert.equal(typeof e.value, 'boolean');
        break;
      case 'stream/create':
        assertEach(e.streams, FLUTTER_STREAM, 'stream create');
        break;
      case 'realm_user/add':
        assertShape({ is_active: true, ...e.person }, FLUTTER_USER, 'realm_user add person');
        break;
      case 'realm_user/update':
        assertShape(e.person, { user_id: 'integer', 'full_name?': 'string', 'avatar_url?': 'string|null', 'avatar_version?': 'integer', 'timezone?': 'string', 'role?': 'integer', 'new_email?': 'string', 'is_active?': 'boolean', 'custom_profile_field?': 'object' }, 'realm_user update person');
        break;
      case 'delete_message':
        assert.ok(['stream', 'private', 'direct'].includes(e.message_type));
        if (e.message_type === 'stream') assertShape(e, { stream_id: 'integer', topic: 'string' }, 'stream delete_message');
        break;
      case 'update_message_flags/remove':
        if (e.message_details) assertEachValue(e.message_details, { type: 'string', 'mentioned?': 'boolean', 'user_ids?': 'array', 'stream_id?': 'integer', 'topic?': 'string' }, 'message_details');
        break;
    }
  }
  for (const k of ['message', 'typing', 'presence', 'subscription/add', 'subscription/remove', 'subscription/update', 'subscription/peer_add', 'subscription/peer_remove', 'stream/create', 'stream/update', 'realm_user/add', 'realm_user/update', 'user_status', 'update_message_flags/add', 'update_message_flags/remove', 'delete_message']) {
    assert.ok(seen.has(k), `zulip-flutter queue got a ${k} event`);
  }

  const terminalEvents = await terminalQ.drain();
  const tSeen = new Set<string>();
  for (const e of terminalEvents) {
    assert.ok(TERMINAL_EVENT_TYPES.includes(e.type), `terminal queue got only its types (got ${e.type})`);
    const key = eventKey(e);
    const spec = TERMINAL_EVENTS[key];
    if (!spec) continue;
    tSeen.add(key);
    assertShape(e, spec, `terminal event ${key}`);
    if (key === 'message') assertShape({ ...e.message, flags: e.flags }, TERMINAL_MESSAGE, 'terminal message event');
    if (key === 'typing') assertShape(e.sender, { user_id: 'integer', email: 'string' }, 'typing.sender');
    if (key === 'realm_user/update') assertShape(e.person, { user_id: 'integer' }, 'realm_user update person');
    if (key === 'subscription/add') assertEach(e.subscriptions, TERMINAL_SUBSCRIPTION, 'subscription add');
  }
  for (const k of ['message', 'typing', 'subscription/update', 'subscription/add', 'update_message_flags/add', 'update_message_flags/remove', 'realm_user/update']) {
    assert.ok(tSeen.has(k), `zulip-terminal queue got a ${k} event`);
  }
});

test('zulip-flutter: heartbeat events parse', async () => {
  const t2 = await startTestServer({ PARLEY_HEARTBEAT_SECONDS: '1' });
  try {
    const c = t2.client(t2.owner);
    const q = await openQueue(c, FLUTTER_REGISTER);
    const res = assertSuccess(await c.get('/events', { queue_id: q.queueId, last_event_id: -1 }));
    assertShape(res, { events: 'array', 'queue_id?': 'string|null' }, 'GET /events');
    assertShape(res.events[0], FLUTTER_EVENTS.heartbeat, 'heartbeat');
    assert.equal(res.events[0].type, 'heartbeat');
  } finally {
    await t2.close();
  }
});
