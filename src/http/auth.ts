/**
 * HTTP Basic authentication with email and API key (Zulip's REST scheme),
 * plus the rate limits around it: failed authentications per client address,
 * and requests per user per minute.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';
import { ApiError, authError, rateLimited, unauthorized } from '../lib/errors.ts';
import { BOT_TYPE, type UserRow } from '../store/users.ts';
import { accountByApiKey } from '../actions/cache.ts';
import { RateLimit, rateLimitHeaders } from '../lib/rate-limit.ts';

export interface AuthLimits {
  failures: RateLimit;
  api: RateLimit;
}

export function makeAuthLimits(svc: Services): AuthLimits {
  return {
    failures: new RateLimit(svc.redis, 'auth-failures', svc.config.authFailureLimit, svc.config.authFailureWindowSeconds),
    api: new RateLimit(svc.redis, 'api', svc.config.apiRateLimitPerMinute, 60),
  };
}

/**
 * Counts a request against its user's API limit (RATE_LIMIT_HIT when over)
 * and puts the limit's X-RateLimit-* headers on the answer, as Zulip does on
 * every rate-limited request.
 */
export async function countApiRequest(limits: AuthLimits, userId: number, reply: FastifyReply): Promise<void> {
  const state = await limits.api.check(`user:${userId}`);
  if (state) reply.headers(rateLimitHeaders(state));
}

export function basicCredentials(req: FastifyRequest): { email: string; apiKey: string } | null {
  const header = req.headers.authorization;
  if (header === undefined) return null;
  let creds = credentialsByHeader.get(header);
  if (creds === undefined) {
    creds = decodeBasic(header);
    if (credentialsByHeader.size >= 1000) credentialsByHeader.clear();
    credentialsByHeader.set(header, creds);
  }
  return creds;
}

/**
 * Headers already decoded: a client sends the same one with every request.
 * Decoding is all that is kept; the key is still looked up each time.
 */
const credentialsByHeader = new Map<string, { email: string; apiKey: string }>();

function decodeBasic(header: string): { email: string; apiKey: string } {
  const parts = header.trim().split(/\s+/);
  if (parts.length !== 2) throw unauthorized('Invalid authorization header for basic auth');
  if (parts[0].toLowerCase() !== 'basic') throw unauthorized('This endpoint requires HTTP basic authentication.');
  const decoded = Buffer.from(parts[1], 'base64').toString('utf8');
  const idx = decoded.indexOf(':');
  if (idx < 0 || decoded.indexOf(':', idx + 1) >= 0) throw unauthorized('Invalid authorization header for basic auth');
  return { email: decoded.slice(0, idx).trim(), apiKey: decoded.slice(idx + 1).trim() };
}

const API_KEY_RE = /^[A-Za-z0-9]{32}$/;

/**
 * Resolves the caller from the Authorization header. Returns null when no
 * credentials were sent and `required` is false.
 */
export async function authenticate(
  svc: Services,
  limits: AuthLimits,
  req: FastifyRequest,
  required: boolean,
  opts: { allowIncomingWebhooks?: boolean } = {},
): Promise<UserRow | null> {
  const creds = basicCredentials(req);
  if (!creds) {
    if (required) throw unauthorized('Missing authorization header for basic auth');
    return null;
  }
  const wait = await limits.failures.blockedFor(req.ip);
  if (wait > 0) throw rateLimited(wait);
  const fail = async (msg: string): Promise<never> => {
    await limits.failures.hit(req.ip);
    throw unauthorized(msg);
  };
  if (!API_KEY_RE.test(creds.apiKey)) return fail('Malformed API key');
  const found = await accountByApiKey(svc, creds.apiKey);
  if (!found) return fail('Invalid API key');
  const { user, realmDeactivated } = found;
  const email = creds.email.toLowerCase();
  if (email !== user.delivery_email.toLowerCase() && email !== user.email.toLowerCase()) return fail('Invalid API key');
  if (realmDeactivated) throw authError('REALM_DEACTIVATED', 'This organization has been deactivated');
  if (!user.is_active) throw authError('USER_DEACTIVATED', 'Account is deactivated');
  // Zulip's validate_api_key: an incoming-webhook bot's key works only where the endpoint allows it.
  if (user.bot_type === BOT_TYPE.INCOMING_WEBHOOK && !opts.allowIncomingWebhooks) {
    throw unauthorized('This API is not available to incoming webhook bots.');
  }
  return user;
}

/** Zulip's client name: the `client` parameter, else the User-Agent's first product token. */
export function clientName(req: FastifyRequest, fields: Map<string, string>): string {
  const explicit = fields.get('client');
  if (explicit) return explicit.slice(0, 30);
  const ua = req.headers['user-agent'];
  if (!ua) return 'Unspecified';
  const m = /^([^/\s]+)/.exec(ua);
  return (m ? m[1] : 'Unspecified').slice(0, 30);
}

/**
 * The caller of an incoming webhook, identified by its `api_key` parameter
 * alone (Zulip's webhook authentication): 401 INVALID_API_KEY for a
 * malformed or unknown key; deactivated accounts and organizations as for
 * HTTP Basic. Every kind of account may call webhooks.
 */
export async function authenticateApiKey(svc: Services, limits: AuthLimits, req: FastifyRequest, apiKey: string): Promise<UserRow> {
  const wait = await limits.failures.blockedFor(req.ip);
  if (wait > 0) throw rateLimited(wait);
  const fail = async (msg: string): Promise<never> => {
    await limits.failures.hit(req.ip);
    throw new ApiError(msg, { code: 'INVALID_API_KEY', status: 401 });
  };
  if (!API_KEY_RE.test(apiKey)) return fail('Malformed API key');
  const found = await accountByApiKey(svc, apiKey);
  if (!found) return fail('Invalid API key');
  const { user, realmDeactivated } = found;
  if (realmDeactivated) throw authError('REALM_DEACTIVATED', 'This organization has been deactivated');
  if (!user.is_active) throw authError('USER_DEACTIVATED', 'Account is deactivated');
  return user;
}
