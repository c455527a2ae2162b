// Block-level parsing, modelled on Python-Markdown's BlockParser with the
// processor set Zulip uses (2-space list indentation, hash headers needing a
// space, CommonMark-ish blockquotes, tables, no setext headers, no
// reference definitions, no raw HTML).
import { El } from './tree.ts';
import { MAX_NESTING_DEPTH, MarkdownRenderingError } from './errors.ts';

type Processor = {
  test(parent: El, block: string): boolean;
  run(parent: El, blocks: string[]): boolean | void;
};

const LIST_TYPES = new Set(['ul', 'ol']);

export const MENTIONS_RE_SRC = String.raw`(?<![^\s'"({\[/<])@(?<silent>_?)(?:\*\*(?<match>[^*]+)\*\*)`;
export const GROUP_MENTIONS_RE_SRC = String.raw`(?<![^\s'"({\[/<])@(?<silent>_?)(?:\*(?<match>[^*]+)\*)`;

function detab(text: string, length: number): [string, string] {
  const lines = text.split('\n');
  const out: string[] = [];
  for (const line of lines) {
    if (line.startsWith(' '.repeat(length))) out.push(line.slice(length));
    else if (!line.trim()) out.push('');
    else break;
  }
  return [out.join('\n'), lines.slice(out.length).join('\n')];
}

function looseDetab(text: string, tab: number, level = 1): string {
  const pad = ' '.repeat(tab * level);
  return text
    .split('\n')
    .map((l) => (l.startsWith(pad) ? l.slice(tab * level) : l))
    .join('\n');
}

export class BlockParser {
  state: string[] = [];
  processors: Processor[];
  private olStart = '1';
  private hrMatch: RegExpExecArray | null = null;
  private tableSeparator: string[] = [];
  private tableBorder = false;

  constructor() {
    this.processors = [
      { test: (_p, b) => !b || b.startsWith('\n'), run: (p, bs) => this.runEmpty(p, bs) },
      { test: (p, b) => this.testIndent(p, b), run: (p, bs) => this.runIndent(p, bs) },
      { test: (_p, b) => b.startsWith('    '), run: (p, bs) => this.runCode(p, bs) },
      { test: (_p, b) => HASH_RE.test(b), run: (p, bs) => this.runHash(p, bs) },
      { test: (_p, b) => this.testTable(b), run: (p, bs) => this.runTable(p, bs) },
      { test: (_p, b) => this.testHr(b), run: (p, bs) => this.runHr(p, bs) },
      { test: (_p, b) => OL_RE.test(b), run: (p, bs) => this.runList(p, bs, 'ol') },
      { test: (_p, b) => UL_RE.test(b), run: (p, bs) => this.runList(p, bs, 'ul') },
      { test: (_p, b) => QUOTE_RE.test(b), run: (p, bs) => this.runQuote(p, bs) },
      { test: () => true, run: (p, bs) => this.runParagraph(p, bs) },
    ];
  }

  isState(s: string): boolean {
    return this.state[this.state.length - 1] === s;
  }

  parseDocument(text: string): El {
    const root = new El('div');
    this.parseChunk(root, text);
    return root;
  }

  parseChunk(parent: El, text: string): void {
    this.parseBlocks(parent, text.split('\n\n'));
  }

  private depth = 0;

  parseBlocks(parent: El, blocks: string[]): void {
    if (++this.depth > MAX_NESTING_DEPTH) throw new MarkdownRenderingError('Markdown nesting too deep');
    try {
      while (blocks.length) {
        for (const p of this.processors) {
          if (p.test(parent, blocks[0]!)) {
            if (p.run(parent, blocks) !== false) break;
          }
        }
      }
    } finally {
      this.depth--;
    }
  }

  private runEmpty(parent: El, blocks: string[]): void {
    const block = blocks.shift()!;
    let filler = '\n\n';
    if (block) {
      filler = '\n';
      const rest = block.slice(1);
      if (rest) blocks.unshift(rest);
    }
    const sib = parent.last();
    if (sib && sib.tag === 'pre' && sib.children[0]?.tag === 'code') {
      sib.children[0].text += filler;
    }
  }

  // ---- list indentation (2 spaces) ----
  private testIndent(parent: El, block: string): boolean {
    if (!block.startsWith('  ') || this.isState('detabbed')) return false;
    if (parent.tag === 'li') return true;
    const last = parent.last();
    return !!last && LIST_TYPES.has(last.tag);
  }

  private runIndent(parent: El, blocks: string[]): void {
    let block = blocks.shift()!;
    const [level, sibling] = this.getLevel(parent, block);
    block = looseDetab(block, 2, level);
    this.state.push('detabbed');
    if (parent.tag === 'li') {
      const last = parent.last();
      if (last && LIST_TYPES.has(last.tag)) this.parseBlocks(last, [block]);
      else this.parseBlocks(parent, [block]);
    } else if (sibling.tag === 'li') {
      this.parseBlocks(sibling, [block]);
    } else if (sibling.children.length && sibling.last()!.tag === 'li') {
      const li = sibling.last()!;
      if (li.text) {
        const p = new El('p');
        p.text = li.text;
        li.text = '';
        li.children.unshift(p);
      }
      this.parseChunk(li, block);
    } else {
      const li = sibling.append('li');
      this.parseBlocks(li, [block]);
    }
    this.state.pop();
  }

  private getLevel(parent: El, block: string): [number, El] {
    const m = /^((?: {2})+)/.exec(block);
    const indentLevel = m ? m[1]!.length / 2 : 0;
    let level = this.isState('list') ? 1 : 0;
    while (indentLevel > level) {
      const child = parent.last();
      if (child && (LIST_TYPES.has(child.tag) || child.tag === 'li')) {
        if (LIST_TYPES.has(child.tag)) level += 1;
        parent = child;
      } else break;
    }
    return [level, parent];
  }

  // ---- indented code ----
  private runCode(parent: El, blocks: string[]): void {
    const sib = parent.last();
    let block = blocks.shift()!;
    let rest: string;
    if (sib && sib.tag === 'pre' && sib.children[0]?.tag === 'code') {
      const code = sib.children[0];
      [block, rest] = detab(block, 4);
      code.text = `${code.text}\n${block.trimEnd()}\n`;
    } else {
      const pre = parent.append('pre');
      const code = pre.append('code');
      code.atomic = true;
      [block, rest] = detab(block, 4);
      code.text = `${block.trimEnd()}\n`;
    }
    if (rest) blocks.unshift(rest);
  }

  // ---- headers ----
  private runHash(parent: El, blocks: string[]): void {
    const block = blocks.shift()!;
    const m = HASH_RE.exec(block)!;
    const before = block.slice(0, m.index);
    let after = block.slice(m.index + m[0].length);
    if (before) this.parseBlocks(parent, [before]);
    const h = parent.append(`h${m.groups!['level']!.length}`);
    h.text = pyStrip(m.groups!['header']!);
    if (after) {
      if (this.isState('looselist')) after = looseDetab(after, 4);
      blocks.unshift(after);
    }
  }

  // ---- horizontal rules ----
  private testHr(block: string): boolean {
    HR_RE.lastIndex = 0;
    this.hrMatch = HR_RE.exec(block);
    return this.hrMatch !== null;
  }

  private runHr(parent: El, blocks: string[]): void {
    const block = blocks.shift()!;
    const m = this.hrMatch!;
    const pre = block.slice(0, m.index).replace(/\n+$/, '');
    if (pre) this.parseBlocks(parent, [pre]);
    parent.append('hr');
    const post = block.slice(m.index + m[0].length).replace(/^\n+/, '');
    if (post) blocks.unshift(post);
  }

  // ---- lists (sane lists, 2-space indentation) ----
  private runList(parent: El, blocks: string[], tag: 'ol' | 'ul'): void {
    const items = this.getItems(blocks.shift()!, tag);
    const sib = parent.last();
    let lst: El;
    if (sib && sib.tag === tag) {
      lst = sib;
      const lastLi = lst.last()!;
      if (lastLi.text) {
        const p = new El('p');
        p.text = lastLi.text;
        lastLi.text = '';
        lastLi.children.unshift(p);
      }
      const lch = lastLi.last();
      if (lch && lch.tail) {
        const p = lastLi.append('p');
        p.text = lch.tail.trimStart();
        lch.tail = '';
      }
      const li = lst.append('li');
      this.state.push('looselist');
      const first = items.shift()!;
      this.parseBlocks(li, [first]);
      this.state.pop();
    } else if (parent.tag === 'ol' || parent.tag === 'ul') {
      lst = parent;
    } else {
      lst = parent.append(tag);
      if (tag === 'ol' && this.olStart !== '1') lst.set('start', this.olStart);
    }
    this.state.push('list');
    for (const item of items) {
      if (item.startsWith('  ')) {
        this.parseBlocks(lst.last()!, [item]);
      } else {
        const li = lst.append('li');
        this.parseBlocks(li, [item]);
      }
    }
    this.state.pop();
  }

  private getItems(block: string, tag: 'ol' | 'ul'): string[] {
    const items: string[] = [];
    const childRe = tag === 'ol' ? OL_CHILD_RE : UL_CHILD_RE;
    for (const line of block.split('\n')) {
      const m = childRe.exec(line);
      if (m) {
        if (!items.length && tag === 'ol') this.olStart = /^\d+/.exec(m[1]!)![0];
        items.push(m[2]!);
      } else if (LIST_INDENT_RE.test(line)) {
        if (items.length && items[items.length - 1]!.startsWith('  ')) {
          items[items.length - 1] = `${items[items.length - 1]}\n${line}`;
        } else items.push(line);
      } else if (items.length) {
        items[items.length - 1] = `${items[items.length - 1]}\n${line}`;
      } else {
        items.push(line);
      }
    }
    return items;
  }

  // ---- blockquotes ----
  private runQuote(parent: El, blocks: string[]): void {
    let block = blocks.shift()!;
    const m = QUOTE_RE.exec(block);
    if (m) {
      const before = block.slice(0, m.index);
      this.parseBlocks(parent, [before]);
      block = block
        .slice(m.index)
        .split('\n')
        .map((l) => cleanQuoteLine(l))
        .join('\n');
    }
    const quote = parent.append('blockquote');
    this.state.push('blockquote');
    this.parseChunk(quote, block);
    this.state.pop();
  }

  // ---- paragraphs ----
  private runParagraph(parent: El, blocks: string[]): void {
    const block = blocks.shift()!;
    if (!block.trim()) return;
    if (this.isState('list')) {
      const sib = parent.last();
      if (sib) {
        sib.tail = sib.tail ? `${sib.tail}\n${block}` : `\n${block}`;
      } else if (parent.text) {
        parent.text = `${parent.text}\n${block}`;
      } else {
        parent.text = block.trimStart();
      }
    } else {
      const p = parent.append('p');
      p.text = block.trimStart();
    }
  }

  // ---- tables ----
  private testTable(block: string): boolean {
    const rows = block.split('\n').map((r) => stripSpaces(r));
    if (rows.length < 2) return false;
    const header0 = rows[0]!;
    const left = header0.startsWith('|');
    const right = END_BORDER_RE.test(header0);
    this.tableBorder = left || right;
    const row0 = this.splitRow(header0);
    let isTable = row0.length > 1;
    if (!isTable && row0.length === 1 && this.tableBorder) {
      for (let i = 1; i < rows.length; i++) {
        isTable = rows[i]!.startsWith('|') || END_BORDER_RE.test(rows[i]!);
        if (!isTable) break;
      }
    }
    if (isTable) {
      const row = this.splitRow(rows[1]!);
      isTable = row.length === row0.length && /^[|:\- ]*$/.test(row.join(''));
      if (isTable) this.tableSeparator = row;
    }
    return isTable;
  }

  private runTable(parent: El, blocks: string[]): void {
    const lines = blocks.shift()!.split('\n');
    const header = stripSpaces(lines[0]!);
    const rows = lines.length < 3 ? [] : lines.slice(2);
    const align: Array<string | null> = this.tableSeparator.map((c0) => {
      const c = stripSpaces(c0);
      if (c.startsWith(':') && c.endsWith(':')) return 'center';
      if (c.startsWith(':')) return 'left';
      if (c.endsWith(':')) return 'right';
      return null;
    });
    const table = parent.append('table');
    const thead = table.append('thead');
    this.buildRow(header, thead, align);
    const tbody = table.append('tbody');
    if (!rows.length) {
      const tr = tbody.append('tr');
      for (let i = 0; i < align.length; i++) tr.append('td');
    } else {
      for (const r of rows) this.buildRow(stripSpaces(r), tbody, align);
    }
  }

  private buildRow(row: string, parent: El, align: Array<string | null>): void {
    const tr = parent.append('tr');
    const tag = parent.tag === 'thead' ? 'th' : 'td';
    const cells = this.splitRow(row);
    align.forEach((a, i) => {
      const c = tr.append(tag);
      c.text = stripSpaces(cells[i] ?? '');
      if (a) c.set('style', `text-align: ${a};`);
    });
  }

  private splitRow(row: string): string[] {
    if (this.tableBorder) {
      if (row.startsWith('|')) row = row.slice(1);
      row = row.replace(END_BORDER_RE, '');
    }
    // Split on pipes that are not inside backtick code spans or escaped.
    const cells: string[] = [];
    let cur = '';
    let i = 0;
    while (i < row.length) {
      const ch = row[i]!;
      if (ch === '\\' && i + 1 < row.length) {
        cur += ch + row[i + 1];
        i += 2;
        continue;
      }
      if (ch === '`') {
        let n = 0;
        while (row[i + n] === '`') n++;
        const ticks = '`'.repeat(n);
        const close = row.indexOf(ticks, i + n);
        if (close >= 0) {
          cur += row.slice(i, close + n);
          i = close + n;
          continue;
        }
        cur += ticks;
        i += n;
        continue;
      }
      if (ch === '|') {
        cells.push(cur);
        cur = '';
        i++;
        continue;
      }
      cur += ch;
      i++;
    }
    cells.push(cur);
    return cells;
  }
}

function stripSpaces(s: string): string {
  return s.replace(/^ +| +$/g, '');
}

/** Python's str.strip() (whitespace). */
export function pyStrip(s: string): string {
  return s.trim();
}

export function cleanQuoteLine(line: string): string {
  // Mentions inside quotes are silenced.
  line = line.replace(new RegExp(MENTIONS_RE_SRC, 'g'), (...args) => {
    const groups = args[args.length - 1] as Record<string, string>;
    return `@_**${groups['match']}**`;
  });
  line = line.replace(new RegExp(GROUP_MENTIONS_RE_SRC, 'g'), (...args) => {
    const groups = args[args.length - 1] as Record<string, string>;
    return `@_*${groups['match']}*`;
  });
  if (line.trim() === '>') return '';
  const m = QUOTE_LINE_RE.exec(line);
  if (m) return m[2]!;
  return line;
}

const HASH_RE = /(?:^|\n)(?<level>#{1,6})\s(?<header>(?:\\.|[^\\])*?)#*(?:\n|$)/;
const HR_RE = /^[ ]{0,3}(?=((?:-+[ ]{0,2}){3,}|(?:_+[ ]{0,2}){3,}|(?:\*+[ ]{0,2}){3,}))\1[ ]*$/m;
const OL_RE = /^[ ]?\d+\.[ ]+(.*)/;
const UL_RE = /^[ ]?[*+-][ ]+(.*)/;
const OL_CHILD_RE = /^[ ]?(\d+\.)[ ]+(.*)/;
const UL_CHILD_RE = /^[ ]?([*+-])[ ]+(.*)/;
const LIST_INDENT_RE = /^[ ]{2,3}(?:\d+\.|[*+-])[ ]+.*/;
const QUOTE_RE = /(^|\n)(?!(?:[ ]{0,3}>\s*(?:$|\n))*(?:$|\n))[ ]{0,3}>[ ]?(.*)/;
const QUOTE_LINE_RE = QUOTE_RE;
const END_BORDER_RE = /(?<!\\)(?:\\\\)*\|$/;
