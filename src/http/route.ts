/**
 * Route declarations. Each endpoint is one `route({...})` value: method, path,
 * who may call it, its parameters (see params.ts) and a handler that calls an
 * action and returns the success payload. The HTTP wiring is in app.ts.
 */
import type { FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';
import type { ParamSpec, ParsedParams } from './params.ts';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface RequestContext {
  svc: Services;
  /** The authenticated caller (routes with auth 'user'). */
  user: UserRow;
  /** The caller when authentication is optional (null for anonymous). */
  maybeUser: UserRow | null;
  /** Client name (from the `client` parameter or the User-Agent), as Zulip records it. */
  clientName: string;
  /** Hash of the web session id when the request came through /json with a session cookie. */
  sessionIdHash?: string;
  req: FastifyRequest;
}

export interface RouteDef<S extends ParamSpec = ParamSpec, PS extends ParamSpec = ParamSpec> {
  method: Method;
  /** Path under /api/v1 (and /json), in router syntax (`/users/:user_id`); a regex may follow a name. */
  path: string;
  /**
   * 'user': HTTP Basic (under /json: the session) required; 'none': public;
   * 'optional': the caller if credentials are given; 'web-optional': under
   * /json the session's user or none (a spectator), under /api/v1 required
   * (Zulip's allow_anonymous_user_web).
   */
  auth: 'user' | 'none' | 'optional' | 'web-optional';
  summary: string;
  pathParams?: PS;
  params: S;
  /** Not mirrored under /json (the session-authenticated copy every other route gets). */
  noSessionMirror?: boolean;
  /** Only under /json, for the logged-in web client (Zulip's json_* views); not under /api/v1. */
  sessionOnly?: boolean;
  /** Skip the per-user API rate limit (long-polls). */
  noRateLimit?: boolean;
  /** Incoming-webhook bots may call it (Zulip: only sending messages); others are refused. */
  allowIncomingWebhooks?: boolean;
  /** Bots are refused (Zulip's human_users_only). */
  humanOnly?: boolean;
  handler: (
    ctx: RequestContext,
    args: ParsedParams<S> & ParsedParams<PS>,
  ) => Promise<Record<string, unknown> | void> | Record<string, unknown> | void;
}

/** Declares a route; the generic signature keeps handler args typed. */
export function route<S extends ParamSpec, PS extends ParamSpec = Record<string, never>>(
  def: RouteDef<S, PS>,
): RouteDef {
  return def as unknown as RouteDef;
}
