/**
 * Server configuration, read once from the environment. Every setting has a
 * default that works on a fresh machine with no services running.
 */
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface Config {
  host: string;
  port: number;
  /** The URL clients use to reach the server (zuliprc `site`, realm_url). */
  externalUrl: string;
  dataDir: string;
  databaseUrl?: string;
  /** PostgreSQL schema to use (tests isolate themselves this way). */
  pgSchema?: string;
  /** Most PostgreSQL connections this process opens for requests and jobs (PARLEY_PG_POOL_MAX). */
  pgPoolMax: number;
  redisUrl?: string;
  /** Prefix of every Redis key and channel (several deployments or tests can share one Redis). */
  redisPrefix: string;
  /** PARLEY_WORKERS: worker processes to fork on one port (0: this process serves). */
  workers: number;
  ownerEmail?: string;
  ownerPassword?: string;
  realmName: string;
  logLevel: string;
  /** Seconds a GET /events waits before answering with a heartbeat. */
  heartbeatSeconds: number;
  /** Seconds an event queue may go unpolled before it is collected. */
  queueIdleSeconds: number;
  /** Seconds between garbage-collection sweeps of idle queues. */
  queueGcSeconds: number;
  /** Requests per user per minute before RATE_LIMIT_HIT (0 disables). */
  apiRateLimitPerMinute: number;
  /** Failed authentications per client address within authFailureWindowSeconds before 429. */
  authFailureLimit: number;
  authFailureWindowSeconds: number;
  /** Emails that unauthenticated forms (password reset) may send per client address a day (Zulip's sends_email_by_ip; 0 disables). */
  emailsPerAddressPerDay: number;
  maxMessageLength: number;
  /** Seconds an outgoing-webhook request may take (Zulip's OUTGOING_WEBHOOK_TIMEOUT_SECONDS). */
  outgoingWebhookTimeoutSeconds: number;
  /** Website previews may fetch pages on loopback and private addresses (off: only public ones, as Zulip's Smokescreen proxy allows). */
  urlPreviewPrivateAddresses: boolean;
  maxTopicLength: number;
  maxStreamNameLength: number;
  maxStreamDescriptionLength: number;
  maxFileUploadSizeMib: number;
  typingStartedWaitMs: number;
  typingStoppedWaitMs: number;
  typingStartedExpiryMs: number;
  webPublicStreamsEnabled: boolean;
  canAccessAllUsersGroupLimitsPresence: boolean;
  invitationLinkValidityMinutes: number;
  /** Zulip's EMAIL_GATEWAY_PATTERN (e.g. `%s@mail.example.com`); empty: no email gateway, channel addresses are "". */
  emailGatewayPattern: string;
  /** Zulip's message_visibility_limit: only the newest N messages of the organization are shown (null: all). */
  messageVisibilityLimit: number | null;
  /** Lifetime of a web login session (the `sessionid` cookie), in seconds. */
  sessionCookieAgeSeconds: number;
  /** The built web client (served at / and /static/). */
  webDistDir: string;
  /** Worker threads rendering Markdown. */
  markdownThreads: number;
  /** Time budget of one message render (Zulip: 5 s); past it the message fails with "Unable to render message". */
  markdownTimeoutMs: number;
  /** Port of the Prometheus metrics listener (unset: no listener; 0: any free port). */
  metricsPort?: number;
  metricsHost: string;
  /** Which proxies to believe for the client address (Fastify's trustProxy): true, a hop count, or addresses/CIDRs. */
  trustProxy?: boolean | number | string;
  /** Where access-log lines go: 'stdout' (the server log), 'off', or a file path. */
  accessLog: string;
}

function trustProxy(v: string | undefined): boolean | number | string | undefined {
  if (v === undefined || v === '' || /^(0|false|no|off)$/i.test(v)) return undefined;
  if (/^(true|yes|on)$/i.test(v)) return true;
  if (/^\d+$/.test(v)) return Number(v);
  return v;
}

/** Markdown render threads by default. */
export function defaultRenderThreads(): number {
  // One core is left to the request thread, so renders never starve it.
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

/** A setting the server cannot start with (the server says so in one line, without a stack trace). */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function int(env: NodeJS.ProcessEnv, name: string, dflt: number): number {
  const v = env[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new ConfigError(`${name} must be a number, got ${JSON.stringify(v)}`);
  return n;
}

function portNumber(env: NodeJS.ProcessEnv, name: string, dflt: number): number {
  const n = int(env, name, dflt);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`${name} must be a port number (0 to 65535), got ${JSON.stringify(env[name])}`);
  return n;
}

/** The server log's levels (pino's). */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(env: NodeJS.ProcessEnv): string {
  const v = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(v)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(v)}`);
  return v;
}

function bool(env: NodeJS.ProcessEnv, name: string, dflt: boolean): boolean {
  const v = env[name];
  if (v === undefined || v === '') return dflt;
  return /^(1|true|yes|on)$/i.test(v);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const port = portNumber(env, 'PORT', 9991);
  return {
    host,
    port,
    externalUrl: (env.EXTERNAL_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, ''),
    dataDir: env.DATA_DIR || './data',
    databaseUrl: env.DATABASE_URL || undefined,
    pgSchema: env.PARLEY_PG_SCHEMA || undefined,
    pgPoolMax: Math.max(2, Math.floor(int(env, 'PARLEY_PG_POOL_MAX', 10))),
    redisUrl: env.REDIS_URL || undefined,
    redisPrefix: env.PARLEY_REDIS_PREFIX || 'parley:',
    workers: int(env, 'PARLEY_WORKERS', 0),
    ownerEmail: env.PARLEY_OWNER_EMAIL || undefined,
    ownerPassword: env.PARLEY_OWNER_PASSWORD || undefined,
    realmName: env.PARLEY_REALM_NAME || 'Parley',
    logLevel: logLevel(env),
    heartbeatSeconds: int(env, 'PARLEY_HEARTBEAT_SECONDS', 45),
    queueIdleSeconds: int(env, 'PARLEY_QUEUE_IDLE_SECONDS', 600),
    queueGcSeconds: int(env, 'PARLEY_QUEUE_GC_SECONDS', 60),
    apiRateLimitPerMinute: int(env, 'PARLEY_API_RATE_LIMIT_PER_MINUTE', 200),
    authFailureLimit: int(env, 'PARLEY_AUTH_FAILURE_LIMIT', 10),
    authFailureWindowSeconds: int(env, 'PARLEY_AUTH_FAILURE_WINDOW_SECONDS', 60),
    emailsPerAddressPerDay: int(env, 'PARLEY_EMAILS_PER_IP_PER_DAY', 5),
    maxMessageLength: 10000,
    outgoingWebhookTimeoutSeconds: int(env, 'OUTGOING_WEBHOOK_TIMEOUT_SECONDS', 10),
    urlPreviewPrivateAddresses: bool(env, 'URL_PREVIEW_PRIVATE_ADDRESSES', false),
    maxTopicLength: 60,
    maxStreamNameLength: 60,
    maxStreamDescriptionLength: 1024,
    maxFileUploadSizeMib: int(env, 'MAX_FILE_UPLOAD_SIZE_MIB', 25),
    typingStartedWaitMs: int(env, 'TYPING_STARTED_WAIT_PERIOD_MILLISECONDS', 10000),
    typingStoppedWaitMs: int(env, 'TYPING_STOPPED_WAIT_PERIOD_MILLISECONDS', 5000),
    typingStartedExpiryMs: int(env, 'TYPING_STARTED_EXPIRY_PERIOD_MILLISECONDS', 15000),
    webPublicStreamsEnabled: bool(env, 'WEB_PUBLIC_STREAMS_ENABLED', false),
    canAccessAllUsersGroupLimitsPresence: bool(env, 'CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE', false),
    invitationLinkValidityMinutes: int(env, 'INVITATION_LINK_VALIDITY_MINUTES', 14400),
    emailGatewayPattern: env.EMAIL_GATEWAY_PATTERN || '',
    messageVisibilityLimit: env.PARLEY_MESSAGE_VISIBILITY_LIMIT ? int(env, 'PARLEY_MESSAGE_VISIBILITY_LIMIT', 0) || null : null,
    sessionCookieAgeSeconds: int(env, 'SESSION_COOKIE_AGE', 14 * 24 * 3600),
    webDistDir: resolve(env.WEB_DIST_DIR || join(REPO_DIR, 'web', 'dist')),
    markdownThreads: int(env, 'MARKDOWN_THREADS', defaultRenderThreads()),
    markdownTimeoutMs: int(env, 'MARKDOWN_TIMEOUT_MS', 5000),
    metricsPort: env.METRICS_PORT === undefined || env.METRICS_PORT === '' ? undefined : portNumber(env, 'METRICS_PORT', 0),
    metricsHost: env.METRICS_HOST || '127.0.0.1',
    trustProxy: trustProxy(env.TRUST_PROXY),
    accessLog: env.ACCESS_LOG || 'stdout',
  };
}
