/**
 * Generic integrations: `json` (any JSON document, posted as a code block
 * in the topic "JSON") and `slack_incoming` (Slack's incoming-webhook
 * format: text, blocks and attachments, Slack markup translated to Zulip's).
 */
import { badRequest, missingArgument } from '../errors.ts';
import { MalformedJson, parsePayload, parsePythonNumbers, PyNumber, pyDumps, type Wild } from './wild.ts';
import { jsonPayload, SlackCompatibleError, type Integration, type WebhookMessage } from './types.ts';

export const json: Integration = {
  name: 'JSON',
  displayName: 'JSON formatter',
  handle(req): WebhookMessage[] {
    // Numbers as Python reads and writes them: 1.0 stays 1.0, large integers exact.
    const payload = parsePythonNumbers(req.body);
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload) || payload instanceof PyNumber) throw badRequest('payload is not a dict');
    return [{ topic: 'JSON', body: '```json\n' + pyDumps(payload, 2) + '\n```' }];
  },
};

type TextBlock = { type: string; text: string };

/** A text object, checked as Zulip's check_text_block (a check_dict, with its own wording: `type key is missing from ...`, `...["type"]`). */
function textBlock(w: Wild, plainOnly = false): TextBlock {
  if (typeof w.value !== 'object' || w.value === null || Array.isArray(w.value)) throw badRequest(`${w.name} is not a dict`);
  const fields = w.value as Record<string, unknown>;
  const field = (key: string): string => {
    if (!Object.prototype.hasOwnProperty.call(fields, key)) throw badRequest(`${key} key is missing from ${w.name}`);
    if (typeof fields[key] !== 'string') throw badRequest(`${w.name}["${key}"] is not a string`);
    return fields[key] as string;
  };
  const type = field('type');
  if (!(plainOnly ? ['plain_text'] : ['plain_text', 'mrkdwn']).includes(type)) throw badRequest(`Invalid ${w.name}["type"]`);
  return { type, text: field('text') };
}

const joinPieces = (pieces: string[]): string =>
  pieces
    .map((x) => x.trim())
    .filter((x) => x !== '')
    .join('\n\n');

/** Django's URLValidator, which Zulip's check_url applies: http(s) or ftp(s), a host name with a top-level domain (or localhost, or an IP address), no spaces. */
const UL = '\\u00a1-\\uffff';
const IPV4 = '(?:0|25[0-5]|2[0-4][0-9]|1[0-9]?[0-9]?|[1-9][0-9]?)(?:\\.(?:0|25[0-5]|2[0-4][0-9]|1[0-9]?[0-9]?|[1-9][0-9]?)){3}';
const HOST = `[a-z${UL}0-9](?:[a-z${UL}0-9-]{0,61}[a-z${UL}0-9])?(?:\\.(?!-)[a-z${UL}0-9-]{1,63}(?<!-))*\\.(?!-)(?:[a-z${UL}-]{2,63}|xn--[a-z0-9]{1,59})(?<!-)\\.?|localhost`;
const DJANGO_URL = new RegExp(`^[a-z0-9.+-]*://(?:[^\\s:@/]+(?::[^\\s:@/]*)?@)?(?:${IPV4}|\\[[0-9a-f:.]+\\]|${HOST})(?::[0-9]{1,5})?(?:[/?#][^\\s]*)?$`, 'i');

function checkUrl(w: Wild): string {
  const s = w.str();
  const scheme = s.split('://')[0].toLowerCase();
  if (s.length > 2048 || /[\t\r\n]/.test(s) || !['http', 'https', 'ftp', 'ftps'].includes(scheme) || !DJANGO_URL.test(s)) throw badRequest(`${w.name} is not a URL`);
  return s;
}

function renderElement(el: Wild): string {
  if (el.at('type').str() !== 'image') return '';
  const url = checkUrl(el.at('image_url'));
  return `[${el.at('alt_text').str()}](${url})`;
}

/** Slack's block types (Zulip's list); those Zulip does not render come out empty. */
const BLOCK_TYPES = ['actions', 'context', 'call', 'contact_card', 'condition', 'divider', 'file', 'header', 'image', 'input', 'section', 'table', 'rich_text'] as const;

function renderBlock(block: Wild): string {
  const type = block.at('type').oneOf(BLOCK_TYPES);
  if (type === 'context' && block.get('elements').truthy) {
    return joinPieces(
      block.at('elements').list().map((el) => {
        const t = el.at('type').oneOf(['image', 'plain_text', 'mrkdwn'] as const);
        return t === 'image' ? renderElement(el) : textBlock(el).text;
      }),
    );
  }
  if (type === 'divider') return '----';
  if (type === 'header') return '## ' + textBlock(block.at('text'), true).text;
  if (type === 'image') {
    const url = checkUrl(block.at('image_url'));
    let alt = block.at('alt_text').str();
    if (block.has('title')) alt = textBlock(block.at('title'), true).text;
    return `[${alt}](${url})`;
  }
  if (type === 'section') {
    const pieces: string[] = [];
    if (block.has('text')) pieces.push(textBlock(block.at('text')).text);
    if (block.has('accessory')) pieces.push(renderElement(block.at('accessory')));
    if (block.has('fields')) {
      const fields = block.at('fields').list().map((f) => textBlock(f));
      if (fields.length === 1) pieces.push(fields[0].text);
      else {
        const cells = fields.map((f) => f.text.replace(/\n/g, ' ').replace(/\|/g, ' '));
        let table = '| | |\n|-|-|\n';
        for (let i = 0; i < cells.length; i += 2) table += `| ${cells[i]} | ${cells[i + 1] ?? ''} |\n`;
        pieces.push(table);
      }
    }
    return joinPieces(pieces);
  }
  return '';
}

function renderAttachment(a: Wild): string {
  const pieces: string[] = [];
  if (a.get('title').truthy) {
    const title = a.at('title').str();
    pieces.push(a.get('title_link').truthy ? `## [${title}](${checkUrl(a.at('title_link'))})` : `## ${title}`);
  }
  if (a.get('pretext').truthy) pieces.push(a.at('pretext').str());
  if (a.get('text').truthy) pieces.push(a.at('text').str());
  if (a.has('fields')) {
    const fields: string[] = [];
    for (const f of a.at('fields').list()) {
      const hasTitle = f.get('title').truthy;
      const hasValue = f.get('value').truthy;
      if (hasTitle && hasValue) fields.push(`*${f.at('title').str()}*: ${f.at('value').str()}`);
      else if (hasTitle) fields.push(`*${f.at('title').str()}*`);
      else if (hasValue) fields.push(f.at('value').str());
    }
    pieces.push(fields.join('\n'));
  }
  if (a.get('blocks').truthy) pieces.push(...a.at('blocks').list().map(renderBlock));
  if (a.get('image_url').truthy) {
    const image = a.at('image_url');
    let url: string;
    try {
      url = checkUrl(image);
    } catch {
      url = requoteUri(image.str());
    }
    pieces.push(`[](${url})`);
  }
  if (a.get('footer').truthy) pieces.push(a.at('footer').str());
  if (a.get('ts').truthy) pieces.push(unixGlobalTime(attachmentTime(a.at('ts'))));
  return joinPieces(pieces);
}

/** An attachment's `ts`: an integer, or (as Slack has been seen to send it) a string holding a number, its whole seconds. */
function attachmentTime(ts: Wild): number {
  if (typeof ts.value === 'number' && Number.isInteger(ts.value)) return ts.value;
  const s = typeof ts.value === 'string' ? ts.value.trim() : null;
  const n = s !== null && /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s.replace(/_/g, '')) ? Number(s.replace(/_/g, '')) : NaN;
  if (s === null || !Number.isFinite(n)) throw badRequest(`${ts.name} is not an integer`);
  return Math.trunc(n);
}

/** A Unix time as Zulip's `<time:...>` in UTC (datetime_to_global_time of datetime.fromtimestamp(t, utc)). */
function unixGlobalTime(seconds: number): string {
  const at = new Date(seconds * 1000);
  if (Number.isNaN(at.getTime()) || at.getUTCFullYear() < 1 || at.getUTCFullYear() > 9999) throw badRequest('timestamp out of range');
  return `<time:${at.toISOString().slice(0, 19)}+00:00>`;
}

/** requests' requote_uri: unreserved characters' escapes undone, then what is neither reserved nor an escape quoted. */
function requoteUri(uri: string): string {
  const UNRESERVED = /[A-Za-z0-9\-._~]/;
  const quote = (s: string, safe: string): string =>
    Array.from(new TextEncoder().encode(s), (b) => {
      const c = String.fromCharCode(b);
      return b < 0x80 && (/[A-Za-z0-9_.\-~]/.test(c) || safe.includes(c)) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    }).join('');
  const parts = uri.split('%');
  let unquoted = parts[0];
  for (const part of parts.slice(1)) {
    const h = part.slice(0, 2);
    if (h.length === 2 && /^[0-9A-Za-z]{2}$/.test(h)) {
      if (!/^[0-9A-Fa-f]{2}$/.test(h)) return quote(uri, "!#$&'()*+,/:;=?@[]~");
      const c = String.fromCharCode(parseInt(h, 16));
      unquoted += UNRESERVED.test(c) ? c + part.slice(2) : `%${part}`;
    } else unquoted += `%${part}`;
  }
  return quote(unquoted, "!#$%&'()*+,/:;=?@[]~");
}

/** Slack's links, `<https://example.com|text>` (with or without a protocol or text) and `<mailto:a@b.c|a@b.c>`, as Zulip writes them. */
function replaceLinks(text: string): string {
  const LINK = /(<)(http:\/\/www\.|https:\/\/www\.|http:\/\/|https:\/\/|ftp:\/\/)?([a-z0-9]+([-.]{1}[a-z0-9]+)*)(\.)([a-z]{2,63}(:[0-9]{1,5})?)(\/[^>]*)?(\|)?(?:\|([^>]+))?(>)/g;
  const MAILTO = /<((mailto:)?([\p{L}\p{N}_.-]+@[\p{L}\p{N}_.-]+(\.[\p{L}\p{N}_]+)+))(\|)?([\p{L}\p{N}_.-]+@[\p{L}\p{N}_.-]+(\.[\p{L}\p{N}_]+)+)?>/gu;
  // Each link found in the text is replaced wherever it occurs (Python's str.replace), as Zulip does.
  for (const m of [...text.matchAll(LINK)]) {
    const parts = m[0].slice(1, -1);
    const pipe = parts.indexOf('|');
    text = text.split(m[0]).join(pipe >= 0 ? `[${parts.slice(pipe + 1)}](${parts.slice(0, pipe)})` : parts);
  }
  for (const m of [...text.matchAll(MAILTO)]) text = text.split(m[0]).join(m[1]);
  return text;
}

/**
 * Slack's markup as Zulip's: *bold* as **bold**, ~strike~ as ~~strike~~,
 * _italic_ as *italic*, where the marks stand between punctuation, spaces,
 * symbols or line ends (Zulip's SLACK_BOLD/STRIKETHROUGH/ITALIC_REGEX).
 */
function replaceFormatting(text: string): string {
  const BOLD = /((?![*`@\\\p{Pf}\p{Pe}])[\p{P}\p{Zs}\p{S}]|^)(\*)([^*]+)(\*)((?![*`@\\\p{Pi}\p{Ps}])(?=[\p{P}\p{Zs}\p{S}]|$))/gmu;
  const STRIKETHROUGH = /((?![~`@\\\p{Pf}\p{Pe}])[\p{P}\p{Zs}\p{S}]|^)(~)([^~]+)(~)((?![~`@\\\p{Pi}\p{Ps}])(?=[\p{P}\p{Zs}\p{S}]|$))/gmu;
  const ITALIC = /((?![_`@\\\p{Pf}\p{Pe}])[\p{P}\p{Zs}\p{S}]|^)(_)([^_]+)(_)((?![_`@\\\p{Pi}\p{Ps}])(?=[\p{P}\p{Zs}\p{S}]|$))/gmu;
  const convert = (t: string, re: RegExp, keyword: string): string => t.replace(re, (_all, before: string, _open, inner: string) => before + keyword + inner + keyword);
  return convert(convert(convert(text, BOLD, '**'), STRIKETHROUGH, '~~'), ITALIC, '*');
}

export const slackIncoming: Integration = {
  name: 'SlackIncoming',
  displayName: 'Slack-compatible webhook',
  slackCompatible: true,
  handle(req): WebhookMessage[] {
    let text: string | undefined;
    if (req.contentType === 'application/json') text = req.body;
    else text = req.param('payload');
    if (text === undefined) throw new SlackCompatibleError(missingArgument('payload'));
    let p: Wild;
    try {
      p = parsePayload(text);
    } catch (e) {
      // Answered in Slack's form, so the bot's owner is not told of it (Zulip's slack_error_handler answers first).
      if (e instanceof MalformedJson) throw new SlackCompatibleError(e);
      throw e;
    }
    let topic = req.param('topic');
    if (topic === undefined && p.has('channel')) topic = p.at('channel').str().replace(/^[@#]/, '');
    if (topic === undefined) topic = '(no topic)';
    const pieces: string[] = [];
    if (p.get('blocks').truthy) pieces.push(...p.at('blocks').list().map(renderBlock));
    if (p.get('attachments').truthy) pieces.push(...p.at('attachments').list().map(renderAttachment));
    let body = joinPieces(pieces);
    if (body === '' && p.get('text').truthy) {
      if (p.get('icon_emoji').truthy) body = p.at('icon_emoji').str() + ' ';
      body += p.at('text').str();
      body = body.trim();
    }
    if (body === '') return [];
    return [{ topic, body: replaceFormatting(replaceLinks(body).trim()) }];
  },
};
