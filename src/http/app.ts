/**
 * The HTTP server: Fastify with Zulip's conventions. All API routes live
 * under /api/v1 (HTTP Basic auth) and again under /json (the web client's
 * session cookie, with CSRF checks; see web.ts); parameters come from the query string and form-encoded (or
 * multipart) bodies; every response is the JSON envelope; errors carry
 * `code` and their HTTP status; unknown paths are JSON 404 and wrong methods
 * JSON 405.
 */
import type { RunningHandlers } from './running.ts';
import { STATUS_CODES } from '../lib/node-http.ts';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';
import { ApiError } from '../lib/errors.ts';
import { HAS_JSON_TEXT, serializeAnswer } from '../lib/json-text.ts';
import { parseParams } from './params.ts';
import { authenticate, clientName, countApiRequest, makeAuthLimits } from './auth.ts';
import { decodeUtf8, parseForm } from './form.ts';
import { parseMultipart, type UploadedFile } from './multipart.ts';
import type { Method, RequestContext, RouteDef } from './route.ts';
import type { UserRow } from '../store/users.ts';
import { codeToNames } from '../emoji/index.ts';
import { registerUploadServing } from './uploads.ts';
import { registerTus } from './tus.ts';
import { registerAvatarServing } from './avatars.ts';
import { registerExportServing } from './exports.ts';
import { registerEmailChangeRoutes, registerJoinRoutes, registerOpenSignupRoutes, registerPasswordResetRoutes, registerSignupRoutes } from './signup.ts';
import { authenticateSession, registerWeb } from './web.ts';
import { registerOps, UNMATCHED_ROUTE } from './ops.ts';
import { EMOJI_DATA_PATH, LOGO_PATH, UNKNOWN_USER_AVATAR_PATH, ZULIP_EMOJI_PATH } from '../lib/static-paths.ts';
import { squarePng } from '../lib/images.ts';
import { registerIncomingWebhooks, WEBHOOK_PATH_PREFIX } from './webhooks.ts';
import { registerUnsubscribe } from './unsubscribe.ts';
import { deferredSchemaCompilers } from './schema-compilers.ts';
import { changesAnnounced, refreshKept } from '../actions/cache.ts';

export const API_PREFIX = '/api/v1';
/** The web client's copy of every API route, authenticated by the session cookie. */
export const JSON_PREFIX = '/json';
/** A plain grey 64x64 PNG. */
const UNKNOWN_USER_AVATAR_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAEAAAABACAIAAAAlC+aJAAAATElEQVR42u3PMQ0AAAwDoPpXVlmVsHsJOCB9LgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIClwE1q4IsRYcZLAAAAABJRU5ErkJggg==';
const DEFAULT_LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#3b6ea5"/>' +
  '<path d="M14 18h36a4 4 0 0 1 4 4v18a4 4 0 0 1-4 4H30l-10 8v-8h-6a4 4 0 0 1-4-4V22a4 4 0 0 1 4-4z" fill="#fff"/></svg>';
const METHODS: Method[] = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];
/** Largest form-encoded (or otherwise non-multipart) body; multipart bodies are bounded by the upload size. */
export const FORM_BODY_LIMIT = 5 * 1024 * 1024;

/** Zulip's error envelope for errors that are not ApiErrors (the framework's own, and real 500s). */
export function errorEnvelope(status: number, msg: string): Record<string, unknown> {
  return status >= 500
    ? { result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' }
    : { result: 'error', msg, code: 'BAD_REQUEST' };
}

/** Messages for the framework's own client errors (never its internal wording). */
function frameworkMessage(err: { code?: string; message: string }, status: number): string {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body too large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'Unsupported request body';
    case 'FST_ERR_BAD_URL':
      return 'Malformed URL: invalid percent-encoding';
    default:
      return STATUS_CODES[status] ?? 'Bad request';
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Form fields of the body (decoded), when the body is form-encoded or multipart. */
    formFields?: Map<string, string>;
    /** Files of a multipart body. */
    files?: UploadedFile[];
    /** The body as received, for form-encoded and other non-multipart bodies (incoming webhooks read it). */
    rawBody?: Buffer;
  }
}

export interface AppOptions {
  /** Extra route modules (each a list of route declarations). */
  routes: RouteDef[];
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** Set `closing` when shutting down: responses then close their connection. */
  lifecycle?: { closing: boolean };
  /** Counts the running route handlers, for the server's close to wait for. */
  running?: RunningHandlers;
}

type Mode = 'api' | 'json';

function toRouterPath(path: string, mode: Mode): string {
  return (mode === 'api' ? API_PREFIX : JSON_PREFIX) + path;
}

const NOT_FOUND = Object.freeze({ result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });

function methodNotAllowed(reply: FastifyReply, allowed: readonly Method[]): void {
  reply.code(405).header('Allow', allowed.join(', ')).send({ result: 'error', msg: 'Method Not Allowed', allowed_methods: allowed });
}

/** A segment of a route's URL as the router ranks it: fixed, a parameter with a pattern, any parameter, the wildcard. */
interface Segment {
  rank: 3 | 2 | 1 | 0;
  text: string;
  re?: RegExp;
}

function routeSegments(template: string): Segment[] {
  return template.split('/').map((text): Segment => {
    if (text === '*') return { rank: 0, text };
    const param = /^:[A-Za-z_]\w*(?:\((.*)\))?$/.exec(text);
    if (!param) return { rank: 3, text };
    return param[1] ? { rank: 2, text, re: new RegExp(param[1]) } : { rank: 1, text };
  });
}

function segmentMatches(s: Segment, value: string): boolean {
  return s.rank === 3 ? s.text === value : s.rank === 2 ? s.re!.test(value) : true;
}

/** Whether some URL could match both routes. */
function overlap(a: Segment[], b: Segment[]): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.rank === 0 || y.rank === 0) return true;
    if (x.rank === 3 && !segmentMatches(y, x.text)) return false;
    if (y.rank === 3 && !segmentMatches(x, y.text)) return false;
  }
  return a.length === b.length;
}

/**
 * The declared paths of one prefix: which methods each lacks that another
 * route could take (`shadowed`), and, for the catch-all, the path a URL
 * matches (of several, the router's choice: segment by segment, a fixed
 * segment before a parameter with a pattern, before any parameter, before
 * the wildcard).
 */
function knownPaths(methodsByPath: Map<string, Set<Method>>, mode: Mode) {
  const entries = [...methodsByPath].map(([path, methods]) => {
    const template = toRouterPath(path, mode);
    return { template, methods: [...methods], segments: routeSegments(template), shadowed: [] as Method[] };
  });
  for (const e of entries) {
    const others = new Set<Method>();
    for (const o of entries) if (o !== e && overlap(e.segments, o.segments)) for (const m of o.methods) others.add(m);
    e.shadowed = METHODS.filter((m) => others.has(m) && !e.methods.includes(m));
  }
  const matches = (segments: Segment[], parts: string[]): boolean => {
    for (let i = 0; i < segments.length; i++) {
      if (i >= parts.length) return false;
      if (segments[i]!.rank === 0) return true;
      if (!segmentMatches(segments[i]!, parts[i]!)) return false;
    }
    return segments.length === parts.length;
  };
  const before = (a: Segment[], b: Segment[]): boolean => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i]!.rank !== b[i]!.rank) return a[i]!.rank > b[i]!.rank;
    return a.length > b.length;
  };
  return {
    entries,
    find(path: string): { template: string; methods: Method[] } | undefined {
      // Segments decoded as the router decodes them (a malformed escape stays as it is);
      // a trailing slash ignored, as the router ignores it.
      const parts = (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).split('/').map((p) => {
        try {
          return decodeURIComponent(p);
        } catch {
          return p;
        }
      });
      let best: (typeof entries)[number] | undefined;
      for (const e of entries) if (matches(e.segments, parts) && (!best || before(e.segments, best.segments))) best = e;
      return best;
    },
  };
}

/** TRUST_PROXY as Fastify takes it: true, addresses/CIDRs (comma-separated), or a number of hops. */
function trustProxyOption(v: boolean | number | string | undefined): boolean | string | ((addr: string, hop: number) => boolean) {
  if (typeof v === 'number') return (_addr, hop) => hop < v;
  return v ?? false;
}

export function buildApp(svc: Services, opts: AppOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: svc.log,
    bodyLimit: opts.bodyLimit,
    // Behind a reverse proxy, the client address (rate limits, access log) comes from X-Forwarded-For.
    trustProxy: trustProxyOption(svc.config.trustProxy),
    logController: new LogController({ disableRequestLogging: true }),
    // A request's logger is the server's: with request logging off, a per-request
    // child (Fastify's default, bound to a request ID no other line carries) was
    // built for every request only for the rare error line.
    childLoggerFactory: (logger) => logger,
    return503OnClosing: true,
    // Ajv and fast-json-stringify are loaded only if a route ever has a schema (none has).
    schemaController: { compilersFactory: deferredSchemaCompilers },
    // Errors the router raises before any route runs (malformed percent-encoding in the path).
    frameworkErrors: (err: Error & { code?: string }, _req: FastifyRequest, reply: FastifyReply) => {
      reply.code(400).send(errorEnvelope(400, frameworkMessage(err, 400)));
    },
    // Errors of the HTTP parser itself (headers or URL over Node's 16 KiB limit, garbage requests).
    clientErrorHandler: (err: Error & { code?: string }, socket) => {
      if (err.code === 'ECONNRESET' || !socket.writable) {
        socket.destroy();
        return;
      }
      const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
      const body = JSON.stringify(errorEnvelope(status, STATUS_CODES[status] ?? 'Bad Request'));
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    },
    routerOptions: {
      ignoreTrailingSlash: true,
      maxParamLength: 500,
      // Query strings are decoded by parseForm (strict UTF-8), not the router.
      querystringParser: (s: string) => ({ __raw: s }),
    },
  });
  opts.running?.install(app);
  const limits = makeAuthLimits(svc);
  const lifecycle = opts.lifecycle;

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer', bodyLimit: FORM_BODY_LIMIT }, (req, body, done) => {
    req.rawBody = body as Buffer;
    try {
      req.formFields = parseForm(decodeUtf8(body as Buffer));
      done(null, {});
    } catch (e) {
      // Third parties post JSON documents with this content type to incoming webhooks, which read the raw body.
      if (req.url.startsWith(WEBHOOK_PATH_PREFIX)) done(null, {});
      else done(e as Error, undefined);
    }
  });
  app.addContentTypeParser('multipart/form-data', (req, payload, done) => {
    parseMultipart(req.headers, payload, svc.config.maxFileUploadSizeMib * 1024 * 1024).then(
      ({ fields, files }) => {
        req.formFields = fields;
        req.files = files;
        done(null, {});
      },
      (e: Error) => done(e, undefined),
    );
  });
  // Other body types carry no parameters; they are kept only for incoming webhooks.
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: FORM_BODY_LIMIT }, (req, body, done) => {
    if (req.url.startsWith(WEBHOOK_PATH_PREFIX)) req.rawBody = body as Buffer;
    done(null, {});
  });

  // Errors answered in another service's form (the Slack-compatible webhook's), which keep it.
  const foreignErrorBodies = new WeakSet<FastifyReply>();
  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    if (err instanceof ApiError) {
      const body = err.body();
      if (!('result' in body)) foreignErrorBodies.add(reply);
      reply.code(err.status).headers(err.headers).send(body);
      return;
    }
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    // The route's template, not the URL (whose query string can hold credentials).
    if (status === 500) req.log.error({ err, method: req.method, route: req.routeOptions.url }, 'unhandled error');
    reply.code(status).send(errorEnvelope(status, frameworkMessage(err, status)));
  });

  // One synchronous hook for every response (each hook costs every request something):
  // - while shutting down, answered requests (e.g. long-polls released by the queue
  //   manager) close their keep-alive connection so the process can exit;
  // - whatever the framework answers on its own (e.g. 503 while closing) still
  //   gets Zulip's envelope: error bodies without `result` are rewritten.
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (lifecycle?.closing) reply.header('Connection', 'close');
    if (reply.statusCode < 400 || typeof payload !== 'string' || payload.includes('"result"') || foreignErrorBodies.has(reply)) return done();
    if (!String(reply.getHeader('content-type') ?? '').includes('json')) return done();
    done(null, JSON.stringify(errorEnvelope(reply.statusCode, STATUS_CODES[reply.statusCode] ?? 'Error')));
  });

  // Several processes (REDIS_URL): a request first takes in what the others
  // have changed, so that what is kept in memory is current (actions/cache.ts).
  if (svc.redis) {
    app.addHook('onRequest', (_req, _reply, done) => {
      refreshKept(svc).then(() => done(), done);
    });
  }

  app.setNotFoundHandler((_req, reply) => {
    reply.code(404).send(NOT_FOUND);
  });

  // The emoji data document clients download (server_emoji_data_url in /register).
  const emojiData = JSON.stringify({ code_to_names: codeToNames() });
  app.get(EMOJI_DATA_PATH, async (_req, reply) => {
    reply.header('Content-Type', 'application/json; charset=utf-8').header('Cache-Control', 'public, max-age=86400').send(emojiData);
  });

  // The default organization logo (realm_logo_url when none is uploaded).
  app.get(LOGO_PATH, async (_req, reply) => {
    reply.header('Content-Type', 'image/svg+xml').header('Cache-Control', 'public, max-age=86400').send(DEFAULT_LOGO_SVG);
  });

  // The :zulip: emoji's image: Parley's logo, made into a PNG on first use.
  let zulipEmoji: Promise<Buffer> | null = null;
  app.get(ZULIP_EMOJI_PATH, async (_req, reply) => {
    // A failed conversion is not kept: the next request tries again.
    zulipEmoji ??= squarePng(Buffer.from(DEFAULT_LOGO_SVG), 64).catch((err: unknown) => {
      zulipEmoji = null;
      throw err;
    });
    reply.header('Content-Type', 'image/png').header('Cache-Control', 'public, max-age=86400').send(await zulipEmoji);
  });

  // The picture of users a restricted guest may not access (avatar_url of "Unknown user").
  const unknownUserAvatar = Buffer.from(UNKNOWN_USER_AVATAR_PNG, 'base64');
  app.get(UNKNOWN_USER_AVATAR_PATH, async (_req, reply) => {
    reply.header('Content-Type', 'image/png').header('Cache-Control', 'public, max-age=86400').send(unknownUserAvatar);
  });

  // GET /health, the access log and request metrics.
  registerOps(app, svc);

  // The web client: its files, pages, login and logout (and cookie parsing).
  registerWeb(app, svc);
  // Uploaded files (/user_uploads/..., and the API's temporary-URL variant).
  registerUploadServing(app, svc, limits);
  // Resumable uploads (tus) at /api/v1/tus.
  registerTus(app, svc, limits);
  registerAvatarServing(app, svc);
  registerExportServing(app, svc, limits);
  registerSignupRoutes(app, svc);
  registerJoinRoutes(app, svc);
  registerOpenSignupRoutes(app, svc);
  registerEmailChangeRoutes(app, svc);
  registerPasswordResetRoutes(app, svc);
  // Incoming webhooks (/api/v1/external/<integration>).
  registerIncomingWebhooks(app, svc, limits);
  // Email unsubscribe links (no login needed).
  registerUnsubscribe(app, svc);

  // Every route twice from its one declaration: /api/v1 (HTTP Basic) and /json (session).
  for (const mode of ['api', 'json'] as const) {
    const methodsByPath = new Map<string, Set<Method>>();
    for (const def of opts.routes) {
      if (mode === 'json' && def.noSessionMirror) continue;
      if (mode === 'api' && def.sessionOnly) continue;
      let set = methodsByPath.get(def.path);
      if (!set) methodsByPath.set(def.path, (set = new Set()));
      if (set.has(def.method)) throw new Error(`duplicate route ${def.method} ${def.path}`);
      set.add(def.method);
      app.route({
        method: def.method,
        url: toRouterPath(def.path, mode),
        handler: async (req, reply) => {
          // The request's events are in their queues before it is answered.
          const result = await svc.bus.duringRequest(() => handle(svc, limits, def, req, reply, mode));
          // Several processes: the answer goes out once its writes are announced to the others
          // (a transaction's are already; a single statement's is announced after it).
          if (svc.redis) await changesAnnounced(svc);
          // Answers with pieces serialized beforehand (see lib/json-text.ts) are written out here.
          if ((result as { [HAS_JSON_TEXT]?: boolean })[HAS_JSON_TEXT]) reply.type('application/json; charset=utf-8').send(serializeAnswer(result));
          else reply.send(result);
        },
      });
    }
    // A path that exists answers its other methods with 405 and the methods it
    // has. A route for each path and missing method (some 700) took the router
    // about 80 ms of every start, so one catch-all route per prefix decides
    // from the declared paths. A missing method keeps a route of its own only
    // where another path's route with that method could match the same URL:
    // /users/me has no PATCH, but PATCH /users/{email} would match
    // /users/me, and the router would pick it over the catch-all.
    const known = knownPaths(methodsByPath, mode);
    for (const { template, methods, shadowed } of known.entries) {
      if (shadowed.length) app.route({ method: shadowed, url: template, handler: async (_req, reply) => methodNotAllowed(reply, methods) });
    }
    app.route({
      method: METHODS,
      url: `${mode === 'api' ? API_PREFIX : JSON_PREFIX}/*`,
      handler: async (req, reply) => {
        const found = known.find(req.url.split('?', 1)[0]!);
        // (A URL the router did not match though a path with this method does is no wrong method.)
        if (!found || found.methods.includes(req.method as Method)) {
          req.routeLabel = UNMATCHED_ROUTE;
          return reply.code(404).send(NOT_FOUND);
        }
        req.routeLabel = found.template;
        methodNotAllowed(reply, found.methods);
      },
    });
  }
  return app;
}

/**
 * Runs one declared route: fields, authentication (HTTP Basic under /api/v1;
 * under /json the CSRF check and the session), rate limit, parameters,
 * handler, envelope.
 */
async function handle(
  svc: Services,
  limits: ReturnType<typeof makeAuthLimits>,
  def: RouteDef,
  req: FastifyRequest,
  reply: FastifyReply,
  mode: Mode,
): Promise<Record<string, unknown>> {
  const fields = parseForm((req.query as { __raw?: string }).__raw ?? '');
  if (req.formFields) for (const [k, val] of req.formFields) fields.set(k, val);

  let user: UserRow | null = null;
  let sessionIdHash: string | undefined;
  if (mode === 'json') {
    const session = await authenticateSession(svc, req, { required: def.auth === 'user', csrf: true });
    if (session && def.auth !== 'none') {
      user = session.user;
      sessionIdHash = session.idHash;
    }
  } else if (def.auth !== 'none') {
    user = await authenticate(svc, limits, req, def.auth === 'user' || def.auth === 'web-optional', { allowIncomingWebhooks: def.allowIncomingWebhooks });
  }
  if (user) req.userId = user.id;
  if (user && !def.noRateLimit) await countApiRequest(limits, user.id, reply);
  if (user?.is_bot && def.humanOnly) throw new ApiError('This endpoint does not accept bot requests.');
  const { values, unknown } = parseParams(def.params, fields, req.params as Record<string, string>, def.pathParams);
  const ctx: RequestContext = {
    svc,
    user: user as UserRow,
    maybeUser: user,
    // Zulip records session requests of its web app as the "website" client.
    clientName: mode === 'json' && !fields.has('client') ? 'website' : clientName(req, fields),
    sessionIdHash,
    req,
  };
  let data: Record<string, unknown>;
  try {
    data = (await def.handler(ctx, values as never)) ?? {};
  } catch (err) {
    // A logged-out visitor refused under /json is asked for a session, as Zulip asks (not for HTTP Basic).
    if (mode === 'json' && !user && err instanceof ApiError && err.status === 401) err.headers['WWW-Authenticate'] = 'Session realm="zulip"';
    throw err;
  }
  const ignored = unknown.filter((k) => k !== 'client' && !(req.files ?? []).some((f) => f.field === k));
  const body: Record<string, unknown> = { result: 'success', msg: '', ...data };
  if (ignored.length) body.ignored_parameters_unsupported = ignored;
  return body;
}
