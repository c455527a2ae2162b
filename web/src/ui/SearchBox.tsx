/**
 * The search box with suggestions for the word being typed, as Zulip's web
 * app offers them: operators (`channel:`, `topic:`, `sender:`, `dm:`,
 * `dm-including:`, `is:`, `has:`), and for an operator its operands (channels, the topics of
 * the channel already named, people, `is:` and `has:` values); a plain word
 * also suggests the channels and people it starts. The arrows move through
 * them, Enter or Tab (or a click) takes one; Enter with none chosen
 * searches.
 */
import type { RefObject } from 'preact';
import { useState } from 'preact/hooks';
import { model } from '../model.ts';
import { parseSearch, quoteOperand } from '../narrow.ts';
import { best, type Choice } from './Typeahead.tsx';

const OPERATORS: Array<[string, string]> = [
  ['channel:', 'Messages in a channel'],
  ['topic:', 'Messages in a topic'],
  ['sender:', 'Messages sent by someone'],
  ['dm:', 'Direct messages with someone'],
  ['dm-including:', 'Direct messages that include someone'],
  ['is:', 'starred, mentioned, dm, unread, resolved, alerted, followed'],
  ['has:', 'link, image, attachment, reaction'],
];
/** The channels whose topics the suggestions have asked for. */
const topicsAsked = new Set<number>();
const IS_VALUES = ['starred', 'mentioned', 'dm', 'unread', 'resolved', 'alerted', 'followed'];
const HAS_VALUES = ['link', 'image', 'attachment', 'reaction'];

/**
 * What is being typed at the end of the text, as candidates: the last
 * operator with all that follows it (a name may have spaces), then the last
 * word alone.
 */
function tokensAtEnd(text: string): Array<{ start: number; word: string }> {
  const out: Array<{ start: number; word: string }> = [];
  const op = /(?:^|\s)(-?[a-z-]+:[^"]*\s[^"]*)$/i.exec(text);
  if (op && !/\s-?[a-z-]+:/i.test(op[1]!.slice(1))) out.push({ start: text.length - op[1]!.length, word: op[1]! });
  const m = /(?:^|\s)(-?[^\s"]*)$/.exec(text);
  const word = m?.[1] ?? '';
  out.push({ start: text.length - word.length, word });
  return out;
}

function channels(query: string, op: string): Choice[] {
  return best([...model.streams.values()], query, (s) => [s.name], (s) => s.name).map((s) => ({ label: `#${s.name}`, detail: 'Channel', insert: `${op}${quoteOperand(s.name)} ` }));
}

function people(query: string, op: string): Choice[] {
  const active = [...model.users.values()].filter((u) => u.is_active);
  return best(active, query, (u) => [u.full_name, u.email], (u) => u.full_name).map((u) => ({ label: u.full_name, detail: u.email, insert: `${op}${u.email} ` }));
}

/** The suggestions for what is typed at the end of the text, and where what they replace starts. */
export function searchChoices(text: string): { start: number; choices: Choice[] } {
  for (const { start, word } of tokensAtEnd(text)) {
    const choices = choicesFor(text.slice(0, start), word);
    if (choices.length) return { start, choices };
  }
  return { start: text.length, choices: [] };
}

/** The suggestions for `word` (none for an empty one), typed after `before`. */
function choicesFor(before: string, word: string): Choice[] {
  if (!word) return [];
  const negated = word.startsWith('-') ? '-' : '';
  const bare = word.slice(negated.length);
  const colon = bare.indexOf(':');
  if (colon < 0) {
    const ops = OPERATORS.filter(([op]) => op.startsWith(bare.toLowerCase())).map(([op, detail]) => ({ label: op, detail, insert: negated + op }));
    return [...ops, ...channels(bare, `${negated}channel:`), ...people(bare, `${negated}sender:`)].slice(0, 8);
  }
  const op = bare.slice(0, colon).toLowerCase();
  const query = bare.slice(colon + 1);
  const prefix = `${negated}${op}:`;
  const values = (list: string[]) => list.filter((v) => v.startsWith(query.toLowerCase())).map((v) => ({ label: `${op}:${v}`, detail: '', insert: `${prefix}${v} ` }));
  if (op === 'channel' || op === 'stream') return channels(query, prefix);
  if (op === 'sender' || op === 'dm' || op === 'dm-including') return people(query, prefix);
  if (op === 'is') return values(IS_VALUES);
  if (op === 'has') return values(HAS_VALUES);
  if (op === 'topic') {
    // The topics of the channel the search already names, as the sidebar has them.
    const ch = parseSearch(before).find((t) => t.operator === 'channel');
    const stream = ch ? [...model.streams.values()].find((s) => s.name.toLowerCase() === String(ch.operand).toLowerCase()) : undefined;
    if (stream && !model.topics.has(stream.stream_id) && !topicsAsked.has(stream.stream_id)) {
      // Not fetched yet (the channel has not been opened): fetched once, shown when in.
      topicsAsked.add(stream.stream_id);
      void model.loadTopics(stream.stream_id);
    }
    const topics = stream ? (model.topics.get(stream.stream_id) ?? []) : [];
    return best(topics, query, (t) => [t.name], (t) => t.name).map((t) => ({ label: t.name, detail: 'Topic', insert: `${prefix}${quoteOperand(t.name)} ` }));
  }
  return [];
}

/** The search form: its input (`inputRef`, the text `value`) and the suggestions under it. */
/**
 * The search box. `scope`: the narrow in view as search operators
 * ("channel:general topic:lunch"), which an empty box starts with when it
 * gets the focus, so that a search is within that view (as Zulip's search
 * starts from the view); left untouched, it goes again when the box loses the focus.
 */
export function SearchBox({
  value,
  setValue,
  inputRef,
  onSearch,
  scope = '',
}: {
  value: string;
  setValue(v: string): void;
  inputRef: RefObject<HTMLInputElement | null>;
  onSearch(): void;
  scope?: string;
}) {
  /** The suggestion chosen with the arrows (-1: none), for the text it was chosen in. */
  const [active, setActive] = useState({ text: '', index: -1 });
  /** The text whose suggestions Escape closed. */
  const [dismissed, setDismissed] = useState<string | null>(null);
  const [focused, setFocused] = useState(false);
  const { start, choices } = focused && dismissed !== value ? searchChoices(value) : { start: 0, choices: [] };
  const index = active.text === value ? Math.min(active.index, choices.length - 1) : -1;
  const pick = (c: Choice) => {
    setValue(value.slice(0, start) + c.insert);
    inputRef.current?.focus();
  };
  return (
    <form
      class="search"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch();
      }}
    >
      <svg viewBox="0 0 20 20" aria-hidden="true" class="search-icon">
        <circle cx="8.5" cy="8.5" r="5.5" fill="none" stroke="currentColor" stroke-width="2" />
        <path d="M13 13l4 4" stroke="currentColor" stroke-width="2" stroke-linecap="round" />
      </svg>
      <input
        ref={inputRef}
        type="search"
        aria-label="Search"
        placeholder="Search — channel:  topic:  sender:  is:  has:  or words"
        value={value}
        aria-controls={choices.length ? 'search-suggestions' : undefined}
        aria-activedescendant={index >= 0 ? `search-suggestions-${index}` : undefined}
        aria-autocomplete="list"
        onFocus={() => {
          setFocused(true);
          if (!value && scope) setValue(`${scope} `);
        }}
        onBlur={() => {
          setFocused(false);
          if (scope && value.trim() === scope) setValue('');
        }}
        onInput={(e) => setValue(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (!choices.length) return;
          const move = e.key === 'ArrowDown' ? 1 : e.key === 'ArrowUp' ? -1 : 0;
          if (move) setActive({ text: value, index: (index + move + choices.length + (index < 0 && move < 0 ? 1 : 0)) % choices.length });
          else if ((e.key === 'Enter' && index >= 0) || e.key === 'Tab') pick(choices[Math.max(index, 0)]!);
          else if (e.key === 'Escape') {
            e.stopPropagation();
            setDismissed(value);
          } else return;
          e.preventDefault();
        }}
      />
      {choices.length > 0 && (
        <ul class="suggestions search-suggestions" id="search-suggestions" role="listbox" aria-label="Search suggestions">
          {choices.map((c, i) => (
            <li key={c.insert} id={`search-suggestions-${i}`} role="option" aria-selected={i === index} onMouseDown={(e) => e.preventDefault()} onClick={() => pick(c)}>
              {c.label} {c.detail && <span class="muted-text">{c.detail}</span>}
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}
