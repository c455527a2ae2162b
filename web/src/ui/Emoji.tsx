/**
 * Emoji in the web client: how one shows (a custom emoji's image, a Unicode
 * emoji's character), and the picker that finds one by name (the popular
 * ones until something is typed; custom ones too), used for reactions, the
 * compose box and one's status.
 */
import { useEffect, useState } from 'preact/hooks';
import { model } from '../model.ts';
import { Popover } from './Dialog.tsx';
import { findEmoji, loadEmojiNames } from './Typeahead.tsx';
import { autoFocusOnce, emojiChar, POPULAR_EMOJI, textEmoji } from '../util.ts';

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

/** Finds an emoji by name; `onPick` gets its name and its code ('' for a custom one, or a name typed that matched none). */
export function EmojiPicker({ onPick, onClose }: { onPick(name: string, code: string): void; onClose(): void }) {
  const [filter, setFilter] = useState('');
  const [, setLoaded] = useState(false);
  useEffect(() => loadEmojiNames(() => setLoaded(true)), []);
  const query = filter.toLowerCase().replace(/:/g, '').trim();
  // The popular ones until something is typed; then any emoji by name, custom ones too.
  const shown = query ? findEmoji(query, 40) : POPULAR_EMOJI;
  return (
    <Popover class="emoji-picker" label="Choose an emoji" onClose={onClose}>
      <input
        type="text"
        aria-label="Emoji name"
        placeholder="Emoji name, e.g. octopus"
        value={filter}
        ref={autoFocusOnce}
        onInput={(e) => setFilter(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && query) {
            e.preventDefault();
            onPick(shown[0]?.[0] ?? query, shown[0]?.[1] ?? '');
          }
        }}
      />
      <div class="emoji-grid">
        {shown.map(([name, code]) => (
          <button type="button" key={name} class="emoji-choice" title={`:${name}:`} aria-label={name} onClick={() => onPick(name, code)}>
            <PickedEmoji emoji={{ name, code }} />
          </button>
        ))}
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
