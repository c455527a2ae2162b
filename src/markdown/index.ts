// Zulip-compatible Markdown renderer (pure: no I/O). The structure follows
// the Python-Markdown pipeline that Zulip's backend uses, so that the
// output HTML matches Zulip's byte for byte for the common message forms:
//   preprocess (hanging lists, whitespace, fenced blocks)
//   -> block parse -> inline patterns -> prettify -> serialize -> raw HTML.
import { lazyModule } from '../lib/lazy.ts';
import { UPLOADS_PATH_PREFIX, ZULIP_EMOJI_PATH } from '../lib/static-paths.ts';
import { defaultFormat, transcodedFor, type UploadImageInfo } from '../lib/thumbnail-formats.ts';
import { AUDIO_INLINE_MIME_TYPES } from '../lib/mime-types.ts';

const katex = lazyModule<typeof import('katex')>('katex');
import tlds from 'tlds' with { type: 'json' };
import { BlockParser, GROUP_MENTIONS_RE_SRC, MENTIONS_RE_SRC } from './blocks.ts';
import { hangingLists, processFences, renderCodeBlock } from './fenced.ts';
import { BLOCK_LEVEL, El, escapeAttr, escapeText, isVoid } from './tree.ts';
import { InlinePreviews, type EmbedData } from './previews.ts';
import { EMOTICON_CONVERSIONS, emojiByName, nameForUnicodeSequence, POSSIBLE_EMOJI_RE } from '../emoji/index.ts';
import { AFTER_GROUP, compileLinkifier, OUTER_GROUP, type Linkifier } from './linkifiers.ts';

export { canonicalLanguageName } from './fenced.ts';
export { MarkdownRenderingError } from './errors.ts';
import { MarkdownRenderingError } from './errors.ts';

export interface MarkdownContext {
  // all lookups synchronous; the caller preloads data
  userByFullName(name: string): { id: number; full_name: string; email: string } | undefined; // may be ambiguous -> undefined
  userById(id: number): { id: number; full_name: string; email: string } | undefined;
  groupByName(name: string): { id: number; name: string } | undefined;
  streamByName(name: string): { id: number; name: string } | undefined;
  /** The latest message ID of a channel topic linked as #**channel>topic** (Zulip's topic_info); undefined when it has none. */
  topicLatestMessageId?(streamId: number, topic: string): number | undefined;
  /** The organization's realm_empty_topic_display_name, shown for the empty topic in topic and message links. */
  emptyTopicDisplayName?: string;
  customEmojiByName?(name: string): { id: string; name: string; source_url: string } | undefined;
  translateEmoticons?: boolean;
  /** The organization's linkifiers, in their order. */
  linkifiers?: Linkifier[];
  realmUrl: string; // e.g. "http://127.0.0.1:9991"
  /** The organization's default_code_block_language: the language of fenced blocks that name none. */
  defaultCodeBlockLanguage?: string;
  /** The organization's inline_image_preview: previews of linked images and videos (never in descriptions). */
  inlineImagePreview?: boolean;
  /**
   * Website previews (the organization's inline_url_embed_preview, for a
   * message not sent by a bot): what is known of a link's page, null for
   * nothing to show, undefined when not fetched yet (then in linksForPreview).
   */
  urlEmbedData?(url: string): EmbedData | null | undefined;
  /** The camo image proxy videos are served through (Zulip's CAMO_URI and key). */
  camo?: { uri: string; key: string };
  /** What is known of the upload at a path_id linked in the text (frames 0: not an image, e.g. audio); undefined when nothing is. */
  uploadImage?(pathId: string): UploadImageInfo | undefined;
}

export interface RenderResult {
  html: string;
  mentionedUserIds: Set<number>;
  mentionedGroupIds: Set<number>;
  wildcardMention: 'all' | 'topic' | null;
  hasLink: boolean;
  hasImage: boolean;
  hasAttachment: boolean;
  isMeMessage: boolean;
  /** The source after the fenced-block preprocessor (code stashed away): the text alert words are matched in, as Zulip does. */
  alertText?: string;
  /** Links whose website data is wanted for their previews (Zulip's links_for_preview); only with urlEmbedData. */
  linksForPreview?: string[];
}

/** The host of a URL ('' when it is not one). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

const STX = '\u0002';
const ETX = '\u0003';
const INLINE_PH_RE = /\u0002klzzwxh:(\d+)\u0003/g;

type InlineNode = El | { str: string };
type Match = { start: number; end: number; node: InlineNode | null };
type Pattern = (data: string, from: number) => Match | null | 'skip';

const IMAGE_EXTENSIONS = ['.bmp', '.gif', '.jpe', '.jpeg', '.jpg', '.png', '.webp'];

const ALLOWED_SCHEMES = new Set([
  'http', 'https', 'ftp', 'file', 'bitcoin', 'geo', 'im', 'irc', 'ircs', 'magnet', 'mailto', 'matrix',
  'mms', 'news', 'nntp', 'openpgp4fpr', 'sip', 'sms', 'smsto', 'ssh', 'tel', 'urn', 'webcal', 'wtai', 'xmpp',
]);

const STREAM_WILDCARDS = new Set(['all', 'everyone', 'stream', 'channel']);
const TOPIC_WILDCARDS = new Set(['topic']);

// Timezone abbreviations understood in <time:...> (offset in minutes).
const TZ_OFFSETS: Record<string, number> = {
  UTC: 0, GMT: 0, Z: 0, IST: 330, EST: -300, EDT: -240, CST: -360, CDT: -300, MST: -420, MDT: -360,
  PST: -480, PDT: -420, CET: 60, CEST: 120, EET: 120, EEST: 180, BST: 60, JST: 540, KST: 540,
  AEST: 600, AEDT: 660, NZST: 720, NZDT: 780, HKT: 480, SGT: 480, WET: 0, WEST: 60, MSK: 180,
};
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

function buildWebLinkRegex(): RegExp {
  const common = new Set(['java', 'md', 'mov', 'py', 'zip']);
  const list = (tlds as string[])
    .filter((t) => !common.has(t))
    .sort((a, b) => b.length - a.length)
    .map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const W = String.raw`[\p{L}\p{N}\p{M}_]`;
  const inner = String.raw`[^\s()"]*`;
  const group = String.raw`[^\s()"]*?(?:\(%s\)[^\s()"]*?)*`;
  let chunk = group;
  for (let i = 0; i < 6; i++) chunk = chunk.replace('%s', group);
  chunk = chunk.replace('%s', inner);
  const src =
    String.raw`(?<![^\s'"(,:<])(?<url>(?:(?:https?://[\p{L}\p{N}\p{M}_.:@-]+?|(?:(?:[\p{L}\p{N}\p{M}_-]+\.)+(?:${list.join('|')})))(?:/${chunk})?)` +
    String.raw`|(?:[\p{L}\p{N}\p{M}_.-]+@[\p{L}\p{N}\p{M}_.-]+\.${W}+)` +
    String.raw`|(?:bitcoin:[13][a-km-zA-HJ-NP-Z1-9]{25,34}))(?=[!:;?),.'">]*(?:$|\s))`;
  return new RegExp(src, 'u');
}

let webLinkRegex: RegExp | null = null;
/** webLinkRegex anchored at the start (topic links), built once. */
let anchoredWebLinkRegex: RegExp | null = null;

/** Python's urllib.parse.quote(s, safe="") */
function pyQuote(s: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9_.~-]/.test(c)) out += c;
    else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** Zulip's hash_util_encode for narrow URLs. */
export function hashUtilEncode(s: string): string {
  return pyQuote(s).replaceAll('.', '%2E').replaceAll('%', '.');
}

export function encodeStream(id: number, name: string): string {
  return `${id}-${hashUtilEncode(name.replaceAll(' ', '-'))}`;
}

/** Zulip's sanitize_url: returns undefined when the URL must not be linked. */
export function sanitizeUrl(url: string): string | undefined {
  const u = url.replaceAll(' ', '%20');
  const sm = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(u);
  let scheme = '';
  let rest = u;
  if (sm) {
    scheme = sm[1]!.toLowerCase();
    rest = u.slice(sm[0].length);
  }
  let netloc = '';
  if (rest.startsWith('//')) {
    const end = rest.slice(2).search(/[/?#]/);
    netloc = end < 0 ? rest.slice(2) : rest.slice(2, 2 + end);
    rest = end < 0 ? '' : rest.slice(2 + end);
  }
  const hashAt = rest.indexOf('#');
  const fragment = hashAt >= 0 ? rest.slice(hashAt + 1) : '';
  const beforeFrag = hashAt >= 0 ? rest.slice(0, hashAt) : rest;
  const qAt = beforeFrag.indexOf('?');
  const path = qAt >= 0 ? beforeFrag.slice(0, qAt) : beforeFrag;
  const query = qAt >= 0 ? beforeFrag.slice(qAt + 1) : '';
  if (!scheme && !netloc && path.includes('@')) {
    return `mailto:${u}`;
  }
  if (!scheme && !netloc && path.startsWith('/')) return u;
  if (!scheme && !netloc && !path && !query && fragment) return `#${fragment}`;
  if (!scheme) return sanitizeUrl(`http://${url}`);
  if (!ALLOWED_SCHEMES.has(scheme)) return undefined;
  return scheme + u.slice(scheme.length);
}

function renderKatex(tex: string, display: boolean): string | null {
  try {
    return katex().renderToString(tex, { displayMode: display, throwOnError: true }).trim();
  } catch {
    return null;
  }
}

function parseTimestamp(input: string): Date | null {
  const s = input.trim();
  if (/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(s)) {
    const ms = Number(s) * 1000;
    const d = new Date(ms);
    if (Number.isNaN(d.getTime()) || d.getUTCFullYear() > 9999 || d.getUTCFullYear() < 1) return null;
    return d;
  }
  // ISO 8601
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i.exec(s);
  if (iso) {
    const [, y, mo, d, h, mi, se, , tz] = iso;
    let t = Date.UTC(+y!, +mo! - 1, +d!, +(h ?? 0), +(mi ?? 0), +(se ?? 0));
    if (tz && tz.toUpperCase() !== 'Z') {
      const sign = tz[0] === '-' ? -1 : 1;
      const digits = tz.slice(1).replace(':', '');
      t -= sign * (+digits.slice(0, 2) * 60 + +digits.slice(2)) * 60000;
    }
    const date = new Date(t);
    return Number.isNaN(date.getTime()) ? null : date;
  }
  // Loose human formats: "Jun 5th 2017, 10:30PM", "31 Dec 2017 5:30 am IST".
  const tokens = s.replace(/,/g, ' ').split(/\s+/).filter(Boolean);
  let year: number | undefined;
  let month: number | undefined;
  let day: number | undefined;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let offset = 0;
  let pendingAmPm: string | undefined;
  let sawTime = false;
  for (const tok of tokens) {
    const low = tok.toLowerCase();
    let m: RegExpExecArray | null;
    if ((m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?(am|pm|a\.m\.|p\.m\.)?$/i.exec(tok))) {
      hour = +m[1]!;
      minute = +m[2]!;
      second = m[3] ? +m[3] : 0;
      if (m[4]) pendingAmPm = m[4].toLowerCase()[0];
      sawTime = true;
    } else if (low === 'am' || low === 'pm') {
      if (!sawTime) return null;
      pendingAmPm = low[0];
    } else if (MONTHS.includes(low.slice(0, 3)) && /^[a-z]+\.?$/.test(low)) {
      if (month !== undefined) return null;
      month = MONTHS.indexOf(low.slice(0, 3));
    } else if ((m = /^(\d{1,2})(st|nd|rd|th)?$/i.exec(tok)) && day === undefined) {
      day = +m[1]!;
    } else if (/^\d{4}$/.test(tok) && year === undefined) {
      year = +tok;
    } else if (TZ_OFFSETS[tok.toUpperCase()] !== undefined) {
      offset = TZ_OFFSETS[tok.toUpperCase()]!;
    } else if ((m = /^(?:UTC|GMT)?([+-])(\d{2}):?(\d{2})$/i.exec(tok))) {
      offset = (m[1] === '-' ? -1 : 1) * (+m[2]! * 60 + +m[3]!);
    } else {
      return null;
    }
  }
  if (pendingAmPm === 'p' && hour < 12) hour += 12;
  if (pendingAmPm === 'a' && hour === 12) hour = 0;
  if (year === undefined && month === undefined && day === undefined && !sawTime) return null;
  const now = new Date();
  const t =
    Date.UTC(year ?? now.getUTCFullYear(), month ?? now.getUTCMonth(), day ?? now.getUTCDate(), hour, minute, second) -
    offset * 60000;
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? null : d;
}

function isoZ(d: Date): string {
  return d.toISOString().replace(/\.000Z$/, 'Z').replace(/\.(\d{3})Z$/, '.$1000Z');
}

// The inline patterns' regular expressions, made once: global ones are
// searched from a position by setting lastIndex right before each exec (the
// renderer is synchronous, so no search is interleaved with another).
const DEL_RE = /(?<!~)(~~)([^~\n]+?)~~(?!~)/;
const STRONG_RE = /(\*\*)([^\n]+?)\*\*/;
const EM_RE = /(\*)(?!\s+)([^*^\n]+)(?<!\s)\*/;
const BACKTICK_RE = /(?<!\\)((?:\\{2})+)(?=`+)|(?<!\\)(`+)(.+?)(?<!`)\2(?!`)/gs;
const MENTIONS_RE = new RegExp(MENTIONS_RE_SRC, 'g');
const GROUP_MENTIONS_RE = new RegExp(GROUP_MENTIONS_RE_SRC, 'g');
const POSSIBLE_EMOJI_GLOBAL_RE = new RegExp(POSSIBLE_EMOJI_RE.source, 'gu');

class Renderer {
  private rawStash: string[] = [];
  private nodeStash: InlineNode[] = [];
  private patterns: Pattern[];
  /**
   * Patterns with a one-character lookbehind at their start, each with the
   * characters for which that lookbehind answers differently than for ETX
   * (see handleInline).
   */
  private lookbehindPatterns: Map<Pattern, (c: string) => boolean>;
  private del: Pattern = this.simpleTag(DEL_RE, 'del');
  readonly result: RenderResult;
  private ctx: MarkdownContext;
  private realmPrefix: string;

  constructor(ctx: MarkdownContext, content: string) {
    this.ctx = ctx;
    this.realmPrefix = ctx.realmUrl.replace(/\/+$/, '') + '/';
    this.result = {
      html: '',
      mentionedUserIds: new Set(),
      mentionedGroupIds: new Set(),
      wildcardMention: null,
      hasLink: false,
      hasImage: false,
      hasAttachment: false,
      isMeMessage: content.startsWith('/me '),
    };
    this.patterns = [
      this.backtick,
      this.strongEm,
      this.userMention,
      this.tex,
      this.messageLink,
      this.streamTopic,
      this.stream,
      this.timestamp,
      this.groupMention,
      this.audio,
      this.link,
      this.autolink,
      ...(ctx.linkifiers ?? []).map((l) => this.linkifier(l)),
      this.simpleTag(STRONG_RE, 'strong'),
      this.simpleTag(EM_RE, 'em'),
      this.del,
      this.emoji,
      this.emoticon,
      this.newline,
      this.unicodeEmoji,
    ];
    const mentionStart = (c: string) => /[\s'"({[/<]/.test(c); // (?<![^\s'"({\[/<])
    this.lookbehindPatterns = new Map<Pattern, (c: string) => boolean>([
      [this.backtick, (c) => c === '\\'], // (?<!\\)
      [this.userMention, mentionStart],
      [this.groupMention, mentionStart],
      [this.stream, mentionStart],
      [this.messageLink, mentionStart],
      [this.streamTopic, mentionStart],
      [this.tex, (c) => c === '$' || /\w/.test(c)], // \B(?<!\$)
      [this.link, (c) => c === '!'], // (?<!!)
      [this.autolink, (c) => /[\s'"(,:<]/.test(c)], // (?<![^\s'"(,:<])
      [this.del, (c) => c === '~'], // (?<!~)
      [this.emoticon, (c) => /[,.;?!()[\] "'\n\t]/.test(c)], // (?<![^...term])
    ]);
  }

  stashRaw(html: string): string {
    this.rawStash.push(html);
    return `${STX}wzxhzdk:${this.rawStash.length - 1}${ETX}`;
  }

  private stashNode(node: InlineNode): string {
    this.nodeStash.push(node);
    return `${STX}klzzwxh:${this.nodeStash.length - 1}${ETX}`;
  }

  render(content: string): RenderResult {
    if (!content.trim()) return this.result;
    let lines = hangingLists(content.split('\n'));
    // Normalize whitespace.
    let source = lines.join('\n').replaceAll(STX, '').replaceAll(ETX, '');
    source = source.replace(/\r\n?/g, '\n') + '\n\n';
    source = source
      .split('\n')
      .map((l) => expandTabs(l, 4))
      .join('\n');
    source = source.replace(/(?<=\n) +\n/g, '\n');
    lines = source.split('\n');
    lines = processFences(lines, { stashRaw: (h) => this.stashRaw(h), renderTex: renderKatex, defaultLanguage: this.ctx.defaultCodeBlockLanguage || null });
    this.result.alertText = lines.join('\n');
    const root = new BlockParser().parseDocument(lines.join('\n'));
    this.hiliteIndentedCode(root);
    this.inlineTree(root);
    prettify(root);
    if (this.ctx.inlineImagePreview || this.ctx.urlEmbedData) {
      const previews = new InlinePreviews(this.nodeStash, {
        images: !!this.ctx.inlineImagePreview,
        embeds: this.ctx.urlEmbedData,
        realmHost: hostOf(this.ctx.realmUrl),
        camo: this.ctx.camo,
        upload: this.ctx.uploadImage,
      });
      previews.run(root);
      if (previews.addedImage) this.result.hasImage = true;
      if (previews.linksForPreview.length) this.result.linksForPreview = previews.linksForPreview;
    }
    let html = '';
    for (const child of root.children) html += this.serialize(child);
    html = html.trim();
    html = this.restoreRaw(html).trim();
    this.result.html = html;
    return this.result;
  }

  private hiliteIndentedCode(el: El): void {
    for (const c of el.children) {
      if (c.tag === 'pre' && c.children.length && c.children[0]!.tag === 'code') {
        const ph = this.stashRaw(renderCodeBlock(c.children[0]!.text, null));
        c.tag = 'p';
        c.children = [];
        c.text = ph;
        c.atomic = true;
      } else {
        this.hiliteIndentedCode(c);
      }
    }
  }

  private restoreRaw(text: string): string {
    if (!this.rawStash.length) return text;
    const re = /<p>\u0002wzxhzdk:(\d+)\u0003<\/p>|\u0002wzxhzdk:(\d+)\u0003/g;
    const out = text.replace(re, (whole, a: string | undefined, b: string | undefined) => {
      if (a !== undefined) {
        const html = this.rawStash[+a];
        if (html === undefined) return whole;
        return isBlockLevelHtml(html) ? html : `<p>${html}</p>`;
      }
      return this.rawStash[+b!] ?? whole;
    });
    return out === text ? out : this.restoreRaw(out);
  }

  // ---------------- inline processing ----------------
  private inlineTree(el: El): void {
    if (el.text && !el.atomic) el.text = this.handleInline(el.text, 0);
    for (const c of el.children) {
      this.inlineTree(c);
      if (c.tail) c.tail = this.handleInline(c.tail, 0);
    }
  }

  /**
   * Applies the inline patterns in order, as Python-Markdown does, in linear
   * time. Python-Markdown replaces each match by a placeholder and searches
   * the rebuilt text again from its start (O(n²) for n matches); here each
   * pattern scans the text once, left to right, and the text is rebuilt once
   * per pattern. The text before a match holds no match and is unchanged,
   * and no pattern matches inside a placeholder, so the only difference
   * would be a pattern whose one-character lookbehind looks at the
   * placeholder's last character (ETX): for those, a search right after a
   * match whose last character is not equivalent to ETX runs on ETX + rest.
   */
  private handleInline(data: string, patternIndex: number): string {
    for (; patternIndex < this.patterns.length; patternIndex++) {
      const pattern = this.patterns[patternIndex]!;
      const differsFromEtx = this.lookbehindPatterns.get(pattern);
      let out = '';
      let last = 0;
      let from = 0;
      let afterMatch = false;
      while (from < data.length || from === 0) {
        let m: Match | null | 'skip';
        if (afterMatch && differsFromEtx?.(data[from - 1]!)) {
          const r = pattern(ETX + data.slice(from), 1);
          m = r && r !== 'skip' ? { start: r.start + from - 1, end: r.end + from - 1, node: r.node } : r;
        } else {
          m = pattern(data, from);
        }
        if (m === null || m === 'skip') break;
        if (m.node === null) {
          from = m.end;
          afterMatch = false;
          continue;
        }
        const node = m.node;
        if (node instanceof El && !node.atomic) {
          for (const child of [node, ...node.children]) {
            if (child.text) child.text = this.handleInline(child.text, patternIndex + 1);
            if (child !== node && child.tail) child.tail = this.handleInline(child.tail, patternIndex);
          }
        }
        out += data.slice(last, m.start) + this.stashNode(node);
        last = m.end;
        from = Math.max(m.end, m.start + 1);
        afterMatch = true;
      }
      if (last > 0) data = out + data.slice(last);
    }
    return data;
  }

  // Patterns. Each searches `data` from `from` and returns the first hit.
  private backtick: Pattern = (data, from) => {
    const re = BACKTICK_RE;
    re.lastIndex = from;
    const m = re.exec(data);
    if (!m) return null;
    if (m[3] !== undefined) {
      const el = new El('code');
      el.text = codeEscape(m[3]);
      el.atomic = true;
      return { start: m.index, end: m.index + m[0].length, node: el };
    }
    return { start: m.index, end: m.index + m[0].length, node: { str: m[1]! } };
  };

  private strongEm: Pattern = (data, from) => {
    const m = execFrom(STRONG_EM_RE, data, from);
    if (!m) return null;
    const strong = new El('strong');
    const em = strong.append('em');
    em.text = m[2]!;
    return { start: m.index, end: m.index + m[0].length, node: strong };
  };

  private userMention: Pattern = (data, from) => {
    const re = MENTIONS_RE;
    re.lastIndex = from;
    let m: RegExpExecArray | null;
    while ((m = re.exec(data))) {
      let name = m.groups!['match']!;
      let silent = m.groups!['silent'] === '_';
      const stream = STREAM_WILDCARDS.has(name);
      const topic = TOPIC_WILDCARDS.has(name);
      let user: { id: number; full_name: string } | undefined;
      const idm = /^(?<full>.+)?\|(?<id>\d+)$/s.exec(name);
      if (idm) {
        const full = idm.groups!['full'];
        user = this.ctx.userById(Number(idm.groups!['id']));
        if (full && user && user.full_name !== full) continue;
      } else {
        user = this.ctx.userByFullName(name);
      }
      let userId: string | null = null;
      if (stream) {
        if (!silent) this.result.wildcardMention = 'all';
        userId = '*';
      } else if (topic) {
        if (!silent && this.result.wildcardMention !== 'all') this.result.wildcardMention = 'topic';
      } else if (user) {
        if (!silent) this.result.mentionedUserIds.add(user.id);
        name = user.full_name;
        userId = String(user.id);
      } else {
        continue;
      }
      const el = new El('span');
      if (userId) el.set('data-user-id', userId);
      // Zulip marks channel-wide wildcards with a class of their own (the topic one has its own class instead of user-mention).
      el.set('class', topic ? 'topic-mention' : stream ? 'user-mention channel-wildcard-mention' : 'user-mention');
      let text = `@${name}`;
      if (silent) {
        el.set('class', `${el.get('class')} silent`);
        text = name;
      }
      silent = silent || false;
      el.text = text;
      el.atomic = true;
      return { start: m.index, end: m.index + m[0].length, node: el };
    }
    return null;
  };

  private groupMention: Pattern = (data, from) => {
    const re = GROUP_MENTIONS_RE;
    re.lastIndex = from;
    let m: RegExpExecArray | null;
    while ((m = re.exec(data))) {
      const silent = m.groups!['silent'] === '_';
      const group = this.ctx.groupByName(m.groups!['match']!);
      if (!group) continue;
      if (!silent) this.result.mentionedGroupIds.add(group.id);
      const el = new El('span');
      el.set('class', silent ? 'user-group-mention silent' : 'user-group-mention');
      el.set('data-user-group-id', String(group.id));
      el.text = silent ? group.name : `@${group.name}`;
      el.atomic = true;
      return { start: m.index, end: m.index + m[0].length, node: el };
    }
    return null;
  };

  private tex: Pattern = (data, from) => {
    const m = execFrom(TEX_RE, data, from);
    if (!m) return null;
    const body = m.groups!['body']!;
    const html = renderKatex(body, false);
    let node: InlineNode;
    if (html !== null) {
      node = { str: this.stashRaw(html) };
    } else {
      const span = new El('span');
      span.set('class', 'tex-error');
      span.text = `$$${body}$$`;
      span.atomic = true;
      node = span;
    }
    return { start: m.index, end: m.index + m[0].length, node };
  };

  /** Zulip's #**channel>topic@123** (FL 319; the empty topic since FL 346): a link to the message in its topic. */
  private messageLink: Pattern = (data, from) => this.topicLink(MESSAGE_LINK_RE, data, from);

  /** Zulip's #**channel>topic**: a link to the topic, with its latest message when it has one (FL 347, latest since FL 400). */
  private streamTopic: Pattern = (data, from) => this.topicLink(STREAM_TOPIC_RE, data, from);

  /** The first topic link (or message link, when `re` has an `id` group) of a known channel. */
  private topicLink(re: RegExp, data: string, from: number): Match | null {
    re.lastIndex = from;
    let m: RegExpExecArray | null;
    while ((m = re.exec(data))) {
      const { stream: name, topic, id } = m.groups as { stream: string; topic: string; id?: string };
      const stream = this.ctx.streamByName(name);
      if (!stream) continue;
      const el = new El('a');
      let href = `${NARROW_CHANNEL}${encodeStream(stream.id, name)}/topic/${hashUtilEncode(topic)}`;
      if (id !== undefined) {
        el.set('class', 'message-link');
        href += `/near/${id}`;
      } else {
        el.set('class', 'stream-topic');
        el.set('data-stream-id', String(stream.id));
        const latest = this.ctx.topicLatestMessageId?.(stream.id, topic);
        if (latest !== undefined) href += `/with/${latest}`;
      }
      el.set('href', href);
      // The text: `#channel > topic`, the empty topic by its display name in <em>; a message link's ends in " @ " and the speech balloon emoji.
      const suffix = id !== undefined ? ' @ \u{1F4AC}' : '';
      el.atomic = true;
      if (topic) {
        el.text = `#${name} > ${topic}${suffix}`;
      } else {
        el.text = `#${name} > `;
        const em = el.append('em');
        em.text = this.ctx.emptyTopicDisplayName ?? 'general chat';
        em.tail = suffix;
      }
      return { start: m.index, end: m.index + m[0].length, node: el };
    }
    return null;
  }

  private stream: Pattern = (data, from) => {
    const re = /(?<![^\s'"({[/<])#\*\*(?<stream>[^*]+)\*\*/gs;
    re.lastIndex = from;
    let m: RegExpExecArray | null;
    while ((m = re.exec(data))) {
      const name = m.groups!['stream']!;
      const stream = this.ctx.streamByName(name);
      if (!stream) continue;
      const el = new El('a');
      el.set('class', 'stream');
      el.set('data-stream-id', String(stream.id));
      el.set('href', `${NARROW_CHANNEL}${encodeStream(stream.id, name)}`);
      el.text = `#${name}`;
      el.atomic = true;
      return { start: m.index, end: m.index + m[0].length, node: el };
    }
    return null;
  };

  private timestamp: Pattern = (data, from) => {
    const m = execFrom(TIMESTAMP_RE, data, from);
    if (!m) return null;
    const input = m.groups!['time']!;
    const d = parseTimestamp(input);
    let el: El;
    if (!d) {
      el = new El('span');
      el.set('class', 'timestamp-error');
      el.text = `Invalid time format: ${input}`;
    } else {
      el = new El('time');
      el.set('datetime', isoZ(d));
      el.text = input;
    }
    el.atomic = true;
    return { start: m.index, end: m.index + m[0].length, node: el };
  };

  /**
   * Zulip's media syntax for uploaded audio (FL 405): `![name](/user_uploads/...)`
   * linking an upload of an audio type is an audio player. Any other `![...](...)`
   * is left to the other patterns (it is no link: the link pattern skips `![`).
   */
  private audio: Pattern = (data, from) => {
    for (const { start, text, link } of this.bracketLinks(/!\[/g, data, from)) {
      const href = link.href.trim();
      if (!href.startsWith(UPLOADS_PATH_PREFIX)) continue;
      const upload = this.ctx.uploadImage?.(href.slice(UPLOADS_PATH_PREFIX.length));
      if (upload && upload.frames > 0) {
        // An uploaded image (FL 437): its thumbnail in place, as Zulip's inline image.
        const img = new El('img');
        img.set('alt', text);
        img.set('class', 'inline-image');
        if (upload.frames > 1) img.set('data-animated', 'true');
        img.set('data-original-content-type', upload.contentType);
        img.set('data-original-dimensions', `${upload.width}x${upload.height}`);
        img.set('data-original-src', href);
        const transcoded = transcodedFor(upload);
        if (transcoded) img.set('data-transcoded-image', transcoded.name);
        img.set('src', `${UPLOADS_PATH_PREFIX}thumbnail/${href.slice(UPLOADS_PATH_PREFIX.length)}/${defaultFormat(upload).name}`);
        img.atomic = true;
        this.result.hasImage = true;
        this.result.hasAttachment = true;
        return { start, end: link.index, node: img };
      }
      if (!upload || !AUDIO_INLINE_MIME_TYPES.has(upload.contentType)) continue;
      const el = new El('audio');
      el.set('controls', 'controls');
      el.set('preload', 'metadata');
      el.set('src', href);
      if (text.trim()) el.set('title', text);
      el.atomic = true;
      this.result.hasAttachment = true;
      return { start, end: link.index, node: el };
    }
    return null;
  };

  /** Each `[text](href "title")` after `from` whose opening (matched by `opener`, a global regex ending at its `[`) is well formed. */
  private *bracketLinks(opener: RegExp, data: string, from: number): Generator<{ start: number; text: string; link: { href: string; title: string | null; index: number } }> {
    opener.lastIndex = from;
    let m: RegExpExecArray | null;
    while ((m = opener.exec(data))) {
      const { brackets, parens } = this.linkTables(data);
      const t = getLinkText(data, m.index + m[0].length, brackets);
      if (!t) continue;
      const link = getLinkHref(data, t.index, parens);
      if (link) yield { start: m.index, text: t.text, link };
    }
  }

  private link: Pattern = (data, from) => {
    for (const { start, text, link } of this.bracketLinks(/(?<!!)\[/g, data, from)) {
      let href = sanitizeUrl(link.href.trim());
      if (href === undefined) continue;
      href = this.rewriteLocal(href);
      const el = new El('a');
      el.set('href', href);
      if (link.title !== null) el.set('title', link.title);
      el.text = text.trim() ? text : href;
      el.atomic = true;
      this.noteLink(href);
      return { start, end: link.index, node: el };
    }
    return null;
  };

  /** Bracket and parenthesis matching for the text being searched, computed once per text (see matchingCloses). */
  private linkTablesFor: { data: string; brackets: Int32Array; parens: Int32Array } | null = null;
  private linkTables(data: string): { brackets: Int32Array; parens: Int32Array } {
    if (this.linkTablesFor?.data !== data) {
      this.linkTablesFor = { data, brackets: matchingCloses(data, 0, '[', ']'), parens: matchingCloses(data, 0, '(', ')') };
    }
    return this.linkTablesFor;
  }

  private autolink: Pattern = (data, from) => {
    webLinkRegex ??= buildWebLinkRegex();
    const m = execFrom(webLinkRegex, data, from);
    if (!m) return null;
    const url = m.groups!['url'] ?? m[0];
    const href = sanitizeUrl(url);
    if (href === undefined) return { start: m.index, end: m.index + m[0].length, node: { str: url } };
    return { start: m.index, end: m.index + m[0].length, node: this.urlToA(href, url) };
  };

  /** Zulip's url_to_a for a sanitized href: a link with atomic text, local links made relative. */
  private urlToA(href: string, text: string): El {
    const el = new El('a');
    const rel = this.rewriteLocal(href);
    el.set('href', rel);
    el.text = text;
    el.atomic = true;
    this.noteLink(rel);
    return el;
  }

  /** One organization linkifier: the matched text becomes a link to the expanded URL template. */
  private linkifier(l: Linkifier): Pattern {
    const c = compileLinkifier(l);
    if (!c) return () => null;
    return (data, from) => {
      c.re.lastIndex = from;
      const m = c.re.exec(data);
      if (!m) return null;
      const groups = m.groups!;
      const text = groups[OUTER_GROUP]!;
      const end = m.index + m[0].length - groups[AFTER_GROUP]!.length;
      const href = text === '' ? undefined : sanitizeUrl(c.expand(groups));
      if (href === undefined) return { start: m.index, end: Math.max(m.index + m[0].length, from + 1), node: null };
      return { start: end - text.length, end, node: this.urlToA(href, text) };
    };
  }

  private rewriteLocal(href: string): string {
    if (href.startsWith(this.realmPrefix + '#') || href.startsWith(this.realmPrefix + 'user_uploads/')) {
      return href.slice(this.realmPrefix.length);
    }
    return href;
  }

  private noteLink(href: string): void {
    this.result.hasLink = true;
    const path = href.startsWith(UPLOADS_PATH_PREFIX) ? href : href.startsWith(UPLOADS_PATH_PREFIX.slice(1)) ? '/' + href : null;
    if (path) {
      this.result.hasAttachment = true;
      const lower = path.toLowerCase();
      if (IMAGE_EXTENSIONS.some((e) => lower.endsWith(e))) this.result.hasImage = true;
    }
  }

  private simpleTag(re: RegExp, tag: string): Pattern {
    return (data, from) => {
      const m = execFrom(re, data, from);
      if (!m) return null;
      const el = new El(tag);
      el.text = m[2]!;
      return { start: m.index, end: m.index + m[0].length, node: el };
    };
  }

  private emoji: Pattern = (data, from) => {
    const m = execFrom(EMOJI_SYNTAX_RE, data, from);
    if (!m) return null;
    const syntax = m[0];
    const name = syntax.slice(1, -1);
    const custom = this.ctx.customEmojiByName?.(name);
    let node: InlineNode;
    if (custom) {
      node = makeImgEmoji(custom.source_url, syntax);
    } else if (name === 'zulip') {
      node = makeImgEmoji(ZULIP_EMOJI_PATH, syntax);
    } else {
      const e = emojiByName(name);
      node = e ? makeEmoji(e.code, syntax) : { str: syntax };
    }
    return { start: m.index, end: m.index + m[0].length, node };
  };

  private emoticon: Pattern = (data, from) => {
    if (!this.ctx.translateEmoticons) return 'skip';
    const m = execFrom(EMOTICON_RE, data, from);
    if (!m) return null;
    const name = EMOTICON_CONVERSIONS[m.groups!['emoticon']!]!;
    const e = emojiByName(name)!;
    return { start: m.index, end: m.index + m[0].length, node: makeEmoji(e.code, `:${name}:`) };
  };

  private newline: Pattern = (data, from) => {
    const i = data.indexOf('\n', from);
    if (i < 0) return null;
    return { start: i, end: i + 1, node: new El('br') };
  };

  private unicodeEmoji: Pattern = (data, from) => {
    const re = POSSIBLE_EMOJI_GLOBAL_RE;
    re.lastIndex = from;
    let m: RegExpExecArray | null;
    while ((m = re.exec(data))) {
      const e = nameForUnicodeSequence(m[0]);
      if (!e) continue;
      return { start: m.index, end: m.index + m[0].length, node: makeEmoji(e.code, `:${e.name}:`) };
    }
    return null;
  };

  // ---------------- serialization ----------------
  private renderRich(text: string): string {
    if (!text) return '';
    let out = '';
    let last = 0;
    for (const m of text.matchAll(INLINE_PH_RE)) {
      out += escapeText(text.slice(last, m.index));
      const node = this.nodeStash[+m[1]!];
      if (node === undefined) out += escapeText(m[0]);
      else if (node instanceof El) out += this.serialize(node);
      else out += this.renderRich(node.str);
      last = m.index + m[0].length;
    }
    return out + escapeText(text.slice(last));
  }

  private serialize(el: El): string {
    let out = `<${el.tag}`;
    const attrs = [...el.attrs].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    // An attribute whose value is its name is written bare, as Python-Markdown writes boolean ones.
    for (const [k, v] of attrs) out += k === v ? ` ${k}` : ` ${k}="${escapeAttr(v)}"`;
    out += '>';
    if (isVoid(el.tag)) {
      if (el.tag === 'br') return out + '\n' + this.renderRich(el.tail);
      return out + this.renderRich(el.tail);
    }
    out += this.renderRich(el.text);
    for (const c of el.children) out += this.serialize(c);
    out += `</${el.tag}>`;
    return out + this.renderRich(el.tail);
  }
}

const STRONG_EM_RE = /(\*\*\*)(?!\s+)([^*^\n]+)(?<!\s)\*\*\*/;
const TEX_RE = /\B(?<!\$)\$\$(?<body>[^\n_$](?:\\\$|[^$\n])*)\$\$(?!\$)\B/;
const TIMESTAMP_RE = /<time:(?<time>[^>]*?)>/;
/** Where channel, topic and message links point (Parley still writes the legacy `stream` operator). */
const NARROW_CHANNEL = '/#narrow/stream/';
const STREAM_TOPIC_RE = /(?<![^\s'"({[/<])#\*\*(?<stream>[^*>]+)>(?<topic>[^*]*)\*\*/gs;
const MESSAGE_LINK_RE = /(?<![^\s'"({[/<])#\*\*(?<stream>[^*>]+)>(?<topic>[^*]*)@(?<id>\d+)\*\*/gs;
const EMOJI_SYNTAX_RE = /:[\p{L}\p{N}\p{M}_\-+]+:/u;

const EMOTICON_RE = (() => {
  const alts = Object.keys(EMOTICON_CONVERSIONS)
    .map((e) => e.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('|');
  const term = String.raw`,.;?!()\[\] "'\n\t`;
  return new RegExp(`(?<![^${term}])(?<emoticon>${alts})(?![^${term}])`);
})();

const GLOBAL_CLONES = new WeakMap<RegExp, RegExp>();

/** Search `data` for `re` starting at index `from` (compiled once per regex). */
function execFrom(re: RegExp, data: string, from: number): RegExpExecArray | null {
  let g = GLOBAL_CLONES.get(re);
  if (!g) {
    g = new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g');
    GLOBAL_CLONES.set(re, g);
  }
  g.lastIndex = from;
  return g.exec(data);
}

function codeEscape(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function makeEmoji(code: string, display: string): El {
  const title = display.slice(1, -1).replaceAll('_', ' ');
  const span = new El('span');
  span.set('class', `emoji emoji-${code}`);
  span.set('title', title);
  span.set('role', 'img');
  span.set('aria-label', title);
  span.text = display;
  span.atomic = true;
  return span;
}

function makeImgEmoji(src: string, display: string): El {
  const img = new El('img');
  img.set('alt', display);
  img.set('class', 'emoji');
  img.set('src', src);
  img.set('title', display.slice(1, -1).replaceAll('_', ' '));
  img.atomic = true;
  return img;
}

/**
 * For every `open` at or after `from`, the index of the `close` that brings
 * the nesting depth counted from it back to zero (-1 if none): one pass
 * with a stack, so a link search costs O(n) however many brackets it tries.
 */
function matchingCloses(data: string, from: number, open: string, close: string): Int32Array {
  const out = new Int32Array(data.length).fill(-1);
  const stack: number[] = [];
  for (let pos = from; pos < data.length; pos++) {
    const c = data[pos];
    if (c === open) stack.push(pos);
    else if (c === close && stack.length) out[stack.pop()!] = pos;
  }
  return out;
}

/** The link text after the `[` before `index`; `brackets` from matchingCloses. */
function getLinkText(data: string, index: number, brackets: Int32Array): { text: string; index: number } | null {
  const end = brackets[index - 1]!;
  if (end < 0) return null;
  return { text: data.slice(index, end), index: end + 1 };
}

const LINK_HREF_START_RE = /\(\s*(?:(<[^<>]*>)\s*(?:('[^']*'|"[^"]*")\s*)?\))?/y;

function getLinkHref(data: string, index: number, parens: Int32Array): { href: string; title: string | null; index: number } | null {
  LINK_HREF_START_RE.lastIndex = index;
  const m = LINK_HREF_START_RE.exec(data);
  if (!m) return null;
  if (m[1]) {
    return { href: m[1].slice(1, -1).trim(), title: m[2] ? m[2].slice(1, -1) : null, index: index + m[0].length };
  }
  const start = index + m[0].length;
  {
    const pos = parens[index]!;
    if (pos >= 0) {
      let href = data.slice(start, pos);
      let title: string | null = null;
      const tm = /^(.*?)\s+(["'])(.*)\2\s*$/s.exec(href);
      if (tm) {
        href = tm[1]!;
        title = tm[3]!.replace(/\s/g, ' ');
      }
      return { href: href.trim(), title, index: pos + 1 };
    }
  }
  return null;
}

function isBlockLevelHtml(html: string): boolean {
  const m = /^<\/?([^ >]+)/.exec(html);
  if (!m) return false;
  if ('!?@%'.includes(m[1]![0]!)) return true;
  return BLOCK_LEVEL.has(m[1]!.toLowerCase());
}

function prettify(elem: El): void {
  if (BLOCK_LEVEL.has(elem.tag) && elem.tag !== 'code' && elem.tag !== 'pre') {
    if ((!elem.text || !elem.text.trim()) && elem.children.length && BLOCK_LEVEL.has(elem.children[0]!.tag)) {
      elem.text = '\n';
    }
    for (const e of elem.children) if (BLOCK_LEVEL.has(e.tag)) prettify(e);
  }
  if (!elem.tail || !elem.tail.trim()) elem.tail = '\n';
}

function expandTabs(line: string, size: number): string {
  if (!line.includes('\t')) return line;
  let out = '';
  for (const ch of line) {
    if (ch === '\t') out += ' '.repeat(size - (out.length % size));
    else out += ch;
  }
  return out;
}

/**
 * Zulip's topic_links: the linkifier matches in a topic name (earlier
 * linkifiers first, then raw URLs; overlapping matches dropped), in the
 * order they appear.
 */
export function topicLinks(topic: string, linkifiers: Linkifier[]): Array<{ url: string; text: string }> {
  type M = { url: string; text: string; index: number; precedence: number | null };
  const matches: M[] = [];
  linkifiers.forEach((l, precedence) => {
    const c = compileLinkifier(l);
    if (!c) return;
    let pos = 0;
    while (pos < topic.length) {
      c.re.lastIndex = pos;
      const m = c.re.exec(topic);
      if (!m) break;
      const g = m.groups!;
      const next = m.index + m[0].length - g[AFTER_GROUP]!.length;
      // Zulip reports the index where the whole match (delimiter included) starts.
      matches.push({ url: c.expand(g), text: g[OUTER_GROUP]!, index: m.index, precedence });
      pos = next > pos ? next : pos + 1;
    }
  });
  matches.sort((a, b) => a.precedence! - b.precedence! || a.index - b.index);
  webLinkRegex ??= buildWebLinkRegex();
  const anchored = (anchoredWebLinkRegex ??= new RegExp('^(?:' + webLinkRegex.source + ')', 'u'));
  let pos = 0;
  while (pos < topic.length) {
    const split = /[ !;),'"]/.exec(topic.slice(pos));
    const end = split ? pos + split.index : topic.length;
    const lm = anchored.exec(topic.slice(pos, end));
    if (lm) {
      const raw = lm.groups!['url'] ?? lm[0];
      const url = /^[A-Za-z][A-Za-z0-9+.-]*:/.test(raw) ? raw : `https://${raw}`;
      matches.push({ url, text: raw, index: pos, precedence: null });
    }
    pos = end + 1;
  }
  const overlaps = (a: M, b: M) => (b.index <= a.index && a.index < b.index + b.text.length) || (a.index <= b.index && b.index < a.index + a.text.length);
  const applied: M[] = [];
  for (const m of matches) if (applied.every((o) => !overlaps(o, m))) applied.push(m);
  applied.sort((a, b) => a.index - b.index);
  return applied.map((m) => ({ url: m.url, text: m.text }));
}

/**
 * For the short texts rendered in the request thread (channel and
 * organization descriptions, profile fields): what cannot be rendered
 * (nesting too deep) is shown as escaped text instead of failing every
 * request that shows it.
 */
export function renderMarkdownOrText(content: string, ctx: MarkdownContext): string {
  try {
    return renderMarkdown(content, ctx).html;
  } catch (e) {
    if (e instanceof MarkdownRenderingError) return `<p>${escapeText(content)}</p>`;
    throw e;
  }
}

/** Render Zulip-flavoured Markdown to HTML plus the facts the server needs. */
export function renderMarkdown(content: string, ctx: MarkdownContext): RenderResult {
  try {
    return new Renderer(ctx, content).render(content);
  } catch (e) {
    // A stack overflow is Zulip's recursion-limit failure: the message cannot be rendered.
    if (e instanceof RangeError && /call stack/i.test(e.message)) throw new MarkdownRenderingError('Markdown nesting too deep');
    throw e;
  }
}
