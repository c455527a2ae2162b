// Fenced blocks (``` and ~~~), processed line by line before block parsing,
// with Zulip's semantics: nested `quote` fences become "> " lines, `spoiler`
// fences become a header/content pair, `math` fences render display TeX,
// everything else is a code block stored as raw HTML.
import { escapeCode, pyHtmlEscape } from './tree.ts';
import { MAX_NESTING_DEPTH, MarkdownRenderingError } from './errors.ts';
import languages from './pygments-languages.json' with { type: 'json' };
import { highlightCode } from './highlight.ts';

export const FENCE_RE =
  /^(?<fence>~{3,}|`{3,})[ ]*(?:\{?\.?(?<lang>[a-zA-Z0-9_+,\-./#]+)[ ]*(?<header>[^ ~`][^~`]*)?\}?)?$/;

const LANGUAGE_NAMES = languages as Record<string, string>;

/** Canonical (Pygments) display name for a code-block language, as Zulip reports it. */
export function canonicalLanguageName(lang: string): string {
  return LANGUAGE_NAMES[lang.toLowerCase()] ?? lang;
}

export interface FenceHost {
  stashRaw(html: string): string;
  renderTex(tex: string, display: boolean): string | null;
  /** The language of fenced blocks that name none (the organization's default_code_block_language). */
  defaultLanguage?: string | null;
}

/** Python-Markdown's CodeHilite shebang line: `#!python`, `#!/usr/bin/python`. */
const SHEBANG_RE = /^#!(?:(?:\/\w+)*[/ ])?([\w#.+-]*)/;

/**
 * Render a code block the way Zulip's codehilite wrapper lays it out, with
 * Pygments' token spans when the language has a grammar (highlight.ts). A
 * block without a language is highlighted by its shebang line, if any (the
 * line stays, and no data-code-language is set, as in Zulip).
 */
export function renderCodeBlock(text: string, lang: string | null): string {
  const src = text.replace(/^\n+|\n+$/g, '');
  const langAttr = lang ? ` data-code-language="${escapeCode(canonicalLanguageName(lang))}"` : '';
  let lexer = lang ? canonicalLanguageName(lang) : null;
  if (!lang) {
    const m = SHEBANG_RE.exec(src.split('\n', 1)[0]);
    if (m?.[1]) lexer = LANGUAGE_NAMES[m[1].toLowerCase()] ?? null;
  }
  const body = (lexer && highlightCode(src, lexer)) ?? escapeCode(src);
  return `<div class="codehilite"${langAttr}><pre><span></span><code>${body}\n</code></pre></div>`;
}

interface Handler {
  fence: string | null;
  lines: string[];
  handleLine(line: string): void;
  done(): void;
}

export function processFences(lines: string[], host: FenceHost): string[] {
  const output: string[] = [];
  const handlers: Handler[] = [];

  const makeHandler = (
    out: string[],
    fence: string,
    lang: string | null,
    header: string | null,
  ): Handler => {
    const kind =
      lang === 'quote' || lang === 'quoted' ? 'quote' : lang === 'math' ? 'math' : lang === 'spoiler' ? 'spoiler' : 'code';
    const h: Handler = {
      fence,
      lines: [],
      handleLine(line: string) {
        if (line.trimEnd() === fence) {
          h.done();
        } else if (kind === 'quote' || kind === 'spoiler') {
          checkForNewFence(h.lines, line);
        } else {
          h.lines.push(line.trimEnd());
        }
      },
      done() {
        if (h.lines.length) {
          let text = h.lines.join('\n');
          if (kind === 'quote') {
            text = text
              .split('\n')
              .map((l) => `> ${l}`)
              .join('\n');
          } else if (kind === 'spoiler') {
            const parts = [host.stashRaw('<div class="spoiler-block"><div class="spoiler-header">')];
            if (header !== null) parts.push(header);
            parts.push(host.stashRaw('</div><div class="spoiler-content" aria-hidden="true">'));
            parts.push(text);
            parts.push(host.stashRaw('</div></div>'));
            text = parts.join('\n\n');
          } else if (kind === 'math') {
            text = host.stashRaw(
              text
                .split('\n\n')
                .map((para) => host.renderTex(para, true) ?? `<span class="tex-error">${pyHtmlEscape(para)}</span>`)
                .join('\n\n'),
            );
          } else {
            text = host.stashRaw(renderCodeBlock(text, lang));
          }
          out.push('', ...text.split('\n'), '');
        }
        handlers.pop();
      },
    };
    return h;
  };

  const checkForNewFence = (out: string[], line: string): void => {
    const m = FENCE_RE.exec(line);
    if (m) {
      const lang = m.groups!['lang'] ? m.groups!['lang'].toLowerCase() : (host.defaultLanguage?.toLowerCase() ?? null);
      const header = m.groups!['header'] ?? null;
      if (handlers.length > MAX_NESTING_DEPTH) throw new MarkdownRenderingError('Fenced blocks nested too deep');
      handlers.push(makeHandler(out, m.groups!['fence']!, lang, header));
    } else {
      out.push(line);
    }
  };

  const outer: Handler = {
    fence: null,
    lines: [],
    handleLine(line) {
      checkForNewFence(output, line);
    },
    done() {
      handlers.pop();
    },
  };
  handlers.push(outer);
  for (const line of lines) handlers[handlers.length - 1]!.handleLine(line);
  while (handlers.length) handlers[handlers.length - 1]!.done();
  if (output.length > 2 && output[output.length - 2] !== '') output.push('');
  return output;
}

const LI_RE = /^[ ]*([*+-]|\d\.)[ ]+(.*)/;

/** Insert a blank line between a paragraph line and a list that hangs off it. */
export function hangingLists(lines: string[]): string[] {
  // Built by appending (not splicing into a copy) and with a count of open
  // code fences (not a scan of the stack per line): linear in the input.
  const out: string[] = [];
  const open: Array<{ fence: string; isCode: boolean }> = [];
  let openCode = 0;
  for (let i = 0; i < lines.length - 1; i++) {
    out.push(lines[i]!);
    const m = FENCE_RE.exec(lines[i]!);
    if (m) {
      const fence = m.groups!['fence']!;
      const lang = m.groups!['lang'];
      const isCode = lang !== 'quote' && lang !== 'quoted';
      const matchesLast = open.length ? fence === open[open.length - 1]!.fence : false;
      if (!lang && matchesLast) {
        if (open.pop()!.isCode) openCode--;
      } else {
        open.push({ fence, isCode });
        if (isCode) openCode++;
      }
    }
    const li1 = LI_RE.exec(lines[i]!);
    const li2 = LI_RE.exec(lines[i + 1]!);
    if (
      openCode === 0 &&
      lines[i] &&
      ((li2 && !li1) || (li1 && li2 && (li1[1]!.length === 1) !== (li2[1]!.length === 1)))
    ) {
      out.push('');
    }
  }
  if (lines.length) out.push(lines[lines.length - 1]!);
  return out;
}
