// A tiny ElementTree-like model: text is the content before the first
// child, tail is the content after the element inside its parent.
// Strings may contain placeholders (see stash.ts) that are expanded when
// the tree is serialized.

export class El {
  tag: string;
  attrs: Array<[string, string]> = [];
  text = '';
  tail = '';
  children: El[] = [];
  /** text must not be inline-processed (code, link text, mentions...). */
  atomic = false;

  constructor(tag: string) {
    this.tag = tag;
  }

  set(name: string, value: string): void {
    const i = this.attrs.findIndex(([n]) => n === name);
    if (i >= 0) this.attrs[i] = [name, value];
    else this.attrs.push([name, value]);
  }

  get(name: string): string | undefined {
    return this.attrs.find(([n]) => n === name)?.[1];
  }

  append(tag: string): El {
    const e = new El(tag);
    this.children.push(e);
    return e;
  }

  last(): El | undefined {
    return this.children[this.children.length - 1];
  }
}

// Python-Markdown's list of block-level tags.
export const BLOCK_LEVEL = new Set([
  'address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl', 'fieldset', 'figcaption',
  'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'main',
  'menu', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'ul', 'canvas', 'colgroup', 'dd', 'body',
  'dt', 'group', 'html', 'iframe', 'li', 'legend', 'math', 'map', 'noscript', 'output', 'object',
  'option', 'progress', 'script', 'style', 'summary', 'tbody', 'td', 'textarea', 'tfoot', 'th',
  'thead', 'tr', 'video',
]);

const VOID = new Set(['area', 'base', 'basefont', 'br', 'col', 'frame', 'hr', 'img', 'input', 'isindex', 'link', 'meta', 'param']);

export function isVoid(tag: string): boolean {
  return VOID.has(tag);
}

const AMP_RE = /&(?!(?:#[0-9]+|#x[0-9a-f]+|[0-9a-z]+);)/gi;

/** Escape text content: bare & (not starting an entity), <, >. */
export function escapeText(s: string): string {
  return s.replace(AMP_RE, '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

export function escapeAttr(s: string): string {
  return escapeText(s).replaceAll('"', '&quot;');
}

/** Full escaping, as in code blocks (Pygments style). */
export function escapeCode(s: string): string {
  return s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** Python's html.escape(quote=True). */
export function pyHtmlEscape(s: string): string {
  return s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#x27;');
}
