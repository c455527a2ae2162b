/**
 * The web client's side of the server (Zulip's web-app conventions):
 * - GET /static/<path>         files of the built client (WEB_DIST_DIR, default web/dist)
 * - GET /                      the client page with a session, else 302 to /login/
 * - GET /login/                the same page (it shows its login form), or 302 to / with a session
 * - GET /accounts/login/       302 to /login/
 * - POST /accounts/login/      email + password -> `sessionid` (HttpOnly) and `csrftoken` cookies
 * - POST /accounts/logout/     ends the session
 * plus the session and CSRF checks /json requests and file serving use.
 *
 * Sessions: the `sessionid` cookie holds a random id whose hash is the key of
 * a server-side row (src/actions/sessions.ts). CSRF: double-submit, every
 * state-changing request carries `X-CSRFToken` equal to the `csrftoken`
 * cookie, and with a session also equal to the token bound to the session.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import type { Services } from '../services.ts';
import { ApiError, missingArgument, unauthorized } from '../lib/errors.ts';
import { loginWithPassword, logout, newCsrfToken, resolveSession, type ActiveSession } from '../actions/sessions.ts';
import { spectatorAccessEnabled } from '../actions/users-read.ts';
import { parseForm } from './form.ts';
import { escapeHtml } from './signup.ts';

export const SESSION_COOKIE = 'sessionid';
export const CSRF_COOKIE = 'csrftoken';
export const CSRF_HEADER = 'x-csrftoken';
export const LOGIN_PATH = '/login/';
export const STATIC_PREFIX = '/static/';
/** Django's CSRF_COOKIE_AGE: one year. */
const CSRF_COOKIE_AGE_SECONDS = 365 * 24 * 3600;
/** Zulip's public help center (see the /help redirect). */
const ZULIP_HELP_CENTER = 'https://zulip.com/help';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'fastify' {
  interface FastifyRequest {
    /** The raw body of an application/json request (only the login endpoint reads it). */
    jsonBody?: Buffer;
    /** The web session of this request, once resolved (undefined: not looked up yet). */
    webSession?: ActiveSession | null;
  }
}

/** Zulip's CsrfFailureError: 403 CSRF_FAILED, "CSRF error: <Django's reason>", with `reason`. */
export function csrfFailed(reason: string): ApiError {
  return new ApiError(`CSRF error: ${reason}`, { code: 'CSRF_FAILED', status: 403, extra: { reason } });
}

/** Zulip's answer to a /json request without a valid session. */
export function sessionRequired(): ApiError {
  const err = unauthorized();
  err.headers['WWW-Authenticate'] = 'Session realm="zulip"';
  return err;
}

function sameToken(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

export function isStateChanging(req: FastifyRequest): boolean {
  return !SAFE_METHODS.has(req.method);
}

/** The live session of the request's `sessionid` cookie (looked up once per request). */
export async function requestSession(svc: Services, req: FastifyRequest): Promise<ActiveSession | null> {
  if (req.webSession === undefined) req.webSession = await resolveSession(svc, req.cookies?.[SESSION_COOKIE]);
  return req.webSession;
}

const origins = new Map<string, string | null>();
function externalOrigin(externalUrl: string): string | null {
  let o = origins.get(externalUrl);
  if (o === undefined) {
    try {
      o = new URL(externalUrl).origin;
    } catch {
      o = null;
    }
    origins.set(externalUrl, o);
  }
  return o;
}

/**
 * Whether a browser's Origin header names this server: EXTERNAL_URL's origin,
 * or the Host the request was sent to (over http or https, since a proxy may
 * terminate TLS).
 */
function trustedOrigin(svc: Services, req: FastifyRequest, origin: string): boolean {
  if (origin === externalOrigin(svc.config.externalUrl)) return true;
  const host = req.headers.host;
  return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
}

/** A browser's Origin header, when sent, must be this server (Django's first CSRF check). */
export function checkOrigin(svc: Services, req: FastifyRequest): void {
  const origin = req.headers.origin;
  if (typeof origin === 'string' && !trustedOrigin(svc, req, origin)) {
    throw csrfFailed(`Origin checking failed - ${origin} does not match any trusted origins.`);
  }
}

/**
 * CSRF check for a state-changing request (Django's order): a browser's
 * Origin header, when sent, must be this server; the X-CSRFToken header must
 * equal the csrftoken cookie, and, with a session, the session's token.
 */
export function checkCsrf(svc: Services, req: FastifyRequest, session: ActiveSession | null): void {
  checkOrigin(svc, req);
  const cookie = req.cookies?.[CSRF_COOKIE];
  if (!cookie) throw csrfFailed('CSRF cookie not set.');
  const header = req.headers[CSRF_HEADER];
  if (typeof header !== 'string' || header === '') throw csrfFailed('CSRF token missing.');
  if (!sameToken(header, cookie) || (session && !sameToken(cookie, session.csrfToken))) {
    throw csrfFailed("CSRF token from the 'X-Csrftoken' HTTP header incorrect.");
  }
}

/**
 * Session authentication for /json routes and file serving: the CSRF check
 * for state-changing requests (before authentication, as Django's middleware
 * does), then the session's user; `required` answers 401 without one.
 */
export async function authenticateSession(
  svc: Services,
  req: FastifyRequest,
  opts: { required: boolean; csrf: boolean },
): Promise<ActiveSession | null> {
  const session = await requestSession(svc, req);
  if (opts.csrf && isStateChanging(req)) checkCsrf(svc, req, session);
  if (!session && opts.required) throw sessionRequired();
  return session;
}

export function registerWeb(app: FastifyInstance, svc: Services): void {
  const secure = svc.config.externalUrl.startsWith('https:');
  const distDir = svc.config.webDistDir;
  const indexPath = join(distDir, 'index.html');

  app.register(fastifyCookie);
  app.register(fastifyStatic, {
    root: distDir,
    prefix: STATIC_PREFIX,
    index: false,
    list: false,
    dotfiles: 'ignore',
    cacheControl: false,
    suppressWarning: true,
    setHeaders: (res, path) => {
      const rel = path.slice(distDir.length).replace(/\\/g, '/');
      // Vite puts content-hashed files under assets/: they never change.
      res.header('Cache-Control', rel.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      res.header('X-Content-Type-Options', 'nosniff');
    },
  });
  // The login endpoint accepts a JSON body too; other routes ignore JSON bodies.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    req.jsonBody = body as Buffer;
    done(null, {});
  });

  const setCsrfCookie = (reply: FastifyReply, token: string): void => {
    reply.setCookie(CSRF_COOKIE, token, { path: '/', sameSite: 'lax', secure, maxAge: CSRF_COOKIE_AGE_SECONDS });
  };
  /** Gives the browser a csrftoken cookie (the session's, with a session) when it has none or a stale one. */
  const ensureCsrfCookie = (req: FastifyRequest, reply: FastifyReply, session: ActiveSession | null): void => {
    const current = req.cookies[CSRF_COOKIE];
    if (session) {
      if (current !== session.csrfToken) setCsrfCookie(reply, session.csrfToken);
    } else if (!current) setCsrfCookie(reply, newCsrfToken());
  };

  const sendPage = async (reply: FastifyReply): Promise<void> => {
    let html: Buffer;
    try {
      html = await readFile(indexPath);
    } catch {
      reply
        .code(503)
        .header('Content-Type', 'text/html; charset=utf-8')
        .header('Cache-Control', 'no-store')
        .send(notBuiltPage(indexPath));
      return;
    }
    reply
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Cache-Control', 'no-cache')
      .header('X-Content-Type-Options', 'nosniff')
      .header('X-Frame-Options', 'DENY')
      .header('Referrer-Policy', 'same-origin')
      .send(html);
  };

  app.get('/', async (req, reply) => {
    const session = await requestSession(svc, req);
    ensureCsrfCookie(req, reply, session);
    // Logged-out visitors get the app where the organization allows spectators (as Zulip's web_public_view), else the login page.
    if (!session && !(await spectatorAccessEnabled(svc))) return reply.redirect(LOGIN_PATH, 302);
    await sendPage(reply);
  });

  app.get(LOGIN_PATH, async (req, reply) => {
    const session = await requestSession(svc, req);
    ensureCsrfCookie(req, reply, session);
    if (session) return reply.redirect('/', 302);
    await sendPage(reply);
  });

  // Zulip's login form address; the client's is /login/.
  app.get('/accounts/login/', async (_req, reply) => reply.redirect(LOGIN_PATH, 302));

  // Zulip's help center, which Welcome Bot's greeting links to on the
  // organization's own server, as Zulip's does: Parley has none of its own,
  // so the same article on Zulip's public help center.
  const helpCenter = async (req: FastifyRequest, reply: FastifyReply) => reply.redirect(`${ZULIP_HELP_CENTER}${req.url.slice('/help'.length).replace(/^\/+/, '/') || '/'}`, 302);
  app.get('/help', helpCenter);
  app.get('/help/*', helpCenter);

  app.post('/accounts/login/', async (req, reply) => {
    const session = await requestSession(svc, req);
    checkCsrf(svc, req, session);
    const fields = loginFields(req);
    const username = fields.get('username');
    if (username === undefined) throw missingArgument('username');
    const password = fields.get('password');
    if (password === undefined) throw missingArgument('password');
    const created = await loginWithPassword(svc, username, password, req.cookies[SESSION_COOKIE]).catch((err: unknown) => {
      // A Basic challenge on this 401 would make the browser open its own
      // password dialog over the login page (and stall the page's request).
      if (err instanceof ApiError) delete err.headers['WWW-Authenticate'];
      throw err;
    });
    reply.setCookie(SESSION_COOKIE, created.sessionId, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure,
      maxAge: Math.floor((created.expires - Date.now()) / 1000),
      expires: new Date(created.expires),
    });
    setCsrfCookie(reply, created.csrfToken);
    reply.header('Cache-Control', 'no-store').send({ result: 'success', msg: '' });
  });

  app.post('/accounts/logout/', async (req, reply) => {
    const session = await requestSession(svc, req);
    checkCsrf(svc, req, session);
    await logout(svc, req.cookies[SESSION_COOKIE]);
    reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure });
    // A fresh anonymous token, so the login form works again without a reload.
    setCsrfCookie(reply, newCsrfToken());
    reply.header('Cache-Control', 'no-store').send({ result: 'success', msg: '' });
  });
}

/** Parameters of the login request: query string, then a form-encoded, multipart or JSON body. */
function loginFields(req: FastifyRequest): Map<string, string> {
  const fields = parseForm((req.query as { __raw?: string }).__raw ?? '');
  if (req.formFields) for (const [k, v] of req.formFields) fields.set(k, v);
  if (req.jsonBody) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(req.jsonBody.toString('utf8'));
    } catch {
      throw new ApiError('Malformed JSON');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ApiError('Malformed JSON');
    for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') fields.set(k, v);
  }
  return fields;
}

function notBuiltPage(indexPath: string): string {
  return (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Web client not built</title>' +
    '<style>body{font-family:system-ui,sans-serif;max-width:560px;margin:48px auto;color:#222}code{background:#eee;padding:1px 4px}</style>' +
    '</head><body><h1>The web client is not built</h1>' +
    `<p>Parley could not find <code>${escapeHtml(indexPath)}</code>.</p>` +
    '<p>It is built by <code>npm ci</code> and by <code>npm start</code>: run one of them in the Parley directory ' +
    '(or point <code>WEB_DIST_DIR</code> at a built copy), then reload this page. ' +
    'The API at <code>/api/v1/</code> works without it.</p></body></html>'
  );
}
