/**
 * Assembles a running server from configuration: storage, migrations, the
 * organization, event queues and fan-out, and the HTTP app with every route.
 * Used by main.ts and by the tests (which run it in-process on a free port).
 */
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import { openStore } from './store/db.ts';
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
  await migrate(store);
  const bootstrap = await ensureRealm(store, config);
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
      await store.close();
    },
  };
}
