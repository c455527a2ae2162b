/**
 * Formatted text (a paste's HTML) as Markdown, by the rules of Zulip's web
 * app (its compose_paste.ts `paste_handler_converter`), with turndown:
 * bold and italics, strikethrough, links as `[text](url)`, lists indented
 * by two spaces, code blocks fenced with their language (one line becomes
 * inline code), math as `$$…$$` or a `math` block, images as
 * `[title](src)` and emoji as their `:name:`; a selection within one
 * element is just its text; text styled `white-space: pre` (a code editor)
 * is a code block. Loaded by `paste.ts` when first needed.
 */
import TurndownService from 'turndown';

/** The only non-blank text in the fragment, if it has exactly one such text node. */
function onlyText(root: Node): string | null {
  let found: string | null = null;
  let count = 0;
  const walk = (n: Node): void => {
    for (const child of Array.from(n.childNodes)) {
      if (count > 1) return;
      if (child.nodeType === Node.COMMENT_NODE) continue;
      if (child.nodeType === Node.TEXT_NODE) {
        if ((child.nodeValue ?? '').trim() === '') continue;
        count++;
        found = child.nodeValue;
      } else walk(child);
    }
  };
  walk(root);
  return count === 1 ? found : null;
}

/** An image as Zulip's link-like syntax, or an emoji as its `:name:`. */
function imageMarkdown(node: HTMLElement): string {
  if (node.nodeName === 'IMG' && node.classList.contains('emoji') && node.hasAttribute('alt')) return node.getAttribute('alt') ?? '';
  const src = node.getAttribute('src') ?? node.getAttribute('href') ?? '';
  const title = (node.getAttribute('title') ?? '').replace(/(\n+\s*)+/g, '\n');
  return src ? `[${title}](${src})` : (node.getAttribute('alt') ?? '');
}

/** Formatted text (the clipboard's HTML) as Markdown, by Zulip's rules. */
export function htmlToMarkdown(html: string, plain: string): string {
  const body = new DOMParser().parseFromString(html, 'text/html').body;
  const first = body.firstElementChild as HTMLElement | null;
  // Styled `white-space: pre` alone (a code editor's copy): a code block of the plain text.
  if (body.childNodes.length === 1 && first && first.style.whiteSpace === 'pre') {
    const pre = document.createElement('pre');
    pre.appendChild(document.createElement('code')).textContent = plain;
    html = pre.outerHTML;
  } else if (first && !['PRE', 'UL', 'OL', 'A', 'CODE'].includes(first.nodeName)) {
    // Within one element (a heading, a paragraph): its text, without the element's styling.
    const text = onlyText(body);
    if (text !== null) return text.replace(/\s*\n\s*/g, ' ');
  }
  const td = new TurndownService({ emDelimiter: '*', codeBlockStyle: 'fenced', headingStyle: 'atx', br: '' });
  // No escaping: what was written as text stays so.
  td.escape = (s: string) => s;
  td.addRule('style', { filter: 'style', replacement: () => '' });
  td.addRule('strikethrough', { filter: ['del', 's', 'strike' as keyof HTMLElementTagNameMap], replacement: (content) => `~~${content}~~` });
  td.addRule('links', {
    filter: 'a',
    replacement(content, node) {
      const a = node as HTMLAnchorElement;
      if (a.href === content) return content;
      if (a.childNodes.length === 1 && a.firstChild?.nodeName === 'IMG') return content;
      return `[${content}](${a.href})`;
    },
  });
  td.addRule('listItem', {
    filter: 'li',
    replacement(content, node) {
      content = content.replace(/^\n+/, '').replace(/\n+$/, '\n').replace(/\n/gm, '\n  ');
      let prefix = '* ';
      const parent = node.parentElement;
      if (parent?.nodeName === 'OL') {
        const start = parent.getAttribute('start');
        const index = Array.prototype.indexOf.call(parent.children, node);
        prefix = `${start ? Number(start) + index : index + 1}. `;
      }
      return prefix + content + (node.nextSibling && !content.endsWith('\n') ? '\n' : '');
    },
  });
  // Math rendered by KaTeX: its TeX source, a block as a `math` block.
  td.addRule('katexBlock', {
    filter: (node) => node.classList.contains('katex-display'),
    replacement(_content, node) {
      const tex = (node as HTMLElement).querySelector('annotation[encoding="application/x-tex"]')?.textContent?.trim() ?? '';
      return tex ? `\n\n\`\`\`math\n${tex}\n\`\`\`\n\n` : '';
    },
  });
  td.addRule('katexInline', {
    filter: (node) => node.classList.contains('katex') && !node.closest('.katex-display'),
    replacement(content, node) {
      const tex = (node as HTMLElement).querySelector('annotation[encoding="application/x-tex"]')?.textContent?.trim();
      return `$$${tex ?? content}$$`;
    },
  });
  // A message's image preview next to its own link: the link says it already.
  td.addRule('imagePreview', {
    filter: (node) => (node.classList.contains('message_inline_image') || node.classList.contains('message-media-preview-image')) && node.firstChild?.nodeName === 'A',
    replacement(_content, node) {
      const href = (node.firstChild as HTMLElement).getAttribute('href') ?? '';
      const linked = Array.from(body.querySelectorAll('a')).some((a) => a.getAttribute('href') === href && !a.parentElement?.classList.contains('message_inline_image'));
      return linked || !href ? '' : imageMarkdown(node.firstChild as HTMLElement);
    },
  });
  td.addRule('images', { filter: 'img', replacement: (_content, node) => imageMarkdown(node as HTMLElement) });
  td.addRule('fencedCodeBlock', {
    filter: (node) => node.nodeName === 'PRE' && Array.from(node.childNodes).filter((c) => (c.textContent ?? '').trim() !== '').length === 1 && Array.from(node.childNodes).some((c) => c.nodeName === 'CODE'),
    replacement(_content, node) {
      const codeEl = Array.from((node as HTMLElement).children).find((c) => c.nodeName === 'CODE')!;
      const code = codeEl.textContent ?? '';
      if (!code.includes('\n')) {
        // One line: inline code, with a delimiter the code does not hold.
        if (!code) return '';
        const space = /^`|^ .*?[^ ].* $|`$/.test(code) ? ' ' : '';
        let delimiter = '`';
        const runs: string[] = code.match(/`+/g) ?? [];
        while (runs.includes(delimiter)) delimiter += '`';
        return delimiter + space + code + space + delimiter;
      }
      const zulipBlock = (node as HTMLElement).parentElement?.classList.contains('zulip-code-block');
      const language = zulipBlock ? ((node as HTMLElement).closest<HTMLElement>('.codehilite')?.dataset.codeLanguage ?? '') : (/language-(\S+)/.exec(codeEl.getAttribute('class') ?? '')?.[1] ?? '');
      let size = 3;
      for (const m of code.matchAll(/^`{3,}/gm)) size = Math.max(size, m[0].length + 1);
      const fence = '`'.repeat(size);
      return `\n\n${fence}${language}\n${code.replace(/\n$/, '')}\n${fence}\n\n`;
    },
  });
  return td
    .turndown(html)
    .replace(/^(\W* {0,3})(\d+)\\\. /gm, '$1$2. ')
    .replace(/\n+([*+-])/g, '\n$1');
}

