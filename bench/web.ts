/**
 * `npm run bench:web`: the web client's budgets, measured and printed (not
 * asserted):
 *
 * 1. JavaScript of the first page, gzip: every script index.html loads
 *    (entry and modulepreloads). Budget 150 KB.
 * 2. `/` to an interactive message list on loopback: a logged-in Chromium
 *    opens `/`; the clock runs from navigation start to the moment the
 *    message list shows messages and the compose box accepts input
 *    (performance.now() in the page). Median of BENCH_WEB_RUNS. Budget 1 s.
 * 3. A 10,000-message channel: scrolled up page after page; the number of
 *    message rows in the page at any time and how many messages were fetched.
 *    Budget: the page never holds them all.
 *
 * Starts its own server in-process (fresh temporary DATA_DIR, SQLite) with a
 * fresh build of the client. Needs Chromium (/usr/bin/chromium or CHROMIUM_PATH).
 *
 * Settings: BENCH_WEB_MESSAGES (10000), BENCH_WEB_RUNS (7), BENCH_WEB_SCROLLS (40).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { buildWeb } from '../web/build.ts';

const MESSAGES = Number(process.env.BENCH_WEB_MESSAGES ?? 10000);
const RUNS = Number(process.env.BENCH_WEB_RUNS ?? 7);
const SCROLLS = Number(process.env.BENCH_WEB_SCROLLS ?? 40);
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const EMAIL = 'owner@bench.example';
const PASSWORD = 'bench-password-1';

if (!existsSync(CHROMIUM)) {
  console.error(`Chromium not found at ${CHROMIUM}; install it (apt-get install chromium) or set CHROMIUM_PATH.`);
  process.exit(1);
}

const dist = mkdtempSync(join(tmpdir(), 'parley-bench-web-'));
const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-data-'));
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

// ---- 1. bundle size
await buildWeb(dist);
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const scripts = [...html.matchAll(/<(?:script[^>]*src|link[^>]*rel="modulepreload"[^>]*href)="\/static\/([^"]+\.js)"/g)].map((m) => m[1]!);
const styles = [...html.matchAll(/<link[^>]*rel="stylesheet"[^>]*href="\/static\/([^"]+\.css)"/g)].map((m) => m[1]!);
const size = (files: string[]) => files.reduce((acc, f) => {
  const buf = readFileSync(join(dist, f));
  return { raw: acc.raw + buf.length, gz: acc.gz + gzipSync(buf, { level: 9 }).length };
}, { raw: 0, gz: 0 });
const js = size(scripts);
const css = size(styles);

// ---- server with a 10,000-message channel
const config = loadConfig({
  HOST: '127.0.0.1',
  PORT: '0',
  DATA_DIR: dataDir,
  WEB_DIST_DIR: dist,
  PARLEY_OWNER_EMAIL: EMAIL,
  PARLEY_OWNER_PASSWORD: PASSWORD,
  PARLEY_API_RATE_LIMIT_PER_MINUTE: '0',
  LOG_LEVEL: 'warn',
} as NodeJS.ProcessEnv);
const server = await startServer(config);
const url = server.url;
const owner = server.bootstrap.created!.owner;
const auth = 'Basic ' + Buffer.from(`${owner.delivery_email}:${owner.api_key}`).toString('base64');
async function call(method: string, path: string, params: Record<string, unknown>) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) body.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  const get = method === 'GET';
  const r = await fetch(`${url}/api/v1${path}${get ? `?${body}` : ''}`, { method, headers: { Authorization: auth }, body: get ? undefined : body });
  const j = (await r.json()) as Record<string, any>;
  if (j.result !== 'success') throw new Error(`${path}: ${j.msg}`);
  return j;
}
await call('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'history' }] });
const t0 = Date.now();
let next = 0;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (next < MESSAGES) {
      const i = next++;
      await call('POST', '/messages', { type: 'stream', to: 'history', topic: `topic ${Math.floor(i / 50)}`, content: `Message **${i + 1}** of the long history, with \`code\` and a [link](https://example.com/${i}).` });
    }
  }),
);
const seedSeconds = (Date.now() - t0) / 1000;
// All read, so the list opens at the bottom without marking anything.
await call('POST', '/mark_all_as_read', {});
const streamId = (await call('GET', '/get_stream_id', { stream: 'history' })).stream_id as number;

// ---- 2. `/` to an interactive message list (All messages made the home view: the inbox, the default, shows no messages)
await call('PATCH', '/settings', { web_home_view: 'all_messages' });
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const page = await ctx.newPage();
await page.goto(`${url}/login/`);
await page.getByLabel('Email').fill(EMAIL);
await page.getByLabel('Password').fill(PASSWORD);
await page.getByRole('button', { name: 'Log in' }).click();
await page.waitForURL(`${url}/`);
await page.locator('article.message-row').first().waitFor();

const times: number[] = [];
for (let i = 0; i < RUNS; i++) {
  await page.goto(`${url}/`);
  await page.locator('article.message-row').first().waitFor();
  await page.getByLabel('Message', { exact: true }).waitFor();
  // The client marks the moment its first message list is rendered and scrolled into place.
  const ms = await page.evaluate(() => (globalThis as any).performance.getEntriesByName('parley:list-ready')[0]?.startTime as number);
  times.push(ms);
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)]!;

// ---- 3. scrolling the 10,000-message channel
let fetched = 0;
page.on('response', async (res) => {
  if (!res.url().includes('/json/messages?')) return;
  try {
    const j = (await res.json()) as { messages?: unknown[] };
    fetched += j.messages?.length ?? 0;
  } catch {
    // not JSON
  }
});
await page.goto(`${url}/#narrow/channel/${streamId}`);
await page.locator('article.message-row').first().waitFor();
let maxRows = 0;
const scrollStart = Date.now();
for (let i = 0; i < SCROLLS; i++) {
  await page.evaluate(() => {
    const sc = (globalThis as any).document.querySelector('.message-scroller');
    sc.scrollTop = 0;
    sc.dispatchEvent(new (globalThis as any).Event('scroll'));
  });
  await page.waitForTimeout(120);
  await page.waitForFunction(() => !(globalThis as any).document.querySelector('.message-scroller')?.textContent?.includes('Loading older messages'));
  maxRows = Math.max(maxRows, await page.locator('article.message-row').count());
}
const scrollSeconds = (Date.now() - scrollStart) / 1000;
const oldestShown = await page.locator('article.message-row .message-content').first().innerText();
const rowsNow = await page.locator('article.message-row').count();

await browser.close();
await server.close();
rmSync(dist, { recursive: true, force: true });
rmSync(dataDir, { recursive: true, force: true });

const ok = (b: boolean) => (b ? 'within budget' : 'OVER BUDGET');
console.log('\nParley web client budgets (loopback, headless Chromium)\n');
console.log(`First-page JavaScript: ${scripts.length} file(s), ${kb(js.raw)} raw, ${kb(js.gz)} gzip (budget 150 KB gzip: ${ok(js.gz <= 150 * 1024)})`);
console.log(`First-page CSS: ${kb(css.raw)} raw, ${kb(css.gz)} gzip (KaTeX fonts load only when math is shown)`);
console.log(`/ to interactive message list: median ${median.toFixed(0)} ms, min ${times[0]!.toFixed(0)} ms, max ${times[times.length - 1]!.toFixed(0)} ms over ${RUNS} loads (budget 1000 ms: ${ok(median <= 1000)})`);
console.log(`${MESSAGES}-message channel (seeded in ${seedSeconds.toFixed(1)} s): ${SCROLLS} scrolls to the top in ${scrollSeconds.toFixed(1)} s; at most ${maxRows} message rows in the page (now ${rowsNow}), ${fetched} messages fetched in all (budget: fewer than all ${MESSAGES} in the page: ${ok(maxRows < MESSAGES)})`);
console.log(`Oldest message in the page after scrolling: ${oldestShown.trim()}`);
