/**
 * Every incoming-webhook integration, explored with payloads it has never
 * seen: whatever a third party sends, an integration answers messages or
 * one of Zulip's errors (a 400 naming the field, or the 200
 * unsupported-event answer), never an exception of its own (which the
 * server would turn into a 500).
 *
 * Each walk starts from an empty payload and follows the integration's own
 * complaints: a missing field is added (a dict, a list, a string, a number,
 * a boolean or null), a field of the wrong type is replaced by one of the
 * type asked for, an invalid value by another; once a payload is handled,
 * one of its values is swapped for a value of another type. Strings are
 * drawn from the string literals of the integrations' sources (event names,
 * actions, states), so walks reach the code behind them. The walks are
 * seeded, so a failure repeats; it is reported with its payload.
 *
 * The integrations are called in-process (each is a pure function of the
 * request) because the walks make tens of thousands of payloads; the
 * HTTP path that carries their answers and errors is tested over HTTP in
 * incoming-webhooks.test.ts and the webhooks-*.test.ts files.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { INTEGRATIONS } from '../src/actions/incoming-webhooks.ts';
import { ApiError } from '../src/lib/errors.ts';
import { IDENTIFY_BOT, type WebhookRequest, type WebhookUser } from '../src/lib/integrations/types.ts';

const SOURCES = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'lib', 'integrations');
const WALKS = 300;
/** The accounts integrations that name people may find: one whose name and address are among the common words. */
const USERS: WebhookUser[] = [
  { id: 1, full_name: 'x', email: 'x@example.com', delivery_email: 'x@example.com', is_active: true, is_system_bot: false },
  { id: 2, full_name: 'Notification Bot', email: 'notification-bot@example.com', delivery_email: 'notification-bot@example.com', is_active: true, is_system_bot: true },
];
const STEPS = 80;

/** Shapes of values that services send. */
const COMMON = ['x', '', 'https://example.com/a/b', '2020-04-28T13:56:05.903736Z', '1588082165', 'refs/heads/main', 'refs/tags/v1.0', '0000000000000000000000000000000000000000', '9049f1265b7d61be4a8904a9a27120d2064dab3b'];

/**
 * The short string literals of the source file that defines an integration
 * (the one naming it) and of the files it imports from the same folder.
 */
function vocabulary(integrationName: string): string[] {
  const files = new Map(readdirSync(SOURCES).map((f) => [f, readFileSync(join(SOURCES, f), 'utf8')]));
  const own = [...files.keys()].filter((f) => files.get(f)!.includes(`name: '${integrationName}'`) || files.get(f)!.includes(`'${integrationName}'`));
  const read = new Set<string>();
  const visit = (f: string) => {
    if (read.has(f) || !files.has(f)) return;
    read.add(f);
    for (const m of files.get(f)!.matchAll(/from '\.\/([\w.-]+)'/g)) visit(m[1]);
  };
  own.forEach(visit);
  const words = new Set<string>(COMMON);
  for (const f of read) for (const m of files.get(f)!.matchAll(/'([^'\\\n]{1,40})'/g)) words.add(m[1]);
  return [...words];
}

/** A small seeded generator (mulberry32), so that every run walks the same payloads. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Key = string | number;

/** The path of a Wild name, e.g. payload['a'][0]["b'c"] is ['a', 0, "b'c"]; null when it is not one. */
function parsePath(name: string): Key[] | null {
  if (!name.startsWith('payload')) return null;
  const path: Key[] = [];
  let i = 'payload'.length;
  while (i < name.length) {
    if (name[i] !== '[') return null;
    const q = name[i + 1];
    if (q === "'" || q === '"') {
      let j = i + 2;
      let key = '';
      while (j < name.length && name[j] !== q) {
        if (name[j] === '\\' && q === "'") j++;
        key += name[j++];
      }
      if (name[j + 1] !== ']') return null;
      path.push(key);
      i = j + 2;
    } else {
      const end = name.indexOf(']', i);
      if (end < 0 || !/^\d+$/.test(name.slice(i + 1, end))) return null;
      path.push(Number(name.slice(i + 1, end)));
      i = end + 1;
    }
  }
  return path;
}

function setAt(root: Json, path: Key[], value: Json): Json {
  if (path.length === 0) return value;
  let node = root as any;
  for (const key of path.slice(0, -1)) node = node[key];
  const last = path[path.length - 1];
  if (Array.isArray(node) && typeof last === 'number') while (node.length < last) node.push(null);
  node[last] = value;
  return root;
}

/** Every path to a value inside the payload. */
function paths(value: Json, prefix: Key[] = [], out: Key[][] = []): Key[][] {
  if (Array.isArray(value)) value.forEach((v, i) => (out.push([...prefix, i]), paths(v, [...prefix, i], out)));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push([...prefix, k]), paths(v, [...prefix, k], out);
  return out;
}

/** The paths of the payload's dicts (the payload itself first, when it is one). */
function dictPaths(value: Json): Key[][] {
  const isDict = (v: Json) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const at = (path: Key[]) => path.reduce((v: any, k) => v[k], value);
  return [[], ...paths(value)].filter((p) => isDict(at(p)));
}

const MESSAGE = /^(payload.*) (is missing|is not a dict|is not a list|is not a string|is not an integer|is not a float|is not a boolean|is not a URL|is not a valid timestamp)$/;

test('every integration answers messages or one of its errors, whatever the payload', () => {
  const failures: string[] = [];
  let handled = 0;
  let calls = 0;
  for (const [name, integration] of Object.entries(INTEGRATIONS)) {
    const words = vocabulary(integration.name);
    assert.ok(words.length > COMMON.length, `no source file found for ${name}`);
    const random = generator([...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7));
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
    const anyValue = (): Json => pick<() => Json>([() => ({}), () => [], () => pick(words), () => pick([0, 1, 7, -1, 1588082165, 2.5]), () => random() < 0.5, () => null])();
    const typed = (kind: string): Json =>
      kind === 'is not a dict' ? {} : kind === 'is not a list' ? [] : kind === 'is not an integer' ? pick([0, 1, 42, 1588082165]) : kind === 'is not a float' ? pick([0, 2.5, 1588082165.25]) : kind === 'is not a boolean' ? random() < 0.5 : kind === 'is not a URL' ? 'https://example.com/x/y' : kind === 'is not a valid timestamp' ? pick(['2020-04-28T13:56:05.903736Z', 1588082165, '1588082165']) : pick(words);
    for (let walk = 0; walk < WALKS; walk++) {
      const events = [...(integration.eventTypes ?? []), ...words];
      const headerValue = pick(events);
      const form = random() < 0.2;
      const params = new Map<string, string>();
      let payload: Json = random() < 0.9 ? {} : anyValue();
      /** Adds a field named by a word to one of the payload's dicts, or swaps one of its values; false when it has neither. */
      const grow = (): boolean => {
        const dicts = dictPaths(payload);
        if (dicts.length > 0 && random() < 0.5) {
          payload = setAt(payload, [...pick(dicts), pick(words)], random() < 0.5 ? pick(words) : anyValue());
          return true;
        }
        const all = paths(payload);
        if (all.length === 0) return false;
        payload = setAt(payload, pick(all), random() < 0.6 ? pick(words) : anyValue());
        return true;
      };
      for (let step = 0; step < STEPS; step++) {
        const body = JSON.stringify(payload);
        const req: WebhookRequest = {
          body: form ? `payload=${encodeURIComponent(body)}` : body,
          contentType: form ? 'application/x-www-form-urlencoded' : 'application/json',
          header: () => headerValue,
          param: (k) => {
            if (form && k === 'payload') return body;
            if (params.has(k)) return params.get(k);
            const v = payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? payload[k] : undefined;
            return typeof v === 'string' ? v : undefined;
          },
          users: () => USERS,
        };
        calls++;
        let out;
        try {
          out = integration.handle(req);
        } catch (e) {
          if (!(e instanceof ApiError) || e.status >= 500) {
            failures.push(`${name} (header ${JSON.stringify(headerValue)}${form ? ', form' : ''}): ${e instanceof Error ? e.stack?.split('\n').slice(0, 3).join(' | ') : String(e)}\n  payload: ${body.slice(0, 600)}`);
            break;
          }
          // A refusal that names its cause (e.g. "Invalid payload" for a missing field) is followed by the cause.
          const why = e.cause instanceof ApiError ? e.cause.message : e.message;
          const m = MESSAGE.exec(why);
          const path = m ? parsePath(m[1]) : null;
          if (m && path) {
            // Fill in what is missing, or what has the wrong type; a missing list item after its last.
            const value = m[2] === 'is missing' ? (random() < 0.6 ? typed(pick(['is not a dict', 'is not a string', 'is not a list', 'is not an integer'])) : anyValue()) : typed(m[2]);
            payload = setAt(payload, path, value);
            continue;
          }
          const invalid = /^Invalid (payload.*)$/.exec(why);
          const invalidPath = invalid ? parsePath(invalid[1]) : null;
          if (invalidPath) {
            payload = setAt(payload, invalidPath, pick(words));
            continue;
          }
          const param = /^(\w+) is not a boolean$/.exec(e.message);
          if (param) {
            params.set(param[1], pick(['true', 'false']));
            continue;
          }
          // Unsupported or otherwise refused: change something and go on.
          if (!grow()) break;
          continue;
        }
        if (out !== IDENTIFY_BOT) {
          for (const msg of out) {
            if (typeof msg.topic !== 'string' || typeof msg.body !== 'string' || (msg.eventType !== undefined && typeof msg.eventType !== 'string')) {
              failures.push(`${name}: a message that is not text: ${JSON.stringify(msg).slice(0, 300)}\n  payload: ${body.slice(0, 600)}`);
            }
          }
        }
        handled++;
        // Handled: change something and go on.
        if (!grow()) break;
      }
      if (failures.length > 20) break;
    }
  }
  assert.deepEqual(failures, []);
  // The walks reached the integrations' messages, not only their first complaint.
  assert.ok(handled > Object.keys(INTEGRATIONS).length * 20, `only ${handled} of ${calls} payloads were handled`);
});
