/**
 * A minimal cookie-keeping HTTP client for the web client's endpoints: it
 * remembers cookies the server sets (as a browser does for one origin),
 * sends them back, and adds the X-CSRFToken header from the csrftoken cookie
 * unless told otherwise. Redirects are not followed.
 */
import { formBody, type Params, type Res } from './helpers.ts';

export interface SetCookie {
  name: string;
  value: string;
  /** Attribute names in lower case -> value ('' for flags). */
  attrs: Map<string, string>;
}

export function parseSetCookie(line: string): SetCookie {
  const [pair, ...rest] = line.split(';');
  const idx = pair.indexOf('=');
  const attrs = new Map<string, string>();
  for (const a of rest) {
    const i = a.indexOf('=');
    if (i < 0) attrs.set(a.trim().toLowerCase(), '');
    else attrs.set(a.slice(0, i).trim().toLowerCase(), a.slice(i + 1).trim());
  }
  return { name: pair.slice(0, idx).trim(), value: pair.slice(idx + 1).trim(), attrs };
}

export interface WebRes extends Res {
  cookies: SetCookie[];
}

export interface WebInit {
  /** Query (GET) or form-encoded body params. */
  params?: Params;
  /** A raw body (with its content type in headers), or FormData. */
  body?: string | FormData;
  headers?: Record<string, string>;
  /** true (default): X-CSRFToken from the csrftoken cookie; false: none; a string: that value. */
  csrf?: boolean | string;
}

export class WebClient {
  readonly base: string;
  readonly jar = new Map<string, string>();
  constructor(base: string) {
    this.base = base;
  }

  cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method: string, path: string, init: WebInit = {}): Promise<WebRes> {
    const headers: Record<string, string> = { 'User-Agent': 'Mozilla/5.0 (parley tests)', ...(init.headers ?? {}) };
    if (this.jar.size) headers.Cookie = this.cookieHeader();
    const csrf = init.csrf ?? true;
    if (csrf === true && this.jar.has('csrftoken')) headers['X-CSRFToken'] = this.jar.get('csrftoken')!;
    else if (typeof csrf === 'string') headers['X-CSRFToken'] = csrf;
    let url = this.base + path;
    let body: string | FormData | undefined = init.body;
    if (body === undefined && init.params) {
      if (method === 'GET' || method === 'HEAD') url += `?${formBody(init.params)}`;
      else {
        body = formBody(init.params);
        headers['Content-Type'] ??= 'application/x-www-form-urlencoded';
      }
    }
    const res = await fetch(url, { method, headers, body, redirect: 'manual' });
    const cookies = res.headers.getSetCookie().map(parseSetCookie);
    for (const c of cookies) {
      const maxAge = c.attrs.get('max-age');
      const expires = c.attrs.get('expires');
      const gone = (maxAge !== undefined && Number(maxAge) <= 0) || (expires !== undefined && Date.parse(expires) < Date.now());
      if (gone) this.jar.delete(c.name);
      else this.jar.set(c.name, c.value);
    }
    const text = await res.text();
    let parsed: Record<string, any> = {};
    if ((res.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
    return { status: res.status, body: parsed, headers: res.headers, text, cookies };
  }

  get(path: string, params?: Params) {
    return this.request('GET', path, params ? { params } : {});
  }
  post(path: string, params?: Params, init: WebInit = {}) {
    return this.request('POST', path, { ...init, params });
  }
  patch(path: string, params?: Params, init: WebInit = {}) {
    return this.request('PATCH', path, { ...init, params });
  }

  /** GET /login/ (for the csrftoken cookie), then POST /accounts/login/. */
  async login(email: string, password: string): Promise<WebRes> {
    await this.get('/login/');
    return this.post('/accounts/login/', { username: email, password });
  }
}
