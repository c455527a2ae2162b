/**
 * `npm start`: runs the server until SIGTERM or SIGINT, then shuts down
 * cleanly (in-flight requests finish; waiting long-polls are answered).
 */
import { loadConfig } from './config.ts';
import { startServer } from './server.ts';
import { NodeConflictError } from './store/nodes.ts';
import { DataDirLockedError } from './lib/data-dir-lock.ts';

const config = loadConfig();
const server = await startServer(config).catch((e: unknown) => {
  // Refusing to start (another process holds the data): say why and what to do, no stack trace.
  if (e instanceof NodeConflictError || e instanceof DataDirLockedError) {
    console.error(`Parley cannot start: ${e.message}`);
    process.exit(1);
  }
  throw e;
});
const created = server.bootstrap.created;
if (created) {
  console.log(`Created the organization and its owner: ${created.owner.delivery_email}`);
  if (created.generatedPassword) console.log(`Owner password (shown once): ${created.password}`);
  console.log(`Owner API key written to ${config.dataDir}/zuliprc`);
}
console.log(`Parley listening on ${server.url} (${server.svc.store.dialect})`);

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    server.svc.log.info(`${signal}: shutting down`);
    server
      .close()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        console.error(err);
        process.exit(1);
      });
  });
}
