/**
 * The feed through which the processes of a deployment tell each other which
 * tables they changed (src/store/change-feed.ts), on a real Redis: two
 * TableChanges stand for two processes. Needs TEST_REDIS_URL (skipped
 * otherwise), but for the last test, which checks with a stand-in feed that
 * events wait for the announcements of the changes they follow.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { TableChanges } from '../src/store/changes.ts';
import { ChangeFeed } from '../src/store/change-feed.ts';
import { deleteKeysWithPrefix, openRedis, type RedisLink } from '../src/lib/redis.ts';
import { BatchingBus } from '../src/events/bus.ts';
import type { EventQueues } from '../src/events/queue.ts';
import type { Envelope, ZulipEvent } from '../src/events/types.ts';
import type { FastifyBaseLogger } from 'fastify';

const redisUrl = process.env.TEST_REDIS_URL;
const skip = redisUrl ? false : 'needs TEST_REDIS_URL';
const prefix = `parley-test:feed_${process.pid}_${randomBytes(3).toString('hex')}:`;
const links: RedisLink[] = [];

/** A process's view: its table versions, joined to the shared feed. */
async function processView(): Promise<TableChanges> {
  const link = await openRedis(redisUrl!, prefix);
  links.push(link);
  const changes = new TableChanges();
  changes.useFeed(new ChangeFeed(changes, link));
  await changes.refresh();
  return changes;
}

let a: TableChanges;
let b: TableChanges;

before(async () => {
  if (skip) return;
  a = await processView();
  b = await processView();
  // Both have read the epoch the first refresh set.
  await a.refresh();
  await b.refresh();
});

after(async () => {
  if (skip) return;
  for (const l of links) await l.close();
  await deleteKeysWithPrefix(redisUrl!, prefix);
});

test('a committed transaction is announced before it returns; the other process sees only its tables', { skip }, async () => {
  const users = b.stamp(['users']);
  const streams = b.stamp(['streams']);
  await a.inTransaction(async () => {
    a.executed('UPDATE "users" SET "full_name" = $1 WHERE "id" = $2');
    a.executed('INSERT INTO "user_messages" ("user_id", "message_id", "flags") VALUES ($1, $2, $3)');
  });
  await b.refresh();
  assert.notEqual(b.stamp(['users']), users, 'users changed');
  assert.equal(b.stamp(['streams']), streams, 'streams did not');
  // Unannounced tables (not kept in memory anywhere) are not sent.
  const hash = await links[0]!.cmd.hgetall(`${prefix}table-changes`);
  assert.equal(hash.user_messages, undefined);
  assert.equal(hash.users, '1');
});

test('a transaction that fails announces nothing', { skip }, async () => {
  const streams = b.stamp(['streams']);
  await assert.rejects(
    a.inTransaction(async () => {
      a.executed('UPDATE "streams" SET "name" = $1');
      throw new Error('rolled back');
    }),
    /rolled back/,
  );
  await b.refresh();
  assert.equal(b.stamp(['streams']), streams);
});

test('a single statement is announced after it runs; announced() waits for it', { skip }, async () => {
  const realm = b.stamp(['realm']);
  a.executed('UPDATE "realm" SET "name" = $1');
  await a.announced();
  await b.refresh();
  assert.notEqual(b.stamp(['realm']), realm);
});

test('a process does not drop again what its own write already dropped', { skip }, async () => {
  await a.refresh();
  await a.inTransaction(async () => {
    a.executed('DELETE FROM "muted_users" WHERE "user_id" = $1');
  });
  const after = a.stamp(['muted_users']);
  await a.refresh();
  assert.equal(a.stamp(['muted_users']), after);
});

test('a Redis that lost the feed: every process drops everything, even when a counter comes back to a value seen before', { skip }, async () => {
  const subscriptionChange = () =>
    a.inTransaction(async () => {
      a.executed('UPDATE "subscriptions" SET "is_muted" = $1');
    });
  await subscriptionChange();
  await b.refresh();
  const seen = b.stamp(['subscriptions']);
  assert.equal((await links[0]!.cmd.hgetall(`${prefix}table-changes`)).subscriptions, '1');
  // Redis loses its data; the next change brings the counter back to 1, as B last saw it.
  await links[0]!.cmd.del(`${prefix}table-changes`);
  await subscriptionChange();
  assert.equal((await links[0]!.cmd.hgetall(`${prefix}table-changes`)).subscriptions, '1');
  await b.refresh();
  const dropped = b.stamp(['subscriptions']);
  assert.notEqual(dropped, seen, 'no epoch in the feed: everything dropped');
  // The epoch a process set then is new to the others: they drop everything once more, then settle.
  await a.refresh();
  await b.refresh();
  const settled = b.stamp(['subscriptions']);
  await b.refresh();
  assert.equal(b.stamp(['subscriptions']), settled, 'nothing new: nothing dropped');
});

test('requests that come while the feed is being read share the next read, which sees what was announced before they came', { skip }, async () => {
  const link = await openRedis(redisUrl!, prefix);
  links.push(link);
  const c = new TableChanges();
  c.useFeed(new ChangeFeed(c, link));
  await c.refresh();
  await c.refresh();
  // Counts the reads; the first one's answer reaches the process 100 ms after Redis gave it.
  let reads = 0;
  let firstAnswered!: () => void;
  const answered = new Promise<void>((resolve) => (firstAnswered = resolve));
  const hgetall = link.cmd.hgetall.bind(link.cmd);
  link.cmd.hgetall = ((key: string) => {
    reads++;
    const reply = hgetall(key);
    if (reads > 1) return reply;
    return reply.then(async (r) => {
      firstAnswered();
      await new Promise((resolve) => setTimeout(resolve, 100));
      return r;
    });
  }) as typeof link.cmd.hgetall;
  const emoji = c.stamp(['realm_emoji']);
  const first = c.refresh();
  await answered;
  // Another process announces a change after the first read, then two requests come.
  await a.inTransaction(async () => {
    a.executed('DELETE FROM "realm_emoji" WHERE "id" = $1');
  });
  const second = c.refresh();
  const third = c.refresh();
  await first;
  assert.equal(c.stamp(['realm_emoji']), emoji, 'the first read was made before the announcement');
  await Promise.all([second, third]);
  assert.notEqual(c.stamp(['realm_emoji']), emoji, 'the later callers waited for a read that saw it');
  assert.equal(reads, 2, 'and shared it');
});

test('events wait for the announcement of a write made outside a transaction (no Redis needed)', async () => {
  // A feed whose announcements finish only when the test says so.
  let finish!: () => void;
  const announcements: string[][] = [];
  const changes = new TableChanges();
  changes.useFeed({
    announce(tables) {
      announcements.push(tables);
      return new Promise<void>((resolve) => (finish = resolve));
    },
    refresh: () => Promise.resolve(),
  });
  const delivered: string[] = [];
  const queues = {
    deliver: async (envelopes: Envelope[]) => {
      for (const e of envelopes) delivered.push(e.event.type as string);
    },
  } as unknown as EventQueues;
  const log = { error: () => {} } as unknown as FastifyBaseLogger;
  const bus = new BatchingBus(queues, log);
  bus.deliverAfter(() => changes.announced());

  // A single statement (autocommitted), then its event, as an action does.
  changes.executed('UPDATE "user_topics" SET "visibility_policy" = $1');
  bus.send({ type: 'user_topic', id: 0 } as unknown as ZulipEvent, [1]);
  assert.deepEqual(announcements, [['user_topics']]);
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(delivered, [], 'not delivered while the announcement is under way');
  finish();
  await bus.flush();
  assert.deepEqual(delivered, ['user_topic']);

  // Nothing being announced: delivered without waiting.
  bus.send({ type: 'presence', id: 1 } as unknown as ZulipEvent, [1]);
  await bus.flush();
  assert.deepEqual(delivered, ['user_topic', 'presence']);
});
