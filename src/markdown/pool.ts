/**
 * Markdown rendering off the request thread: a pool of worker threads
 * (piscina) runs renderMarkdown, so a heavy message never delays other
 * requests. Each render has a time budget, as Zulip's has (5 s): past it
 * the worker running it is terminated and the render fails with
 * MarkdownRenderingError ("Unable to render message" to the client).
 *
 * One pool serves every server in the process (the tests run many);
 * servers acquire it on start and release it on close.
 */
import { Piscina } from 'piscina';
import type { RenderResult } from './index.ts';
import { MarkdownRenderingError } from './errors.ts';
import type { RenderData, RenderReply, RenderTask } from './worker.ts';

export type { RenderData };

export interface MarkdownRenderer {
  render(content: string, data: RenderData): Promise<RenderResult>;
  /** Renders waiting for a thread. */
  readonly queued: number;
  close(): Promise<void>;
}

let shared: { pool: Piscina<RenderTask, RenderReply>; users: number } | null = null;

function acquire(threads: number): Piscina<RenderTask, RenderReply> {
  if (!shared) {
    shared = {
      pool: new Piscina<RenderTask, RenderReply>({
        filename: new URL('./worker.ts', import.meta.url).href,
        minThreads: 0,
        maxThreads: threads,
        idleTimeout: 60_000,
      }),
      users: 0,
    };
  }
  shared.users++;
  return shared.pool;
}

async function release(pool: Piscina<RenderTask, RenderReply>): Promise<void> {
  if (!shared || shared.pool !== pool) return;
  if (--shared.users > 0) return;
  shared = null;
  await pool.destroy();
}


export function createMarkdownRenderer(opts: { threads: number; timeoutMs: number }): MarkdownRenderer {
  const pool = acquire(opts.threads);
  let closed = false;
  return {
    get queued() {
      return pool.queueSize;
    },
    async render(content, data) {
      const started = new SharedArrayBuffer(8);
      const cell = new Float64Array(started);
      const abort = new AbortController();
      let timedOut = false;
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
        const reply = await pool.run({ content, data, started }, { signal: abort.signal });
        if (!reply.ok) throw new MarkdownRenderingError(reply.error);
        return reply.result;
      } catch (e) {
        if (timedOut) throw new MarkdownRenderingError(`Markdown rendering took over ${opts.timeoutMs} ms`);
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
