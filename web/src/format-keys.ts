/**
 * Zulip's formatting keys in a message box: Ctrl+B bold (`**`), Ctrl+I
 * italic (`*`), Ctrl+Shift+L a link (`[text](url)`, with "url" selected to
 * type over). The marks go around the selection; bold or italic marks
 * already around it come off. The text changes through the browser's own
 * editing (insertText), so Undo undoes it and the box's input handler sees it.
 */
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
