/**
 * The browser's only way to the server: Zulip's /json mirror of /api/v1,
 * authenticated by the session cookie. Every request that changes state
 * carries the CSRF token read from the `csrftoken` cookie at that moment.
 * Parameters are encoded as Zulip expects: strings raw, everything else JSON.
 */

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly body: Record<string, unknown>;
  readonly retryAfter: number | null;
  constructor(status: number, body: Record<string, unknown>, retryAfter: number | null) {
    super(typeof body.msg === 'string' && body.msg ? body.msg : `Request failed (HTTP ${status})`);
    this.status = status;
    this.code = typeof body.code === 'string' ? body.code : 'BAD_REQUEST';
    this.body = body;
    this.retryAfter = retryAfter;
  }
}

/** Network failure (server down, connection reset): worth retrying. */
export class NetworkError extends Error {}

export type Params = Record<string, unknown>;

export function csrfToken(): string {
  const m = /(?:^|;\s*)csrftoken=([^;]*)/.exec(document.cookie);
  return m ? decodeURIComponent(m[1]!) : '';
}

/** What to show for a request that failed: the server's message, or that it could not be reached. */
export function failureText(err: unknown): string {
  return err instanceof ApiError ? err.message : 'The server could not be reached.';
}

export function encodeParams(params: Params): URLSearchParams {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    sp.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  }
  return sp;
}

let leaving = false;
/**
 * Goes to the login page, once: as a session ends (logging out,
 * deactivating one's account) the requests still under way fail with 401
 * too, and each going again would cut the first navigation short.
 */
export function goToLogin(keepPlace = false): void {
  if (leaving) return;
  leaving = true;
  // (A session that ended under the user: logged in again, the app opens where it was. Not one the user ends.)
  location.assign(keepPlace && !ending ? `/login/${location.hash}` : '/login/');
}

let ending = false;
/**
 * The user is ending the session (logging out, deactivating their account),
 * or gave up doing so (`false`): the requests that fail with 401 meanwhile
 * lead to the plain login page, not back where the user was.
 */
export function endingSession(on: boolean): void {
  ending = on;
}

async function send(method: string, url: string, body: BodyInit | null, extraHeaders: Record<string, string>, signal?: AbortSignal, redirectOn401 = true): Promise<Record<string, any>> {
  const headers: Record<string, string> = { ...extraHeaders };
  if (method !== 'GET' && method !== 'HEAD') headers['X-CSRFToken'] = csrfToken();
  let res: Response;
  try {
    res = await fetch(url, { method, body, headers, credentials: 'same-origin', signal });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new NetworkError((err as Error).message || 'Network error');
  }
  let data: Record<string, any> = {};
  const text = await res.text().catch(() => '');
  try {
    data = text ? (JSON.parse(text) as Record<string, any>) : {};
  } catch {
    // A proxy's HTML error page, or a server that is restarting.
    if (res.status >= 500 || res.status === 0) throw new NetworkError(`HTTP ${res.status}`);
    data = { result: 'error', msg: `Unexpected response (HTTP ${res.status})` };
  }
  if (res.status === 401 && redirectOn401) {
    goToLogin(true);
    throw new ApiError(401, data, null);
  }
  if (res.status >= 502 && res.status <= 504) throw new NetworkError(`HTTP ${res.status}`);
  if (!res.ok || data.result !== 'success') {
    const ra = res.headers.get('Retry-After');
    throw new ApiError(res.status, data, ra ? Number(ra) : null);
  }
  return data;
}

export function api(method: string, path: string, params: Params = {}, opts: { signal?: AbortSignal } = {}): Promise<Record<string, any>> {
  const body = encodeParams(params);
  if (method === 'GET' || method === 'DELETE') {
    const qs = body.toString();
    return send(method, `/json${path}${qs ? `?${qs}` : ''}`, null, {}, opts.signal);
  }
  return send(method, `/json${path}`, body, { 'Content-Type': 'application/x-www-form-urlencoded' }, opts.signal);
}

/** A file as multipart form data, to an endpoint that takes one (a custom emoji, an icon). */
export function upload(file: File, path: string): Promise<Record<string, any>> {
  return apiWithFile('POST', path, {}, file);
}

/** A request whose parameters go as multipart form data with a file (a bot's avatar with its other changes). */
export function apiWithFile(method: string, path: string, params: Params, file: File): Promise<Record<string, any>> {
  const fd = new FormData();
  for (const [k, v] of encodeParams(params)) fd.append(k, v);
  fd.append('file', file, file.name);
  return send(method, `/json${path}`, fd, {});
}

/** Login and logout live outside /json, as in Zulip's web app. */
export async function login(username: string, password: string): Promise<void> {
  await send('POST', '/accounts/login/', encodeParams({ username, password }), {
    'Content-Type': 'application/x-www-form-urlencoded',
  }, undefined, false);
}

export async function logout(): Promise<void> {
  try {
    await send('POST', '/accounts/logout/', encodeParams({}), { 'Content-Type': 'application/x-www-form-urlencoded' }, undefined, false);
  } catch {
    // Whatever happened, the login page is where we go next.
  }
}
