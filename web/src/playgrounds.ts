/**
 * Code playgrounds in rendered messages: a code block whose language (its
 * data-code-language, the Pygments name) has playgrounds gets links that open
 * its code there, as Zulip's web app offers them: "View in <name>" for one
 * playground, a "View in playground" list for several.
 */
import { parseTemplate } from 'url-template';
import type { Playground } from './model.ts';

/**
 * A playground's address for some code: its URL template expanded with
 * `code` (RFC 6570, with the library Zulip's web app uses, so the code is
 * encoded as there), or null unless that gives an absolute http(s) URL.
 */
export function playgroundUrl(urlTemplate: string, code: string): string | null {
  try {
    const url = parseTemplate(urlTemplate).expand({ code });
    const protocol = new URL(url).protocol;
    return protocol === 'http:' || protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** A link opening a playground in a new tab, without telling it where it came from. */
function playgroundLink(doc: Document, url: string, text: string): HTMLAnchorElement {
  const a = doc.createElement('a');
  a.href = url;
  a.target = '_blank';
  a.rel = 'noopener noreferrer';
  a.textContent = text;
  return a;
}

/**
 * `html` (a rendered message) with the playground links after each code
 * block that has playgrounds. The code is the block's text as shown (Zulip
 * takes the `code` element's text, its final newline included).
 */
export function withPlaygroundLinks(html: string, playgrounds: Playground[]): string {
  if (!playgrounds.length || !html.includes('data-code-language=')) return html;
  const template = document.createElement('template');
  template.innerHTML = html;
  const doc = template.content.ownerDocument;
  let added = false;
  for (const block of template.content.querySelectorAll<HTMLElement>('div.codehilite[data-code-language]')) {
    const language = block.getAttribute('data-code-language');
    const code = block.querySelector('code')?.textContent ?? '';
    const links = playgrounds
      .filter((p) => p.pygments_language === language)
      .map((p) => ({ name: p.name, url: playgroundUrl(p.url_template, code) }))
      .filter((l): l is { name: string; url: string } => l.url !== null);
    if (!links.length) continue;
    let control: HTMLElement;
    if (links.length === 1) {
      control = doc.createElement('div');
      control.append(playgroundLink(doc, links[0]!.url, `View in ${links[0]!.name}`));
    } else {
      control = doc.createElement('details');
      const summary = doc.createElement('summary');
      summary.textContent = 'View in playground';
      const list = doc.createElement('ul');
      for (const l of links) {
        const item = doc.createElement('li');
        item.append(playgroundLink(doc, l.url, `View in ${l.name}`));
        list.append(item);
      }
      control.append(summary, list);
    }
    control.className = 'code-playgrounds';
    block.append(control);
    added = true;
  }
  return added ? template.innerHTML : html;
}
