/**
 * Shared set-up of incoming-webhook tests: a test server, an incoming-webhook
 * bot owned by the organization's owner, and a channel the owner is
 * subscribed to; `hook` posts a payload to /api/v1/external/<integration>
 * as that bot, `last` reads the newest message, `expectPosted` checks that a
 * request succeeded and posted Zulip's topic and text, `listed` reads the
 * integration's entry for the URL generator, `since` the channel's messages
 * after a given one.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertSuccess, type TestServer } from './helpers.ts';

export interface HookOpts {
  query?: Record<string, string>;
  headers?: Record<string, string>;
  contentType?: string;
  stream?: string | null;
  apiKey?: string | null;
}

export interface HookResult {
  status: number;
  body: Record<string, any>;
  headers: Headers;
  text: string;
}

export interface WebhookHarness {
  /** The test server (set once `before` has run). */
  readonly t: TestServer;
  /** The incoming-webhook bot ("Hook Bot"). */
  readonly bot: { id: number; apiKey: string; email: string };
  hook(name: string, body: unknown, opts?: HookOpts): Promise<HookResult>;
  last(narrow?: unknown[]): Promise<Record<string, any>>;
  /** The channel's messages after message `id` (at most ten), oldest first. */
  since(id: number): Promise<Array<Record<string, any>>>;
  expectPosted(res: HookResult, topic: string, content: string): Promise<Record<string, any>>;
  /** The integration's entry in /register's realm_incoming_webhook_bots (what the URL generator offers). */
  listed(name: string): Promise<Record<string, any> | undefined>;
}

/** Registers the before/after hooks of a webhook test file and returns its harness. */
export function webhookHarness(channel: string): WebhookHarness {
  let t: TestServer;
  let bot: WebhookHarness['bot'];
  before(async () => {
    t = await startTestServer();
    const owner = t.client(t.owner);
    assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: channel }] }));
    const b = assertSuccess(await owner.post('/bots', { full_name: 'Hook Bot', short_name: 'hook', bot_type: 2 }));
    const me = assertSuccess(await t.client(t.owner).get(`/users/${b.user_id}`));
    bot = { id: b.user_id, apiKey: b.api_key, email: me.user.email };
  });
  after(() => t.close());

  const h: WebhookHarness = {
    get t() {
      return t;
    },
    get bot() {
      return bot;
    },
    async hook(name, body, opts = {}) {
      const q = new URLSearchParams();
      if (opts.apiKey !== null) q.set('api_key', opts.apiKey ?? bot.apiKey);
      if (opts.stream !== null) q.set('stream', opts.stream ?? channel);
      for (const [k, v] of Object.entries(opts.query ?? {})) q.set(k, v);
      const res = await fetch(`${t.url}/api/v1/external/${name}?${q}`, {
        method: 'POST',
        headers: { 'Content-Type': opts.contentType ?? 'application/json', ...(opts.headers ?? {}) },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: JSON.parse(text) as Record<string, any>, headers: res.headers, text };
    },
    async last(narrow = [{ operator: 'channel', operand: channel }]) {
      const res = assertSuccess(await t.client(t.owner).get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow, apply_markdown: false }));
      return res.messages[res.messages.length - 1] as Record<string, any>;
    },
    async since(id) {
      const res = assertSuccess(await t.client(t.owner).get('/messages', { anchor: id, num_before: 0, num_after: 10, narrow: [{ operator: 'channel', operand: channel }], apply_markdown: false }));
      return (res.messages as Array<Record<string, any>>).filter((m) => m.id > id);
    },
    async expectPosted(res, topic, content) {
      assertSuccess(res);
      const m = await h.last();
      assert.equal(m.sender_id, bot.id);
      assert.equal(m.subject, topic);
      assert.equal(m.content, content);
      return m;
    },
    async listed(name) {
      const reg = assertSuccess(await t.client(t.owner).post('/register', { fetch_event_types: JSON.stringify(['realm_incoming_webhook_bots']) }));
      return (reg.realm_incoming_webhook_bots as Array<Record<string, any>>).find((b) => b.name === name);
    },
  };
  return h;
}

/** One of Zulip's test cases for an integration that names its event in a header: the payload (trimmed to what is read). */
export interface FixtureCase {
  name: string;
  /** The integration's URL name, where not the one the cases are for. */
  hook?: string;
  /** The event header's value. */
  event: string;
  query?: Record<string, string>;
  payload: unknown;
}

/** A case that posts Zulip's topic and text. */
export interface PostedCase extends FixtureCase {
  topic: string;
  content: string;
}

/**
 * Registers a test for each case of `posted` (Zulip's topic and text, sent
 * with the client name `client`) and one for all of `quiet` (answered with
 * success, nothing posted; `opts.quiet` says what they are); returns how a
 * case is sent.
 */
export function fixtureTests(
  h: WebhookHarness,
  opts: { hook: string; header: string; client: string; quiet: string },
  posted: readonly PostedCase[],
  quiet: readonly FixtureCase[],
): (c: FixtureCase) => Promise<HookResult> {
  const send = (c: FixtureCase) => h.hook(c.hook ?? opts.hook, c.payload, { headers: { [opts.header]: c.event }, query: c.query });
  for (const c of posted) {
    test(`${opts.hook}: ${c.name} (${c.event})`, async () => {
      const m = await h.expectPosted(await send(c), c.topic, c.content);
      assert.equal(m.client, opts.client);
    });
  }
  test(`${opts.hook}: ${opts.quiet} post nothing`, async () => {
    for (const c of quiet) {
      const before = (await h.last())?.id;
      const res = await send(c);
      assert.equal(res.status, 200, `${c.name}: ${res.text}`);
      assert.equal(res.body.result, 'success', `${c.name}: ${res.text}`);
      assert.equal((await h.last())?.id, before, c.name);
    }
  });
  return send;
}

/** Zulip's answer to an event an integration does not handle: HTTP 200, result "error", "The '<event>' event isn't currently supported ...". */
export function expectUnsupported(res: HookResult, webhook: string, eventType: string): void {
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.result, 'error');
  assert.equal(res.body.code, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE');
  assert.equal(res.body.msg, `The '${eventType}' event isn't currently supported by the ${webhook} webhook; ignoring`);
}
