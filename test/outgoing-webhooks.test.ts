/**
 * Outgoing-webhook bots against a real local HTTP receiver started here:
 * Zulip's generic and Slack-compatible payloads, the bot's reply in the same
 * conversation, failures and retries with the notices to the bot's owner, and
 * delivery off the sender's request path.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, assertSuccess, Client, type TestServer, type Account, streamIdOf } from './helpers.ts';
import { startServer } from '../src/server.ts';

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  respond(status: number, body: string): void;
}

/** A local HTTP server recording requests; each is answered by the handler for its path. */
class Receiver {
  server: http.Server;
  received: Received[] = [];
  handlers = new Map<string, (r: Received) => void>();
  waiters: Array<() => void> = [];
  constructor() {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        const r: Received = {
          path: req.url ?? '',
          headers: req.headers,
          body,
          respond: (status, text) => {
            res.writeHead(status, { 'Content-Type': 'application/json' });
            res.end(text);
          },
        };
        this.received.push(r);
        for (const w of this.waiters.splice(0)) w();
        const h = this.handlers.get(r.path);
        if (h) h(r);
        else r.respond(200, JSON.stringify({ response_not_required: true }));
      });
    });
  }
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  /** Waits until `n` requests to `path` have arrived. */
  async requestsTo(path: string, n = 1): Promise<Received[]> {
    for (;;) {
      const got = this.received.filter((r) => r.path === path);
      if (got.length >= n) return got;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let t: TestServer;
let rx: Receiver;
let base: string;
let alice: Account;
const CHANNEL = 'bots';

before(async () => {
  rx = new Receiver();
  base = await rx.start();
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  assertSuccess(await t.client(t.owner).post('/users/me/subscriptions', { subscriptions: [{ name: CHANNEL }], principals: [t.owner.id, alice.id] }));
});
after(async () => {
  await t.close();
  await rx.close();
});

let n = 0;
async function makeBot(path: string, interfaceType = 1) {
  const s = `out${++n}`;
  const body = assertSuccess(
    await t.client(t.owner).post('/bots', { full_name: `Out Bot ${n}`, short_name: s, bot_type: 3, payload_url: JSON.stringify(base + path), interface_type: interfaceType }),
  );
  const user = assertSuccess(await t.client(t.owner).get(`/users/${body.user_id}`)).user;
  const service = await t.server.svc.store.db.selectFrom('bot_services').selectAll().where('user_id', '=', body.user_id).executeTakeFirstOrThrow();
  return { id: body.user_id as number, email: user.email as string, fullName: user.full_name as string, token: service.token };
}

/** Waits for a message matching `pred` in the narrow (the bot answers asynchronously). */
async function waitForMessage(narrow: unknown[], pred: (m: any) => boolean, who: Account = t.owner): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const res = assertSuccess(await t.client(who).get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow, apply_markdown: false }));
    const m = res.messages.find(pred);
    if (m) return m;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no matching message in ${JSON.stringify(narrow)}`);
}

const inChannel = (topic: string) => [
  { operator: 'channel', operand: CHANNEL },
  { operator: 'topic', operand: topic },
];

test('generic interface: a mention in a channel POSTs Zulip\'s payload; the reply appears in the same topic', async () => {
  const bot = await makeBot('/generic');
  rx.handlers.set('/generic', (r) => r.respond(200, JSON.stringify({ content: 'pong from the bot' })));
  const sent = assertSuccess(await t.client(alice).post('/messages', { type: 'stream', to: CHANNEL, topic: 'ping', content: `@**${bot.fullName}** ping` }));

  const [req] = await rx.requestsTo('/generic');
  assert.equal(req.headers['content-type'], 'application/json');
  assert.match(String(req.headers['user-agent']), /^ZulipOutgoingWebhook\//);
  const payload = JSON.parse(req.body);
  assert.deepEqual(Object.keys(payload).sort(), ['bot_email', 'bot_full_name', 'data', 'message', 'token', 'trigger']);
  assert.equal(payload.bot_email, bot.email);
  assert.equal(payload.bot_full_name, bot.fullName);
  assert.equal(payload.token, bot.token);
  assert.equal(payload.trigger, 'mention');
  assert.equal(payload.data, `@**${bot.fullName}** ping`);
  assert.equal(payload.message.id, sent.id);
  assert.equal(payload.message.content, `@**${bot.fullName}** ping`);
  assert.match(payload.message.rendered_content, /class="user-mention"/);
  assert.equal(payload.message.sender_id, alice.id);
  assert.equal(payload.message.type, 'stream');
  assert.equal(payload.message.display_recipient, CHANNEL);
  assert.equal(payload.message.subject, 'ping');

  const reply = await waitForMessage(inChannel('ping'), (m) => m.sender_id === bot.id);
  assert.equal(reply.content, 'pong from the bot');
  assert.equal(reply.client, 'OutgoingWebhookResponse');

  // A message that does not mention the bot, or one sent by a bot, triggers nothing.
  const before = rx.received.length;
  assertSuccess(await t.client(alice).post('/messages', { type: 'stream', to: CHANNEL, topic: 'ping', content: 'no mention here' }));
  await waitForMessage(inChannel('ping'), (m) => m.content === 'no mention here');
  assert.equal(rx.received.filter((r) => r.path === '/generic').length, 1);
  assert.equal(rx.received.length, before);
});

test('a direct message to the bot (trigger "direct_message") is answered in the conversation', async () => {
  const bot = await makeBot('/dm');
  rx.handlers.set('/dm', (r) => r.respond(200, JSON.stringify({ content: `you said: ${JSON.parse(r.body).data}` })));
  assertSuccess(await t.client(alice).post('/messages', { type: 'private', to: JSON.stringify([bot.id]), content: 'hello bot' }));
  const [req] = await rx.requestsTo('/dm');
  const payload = JSON.parse(req.body);
  assert.equal(payload.trigger, 'direct_message');
  assert.equal(payload.message.type, 'private');
  assert.deepEqual(payload.message.display_recipient.map((r: any) => r.id).sort(), [alice.id, bot.id].sort((a, b) => a - b));
  const reply = await waitForMessage([{ operator: 'dm', operand: [bot.id] }], (m) => m.sender_id === bot.id, alice);
  assert.equal(reply.content, 'you said: hello bot');
});

test('Slack-compatible interface: form fields; the reply is the response\'s text', async () => {
  const bot = await makeBot('/slack', 2);
  rx.handlers.set('/slack', (r) => r.respond(200, JSON.stringify({ text: 'slack says hi' })));
  const sent = assertSuccess(await t.client(alice).post('/messages', { type: 'stream', to: CHANNEL, topic: 'slack', content: `@**${bot.fullName}** hi` }));
  const [req] = await rx.requestsTo('/slack');
  assert.equal(req.headers['content-type'], 'application/x-www-form-urlencoded');
  const form = Object.fromEntries(new URLSearchParams(req.body));
  const streamId = await streamIdOf(t.client(t.owner), CHANNEL);
  const msg = assertSuccess(await t.client(alice).get(`/messages/${sent.id}`)).message;
  assert.deepEqual(form, {
    token: bot.token,
    team_id: `T${t.server.svc.realmId}`,
    team_domain: new URL(t.url).host,
    channel_id: `C${streamId}`,
    channel_name: CHANNEL,
    thread_ts: String(msg.timestamp),
    timestamp: String(msg.timestamp),
    user_id: `U${alice.id}`,
    user_name: 'Alice',
    text: `@**${bot.fullName}** hi`,
    trigger_word: 'mention',
    service_id: String(bot.id),
  });
  const reply = await waitForMessage(inChannel('slack'), (m) => m.sender_id === bot.id);
  assert.equal(reply.content, 'slack says hi');
});

test('a slow endpoint never delays the sender: the message is sent while the bot\'s server is still answering', async () => {
  const bot = await makeBot('/slow');
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  rx.handlers.set('/slow', (r) => void released.then(() => r.respond(200, JSON.stringify({ content: 'finally' }))));
  // The send completes although the receiver has not answered (it waits for `release`).
  assertSuccess(await t.client(alice).post('/messages', { type: 'stream', to: CHANNEL, topic: 'slow', content: `@**${bot.fullName}** take your time` }));
  await rx.requestsTo('/slow');
  // Another bot is served meanwhile.
  const quick = await makeBot('/quick');
  rx.handlers.set('/quick', (r) => r.respond(200, JSON.stringify({ content: 'quick reply' })));
  assertSuccess(await t.client(alice).post('/messages', { type: 'stream', to: CHANNEL, topic: 'slow', content: `@**${quick.fullName}** now` }));
  await waitForMessage(inChannel('slow'), (m) => m.sender_id === quick.id);
  release();
  const reply = await waitForMessage(inChannel('slow'), (m) => m.sender_id === bot.id);
  assert.equal(reply.content, 'finally');
});

test('an error status: "Failure!" in the conversation and a notice to the bot\'s owner', async () => {
  const bot = await makeBot('/error');
  rx.handlers.set('/error', (r) => r.respond(500, 'oops'));
  const sent = assertSuccess(await t.client(alice).post('/messages', { type: 'stream', to: CHANNEL, topic: 'errors', content: `@**${bot.fullName}** crash` }));
  const failure = await waitForMessage(inChannel('errors'), (m) => m.sender_id === bot.id);
  assert.equal(failure.content, 'Failure! Third party responded with 500');
  const notice = await waitForMessage([{ operator: 'dm', operand: [bot.id] }], (m) => m.sender_id === bot.id);
  const streamId = await streamIdOf(t.client(t.owner), CHANNEL);
  assert.equal(
    notice.content,
    `[A message](${t.url}/#narrow/channel/${streamId}-${CHANNEL}/topic/errors/near/${sent.id}) to your bot @_**${bot.fullName}** triggered an outgoing webhook.\n` +
      "The webhook got a response with status code *500*.\nThe response contains the following payload:\n```\nb'oops'\n```",
  );
  assert.equal(rx.received.filter((r) => r.path === '/error').length, 1);

  // A 2xx answer that is not JSON is reported the same way.
  const bad = await makeBot('/badjson');
  rx.handlers.set('/badjson', (r) => r.respond(200, 'not json'));
  assertSuccess(await t.client(alice).post('/messages', { type: 'stream', to: CHANNEL, topic: 'errors', content: `@**${bad.fullName}** hi` }));
  const f2 = await waitForMessage(inChannel('errors'), (m) => m.sender_id === bad.id);
  assert.equal(f2.content, 'Failure! Invalid JSON in response');
  const n2 = await waitForMessage([{ operator: 'dm', operand: [bad.id] }], (m) => m.sender_id === bad.id);
  assert.match(n2.content, /\nThe outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> Invalid JSON in response\nThe response contains the following payload:\n```\nnot json\n```$/);
});

test('connection errors are retried 3 times, then "Bot is unavailable" and the owner is told', async () => {
  // A port nothing listens on.
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const s = `down${++n}`;
  const body = assertSuccess(await t.client(t.owner).post('/bots', { full_name: 'Down Bot', short_name: s, bot_type: 3, payload_url: JSON.stringify(`http://127.0.0.1:${port}/x`), interface_type: 1 }));
  assertSuccess(await t.client(alice).post('/messages', { type: 'stream', to: CHANNEL, topic: 'down', content: '@**Down Bot** are you there?' }));
  const failure = await waitForMessage(inChannel('down'), (m) => m.sender_id === body.user_id);
  assert.equal(failure.content, 'Failure! Bot is unavailable');
  const notice = await waitForMessage([{ operator: 'dm', operand: [body.user_id] }], (m) => m.sender_id === body.user_id);
  assert.match(notice.content, /triggered an outgoing webhook\.\nA connection error occurred\. Is my bot server down\?$/);
  // The job is marked done after the owner's notice is sent, in its own transaction.
  const jobRow = () => t.server.svc.store.db.selectFrom('outgoing_webhook_jobs').selectAll().where('bot_id', '=', body.user_id).executeTakeFirstOrThrow();
  let job = await jobRow();
  for (let i = 0; job.done_at === null && i < 200; i++) {
    await new Promise((r) => setTimeout(r, 25));
    job = await jobRow();
  }
  assert.equal(job.failed_tries, 3);
  assert.notEqual(job.done_at, null);
});

test('a reply that comes after the job was claimed again is not posted: the bot answers once, from the new claim', async () => {
  const bot = await makeBot('/lease');
  let answers = 0;
  let releaseFirst!: () => void;
  const firstReleased = new Promise<void>((r) => (releaseFirst = r));
  rx.handlers.set('/lease', (r) => {
    answers += 1;
    if (answers === 1) void firstReleased.then(() => r.respond(200, JSON.stringify({ content: 'late reply' })));
    else r.respond(200, JSON.stringify({ content: 'reply of the new claim' }));
  });
  const sent = assertSuccess(await t.client(alice).post('/messages', { type: 'stream', to: CHANNEL, topic: 'lease', content: `@**${bot.fullName}** once` }));
  await rx.requestsTo('/lease');
  // As if the lease had run out while the bot's server took its time: the claim is no longer this request's.
  const db = t.server.svc.store.db;
  await db.updateTable('outgoing_webhook_jobs').set({ locked_until: 1 }).where('message_id', '=', sent.id).where('bot_id', '=', bot.id).execute();
  releaseFirst();
  // The job is claimed again and delivered by the next pass (unless the late reply finished it).
  let timer!: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the job was not claimed again')), 15_000)));
  await Promise.race([rx.requestsTo('/lease', 2), timeout]).finally(() => clearTimeout(timer));
  await waitForMessage(inChannel('lease'), (m) => m.sender_id === bot.id);
  const res = assertSuccess(await t.client(t.owner).get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: inChannel('lease'), apply_markdown: false }));
  assert.deepEqual(
    res.messages.filter((m: any) => m.sender_id === bot.id).map((m: any) => m.content),
    ['reply of the new claim'],
  );
  const job = await db.selectFrom('outgoing_webhook_jobs').selectAll().where('message_id', '=', sent.id).where('bot_id', '=', bot.id).executeTakeFirstOrThrow();
  assert.notEqual(job.done_at, null, 'the job is done');
});

test('a pending delivery survives a restart: the next server start delivers it', async () => {
  const t2 = await startTestServer();
  try {
    const owner2 = t2.client(t2.owner);
    assertSuccess(await owner2.post('/users/me/subscriptions', { subscriptions: [{ name: CHANNEL }] }));
    const body = assertSuccess(await owner2.post('/bots', { full_name: 'Restart Bot', short_name: 'restart', bot_type: 3, payload_url: JSON.stringify(`${base}/restart`), interface_type: 1 }));
    // The first server's request hangs until that server is stopped.
    rx.handlers.set('/restart', () => undefined);
    assertSuccess(await owner2.post('/messages', { type: 'stream', to: CHANNEL, topic: 'restart', content: '@**Restart Bot** survive' }));
    await rx.requestsTo('/restart');
    await t2.server.close();
    rx.handlers.set('/restart', (r) => r.respond(200, JSON.stringify({ content: 'delivered after restart' })));
    // Same configuration and database, new process state.
    const again = await startServer(t2.server.svc.config);
    try {
      const client = new Client(again.url, t2.owner);
      for (let i = 0; ; i++) {
        const res = assertSuccess(await client.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: inChannel('restart'), apply_markdown: false }));
        const reply = res.messages.find((m: any) => m.sender_id === body.user_id);
        if (reply) {
          assert.equal(reply.content, 'delivered after restart');
          break;
        }
        if (i > 400) throw new Error('no reply after restart');
        await new Promise((r) => setTimeout(r, 25));
      }
      assert.equal(rx.received.filter((r) => r.path === '/restart').length, 2);
    } finally {
      await again.close();
    }
  } finally {
    await t2.close();
  }
});
