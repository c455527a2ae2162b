/**
 * The core chat loop through the real zulip-js client library: register a
 * queue, send channel and direct messages, receive the message events,
 * fetch history with a narrow, mark as read.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { startTestServer, type TestServer } from './helpers.ts';
import { makeChannel } from './messages-fixtures.ts';

type Json = Record<string, any>;
interface ZulipClient {
  queues: { register(p: Json): Promise<Json> };
  events: { retrieve(p: Json): Promise<Json> };
  messages: {
    send(p: Json): Promise<Json>;
    retrieve(p: Json): Promise<Json>;
    render(p: Json): Promise<Json>;
    flags: { add(p: Json): Promise<Json> };
  };
}
type ZulipInit = (config: { username: string; apiKey: string; realm: string }) => Promise<ZulipClient>;
const zulipInit = createRequire(import.meta.url)('zulip-js') as ZulipInit;

let t: TestServer;
before(async () => {
  t = await startTestServer({ PARLEY_HEARTBEAT_SECONDS: '1' });
});
after(() => t.close());

// zulip-js sends every POST body as multipart/form-data.
test('zulip-js: register, send, receive the event, fetch history', async () => {
  const bob = await t.makeUser({ name: 'Bob' });
  await makeChannel(t, { name: 'Denmark', subscribers: [t.owner.id, bob.id] });
  const owner = await zulipInit({ username: t.owner.email, apiKey: t.owner.apiKey, realm: t.url });
  const zb = await zulipInit({ username: bob.email, apiKey: bob.apiKey, realm: t.url });

  // zulip-js passes booleans through form-data as text, so they are sent as 'true'.
  const reg = await zb.queues.register({ event_types: ['message'], apply_markdown: 'true' });
  assert.equal(reg.result, 'success', JSON.stringify(reg));

  const sent = await owner.messages.send({ to: 'Denmark', type: 'stream', topic: 'Castle', content: 'Something is **rotten**.' });
  assert.equal(sent.result, 'success', JSON.stringify(sent));
  const dm = await owner.messages.send({ to: [bob.id], type: 'direct', content: 'psst' });
  assert.equal(dm.result, 'success', JSON.stringify(dm));

  const ev = await zb.events.retrieve({ queue_id: reg.queue_id, last_event_id: -1 });
  assert.equal(ev.result, 'success', JSON.stringify(ev));
  const msgs = ev.events.filter((e: Json) => e.type === 'message');
  assert.deepEqual(msgs.map((e: Json) => e.message.id), [sent.id, dm.id]);
  assert.equal(msgs[0].message.content, '<p>Something is <strong>rotten</strong>.</p>');
  assert.equal(msgs[0].message.subject, 'Castle');
  assert.deepEqual(msgs[0].flags, []);

  const hist = await zb.messages.retrieve({ anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'channel', operand: 'Denmark' }] });
  assert.equal(hist.result, 'success', JSON.stringify(hist));
  assert.deepEqual(hist.messages.map((m: Json) => m.id), [sent.id]);

  const flagged = await zb.messages.flags.add({ flag: 'read', messages: [sent.id, dm.id] });
  assert.equal(flagged.result, 'success', JSON.stringify(flagged));
  const unread = await zb.messages.retrieve({ anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'is', operand: 'unread' }] });
  assert.deepEqual(unread.messages, []);

  const rendered = await owner.messages.render({ content: '*hi*' });
  assert.equal(rendered.rendered, '<p><em>hi</em></p>');
});
