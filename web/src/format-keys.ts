/**
 * Zulip's formatting keys in a message box: Ctrl+B bold (`**`), Ctrl+I
 * italic (`*`), Ctrl+Shift+L a link (`[text](url)`, with "url" selected to
 * type over). The marks go around the selection; bold or italic marks
 * already around it come off. The text changes through the browser's own
 * editing (insertText), so Undo undoes it and the box's input handler sees it.
 * And which key sends what the box holds.
 */
import { model } from './model.ts';

export function formattingKey(e: KeyboardEvent, el: HTMLTextAreaElement): boolean {
  if (!(e.ctrlKey || e.metaKey) || e.altKey) return false;
  const key = e.key.toLowerCase();
  let mark: string;
  if (key === 'b' && !e.shiftKey) mark = '**';
  else if (key === 'i' && !e.shiftKey) mark = '*';
  else if (key === 'l' && e.shiftKey) mark = '';
  else return false;
  e.preventDefault();
  const { selectionStart: start, selectionEnd: end, value } = el;
  const selected = value.slice(start, end);
  if (!mark) {
    el.setSelectionRange(start, end);
    document.execCommand('insertText', false, `[${selected}](url)`);
    const url = start + selected.length + 3;
    el.setSelectionRange(url, url + 3);
    return true;
  }
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
  return true;
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
