/**
 * Markdown rendering off the request thread: a pool of worker threads
 * (piscina) runs renderMarkdown, so a heavy message never delays other
 * requests. Each render has a time budget, as Zulip's has (5 s): past it
 * the worker running it is terminated and the render fails with
 * MarkdownRenderingError ("Unable to render message" to the client).
 *
 * Short messages without code blocks or math, most of what people send,
 * render on the calling thread instead (see rendersInline): a trip to a
 * worker costs more than rendering them, and the first one after the pool
 * has been idle waits for a new thread to load the renderer (about 400 ms
 * on the 2-core benchmark machine).
 *
 * One pool serves every server in the process (the tests run many);
 * servers acquire it on start and release it on close.
 */
import type { Piscina } from 'piscina';
import { renderMarkdown, type RenderResult } from './index.ts';
import { MarkdownRenderingError } from './errors.ts';
import { contextFromData, type RenderData, type RenderReply, type RenderTask } from './worker.ts';
import { lazyModule } from '../lib/lazy.ts';

export type { RenderData };

export interface RenderOptions {
  /**
   * The server's own text (Welcome Bot's greeting): without code blocks or
   * math it renders on the calling thread whatever its length, as no input
   * of its could be slow.
   */
  trusted?: boolean;
}

export interface MarkdownRenderer {
  render(content: string, data: RenderData, opts?: RenderOptions): Promise<RenderResult>;
  /** Renders waiting for a thread. */
  readonly queued: number;
  close(): Promise<void>;
}

// Piscina and its pool are made by the first render, not at start.
const piscinaModule = lazyModule<typeof import('piscina')>('piscina');

interface Shared {
  threads: number;
  pool: Piscina<RenderTask, RenderReply> | null;
  users: number;
}

let shared: Shared | null = null;

function acquire(threads: number): Shared {
  shared ??= { threads, pool: null, users: 0 };
  shared.users++;
  return shared;
}

function poolOf(s: Shared): Piscina<RenderTask, RenderReply> {
  if (!s.pool && shared !== s) throw new Error('the Markdown renderer is closed');
  s.pool ??= new (piscinaModule().Piscina)<RenderTask, RenderReply>({
    filename: new URL('./worker.ts', import.meta.url).href,
    minThreads: 0,
    maxThreads: s.threads,
    idleTimeout: 60_000,
    // A render's garbage is short-lived and small: a young generation of at
    // most 2 MiB semi-spaces (V8 counts three for this limit) instead of
    // growing with the request thread's. Measured after the benchmark's
    // load: the render thread's heap 15-16 MiB, against 17-23 without.
    resourceLimits: { maxYoungGenerationSizeMb: 6 },
  });
  return s.pool;
}

async function release(s: Shared): Promise<void> {
  if (shared !== s) return;
  if (--s.users > 0) return;
  shared = null;
  await s.pool?.destroy();
}

/**
 * Content short enough to render on the calling thread. The renderer's
 * slowest inputs are deep nestings (quotes, lists, quote and spoiler
 * fences), whose cost grows faster than their length: at 500 characters
 * the worst measured took about 7 ms, at 1,000 about 20 ms. Code blocks
 * and math are left to the workers, as syntax highlighting and KaTeX are
 * large modules that only the workers load.
 */
const INLINE_MAX_LENGTH = 500;
function rendersInline(content: string, trusted: boolean): boolean {
  return (trusted || content.length <= INLINE_MAX_LENGTH) && !content.includes('```') && !content.includes('~~~') && !content.includes('$$');
}

export function createMarkdownRenderer(opts: { threads: number; timeoutMs: number }): MarkdownRenderer {
  const pool = acquire(opts.threads);
  let closed = false;
  return {
    get queued() {
      return pool.pool?.queueSize ?? 0;
    },
    async render(content, data, renderOpts) {
      if (rendersInline(content, renderOpts?.trusted === true)) return renderMarkdown(content, contextFromData(data));
      const started = new SharedArrayBuffer(8);
      const cell = new Float64Array(started);
      const abort = new AbortController();
      let timedOut = false;
      const overBudget = () => new MarkdownRenderingError(`Markdown rendering took over ${opts.timeoutMs} ms`);
      // The budget counts from the moment a worker starts the render.
      let timer: NodeJS.Timeout;
      const check = () => {
        const t0 = cell[0]!;
        const left = t0 === 0 ? opts.timeoutMs : t0 + opts.timeoutMs - Date.now();
        if (t0 !== 0 && left <= 0) {
          timedOut = true;
          abort.abort();
          return;
        }
        timer = setTimeout(check, Math.max(1, left));
      };
      timer = setTimeout(check, opts.timeoutMs);
      try {
        const reply = await poolOf(pool).run({ content, data, started }, { signal: abort.signal });
        if (!reply.ok) throw new MarkdownRenderingError(reply.error);
        // A render over the budget fails even when its reply came before
        // the timer could look (the request thread busy or not scheduled
        // meanwhile): the outcome does not depend on this thread's timing.
        if (reply.ms > opts.timeoutMs) throw overBudget();
        return reply.result;
      } catch (e) {
        if (timedOut) throw overBudget();
        throw e;
      } finally {
        clearTimeout(timer!);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await release(pool);
    },
  };
}

/**
 * Starts a render thread, has it render a message with a code block and
 * math (so it loads the highlighter and KaTeX too), and ends it: the
 * compile cache's filling child runs this (src/main.js), so that the
 * server's render threads find their modules compiled.
 */
export async function warmRenderThread(): Promise<void> {
  const renderer = createMarkdownRenderer({ threads: 1, timeoutMs: 60_000 });
  try {
    await renderer.render('```python\nprint(1)\n```\n$$x^2$$ **a** [b](https://example.com)', {
      users: [],
      groups: [],
      streams: [],
      customEmoji: [],
      linkifiers: [],
      realmUrl: 'http://localhost',
    });
  } finally {
    await renderer.close();
  }
}
