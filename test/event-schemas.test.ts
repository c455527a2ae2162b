/**
 * Event payloads against Zulip's OpenAPI description (the `events` items of
 * the GET /events 200 response, FL 247 reference): message, subscription
 * add/remove/update/peer_add/peer_remove, stream create/update,
 * realm_user add/update, user_status, typing start/stop, presence,
 * update_message_flags add/remove, delete_message, custom_profile_fields.
 * Each event is validated on its own (wrapped in a one-event response) so a
 * failure names the event; fields Zulip added after FL 247 are listed in
 * POST_247_FIELDS (test/helpers.ts).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertSuccess, assertSchema, haveOpenApi, openQueue, readOpenApiDocument, type Account, type Client, type Res, type TestServer, streamIdOf } from './helpers.ts';

let t: TestServer;
let owner: Client;
let member: Account;

before(async () => {
  t = await startTestServer();
  owner = t.client(t.owner);
  member = await t.makeUser({ name: 'Schema Member' });
});
after(() => t.close());

let variants: any[] | undefined;
let components: Record<string, any> = {};

/** The event variants (oneOf items) of the GET /events response in the reference OpenAPI. */
function eventVariants(): any[] {
  if (!variants) {
    const doc = readOpenApiDocument();
    components = doc.components.schemas;
    variants = doc.paths['/events'].get.responses['200'].content['application/json'].schema.allOf[1].properties.events.items.oneOf;
  }
  return variants!;
}

function variantProperties(v: any): Record<string, any> {
  const parts = [...(v.allOf ?? []), v].map((x: any) => x.properties ?? (x.$ref ? components[x.$ref.split('/').pop()]?.properties : undefined) ?? {});
  return Object.assign({}, ...parts);
}

/**
 * Validates one event as the only item of a GET /events response (types,
 * no unknown keys), then checks completeness, which the OpenAPI's event
 * schemas do not express with `required`: every property of the event's
 * variant (matched by type and op) must be present unless its description
 * says it is conditional or deprecated.
 */
function assertEventSchema(event: Record<string, any>): void {
  const res: Res = { status: 200, body: { result: 'success', msg: '', queue_id: 'q', events: [event] }, headers: new Headers(), text: '' };
  assertSchema(res, 'GET', '/events');
  if (!haveOpenApi()) return;
  const candidates = eventVariants().filter((v) => {
    const p = variantProperties(v);
    const types: string[] | undefined = p.type?.allOf?.[1]?.enum;
    const ops: string[] | undefined = p.op?.enum;
    return types?.includes(event.type) && (!ops || ops.includes(event.op));
  });
  assert.ok(candidates.length > 0, `the OpenAPI describes ${event.type}/${event.op ?? ''}`);
  const complete = candidates.some((v) =>
    Object.entries(variantProperties(v)).every(([k, d]: [string, any]) => k in event || /present|optional|deprecated|only|if |when /i.test(d.description ?? '')),
  );
  assert.ok(complete, `${event.type}/${event.op ?? ''} has every property its OpenAPI variant lists: ${JSON.stringify(event).slice(0, 400)}`);
}

const key = (e: any): string => (typeof e.op === 'string' ? `${e.type}/${e.op}` : e.type);

/** Drains a queue, validates every event, and returns the keys seen. */
async function validateAll(q: Awaited<ReturnType<typeof openQueue>>): Promise<Set<string>> {
  const events = await q.drain();
  const seen = new Set<string>();
  for (const e of events) {
    assertEventSchema(e);
    seen.add(key(e));
  }
  return seen;
}

test('message, typing, presence, flags and user_status events match the OpenAPI', async () => {
  // Modern clients (flags with message_details) and legacy ones both.
  const q = await openQueue(owner, { apply_markdown: true, client_gravatar: false, client_capabilities: { stream_typing_notifications: true } });
  const legacy = await openQueue(owner, { event_types: ['message', 'presence', 'typing'], apply_markdown: false, slim_presence: true });
  const channelMsg = assertSuccess(await t.client(member).post('/messages', { type: 'stream', to: 'general', topic: 'schemas', content: 'hello **there**' })).id;
  assertSuccess(await t.client(member).post('/messages', { type: 'direct', to: [t.owner.id], content: 'dm' }));
  assertSuccess(await t.client(member).post('/typing', { op: 'start', type: 'direct', to: [t.owner.id] }));
  assertSuccess(await t.client(member).post('/typing', { op: 'stop', type: 'direct', to: [t.owner.id] }));
  assertSuccess(await t.client(member).post('/typing', { op: 'start', type: 'channel', stream_id: 1, topic: 'schemas' }));
  assertSuccess(await t.client(member).post('/users/me/presence', { status: 'active', new_user_input: true }));
  assertSuccess(await owner.post('/messages/flags', { messages: [channelMsg], op: 'add', flag: 'read' }));
  assertSuccess(await owner.post('/messages/flags', { messages: [channelMsg], op: 'remove', flag: 'read' }));
  assertSuccess(await owner.post('/messages/flags', { messages: [channelMsg], op: 'add', flag: 'starred' }));
  assertSuccess(await t.client(member).post('/users/me/status', { status_text: 'lunch', emoji_name: 'car' }));
  assertSuccess(await t.client(member).post('/users/me/status', { status_text: '', emoji_name: '' }));

  const seen = await validateAll(q);
  for (const k of ['message', 'typing/start', 'typing/stop', 'presence', 'update_message_flags/add', 'update_message_flags/remove', 'user_status']) {
    assert.ok(seen.has(k), `got a ${k} event (${[...seen].join(', ')})`);
  }
  const legacySeen = await validateAll(legacy);
  for (const k of ['message', 'presence', 'typing/start']) assert.ok(legacySeen.has(k), `legacy queue got a ${k} event`);
});

test('subscription and stream events match the OpenAPI', async () => {
  const q = await openQueue(owner, { event_types: ['subscription', 'stream'] });
  const peer = await openQueue(t.client(member), { event_types: ['subscription', 'stream'] });
  assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'schema channel', description: 'about' }] }));
  const id = await streamIdOf(owner, 'schema channel');
  assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'schema channel' }], principals: [member.id] }));
  assertSuccess(await owner.post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: id, property: 'is_muted', value: true }, { stream_id: id, property: 'color', value: '#e79ab5' }] }));
  assertSuccess(await owner.patch(`/streams/${id}`, { description: 'changed' }));
  assertSuccess(await owner.patch(`/streams/${id}`, { new_name: 'schema channel 2' }));
  assertSuccess(await t.client(member).delete('/users/me/subscriptions', { subscriptions: ['schema channel 2'] }));
  assertSuccess(await owner.delete('/users/me/subscriptions', { subscriptions: ['schema channel 2'] }));

  const seen = await validateAll(q);
  for (const k of ['stream/create', 'subscription/add', 'subscription/peer_add', 'subscription/update', 'stream/update', 'subscription/peer_remove', 'subscription/remove']) {
    assert.ok(seen.has(k), `got a ${k} event (${[...seen].join(', ')})`);
  }
  const peerSeen = await validateAll(peer);
  assert.ok(peerSeen.has('subscription/add'));
});

test('realm_user, custom_profile_fields and delete_message events match the OpenAPI', async () => {
  const q = await openQueue(owner, { event_types: ['realm_user', 'custom_profile_fields', 'delete_message'], client_capabilities: { bulk_message_deletion: true } });
  const legacyDelete = await openQueue(owner, { event_types: ['delete_message'] });
  const newcomer = await t.makeUser({ name: 'Schema Newcomer' });
  assertSuccess(await owner.patch(`/users/${newcomer.id}`, { full_name: 'Schema Renamed' }));
  assertSuccess(await owner.patch(`/users/${newcomer.id}`, { role: 300 }));
  const field = assertSuccess(await owner.post('/realm/profile_fields', { name: 'Team', field_type: 1, hint: '' })).id as number;
  assertSuccess(await t.client(newcomer).patch('/users/me/profile_data', { data: [{ id: field, value: 'infra' }] }));
  assertSuccess(await t.client(newcomer).post('/messages', { type: 'stream', to: 'general', topic: 'bye', content: 'bye' }));
  assertSuccess(await t.client(newcomer).post('/messages', { type: 'direct', to: [t.owner.id], content: 'bye' }));
  assertSuccess(await owner.delete(`/users/${newcomer.id}`, { actions: { delete_public_channel_messages: true, delete_private_channel_messages: true, delete_direct_messages: true } }));

  const seen = await validateAll(q);
  for (const k of ['realm_user/add', 'realm_user/update', 'custom_profile_fields', 'delete_message']) {
    assert.ok(seen.has(k), `got a ${k} event (${[...seen].join(', ')})`);
  }
  const legacySeen = await validateAll(legacyDelete);
  assert.ok(legacySeen.has('delete_message'));
});
