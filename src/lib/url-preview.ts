/**
 * Website previews (Zulip's url_preview): what a linked page says of itself,
 * for the embed under a message when the organization's
 * inline_url_embed_preview is on. The page is fetched (HTML only, at most
 * MAX_BYTES, TIMEOUT_MS in all, up to MAX_REDIRECTS redirects) and read as
 * Zulip's parsers read it: its Open Graph title, description and image, then
 * for what is missing the page's <title> (or first <h1>), its meta
 * description (or the first paragraph after the <h1>, or the first one), and
 * the first image beside the <h1>. Results are kept a day by URL (a page
 * that has none too).
 *
 * Only public addresses are fetched: a name that resolves to a loopback,
 * private, link-local or otherwise reserved address is refused (Zulip sends
 * these requests through its Smokescreen proxy for the same reason), and the
 * connection goes to the address that was checked. `allowPrivate` lifts this
 * (a server whose users link pages on its own network, and the tests).
 */
import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { DomUtils, parseDocument } from 'htmlparser2';
import type { Element } from 'domhandler';

export interface EmbedData {
  title?: string;
  description?: string;
  image?: string;
}

export interface PreviewOptions {
  /** Fetch pages on loopback and private addresses too. */
  allowPrivate: boolean;
  /** Sent as the User-Agent's contact link (the server's URL). */
  serverUrl: string;
}

const TIMEOUT_MS = 15_000;
const MAX_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 5;
const CACHE_MS = 24 * 60 * 60 * 1000;
const CACHE_SIZE = 1000;

/** Zulip's link_regex (Django's URLValidator without ftp): what is worth fetching at all. */
const LINK_RE = /^https?:\/\/(?:(?:[A-Z0-9](?:[A-Z0-9-]{0,61}[A-Z0-9])?\.)+(?:[A-Z]{2,6}\.?|[A-Z0-9-]{2,}\.?)|\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})(?::\d+)?(?:\/?|[/?]\S+)$/i;

const cache = new Map<string, { data: EmbedData | null; until: number }>();

/** What a linked page says of itself, or null (not a page, not reachable, not public, not HTML). Never throws. */
export async function linkEmbedData(url: string, opts: PreviewOptions): Promise<EmbedData | null> {
  const kept = cache.get(url);
  if (kept && kept.until > Date.now()) return kept.data;
  let data: EmbedData | null = null;
  try {
    data = LINK_RE.test(url) ? await fetchAndRead(url, opts) : null;
  } catch {
    data = null;
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(url, { data, until: Date.now() + CACHE_MS });
  return data;
}

/** Forgets what was fetched (tests). */
export function forgetLinkEmbedData(): void {
  cache.clear();
}

async function fetchAndRead(url: string, opts: PreviewOptions): Promise<EmbedData | null> {
  const deadline = Date.now() + TIMEOUT_MS;
  let target = new URL(url);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const res = await get(target, opts, deadline);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (status >= 300 && status < 400 && location) {
      res.destroy();
      target = new URL(location, target);
      if (target.protocol !== 'http:' && target.protocol !== 'https:') return null;
      continue;
    }
    if (status < 200 || status >= 300) {
      res.destroy();
      return null;
    }
    const type = String(res.headers['content-type'] ?? '');
    const body = await readBody(res, deadline);
    // As Zulip's, a page without a content type may still be HTML.
    if (type ? !/^text\/html\b/i.test(type) : !/^\s*</.test(body.subarray(0, 1000).toString('latin1'))) return null;
    const data = readPage(decode(body, type));
    if (data.image) {
      try {
        const image = new URL(data.image, target);
        if (image.protocol === 'http:' || image.protocol === 'https:') data.image = image.href;
        else delete data.image;
      } catch {
        delete data.image;
      }
    }
    return data;
  }
  return null;
}

/** One GET, to an address checked to be public (unless allowed), within the deadline. */
async function get(url: URL, opts: PreviewOptions, deadline: number): Promise<IncomingMessage> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true, verbatim: true });
  if (!addresses.length) throw new Error('no address');
  if (!opts.allowPrivate && addresses.some((a) => !isPublic(a.address))) throw new Error('not a public address');
  const { address, family } = addresses[0]!;
  // The connection goes to the address checked above, whatever the name resolves to by then.
  const pinned: LookupFunction = (_name, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'GET',
        lookup: pinned,
        headers: { 'User-Agent': `Mozilla/5.0 (compatible; ParleyURLPreview; +${opts.serverUrl})`, Accept: 'text/html,*/*;q=0.5' },
        timeout: Math.max(1, deadline - Date.now()),
      },
      resolve,
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** Whether an address is one the open internet routes (not loopback, private, link-local, multicast, reserved...). */
function isPublic(address: string): boolean {
  try {
    let ip = ipaddr.parse(address);
    if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
    return ip.range() === 'unicast';
  } catch {
    return false;
  }
}

async function readBody(res: IncomingMessage, deadline: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  const timer = setTimeout(() => res.destroy(new Error('timed out')), Math.max(1, deadline - Date.now()));
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      // Enough of the page to read its head: the rest is left unread.
      if (size >= MAX_BYTES) {
        res.destroy();
        break;
      }
    }
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks).subarray(0, MAX_BYTES);
}

/** The page's text in the charset its content type names (UTF-8 when none or unknown). */
function decode(body: Buffer, type: string): string {
  const charset = /charset=["']?([\w-]+)/i.exec(type)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/**
 * Zulip's OpenGraphParser, then its GenericParser for what is still missing.
 * (The renderer's own markers, STX and ETX, are taken out of what the page says.)
 */
export function readPage(html: string): EmbedData {
  const doc = parseDocument(html.replace(/[\u0002\u0003]/g, ''));
  const data: EmbedData = {};
  for (const meta of DomUtils.getElementsByTagName('meta', doc)) {
    const content = meta.attribs.content;
    if (content === undefined) continue;
    const property = meta.attribs.property;
    if (property === 'og:title') data.title = content;
    else if (property === 'og:description') data.description = content;
    else if (property === 'og:image') data.image = content;
  }
  const all = DomUtils.getElementsByTagName(() => true, doc);
  const first = (name: string) => all.find((e) => e.name === name);
  const text = (e: Element | undefined) => (e ? DomUtils.textContent(e) : '');
  const h1 = first('h1');
  if (data.title === undefined) {
    const title = text(first('title')) || text(h1);
    if (title) data.title = title;
  }
  if (data.description === undefined) {
    const meta = all.find((e) => e.name === 'meta' && e.attribs.name === 'description' && e.attribs.content);
    const afterH1 = h1 ? all.slice(all.indexOf(h1) + 1).find((e) => e.name === 'p') : undefined;
    const description = meta?.attribs.content || text(afterH1) || text(first('p'));
    if (description) data.description = description;
  }
  if (data.image === undefined && h1) {
    const siblings = h1.parent ? DomUtils.getChildren(h1.parent) : [];
    const img = siblings.slice(siblings.indexOf(h1) + 1).find((e): e is Element => DomUtils.isTag(e) && e.name === 'img' && e.attribs.src !== undefined);
    if (img?.attribs.src) data.image = img.attribs.src;
  }
  return data;
}
