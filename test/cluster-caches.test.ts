/**
 * Several processes (PostgreSQL + Redis) keep the organization in memory, as
 * one process does: a change made through one node is seen by the very next
 * request to another, and a node answers repeated reads without asking the
 * database again. Runs with TEST_CLUSTER=2 or more (skipped otherwise).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertSuccess, CLUSTER_SIZE, Client, startTestServer, type Account, type TestServer } from './helpers.ts';
import type { RunningServer } from '../src/server.ts';

const skip = CLUSTER_SIZE < 2 ? 'needs TEST_CLUSTER=2 or more (with TEST_DATABASE_URL and TEST_REDIS_URL)' : false;

let t: TestServer;
/** The owner's client on the first node and on the second. */
let ownerA: Client;
let ownerB: Client;

before(async () => {
  if (skip) return;
  t = await startTestServer();
  ownerA = new Client(t.nodes[0]!.url, t.owner);
  ownerB = new Client(t.nodes[1]!.url, t.owner);
});

after(async () => {
  if (!skip) await t.close();
});

/** The SQL statements a node runs while `fn` runs (reads included). */
async function statementsOn(node: RunningServer, fn: () => Promise<unknown>): Promise<string[]> {
  const changes = node.svc.store.changes;
  const original = changes.executed.bind(changes);
  const seen: string[] = [];
  changes.executed = (sqlText: string) => {
    seen.push(sqlText);
    original(sqlText);
  };
  try {
    await fn();
  } finally {
    changes.executed = original;
  }
  return seen;
}

test('a node answers repeated reads from memory, with no query', { skip }, async () => {
  const node = t.nodes[1]!;
  assertSuccess(await ownerB.get('/users/me'));
  assertSuccess(await ownerB.get('/streams'));
  // The node's own timers (scheduled messages, email clean-up) may run a statement during a request;
  // a request that reads the database does it every time, so one of three tries without any is the proof.
  const tries: string[][] = [];
  for (let i = 0; i < 3 && !tries.some((x) => x.length === 0); i++) {
    tries.push(
      await statementsOn(node, async () => {
        assertSuccess(await ownerB.get('/users/me'));
      }),
    );
  }
  assert.ok(
    tries.some((x) => x.length === 0),
    `GET /users/me read the database again: ${JSON.stringify(tries)}`,
  );
});

test('a name, a channel and a message changed through one node: the next request to another sees it', { skip }, async () => {
  // Read first on B, so that B keeps the old values.
  assert.equal((await ownerB.get('/users/me')).body.full_name, (await ownerA.get('/users/me')).body.full_name);
  assertSuccess(await ownerA.patch('/settings', { full_name: 'Renamed Through A' }));
  assert.equal((await ownerB.get('/users/me')).body.full_name, 'Renamed Through A');
  assert.equal((await ownerB.get(`/users/${t.owner.id}`)).body.user.full_name, 'Renamed Through A');

  assertSuccess(await ownerA.post('/users/me/subscriptions', { subscriptions: [{ name: 'cluster one' }] }));
  const streams = (await ownerB.get('/streams')).body.streams as Array<{ name: string; stream_id: number }>;
  const channel = streams.find((s) => s.name === 'cluster one');
  assert.ok(channel, 'the new channel is listed by B');
  assertSuccess(await ownerA.patch(`/streams/${channel.stream_id}`, { new_name: 'cluster renamed' }));
  const names = ((await ownerB.get('/streams')).body.streams as Array<{ name: string }>).map((s) => s.name);
  assert.ok(names.includes('cluster renamed') && !names.includes('cluster one'), `B lists ${names.join(', ')}`);

  const sent = await ownerA.post('/messages', { type: 'stream', to: 'cluster renamed', topic: 'kept', content: 'first' });
  assertSuccess(sent);
  const id = sent.body.id as number;
  assert.equal((await ownerB.get(`/messages/${id}`)).body.raw_content, 'first');
  assertSuccess(await ownerA.post(`/messages/${id}/reactions`, { emoji_name: 'smile' }));
  const withReaction = (await ownerB.get(`/messages/${id}`)).body.message;
  assert.deepEqual(
    withReaction.reactions.map((r: { emoji_name: string }) => r.emoji_name),
    ['smile'],
  );
  assertSuccess(await ownerA.patch(`/messages/${id}`, { content: 'edited through A' }));
  const edited = await ownerB.get(`/messages/${id}`);
  assert.equal(edited.body.raw_content, 'edited through A');
  assert.equal(edited.body.message.content, '<p>edited through A</p>');
  const newest = await ownerB.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'channel', operand: 'cluster renamed' }] });
  assert.equal(newest.body.messages.at(-1).content, '<p>edited through A</p>');
});

test('a deactivation and a new API key made through one node hold at once on the others', { skip }, async () => {
  const user: Account = await t.makeUser({ name: 'Leaving Soon' });
  const userB = new Client(t.nodes[1]!.url, user);
  assertSuccess(await userB.get('/users/me'));
  assertSuccess(await ownerA.delete(`/users/${user.id}`));
  const refused = await userB.get('/users/me');
  assert.equal(refused.status, 401);
  assert.equal(refused.body.code, 'USER_DEACTIVATED');

  const bot = await ownerA.post('/bots', { full_name: 'Cluster Bot', short_name: 'clusterbot' });
  assertSuccess(bot);
  const botEmail = (await ownerA.get(`/users/${bot.body.user_id}`)).body.user.email as string;
  const oldKey = { email: botEmail, apiKey: bot.body.api_key as string };
  assertSuccess(await new Client(t.nodes[1]!.url, oldKey).get('/users/me'));
  const regenerated = await ownerA.post(`/bots/${bot.body.user_id}/api_key/regenerate`);
  assertSuccess(regenerated);
  const stale = await new Client(t.nodes[1]!.url, oldKey).get('/users/me');
  assert.equal(stale.status, 401);
  assert.equal(stale.body.code, 'UNAUTHORIZED');
  assert.equal(stale.body.msg, 'Invalid API key');
  const fresh = await new Client(t.nodes[1]!.url, { email: oldKey.email, apiKey: regenerated.body.api_key as string }).get('/users/me');
  assertSuccess(fresh);
  assert.equal(fresh.body.full_name, 'Cluster Bot');
});
