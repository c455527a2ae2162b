/** GET/POST/DELETE /users/me/alert_words, alert_words event and state, has_alert_word on new messages, is:alerted. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, assertSchema, openQueue, type TestServer, type Account, type Client, type Res } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';
import { matchAlertWords } from '../src/actions/alert-words.ts';

let t: TestServer;
let alice: Account, bob: Account, carol: Account;
let A: Client, B: Client, C: Client;
let pub: number;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
  carol = await t.makeUser({ name: 'Carol' });
  [A, B, C] = [alice, bob, carol].map((u) => t.client(u));
  pub = await makeChannel(t, { name: 'alertpub', subscribers: [alice.id, bob.id, carol.id] });
});
after(() => t.close());

const strip = ({ id: _id, ...e }: any) => e;
function assertEventSchema(event: any): void {
  const res: Res = { status: 200, body: { result: 'success', msg: '', queue_id: 'q', events: [event] }, headers: new Headers(), text: '' };
  assertSchema(res, 'GET', '/events');
}

test('add, list, remove: cleaning, case-insensitive duplicates, events to the user only, register state', async () => {
  const qa = await openQueue(A, { event_types: ['alert_words'] });
  const qb = await openQueue(B, { event_types: ['alert_words'] });
  assert.deepEqual(qa.state.alert_words, []);

  let r = await A.get('/users/me/alert_words');
  assertSchema(r, 'GET', '/users/me/alert_words');
  assert.deepEqual(assertSuccess(r).alert_words, []);

  r = await A.post('/users/me/alert_words', { alert_words: ['  Pizza ', '', 'deploy', 'DEPLOY', 'on call'] });
  assertSchema(r, 'POST', '/users/me/alert_words');
  assert.deepEqual(assertSuccess(r).alert_words, ['Pizza', 'DEPLOY', 'on call']);
  assert.deepEqual((await qa.drain()).map(strip), [{ type: 'alert_words', alert_words: ['Pizza', 'DEPLOY', 'on call'] }]);
  assert.deepEqual(await qb.drain(), []);

  // Already present in another case: skipped, but the event is still sent.
  r = await A.post('/users/me/alert_words', { alert_words: ['pizza'] });
  assert.deepEqual(assertSuccess(r).alert_words, ['Pizza', 'DEPLOY', 'on call']);
  const ev = await qa.drain();
  assert.equal(ev.length, 1);
  assertEventSchema(ev[0]);

  r = await A.delete('/users/me/alert_words', { alert_words: ['deploy', 'nonexistent'] });
  assertSchema(r, 'DELETE', '/users/me/alert_words');
  assert.deepEqual(assertSuccess(r).alert_words, ['Pizza', 'on call']);
  assert.deepEqual((await qa.drain()).map(strip), [{ type: 'alert_words', alert_words: ['Pizza', 'on call'] }]);

  assert.deepEqual(assertSuccess(await A.get('/users/me/alert_words')).alert_words, ['Pizza', 'on call']);
  const reg = assertSuccess(await A.post('/register', { fetch_event_types: ['alert_words'] }));
  assert.deepEqual(reg.alert_words, ['Pizza', 'on call']);
  assert.deepEqual(assertSuccess(await B.post('/register', { fetch_event_types: ['alert_words'] })).alert_words, []);
});

test('parameter errors', async () => {
  assertError(await A.post('/users/me/alert_words', {}), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'alert_words' argument");
  assertError(await A.post('/users/me/alert_words', { alert_words: 'nope' }), 400, 'BAD_REQUEST', 'alert_words is not valid JSON');
  assertError(await A.post('/users/me/alert_words', { alert_words: { a: 1 } }), 400, 'BAD_REQUEST', 'alert_words is not a list');
  assertError(await A.post('/users/me/alert_words', { alert_words: [1] }), 400, 'BAD_REQUEST', 'alert_words[0] is not a string');
  assertError(await A.post('/users/me/alert_words', { alert_words: ['x'.repeat(101)] }), 400, 'BAD_REQUEST', 'alert_words[0] is too long (limit: 100 characters)');
  assertError(await A.delete('/users/me/alert_words', {}), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'alert_words' argument");
});

test("Zulip's matching rule: case-insensitive whole words with its punctuation sets", () => {
  const m = (text: string, word: string) => matchAlertWords(text, new Map([[1, [word]]])).has(1);
  assert.ok(m('Is the DEPLOY done?', 'deploy'));
  assert.ok(m('deploy', 'deploy'));
  assert.ok(m('(deploy)', 'deploy'));
  assert.ok(m('> deploy!', 'deploy'));
  assert.ok(m('**deploy**', 'deploy'));
  assert.ok(m('`deploy`', 'deploy'));
  assert.ok(!m('redeploy now', 'deploy'));
  assert.ok(!m('the deployment', 'deploy'));
  assert.ok(!m('say "deploy"', 'deploy'), 'a double quote does not end a word in Zulip');
  assert.ok(!m('deploy-now', 'deploy'));
  assert.ok(m('we are on call today', 'on call'));
  assert.ok(m('xdeploy', 'deploy'), "Zulip's start check passes when the match begins at the second character");
});

test('sending sets has_alert_word for recipients whose words occur (not in fenced code); is:alerted', async () => {
  assertSuccess(await B.post('/users/me/alert_words', { alert_words: ['release'] }));
  assertSuccess(await C.post('/users/me/alert_words', { alert_words: ['Pizza'] }));
  const qa = await openQueue(A, { event_types: ['message'] });
  const qb = await openQueue(B, { event_types: ['message'] });
  const qc = await openQueue(C, { event_types: ['message'] });

  const send = async (c: Client, content: string) => assertSuccess(await c.post('/messages', { type: 'stream', to: pub, topic: 'alerts', content })).id as number;
  const hit = await send(C, 'Who wants PIZZA? The release is out.');
  const [ea] = await qa.ofType('message');
  const [eb] = await qb.ofType('message');
  const [ec] = await qc.ofType('message');
  assert.ok(ea.flags.includes('has_alert_word'), 'Alice: Pizza');
  assert.ok(eb.flags.includes('has_alert_word'), 'Bob: release');
  assert.ok(ec.flags.includes('has_alert_word'), 'the sender too, as in Zulip');

  const fenced = await send(A, '```\npizza release\n```');
  const partial = await send(A, 'pizzas and releases');
  const inline = await send(A, 'deploy `release`');
  const dm = assertSuccess(await A.post('/messages', { type: 'private', to: [bob.id], content: 'release notes' })).id as number;

  const alerted = async (c: Client) => {
    const r = assertSuccess(await c.get('/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow: [{ operator: 'is', operand: 'alerted' }] }));
    return r.messages.map((m: any) => m.id);
  };
  assert.deepEqual(await alerted(A), [hit]);
  assert.deepEqual(await alerted(B), [hit, inline, dm]);
  assert.deepEqual(await alerted(C), [hit]);
  const one = assertSuccess(await B.get('/messages', { anchor: fenced, num_before: 0, num_after: 0, narrow: [] }));
  assert.ok(!one.messages[0].flags.includes('has_alert_word'));
  void partial;
});

test('editing a message recomputes has_alert_word', async () => {
  assertSuccess(await B.post('/users/me/alert_words', { alert_words: ['deadline'] }));
  const id = assertSuccess(await A.post('/messages', { type: 'stream', to: pub, topic: 'edit-alerts', content: 'nothing special' })).id as number;
  const flagsOf = async () => assertSuccess(await B.get(`/messages/${id}`)).message.flags as string[];
  assert.ok(!(await flagsOf()).includes('has_alert_word'));
  assertSuccess(await A.patch(`/messages/${id}`, { content: 'the deadline moved' }));
  assert.ok((await flagsOf()).includes('has_alert_word'));
  assertSuccess(await A.patch(`/messages/${id}`, { content: 'never mind' }));
  assert.ok(!(await flagsOf()).includes('has_alert_word'));
});
