/** Linkifiers: the five endpoints, Zulip's validation and errors, realm_linkifiers events and state, rendering in messages and topic_links. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account, type Client, type Res } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';
import { ROLE } from '../src/store/users.ts';

let t: TestServer;
let admin: Account, member: Account;
let O: Client, A: Client, M: Client;
let chan: number;

before(async () => {
  t = await startTestServer();
  admin = await t.makeUser({ name: 'Admin', role: ROLE.ADMINISTRATOR });
  member = await t.makeUser({ name: 'Member' });
  [O, A, M] = [t.owner, admin, member].map((u) => t.client(u));
  chan = await makeChannel(t, { name: 'linkify', subscribers: [t.owner.id, admin.id, member.id] });
});
after(() => t.close());

function assertEventSchema(event: any): void {
  const res: Res = { status: 200, body: { result: 'success', msg: '', queue_id: 'q', events: [event] }, headers: new Headers(), text: '' };
  assertSchema(res, 'GET', '/events');
}

const TRAC = { pattern: '#(?P<id>[0-9]+)', url_template: 'https://trac.example.com/ticket/{id}' };
/** The reverse-linkification fields of a linkifier that has none (feature levels 471 and 478). */
const NO_REVERSE = { example_input: null, reverse_template: null, alternative_url_templates: [] };

test('linkifiers: add, list, update, reorder, delete with events to every user and register state', async () => {
  const qm = await openQueue(M, { event_types: ['realm_linkifiers'] });
  const empty = assertSuccess(await M.get('/realm/linkifiers'));
  assert.deepEqual(empty.linkifiers, []);

  const r1 = await A.post('/realm/filters', { pattern: ` ${TRAC.pattern} `, url_template: TRAC.url_template });
  assertSchema(r1, 'POST', '/realm/filters');
  const id1 = r1.body.id as number;
  const r2 = await O.post('/realm/filters', { pattern: 'ZUL-(?P<id>\\d+)', url_template: 'https://z.example.com/{id}' });
  const id2 = assertSuccess(r2).id as number;

  const list = await M.get('/realm/linkifiers');
  assertSchema(list, 'GET', '/realm/linkifiers');
  assert.deepEqual(list.body.linkifiers, [
    { ...TRAC, id: id1, ...NO_REVERSE },
    { pattern: 'ZUL-(?P<id>\\d+)', url_template: 'https://z.example.com/{id}', id: id2, ...NO_REVERSE },
  ]);

  let evs = await qm.drain();
  assert.equal(evs.length, 2);
  assert.deepEqual(evs[1].realm_linkifiers, list.body.linkifiers);
  assertEventSchema(evs[1]);

  const u = await A.patch(`/realm/filters/${id2}`, { pattern: 'ZUL-(?P<num>\\d+)', url_template: 'https://z.example.com/i/{num}' });
  assertSchema(u, 'PATCH', '/realm/filters/{filter_id}');
  const re = await A.patch('/realm/linkifiers', { ordered_linkifier_ids: [id2, id1] });
  assertSchema(re, 'PATCH', '/realm/linkifiers');
  evs = await qm.drain();
  assert.deepEqual(
    evs.map((e) => e.realm_linkifiers.map((l: any) => l.id)),
    [
      [id1, id2],
      [id2, id1],
    ],
  );
  assert.equal(evs[1].realm_linkifiers[0].url_template, 'https://z.example.com/i/{num}');

  const reg = assertSuccess(await M.post('/register', { fetch_event_types: ['realm_linkifiers', 'realm_filters'], client_capabilities: { linkifier_url_template: true } }));
  assert.deepEqual(reg.realm_linkifiers, evs[1].realm_linkifiers);
  assert.deepEqual(reg.realm_filters, []);
  // Clients that cannot read URL templates get none (as Zulip: they would build wrong links from them).
  const old = assertSuccess(await M.post('/register', { fetch_event_types: ['realm_linkifiers', 'realm_filters'] }));
  assert.deepEqual(old.realm_linkifiers, []);
  assert.deepEqual(old.realm_filters, []);

  const d = await A.delete(`/realm/filters/${id2}`);
  assertSchema(d, 'DELETE', '/realm/filters/{filter_id}');
  evs = await qm.drain();
  assert.deepEqual(evs[0].realm_linkifiers, [{ ...TRAC, id: id1, ...NO_REVERSE }]);
  assertError(await A.delete(`/realm/filters/${id2}`), 400, 'BAD_REQUEST', 'Linkifier not found.');
  assertError(await A.patch(`/realm/filters/${id2}`, TRAC), 400, 'BAD_REQUEST', 'Linkifier not found.');
  assertSuccess(await A.delete(`/realm/filters/${id1}`));
});

test('linkifiers: administrators only, and Zulip validation errors', async () => {
  assertError(await M.post('/realm/filters', TRAC), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  assertError(await M.patch('/realm/linkifiers', { ordered_linkifier_ids: [] }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  assertError(await M.delete('/realm/filters/1'), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');

  const bad = async (pattern: string, url_template: string, msg: string, field: string) => {
    const r = await A.post('/realm/filters', { pattern, url_template });
    assertError(r, 400, 'BAD_REQUEST', msg);
    assert.deepEqual(r.body.errors, { [field]: [msg] });
  };
  await bad('ZUL-(?P<id>\\d+))', 'https://z.example.com/{id}', 'Bad regular expression: unexpected ): ZUL-(?P<id>\\d+))', 'pattern');
  await bad('ZUL-(?P<id>\\d+', 'https://z.example.com/{id}', 'Bad regular expression: missing ): ZUL-(?P<id>\\d+', 'pattern');
  await bad('ZUL-(?P<id>\\d+)', 'https://z.example.com/{id', 'Invalid URL template.', 'url_template');
  await bad('ZUL-(?P<id>\\d+)', 'https://z.example.com/{num}', "Group 'num' in URL template is not present in linkifier pattern.", '__all__');
  await bad('ZUL-(?P<id>\\d+)-(?P<b>\\d+)', 'https://z.example.com/{id}', "Group 'b' in linkifier pattern is not present in URL template.", '__all__');
  assertError(await A.post('/realm/filters', { pattern: 'x' }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'url_template' argument");

  const id = assertSuccess(await A.post('/realm/filters', TRAC)).id;
  assertError(await A.post('/realm/filters', TRAC), 400, 'BAD_REQUEST', 'Realm filter with this Realm and Pattern already exists.');
  assertError(await A.patch('/realm/linkifiers', { ordered_linkifier_ids: [id, id] }), 400, 'BAD_REQUEST', 'The ordered list must not contain duplicated linkifiers');
  assertError(await A.patch('/realm/linkifiers', { ordered_linkifier_ids: [id, id + 100] }), 400, 'BAD_REQUEST', 'The ordered list must enumerate all existing linkifiers exactly once');
  assertSuccess(await A.delete(`/realm/filters/${id}`));
});

test('linkifiers are applied to message content and topics as Zulip renders them', async () => {
  const id1 = assertSuccess(await A.post('/realm/filters', TRAC)).id;
  const id2 = assertSuccess(await A.post('/realm/filters', { pattern: 'ZUL-(?P<id>\\d+)', url_template: 'https://z.example.com/{id}' })).id;
  const content = 'We should fix #224 and #115, but not issue#124 or #1124z or [trac #15](https://trac.example.com/ticket/16) today. `#3` ZUL-7';
  const sent = assertSuccess(await M.post('/messages', { type: 'stream', to: chan, topic: 'fix #9 and ZUL-3, see example.com', content }));
  const got = assertSuccess(await M.get('/messages', { anchor: sent.id, num_before: 0, num_after: 0, narrow: [] })).messages[0];
  assert.equal(
    got.content,
    '<p>We should fix <a href="https://trac.example.com/ticket/224">#224</a> and <a href="https://trac.example.com/ticket/115">#115</a>, ' +
      'but not issue#124 or #1124z or <a href="https://trac.example.com/ticket/16">trac #15</a> today. <code>#3</code> ' +
      '<a href="https://z.example.com/7">ZUL-7</a></p>',
  );
  assert.deepEqual(got.topic_links, [
    { url: 'https://trac.example.com/ticket/9', text: '#9' },
    { url: 'https://z.example.com/3', text: 'ZUL-3' },
    { url: 'https://example.com', text: 'example.com' },
  ]);

  const rendered = assertSuccess(await M.post('/messages/render', { content: 'see #42' }));
  assert.equal(rendered.rendered, '<p>see <a href="https://trac.example.com/ticket/42">#42</a></p>');

  const q = await openQueue(M, { event_types: ['update_message'] });
  assertSuccess(await M.patch(`/messages/${sent.id}`, { topic: 'now ZUL-5' }));
  const ev = (await q.ofType('update_message'))[0];
  assert.deepEqual(ev.topic_links, [{ url: 'https://z.example.com/5', text: 'ZUL-5' }]);
  await A.delete(`/realm/filters/${id1}`);
  await A.delete(`/realm/filters/${id2}`);
});

test('reverse linkifiers (feature levels 471 and 478): example_input, reverse_template and alternative_url_templates, stored, shown and validated', async () => {
  const qm = await openQueue(M, { event_types: ['realm_linkifiers'] });
  const reverse = { example_input: '#1234', reverse_template: '#{id}', alternative_url_templates: JSON.stringify(['https://trac.example.com/t/{id}']) };
  const id = assertSuccess(await A.post('/realm/filters', { ...TRAC, ...reverse })).id as number;
  const shown = { ...TRAC, id, example_input: '#1234', reverse_template: '#{id}', alternative_url_templates: ['https://trac.example.com/t/{id}'] };
  assert.deepEqual(assertSuccess(await M.get('/realm/linkifiers')).linkifiers, [shown]);
  const [ev] = await qm.ofType('realm_linkifiers');
  assert.deepEqual(ev.realm_linkifiers, [shown]);
  assertEventSchema(ev);
  const reg = assertSuccess(await M.post('/register', { fetch_event_types: ['realm_linkifiers'], client_capabilities: { linkifier_url_template: true } }));
  assert.deepEqual(reg.realm_linkifiers, [shown]);

  // Errors, each with its field (Zulip's ValidationFailureError).
  const bad = async (res: Res, msg: string, field: string) => {
    assertError(res, 400, 'BAD_REQUEST', msg);
    assert.deepEqual(res.body.errors, { [field]: [msg] });
  };
  const ZUL = { pattern: 'ZUL-(?P<id>\\d+)', url_template: 'https://z.example.com/{id}' };
  const post = (params: Record<string, unknown>) => A.post('/realm/filters', { ...ZUL, ...params });
  await bad(await post({ reverse_template: 'ZUL-{id}' }), 'A reverse template requires an example input.', 'reverse_template');
  await bad(await post({ example_input: 'ZUL-x' }), 'Example input does not match the linkifier pattern.', 'example_input');
  await bad(await post({ example_input: 'see ZUL-12' }), 'Example input does not match the linkifier pattern.', 'example_input');
  await bad(await post({ example_input: 'ZUL-12', reverse_template: 'ZUL {id}' }), 'Reverse template does not produce the example input.', 'reverse_template');
  await bad(await post({ example_input: 'ZUL-12', reverse_template: 'ZUL-{num}' }), "Group 'num' in reverse template is not present in linkifier pattern.", 'reverse_template');
  await bad(await post({ example_input: 'ZUL-12', reverse_template: 'ZUL-{id' }), 'Invalid reverse template.', 'reverse_template');
  await bad(await post({ alternative_url_templates: JSON.stringify(['https://z.example.com/{id']) }), 'Invalid alternative URL template.', 'alternative_url_templates');
  await bad(
    await post({ alternative_url_templates: JSON.stringify(['https://z.example.com/{id}', 'https://z.example.com/{num}']) }),
    "Group 'num' in alternative URL template is not present in linkifier pattern.",
    'alternative_url_templates',
  );
  assertError(await post({ alternative_url_templates: '"https://z.example.com/{id}"' }), 400, 'BAD_REQUEST', 'alternative_url_templates is not a list');
  // {{ and }} are literal braces; an empty example_input or reverse_template is none.
  const braces = assertSuccess(await A.post('/realm/filters', { pattern: '\\{(?P<id>\\d+)\\}', url_template: 'https://b.example.com/{id}', example_input: '{12}', reverse_template: '{{{id}}}' })).id;
  const plain = assertSuccess(await post({ example_input: '', reverse_template: '' })).id;
  const byId = async (lid: number) => assertSuccess(await M.get('/realm/linkifiers')).linkifiers.find((l: any) => l.id === lid);
  assert.equal((await byId(braces)).reverse_template, '{{{id}}}');
  assert.deepEqual(await byId(plain), { ...ZUL, id: plain, ...NO_REVERSE });

  // PATCH: omitted reverse fields keep their values; the whole linkifier is validated again.
  assertSuccess(await A.patch(`/realm/filters/${id}`, { ...TRAC, url_template: 'https://trac.example.com/issue/{id}' }));
  assert.deepEqual(await byId(id), { ...shown, url_template: 'https://trac.example.com/issue/{id}' });
  await bad(await A.patch(`/realm/filters/${id}`, { ...TRAC, pattern: 'T#(?P<id>[0-9]+)' }), 'Example input does not match the linkifier pattern.', 'example_input');
  await bad(await A.patch(`/realm/filters/${id}`, { ...TRAC, example_input: '' }), 'A reverse template requires an example input.', 'reverse_template');
  assertSuccess(await A.patch(`/realm/filters/${id}`, { ...TRAC, pattern: 'T#(?P<id>[0-9]+)', example_input: 'T#7', reverse_template: 'T#{id}' }));
  assert.deepEqual(await byId(id), { ...shown, pattern: 'T#(?P<id>[0-9]+)', example_input: 'T#7', reverse_template: 'T#{id}' });
  // Empty strings set both back to null; an empty list clears the alternative templates.
  assertSuccess(await A.patch(`/realm/filters/${id}`, { ...TRAC, example_input: '', reverse_template: '', alternative_url_templates: '[]' }));
  assert.deepEqual(await byId(id), { ...TRAC, id, ...NO_REVERSE });
  for (const lid of [id, braces, plain]) assertSuccess(await A.delete(`/realm/filters/${lid}`));
});
