/**
 * The Redis connection of a multi-process deployment (REDIS_URL): one
 * connection for commands and pipelines, one for subscriptions, a key prefix
 * (PARLEY_REDIS_PREFIX) in front of every key and channel, and this
 * process's node ID with a liveness key other nodes can check.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { lazyModule } from './lazy.ts';

const ioredis = lazyModule<typeof import('ioredis')>('ioredis');

export interface RedisLink {
  cmd: Redis;
  /** Connection in subscriber mode (created on first use). */
  subscriber(): Redis;
  prefix: string;
  nodeId: string;
  /** Key of a node's liveness marker (present while the node runs). */
  nodeKey(nodeId: string): string;
  close(): Promise<void>;
}

const NODE_TTL_MS = 15_000;

/** Where a Redis connection's errors go once it is up (the server's log). */
export type RedisErrorLog = (err: Error, connection: 'commands' | 'subscriber') => void;

/**
 * Reports a connection's errors once per outage: ioredis reconnects by itself,
 * and without a listener it prints every failed attempt to stderr.
 */
function reportErrors(client: Redis, connection: 'commands' | 'subscriber', log: RedisErrorLog | undefined): void {
  let reported = false;
  client.on('error', (err: Error) => {
    if (reported) return;
    reported = true;
    log?.(err, connection);
  });
  client.on('ready', () => {
    reported = false;
  });
}

/**
 * How long after losing its connection a process lets commands wait for it
 * to come back: a blip (a dropped connection that ioredis makes again within
 * a few hundred milliseconds) delays the requests that fall in it instead of
 * failing them; once the connection has been gone this long, commands fail
 * at once until it is back, as in an outage.
 */
const RECONNECT_WAIT_MS = 2000;

/**
 * The states in which ioredis has no connection to write to and is making
 * one; in `connect` it has one, but only its own handshake goes out on it.
 */
const RECONNECTING = new Set(['connecting', 'connect', 'reconnecting', 'close']);

/**
 * A command sent while the connection is being made again waits until it is
 * ready, then goes out as it would have; if the connection is not back
 * within `ms` of its loss, or is closed for good, the waiting commands fail
 * as ioredis fails a command without an offline queue, and so do later ones
 * until it is back. A waiting command had not been sent, so sending it later
 * cannot run it twice. The commands of a pipeline or MULTI wait together and
 * go out together, in their order.
 *
 * The commands that were on the wire when the connection was lost (sent,
 * not answered) are sent again by ioredis once it is ready, and until then
 * wait without a bound: in an outage, for as long as it lasts. They too fail
 * once the connection has been gone `ms`. (A read of the change feed that
 * waited there held every later request of the process, which wait for that
 * read.)
 */
function waitWhileReconnecting(client: Redis, ms: number): void {
  type Send = (command: { name: string; promise: Promise<unknown> }, stream?: unknown) => unknown;
  type Unanswered = { length: number; shift(): { command: { reject(err: Error): void } } | undefined };
  const send = (client.sendCommand as unknown as Send).bind(client);
  const { Command } = ioredis();
  const down = (name: string): boolean =>
    RECONNECTING.has(client.status) && !(client.status === 'connect' && Command.checkFlag('HANDSHAKE_COMMANDS', name));
  /** When the connection was lost (null while it is up). */
  let lostAt: number | null = null;
  const waiting: Array<() => void> = [];
  let timer: NodeJS.Timeout | null = null;
  const release = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    for (const go of waiting.splice(0)) go();
  };
  /** Fails the commands left unanswered by the lost connection (ioredis keeps them to send again when it is ready). */
  const failUnanswered = (): void => {
    if (client.status === 'ready') return;
    const unanswered = (client as unknown as { prevCommandQueue?: Unanswered | null }).prevCommandQueue;
    if (!unanswered?.length) return;
    const err = new Error(`Redis connection lost before the answer; not back within ${ms} ms`);
    for (let item = unanswered.shift(); item; item = unanswered.shift()) item.command.reject(err);
  };
  const expire = (): void => {
    release();
    failUnanswered();
  };
  const arm = (): void => {
    timer ??= setTimeout(expire, Math.max(0, lostAt! + ms - Date.now())).unref();
  };
  client.on('close', () => {
    lostAt ??= Date.now();
    arm();
  });
  client.on('ready', () => {
    lostAt = null;
    release();
  });
  client.on('end', expire);
  (client as unknown as { sendCommand: Send }).sendCommand = (command, stream) => {
    if (!down(command.name)) return send(command, stream);
    lostAt ??= Date.now();
    if (lostAt + ms - Date.now() <= 0) return send(command, stream);
    waiting.push(() => void send(command, stream));
    arm();
    return command.promise;
  };
}

export async function openRedis(url: string, prefix: string, log?: RedisErrorLog): Promise<RedisLink> {
  // No auto-pipelining: it gathers the commands of one tick into a pipeline
  // object of their own, which cost more than it saved. A request's few
  // commands (the change feed, the rate limits) go out one by one; the event
  // queues batch theirs in explicit pipelines. One process on PostgreSQL +
  // Redis serving GET /users/me used about 100 µs of CPU per request with
  // it and 60 without.
  const options = { maxRetriesPerRequest: 3, enableAutoPipelining: false, lazyConnect: true };
  // No offline queue: commands sent while the connection is down wait for it
  // only until RECONNECT_WAIT_MS after its loss (waitWhileReconnecting),
  // instead of waiting in ioredis's offline queue for its reconnection
  // attempts, seconds apart after a few: a request then answered 500 only
  // after 6-27 seconds, and a shutdown waited 20 seconds and more for a
  // periodic job's pass. The subscriber keeps the queue (its SUBSCRIBE is
  // sent before it connects; ioredis subscribes it again after a
  // reconnection).
  const cmd = new (ioredis().Redis)(url, { ...options, enableOfflineQueue: false });
  // A server that cannot be reached fails the start with the reason (ioredis
  // would report it as an unhandled 'error' event and reject with "Connection
  // is closed."), and the connection stops retrying.
  let failure: Error | undefined;
  const onError = (e: Error): void => {
    failure ??= e;
  };
  cmd.on('error', onError);
  try {
    await cmd.connect();
  } catch (e) {
    cmd.disconnect();
    throw failure ?? e;
  } finally {
    cmd.off('error', onError);
  }
  reportErrors(cmd, 'commands', log);
  waitWhileReconnecting(cmd, RECONNECT_WAIT_MS);
  let sub: Redis | null = null;
  const nodeId = `${process.pid.toString(36)}-${randomBytes(6).toString('hex')}`;
  const nodeKey = (id: string): string => `${prefix}node:${id}`;
  const alive = (): Promise<unknown> => cmd.set(nodeKey(nodeId), String(Date.now()), 'PX', NODE_TTL_MS);
  await alive();
  const timer = setInterval(() => void alive().catch(() => {}), NODE_TTL_MS / 3);
  timer.unref();
  return {
    cmd,
    subscriber() {
      if (!sub) {
        sub = new (ioredis().Redis)(url, { ...options, lazyConnect: false });
        reportErrors(sub, 'subscriber', log);
      }
      return sub;
    },
    prefix,
    nodeId,
    nodeKey,
    async close() {
      clearInterval(timer);
      // A connection that is down is dropped at once: a command would wait for
      // its retries (seconds each) and hold up the shutdown. The node's key
      // then expires by itself.
      const end = async (client: Redis, before?: () => Promise<unknown>): Promise<void> => {
        if (client.status !== 'ready') return client.disconnect();
        await before?.().catch(() => {});
        await client.quit().catch(() => client.disconnect());
      };
      if (sub) await end(sub);
      await end(cmd, () => cmd.del(nodeKey(nodeId)));
    },
  };
}

/** Deletes every key under a prefix (tests and benchmarks clean up their own). */
export async function deleteKeysWithPrefix(url: string, prefix: string): Promise<void> {
  const r = new (ioredis().Redis)(url, { lazyConnect: true });
  await r.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await r.del(...keys);
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
}
