/** POST/DELETE /messages/{message_id}/reactions, reaction events, reactions in message objects and has:reaction. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account, type Client, type Res } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';
import { ROLE } from '../src/store/users.ts';

let t: TestServer;
let alice: Account, bob: Account, carol: Account, guest: Account;
let A: Client, B: Client, C: Client, G: Client;
let pubMsg: number, privMsg: number, dm: number;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  carol = await t.makeUser({ name: 'Carol' });
  guest = await t.makeUser({ name: 'Guest', role: ROLE.GUEST });
  [A, B, C, G] = [alice, bob, carol, guest].map((u) => t.client(u));
  await makeChannel(t, { name: 'pub', subscribers: [alice.id, bob.id] });
  await makeChannel(t, { name: 'priv', inviteOnly: true, subscribers: [alice.id, bob.id] });
  pubMsg = assertSuccess(await A.post('/messages', { type: 'stream', to: 'pub', topic: 'hi', content: 'public' })).id;
  privMsg = assertSuccess(await A.post('/messages', { type: 'stream', to: 'priv', topic: 'hi', content: 'private' })).id;
  dm = assertSuccess(await A.post('/messages', { type: 'direct', to: JSON.stringify([bob.id]), content: 'dm' })).id;
});
after(() => t.close());

async function addRealmEmoji(name: string, deactivated = false): Promise<number> {
  const row = await t.server.svc.store.db
    .insertInto('realm_emoji')
    .values({ realm_id: t.server.svc.realmId, name, author_id: t.owner.id, file_name: `${name}.png`, deactivated: deactivated ? 1 : 0 })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

const react = (c: Client, id: number, params: Record<string, unknown>) => c.post(`/messages/${id}/reactions`, params);
const unreact = (c: Client, id: number, params: Record<string, unknown>) => c.delete(`/messages/${id}/reactions`, params);
const reactionsOf = async (c: Client, id: number) => assertSuccess(await c.get(`/messages/${id}`)).message.reactions;
const strip = ({ id: _id, ...e }: any) => e;
function assertEventSchema(event: any): void {
  const res: Res = { status: 200, body: { result: 'success', msg: '', queue_id: 'q', events: [event] }, headers: new Headers(), text: '' };
  assertSchema(res, 'GET', '/events');
}

test('add by name, by code, and remove: message objects, schemas and events to those who can see the message', async () => {
  const qa = await openQueue(A, { event_types: ['reaction'] });
  const qb = await openQueue(B, { event_types: ['reaction'] });
  const qc = await openQueue(C, { event_types: ['reaction'] });
  const qg = await openQueue(G, { event_types: ['reaction'] });

  const r = await react(B, pubMsg, { emoji_name: 'octopus' });
  assertSuccess(r);
  assertSchema(r, 'POST', '/messages/{message_id}/reactions');
  assert.deepEqual(await reactionsOf(A, pubMsg), [{ emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji', user_id: bob.id }]);

  const expected = {
    type: 'reaction',
    op: 'add',
    user_id: bob.id,
    user: { user_id: bob.id, email: bob.row.email, full_name: 'Bob' },
    message_id: pubMsg,
    emoji_name: 'octopus',
    emoji_code: '1f419',
    reaction_type: 'unicode_emoji',
  };
  for (const q of [qa, qb]) {
    const evs = await q.ofType('reaction');
    assert.deepEqual(evs.map(strip), [expected]);
    assertEventSchema(evs[0]);
  }
  // Carol (not subscribed, no row) and the guest (no access) hear nothing.
  assert.deepEqual(await qc.drain(), []);
  assert.deepEqual(await qg.drain(), []);

  // Explicit code and type; same emoji by another user keeps the first name (a "vote").
  assertSuccess(await react(A, pubMsg, { emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji' }));
  assert.equal((await reactionsOf(A, pubMsg)).length, 2);

  const d = await unreact(B, pubMsg, { emoji_name: 'octopus' });
  assertSuccess(d);
  assertSchema(d, 'DELETE', '/messages/{message_id}/reactions');
  assert.deepEqual(await reactionsOf(A, pubMsg), [{ emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji', user_id: alice.id }]);
  const removed = (await qa.ofType('reaction')).map(strip);
  assert.deepEqual(removed.at(-1), { ...expected, op: 'remove' });
  assertEventSchema({ ...expected, op: 'remove', id: 0 });
  // By code only.
  assertSuccess(await unreact(A, pubMsg, { emoji_code: '1f419' }));
  assert.deepEqual(await reactionsOf(A, pubMsg), []);
  assert.deepEqual(await qc.drain(), []);
});

test('a user reacting on a channel message without a row gets a historical one and later events', async () => {
  assertSuccess(await react(C, pubMsg, { emoji_name: 'tada' }));
  const m = assertSuccess(await C.get(`/messages/${pubMsg}`)).message;
  assert.deepEqual(m.flags.sort(), ['historical', 'read']);
  const qc = await openQueue(C, { event_types: ['reaction'] });
  assertSuccess(await react(A, pubMsg, { emoji_name: 'tada' }));
  assert.equal((await qc.ofType('reaction')).length, 1);
  assertSuccess(await unreact(A, pubMsg, { emoji_name: 'tada' }));
  assertSuccess(await unreact(C, pubMsg, { emoji_name: 'tada' }));
});

test('private channel and direct message reactions reach only those with access', async () => {
  const qa = await openQueue(A, { event_types: ['reaction'] });
  const qc = await openQueue(C, { event_types: ['reaction'] });
  const qo = await openQueue(t.client(t.owner), { event_types: ['reaction'] });
  assertSuccess(await react(B, privMsg, { emoji_name: 'smile' }));
  assertSuccess(await react(B, dm, { emoji_name: 'smile' }));
  assert.deepEqual((await qa.ofType('reaction')).map((e) => e.message_id), [privMsg, dm]);
  assert.deepEqual(await qc.drain(), []);
  assert.deepEqual(await qo.drain(), []);
  // Carol can see neither message.
  assertError(await react(C, privMsg, { emoji_name: 'smile' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
  assertError(await react(C, dm, { emoji_name: 'smile' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
  assertError(await unreact(C, dm, { emoji_name: 'smile' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
  assertError(await react(G, pubMsg, { emoji_name: 'smile' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
  assertError(await react(A, 999999, { emoji_name: 'smile' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
});

test('add errors: missing name, exists, unknown names, bad codes and types', async () => {
  assertError(await react(A, dm, {}), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'emoji_name' argument");
  assertSuccess(await react(A, dm, { emoji_name: 'heart' }));
  assertError(await react(A, dm, { emoji_name: 'heart' }), 400, 'REACTION_ALREADY_EXISTS', 'Reaction already exists.');
  assertError(await react(A, dm, { emoji_name: 'no_such_emoji' }), 400, 'BAD_REQUEST', "Emoji 'no_such_emoji' does not exist");
  assertError(await react(A, dm, { emoji_name: 'smile', emoji_code: 'zzzz', reaction_type: 'unicode_emoji' }), 400, 'BAD_REQUEST', 'Invalid emoji code.');
  assertError(await react(A, dm, { emoji_name: 'smile', emoji_code: '1f419', reaction_type: 'unicode_emoji' }), 400, 'BAD_REQUEST', 'Invalid emoji name.');
  assertError(await react(A, dm, { emoji_name: 'smile', emoji_code: '1f604', reaction_type: 'bogus' }), 400, 'BAD_REQUEST', 'Invalid emoji type.');
  assertError(await react(A, dm, { emoji_name: 'parrot', emoji_code: '99999', reaction_type: 'realm_emoji' }), 400, 'BAD_REQUEST', 'Invalid custom emoji.');
});

test('custom and Zulip extra emoji', async () => {
  const id = await addRealmEmoji('parrot');
  const old = await addRealmEmoji('oldie', true);
  assertError(await react(B, dm, { emoji_name: 'wrong', emoji_code: String(id), reaction_type: 'realm_emoji' }), 400, 'BAD_REQUEST', 'Invalid custom emoji name.');
  assertSuccess(await react(B, dm, { emoji_name: 'parrot' }));
  // A vote for an existing reaction takes its name, unchecked.
  assertSuccess(await react(A, dm, { emoji_name: 'whatever', emoji_code: String(id), reaction_type: 'realm_emoji' }));
  assert.ok((await reactionsOf(A, dm)).some((r: any) => r.user_id === alice.id && r.emoji_name === 'parrot'));
  assertError(await react(B, dm, { emoji_name: 'oldie', emoji_code: String(old), reaction_type: 'realm_emoji' }), 400, 'BAD_REQUEST', 'This custom emoji has been deactivated.');
  assertSuccess(await react(B, dm, { emoji_name: 'zulip' }));
  assertError(await react(B, dm, { emoji_name: 'zulip', emoji_code: 'nope', reaction_type: 'zulip_extra_emoji' }), 400, 'BAD_REQUEST', 'Invalid emoji code.');
  const rs = (await reactionsOf(B, dm)).filter((r: any) => r.user_id === bob.id && r.reaction_type !== 'unicode_emoji');
  assert.deepEqual(rs, [
    { emoji_name: 'parrot', emoji_code: String(id), reaction_type: 'realm_emoji', user_id: bob.id },
    { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji', user_id: bob.id },
  ]);
  // A custom emoji is removed by name alone (no reaction_type needed).
  assertSuccess(await unreact(B, dm, { emoji_name: 'parrot' }));
  assertSuccess(await unreact(B, dm, { emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' }));
});

test('the :zulip: emoji has an image where clients load it, and messages point to it', async () => {
  // The mobile app loads this path for zulip_extra_emoji reactions; the renderer uses it for :zulip:.
  const res = await fetch(`${t.url}/static/generated/emoji/images/emoji/unicode/zulip.png`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'image/png');
  const png = Buffer.from(await res.arrayBuffer());
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  // 64 by 64 (the IHDR chunk's width and height).
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [64, 64]);
  const rendered = assertSuccess(await A.post('/messages/render', { content: ':zulip:' })).rendered;
  assert.match(rendered, /<img[^>]* src="\/static\/generated\/emoji\/images\/emoji\/unicode\/zulip\.png"/);
});

test('remove errors (spec 4.20)', async () => {
  assertError(await unreact(B, dm, {}), 400, 'BAD_REQUEST', 'At least one of the following arguments must be present: emoji_name, emoji_code');
  assertError(await unreact(B, dm, { emoji_code: 'zzzz' }), 400, 'BAD_REQUEST', 'Invalid emoji code.');
  assertError(await unreact(B, dm, { emoji_name: 'rocket' }), 400, 'REACTION_DOES_NOT_EXIST', "Reaction doesn't exist.");
  // Someone else's reaction is not yours to remove.
  assertError(await unreact(B, dm, { emoji_name: 'heart' }), 400, 'REACTION_DOES_NOT_EXIST', "Reaction doesn't exist.");
});

test('narrow has:reaction', async () => {
  const plain = assertSuccess(await A.post('/messages', { type: 'stream', to: 'pub', topic: 'plain', content: 'no reactions' })).id;
  const liked = assertSuccess(await A.post('/messages', { type: 'stream', to: 'pub', topic: 'plain', content: 'liked' })).id;
  assertSuccess(await react(B, liked, { emoji_name: 'thumbs_up' }));
  const r = assertSuccess(await A.get('/messages', { anchor: 'newest', num_before: 100, narrow: [{ operator: 'has', operand: 'reaction' }, { operator: 'channel', operand: 'pub' }] }));
  const ids = r.messages.map((m: any) => m.id);
  assert.ok(ids.includes(liked));
  assert.ok(!ids.includes(plain));
  const neg = assertSuccess(await A.get('/messages', { anchor: 'newest', num_before: 100, narrow: [{ operator: 'has', operand: 'reaction', negated: true }, { operator: 'topic', operand: 'plain' }] }));
  assert.deepEqual(neg.messages.map((m: any) => m.id), [plain]);
});

test('one reaction added by several requests at once (a double tap): added once, the others answered REACTION_ALREADY_EXISTS', async () => {
  // Carol is not in the channel: her first reaction also makes her historical row.
  const id = assertSuccess(await A.post('/messages', { type: 'stream', to: 'pub', topic: 'taps', content: 'tap tap' })).id as number;
  const results = await Promise.all(Array.from({ length: 4 }, () => react(C, id, { emoji_name: 'tada' })));
  assert.equal(results.filter((r) => r.status === 200).length, 1);
  for (const r of results.filter((x) => x.status !== 200)) assertError(r, 400, 'REACTION_ALREADY_EXISTS', 'Reaction already exists.');
  assert.deepEqual((await reactionsOf(A, id)).map((r: any) => [r.emoji_name, r.user_id]), [['tada', carol.id]]);
});
