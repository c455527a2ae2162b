/**
 * parley-admin's commands (started by src/cli/admin.ts): administer accounts
 * from the command line. Opens the same
 * database as the server (DATA_DIR, DATABASE_URL, PARLEY_PG_SCHEMA from the
 * environment) and runs the same actions the API uses. Events go to this
 * process's own (empty) fan-out, so connected clients of a separately running
 * server learn of the changes on their next /register.
 *
 * Exit codes: 0 success, 1 error (one line on stderr), 2 bad arguments (usage).
 */
import { parseArgs } from 'node:util';
import pino from 'pino';
import { ConfigError, loadConfig } from '../config.ts';
import { createdLines } from './created.ts';
import { openStore } from '../store/db.ts';
import { migrate } from '../store/migrations.ts';
import { ensureRealm, zuliprc } from '../actions/realm.ts';
import { ensureInitialChannels } from '../actions/onboarding.ts';
import { withClusterLock } from '../store/locks.ts';
import { openEventSystem } from '../events/setup.ts';
import { installAllFeatures } from '../state/index.ts';
import { shareChanges, type Services } from '../services.ts';
import { ApiError } from '../lib/errors.ts';
import { userByEmail, userById, ROLE, BOT_TYPE, type UserRow } from '../store/users.ts';
import { createUser } from '../actions/users.ts';
import { greetNewUser } from '../actions/welcome-bot.ts';
import { validEmail } from '../lib/email-address.ts';
import { changeRole, deactivateUser, isLastOwner, reactivateUser, regenerateApiKey, ROLES } from '../actions/users-admin.ts';
import { createBotFor } from '../actions/bots.ts';
import { createMarkdownRenderer } from '../markdown/pool.ts';
import { setPrivateUmask } from '../lib/private-files.ts';
import { backupSqlite } from '../store/backup.ts';
import { currentRealmSettings as realmState, setRealmSettingAsOperator } from '../actions/realm-settings.ts';
import { REALM_SETTING_PARAMS } from '../http/routes/realm.ts';
import { allUsers } from '../store/users.ts';
import { ArchiveError, importArchive, writeArchive } from '../store/archive.ts';
import { lockDataDir } from '../lib/data-dir-lock.ts';
import { existsSync } from 'node:fs';
import { generatePassword } from '../lib/passwords.ts';
import { setPasswordAsOperator } from '../actions/settings.ts';
import { progressBar } from './progress.ts';

const USAGE = `Usage: parley-admin <command> [options]

Commands:
  create-user --email EMAIL --name NAME [--password PASSWORD] [--role ROLE]
  create-bot --owner USER --name NAME --short-name SHORT [--type TYPE] [--payload-url URL]
  change-role USER ROLE
  deactivate USER
  reactivate USER
  api-key USER
  regenerate-api-key USER
  set-password USER [--password PASSWORD]
  zuliprc USER
  backup FILE
  export FILE
  import FILE
  realm get [NAME]
  realm set NAME VALUE

backup writes a consistent snapshot of the SQLite database to FILE (a new
file, mode 0600) while the server runs; for PostgreSQL use pg_dump.

export writes the organization to FILE (a new .tar.gz archive: every table
and the files under DATA_DIR), from one consistent snapshot, also while the
server runs. import restores such an archive into an empty Parley (a fresh
DATA_DIR, or an empty PostgreSQL database or schema, the server stopped),
keeping every ID, password and API key; the archive must come from the same
version of Parley. Both show a progress bar on a terminal.

set-password sets a user's password (a generated one, printed once,
without --password) and ends the user's web sessions.

USER is an email address or a numeric user ID.
ROLE is owner, administrator, moderator, member or guest (or 100, 200, 300, 400, 600).
TYPE is generic, incoming-webhook or outgoing-webhook (or 1, 2, 3).
NAME is an organization setting as PATCH /realm names it; VALUE is given as
that endpoint takes it (JSON for numbers, booleans and group settings, e.g.
true, 30, '"unlimited"', '{"new": 5}'; plain text for text settings).
"realm set" changes the setting as an organization owner would.

Uses the server's environment: DATA_DIR, DATABASE_URL, EXTERNAL_URL.`;

class UsageError extends Error {}
class CliError extends Error {}

const ROLE_NAMES: Record<string, number> = {
  owner: ROLE.OWNER,
  administrator: ROLE.ADMINISTRATOR,
  admin: ROLE.ADMINISTRATOR,
  moderator: ROLE.MODERATOR,
  member: ROLE.MEMBER,
  guest: ROLE.GUEST,
};

const BOT_TYPE_NAMES: Record<string, number> = {
  generic: BOT_TYPE.GENERIC,
  'incoming-webhook': BOT_TYPE.INCOMING_WEBHOOK,
  incoming: BOT_TYPE.INCOMING_WEBHOOK,
  'outgoing-webhook': BOT_TYPE.OUTGOING_WEBHOOK,
  outgoing: BOT_TYPE.OUTGOING_WEBHOOK,
};

function parseRole(s: string): number {
  const n = ROLE_NAMES[s.toLowerCase()] ?? (/^\d+$/.test(s) ? Number(s) : NaN);
  if (!ROLES.includes(n)) throw new UsageError(`invalid role: ${s}`);
  return n;
}

function parseBotType(s: string): number {
  const n = BOT_TYPE_NAMES[s.toLowerCase()] ?? (/^\d+$/.test(s) ? Number(s) : NaN);
  if (![BOT_TYPE.GENERIC, BOT_TYPE.INCOMING_WEBHOOK, BOT_TYPE.OUTGOING_WEBHOOK].includes(n as 1 | 2 | 3)) {
    throw new UsageError(`invalid bot type: ${s}`);
  }
  return n;
}

interface Parsed {
  options: Record<string, string | undefined>;
  positionals: string[];
}

function parse(args: string[], options: string[], positionalCount: number): Parsed {
  let res;
  try {
    res = parseArgs({
      args,
      options: Object.fromEntries(options.map((o) => [o, { type: 'string' as const }])),
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (res.positionals.length !== positionalCount) {
    throw new UsageError(positionalCount === 0 ? 'unexpected arguments' : `expected ${positionalCount} argument(s)`);
  }
  return { options: res.values as Record<string, string | undefined>, positionals: res.positionals };
}

function required(p: Parsed, name: string): string {
  const val = p.options[name];
  if (val === undefined || val === '') throw new UsageError(`missing --${name}`);
  return val;
}

async function findUser(svc: Services, ref: string): Promise<UserRow> {
  const u = /^\d+$/.test(ref) ? await userById(svc.store.db, svc.realmId, Number(ref)) : await userByEmail(svc.store.db, svc.realmId, ref);
  if (!u) throw new CliError(`no such user: ${ref}`);
  return u;
}

/** The server's services without HTTP; with REDIS_URL, events reach the running servers' queues. */
async function openServices(): Promise<{ svc: Services; close(): Promise<void> }> {
  const config = loadConfig(process.env);
  setPrivateUmask();
  const store = openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, pgSchema: config.pgSchema });
  await withClusterLock(store, 'bootstrap', { wait: true }, () => migrate(store));
  const bootstrap = (await withClusterLock(store, 'bootstrap', { wait: true }, () => ensureRealm(store, config)))!;
  // On an empty database the command creates the organization, as a first start does: its owner's password is shown here or never.
  if (bootstrap.created) for (const line of createdLines(config.dataDir, bootstrap.created)) process.stdout.write(line + '\n');
  const log = pino({ level: 'silent' });
  const events = await openEventSystem(config, log);
  shareChanges(store, events);
  const markdown = createMarkdownRenderer({ threads: 1, timeoutMs: config.markdownTimeoutMs });
  const svc: Services = { config, store, queues: events.queues, bus: events.bus, redis: events.redis, log, markdown, realmId: bootstrap.realmId };
  installAllFeatures(svc);
  // An organization created here gets its first channels now, as at a first start, before any user is added to it.
  await ensureInitialChannels(svc, bootstrap.created?.owner);
  return {
    svc,
    async close() {
      await store.changes.announced();
      await events.close();
      await markdown.close();
      await store.close();
    },
  };
}

type Command = (svc: Services, args: string[], out: (line: string) => void) => Promise<void>;

/** Argument checks run before the database is opened (so usage errors never touch it). */
const CHECKS: Record<string, (args: string[]) => void> = {
  'create-user': (a) => {
    const p = parse(a, ['email', 'name', 'password', 'role'], 0);
    required(p, 'email');
    required(p, 'name');
    if (p.options.role !== undefined) parseRole(p.options.role);
  },
  'create-bot': (a) => {
    const p = parse(a, ['owner', 'name', 'short-name', 'type', 'payload-url'], 0);
    required(p, 'owner');
    required(p, 'name');
    required(p, 'short-name');
    if (p.options.type !== undefined) parseBotType(p.options.type);
  },
  'change-role': (a) => {
    parseRole(parse(a, [], 2).positionals[1]);
  },
  deactivate: (a) => void parse(a, [], 1),
  reactivate: (a) => void parse(a, [], 1),
  'api-key': (a) => void parse(a, [], 1),
  'regenerate-api-key': (a) => void parse(a, [], 1),
  'set-password': (a) => void parse(a, ['password'], 1),
  zuliprc: (a) => void parse(a, [], 1),
  realm: (a) => {
    const [sub, ...rest] = a;
    if (sub === 'get') {
      if (rest.length > 1) throw new UsageError('expected at most 1 argument(s)');
    } else if (sub === 'set') {
      if (rest.length !== 2) throw new UsageError('expected 2 argument(s)');
      if (!(rest[0] in REALM_SETTING_PARAMS)) throw new UsageError(`unknown organization setting: ${rest[0]}`);
    } else throw new UsageError(sub ? `unknown realm command: ${sub}` : 'missing realm command (get or set)');
  },
};

const COMMANDS: Record<string, Command> = {
  async 'create-user'(svc, args, out) {
    const p = parse(args, ['email', 'name', 'password', 'role'], 0);
    const email = required(p, 'email');
    if (!validEmail(email)) throw new CliError(`invalid email address: ${email}`);
    if (await userByEmail(svc.store.db, svc.realmId, email)) throw new CliError(`Email '${email}' already in use`);
    const user = await createUser(svc, {
      email,
      fullName: required(p, 'name'),
      password: p.options.password ?? null,
      role: p.options.role !== undefined ? parseRole(p.options.role) : ROLE.MEMBER,
    });
    // As for a user created over the API or by signing up: Welcome Bot greets them.
    await greetNewUser(svc, user);
    out(`Created user ${user.delivery_email} (ID ${user.id}, role ${user.role})`);
  },
  async 'create-bot'(svc, args, out) {
    const p = parse(args, ['owner', 'name', 'short-name', 'type', 'payload-url'], 0);
    const owner = await findUser(svc, required(p, 'owner'));
    if (owner.is_bot) throw new CliError("bots can't own other bots");
    if (!owner.is_active) throw new CliError(`user is deactivated: ${owner.delivery_email}`);
    const res = await createBotFor(svc, owner, {
      fullName: required(p, 'name'),
      shortName: required(p, 'short-name'),
      botType: p.options.type !== undefined ? parseBotType(p.options.type) : BOT_TYPE.GENERIC,
      payloadUrl: p.options['payload-url'] ?? '',
      interfaceType: 1,
    });
    const bot = await findUser(svc, String(res.user_id));
    out(`Created bot ${bot.email} (ID ${bot.id}, owner ${owner.delivery_email})`);
    out(`API key: ${bot.api_key}`);
  },
  async 'change-role'(svc, args, out) {
    const p = parse(args, [], 2);
    const user = await findUser(svc, p.positionals[0]);
    const role = parseRole(p.positionals[1]);
    if (user.role === ROLE.OWNER && role !== ROLE.OWNER && (await isLastOwner(svc, user))) {
      throw new CliError('The owner permission cannot be removed from the only organization owner.');
    }
    await changeRole(svc, user, role);
    out(`Role of ${user.delivery_email} is now ${role}`);
  },
  async deactivate(svc, args, out) {
    const user = await findUser(svc, parse(args, [], 1).positionals[0]);
    if (!user.is_active) throw new CliError(`user is already deactivated: ${user.delivery_email}`);
    if (await isLastOwner(svc, user)) throw new CliError('Cannot deactivate the only organization owner');
    const done = await deactivateUser(svc, user);
    const bots = done.filter((u) => u.id !== user.id);
    out(`Deactivated ${user.delivery_email}${bots.length ? ` and ${bots.length} bot(s)` : ''}`);
  },
  async reactivate(svc, args, out) {
    const user = await findUser(svc, parse(args, [], 1).positionals[0]);
    if (user.is_active) throw new CliError(`user is already active: ${user.delivery_email}`);
    await reactivateUser(svc, user, null);
    out(`Reactivated ${user.delivery_email}`);
  },
  async 'api-key'(svc, args, out) {
    const user = await findUser(svc, parse(args, [], 1).positionals[0]);
    out(user.api_key);
  },
  async 'regenerate-api-key'(svc, args, out) {
    const user = await findUser(svc, parse(args, [], 1).positionals[0]);
    out(await regenerateApiKey(svc, user));
  },
  async 'set-password'(svc, args, out) {
    const p = parse(args, ['password'], 1);
    const user = await findUser(svc, p.positionals[0]);
    const password = p.options.password ?? generatePassword();
    await setPasswordAsOperator(svc, user, password);
    out(`Password of ${user.delivery_email} set; their web sessions ended`);
    if (p.options.password === undefined) out(`New password (shown once): ${password}`);
  },
  async realm(svc, args, out) {
    const [sub, name, raw] = args;
    if (sub === 'get') {
      const state = await realmState(svc);
      if (name === undefined) {
        out(JSON.stringify(state, null, 2));
        return;
      }
      if (!(name in state)) throw new CliError(`unknown organization setting: ${name}`);
      out(JSON.stringify(state[name]));
      return;
    }
    const value = REALM_SETTING_PARAMS[name].decode(raw, name);
    const owner = (await allUsers(svc.store.db, svc.realmId)).find((u) => u.is_active && u.role === ROLE.OWNER && !u.is_bot);
    if (!owner) throw new CliError('the organization has no active owner');
    const changed = await setRealmSettingAsOperator(svc, owner, name, value);
    out(Object.keys(changed).length ? `Set ${name} to ${JSON.stringify((await realmState(svc))[name])}` : `${name} is unchanged`);
  },
  async zuliprc(svc, args, out) {
    const user = await findUser(svc, parse(args, [], 1).positionals[0]);
    out(zuliprc(user.delivery_email, user.api_key, svc.config.externalUrl).trimEnd());
  },
};

/** `backup FILE`: needs no services (and runs no migrations) -- only a read of the database file. */
function backup(args: string[]): number {
  if (args.length !== 1 || args[0]!.startsWith('-')) {
    process.stderr.write(`parley-admin: backup needs exactly one FILE\n\n${USAGE}\n`);
    return 2;
  }
  const config = loadConfig(process.env);
  setPrivateUmask();
  if (config.databaseUrl) {
    process.stderr.write('parley-admin: error: the database is PostgreSQL: back it up with pg_dump (see the README)\n');
    return 1;
  }
  try {
    const { bytes } = backupSqlite(config.dataDir, args[0]!);
    process.stdout.write(`Backup written to ${args[0]} (${bytes} bytes, integrity check ok)\n`);
    return 0;
  } catch (e) {
    process.stderr.write(`parley-admin: error: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}\n`);
    return 1;
  }
}

/** `export FILE` / `import FILE`: the store alone (no organization is created on an empty database). */
async function archiveCommand(command: 'export' | 'import', args: string[]): Promise<number> {
  if (args.length !== 1 || args[0]!.startsWith('-')) {
    process.stderr.write(`parley-admin: ${command} needs exactly one FILE\n\n${USAGE}\n`);
    return 2;
  }
  const file = args[0]!;
  const config = loadConfig(process.env);
  setPrivateUmask();
  const fail = (msg: string) => {
    process.stderr.write(`parley-admin: error: ${msg}\n`);
    return 1;
  };
  if (command === 'export' && existsSync(file)) return fail(`${file} already exists`);
  if (command === 'import' && !existsSync(file)) return fail(`no such file: ${file}`);
  let unlock: (() => Promise<void>) | undefined;
  let store: ReturnType<typeof openStore> | undefined;
  const bar = progressBar(command === 'export' ? 'Exporting' : 'Importing', command === 'export' ? 'rows and files' : 'MiB', { bytes: command === 'import' });
  try {
    // An import writes DATA_DIR and the database: no server may run on them meanwhile.
    if (command === 'import' && !config.databaseUrl) unlock = await lockDataDir(config.dataDir, () => {});
    store = openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, pgSchema: config.pgSchema });
    await migrate(store);
    if (command === 'export') {
      const res = await writeArchive({ store, dataDir: config.dataDir, file, scope: { kind: 'full' }, onProgress: bar.update });
      bar.stop();
      process.stdout.write(`Exported ${res.rows} rows and ${res.files} files to ${file} (${res.bytes} bytes)\n`);
    } else {
      const res = await importArchive({ store, dataDir: config.dataDir, file, onProgress: bar.update });
      bar.stop();
      process.stdout.write(`Imported ${res.rows} rows of ${res.tables} tables and ${res.files} files from ${file}\n`);
    }
    return 0;
  } catch (e) {
    bar.stop();
    const msg = e instanceof ArchiveError || e instanceof Error ? e.message : String(e);
    return fail(msg.split('\n')[0]!);
  } finally {
    await store?.close();
    await unlock?.();
  }
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  try {
    if (command === 'backup') return backup(args);
    if (command === 'export' || command === 'import') return await archiveCommand(command, args);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`parley-admin: error: ${e.message}\n`);
    return 1;
  }
  try {
    if (!command || !(command in COMMANDS)) throw new UsageError(command ? `unknown command: ${command}` : 'missing command');
    CHECKS[command](args);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`parley-admin: ${e.message}\n\n${USAGE}\n`);
      return 2;
    }
    throw e;
  }
  let opened: Awaited<ReturnType<typeof openServices>> | undefined;
  try {
    opened = await openServices();
    await COMMANDS[command](opened.svc, args, (line) => process.stdout.write(line + '\n'));
    return 0;
  } catch (e) {
    const msg = e instanceof ApiError || e instanceof CliError ? e.message : e instanceof Error ? e.message : String(e);
    process.stderr.write(`parley-admin: error: ${msg.split('\n')[0]}\n`);
    return 1;
  } finally {
    await opened?.close();
  }
}

// The command is done (and its output written: stdout and stderr are synchronous for files and pipes):
// exit even if a connection or timer would keep the process alive.
process.exit(await main(process.argv.slice(2)));
