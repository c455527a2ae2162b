/** Code playgrounds: POST/DELETE /realm/playgrounds with Zulip's validation, realm_playgrounds events and state. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account, type Client, type Res } from './helpers.ts';
import { ROLE } from '../src/store/users.ts';

let t: TestServer;
let A: Client, M: Client;
let admin: Account;

before(async () => {
  t = await startTestServer();
  admin = await t.makeUser({ name: 'Admin', role: ROLE.ADMINISTRATOR });
  A = t.client(admin);
  M = t.client(await t.makeUser({ name: 'Member' }));
});
after(() => t.close());

function assertEventSchema(event: any): void {
  const res: Res = { status: 200, body: { result: 'success', msg: '', queue_id: 'q', events: [event] }, headers: new Headers(), text: '' };
  assertSchema(res, 'GET', '/events');
}

const PY = { name: 'Python playground', pygments_language: 'Python', url_template: 'https://python.example.com?code={code}' };

test('playgrounds: add and remove with events to everyone and register state', async () => {
  const q = await openQueue(M, { event_types: ['realm_playgrounds'] });
  const r = await A.post('/realm/playgrounds', { ...PY, name: ' Python playground ' });
  assertSchema(r, 'POST', '/realm/playgrounds');
  const id = r.body.id as number;
  const r2 = assertSuccess(await A.post('/realm/playgrounds', { name: 'Rust', pygments_language: 'Rust', url_template: 'https://play.rust-lang.org/{?code}' }));
  const expected = [
    { id, ...PY },
    { id: r2.id, name: 'Rust', pygments_language: 'Rust', url_template: 'https://play.rust-lang.org/{?code}' },
  ];
  const evs = await q.drain();
  assert.equal(evs.length, 2);
  assert.deepEqual(evs[1].realm_playgrounds, expected);
  assertEventSchema(evs[1]);
  const reg = assertSuccess(await M.post('/register', { fetch_event_types: ['realm_playgrounds'] }));
  assert.deepEqual(reg.realm_playgrounds, expected);

  const d = await A.delete(`/realm/playgrounds/${id}`);
  assertSchema(d, 'DELETE', '/realm/playgrounds/{playground_id}');
  assert.deepEqual((await q.drain())[0].realm_playgrounds, expected.slice(1));
  assertError(await A.delete(`/realm/playgrounds/${id}`), 400, 'BAD_REQUEST', 'Invalid playground');
});

test('playgrounds: administrators only and Zulip validation errors', async () => {
  assertError(await M.post('/realm/playgrounds', PY), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  assertError(await M.delete('/realm/playgrounds/1'), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  const bad = async (params: Record<string, string>, msg: string, field: string) => {
    const r = await A.post('/realm/playgrounds', { ...PY, ...params });
    assertError(r, 400, 'BAD_REQUEST', msg);
    assert.deepEqual(r.body.errors, { [field]: [msg] });
  };
  await bad({ pygments_language: 'py!@%&' }, 'Invalid characters in pygments language', 'pygments_language');
  await bad({ url_template: 'https://x.example.com?{code' }, 'Invalid URL template.', 'url_template');
  await bad({ url_template: 'https://x.example.com?q={x}' }, 'Missing the required variable "code" in the URL template', '__all__');
  await bad({ url_template: 'https://x.example.com/{lang}?q={code}' }, '"code" should be the only variable present in the URL template', '__all__');
  await bad({ name: '  ' }, 'This field cannot be blank.', 'name');
  assertSuccess(await A.post('/realm/playgrounds', PY));
  await bad({}, 'Realm playground with this Realm, Pygments language and Name already exists.', '__all__');
  assertError(await A.post('/realm/playgrounds', { name: 'x', pygments_language: 'x' }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'url_template' argument");
});
