/**
 * Event queues in Redis, so that any process can serve any queue: a queue
 * registered through one node is long-polled through any other, and
 * survives the node that registered it.
 *
 * Keys (all under the deployment's prefix P):
 *   P q:<id>      hash: user, opts (JSON), life (seconds), next (next event id),
 *                 pruned (newest acknowledged id), poller (token of the waiting poll)
 *   P e:<id>      sorted set of the queue's events (JSON), scored by event id
 *   P u:<userId>  set of the user's queue ids (fan-out reads only recipients' sets)
 *   P apq         set of all_public_streams queue ids
 *   P exp         sorted set: queue id -> time (ms) after which it may be collected
 *   P wake        pub/sub channel: comma-separated ids of queues that changed
 *
 * Scripts make each step atomic: `push` numbers events per queue, `begin`
 * applies the acknowledgement of GET /events, `recheck` reads for a waiting
 * poll, `drop` deletes a queue. A waiting poll is held by the node that
 * received it; it wakes when that node sees the queue's id on the wake
 * channel. A newer poll takes the queue's `poller` field, so the older one
 * (on whatever node) answers empty. Collection is a sorted-set range over
 * deadlines (cluster-wide; run by one node at a time); a queue whose poller's
 * node is alive is kept.
 */
import type { Redis } from 'ioredis';
import type { RedisLink } from '../lib/redis.ts';
import { copiesFor, expand, newQueueId, type EventQueue, type EventQueues, type PollRequest, type PollResult, type QueueFilter, type QueueOptions } from './queue.ts';
import type { Envelope, ZulipEvent } from './types.ts';

const DROP_FN = `
local function drop(p, id)
  local q = p .. 'q:' .. id
  local user = redis.call('HGET', q, 'user')
  if not user then redis.call('ZREM', p .. 'exp', id) return 0 end
  redis.call('DEL', q, p .. 'e:' .. id)
  redis.call('SREM', p .. 'u:' .. user, id)
  redis.call('SREM', p .. 'apq', id)
  redis.call('ZREM', p .. 'exp', id)
  return 1
end
`;

const SCRIPTS = {
  // KEYS: q, e. ARGV: the sending node's ID ('' for a heartbeat), its batch
  // number, event JSON texts. Returns the next id, or -1 when the queue is
  // gone. A batch the queue has already had from that node (the same push
  // sent again after a lost answer) adds nothing: each node numbers its
  // batches upwards and writes them one after another (BatchingBus), so the
  // queue keeps the last number per node.
  parleyPush: {
    numberOfKeys: 2,
    lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local n = tonumber(redis.call('HGET', KEYS[1], 'next'))
local from = ARGV[1] ~= '' and ('from:' .. ARGV[1]) or nil
if from then
  local seen = redis.call('HGET', KEYS[1], from)
  if seen and tonumber(seen) >= tonumber(ARGV[2]) then return n end
  redis.call('HSET', KEYS[1], from, ARGV[2])
end
for i = 3, #ARGV do
  local s = ARGV[i]
  redis.call('ZADD', KEYS[2], n, string.sub(s, 1, -2) .. ',"id":' .. n .. '}')
  n = n + 1
end
redis.call('HSET', KEYS[1], 'next', n)
return n`,
  },
  // KEYS: q, e, exp. ARGV: id, last_event_id, token, now, heartbeat ms, dont_block (1/0).
  // Returns {status, events, replaced (1/0)}.
  parleyBegin: {
    numberOfKeys: 3,
    lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local last = tonumber(ARGV[2])
local pruned = redis.call('HGET', KEYS[1], 'pruned')
if pruned and last < tonumber(pruned) then return {'pruned'} end
local gone = redis.call('ZREVRANGEBYSCORE', KEYS[2], last, '-inf', 'WITHSCORES', 'LIMIT', 0, 1)
if #gone > 0 then
  pruned = gone[2]
  redis.call('HSET', KEYS[1], 'pruned', pruned)
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', last)
end
if pruned and last ~= tonumber(pruned) then return {'not_in_queue'} end
local old = redis.call('HGET', KEYS[1], 'poller')
local events = redis.call('ZRANGE', KEYS[2], 0, -1)
local life = tonumber(redis.call('HGET', KEYS[1], 'life')) * 1000
local now = tonumber(ARGV[4])
if #events > 0 or ARGV[6] == '1' then
  redis.call('HDEL', KEYS[1], 'poller')
  redis.call('ZADD', KEYS[3], now + life, ARGV[1])
else
  redis.call('HSET', KEYS[1], 'poller', ARGV[3])
  redis.call('ZADD', KEYS[3], now + life + tonumber(ARGV[5]), ARGV[1])
end
return {'ok', events, old and 1 or 0}`,
  },
  // KEYS: q, e, exp. ARGV: id, token, now. For a waiting poll: {'missing'} | {'replaced'} | {'ok', events}.
  parleyRecheck: {
    numberOfKeys: 3,
    lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
if redis.call('HGET', KEYS[1], 'poller') ~= ARGV[2] then return {'replaced'} end
local events = redis.call('ZRANGE', KEYS[2], 0, -1)
if #events > 0 then
  redis.call('HDEL', KEYS[1], 'poller')
  redis.call('ZADD', KEYS[3], tonumber(ARGV[3]) + tonumber(redis.call('HGET', KEYS[1], 'life')) * 1000, ARGV[1])
end
return {'ok', events}`,
  },
  // KEYS: q, exp. ARGV: id, token, now. A waiting poll ends without events (client gone, shutdown).
  parleyRelease: {
    numberOfKeys: 2,
    lua: `
if redis.call('HGET', KEYS[1], 'poller') == ARGV[2] then
  redis.call('HDEL', KEYS[1], 'poller')
  redis.call('ZADD', KEYS[2], tonumber(ARGV[3]) + tonumber(redis.call('HGET', KEYS[1], 'life')) * 1000, ARGV[1])
end
return 0`,
  },
  // ARGV: prefix, id. Returns 1 when the queue existed.
  parleyDrop: { numberOfKeys: 0, lua: `${DROP_FN}\nreturn drop(ARGV[1], ARGV[2])` },
  // ARGV: prefix, now, limit. Drops queues past their deadline, unless their
  // poller's node is alive (then the deadline moves on). Returns dropped ids.
  parleyGc: {
    numberOfKeys: 0,
    lua: `${DROP_FN}
local p = ARGV[1]
local now = tonumber(ARGV[2])
local out = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', p .. 'exp', '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))) do
  local q = p .. 'q:' .. id
  local poller = redis.call('HGET', q, 'poller')
  local node = poller and string.match(poller, '^([^/]+)/')
  if node and redis.call('EXISTS', p .. 'node:' .. node) == 1 then
    redis.call('ZADD', p .. 'exp', now + tonumber(redis.call('HGET', q, 'life')) * 1000, id)
  elseif drop(p, id) == 1 then
    out[#out + 1] = id
  end
end
return out`,
  },
} as const;

type Reply = Array<string | string[] | number>;
interface Scripted {
  parleyPush(q: string, e: string, node: string, batch: number, ...events: string[]): Promise<number>;
  parleyBegin(q: string, e: string, exp: string, id: string, last: number, token: string, now: number, heartbeatMs: number, dontBlock: number): Promise<Reply>;
  parleyRecheck(q: string, e: string, exp: string, id: string, token: string, now: number): Promise<Reply>;
  parleyRelease(q: string, exp: string, id: string, token: string, now: number): Promise<number>;
  parleyDrop(prefix: string, id: string): Promise<number>;
  parleyGc(prefix: string, now: number, limit: number): Promise<string[]>;
}

interface StoredOptions extends Omit<QueueOptions, 'eventTypes'> {
  eventTypes: string[] | null;
}

interface Waiter {
  queueId: string;
  token: string;
  resolve: (events: ZulipEvent[]) => void;
  heartbeat: NodeJS.Timeout | null;
  /** A recheck is running; `dirty` asks for another when it ends. */
  busy: boolean;
  dirty: boolean;
}

const parse = (texts: string[]): ZulipEvent[] => texts.map((t) => JSON.parse(t) as ZulipEvent);

export class RedisQueues implements EventQueues {
  private readonly link: RedisLink;
  private readonly r: Redis & Scripted;
  private readonly p: string;
  private readonly filters = new Map<string, QueueFilter>();
  /** Queue registrations seen by this node (they never change). */
  private readonly known = new Map<string, EventQueue>();
  private readonly waiters = new Map<string, Waiter>();
  private gcTimer: NodeJS.Timeout | null = null;
  private pollSeq = 0;
  /** The number of this node's last batch of pushes (see parleyPush). */
  private batchSeq = 0;
  private closed = false;

  private constructor(link: RedisLink) {
    this.link = link;
    this.p = link.prefix;
    for (const [name, def] of Object.entries(SCRIPTS)) link.cmd.defineCommand(name, def);
    this.r = link.cmd as Redis & Scripted;
  }

  static async open(link: RedisLink): Promise<RedisQueues> {
    const queues = new RedisQueues(link);
    const sub = link.subscriber();
    const channel = queues.key('wake');
    sub.on('message', (ch: string, message: string) => {
      if (ch === channel) queues.woken(message);
    });
    // Wake-ups published while the subscription was down are lost: recheck every waiting poll.
    sub.on('ready', () => {
      for (const w of queues.waiters.values()) queues.recheck(w);
    });
    await sub.subscribe(channel);
    return queues;
  }

  /** Queues seen by this process and polls waiting in it (the cluster's totals are the sum over processes). */
  stats(): { queues: number; waiting: number } {
    return { queues: this.known.size, waiting: this.waiters.size };
  }

  private key(name: string): string {
    return this.p + name;
  }

  setFilter(type: string, filter: QueueFilter): void {
    this.filters.set(type, filter);
  }

  async create(opts: QueueOptions): Promise<EventQueue> {
    const id = newQueueId();
    const stored: StoredOptions = { ...opts, eventTypes: opts.eventTypes ? [...opts.eventTypes] : null };
    const m = this.r.multi();
    m.hset(this.key(`q:${id}`), { user: opts.userId, opts: JSON.stringify(stored), life: opts.lifespanSeconds, next: 0 });
    m.sadd(this.key(`u:${opts.userId}`), id);
    if (opts.allPublicStreams) m.sadd(this.key('apq'), id);
    m.zadd(this.key('exp'), Date.now() + opts.lifespanSeconds * 1000, id);
    await m.exec();
    const q: EventQueue = { id, userId: opts.userId, opts };
    this.remember(q);
    return q;
  }

  private remember(q: EventQueue): void {
    if (this.known.size > 100_000) this.known.clear();
    this.known.set(q.id, q);
  }

  private static fromStored(id: string, user: string, text: string): EventQueue {
    const s = JSON.parse(text) as StoredOptions;
    const opts: QueueOptions = { ...s, eventTypes: s.eventTypes ? new Set(s.eventTypes) : null };
    return { id, userId: Number(user), opts };
  }

  async get(id: string): Promise<EventQueue | undefined> {
    const [user, text] = await this.r.hmget(this.key(`q:${id}`), 'user', 'opts');
    if (user === null || text === null) {
      this.known.delete(id);
      return undefined;
    }
    const q = this.known.get(id) ?? RedisQueues.fromStored(id, user, text);
    this.remember(q);
    return q;
  }

  async poll(id: string, req: PollRequest): Promise<PollResult> {
    // A newer poll on this node replaces a waiting one here at once.
    this.waiters.get(id)?.resolve([]);
    const token = `${this.link.nodeId}/${++this.pollSeq}`;
    const dontBlock = req.dontBlock || !!req.signal?.aborted || this.closed;
    let waiter: Waiter | null = null;
    let done: Promise<ZulipEvent[]> | null = null;
    if (!dontBlock) {
      // Registered before reading, so a wake-up that races the read is not missed.
      done = new Promise<ZulipEvent[]>((resolve) => {
        const w: Waiter = {
          queueId: id,
          token,
          heartbeat: null,
          busy: true,
          dirty: false,
          resolve: (events) => {
            if (this.waiters.get(id) === w) this.waiters.delete(id);
            if (w.heartbeat) clearTimeout(w.heartbeat);
            resolve(events);
          },
        };
        waiter = w;
        this.waiters.set(id, w);
      });
    }
    const w = waiter as Waiter | null;
    let reply: Reply;
    try {
      reply = await this.r.parleyBegin(this.key(`q:${id}`), this.key(`e:${id}`), this.key('exp'), id, req.lastEventId, token, Date.now(), req.heartbeatSeconds * 1000, dontBlock ? 1 : 0);
    } catch (e) {
      w?.resolve([]);
      throw e;
    }
    const status = reply[0] as string;
    if (status !== 'ok') {
      w?.resolve([]);
      return { kind: status as 'missing' | 'pruned' | 'not_in_queue' };
    }
    // The poll this one replaces (on any node) answers empty when it rechecks.
    if (reply[2] === 1) void this.r.publish(this.key('wake'), id);
    const events = parse(reply[1] as string[]);
    if (!w || events.length) {
      w?.resolve(events);
      return { kind: 'events', events };
    }
    if (this.waiters.get(id) !== w) return { kind: 'events', events: await done! };
    w.heartbeat = setTimeout(() => void this.pushHeartbeat(id).catch(() => this.release(w)), req.heartbeatSeconds * 1000);
    w.heartbeat.unref();
    req.signal?.onAbort(() => this.release(w));
    w.busy = false;
    if (w.dirty) this.recheck(w);
    return { kind: 'events', events: await done! };
  }

  /** Ends a waiting poll with no events and gives the queue's wait up. */
  private release(w: Waiter): void {
    if (this.waiters.get(w.queueId) !== w) return;
    w.resolve([]);
    void this.r.parleyRelease(this.key(`q:${w.queueId}`), this.key('exp'), w.queueId, w.token, Date.now()).catch(() => {});
  }

  private woken(message: string): void {
    for (const id of message.split(',')) {
      const w = this.waiters.get(id);
      if (w) this.recheck(w);
    }
  }

  private recheck(w: Waiter): void {
    if (w.busy) {
      w.dirty = true;
      return;
    }
    w.busy = true;
    w.dirty = false;
    const id = w.queueId;
    this.r
      .parleyRecheck(this.key(`q:${id}`), this.key(`e:${id}`), this.key('exp'), id, w.token, Date.now())
      .then(
        (reply) => {
          if (reply[0] !== 'ok') return w.resolve([]);
          const events = parse(reply[1] as string[]);
          if (events.length) w.resolve(events);
        },
        () => this.release(w),
      )
      .finally(() => {
        w.busy = false;
        if (w.dirty && this.waiters.get(id) === w) this.recheck(w);
      });
  }

  async isWaiting(id: string): Promise<boolean> {
    return (await this.r.hexists(this.key(`q:${id}`), 'poller')) === 1;
  }

  async delete(id: string): Promise<boolean> {
    const existed = (await this.r.parleyDrop(this.p, id)) === 1;
    this.known.delete(id);
    if (existed) await this.r.publish(this.key('wake'), id);
    return existed;
  }

  async deleteUserQueues(userId: number): Promise<void> {
    for (const id of await this.r.smembers(this.key(`u:${userId}`))) await this.delete(id);
  }

  /** Pushes a heartbeat to one queue and wakes its poll (one sent twice in a blip does no harm). */
  private async pushHeartbeat(id: string): Promise<void> {
    const pl = this.r.pipeline();
    (pl as unknown as Scripted).parleyPush(this.key(`q:${id}`), this.key(`e:${id}`), '', 0, JSON.stringify({ type: 'heartbeat' }));
    pl.publish(this.key('wake'), id);
    await pl.exec();
  }

  /**
   * One batch: read the recipients' queue sets (one pipeline), load the
   * registrations this node has not seen yet (one pipeline), shape every
   * queue's copies with the filters, then write them all and publish the
   * wake-up (one pipeline). Work grows with the recipients' queues.
   */
  async deliver(envelopes: Envelope[]): Promise<void> {
    const userIds = new Set<number>();
    let wantPublic = false;
    for (const env of envelopes) {
      for (const r of env.recipients) userIds.add(typeof r === 'number' ? r : r.id);
      if (env.options?.allPublicStreamsQueues) wantPublic = true;
    }
    const users = [...userIds];
    const read = this.r.pipeline();
    for (const u of users) read.smembers(this.key(`u:${u}`));
    if (wantPublic) read.smembers(this.key('apq'));
    const sets = ((await read.exec()) ?? []).map(([err, ids]) => {
      if (err) throw err;
      return ids as string[];
    });
    const unknown = new Set<string>();
    for (const ids of sets) for (const id of ids) if (!this.known.has(id)) unknown.add(id);
    if (unknown.size) {
      const ids = [...unknown];
      const load = this.r.pipeline();
      for (const id of ids) load.hmget(this.key(`q:${id}`), 'user', 'opts');
      const rows = (await load.exec()) ?? [];
      ids.forEach((id, i) => {
        const [user, text] = (rows[i]?.[1] ?? [null, null]) as [string | null, string | null];
        if (user !== null && text !== null) this.remember(RedisQueues.fromStored(id, user, text));
      });
    }
    const queuesOf = new Map<number, EventQueue[]>();
    users.forEach((u, i) => queuesOf.set(u, sets[i].flatMap((id) => this.known.get(id) ?? [])));
    const publicQueues = wantPublic ? sets[users.length].flatMap((id) => this.known.get(id) ?? []) : [];
    const out = new Map<string, string[]>();
    for (const env of envelopes) {
      for (const [q, base] of expand(env, (u) => queuesOf.get(u) ?? [], () => publicQueues)) {
        const copies = copiesFor(this.filters, q, base, env.options?.meta);
        if (!copies.length) continue;
        let list = out.get(q.id);
        if (!list) out.set(q.id, (list = []));
        for (const c of copies) list.push(JSON.stringify(c));
      }
    }
    if (!out.size) return;
    const write = this.r.pipeline();
    const batch = ++this.batchSeq;
    for (const [id, texts] of out) (write as unknown as Scripted).parleyPush(this.key(`q:${id}`), this.key(`e:${id}`), this.link.nodeId, batch, ...texts);
    write.publish(this.key('wake'), [...out.keys()].join(','));
    const results = (await write.exec()) ?? [];
    [...out.keys()].forEach((id, i) => {
      if (results[i]?.[1] === -1) this.known.delete(id);
    });
  }

  async gc(now = Date.now()): Promise<number> {
    let removed = 0;
    for (;;) {
      const ids = await this.r.parleyGc(this.p, now, 500);
      for (const id of ids) this.known.delete(id);
      if (ids.length) await this.r.publish(this.key('wake'), ids.join(','));
      removed += ids.length;
      if (ids.length < 500) return removed;
    }
  }

  startGc(intervalSeconds: number): void {
    const ms = intervalSeconds * 1000;
    // One node per interval sweeps (whoever takes the lock first).
    const tick = async (): Promise<void> => {
      if ((await this.r.set(this.key('gc-lock'), this.link.nodeId, 'PX', Math.max(ms - 50, 1), 'NX')) === 'OK') await this.gc();
    };
    this.gcTimer = setInterval(() => void tick().catch(() => {}), ms);
    this.gcTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.gcTimer) clearInterval(this.gcTimer);
    for (const w of [...this.waiters.values()]) this.release(w);
  }
}
