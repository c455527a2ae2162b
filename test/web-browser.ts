/**
 * Helpers for the browser tests: real Chromium (Debian's `chromium` package)
 * driven by playwright-core, against an in-process test server that serves a
 * fresh build of the web client (built into a temporary directory, so test
 * processes never race on web/dist).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CLUSTER_SIZE, startTestServer, type TestServer } from './helpers.ts';
import { startServer } from '../src/server.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

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
/** Builds the client once per test process into a temporary directory. */
export async function builtClient(): Promise<string> {
  if (builtDist) return builtDist;
  const dir = mkdtempSync(join(tmpdir(), 'parley-webdist-'));
  const { buildWeb } = await import('../web/build.ts');
  await buildWeb(dir);
  builtDist = dir;
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
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

/** Opens `/`, follows the redirect to /login/ and logs in through the form. */
/**
 * Logs in through the login endpoint without opening the feed (which marks
 * what it shows as read), then opens `hash` (a view that marks nothing read).
 */
export async function loginToView(ctx: BrowserContext, url: string, email: string, password: string, hash: string): Promise<Page> {
  const page = await ctx.newPage();
  page.on('pageerror', (e) => console.error(`[browser ${email}] ${e.message}`));
  await page.goto(`${url}/login/`);
  const status = await page.evaluate(
    async ([user, pass]) => {
      const csrf = /csrftoken=([^;]+)/.exec((globalThis as any).document.cookie)![1]!;
      const r = await fetch('/accounts/login/', {
        method: 'POST',
        headers: { 'X-CSRFToken': csrf, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: user!, password: pass! }),
      });
      return r.status;
    },
    [email, password],
  );
  if (status !== 200) throw new Error(`login answered ${status}`);
  await page.goto(`${url}/${hash}`);
  return page;
}

export async function loginPage(ctx: BrowserContext, url: string, email: string, password: string): Promise<Page> {
  const page = await ctx.newPage();
  page.on('pageerror', (e) => console.error(`[browser ${email}] ${e.message}`));
  await page.goto(`${url}/`);
  await page.waitForURL(`${url}/login/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`${url}/`);
  await page.getByRole('log', { name: 'History' }).waitFor();
  return page;
}

/** The row of the newest message whose text contains `text`. */
export function messageRow(page: Page, text: string) {
  return page.locator('article.message-row', { hasText: text }).last();
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
