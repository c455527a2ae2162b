/**
 * What pasting into the compose and edit boxes does, as in Zulip's web app
 * (its compose_paste.ts):
 *
 * - formatted text (a web page, a document, Zulip messages) comes in as
 *   Markdown, converted by turndown with Zulip's rules: bold and italics,
 *   strikethrough, links as `[text](url)`, lists indented by two spaces,
 *   code blocks fenced (with their language; one line becomes inline code),
 *   math as `$$…$$` or a `math` block, images as `[title](src)` and emoji
 *   as their `:name:`; a selection within one element (a heading, say) is
 *   just its text; text styled `white-space: pre` (a code editor) is a code
 *   block;
 * - a URL pasted over selected text makes a link of it, `[text](url)`;
 * - a link to a channel or topic of this organization becomes Zulip's
 *   channel or topic link syntax, `#**channel>topic**` (`@<id>` for a
 *   message; Zulip's Markdown link where a name would break it);
 * - inside a code block, and for plain text (Ctrl+Shift+V), the text is
 *   pasted as it is;
 * - a long paste (2,000 characters or more) is offered as a file instead,
 *   and one of 5,000 or more goes in only if asked for (`LongPasteOffer`).
 *
 * Each insertion goes through the browser's editing (`insertText`), so Undo
 * takes it back and the box hears it as typing. The converter
 * (`html-markdown.ts`, with turndown) is loaded with the first formatted
 * paste: most sessions never need it.
 */
import { model } from './model.ts';
import { hashToNarrow } from './narrow.ts';
import { channelLinkSyntax, messageLinkSyntax, topicLinkSyntax } from './link-syntax.ts';

/** Zulip's is-url test: a scheme, `//`, and no spaces. */
const isUrl = (s: string): boolean => /^[a-z][a-z\d+.-]*:\/\/\S+$/i.test(s);

/** Whether the caret is inside a fenced code block (an odd number of fences before it). */
export function insideCodeBlock(text: string, caret: number): boolean {
  const fences = text.slice(0, caret).split('\n').filter((line) => /^\s{0,3}(```|~~~)/.test(line)).length;
  return fences % 2 === 1;
}

/**
 * A link to a channel, a topic or a message in a topic of this organization,
 * as Zulip's link syntax (`#**channel**`, `#**channel>topic**`,
 * `#**channel>topic@id**`, or Zulip's Markdown link where a name would
 * break that syntax); null for anything else.
 */
export function pastedLinkSyntax(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  const base = new URL(String(model.realm.realm_url ?? location.origin));
  if (url.origin !== base.origin || (url.pathname !== '/' && url.pathname !== '')) return null;
  const terms = hashToNarrow(url.hash);
  if (!terms || terms.some((t) => t.negated)) return null;
  const channel = terms[0];
  if (channel?.operator !== 'channel' || typeof channel.operand !== 'number') return null;
  const stream = model.streams.get(channel.operand);
  if (!stream) return null;
  const rest = terms.slice(1);
  const topic = rest[0]?.operator === 'topic' ? String(rest.shift()!.operand) : undefined;
  const at = rest[0] && (rest[0].operator === 'near' || rest[0].operator === 'with') && topic !== undefined ? Number(rest.shift()!.operand) : undefined;
  if (rest.length) return null;
  if (topic === undefined) return channelLinkSyntax(stream);
  return at === undefined ? topicLinkSyntax(stream, topic) : messageLinkSyntax(stream, topic, at);
}

/** Zulip's sizes: from this many characters a paste may go in as a file instead… */
export const LONG_PASTE = 2000;
/** …and from this many it is not put in the text unless asked for. */
export const VERY_LONG_PASTE = 5000;

/** A long paste: its text, its formatted version if any, the box's text before it, and whether it went in. */
export interface LongPaste {
  plain: string;
  html: string;
  before: string;
  pasted: boolean;
}

/** Whether an input event is this module's own insertion (not the user's typing). */
let inserting = false;
export const insertingPaste = (): boolean => inserting;

/** Puts `text` in place of the selection, as typing would (Undo takes it back; the box hears an input). */
function insert(el: HTMLTextAreaElement, text: string): void {
  el.focus();
  inserting = true;
  try {
    document.execCommand('insertText', false, text);
  } finally {
    inserting = false;
  }
}

/** Formatted text (HTML) as Markdown at the caret, the converter loaded when first needed. */
export function insertConverted(el: HTMLTextAreaElement, html: string, plain: string): void {
  if (!html) {
    insert(el, plain);
    return;
  }
  void import('./html-markdown.ts').then(
    ({ htmlToMarkdown }) => insert(el, htmlToMarkdown(html, plain)),
    // (Not loaded, the server unreachable: the text as it is.)
    () => insert(el, plain),
  );
}

/**
 * Handles a paste of text into a compose or edit box; true where it did
 * (and the browser should not). `onLong` hears of a paste of LONG_PASTE
 * characters or more, which the box offers to upload as a file instead (as
 * Zulip's); from VERY_LONG_PASTE on, nothing goes in until the user says.
 */
export function pasteText(ev: ClipboardEvent, el: HTMLTextAreaElement, onLong?: (paste: LongPaste) => void): boolean {
  const data = ev.clipboardData;
  if (!data) return false;
  const plain = data.getData('text/plain');
  const html = data.getData('text/html');
  if (onLong && plain.length >= LONG_PASTE) {
    const veryLong = plain.length >= VERY_LONG_PASTE;
    onLong({ plain, html, before: el.value, pasted: !veryLong });
    if (veryLong) {
      ev.preventDefault();
      return true;
    }
  }
  const trimmed = plain.trim();
  const inCode = insideCodeBlock(el.value, el.selectionStart);
  if (isUrl(trimmed)) {
    // Right after `](`, the URL of a link being written: as it is.
    if (el.value.slice(el.selectionStart - 2, el.selectionStart) === '](') return false;
    const selected = el.value.slice(el.selectionStart, el.selectionEnd);
    if (selected && !isUrl(selected.trim())) {
      ev.preventDefault();
      insert(el, `[${selected}](${trimmed})`);
      return true;
    }
    const syntax = inCode ? null : pastedLinkSyntax(trimmed);
    if (syntax) {
      ev.preventDefault();
      insert(el, `${syntax} `);
      return true;
    }
    return false;
  }
  if (!html || inCode) return false;
  // A single image: the file, which the box uploads.
  const body = new DOMParser().parseFromString(html, 'text/html').body;
  if (body.childNodes.length === 1 && body.firstElementChild?.nodeName === 'IMG') return false;
  ev.preventDefault();
  insertConverted(el, html, plain);
  return true;
}
