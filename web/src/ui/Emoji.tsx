/**
 * Emoji in the web client: how one shows (a custom emoji's image, a Unicode
 * emoji's character), and the picker, Zulip's: its sections (Popular, the
 * Unicode categories, Custom) or the emoji whose names match what is typed,
 * used for reactions, the compose box and one's status.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { model } from '../model.ts';
import { Popover } from './Dialog.tsx';
import { emojiNameOf, findEmoji, loadEmojiNames } from './Typeahead.tsx';
import { autoFocusOnce, cx, emojiChar, lazyData, POPULAR_EMOJI, textEmoji } from '../util.ts';

/** The ID of the active custom emoji called `name` ('' if none). */
function customEmojiId(name: string): string {
  for (const e of model.realmEmoji.values()) if (e.name === name && !e.deactivated) return e.id;
  return '';
}

/** An emoji as reactions and statuses name it: a custom one's image, a Unicode one's character, else (and with the "text" emoji set) its name. */
export function Emoji({ code, type, name }: { code: string; type: string; name: string }) {
  // The "text" emoji set: every emoji by its name.
  if (textEmoji()) return <span class="emoji-char">:{name}:</span>;
  if (type === 'realm_emoji') {
    const e = model.realmEmoji.get(code);
    if (e) return <img class="emoji-img" src={e.source_url} alt={`:${name}:`} />;
  }
  if (type === 'unicode_emoji') return <span class="emoji-char">{emojiChar(code)}</span>;
  return <span class="emoji-char">:{name}:</span>;
}

/** An emoji picked by name: a Unicode one's code, or '' for a custom one. */
export interface Picked {
  name: string;
  code: string;
}

/** A picked emoji as it shows. */
export function PickedEmoji({ emoji: { name, code } }: { emoji: Picked }) {
  return code ? <Emoji code={code} type="unicode_emoji" name={name} /> : <Emoji code={customEmojiId(name)} type="realm_emoji" name={name} />;
}

/** The picker's sections after Popular: Zulip's categories of Unicode emoji (web/src/emoji-catalog.json, loaded with the first picker), then Custom. */
const catalog = lazyData<Array<[category: string, codes: string[]]>>(() => import('../emoji-catalog.json'));

/** Each section's tab: Zulip's icons for them, as characters. */
const SECTION_ICONS: Record<string, string> = {
  Popular: '\u2606',
  'Smileys & Emotion': '\u263a',
  'People & Body': '\u270c',
  'Animals & Nature': '\u2618',
  'Food & Drink': '\u2615',
  Activities: '\u265f',
  'Travel & Places': '\u2708',
  Objects: '\u2602',
  Symbols: '#',
  Flags: '\u2691',
  Custom: '\u2699',
};

/** The sections, each its emoji as [name, code] ('' for a custom one), the names once fetched. */
function pickerSections(): Array<[section: string, emoji: Array<[name: string, code: string]>]> {
  const sections: Array<[string, Array<[string, string]>]> = [['Popular', POPULAR_EMOJI]];
  for (const [category, codes] of catalog.value() ?? []) {
    const named = codes.flatMap((code): Array<[string, string]> => {
      const name = emojiNameOf(code);
      return name ? [[name, code]] : [];
    });
    if (named.length) sections.push([category, named]);
  }
  const custom = [...model.realmEmoji.values()].filter((e) => !e.deactivated).map((e): [string, string] => [e.name, '']);
  if (custom.length) sections.push(['Custom', custom.sort(([a], [b]) => a.localeCompare(b))]);
  return sections;
}

/** Moves the focus among the picker's emoji with the arrows: along a row, or to the nearest one in the row above or below. */
function moveAmong(e: KeyboardEvent, container: HTMLElement): boolean {
  const buttons = [...container.querySelectorAll<HTMLElement>('.emoji-choice')];
  const at = buttons.indexOf(document.activeElement as HTMLElement);
  if (at < 0) return false;
  const here = buttons[at]!;
  let next: HTMLElement | undefined;
  if (e.key === 'ArrowRight') next = buttons[at + 1];
  else if (e.key === 'ArrowLeft') next = buttons[at - 1];
  else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    const down = e.key === 'ArrowDown';
    const rect = here.getBoundingClientRect();
    const rows = buttons.map((b) => b.getBoundingClientRect());
    // The nearest row in that direction, and in it the emoji nearest across.
    const rowTops = rows.map((r) => r.top).filter((top) => (down ? top > rect.top + 1 : top < rect.top - 1));
    if (rowTops.length) {
      const rowTop = down ? Math.min(...rowTops) : Math.max(...rowTops);
      let best = Infinity;
      rows.forEach((r, i) => {
        const off = Math.abs(r.left - rect.left);
        if (Math.abs(r.top - rowTop) <= 1 && off < best) [best, next] = [off, buttons[i]];
      });
    } else if (!down) next = container.querySelector<HTMLElement>('input') ?? undefined;
  } else return false;
  e.preventDefault();
  next?.focus();
  next?.scrollIntoView({ block: 'nearest' });
  return true;
}

/**
 * Finds an emoji, as Zulip's emoji picker: its sections (Popular, Zulip's
 * categories of Unicode emoji, Custom) under tabs that scroll to them, or,
 * once something is typed, the emoji whose names match (custom ones too);
 * the emoji under the pointer or the focus shown large with its name
 * below; the arrows move among them. `onPick` gets its name and its code
 * ('' for a custom one, or a name typed that matched none); `reacted` marks
 * the ones already chosen (a message's reactions by oneself, which picking
 * takes back).
 */
export function EmojiPicker({ onPick, onClose, reacted }: { onPick(name: string, code: string): void; onClose(): void; reacted?(name: string, code: string): boolean }) {
  const [filter, setFilter] = useState('');
  const [loaded, setLoaded] = useState(0);
  const [shownEmoji, setShownEmoji] = useState<Picked | null>(null);
  const [current, setCurrent] = useState('Popular');
  const scroller = useRef<HTMLDivElement>(null);
  const inner = useRef<HTMLDivElement>(null);
  // Where the picker would leave the window (under the top bar, or below the bottom), it opens the other way.
  useLayoutEffect(() => {
    const box = inner.current?.parentElement;
    if (!box) return;
    const rect = box.getBoundingClientRect();
    const top = document.querySelector('header.topbar')?.getBoundingClientRect().bottom ?? 0;
    if (rect.top < top) box.classList.add('opens-down');
    else if (rect.bottom > window.innerHeight && rect.height < rect.top - top) box.classList.add('opens-up');
  }, []);
  useEffect(() => {
    loadEmojiNames(() => setLoaded((n) => n + 1));
    catalog.load(() => setLoaded((n) => n + 1));
  }, []);
  const query = filter.toLowerCase().replace(/:/g, '').trim();
  const sections = useMemo(() => (query ? [] : pickerSections()), [query, loaded, model.realmEmoji.size]);
  const results = useMemo(() => (query ? findEmoji(query, 200) : []), [query, loaded, model.realmEmoji.size]);
  const choice = ([name, code]: [string, string]) => {
    const chosen = reacted?.(name, code) ?? false;
    return (
      <button
        type="button"
        key={name}
        class={cx('emoji-choice', chosen && 'reacted')}
        title={`:${name}:`}
        aria-label={name}
        aria-pressed={reacted ? chosen : undefined}
        onClick={() => onPick(name, code)}
        onMouseEnter={() => setShownEmoji({ name, code })}
        onFocus={() => setShownEmoji({ name, code })}
      >
        <PickedEmoji emoji={{ name, code }} />
      </button>
    );
  };
  // The emoji themselves, made again only when what they show changes (not as the pointer moves over them).
  const grid = useMemo(
    () =>
      query ? (
        <div class="emoji-grid" role="group" aria-label="Search results">
          {results.map(choice)}
        </div>
      ) : (
        sections.map(([name, emoji]) => (
          <section key={name} data-section={name} aria-label={name}>
            <h3 class="emoji-section-title">{name}</h3>
            <div class="emoji-grid">{emoji.map(choice)}</div>
          </section>
        ))
      ),
    [sections, results, query, reacted],
  );
  /** The tab of the section at the top of the list, as it scrolls. */
  const follow = () => {
    const list = scroller.current;
    if (!list) return;
    const top = list.getBoundingClientRect().top;
    let at = 'Popular';
    for (const el of list.querySelectorAll<HTMLElement>('section[data-section]')) if (el.getBoundingClientRect().top - top <= 8) at = el.dataset.section!;
    setCurrent(at);
  };
  return (
    <Popover class="emoji-picker" label="Choose an emoji" onClose={onClose}>
      <div
        ref={inner}
        onKeyDown={(e) => {
          if (moveAmong(e as unknown as KeyboardEvent, e.currentTarget)) e.stopPropagation();
        }}
      >
        <input
          type="text"
          aria-label="Emoji name"
          placeholder="Filter"
          value={filter}
          ref={autoFocusOnce}
          onInput={(e) => (setFilter(e.currentTarget.value), setShownEmoji(null))}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && query) {
              e.preventDefault();
              onPick(results[0]?.[0] ?? query, results[0]?.[1] ?? '');
            } else if (e.key === 'ArrowDown') {
              e.preventDefault();
              e.stopPropagation();
              scroller.current?.querySelector<HTMLElement>('.emoji-choice')?.focus();
            }
          }}
        />
        {!query && (
          <div class="emoji-tabs" role="group" aria-label="Emoji categories">
            {sections.map(([name]) => (
              <button
                type="button"
                key={name}
                class={cx('emoji-tab', current === name && 'current')}
                title={name}
                aria-label={name}
                aria-current={current === name ? 'true' : undefined}
                onClick={() => {
                  const list = scroller.current;
                  const el = list?.querySelector<HTMLElement>(`section[data-section="${CSS.escape(name)}"]`);
                  if (list && el) list.scrollTop = el.offsetTop;
                  setCurrent(name);
                }}
              >
                <span aria-hidden="true">{SECTION_ICONS[name] ?? '\u2022'}</span>
              </button>
            ))}
          </div>
        )}
        <div class="emoji-sections" ref={scroller} onScroll={follow}>
          {grid}
        </div>
        <div class="emoji-showcase" aria-live="polite">
          {shownEmoji && (
            <>
              <span class="emoji-showcase-emoji" aria-hidden="true">
                <PickedEmoji emoji={shownEmoji} />
              </span>
              <span class="emoji-showcase-name">{shownEmoji.name.replace(/_/g, ' ')}</span>
            </>
          )}
        </div>
      </div>
    </Popover>
  );
}

/**
 * The compose and edit boxes' emoji button and its picker: the emoji picked
 * goes in as `:name:` through `onInsert`; closed without one, `onClosed`
 * (the focus back to the text).
 */
export function InsertEmojiButton({ onInsert, onClosed }: { onInsert(syntax: string): void; onClosed(): void }) {
  const [open, setOpen] = useState(false);
  return (
    <span class="compose-popover">
      <button type="button" class="icon-btn" aria-label="Insert emoji" title="Insert emoji" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span aria-hidden="true">{'\u263a'}</span>
      </button>
      {open && (
        <EmojiPicker
          onPick={(name) => {
            setOpen(false);
            onInsert(`:${name}:`);
          }}
          onClose={() => {
            setOpen(false);
            onClosed();
          }}
        />
      )}
    </span>
  );
}
