/**
 * Errors that become Zulip-style JSON error responses.
 *
 * Every error carries a Zulip error `code`, an HTTP status and optional extra
 * fields that are merged into the response body (e.g. `var_name`, `stream_id`).
 * Actions throw these; the HTTP layer serializes them. Nothing here knows HTTP
 * beyond the status number.
 */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    msg: string,
    opts: { code?: string; status?: number; extra?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(msg);
    this.code = opts.code ?? 'BAD_REQUEST';
    this.status = opts.status ?? 400;
    this.extra = opts.extra ?? {};
    this.headers = opts.headers ?? {};
  }

  body(): Record<string, unknown> {
    return { result: 'error', msg: this.message, code: this.code, ...this.extra };
  }
}

/** A plain 400 BAD_REQUEST with Zulip's message text. */
export function badRequest(msg: string, extra?: Record<string, unknown>): ApiError {
  return new ApiError(msg, { extra });
}

export function missingArgument(name: string): ApiError {
  return new ApiError(`Missing '${name}' argument`, {
    code: 'REQUEST_VARIABLE_MISSING',
    extra: { var_name: name },
  });
}

/** A parameter sent under two of its names (Zulip's RequestConfusingParamsError). */
export function confusingArguments(name1: string, name2: string): ApiError {
  return new ApiError(`Can't decide between '${name1}' and '${name2}' arguments`, {
    code: 'REQUEST_CONFUSING_VAR',
    extra: { var_name1: name1, var_name2: name2 },
  });
}

export function unauthorized(msg = 'Not logged in: API authentication or user session required'): ApiError {
  return new ApiError(msg, {
    code: 'UNAUTHORIZED',
    status: 401,
    headers: { 'WWW-Authenticate': 'Basic realm="zulip"' },
  });
}

export function authError(code: string, msg: string): ApiError {
  return new ApiError(msg, { code, status: 401, headers: { 'WWW-Authenticate': 'Basic realm="zulip"' } });
}

export function unauthorizedPrincipal(msg: string): ApiError {
  return new ApiError(msg, { code: 'UNAUTHORIZED_PRINCIPAL' });
}

export const requireAdmin = (): ApiError => unauthorizedPrincipal('Must be an organization administrator');
export const requireOwner = (): ApiError => unauthorizedPrincipal('Must be an organization owner');
export const requireMember = (): ApiError => unauthorizedPrincipal('Must be an organization member');

export function rateLimited(retryAfterSeconds: number, headers: Record<string, string> = {}): ApiError {
  return new ApiError('API usage exceeded rate limit', {
    code: 'RATE_LIMIT_HIT',
    status: 429,
    extra: { 'retry-after': retryAfterSeconds },
    headers: { ...headers, 'Retry-After': String(Math.ceil(retryAfterSeconds)) },
  });
}
