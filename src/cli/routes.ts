/**
 * `npm run routes`: lists every API endpoint from the route declarations
 * (method, path, authentication, summary and each parameter's type,
 * whether it is required, its default and its description), the endpoints
 * with handlers of their own, and the operations of Zulip's API that are not
 * provided, with the reason (src/http/routes/not-provided.ts).
 *
 *   npm run routes                 plain text
 *   npm run -s routes -- --markdown > docs/API.md
 */
import { allRoutes } from '../http/routes/index.ts';
import type { RouteDef } from '../http/route.ts';
import type { Param } from '../http/params.ts';
import { NOT_PROVIDED, OTHER_ENDPOINTS } from '../http/routes/not-provided.ts';

/** `/users/:user_id(^\d+$)` -> `/api/v1/users/{user_id}`, as Zulip's documentation writes paths (`/json/...` for a route only the web client has). */
export function displayPath(path: string, sessionOnly = false): string {
  return (sessionOnly ? '/json' : '/api/v1') + path.replace(/:(\w+)(\([^/]*\))?/g, '{$1}');
}

const AUTH: Record<RouteDef['auth'], string> = { user: 'authenticated', none: 'public', optional: 'optional auth', 'web-optional': 'authenticated; under /json also logged-out visitors' };

function paramLine(name: string, param: Param<unknown>, where: 'path' | 'body'): { name: string; type: string; req: string; doc: string } {
  let req: string;
  if (where === 'path' || param.required) req = 'required';
  else if (param.defaultValue === undefined) req = 'optional';
  else req = `default ${JSON.stringify(param.defaultValue)}`;
  const aliases = param.aliases.length ? ` (also ${param.aliases.join(', ')})` : '';
  return { name: name + aliases, type: param.type + (where === 'path' ? ', in path' : ''), req, doc: param.doc };
}

function paramsOf(r: RouteDef) {
  return [
    ...Object.entries(r.pathParams ?? {}).map(([n, prm]) => paramLine(n, prm, 'path')),
    ...Object.entries(r.params).map(([n, prm]) => paramLine(n, prm, 'body')),
  ];
}

export function routesText(routes: RouteDef[]): string {
  const out: string[] = [];
  for (const r of routes) {
    out.push(`${r.method.padEnd(6)} ${displayPath(r.path, r.sessionOnly)}  \u2014 ${r.summary} [${AUTH[r.auth]}]`);
    for (const prm of paramsOf(r)) out.push(`         ${prm.name}: ${prm.type}, ${prm.req}${prm.doc ? ` \u2014 ${prm.doc}` : ''}`);
  }
  out.push('', 'Other endpoints:');
  for (const e of OTHER_ENDPOINTS) out.push(`${e.methods}  ${e.path}  \u2014 ${e.summary}`);
  out.push('', 'Not provided:');
  for (const n of NOT_PROVIDED) out.push(`${n.method.padEnd(6)} /api/v1${n.path}  \u2014 ${n.reason}`);
  return out.join('\n') + '\n';
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

export function routesMarkdown(routes: RouteDef[]): string {
  const out: string[] = [
    '# Parley API endpoints',
    '',
    '<!-- Generated from the route declarations: `npm run -s routes -- --markdown > docs/API.md`. Do not edit by hand. -->',
    '',
    'Every endpoint is under `/api/v1` and behaves as in [Zulip\'s REST API](https://zulip.com/api/) at feature level 483:',
    'HTTP Basic authentication with an email and API key, form-encoded parameters (integers, booleans, lists and objects',
    'JSON-encoded, strings as sent), and the `{"result", "msg", ...}` response envelope. Parameters an endpoint does not',
    'know are reported in `ignored_parameters_unsupported`; one sent under two of its names (`topic` and its older name',
    '`subject`) is refused with `REQUEST_CONFUSING_VAR`.',
    '',
    'The web client uses the same endpoints under `/json` instead of `/api/v1` (`/json/users/me`, ...), authenticated by',
    'its login session cookie with a CSRF token (see docs/DEVELOPING.md), except `POST /fetch_api_key`; the routes listed',
    'under `/json` are the web client\'s only.',
    '',
    `${routes.length} endpoints.`,
    '',
    '| Method | Path | Auth | Summary |',
    '| --- | --- | --- | --- |',
  ];
  for (const r of routes) out.push(`| ${r.method} | \`${displayPath(r.path, r.sessionOnly)}\` | ${AUTH[r.auth]} | ${cell(r.summary)} |`);
  out.push('', '## Other endpoints', '', 'Served by handlers of their own rather than route declarations:', '');
  out.push('| Method | Path | Summary |', '| --- | --- | --- |');
  for (const e of OTHER_ENDPOINTS) out.push(`| ${e.methods} | \`${e.path}\` | ${cell(e.summary)} |`);
  out.push('', '## Not provided', '');
  out.push("Operations of Zulip's API that Parley does not serve, because each needs a service Parley does not have (they answer 404):", '');
  out.push('| Method | Path | Zulip operation | Reason |', '| --- | --- | --- | --- |');
  for (const n of NOT_PROVIDED) out.push(`| ${n.method} | \`/api/v1${n.path}\` | \`${n.operation}\` | ${cell(n.reason)} |`);
  out.push('', '## Endpoints in detail', '');
  for (const r of routes) {
    out.push(`### ${r.method} \`${displayPath(r.path, r.sessionOnly)}\``, '', `${r.summary} (${AUTH[r.auth]}).`, '');
    const params = paramsOf(r);
    if (params.length) {
      out.push('| Parameter | Type | Required / default | Description |', '| --- | --- | --- | --- |');
      for (const prm of params) out.push(`| \`${prm.name}\` | \`${cell(prm.type)}\` | ${cell(prm.req)} | ${cell(prm.doc)} |`);
    } else {
      out.push('No parameters.');
    }
    out.push('');
  }
  return out.join('\n');
}

if (import.meta.main) {
  const routes = allRoutes();
  process.stdout.write(process.argv.includes('--markdown') ? routesMarkdown(routes) : routesText(routes));
}
