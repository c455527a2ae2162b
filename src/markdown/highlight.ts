/**
 * Code-block highlighting: Prism (prismjs) tokenizes, and its tokens are
 * written as the Pygments short class names Zulip's HTML carries
 * (`<span class="k">def</span>`), adjacent tokens of one class merged into one
 * span as Pygments' HtmlFormatter does. Prism's grammars are the lexers; this
 * module only maps names: a Pygments lexer (as Zulip names a code block's
 * language) to a Prism grammar, and Prism token types to Pygments classes,
 * with the few per-language differences in how the two name things (Python 3's
 * `print` is a builtin, TeX's braces are Name.Builtin, PHP's bare words are
 * Name.Other, identifiers Prism leaves untyped are Pygments Names).
 */
import type Prism from 'prismjs';
import { lazyModule } from '../lib/lazy.ts';

// Prism and its grammars are loaded by the first code block to highlight:
// most messages have none, and a process that renders nothing never needs them.
const prismModule = lazyModule<typeof Prism>('prismjs');
const loadLanguagesModule = lazyModule<typeof import('prismjs/components/index.js')>('prismjs/components/index.js');

/** How one Pygments lexer is highlighted with a Prism grammar. */
interface LexerSpec {
  prism: string;
  /** Pygments class for identifiers Prism leaves untyped (null: plain text, as Pygments' Text). */
  names?: string | null;
  /** Pygments class by Prism `type`, `type:alias` or `type:text`, over the defaults ('' for plain text). */
  classes?: Record<string, string>;
  /** Untyped words with a class of their own (Pygments' pseudo-builtins and the like). */
  words?: Record<string, string>;
  /** Keywords that this lexer calls builtins. */
  builtinKeywords?: readonly string[];
  /** Function names are Name.Function only where defined (after these keywords); elsewhere Names. */
  definers?: readonly string[];
}

const PYTHON_PSEUDO = { self: 'bp', cls: 'bp', Ellipsis: 'bp', NotImplemented: 'bp' };
const PYTHON = { prism: 'python', names: 'n', words: PYTHON_PSEUDO, definers: ['def'], classes: { 'keyword:None': 'kc' } } as const;
const PHP: LexerSpec = { prism: 'php', names: 'nx', classes: { 'class-name:type-declaration': 'nx', 'function': 'nx', 'constant': 'kc' } };
const JS: LexerSpec = { prism: 'javascript', names: 'nx', classes: { 'function': 'nx', 'class-name': 'nc' } };

/** Pygments lexer name (Zulip's data-code-language) -> how to highlight it. */
const LEXERS: Record<string, LexerSpec> = {
  Python: { ...PYTHON, builtinKeywords: ['print', 'exec'] },
  'Python 2.x': PYTHON,
  TeX: { prism: 'latex', names: null, classes: { function: 'k', punctuation: 'nb', keyword: 'k' } },
  PHP,
  'CSS+PHP': PHP,
  'HTML+PHP': PHP,
  'JavaScript+PHP': PHP,
  'XML+PHP': PHP,
  JavaScript: JS,
  JSX: { ...JS, prism: 'jsx' },
  TypeScript: { ...JS, prism: 'typescript' },
  TSX: { ...JS, prism: 'tsx' },
  Java: { prism: 'java', names: 'n' },
  C: { prism: 'c', names: 'n' },
  'C++': { prism: 'cpp', names: 'n' },
  'C#': { prism: 'csharp', names: 'n' },
  'Objective-C': { prism: 'objectivec', names: 'n' },
  Go: { prism: 'go', names: 'n' },
  Rust: { prism: 'rust', names: 'n' },
  Ruby: { prism: 'ruby', names: 'n' },
  Kotlin: { prism: 'kotlin', names: 'n' },
  Swift: { prism: 'swift', names: 'n' },
  Scala: { prism: 'scala', names: 'n' },
  Dart: { prism: 'dart', names: 'n' },
  Groovy: { prism: 'groovy', names: 'n' },
  Haskell: { prism: 'haskell', names: 'n' },
  OCaml: { prism: 'ocaml', names: 'n' },
  Elixir: { prism: 'elixir', names: 'n' },
  Erlang: { prism: 'erlang', names: 'n' },
  Clojure: { prism: 'clojure', names: 'n' },
  Perl: { prism: 'perl', names: 'n' },
  Lua: { prism: 'lua', names: 'n' },
  S: { prism: 'r', names: 'n' },
  Julia: { prism: 'julia', names: 'n' },
  Matlab: { prism: 'matlab', names: 'n' },
  SQL: { prism: 'sql', names: 'n' },
  GraphQL: { prism: 'graphql', names: 'n' },
  'Protocol Buffer': { prism: 'protobuf', names: 'n' },
  Bash: { prism: 'bash', names: null, classes: { function: '' } },
  PowerShell: { prism: 'powershell', names: null },
  Docker: { prism: 'docker', names: null },
  Makefile: { prism: 'makefile', names: null },
  JSON: { prism: 'json', names: null, classes: { property: 'nt', string: 's2' } },
  YAML: { prism: 'yaml', names: null },
  TOML: { prism: 'toml', names: null },
  INI: { prism: 'ini', names: null },
  CSS: { prism: 'css', names: null },
  SCSS: { prism: 'scss', names: null },
  HTML: { prism: 'markup', names: null },
  XML: { prism: 'markup', names: null },
  Diff: { prism: 'diff', names: null },
  Markdown: { prism: 'markdown', names: null },
  'Nginx configuration file': { prism: 'nginx', names: null },
};

/** Pygments class by Prism token type (before the per-lexer classes and content rules). */
const DEFAULT_CLASSES: Record<string, string> = {
  keyword: 'k',
  builtin: 'nb',
  boolean: 'kc',
  null: 'kc',
  nil: 'kc',
  constant: 'no',
  'class-name': 'nc',
  function: 'nf',
  operator: 'o',
  punctuation: 'p',
  char: 'sc',
  regex: 'sr',
  variable: 'nv',
  property: 'py',
  tag: 'nt',
  'attr-name': 'na',
  'attr-value': 's',
  namespace: 'nn',
  decorator: 'nd',
  annotation: 'nd',
  symbol: 'ss',
  important: 'k',
  atrule: 'k',
  rule: 'k',
  selector: 'nt',
  url: 's',
  entity: 'ni',
  doctype: 'cp',
  prolog: 'cp',
  cdata: 'cp',
  directive: 'cp',
  macro: 'cp',
  inserted: 'gi',
  deleted: 'gd',
  coord: 'gu',
  title: 'gh',
  bold: 'gs',
  italic: 'ge',
};

let loaded = false;
function ensureLoaded(): void {
  if (loaded) return;
  prismModule(); // first: the grammars' loader extends the Prism it defines
  loadLanguagesModule()([...new Set(Object.values(LEXERS).map((l) => l.prism))]);
  loaded = true;
}

/** Pygments' number classes by the literal's form. */
function numberClass(text: string): string {
  if (/^[-+]?0[xX]/.test(text)) return 'mh';
  if (/^[-+]?0[oO]/.test(text)) return 'mo';
  if (/^[-+]?0[bB]/.test(text)) return 'mb';
  if (/[.eE]/.test(text)) return 'mf';
  return 'mi';
}

type Piece = [cls: string | null, text: string];

/** A string literal: its prefix (String.Affix) and the quote kind's class. */
function stringPieces(text: string): Piece[] {
  const m = /^([A-Za-z]{1,3})(?=["'`])/.exec(text);
  const body = m ? text.slice(m[1].length) : text;
  const cls = body.startsWith('"') ? 's2' : body.startsWith("'") ? 's1' : body.startsWith('`') ? 'sb' : 's';
  return m ? [['sa', m[1]], [cls, body]] : [[cls, body]];
}

function commentClass(text: string, atStart: boolean): string {
  if (atStart && text.startsWith('#!')) return 'ch';
  if (text.startsWith('/*') || text.startsWith('<!--') || text.includes('\n')) return 'cm';
  return 'c1';
}

/** Plain text between tokens: identifiers get the lexer's Name class, the rest stays plain. */
function gapPieces(text: string, spec: LexerSpec): Piece[] {
  if (!spec.names && !spec.words) return [[null, text]];
  const out: Piece[] = [];
  let last = 0;
  for (const m of text.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) {
    if (m.index > last) out.push([null, text.slice(last, m.index)]);
    out.push([spec.words?.[m[0]] ?? spec.names ?? null, m[0]]);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push([null, text.slice(last)]);
  return out;
}

function tokenClass(tok: Prism.Token, spec: LexerSpec): string | null {
  const aliases = Array.isArray(tok.alias) ? tok.alias : tok.alias ? [tok.alias] : [];
  const text = typeof tok.content === 'string' ? tok.content : '';
  for (const key of [...aliases.map((a) => `${tok.type}:${a}`), `${tok.type}:${text}`, tok.type]) {
    const c = spec.classes?.[key];
    if (c !== undefined) return c || null;
  }
  if (tok.type === 'keyword' && spec.builtinKeywords?.includes(text)) return 'nb';
  for (const key of [tok.type, ...aliases]) if (DEFAULT_CLASSES[key]) return DEFAULT_CLASSES[key];
  return null;
}

/** Flattens Prism's token stream into (class, text) pieces. */
function flatten(stream: Prism.TokenStream, spec: LexerSpec, out: Piece[], inherited: string | null, state: { prevWord: string | null }): void {
  const items = Array.isArray(stream) ? stream : [stream];
  for (const item of items) {
    if (typeof item === 'string') {
      if (inherited) out.push([inherited, item]);
      else out.push(...gapPieces(item, spec));
      if (/\S/.test(item)) state.prevWord = null;
      continue;
    }
    const atStart = out.every(([, t]) => t === '');
    if (typeof item.content !== 'string') {
      const cls = item.type === 'string' || item.type.endsWith('-string') ? 's2' : tokenClass(item, spec);
      flatten(item.content, spec, out, cls ?? inherited, state);
      continue;
    }
    const text = item.content;
    let cls: string | null;
    if (item.type === 'comment') cls = commentClass(text, atStart);
    else if ((item.type === 'string' || item.type.endsWith('-string')) && inherited?.startsWith('s')) cls = inherited;
    else if (item.type === 'string' || item.type.endsWith('-string')) {
      const specific = tokenClass(item, spec);
      if (specific && specific !== 's2' && item.type !== 'string') cls = specific;
      else {
        out.push(...(spec.classes?.string ? ([[spec.classes.string, text]] as Piece[]) : stringPieces(text)));
        state.prevWord = null;
        continue;
      }
    } else if (item.type === 'number') cls = numberClass(text);
    else if (item.type === 'function' && spec.definers) cls = state.prevWord && spec.definers.includes(state.prevWord) ? 'nf' : (spec.names ?? null);
    else cls = tokenClass(item, spec);
    out.push([inherited && !cls ? inherited : cls, text]);
    state.prevWord = item.type === 'keyword' ? text : null;
  }
}

/** Escaping of highlighted code as Zulip's output has it (single quotes stay). */
const escapeHighlighted = (s: string): string => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** Whether the Pygments lexer of this name is highlighted here. */
export function canHighlight(lexerName: string): boolean {
  return lexerName in LEXERS;
}

/**
 * The code's HTML with Pygments' token spans (adjacent pieces of one class
 * merged), for a Pygments lexer name; null when there is no grammar for it.
 */
export function highlightCode(code: string, lexerName: string): string | null {
  const spec = LEXERS[lexerName];
  if (!spec) return null;
  ensureLoaded();
  const Prism = prismModule();
  const grammar = Prism.languages[spec.prism];
  if (!grammar) return null;
  const pieces: Piece[] = [];
  flatten(Prism.tokenize(code, grammar), spec, pieces, null, { prevWord: null });
  let html = '';
  let cur: string | null = null;
  let buf = '';
  const flush = () => {
    if (buf) html += cur ? `<span class="${cur}">${escapeHighlighted(buf)}</span>` : escapeHighlighted(buf);
    buf = '';
  };
  for (const [cls, text] of pieces) {
    if (!text) continue;
    // Whitespace alone is plain text between tokens (Pygments' Text), and
    // a line break always ends a span, as in Pygments' line-wise output.
    for (const part of text.split(/(\n)/)) {
      if (!part) continue;
      const c = part === '\n' || (cls !== null && /^\s+$/.test(part) && !cls.startsWith('s') && !cls.startsWith('c')) ? null : cls;
      if (c !== cur) {
        flush();
        cur = c;
      }
      buf += part;
    }
  }
  flush();
  return html;
}
