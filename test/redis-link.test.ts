/**
 * The command connection of a deployment's Redis (src/lib/redis.ts) when the
 * connection is lost with commands on the wire (sent, not answered): after
 * a blip they are answered; in an outage they fail within seconds instead of
 * waiting for Redis to come back. Through a proxy that can hold back what the
 * process sends and cut every connection. Needs TEST_REDIS_URL (skipped
 * otherwise).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { deleteKeysWithPrefix, openRedis, type RedisLink } from '../src/lib/redis.ts';
import { TableChanges } from '../src/store/changes.ts';
import { ChangeFeed } from '../src/store/change-feed.ts';
import { RedisQueues } from '../src/events/redis-queues.ts';
import { redisProxy, settledWithin, sleep } from './helpers.ts';

const redisUrl = process.env.TEST_REDIS_URL;
const skip = redisUrl ? false : 'needs TEST_REDIS_URL';
const prefix = `parley-test:link_${process.pid}_${randomBytes(3).toString('hex')}:`;

after(async () => {
  if (!skip) await deleteKeysWithPrefix(redisUrl!, prefix);
});

/** A link through a new proxy, with a key set through it. */
async function linkThroughProxy(): Promise<{ link: RedisLink; proxy: Awaited<ReturnType<typeof redisProxy>>; key: string }> {
  const proxy = await redisProxy(redisUrl!);
  const link = await openRedis(proxy.url, prefix);
  const key = `${prefix}k${randomBytes(3).toString('hex')}`;
  await link.cmd.set(key, 'stored');
  return { link, proxy, key };
}

test('a command on the wire when the connection drops is answered once a blip is over', { skip }, async () => {
  const { link, proxy, key } = await linkThroughProxy();
  try {
    proxy.hold();
    const read = link.cmd.get(key);
    await sleep(50);
    proxy.cut();
    await sleep(300);
    proxy.restore();
    assert.deepEqual(await settledWithin(read, 3000), { value: 'stored' });
  } finally {
    await link.close();
    await proxy.close();
  }
});

test('in an outage, commands and pipelines on the wire when the connection dropped fail within seconds', { skip }, async () => {
  const { link, proxy, key } = await linkThroughProxy();
  try {
    proxy.hold();
    const cutAt = Date.now();
    const read = link.cmd.get(key);
    const pipeline = link.cmd.pipeline().get(key).incr(`${key}:n`).exec();
    await sleep(50);
    proxy.cut();
    const got = await settledWithin(read, 5000);
    assert.notEqual(got, 'pending', 'the command still waited 5 s after the loss');
    assert.match(String((got as { error?: Error }).error?.message), /Redis connection lost before the answer/);
    assert.ok(Date.now() - cutAt < 4000, `failed ${Date.now() - cutAt} ms after the loss`);
    const results = await settledWithin(pipeline, 1000);
    assert.notEqual(results, 'pending');
    const replies = (results as { value: Array<[Error | null, unknown]> }).value;
    assert.equal(replies.length, 2);
    for (const [err] of replies) assert.ok(err instanceof Error, 'each of the pipeline\'s commands failed');
    // Later commands fail at once until Redis is back.
    const later = Date.now();
    assert.ok((await settledWithin(link.cmd.get(key), 1000)) !== 'pending');
    assert.ok(Date.now() - later < 1000);
  } finally {
    await link.close();
    await proxy.close();
  }
});

test('in an outage, a read of the change feed on the wire does not hold later requests', { skip }, async () => {
  const { link, proxy } = await linkThroughProxy();
  const changes = new TableChanges();
  changes.useFeed(new ChangeFeed(changes, link));
  try {
    await changes.refresh();
    await changes.refresh();
    const before = changes.stamp(['users']);
    proxy.hold();
    const first = changes.refresh();
    await sleep(50);
    // Requests that come meanwhile share the next read, which waits for this one.
    const second = changes.refresh();
    proxy.cut();
    assert.notEqual(await settledWithin(first, 5000), 'pending', 'the read on the wire still waited 5 s after the loss');
    assert.notEqual(await settledWithin(second, 1000), 'pending', 'a later request still waited');
    // Unreadable feed: nothing kept is trusted.
    assert.notEqual(changes.stamp(['users']), before);
  } finally {
    await link.close();
    await proxy.close();
  }
});

test('events pushed to a queue whose answer was lost in a blip are queued once, though the push is sent again', { skip }, async () => {
  const { link, proxy } = await linkThroughProxy();
  try {
    const queues = await RedisQueues.open(link);
    const q = await queues.create({
      userId: 7,
      eventTypes: null,
      clientCapabilities: {},
      applyMarkdown: true,
      clientGravatar: false,
      slimPresence: false,
      allPublicStreams: false,
      narrow: [],
      lifespanSeconds: 600,
      clientName: 'test',
    });
    await queues.deliver([{ event: { type: 'user_status', user_id: 7, status_text: 'before' }, recipients: [7] }]);
    // The push runs in Redis; its answer is lost with the connection, so the link sends it again once back.
    proxy.mute(/EVALSHA/i);
    const delivered = queues.deliver([{ event: { type: 'user_status', user_id: 7, status_text: 'in the blip' }, recipients: [7] }]);
    await sleep(100);
    proxy.cut();
    await sleep(300);
    proxy.restore();
    const settled = await settledWithin(delivered, 3000);
    assert.notEqual(settled, 'pending');
    await queues.deliver([{ event: { type: 'user_status', user_id: 7, status_text: 'after' }, recipients: [7] }]);
    const polled = await queues.poll(q.id, { lastEventId: -1, dontBlock: true, heartbeatSeconds: 60 });
    assert.equal(polled.kind, 'events');
    assert.deepEqual(
      (polled as { events: any[] }).events.map((e: any) => [e.id, e.status_text]),
      [[0, 'before'], [1, 'in the blip'], [2, 'after']],
    );
    await queues.close();
  } finally {
    await link.close();
    await proxy.close();
  }
});
