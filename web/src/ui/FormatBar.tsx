/**
 * The formatting buttons of the compose and edit boxes (Zulip's): each puts
 * its Markdown around the selection (through `applyFormat`, so Undo works;
 * the box keeps its focus and selection), a global time from a date and
 * time picker, and the link to the formatting help.
 */
import { useState } from 'preact/hooks';
import type { ComponentChild, RefObject } from 'preact';
import { applyFormat, globalTime, type Format } from '../format-keys.ts';
import { autoFocusOnce, cx } from '../util.ts';

/** A chain link (the Link button). */
const LINK_ICON = (
  <svg viewBox="0 0 20 20" width="16" height="16" aria-hidden="true">
    <path d="M8.5 11.5a3 3 0 0 0 4.2 0l3-3a3 3 0 0 0-4.2-4.2l-1 1M11.5 8.5a3 3 0 0 0-4.2 0l-3 3a3 3 0 0 0 4.2 4.2l1-1" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round" />
  </svg>
);

/** The formatting buttons: what each does, its name, and what it shows. */
const FORMAT_BUTTONS: Array<[Format, string, ComponentChild]> = [
  ['bold', 'Bold', 'B'],
  ['italic', 'Italic', 'I'],
  ['strikethrough', 'Strikethrough', 'S'],
  ['link', 'Link', LINK_ICON],
  ['code', 'Code', '</>'],
  ['math', 'Math (LaTeX)', '\u2211'],
  ['quote', 'Quote', '\u201c'],
  ['spoiler', 'Spoiler', '\u25b8'],
  ['bulleted', 'Bulleted list', '\u2022'],
  ['numbered', 'Numbered list', '1.'],
];

/** The bar, for the text in `textRef`; `onInsert` puts text at its caret (a global time). */
export function FormatBar({ textRef, onInsert }: { textRef: RefObject<HTMLTextAreaElement | null>; onInsert(text: string): void }) {
  const [pickingTime, setPickingTime] = useState(false);
  return (
    <div class="format-bar" role="toolbar" aria-label="Formatting">
      {FORMAT_BUTTONS.map(([format, label, text]) => (
        <button
          type="button"
          key={format}
          class={cx('icon-btn', `format-${format}`)}
          aria-label={label}
          title={label}
          // (The box keeps the focus and its selection.)
          onMouseDown={(e) => e.preventDefault()}
          onClick={() => textRef.current && applyFormat(textRef.current, format)}
        >
          {text}
        </button>
      ))}
      <button type="button" class="icon-btn" aria-label="Global time" title="Global time (each reader sees it in their time zone)" aria-expanded={pickingTime} onClick={() => setPickingTime(!pickingTime)}>
        <svg viewBox="0 0 20 20" width="16" height="16" aria-hidden="true">
          <circle cx="10" cy="10" r="7" fill="none" stroke="currentColor" stroke-width="1.6" />
          <path d="M10 6v4l3 2" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round" />
        </svg>
      </button>
      <a class="icon-btn format-help" href="#message-formatting" aria-label="Message formatting" title="Message formatting">
        ?
      </a>
      {pickingTime && (
        <TimePick
          onPick={(syntax) => {
            setPickingTime(false);
            onInsert(syntax);
          }}
        />
      )}
    </div>
  );
}

/** A date and time picked for a global time: `onPick` gets its syntax, `<time:…>`; `initial`, the local date and time it starts at. */
export function TimePick({ initial = '', focus = false, onPick, onCancel }: { initial?: string; focus?: boolean; onPick(syntax: string): void; onCancel?(): void }) {
  return (
    <form
      class="time-pick"
      aria-label="Global time"
      onSubmit={(e) => {
        e.preventDefault();
        const local = new FormData(e.currentTarget).get('at');
        if (typeof local !== 'string' || !local) return;
        onPick(globalTime(local));
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && onCancel) {
          e.preventDefault();
          e.stopPropagation();
          onCancel();
        }
      }}
    >
      <input type="datetime-local" name="at" aria-label="Date and time" required defaultValue={initial} ref={focus ? autoFocusOnce : undefined} />
      <button type="submit" class="btn small">
        Insert
      </button>
    </form>
  );
}

/** The button that shows or hides the bar. */
export function FormattingToggle({ open, onToggle }: { open: boolean; onToggle(): void }) {
  return (
    <button type="button" class="icon-btn" aria-label="Formatting" title="Formatting" aria-expanded={open} onClick={onToggle}>
      <span aria-hidden="true">Aa</span>
    </button>
  );
}
