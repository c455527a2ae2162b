/**
 * HTML as Markdown-structured text, the way the html2text tool writes it
 * (in its Unicode mode, lines wrapped at 78 characters), for services that
 * send HTML descriptions: paragraphs and divisions as blank-line-separated
 * blocks, `<br>` as a hard break, headings, emphasis (`_`, `**`, `~~`),
 * inline code, links (`[text](url)`, or `<url>` where the text is the
 * URL), images (`![alt](src)`), lists, block quotes, preformatted text,
 * simple tables and definition lists; head, style and script left out.
 */
import { Parser } from 'htmlparser2';
import { PY_PUNCTUATION } from './python-text.ts';

const WIDTH = 78;
const NBSP_HOLDER = '&nbsp_place_holder;';

/** Decodes the character references of a text (as an HTML parser does for attribute values). */
function decodeText(s: string): string {
  if (!s.includes('&')) return s;
  let out = '';
  const p = new Parser({ ontext: (t) => (out += t) }, { decodeEntities: true });
  p.write(s.replace(/</g, '&lt;'));
  p.end();
  return out;
}

/** Python's `\s+` over a str (Unicode whitespace, U+00A0 included). */
const SPACES = /[\s\u001c-\u001f\u0085]+/gu;
const PY_WS = /^[\s\u001c-\u001f\u0085]$/u;

/** Markdown's special characters in a URL or alt text, escaped. */
const escapeMd = (s: string): string => s.replace(/([\\[\]()])/g, '\\$1');

/** What in a run of text would read as Markdown structure, escaped. */
function escapeSection(s: string): string {
  return s
    .replace(/\\(?=[\\`*_{}[\]()#+\-.!])/g, '\\\\')
    .replace(/^(\s*\d+)(\.)(?=\s)/gm, '$1\\$2')
    .replace(/^(\s*)(\+)(?=\s)/gm, '$1\\$2')
    .replace(/^(\s*)(-)(?=\s|-)/gm, '$1\\$2');
}

const headingLevel = (tag: string): number => (/^h[1-9]$/.test(tag) ? Number(tag[1]) : 0);

interface ListState {
  name: 'ul' | 'ol';
  num: number;
}

class Converter {
  private out: string[] = [];
  private quiet = 0;
  private pp = 0;
  private start = true;
  private space = false;
  private lastWasNL = false;
  private lastWasList = false;
  private brToggle = '';
  private blockquote = 0;
  private pre = false;
  private startPre = false;
  private listCodeIndent = '';
  private code = false;
  private astack: Array<Record<string, string> | null> = [];
  private maybeAutomaticLink: string | null = null;
  private emptyLink = false;
  private list: ListState[] = [];
  private inHeader = false;
  private startStressed = false;
  private withinStressed = 0;
  private precedingStressed = false;
  private precedingData = '';
  private currentTag = '';
  private splitNextTd = false;
  private tdCount = 0;
  private tableStart = false;

  private emit(s: string): void {
    this.out.push(s);
    if (s) this.lastWasNL = s.endsWith('\n');
  }

  private pbr(): void {
    if (this.pp === 0) this.pp = 1;
  }

  private p(): void {
    this.pp = 2;
  }

  private softBr(): void {
    this.pbr();
    this.brToggle = '  ';
  }

  o(data: string, pureData = false, force: boolean | 'end' = false): void {
    if (this.quiet) return;
    if (pureData && !this.pre) {
      data = data.replace(SPACES, ' ');
      if (data.startsWith(' ')) {
        this.space = true;
        data = data.slice(1);
      }
    }
    if (!data && !force) return;
    if (this.startPre && !data.startsWith('\n') && !data.startsWith('\r\n')) data = '\n' + data;
    let bq = '>'.repeat(this.blockquote);
    if (!(force && data.startsWith('>')) && this.blockquote) bq += ' ';
    if (this.pre) {
      if (this.list.length) bq += this.listCodeIndent;
      bq += '    ';
      data = data.replaceAll('\n', '\n' + bq);
    }
    if (this.startPre) {
      this.startPre = false;
      if (this.list.length) data = data.replace(new RegExp(`^[${('\n' + bq).replace(/[\\\]^-]/g, '\\$&')}]+`), '');
    }
    if (this.start) {
      this.space = false;
      this.pp = 0;
      this.start = false;
    }
    if (force === 'end') {
      this.pp = 0;
      this.emit('\n');
      this.space = false;
    }
    if (this.pp) {
      this.emit((this.brToggle + '\n' + bq).repeat(this.pp));
      this.space = false;
      this.brToggle = '';
    }
    if (this.space) {
      if (!this.lastWasNL) this.emit(' ');
      this.space = false;
    }
    this.pp = 0;
    this.emit(data);
  }

  data(data: string, entityChar = false): void {
    if (!data) return;
    const stripped = data.trim();
    if (this.startStressed) {
      data = stripped;
      this.startStressed = false;
    } else if (this.withinStressed) {
      data = stripped ? ' ' + stripped : stripped;
    } else if (this.precedingStressed) {
      if (/^[^\][(){}\s.!?]/u.test(data) && !headingLevel(this.currentTag) && !['a', 'code', 'pre'].includes(this.currentTag)) data = ' ' + data;
      this.precedingStressed = false;
    }
    if (this.maybeAutomaticLink !== null) {
      const href = this.maybeAutomaticLink;
      if (href === data && /^[a-zA-Z+]+:\/\//.test(href)) {
        this.o(`<${data}>`);
        this.emptyLink = false;
        return;
      }
      this.o('[');
      this.maybeAutomaticLink = null;
      this.emptyLink = false;
    }
    if (!this.code && !this.pre && !entityChar) data = escapeSection(data);
    this.precedingData = data;
    this.o(data, true);
  }

  /** A run of text as the parser hands it over, its character references undecoded. */
  text(raw: string): void {
    const ref = /&(#[xX][0-9a-fA-F]+|#[0-9]+|[a-zA-Z][a-zA-Z0-9]*);?/g;
    let at = 0;
    for (const m of raw.matchAll(ref)) {
      if (m.index > at) this.data(raw.slice(at, m.index));
      const name = m[1];
      // &nbsp; stays a no-break space (held as a placeholder, so as not to be collapsed as whitespace).
      if (name === 'nbsp') this.data(NBSP_HOLDER, true);
      else {
        const decoded = decodeText(m[0].endsWith(';') ? m[0] : m[0] + ';');
        if (decoded) this.data(decoded, true);
      }
      at = m.index + m[0].length;
    }
    if (at < raw.length) this.data(raw.slice(at));
  }

  private stressed(start: boolean): void {
    if (start) {
      this.startStressed = true;
      this.withinStressed += 1;
    } else {
      this.withinStressed -= 1;
      this.startStressed = false;
      this.precedingStressed = true;
    }
  }

  tag(tag: string, attrs: Record<string, string>, start: boolean): void {
    this.currentTag = tag;
    if (start && this.maybeAutomaticLink !== null && !['p', 'div', 'style', 'dl', 'dt', 'img'].includes(tag)) {
      this.o('[');
      this.maybeAutomaticLink = null;
      this.emptyLink = false;
    }
    const level = headingLevel(tag);
    if (level) {
      if (this.astack.length) {
        if (start) {
          this.inHeader = true;
          if (this.out.at(-1) === '[') {
            this.out.pop();
            this.space = false;
            this.o('#'.repeat(level) + ' ');
            this.o('[');
          }
        } else {
          this.pp = 0;
          this.inHeader = false;
          return;
        }
      } else {
        this.p();
        if (start) {
          this.inHeader = true;
          this.o('#'.repeat(level) + ' ');
        } else {
          this.inHeader = false;
          return;
        }
      }
    }
    if ((tag === 'p' || tag === 'div') && !this.astack.length && !this.splitNextTd) this.p();
    if (tag === 'br' && start) this.o(this.blockquote > 0 ? '  \n> ' : '  \n');
    if (tag === 'hr' && start) {
      this.p();
      this.o('* * *');
      this.p();
    }
    if (tag === 'head' || tag === 'style' || tag === 'script') this.quiet += start ? 1 : -1;
    if (tag === 'body') this.quiet = 0;
    if (tag === 'blockquote') {
      if (start) {
        this.p();
        this.o('> ', false, true);
        this.start = true;
        this.blockquote += 1;
      } else {
        this.blockquote -= 1;
        this.p();
      }
    }
    const lastPreceding = this.precedingData.at(-1);
    if (tag === 'em' || tag === 'i' || tag === 'u') {
      const separate = start && lastPreceding !== undefined && !PY_WS.test(lastPreceding) && !PY_PUNCTUATION.includes(lastPreceding);
      if (separate) this.precedingData += ' ';
      this.o(separate ? ' _' : '_');
      this.stressed(start);
    }
    if (tag === 'strong' || tag === 'b') {
      const separate = start && lastPreceding === '*';
      if (separate) this.precedingData += ' ';
      this.o(separate ? ' **' : '**');
      this.stressed(start);
    }
    if (tag === 'del' || tag === 'strike' || tag === 's') {
      const separate = start && lastPreceding === '~';
      if (separate) this.precedingData += ' ';
      this.o(separate ? ' ~~' : '~~');
      this.stressed(start);
    }
    if ((tag === 'kbd' || tag === 'code' || tag === 'tt') && !this.pre) {
      this.o('`');
      this.code = !this.code;
    }
    if (tag === 'a') this.anchor(attrs, start);
    if (tag === 'img' && start && attrs.src !== undefined) {
      const alt = attrs.alt ?? '';
      if (this.maybeAutomaticLink !== null) {
        this.o('[');
        this.maybeAutomaticLink = null;
        this.emptyLink = false;
      }
      this.o(`![${escapeMd(alt)}]`);
      this.o(`(${escapeMd(attrs.src)})`);
    }
    if (tag === 'dl' && start) this.p();
    if (tag === 'dt' && !start) this.pbr();
    if (tag === 'dd') {
      if (start) this.o('    ');
      else this.pbr();
    }
    this.lists(tag, attrs, start);
    this.table(tag, start);
    if (tag === 'pre') {
      if (start) {
        this.startPre = true;
        this.pre = true;
      } else this.pre = false;
      this.p();
    }
  }

  private anchor(attrs: Record<string, string>, start: boolean): void {
    if (start) {
      const href = attrs.href;
      if (href !== undefined && !href.startsWith('#')) {
        this.astack.push(attrs);
        this.maybeAutomaticLink = href;
        this.emptyLink = true;
      } else this.astack.push(null);
      return;
    }
    if (!this.astack.length) return;
    const a = this.astack.pop();
    if (this.maybeAutomaticLink && !this.emptyLink) {
      this.maybeAutomaticLink = null;
    } else if (a) {
      if (this.emptyLink) {
        this.o('[');
        this.emptyLink = false;
        this.maybeAutomaticLink = null;
      }
      this.pp = 0;
      const title = escapeMd(a.title ?? '');
      this.o(`](${escapeMd(a.href)}${title.trim() ? ` "${title}"` : ''})`);
    }
  }

  private lists(tag: string, attrs: Record<string, string>, start: boolean): void {
    if (tag === 'ol' || tag === 'ul') {
      if (!this.list.length && !this.lastWasList) this.p();
      if (start) {
        const from = /^\s*[+-]?\d+\s*$/.test(attrs.start ?? '') ? Number(attrs.start) - 1 : 0;
        this.list.push({ name: tag, num: from });
      } else if (this.list.length) {
        this.list.pop();
        if (!this.list.length) this.o('\n');
      }
      this.lastWasList = true;
    } else this.lastWasList = false;
    if (tag !== 'li') return;
    this.listCodeIndent = '';
    this.pbr();
    if (!start) return;
    const li = this.list.at(-1) ?? { name: 'ul', num: 0 };
    let parent: string | null = null;
    for (const l of this.list) {
      this.listCodeIndent += parent === 'ol' ? '   ' : '  ';
      parent = l.name;
    }
    this.o(this.listCodeIndent);
    if (li.name === 'ul') {
      this.listCodeIndent += '  ';
      this.o('* ');
    } else {
      li.num += 1;
      this.listCodeIndent += '   ';
      this.o(`${li.num}. `);
    }
    this.start = true;
  }

  private table(tag: string, start: boolean): void {
    if (tag === 'table') this.tableStart = start ? true : this.tableStart;
    if ((tag === 'td' || tag === 'th') && start) {
      if (this.splitNextTd) this.o('| ');
      this.splitNextTd = true;
      this.tdCount += 1;
    }
    if (tag === 'tr' && start) this.tdCount = 0;
    if (tag === 'tr' && !start) {
      this.splitNextTd = false;
      this.softBr();
      if (this.tableStart) {
        this.o(Array(this.tdCount).fill('---').join('|'));
        this.softBr();
        this.tableStart = false;
      }
    }
  }

  finish(): string {
    this.pbr();
    this.o('', false, 'end');
    return this.out.join('').replaceAll(NBSP_HOLDER, '\u00a0');
  }
}

/** Python's textwrap chunks: whitespace runs, and words split after their hyphens. */
const WORDSEP = /([\t\n\v\f\r ]+|(?<=[\p{L}\p{N}_!"'&.,?])-{2,}(?=[\p{L}\p{N}_])|[^\t\n\v\f\r ]+?(?:-(?:(?<=[\p{L}\p{Nl}\p{No}_]{2}-)|(?<=[\p{L}\p{Nl}\p{No}_]-[\p{L}\p{Nl}\p{No}_]-))(?=[\p{L}\p{Nl}\p{No}_]-?[\p{L}\p{Nl}\p{No}_])|(?=[\t\n\v\f\r ]|$)|(?<=[\p{L}\p{N}_!"'&.,?])(?=-{2,}[\p{L}\p{N}_])))/u;

const len = (s: string): number => [...s].length;

/** Python's str.expandtabs(8). */
function expandTabs(s: string): string {
  let out = '';
  let col = 0;
  for (const ch of s) {
    if (ch === '\t') {
      const n = 8 - (col % 8);
      out += ' '.repeat(n);
      col += n;
    } else {
      out += ch;
      col = ch === '\n' || ch === '\r' ? 0 : col + 1;
    }
  }
  return out;
}

/** Python's textwrap.wrap(text, width, break_long_words=False, subsequent_indent=indent). */
function wrap(text: string, width: number, indent: string): string[] {
  const munged = expandTabs(text).replace(/[\t\n\v\f\r]/g, ' ');
  const chunks = munged.split(WORDSEP).filter((c) => c);
  chunks.reverse();
  const lines: string[] = [];
  const blank = (c: string): boolean => c.trim() === '';
  while (chunks.length) {
    const lineIndent = lines.length ? indent : '';
    const room = width - len(lineIndent);
    if (blank(chunks.at(-1)!) && lines.length) chunks.pop();
    const line: string[] = [];
    let used = 0;
    while (chunks.length && used + len(chunks.at(-1)!) <= room) {
      const c = chunks.pop()!;
      line.push(c);
      used += len(c);
    }
    if (chunks.length && len(chunks.at(-1)!) > room && !line.length) line.push(chunks.pop()!);
    if (line.length && blank(line.at(-1)!)) line.pop();
    if (line.length) lines.push(lineIndent + line.join(''));
  }
  return lines;
}

/** Whether html2text leaves a paragraph unwrapped (code, lists). */
function skipWrap(para: string): boolean {
  if (para.startsWith('    ') || para.startsWith('\t')) return true;
  const stripped = para.replace(/^[\s\u001c-\u001f\u0085]+/u, '');
  if (stripped.startsWith('--') && stripped.length > 2 && stripped[2] !== '-') return false;
  if ((stripped.startsWith('-') || stripped.startsWith('*')) && !stripped.startsWith('**')) return true;
  return /^\d+\.\s/.test(stripped) || /^[-*+]\s/.test(stripped);
}

/** html2text's wrapping of every paragraph at WIDTH. */
function optWrap(text: string): string {
  let result = '';
  let newlines = 0;
  for (const para of text.split('\n')) {
    if (para.length > 0) {
      if (!skipWrap(para)) {
        const indent = para.startsWith('  *') ? '    ' : para.startsWith('> ') ? '> ' : '';
        result += wrap(para, WIDTH, indent).join('\n');
        if (para.endsWith('  ')) {
          result += '  \n';
          newlines = 1;
        } else if (indent) {
          result += '\n';
          newlines = 1;
        } else {
          result += '\n\n';
          newlines = 2;
        }
      } else if (!/^\s\+/.test(para)) {
        result += para + '\n';
        newlines = 1;
      }
    } else if (newlines < 2) {
      result += '\n';
      newlines += 1;
    }
  }
  return result;
}

/** An HTML fragment as html2text's Markdown (see above), not yet trimmed. */
export function htmlToMarkdown(html: string): string {
  const c = new Converter();
  const parser = new Parser(
    {
      onopentag: (name, attribs) => {
        const attrs: Record<string, string> = {};
        for (const [k, v] of Object.entries(attribs)) attrs[k] = decodeText(v);
        c.tag(name, attrs, true);
      },
      // Only the end tags written out (no parser-implied ones).
      onclosetag: (name, implied) => {
        if (!implied) c.tag(name, {}, false);
      },
      ontext: (t) => c.text(t),
    },
    { decodeEntities: false, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return optWrap(c.finish());
}
