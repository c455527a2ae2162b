/**
 * Zulip's formatting keys in a message box: Ctrl+B bold (`**`), Ctrl+I
 * italic (`*`), Ctrl+Shift+L a link (`[text](url)`, with "url" selected to
 * type over); the compose box's formatting buttons also strike through,
 * mark code and quote. The marks go around the selection; marks already
 * around it come off. The text changes through the browser's own
 * editing (insertText), so Undo undoes it and the box's input handler sees it.
 * And which key sends what the box holds.
 */
import { model } from './model.ts';

/** What the formatting keys and the compose box's formatting buttons do. */
export type Format = 'bold' | 'italic' | 'strikethrough' | 'code' | 'link' | 'quote';

/** The marks each inline format puts on both sides of the selection. */
const MARKS: Partial<Record<Format, string>> = { bold: '**', italic: '*', strikethrough: '~~', code: '`' };

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
 * selected to type over; a quote block around it.
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
  if (format === 'quote') {
    // On lines of its own.
    const before = start > 0 && value[start - 1] !== '\n' ? '\n' : '';
    const after = end < value.length && value[end] !== '\n' ? '\n' : '';
    const open = `${before}\`\`\`quote\n`;
    document.execCommand('insertText', false, `${open}${selected}\n\`\`\`${after}`);
    el.setSelectionRange(start + open.length, start + open.length + selected.length);
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

/** The compose box's hint: which keys send and which start a new line. */
export function sendKeysHint(): string {
  return model.settings.enter_sends ? 'Enter to send \u00b7 Shift+Enter for a new line' : 'Ctrl+Enter to send \u00b7 Enter for a new line';
}
