/**
 * The server process (`npm start` loads it through src/main.js): runs it until SIGTERM or SIGINT, then shuts down
 * cleanly (in-flight requests finish; waiting long-polls are answered).
 *
 * With PARLEY_WORKERS=N (PostgreSQL and Redis only) this process becomes
 * the primary of a node:cluster: it prepares the database (migrations, the
 * first start's organization), then forks N workers that share the port;
 * a worker that dies is replaced; SIGTERM stops them all.
 */
import cluster, { type Worker } from 'node:cluster';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { StartError, startServer, type RunningServer } from '../server.ts';
import { NodeConflictError } from '../store/nodes.ts';
import { DataDirLockedError } from '../lib/data-dir-lock.ts';
import type { Bootstrap } from '../actions/realm.ts';
import { createdLines } from './created.ts';

/**
 * Starts the server, or explains (no stack trace) why another process makes
 * that wrong. A first start announces the organization and its owner as soon
 * as they exist, so that the generated password is shown even if the start
 * then fails (a port already in use, say).
 */
async function start(config: Config, opts: { listen?: boolean } = {}): Promise<RunningServer> {
  return startServer(config, { ...opts, onCreated: (created) => announceCreated(config, created) }).catch((e: unknown) => {
    if (e instanceof NodeConflictError || e instanceof DataDirLockedError || e instanceof StartError) cannotStart(e.message);
    throw e;
  });
}

function cannotStart(why: string): never {
  console.error(`Parley cannot start: ${why}`);
  process.exit(1);
}

function announceCreated(config: Config, created: NonNullable<Bootstrap['created']>): void {
  for (const line of createdLines(config.dataDir, created)) console.log(line);
}

function onStopSignal(stop: (signal: string) => Promise<void>): void {
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      stop(signal).then(
        () => process.exit(0),
        (err: unknown) => {
          console.error(err);
          process.exit(1);
        },
      );
    });
  }
}

async function runSingle(config: Config): Promise<void> {
  const server = await start(config);
  if (cluster.isPrimary) console.log(`Parley listening on ${server.url} (${server.svc.store.dialect})`);
  onStopSignal(async (signal) => {
    server.svc.log.info(`${signal}: shutting down`);
    await server.close();
  });
}

async function runPrimary(config: Config, workers: number): Promise<void> {
  if (!config.databaseUrl || !/^postgres(ql)?:\/\//.test(config.databaseUrl) || !config.redisUrl) {
    console.error('Parley cannot start: PARLEY_WORKERS needs DATABASE_URL (PostgreSQL) and REDIS_URL, through which the workers share their state.');
    process.exit(1);
  }
  // Migrations and the first start's organization, once, before any worker.
  const prepared = await start(config, { listen: false });
  await prepared.close();

  let stopping = false;
  const everListened = new WeakSet<Worker>();
  let listening = 0;
  cluster.on('listening', (worker, address) => {
    everListened.add(worker);
    if (++listening === workers) {
      const host = address.address?.includes(':') ? `[${address.address}]` : (address.address ?? config.host);
      console.log(`Parley listening on http://${host}:${address.port} (postgres, ${workers} workers)`);
    }
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    if (!everListened.has(worker)) {
      // A worker that cannot start would fail again: stop rather than loop.
      console.error(`Parley cannot start: a worker exited during startup (code ${code}, signal ${signal}).`);
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
      process.exitCode = 1;
      return;
    }
    console.error(`Parley worker ${worker.process.pid} died (code ${code}, signal ${signal}); starting another.`);
    cluster.fork();
  });
  for (let i = 0; i < workers; i++) cluster.fork();
  onStopSignal(async () => {
    stopping = true;
    const all = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w);
    await Promise.all(
      all.map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.isDead()) return resolve();
            w.once('exit', () => resolve());
            w.process.kill('SIGTERM');
          }),
      ),
    );
  });
}

/** Runs the server as configured (called by src/main.js, which may also load this module only to compile it). */
export async function serve(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) cannotStart(e.message);
    throw e;
  }
  if (config.workers > 0 && cluster.isPrimary) await runPrimary(config, config.workers);
  else await runSingle(config);
}
