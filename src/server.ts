/**
 * Assembles a running server from configuration: storage, migrations, the
 * organization, event queues and fan-out, and the HTTP app with every route.
 * Used by main.js and by the tests (which run it in-process on a free port).
 */
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import { randomUUID } from 'node:crypto';
import { openStore, pingDatabase, type Store } from './store/db.ts';
import { withClusterLock } from './store/locks.ts';
import { NodeConflictError, registerNode, type NodeRegistration } from './store/nodes.ts';
import { lockDataDir } from './lib/data-dir-lock.ts';
import { migrate } from './store/migrations.ts';
import { ensureRealm, type Bootstrap } from './actions/realm.ts';
import { openEventSystem, type EventSystem } from './events/setup.ts';
import { buildApp } from './http/app.ts';
import { createMarkdownRenderer } from './markdown/pool.ts';
import { securePrivateData, setPrivateUmask } from './lib/private-files.ts';
import { createMetrics } from './lib/metrics.ts';
import { closeEmailTransports } from './lib/email.ts';
import { startMetricsListener } from './http/ops.ts';
import { allRoutes } from './http/routes/index.ts';
import { shareChanges, type Services } from './services.ts';
import { ensureInitialChannels } from './actions/onboarding.ts';
import { installAllFeatures } from './state/index.ts';
import { startScheduledDelivery } from './actions/scheduled-messages.ts';
import { failInterruptedExports } from './actions/realm-export.ts';
import { startRetentionJob } from './actions/retention.ts';
import { startUploadImageBackfill } from './actions/uploads.ts';
import { startFullMemberJob } from './actions/full-members.ts';
import { startOutgoingWebhookDelivery } from './actions/outgoing-webhook-delivery.ts';
import { startMissedMessageEmailDelivery } from './actions/missed-message-emails.ts';
import { startDigestEmails } from './actions/digest-emails.ts';
import { RunningHandlers } from './http/running.ts';

export interface RunningServer {
  app: FastifyInstance;
  svc: Services;
  bootstrap: Bootstrap;
  url: string;
  /** The Prometheus listener's URL, when METRICS_PORT is set. */
  metricsUrl?: string;
  close(): Promise<void>;
}

type LogDestination = ReturnType<typeof pino.destination>;

/** How long a close waits for route handlers still running (a request whose client has gone) before closing the store. */
const HANDLERS_CLOSE_WAIT_MS = 10_000;

/** Log destinations of running servers, flushed when the process exits. */
const liveLogs = new Set<LogDestination>();
process.on('exit', () => {
  for (const d of liveLogs) flushLog(d);
});

function flushLog(d: LogDestination): void {
  try {
    d.flushSync();
  } catch {
    // Nothing written yet, or stdout already closed.
  }
}

export interface StartOptions {
  /** false: prepare everything but do not listen (the cluster primary's preparation). */
  listen?: boolean;
  /**
   * Called as soon as the first start has created the organization, before
   * anything else can fail (the generated owner password is shown only then).
   */
  onCreated?: (created: NonNullable<Bootstrap['created']>) => void;
}

/**
 * The server cannot start as configured (its address, DATA_DIR, database or
 * Redis): `npm start` says why in one line, without a stack trace.
 */
export class StartError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StartError';
  }
}

/** A connection URL as it may be shown: without its password. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/** Listening failed (the port taken, or not allowed): what the server was asked to listen on, and why not. */
export class ListenError extends StartError {
  constructor(host: string, port: number | undefined, settings: string, cause: Error & { code?: string }) {
    const why = cause.code === 'EADDRINUSE' ? 'the address is already in use' : cause.code === 'EACCES' ? 'permission denied' : cause.message;
    super(`cannot listen on ${host}:${port}: ${why}. Set ${settings} to an address this process may listen on.`, { cause });
    this.name = 'ListenError';
  }
}

export async function startServer(config: Config, opts: StartOptions = {}): Promise<RunningServer> {
  // Private data at rest: new files 0600, DATA_DIR 0700, older files fixed.
  setPrivateUmask();
  try {
    securePrivateData(config.dataDir);
  } catch (e) {
    throw new StartError(`cannot use DATA_DIR ${config.dataDir}: ${(e as Error).message}`, { cause: e });
  }
  // The server log (and the access log in it) is written asynchronously:
  // lines written while a write is under way go out together in the next.
  const logDest = pino.destination({ dest: 1, sync: false });
  liveLogs.add(logDest);
  const log = pino({ level: config.logLevel }, logDest);
  // Metrics exist only when their listener is configured (no cost otherwise).
  const sources = { queues: () => 0, waitingPolls: () => 0, renderQueue: () => 0 };
  const metrics = config.metricsPort === undefined ? undefined : createMetrics(sources);
  let store: Store;
  try {
    store = openStore({
      dataDir: config.dataDir,
      databaseUrl: config.databaseUrl,
      pgSchema: config.pgSchema,
      pgPoolMax: config.pgPoolMax,
      onQuery: metrics ? (ms) => metrics.dbDuration.observe(ms / 1000) : undefined,
      onConnectionLost: (err) => log.warn({ err }, 'database connection lost (a new one is opened when needed)'),
    });
  } catch (e) {
    // SQLite opens its file here (PostgreSQL connects later): a DATA_DIR
    // where no file can be made, such as /proc.
    if (config.databaseUrl) throw e;
    throw new StartError(`cannot use DATA_DIR ${config.dataDir}: ${(e as Error).message}`, { cause: e });
  }
  // Never two processes on one SQLite DATA_DIR, nor on PostgreSQL without Redis.
  let unlock: (() => Promise<void>) | null = null;
  let node: NodeRegistration | null = null;
  let events: EventSystem;
  try {
    if (store.dialect === 'postgres') {
      await pingDatabase(store.db).catch((e: unknown) => {
        throw new StartError(`cannot connect to the PostgreSQL database ${shownUrl(config.databaseUrl!)}: ${(e as Error).message}`, { cause: e });
      });
    }
    if (store.dialect === 'sqlite') unlock = await lockDataDir(config.dataDir, (err) => log.error({ err }, 'DATA_DIR lock lost'));
    if (store.dialect === 'sqlite' && config.redisUrl) throw new NodeConflictError('REDIS_URL needs PostgreSQL (DATABASE_URL): SQLite serves one process only.');
    // Migrations and the first start's bootstrap run one process at a time.
    await withClusterLock(store, 'bootstrap', { wait: true }, () => migrate(store));
    if (store.dialect === 'postgres') node = await registerNode(store, randomUUID(), !!config.redisUrl);
    // Redis is reached before a first start creates anything.
    events = await openEventSystem(config, log).catch((e: unknown) => {
      throw new StartError(`cannot connect to Redis at ${shownUrl(config.redisUrl!)}: ${(e as Error).message}`, { cause: e });
    });
  } catch (e) {
    await node?.stop().catch(() => {});
    await unlock?.().catch(() => {});
    await store.close();
    throw e;
  }
  const bootstrap = (await withClusterLock(store, 'bootstrap', { wait: true }, () => ensureRealm(store, config)))!;
  if (bootstrap.created) opts.onCreated?.(bootstrap.created);
  const { queues, bus } = events;
  shareChanges(store, events);
  queues.startGc(config.queueGcSeconds);
  const markdown = createMarkdownRenderer({ threads: config.markdownThreads, timeoutMs: config.markdownTimeoutMs });
  const svc: Services = { config, store, queues, bus, redis: events.redis, log, markdown, metrics, realmId: bootstrap.realmId };
  sources.queues = () => queues.stats().queues;
  sources.waitingPolls = () => queues.stats().waiting;
  sources.renderQueue = () => markdown.queued;
  installAllFeatures(svc);
  await ensureInitialChannels(svc, bootstrap.created?.owner);
  // A data export a stopped process was writing can no longer finish (with several processes, another may be writing it).
  if (!events.redis) await failInterruptedExports(svc);
  // Sends scheduled messages when due (and those that came due while stopped).
  const scheduledDelivery = startScheduledDelivery(svc);
  // Deletes messages past their retention period (message_retention_days).
  const retention = startRetentionJob(svc);
  // Announces members who passed the waiting period (waiting_period_threshold).
  const fullMembers = startFullMemberJob(svc);
  // Calls outgoing-webhook bots (and retries those pending from before a restart).
  const outgoingWebhooks = startOutgoingWebhookDelivery(svc);
  // Sends missed-message emails when their batch is due, and weekly digests.
  const missedMessageEmails = startMissedMessageEmailDelivery(svc);
  const digestEmails = startDigestEmails(svc);
  // Thumbnails of images uploaded before they were made.
  const uploadImages = startUploadImageBackfill(svc);
  const lifecycle = { closing: false };
  const running = new RunningHandlers();
  const app = buildApp(svc, {
    lifecycle,
    running,
    routes: allRoutes(),
    bodyLimit: (config.maxFileUploadSizeMib + 1) * 1024 * 1024,
  });
  let url = config.externalUrl;
  let metricsListener: Awaited<ReturnType<typeof startMetricsListener>> = null;
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    lifecycle.closing = true;
    await queues.close();
    await scheduledDelivery.stop();
    await retention.stop();
    await fullMembers.stop();
    await outgoingWebhooks.stop();
    await missedMessageEmails.stop();
    await digestEmails.stop();
    await uploadImages.stop();
    await app.close();
    // Handlers whose client went away outlive their connection; they finish before the store closes.
    if (!(await running.settled(HANDLERS_CLOSE_WAIT_MS))) log.warn({ running: running.size }, 'closing with requests still running');
    if (metricsListener) await new Promise((r) => metricsListener!.server.close(r));
    await store.changes.announced();
    await events.close();
    await node?.stop().catch((err: unknown) => log.warn({ err }, 'node deregistration failed'));
    await markdown.close();
    closeEmailTransports();
    await store.close();
    await unlock?.().catch(() => {});
    liveLogs.delete(logDest);
    flushLog(logDest);
  };
  if (opts.listen !== false) {
    // A start that cannot listen stops what it started and says so (ListenError).
    const listening = async <T>(listen: () => Promise<T>, host: string, port: number | undefined, settings: string): Promise<T> => {
      try {
        return await listen();
      } catch (e) {
        await close();
        throw new ListenError(host, port, settings, e as Error);
      }
    };
    url = await listening(() => app.listen({ host: config.host, port: config.port }), config.host, config.port, 'HOST and PORT');
    metricsListener = await listening(() => startMetricsListener(svc), config.metricsHost, config.metricsPort, 'METRICS_HOST and METRICS_PORT');
  }
  return { app, svc, bootstrap, url, metricsUrl: metricsListener?.url, close };
}
