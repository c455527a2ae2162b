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
    { ...TRAC, id: id1 },
    { pattern: 'ZUL-(?P<id>\\d+)', url_template: 'https://z.example.com/{id}', id: id2 },
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
  assert.deepEqual(evs[0].realm_linkifiers, [{ ...TRAC, id: id1 }]);
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
