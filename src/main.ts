/**
 * `npm start`: runs the server until SIGTERM or SIGINT, then shuts down
 * cleanly (in-flight requests finish; waiting long-polls are answered).
 */
import { loadConfig } from './config.ts';
import { startServer } from './server.ts';

const config = loadConfig();
const server = await startServer(config);
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
