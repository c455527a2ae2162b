/**
 * Zulip's formatting keys in a message box: Ctrl+B bold (`**`), Ctrl+I
 * italic (`*`), Ctrl+Shift+L a link (`[text](url)`, with "url" selected to
 * type over); the compose box's formatting buttons also strike through,
 * mark code and math, quote, hide behind a spoiler and make lists. The marks
 * go around the selection; marks already around it come off. The text changes through the browser's own
 * editing (insertText), so Undo undoes it and the box's input handler sees it.
 * And which key sends what the box holds, and Enter's new line that goes on
 * with a list.
 */
import { model } from './model.ts';
import { insideCodeBlock } from './paste.ts';

/** What the formatting keys and the compose box's formatting buttons do. */
export type Format = 'bold' | 'italic' | 'strikethrough' | 'code' | 'math' | 'link' | 'quote' | 'spoiler' | 'bulleted' | 'numbered';

/** The marks each inline format puts on both sides of the selection. */
const MARKS: Partial<Record<Format, string>> = { bold: '**', italic: '*', strikethrough: '~~', code: '`', math: '$$' };

export function formattingKey(e: KeyboardEvent, el: HTMLTextAreaElement): boolean {
  if (!(e.ctrlKey || e.metaKey) || e.altKey) return false;
  const key = e.key.toLowerCase();
  let format: Format;
  if (key === 'b' && !e.shiftKey) format = 'bold';
  else if (key === 'i' && !e.shiftKey) format = 'italic';
  else if (key === 'l' && e.shiftKey) format = 'link';
  else return false;
  e.preventDefault();
  applyFormat(el, format);
  return true;
}

/**
 * Formats the box's selection (or puts empty marks at the caret): inline
 * marks around it, or off when they are already there; a link with "url"
 * selected to type over; a quote block around it; code: inline marks
 * around words, a code block around lines or at the caret (its languages
 * then offered, `offerLanguagesAt`, which the box's suggestions read).
 */
export function applyFormat(el: HTMLTextAreaElement, format: Format): void {
  el.focus();
  const { selectionStart: start, selectionEnd: end, value } = el;
  const selected = value.slice(start, end);
  if (format === 'link') {
    document.execCommand('insertText', false, `[${selected}](url)`);
    const url = start + selected.length + 3;
    el.setSelectionRange(url, url + 3);
    return;
  }
  if (format === 'quote' || format === 'spoiler') {
    // A block, on lines of its own (a spoiler with "Header" selected to type over).
    const before = start > 0 && value[start - 1] !== '\n' ? '\n' : '';
    const after = end < value.length && value[end] !== '\n' ? '\n' : '';
    const fence = `${before}\`\`\`${format === 'quote' ? 'quote' : 'spoiler Header'}\n`;
    document.execCommand('insertText', false, `${fence}${selected}\n\`\`\`${after}`);
    if (format === 'spoiler') el.setSelectionRange(start + fence.length - 7, start + fence.length - 1);
    else el.setSelectionRange(start + fence.length, start + fence.length + selected.length);
    return;
  }
  if (format === 'code' && (!selected || selected.includes('\n'))) {
    // Nothing or several lines selected: a code block, on lines of its own, the caret after its
    // fence, where the box then offers the languages (Zulip's code_formatting_button_triggered).
    const before = start > 0 && value[start - 1] !== '\n' ? '\n' : '';
    const after = end < value.length && value[end] !== '\n' ? '\n' : '';
    document.execCommand('insertText', false, `${before}\`\`\`\n${selected}\n\`\`\`${after}`);
    const fenceEnd = start + before.length + 3;
    el.setSelectionRange(fenceEnd, fenceEnd);
    el.dataset.offerLanguagesAt = String(fenceEnd);
    el.click();
    return;
  }
  if (format === 'bulleted' || format === 'numbered') {
    // Each selected line an item (the whole lines the selection touches).
    const from = start === 0 ? 0 : value.lastIndexOf('\n', start - 1) + 1;
    const lineEnd = value.indexOf('\n', end);
    const to = lineEnd === -1 ? value.length : lineEnd;
    const lines = value.slice(from, to).split('\n');
    const items = lines.map((line, i) => `${format === 'bulleted' ? '-' : `${i + 1}.`} ${line}`).join('\n');
    el.setSelectionRange(from, to);
    document.execCommand('insertText', false, items);
    el.setSelectionRange(from + items.length, from + items.length);
    return;
  }
  const mark = MARKS[format]!;
  const outer = value.slice(start - mark.length, start) === mark && value.slice(end, end + mark.length) === mark;
  // (An italic mark next to a bold one is the bold's.)
  const wrapped = outer && (mark !== '*' || (value[start - 2] !== '*' && value[end + 1] !== '*'));
  if (wrapped) {
    el.setSelectionRange(start - mark.length, end + mark.length);
    document.execCommand('insertText', false, selected);
    el.setSelectionRange(start - mark.length, end - mark.length);
  } else {
    document.execCommand('insertText', false, mark + selected + mark);
    el.setSelectionRange(start + mark.length, end + mark.length);
  }
}

/**
 * Whether a key in the compose or edit box sends (or saves), as the user's
 * enter_sends says (Zulip's): on, Enter sends and Shift+Enter starts a new
 * line; off (Zulip's default), Enter starts a new line. Ctrl+Enter (⌘+Enter)
 * sends either way.
 */
export function sendsMessage(e: KeyboardEvent): boolean {
  if (e.key !== 'Enter' || e.isComposing || e.altKey) return false;
  if (e.ctrlKey || e.metaKey) return true;
  return !!model.settings.enter_sends && !e.shiftKey;
}

/**
 * Enter that starts a new line rather than sending (Zulip's handle_enter):
 * on a list item, the new line starts with the same bullet (`- `, `* ` or
 * `+ `) or the next number; on an item with nothing after its marker, the
 * marker goes and no line is added, which ends the list. Not inside a code
 * block, nor over a selection. True when it took the key.
 */
export function listEnter(e: KeyboardEvent, el: HTMLTextAreaElement): boolean {
  if (e.key !== 'Enter' || e.isComposing || sendsMessage(e)) return false;
  const caret = el.selectionStart;
  if (caret !== el.selectionEnd || insideCodeBlock(el.value, caret)) return false;
  const line = el.value.slice(el.value.lastIndexOf('\n', caret - 1) + 1, caret);
  const bullet = /^[-*+] /.exec(line);
  const number = /^(\d+)\. /.exec(line);
  const marker = bullet?.[0] ?? number?.[0];
  if (!marker) return false;
  e.preventDefault();
  if (line === marker) {
    el.setSelectionRange(caret - marker.length, caret);
    document.execCommand('delete');
  } else {
    document.execCommand('insertText', false, '\n' + (bullet ? marker : `${Number.parseInt(number![1]!, 10) + 1}. `));
  }
  return true;
}

/** The compose box's hint: which keys send and which start a new line. */
export function sendKeysHint(): string {
  return model.settings.enter_sends ? 'Enter to send \u00b7 Shift+Enter for a new line' : 'Ctrl+Enter to send \u00b7 Enter for a new line';
}

/**
 * Zulip's global time for a local date and time as a datetime-local input
 * gives it ("2026-12-01T10:30"): `<time:2026-12-01T10:30:00+01:00>`, with
 * this browser's offset then, which every reader sees in their own zone.
 */
export function globalTime(local: string): string {
  const at = new Date(local);
  const offset = -at.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const pad = (n: number) => String(Math.floor(Math.abs(n))).padStart(2, '0');
  return `<time:${local.length === 16 ? `${local}:00` : local}${sign}${pad(offset / 60)}:${pad(offset % 60)}>`;
}
