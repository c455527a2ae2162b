/**
 * Helpers for the browser tests: real Chromium (Debian's `chromium` package)
 * driven by playwright-core, against an in-process test server that serves a
 * fresh build of the web client (built into a temporary directory, so test
 * processes never race on web/dist).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import assert from 'node:assert/strict';
import { assertSuccess, CLUSTER_SIZE, startTestServer, type Account, type Client, type TestServer } from './helpers.ts';
import { startServer } from '../src/server.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** A 1x1 PNG. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/**
 * Uploads PNG through the API as `account` (one multipart file, as the API
 * takes custom emoji and avatars) to `path` under /api/v1; the answer, which
 * must be a success.
 */
export async function postPng(url: string, account: Account, path: string, filename: string): Promise<Record<string, any>> {
  const body = await postPngAnswer(url, account, path, filename);
  assert.equal(body.result, 'success');
  return body;
}

/** The same upload, and the server's answer whatever it is (a refusal too). */
export async function postPngAnswer(url: string, account: Account, path: string, filename: string): Promise<Record<string, any>> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), filename);
  const auth = `Basic ${Buffer.from(`${account.email}:${account.apiKey}`).toString('base64')}`;
  return (await (await fetch(`${url}/api/v1${path}`, { method: 'POST', headers: { Authorization: auth }, body: form })).json()) as Record<string, any>;
}

/** The password of the accounts the browser tests make. */
export const PASSWORD = 'second-user-pw-1';

/** Why the browser tests cannot run here, or false when they can. */
export async function browserSkipReason(): Promise<string | false> {
  // The browser talks to one node; the cluster run covers the /json API it uses without a browser (web-session.test.ts).
  if (CLUSTER_SIZE > 1) return 'browser tests run in the one-process runs (TEST_CLUSTER is set)';
  if (!existsSync(CHROMIUM)) return `Chromium not found at ${CHROMIUM} (apt-get install chromium): browser tests skipped`;
  try {
    await import('playwright-core');
    await import('vite');
  } catch {
    return 'playwright-core or vite not installed (dev dependencies): browser tests skipped';
  }
  return false;
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  // Playwright gives every launch a fresh temporary profile (--user-data-dir).
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

let builtDist: string | null = null;
/**
 * The built client: the run's (built once by test/global-setup.ts), or else
 * built once per test process into a temporary directory.
 */
export async function builtClient(): Promise<string> {
  if (process.env.PARLEY_TEST_WEB_DIST) return process.env.PARLEY_TEST_WEB_DIST;
  if (builtDist) return builtDist;
  const dir = mkdtempSync(join(tmpdir(), 'parley-webdist-'));
  const { buildWeb } = await import('../web/build.ts');
  await buildWeb(dir);
  builtDist = dir;
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A file's browser tests: one describe block whose tests share one Chromium
 * (each opens its own browser contexts with `newContext`), or skipped, with
 * one line saying why, where browser tests cannot run.
 */
export async function browserTests(name: string, body: (newContext: () => Promise<BrowserContext>) => void): Promise<void> {
  const skip = await browserSkipReason();
  if (skip) console.log(`# ${skip}`);
  describe(name, { skip }, () => {
    let browser: Browser | undefined;
    before(async () => {
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
    });
    body(() => browser!.newContext());
  });
}

/** Runs `fn` against a new web test server, closed afterwards whatever happens. */
export async function withWebServer<T>(fn: (t: WebTestServer) => Promise<T>, env: Record<string, string> = {}): Promise<T> {
  const t = await startWebTestServer(env);
  try {
    return await fn(t);
  } finally {
    await t.close();
  }
}

export interface WebTestServer extends TestServer {
  /** Stops the server and starts it again on the same port with the same data. */
  restart(): Promise<void>;
  /** Stops the server (without deleting its data); `resume()` starts it again. */
  stop(): Promise<void>;
  resume(): Promise<void>;
}

export async function startWebTestServer(env: Record<string, string> = {}): Promise<WebTestServer> {
  const dist = await builtClient();
  const t = await startTestServer({ WEB_DIST_DIR: dist, ...env });
  // In these tests' organization (for the owner and everyone who joins)
  // Enter sends (enter_sends), the view stays where it is after sending
  // (web_navigate_to_sent_message off) and a channel clicked in the sidebar
  // opens its feed (web_channel_default_view 2): most tests type a message,
  // press Enter and look on in the same view, and open channels from the
  // sidebar. Zulip's defaults have tests of their own (test/web-chat.test.ts).
  const owner = t.client(t.owner);
  const testDefaults = { enter_sends: true, web_navigate_to_sent_message: false, web_channel_default_view: 2 };
  assertSuccess(await owner.request('PATCH', '/settings', testDefaults));
  assertSuccess(await owner.request('PATCH', '/realm/user_settings_defaults', testDefaults));
  // Nor does Notification Bot tell a channel of its creation and changes
  // (send_channel_events_messages, on by default): the tests' channels hold
  // what the tests send, and a new channel has no topic yet. Those notices are
  // ordinary messages to the client; test/channel-notices.test.ts has them.
  assertSuccess(await owner.request('PATCH', '/realm', { send_channel_events_messages: false }));
  const config = { ...t.server.svc.config, port: Number(new URL(t.url).port) };
  let current = t.server;
  const closeAll = t.close.bind(t);
  const w: WebTestServer = Object.assign(t, {
    async stop() {
      await current.close();
    },
    async resume() {
      current = await startServer(config);
      w.server = current;
    },
    async restart() {
      await w.stop();
      await w.resume();
    },
    async close() {
      await current.close();
      await closeAll();
    },
  });
  return w;
}

/**
 * Logs in through the login endpoint without opening the feed (which marks
 * what it shows as read), then opens `hash` (a view that marks nothing read).
 */
export async function loginToView(ctx: BrowserContext, url: string, email: string, password: string, hash: string): Promise<Page> {
  await logIn(ctx, url, email, password);
  const page = await ctx.newPage();
  page.on('pageerror', (e) => console.error(`[browser ${email}] ${e.message}`));
  await page.goto(`${url}/${hash}`);
  return page;
}

/**
 * Logs the context in as the web client's login form does (the form's POST,
 * with the csrftoken cookie that GET /login/ sets), outside any page: the
 * form itself has tests of its own (test/web-session.test.ts,
 * test/web-client.test.ts), and filling it in a page for every person of
 * every test took about a second each.
 */
async function logIn(ctx: BrowserContext, url: string, email: string, password: string): Promise<void> {
  await ctx.request.get(`${url}/login/`);
  const csrf = (await ctx.cookies(url)).find((c) => c.name === 'csrftoken')?.value;
  if (!csrf) throw new Error('GET /login/ set no csrftoken cookie');
  const r = await ctx.request.post(`${url}/accounts/login/`, {
    headers: { 'X-CSRFToken': csrf },
    form: { username: email, password },
  });
  if (r.status() !== 200) throw new Error(`login answered ${r.status()}: ${await r.text()}`);
  if (!(await ctx.cookies(url)).some((c) => c.name === 'sessionid')) throw new Error(`login of ${email} set no session`);
}

/**
 * Logs in (as the login form does, see logIn) and opens All messages, as
 * most tests start there.
 */
export async function loginPage(ctx: BrowserContext, url: string, email: string, password: string): Promise<Page> {
  const page = await loginToView(ctx, url, email, password, '#feed');
  await page.getByRole('log', { name: 'History' }).waitFor();
  return page;
}

/**
 * Passes every /json/events answer of `target` (a page, or a context before
 * its page opens) through a gate: between `hold()` and `release()` the
 * answers wait, so the page misses changes made meanwhile.
 */
export async function eventGate(target: Page | BrowserContext): Promise<{ hold(): void; release(): void }> {
  let held: Promise<void> | null = null;
  let open: () => void = () => {};
  await target.route('**/json/events?**', async (route) => {
    try {
      const response = await route.fetch({ timeout: 0 });
      if (held) await held;
      await route.fulfill({ response });
    } catch {
      // The page or the server closed meanwhile.
      await route.abort().catch(() => {});
    }
  });
  return {
    hold() {
      held = new Promise<void>((r) => (open = r));
    },
    release() {
      held = null;
      open();
    },
  };
}

/**
 * Stands in for the browser's notifications in `ctx`'s pages: permission
 * granted, each one recorded (title, body, tag; the last one's `onclick` can
 * be called), and the page's focus set by the test with `setInFront` (pages
 * start in front, where nothing notifies).
 */
export async function recordNotifications(ctx: BrowserContext): Promise<void> {
  await ctx.addInitScript(() => {
    const g = globalThis as any;
    g.__shown = [];
    g.__front = true;
    g.Notification = class {
      static permission = 'granted';
      static requestPermission = async () => 'granted';
      onclick: (() => void) | null = null;
      constructor(title: string, opts: { body?: string; tag?: string }) {
        g.__shown.push({ title, body: opts.body, tag: opts.tag });
        g.__last = this;
      }
      close() {}
    };
    g.document.hasFocus = () => g.__front;
  });
}

/** The notifications `page` has shown so far (see recordNotifications), oldest first. */
export const notificationsShown = (page: Page): Promise<Array<{ title: string; body: string; tag: string }>> => page.evaluate(() => (globalThis as any).__shown);

/** Puts `page` in front (its document has the focus) or behind, as a page set up by recordNotifications reads it. */
export async function setInFront(page: Page, front: boolean): Promise<void> {
  await page.evaluate((f) => ((globalThis as any).__front = f), front);
}

/** The Markdown of a channel's newest messages (by name or ID), oldest first, as the server has them for `api`'s user. */
export async function channelContents(api: Client, channel: string | number, count = 50): Promise<string[]> {
  const narrow = JSON.stringify([{ operator: 'channel', operand: channel }]);
  const r = assertSuccess(await api.request('GET', '/messages', { anchor: 'newest', num_before: count, num_after: 0, narrow, apply_markdown: false }));
  return (r.messages as Array<{ content: string }>).map((m) => m.content);
}

/** The row of the newest message whose text contains `text`. */
export function messageRow(page: Page, text: string) {
  return page.locator('article.message-row', { hasText: text }).last();
}

/** Sets the page's address fragment, as following a link to it does. */
/** Opens Settings by its button in the top bar; its dialog. */
export async function openSettings(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  return page.getByRole('dialog', { name: 'Settings' });
}

export const goToHash = (page: Page, hash: string) => page.evaluate((h) => ((globalThis as any).location.hash = h), hash);

/** Whether `el` shows inside the scrolled part of its dialog. */
export const inDialogView = (el: Locator) =>
  el.evaluate((e) => {
    const box = e.closest('.settings')!.getBoundingClientRect();
    const r = e.getBoundingClientRect();
    return r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
  });

/**
 * Lets the context's pages pass for a tab in the background and back
 * (`setTabHidden`): what a hidden page shows is not seen, so it stays unread.
 */
export async function hideableTabs(ctx: BrowserContext): Promise<void> {
  await ctx.addInitScript(() => {
    const g = globalThis as any;
    Object.defineProperty(g.Document.prototype, 'visibilityState', { configurable: true, get: () => (g.__hidden ? 'hidden' : 'visible') });
    Object.defineProperty(g.Document.prototype, 'hidden', { configurable: true, get: () => !!g.__hidden });
  });
}

/** Puts a page of a `hideableTabs` context in the background or brings it back, as the browser says when a tab is switched. */
export async function setTabHidden(page: Page, hidden: boolean): Promise<void> {
  await page.evaluate((h) => {
    const g = globalThis as any;
    g.__hidden = h;
    g.document.dispatchEvent(new g.Event('visibilitychange'));
  }, hidden);
}

/**
 * Holds back the page's `method` requests to `url` (a Playwright URL glob)
 * until `release()`; `arrived` settles when the first is held; `stop()` lets
 * the next ones through unheld. A held request the page gave up on meanwhile
 * (an aborted upload) is not let through.
 */
export async function holdRequests(page: Page, url: string, method: string): Promise<{ release(): void; arrived: Promise<void>; stop(): Promise<void> }> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let arrive!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  await page.route(url, async (route) => {
    if (route.request().method() === method) {
      arrive();
      await held;
    }
    await route.continue().catch(() => {});
  });
  return { release, arrived, stop: () => page.unroute(url) };
}

/**
 * Drags a PNG file (`PNG`'s bytes, under `name`) onto the element `selector`
 * finds and drops it there; true where the page took the drop (cancelled its
 * default action, which would have the browser show the file instead).
 */
export async function dropPng(page: Page, selector: string, name: string): Promise<boolean> {
  return page.evaluate(
    ({ b64, selector, name }) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      // Browser globals (this callback runs in the page).
      const w = globalThis as any;
      const dt = new w.DataTransfer();
      dt.items.add(new File([bytes], name, { type: 'image/png' }));
      const target = w.document.querySelector(selector);
      target.dispatchEvent(new w.DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      return !target.dispatchEvent(new w.DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    },
    { b64: PNG.toString('base64'), selector, name },
  );
}

/** Polls `fn` until it returns true (browser state converges asynchronously). */
export async function eventually(fn: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Opens the menu of a sidebar row (`link`, a channel's or topic's link, whose menu is named `label`); the menu. */
export async function openSidebarMenu(page: Page, link: Locator, label: string): Promise<Locator> {
  await link.hover();
  await page.getByRole('button', { name: `Actions for ${label}` }).click();
  const menu = page.getByRole('menu', { name: label });
  await menu.waitFor();
  return menu;
}

/** Shows the muted and inactive channels the sidebar hides behind each section's toggle (Zulip's "1 MUTED"). */
export async function showHiddenChannels(page: Page): Promise<void> {
  const nav = page.getByRole('navigation', { name: 'Channels' });
  await nav.locator('li.channel').first().waitFor();
  const toggles = nav.locator('.hidden-toggle button[aria-expanded="false"]');
  for (let n = await toggles.count(); n > 0; n--) await toggles.first().click();
}

export function channelLink(page: Page, name: string) {
  return page.getByRole('navigation', { name: 'Channels' }).getByRole('link', { name: new RegExp(`^${name}\\b`) });
}

/** Sends `text` from the compose box (to `topic` unless null) and waits for the box to clear. */
export async function send(page: Page, topic: string | null, text: string): Promise<void> {
  if (topic !== null) await page.getByLabel('Topic', { exact: true }).fill(topic);
  const box = page.getByLabel('Message', { exact: true });
  await box.fill(text);
  await box.press('Enter');
  await eventually(async () => (await box.inputValue()) === '', 'the compose box to clear after sending');
}

/**
 * The aria-label of the focused element, once it is `label` or after 5 s: the
 * client moves the focus after its next render (a keyboard shortcut opens the
 * compose box first), so a read right after the key press can come too early.
 */
export async function focusedLabel(page: Page, label: string): Promise<string | null> {
  await page
    .waitForFunction((l) => (globalThis as any).document.activeElement?.getAttribute('aria-label') === l, label, { timeout: 5000 })
    .catch(() => {});
  return page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label') ?? null);
}

/** What a select shows (its selected option's text). */
export const selectedText = (select: Locator) => select.evaluate((s) => (s as unknown as { selectedOptions: Array<{ textContent: string }> }).selectedOptions[0]?.textContent ?? '');
