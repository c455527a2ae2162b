/**
 * Operations endpoints and per-request bookkeeping: GET /health (no
 * authentication; checks the database, as Zulip's /health does, and Redis
 * when the deployment has one), one
 * structured access-log line per request, request metrics, and the
 * separate Prometheus listener (METRICS_PORT).
 */
import { openSync } from 'node:fs';
import type { Server } from 'node:http';
import { dirname } from 'node:path';
import { createServer } from '../lib/node-http.ts';
import pino, { type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { pingDatabase } from '../store/db.ts';
import { chmodPrivate } from '../lib/private-files.ts';
import { makeDirs } from '../lib/make-dirs.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller's ID, for the access log. */
    userId?: number;
    /** The route the access log and metrics name, when it is not the matched route's URL (a catch-all's answer). */
    routeLabel?: string;
  }
}

/** The access log's and metrics' route for a request that no route or declared path matched. */
export const UNMATCHED_ROUTE = '(unmatched)';

const HEALTH_TIMEOUT_MS = 5000;

/**
 * The access log's destination: the server log, a file of JSON lines, or
 * nothing. A file is written asynchronously (the lines of a busy moment go
 * out in one write, and no request waits for the disk), and what is still
 * buffered is written out when the server closes.
 */
function accessLogger(app: FastifyInstance, svc: Services): Logger | null {
  const where = svc.config.accessLog;
  if (where === 'off') return null;
  if (where === 'stdout') return svc.log as unknown as Logger;
  makeDirs(dirname(where));
  const fd = openSync(where, 'a', 0o600);
  chmodPrivate(where);
  const dest = pino.destination({ dest: fd, sync: false });
  // A write that fails (a full disk) loses its lines, never a request.
  dest.on('error', (err: Error) => svc.log.error({ err }, 'access log write failed'));
  app.addHook('onClose', (_app, done) => {
    dest.once('close', () => done());
    dest.end();
  });
  return pino({ level: 'info', base: undefined }, dest);
}

export function registerOps(app: FastifyInstance, svc: Services): void {
  // The services a request needs: the database, and Redis when several processes share the work.
  const checks: Array<[string, () => Promise<unknown>]> = [['Database', () => pingDatabase(svc.store.db)]];
  if (svc.redis) checks.push(['Redis', () => svc.redis!.cmd.ping()]);
  app.get('/health', async (_req, reply) => {
    for (const [name, run] of checks) {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          run(),
          new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${name} check timed out`)), HEALTH_TIMEOUT_MS))),
        ]);
      } catch (err) {
        svc.log.error({ err }, `health check: ${name} unavailable`);
        return reply.code(500).header('Cache-Control', 'no-store').send({ result: 'error', msg: `${name} is not available`, code: 'SERVER_NOT_READY' });
      } finally {
        clearTimeout(timer);
      }
    }
    return reply.header('Cache-Control', 'no-store').send({ result: 'success', msg: '' });
  });

  let access = accessLogger(app, svc);
  // The server log at a level above info (LOG_LEVEL=warn) would drop every line: no hook then.
  if (access && !access.isLevelEnabled('info')) access = null;
  const metrics = svc.metrics;
  if (!access && !metrics) return;
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeLabel ?? req.routeOptions.url ?? UNMATCHED_ROUTE;
    const status = reply.statusCode;
    const ms = reply.elapsedTime;
    // The route template, never the URL (query strings may carry secrets), and no headers.
    access?.info({ method: req.method, route, status, duration_ms: Math.round(ms * 10) / 10, user_id: req.userId ?? null, ip: req.ip }, 'request');
    if (metrics) {
      metrics.httpRequests.inc({ method: req.method, route, status: String(status) });
      metrics.httpDuration.observe({ method: req.method, route }, ms / 1000);
    }
    done();
  });
}

/** The Prometheus listener: GET /metrics on METRICS_HOST:METRICS_PORT. */
export async function startMetricsListener(svc: Services): Promise<{ server: Server; url: string } | null> {
  const metrics = svc.metrics;
  if (!metrics || svc.config.metricsPort === undefined) return null;
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not Found\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': metrics.registry.contentType }).end(text),
      (err: unknown) => {
        svc.log.error({ err }, 'metrics collection failed');
        res.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics collection failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(svc.config.metricsPort, svc.config.metricsHost, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : svc.config.metricsPort;
  const host = svc.config.metricsHost.includes(':') ? `[${svc.config.metricsHost}]` : svc.config.metricsHost;
  return { server, url: `http://${host}:${port}` };
}
