/**
 * Assembles a running server from configuration: storage, migrations, the
 * organization, event queues and fan-out, and the HTTP app with every route.
 * Used by main.ts and by the tests (which run it in-process on a free port).
 */
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import { randomUUID } from 'node:crypto';
import { openStore } from './store/db.ts';
import { withClusterLock } from './store/locks.ts';
import { NodeConflictError, registerNode, type NodeRegistration } from './store/nodes.ts';
import { lockDataDir } from './lib/data-dir-lock.ts';
import { migrate } from './store/migrations.ts';
import { ensureRealm, type Bootstrap } from './actions/realm.ts';
import { openEventSystem } from './events/setup.ts';
import { buildApp } from './http/app.ts';
import { allRoutes } from './http/routes/index.ts';
import type { Services } from './services.ts';
import { installEventFilters } from './events/filters.ts';
import { createInitialChannels } from './actions/onboarding.ts';
import './state/index.ts';
import { scheduledMessagesEventFilter, startScheduledDelivery } from './actions/scheduled-messages.ts';

export interface RunningServer {
  app: FastifyInstance;
  svc: Services;
  bootstrap: Bootstrap;
  url: string;
  close(): Promise<void>;
}

export async function startServer(config: Config, opts: { listen?: boolean } = {}): Promise<RunningServer> {
  const log = pino({ level: config.logLevel });
  const store = openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, pgSchema: config.pgSchema });
  // Never two processes on one SQLite DATA_DIR, nor on PostgreSQL without Redis.
  let unlock: (() => Promise<void>) | null = null;
  let node: NodeRegistration | null = null;
  try {
    if (store.dialect === 'sqlite') unlock = await lockDataDir(config.dataDir, (err) => log.error({ err }, 'DATA_DIR lock lost'));
    if (store.dialect === 'sqlite' && config.redisUrl) throw new NodeConflictError('REDIS_URL needs PostgreSQL (DATABASE_URL): SQLite serves one process only.');
    // Migrations and the first start's bootstrap run one process at a time.
    await withClusterLock(store, 'bootstrap', { wait: true }, () => migrate(store));
    if (store.dialect === 'postgres') node = await registerNode(store, randomUUID(), !!config.redisUrl);
  } catch (e) {
    await unlock?.().catch(() => {});
    await store.close();
    throw e;
  }
  const bootstrap = (await withClusterLock(store, 'bootstrap', { wait: true }, () => ensureRealm(store, config)))!;
  const events = await openEventSystem(config, log);
  const { queues, bus } = events;
  queues.startGc(config.queueGcSeconds);
  const svc: Services = { config, store, queues, bus, redis: events.redis, log, realmId: bootstrap.realmId };
  installEventFilters(svc);
  if (bootstrap.created) await createInitialChannels(svc, bootstrap.created.owner);
  svc.queues.setFilter('scheduled_messages', scheduledMessagesEventFilter);
  // Sends scheduled messages when due (and those that came due while stopped).
  const scheduledDelivery = startScheduledDelivery(svc);
  const lifecycle = { closing: false };
  const app = buildApp(svc, {
    lifecycle,
    routes: allRoutes(),
    bodyLimit: (config.maxFileUploadSizeMib + 1) * 1024 * 1024,
  });
  let url = config.externalUrl;
  if (opts.listen !== false) {
    const address = await app.listen({ host: config.host, port: config.port });
    url = address;
  }
  let closed = false;
  return {
    app,
    svc,
    bootstrap,
    url,
    async close() {
      if (closed) return;
      closed = true;
      lifecycle.closing = true;
      await queues.close();
      await scheduledDelivery.stop();
      await app.close();
      await events.close();
      await node?.stop().catch((err: unknown) => log.warn({ err }, 'node deregistration failed'));
      await store.close();
      await unlock?.().catch(() => {});
    },
  };
}
