/**
 * The compose box's suggestions, as Zulip's web app offers them while one
 * types: `@` people, user groups and wildcard mentions (`@_` for silent
 * ones), `#` channels and then their topics, `:` emoji, and in the compose box `/` commands at
 * the start of a message (`/me`, `/poll`, `/todo`). Picking one puts Zulip's
 * Markdown for it in place of what was typed: `@**Full Name**` (with `|id`
 * when another active user has the same name), `@*group*`, `@**all**`,
 * `:emoji_name:`, `/poll`. A channel picked (or `>` on it) goes on to its
 * topics, `#**channel>`, with a link to the channel itself first:
 * `#**channel**` or `#**channel>topic**` (Zulip's Markdown link where a name
 * would break that syntax, `link-syntax.ts`). `#>` offers the topics of
 * the channel being written to, and `>` typed after a channel link goes
 * back into it for a topic. After a code fence that starts a line, the
 * languages (`web/src/code-languages.json`, loaded with the first fence);
 * after `<time`, a global time picked in a date and time picker.
 */
import type { RefObject } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { model } from '../model.ts';
import { emojiChar, lazyData, POPULAR_EMOJI } from '../util.ts';
import { breaksLinkSyntax, channelLinkSyntax, fallbackLink, topicLinkSyntax, unescapeLinkName } from '../link-syntax.ts';
import { TimePick } from './FormatBar.tsx';

/** What is being typed at the caret that suggestions complete. */
export interface Trigger {
  kind: 'mention' | 'channel' | 'topic' | 'emoji' | 'command' | 'syntax' | 'time';
  /** A topic link's channel, by name (`#**channel>`, `[#channel](…)>`), or undefined for the channel being written to (`#>`). */
  channel?: string;
  /** A topic link's channel part as typed, up to its `>` (`#**channel`, `[#channel](#narrow/…)`, `#`); a code block's fence. */
  link?: string;
  /** Where the typed token starts (its `@`, `#`, `:` or `/`). */
  start: number;
  /** What follows the token's prefix, as typed. */
  query: string;
  /** `@_`: a silent mention. */
  silent: boolean;
}

export interface Choice {
  /** Shown in the list. */
  label: string;
  /** Shown after the label, dimmed (an email, "group", an emoji). */
  detail: string;
  /** The Markdown that replaces the typed token, a space after it. */
  insert: string;
  /** The person a mention choice names. */
  userId?: number;
  /** The channel a channel link choice names. */
  streamId?: number;
  /** The user group a group mention choice names. */
  groupId?: number;
}

/** How many suggestions show at once. */
const SHOWN = 8;

// Each pattern is matched against the text before the caret. The token must
// start the text or follow a space, an opening bracket, a quote, `/` or `<`
// (Zulip's tokenize_compose_str), so that an email address or a time such
// as 10:30 suggests nothing.
const MENTION = /(?:^|[\s"'(/<[{])@(_?)\*{0,2}([^\s@*][^\n@*]{0,49})?$/;
const CHANNEL = /(?:^|[\s"'(/<[{])#\*{0,2}([^\s#*>][^\n#*>]{0,49})$/;
const EMOJI = /(?:^|[\s"'(/<[{]):([a-z0-9_+-]{2,50})$/i;
/** A topic link being typed: `#**channel>` and the topic so far (Zulip's stream_topic_regex). */
const TOPIC_LINK = /#\*\*([^*>\n]+)>([^*\n]*)$/;
/** `#>` and the topic so far: a topic of the channel being written to (Zulip's shortcut_regex). */
const TOPIC_LINK_HERE = /#>([^*\n]*)$/;
/** A channel's Markdown link (a name the syntax cannot hold), `>` and the topic so far (Zulip's fallback_stream_topic_regex). */
const TOPIC_LINK_FALLBACK = /\[#([^*>\n]+)\]\(#[^)\s]*\)>([^*\n]*)$/;
/** `>` typed after a finished channel link, with a space or not (Zulip's topic_jump): the part that becomes the topic link's `>`. */
const JUMP_INTO_LINK = /#\*\*[^*>\n]+(\*\*\s?>)$|\[#[^*>\n]+\]\(#[^)\s]*\)(\s>)$/;
/** A code block's language being typed after its fence, which starts a line (Zulip's syntax typeahead). */
const CODE_FENCE = /(?:^|\n)(`{3,}|~{3,})( ?[^`~\s][^`~\n]*)$/;
/** A global time being typed, `<time` and what follows (Zulip's time_jump). */
const TIME = /<time(?::([^>]*?)>?)?$/;
/** What may follow the caret for suggestions to be offered: the end of a word (Zulip's terminal_symbols). */
const WORD_ENDS = ',.;?!()[]> \u00a0"\'\n\t';
/** A command: only what starts the message. */
const COMMAND = /^\/([a-z]*)$/;

/** Zulip's slash commands: what each inserts and what it does. */
const COMMANDS: Array<[name: string, detail: string]> = [
  ['me', 'Action message'],
  ['poll', 'Create a poll'],
  ['todo', 'Create a collaborative to-do list'],
];

/**
 * The token at the caret that suggestions complete, or null (of several, the
 * one typed last: a mention's words may run on). `commands`: `/` commands
 * too (the compose box).
 */
export function triggerAt(text: string, caret: number, commands = false, languagesAt: number | null = null): Trigger | null {
  // Nothing in the middle of a word: the caret is likely inside something already completed (Zulip's terminal_symbols).
  const next = text[caret];
  if (next !== undefined && !WORD_ENDS.includes(next)) return null;
  const before = text.slice(0, caret);
  const command = commands ? COMMAND.exec(before) : null;
  if (command) return { kind: 'command', start: 0, query: command[1]!, silent: false };
  // A fence the code button just made: its languages before anything is typed.
  const bare = caret === languagesAt ? /(?:^|\n)(`{3,})$/.exec(before) : null;
  if (bare) return { kind: 'syntax', start: caret - bare[1]!.length, query: '', link: bare[1]!, silent: false };
  const fence = CODE_FENCE.exec(before);
  if (fence) return { kind: 'syntax', start: before.length - fence[1]!.length - fence[2]!.length, query: fence[2]!.trimStart(), link: fence[1]!, silent: false };
  const time = TIME.exec(before);
  if (time) return { kind: 'time', start: time.index, query: time[1] ?? '', silent: false };
  const found: Trigger[] = [];
  let m = MENTION.exec(before);
  if (m) found.push({ kind: 'mention', start: before.lastIndexOf('@'), query: m[2] ?? '', silent: m[1] === '_' });
  m = EMOJI.exec(before);
  if (m) found.push({ kind: 'emoji', start: before.lastIndexOf(':'), query: m[1]!, silent: false });
  // A topic link, unless a mention or an emoji is being typed in it; none while a space follows its `>` (as Zulip's).
  const last = found.reduce<Trigger | null>((l, t) => (!l || t.start > l.start ? t : l), null);
  const topic = topicLinkAt(before);
  if (topic && (!last || last.start < topic.start)) return topic.query.startsWith(' ') ? null : topic;
  m = CHANNEL.exec(before);
  if (m) found.push({ kind: 'channel', start: before.lastIndexOf('#'), query: m[1]!, silent: false });
  return found.reduce<Trigger | null>((l, t) => (!l || t.start > l.start ? t : l), null);
}

/** The topic link being typed at the end of `before`, of any of its three forms. */
function topicLinkAt(before: string): Trigger | null {
  let m = TOPIC_LINK.exec(before);
  if (m) return { kind: 'topic', start: m.index, query: m[2]!, channel: m[1]!, link: `#**${m[1]!}`, silent: false };
  m = TOPIC_LINK_HERE.exec(before);
  if (m) return { kind: 'topic', start: m.index, query: m[1]!, link: '#', silent: false };
  m = TOPIC_LINK_FALLBACK.exec(before);
  if (m) return { kind: 'topic', start: m.index, query: m[2]!, channel: unescapeLinkName(m[1]!), link: m[0].slice(0, m[0].length - m[2]!.length - 1), silent: false };
  return null;
}

/** A channel link being opened for a topic: `#**channel>`, or its Markdown link and `>` (Zulip's, where the name would break the syntax). */
function topicLinkStart(channel: { stream_id: number; name: string }): string {
  return breaksLinkSyntax(channel.name) ? `${fallbackLink(channel)}>` : `#**${channel.name}>`;
}

/**
 * How well `name` matches `query`: 0 when it starts with it, 1 when one of
 * its words does, -1 when neither (case ignored).
 */
function rank(name: string, query: string): number {
  const n = name.toLowerCase();
  const q = query.toLowerCase();
  if (n.startsWith(q)) return 0;
  return n.split(/[\s_-]+/).some((w) => w.startsWith(q)) ? 1 : -1;
}

/** The candidates that match, best first (a prefix of the whole name, then of a word; then by name), at most `limit`. */
export function best<T>(items: T[], query: string, names: (item: T) => string[], label: (item: T) => string, limit = SHOWN): T[] {
  const scored: Array<[number, T]> = [];
  for (const item of items) {
    const ranks = names(item).map((n) => rank(n, query)).filter((r) => r >= 0);
    if (ranks.length) scored.push([Math.min(...ranks), item]);
  }
  scored.sort((a, b) => a[0] - b[0] || label(a[1]).localeCompare(label(b[1])));
  return scored.slice(0, limit).map(([, item]) => item);
}

/** Zulip's wildcard mentions: in a channel all four, in a direct message the two that mean everyone in it. */
const CHANNEL_WILDCARDS: Array<[string, string]> = [
  ['all', 'Notify everyone in the channel'],
  ['everyone', 'Notify everyone in the channel'],
  ['channel', 'Notify everyone in the channel'],
  ['topic', 'Notify everyone taking part in the topic'],
];
const DM_WILDCARDS: Array<[string, string]> = [
  ['all', 'Notify everyone in the conversation'],
  ['everyone', 'Notify everyone in the conversation'],
];

function mentionChoices(t: Trigger, inChannel: boolean): Choice[] {
  const prefix = t.silent ? '@_' : '@';
  // Muted users are not offered (they still count as namesakes: another active user with the same name, and the ID says which one is meant).
  const offered = [...model.users.values()].filter((u) => u.is_active && !model.isUserMuted(u.user_id));
  const people = best(offered, t.query, (u) => [u.full_name, u.email], (u) => u.full_name).map(
    (u): Choice => ({ label: model.withGuestMark(u.user_id, u.full_name), detail: u.email, insert: model.mentionSyntax(u.user_id, u.full_name, t.silent), userId: u.user_id }),
  );
  const wildcards = t.silent ? [] : best(inChannel ? CHANNEL_WILDCARDS : DM_WILDCARDS, t.query, ([w]) => [w], ([w]) => w).map(([w, d]): Choice => ({ label: w, detail: d, insert: `@**${w}**` }));
  const groups = best(
    [...model.groups.values()].filter((g) => !g.is_system_group && !g.deactivated),
    t.query,
    (g) => [g.name],
    (g) => g.name,
  ).map((g): Choice => ({ label: g.name, detail: 'User group', insert: `${prefix}*${g.name}*`, groupId: g.id }));
  return [...wildcards, ...people, ...groups].slice(0, SHOWN);
}

function channelChoices(t: Trigger): Choice[] {
  return best([...model.streams.values()], t.query, (s) => [s.name], (s) => s.name).map((s): Choice => ({ label: s.name, detail: model.subs.has(s.stream_id) ? '' : 'Not subscribed', insert: channelLinkSyntax(s), streamId: s.stream_id }));
}

/**
 * A topic link's suggestions (Zulip's topic_list completion): the channel's
 * topics that match what is typed (fetched when not loaded yet), what is
 * typed first as a new topic when no topic has that name; with nothing typed
 * yet, a link to the channel itself first.
 */
function topicLinkChoices(t: Trigger, channelId: number | undefined): Choice[] {
  const channel = t.channel === undefined ? model.streams.get(channelId ?? -1) : [...model.streams.values()].find((s) => s.name.toLowerCase() === t.channel!.toLowerCase());
  if (!channel) return [];
  void model.ensureTopics(channel.stream_id);
  const topics = (model.topics.get(channel.stream_id) ?? []).map((x) => x.name);
  const link = (topic: string) => topicLinkSyntax(channel, topic);
  if (!t.query) {
    const toChannel: Choice = { label: `#${channel.name}`, detail: '(link to channel)', insert: channelLinkSyntax(channel) };
    return [toChannel, ...topics.slice(0, SHOWN - 1).map((topic): Choice => ({ label: topic === '' ? model.generalChatName() : topic, detail: '', insert: link(topic) }))];
  }
  const matched = topicChoices(topics, t.query, true);
  // (A topic of that name not there yet: what is typed, as a new one.)
  const offered = matched.length ? matched : [{ name: t.query, isNew: true }];
  return offered.map((c): Choice => ({ label: c.name === '' ? model.generalChatName() : c.name, detail: c.isNew ? 'New' : '', insert: link(c.name) }));
}

/** Unicode emoji names and codes, from the server's emoji data (server_emoji_data_url), once fetched. */
let unicodeEmoji: Array<[name: string, code: string]> | null = null;
/** Each Unicode emoji's own name (the first of its names), once fetched. */
let canonicalNames: Map<string, string> | null = null;

/** A Unicode emoji's name, once the names are fetched (`loadEmojiNames`). */
export function emojiNameOf(code: string): string | undefined {
  return canonicalNames?.get(code);
}
let emojiFetch: Promise<void> | null = null;

/** Fetches the emoji names once; `then` runs when they are in (to show them). */
export function loadEmojiNames(then: () => void): void {
  if (unicodeEmoji || emojiFetch) return;
  const url = model.realm.server_emoji_data_url as string | undefined;
  if (!url) return;
  // The same origin as the page, whatever host name the server was told.
  emojiFetch = fetch(new URL(url, location.href).pathname)
    .then((r) => r.json())
    .then((data: { code_to_names: Record<string, string[]> }) => {
      unicodeEmoji = Object.entries(data.code_to_names).flatMap(([code, names]) => names.map((n): [string, string] => [n, code]));
      canonicalNames = new Map(Object.entries(data.code_to_names).map(([code, names]) => [code, names[0]!]));
      then();
    })
    .catch(() => {
      emojiFetch = null; // tried again at the next `:`
    });
}

/**
 * The emoji whose names match `query` (the name, or one of its words, starts
 * with it), best first as Zulip's sort_emojis has them: the one of that very
 * name, then Zulip's popular ones, then those whose name starts with it, then
 * the rest, custom ones (code '') first in each and by name; a Unicode emoji
 * once, by its best name, and none a custom emoji's name takes.
 */
export function findEmoji(query: string, limit = SHOWN): Array<[name: string, code: string]> {
  const q = query.toLowerCase().replace(/ /g, '_');
  const custom = [...model.realmEmoji.values()].filter((e) => !e.deactivated).map((e): [string, string] => [e.name, '']);
  const customNames = new Set(custom.map(([n]) => n));
  const matching = [...custom, ...(unicodeEmoji ?? [])].filter(([n]) => n.toLowerCase().startsWith(q) || n.toLowerCase().split('_').some((w) => w.startsWith(q)));
  const popular = new Set(POPULAR_EMOJI.map(([, code]) => code));
  const byName = (a: [string, string], b: [string, string]) => (!a[1] && b[1] ? -1 : a[1] && !b[1] ? 1 : a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  const exact = matching.filter(([n]) => n === q);
  const others = matching.filter(([n]) => n !== q);
  const ordered = [
    ...exact,
    ...others.filter(([, code]) => popular.has(code)),
    ...others.filter(([n, code]) => !popular.has(code) && n.toLowerCase().startsWith(q)).sort(byName),
    ...others.filter(([n, code]) => !popular.has(code) && !n.toLowerCase().startsWith(q)).sort(byName),
  ];
  const seen = new Set<string>();
  const out: Array<[string, string]> = [];
  for (const [name, code] of ordered) {
    if (code && (seen.has(code) || customNames.has(name))) continue;
    if (code) seen.add(code);
    out.push([name, code]);
    if (out.length === limit) break;
  }
  return out;
}

function emojiChoices(t: Trigger): Choice[] {
  return findEmoji(t.query).map(([name, code]): Choice => ({ label: `:${name}:`, detail: code ? emojiChar(code) : 'Custom emoji', insert: `:${name}:` }));
}

/** The languages suggested after a code fence, fetched with the first fence typed (Zulip's pygments_data: name, display name, popularity). */
const codeLanguages = lazyData<Record<string, [pretty: string, priority: number]>>(() => import('../code-languages.json'));

/**
 * The languages for a code block (Zulip's sort_languages): those whose name
 * holds what is typed, the organization's default language and the code
 * playgrounds' among them; those starting with it first; by popularity,
 * then name; one name for each language (not both "js" and "javascript").
 */
function languageChoices(t: Trigger): Choice[] {
  const byName = codeLanguages.value();
  if (!byName) return [];
  const fallback = model.realm.realm_default_code_block_language;
  const defaultLanguage = typeof fallback === 'string' ? fallback : '';
  const names = new Set([...(defaultLanguage ? [defaultLanguage] : []), ...model.playgrounds.map((p) => p.pygments_language), ...Object.keys(byName)]);
  const q = t.query.toLowerCase();
  const order = (a: string, b: string) => (byName[b]?.[1] ?? 0) - (byName[a]?.[1] ?? 0) || (a < b ? -1 : a > b ? 1 : 0);
  const matching = [...names].filter((n) => n.toLowerCase().includes(q));
  const starting = matching.filter((n) => n.toLowerCase().startsWith(q)).sort(order);
  const rest = matching.filter((n) => !n.toLowerCase().startsWith(q)).sort(order);
  const seen = new Set<string>();
  const out: Choice[] = [];
  for (const n of [...starting, ...rest]) {
    const pretty = byName[n]?.[0] ?? n;
    if (seen.has(pretty)) continue;
    seen.add(pretty);
    out.push({ label: n, detail: n === defaultLanguage ? '(default)' : '', insert: n });
    if (out.length === SHOWN) break;
  }
  return out;
}

function commandChoices(t: Trigger): Choice[] {
  return COMMANDS.filter(([name]) => name.startsWith(t.query)).map(([name, detail]): Choice => ({ label: `/${name}`, detail, insert: `/${name}` }));
}

/** The suggestions for a trigger, best first; `channelId`, the channel being written to, if any. */
export function choicesFor(t: Trigger, inChannel: boolean, channelId?: number): Choice[] {
  if (t.kind === 'mention') return mentionChoices(t, inChannel);
  if (t.kind === 'channel') return channelChoices(t);
  if (t.kind === 'topic') return topicLinkChoices(t, channelId);
  if (t.kind === 'command') return commandChoices(t);
  if (t.kind === 'syntax') return languageChoices(t);
  if (t.kind === 'time') return [{ label: 'Mention a time-zone-aware time', detail: '', insert: '' }];
  return emojiChoices(t);
}

/** The text with the trigger's token (up to the caret) replaced by the choice; and where the caret goes. */
export function applyChoice(text: string, caret: number, t: Trigger, c: Choice): { text: string; caret: number } {
  const after = text.slice(caret);
  const inserted = c.insert + (after.startsWith(' ') ? '' : ' ');
  return { text: text.slice(0, t.start) + inserted + after, caret: t.start + inserted.length };
}

/** The list under the compose box. */
export function Suggestions({ id, choices, active, onPick }: { id: string; choices: Choice[]; active: number; onPick(i: number): void }) {
  return (
    <ul class="suggestions compose-suggestions" id={id} role="listbox" aria-label="Suggestions">
      {choices.map((c, i) => (
        <li key={c.insert} id={`${id}-${i}`} role="option" aria-selected={i === active} onMouseDown={(e) => e.preventDefault()} onClick={() => onPick(i)}>
          {c.label} {c.detail && <span class="muted-text">{c.detail}</span>}
        </li>
      ))}
    </ul>
  );
}

/**
 * Suggestions for a textarea whose text is `text` (set by `setText`): the
 * list to show above it (null when none), the textarea's ARIA attributes and
 * caret handlers, `follow` for its input handler, and `keyDown`, which
 * handles the arrows, Enter, Tab and Escape while the list shows (true when
 * it did). `enabled` false (the textarea not shown): no suggestions.
 * `commands`: `/` commands at the start too (a new message, not an edit).
 */
export function useSuggestions(opts: {
  id: string;
  text: string;
  setText(text: string): void;
  textRef: RefObject<HTMLTextAreaElement | null>;
  inChannel: boolean;
  /** The channel being written to (the topics `#>` offers). */
  channelId?: number;
  enabled?: boolean;
  commands?: boolean;
  /** Told of each suggestion picked. */
  onPicked?(c: Choice): void;
}) {
  const { id, text, setText, textRef, inChannel, channelId, enabled = true, commands = false, onPicked } = opts;
  /** Where the caret is in the text (what the suggestions complete). */
  const [caret, setCaret] = useState(0);
  /** The highlighted suggestion, for the token typed so far (a new token starts at the first). */
  const [active, setActive] = useState<{ key: string; index: number }>({ key: '', index: 0 });
  /** The start of the token whose suggestions Escape closed. */
  const [dismissed, setDismissed] = useState<number | null>(null);
  /** A global time being picked for what was typed from `start` to `end` (`<time…`), starting at `initial`. */
  const [timing, setTiming] = useState<{ start: number; end: number; initial: string } | null>(null);
  /** Where the code button just made a fence: its languages are offered there before anything is typed. */
  const [languagesAt, setLanguagesAt] = useState<number | null>(null);
  /** Bumped as emoji names or code languages arrive (to show them). */
  const [, setLoaded] = useState(0);
  /** Where the caret goes once the box shows a picked suggestion (set in the same update, before any more typing). */
  const caretAfterPick = useRef<number | null>(null);
  /** Or the text selected once the box shows it (a spoiler's "Header", to be typed over). */
  const selectAfterPick = useRef<[number, number] | null>(null);
  useLayoutEffect(() => {
    const el = textRef.current;
    if ((caretAfterPick.current === null && selectAfterPick.current === null) || !el) return;
    el.focus();
    if (selectAfterPick.current) el.setSelectionRange(...selectAfterPick.current);
    else el.selectionStart = el.selectionEnd = caretAfterPick.current!;
    caretAfterPick.current = null;
    selectAfterPick.current = null;
  });

  const trigger = enabled ? triggerAt(text, caret, commands, languagesAt) : null;
  const choices = trigger && trigger.start !== dismissed ? choicesFor(trigger, inChannel, channelId) : [];
  const triggerKey = trigger ? `${trigger.start}:${trigger.query}` : '';
  const activeIndex = active.key === triggerKey ? Math.min(active.index, choices.length - 1) : 0;

  /** Replaces the text from `start` to the caret with `s`, the caret after it. */
  const replaceToCaret = (start: number, s: string) => {
    caretAfterPick.current = start + s.length;
    setText(text.slice(0, start) + s + text.slice(caret));
    setCaret(caretAfterPick.current);
  };
  const follow = (el: HTMLTextAreaElement) => {
    const before = el.value.slice(0, el.selectionStart);
    const jump = el.value.length === text.length + 1 ? JUMP_INTO_LINK.exec(before) : null;
    if (jump) {
      // `>` typed after a channel link: back into the link, for a topic (Zulip's topic_jump).
      const opened = before.slice(0, before.length - (jump[1] ?? jump[2])!.length) + '>';
      caretAfterPick.current = opened.length;
      setText(opened + el.value.slice(el.selectionStart));
      setCaret(opened.length);
      return;
    }
    setCaret(el.selectionStart);
    const offered = el.dataset.offerLanguagesAt === String(el.selectionStart) ? el.selectionStart : null;
    delete el.dataset.offerLanguagesAt;
    setLanguagesAt(offered);
    const t = triggerAt(el.value, el.selectionStart, commands, offered);
    if (!t) setDismissed(null);
    else if (t.kind === 'emoji') loadEmojiNames(() => setLoaded((n) => n + 1));
    else if (t.kind === 'syntax') codeLanguages.load(() => setLoaded((n) => n + 1));
  };
  /** Goes on from a channel suggestion to its topics (`#**channel>`), as Zulip's. */
  const openTopics = (channel: { stream_id: number; name: string }, choice: Choice) => {
    replaceToCaret(trigger!.start, topicLinkStart(channel));
    onPicked?.(choice);
  };
  /**
   * A code block's language picked (Zulip's): after the fence, and with the
   * caret at the end of the text, a line for the code and the closing fence
   * after it; for a spoiler, its header "Header", selected to be typed over.
   */
  const pickLanguage = (language: string) => {
    const fence = trigger!.link!;
    const opened = text.slice(0, trigger!.start) + fence + language;
    const after = text.slice(caret);
    if (language === 'spoiler') {
      selectAfterPick.current = [opened.length + 1, opened.length + 7];
      setText(opened + ' Header' + (after ? after : `\n\n${fence}`));
      setCaret(opened.length + 7);
      return;
    }
    caretAfterPick.current = opened.length + (after ? 0 : 1);
    setText(after ? opened + after : `${opened}\n\n${fence}`);
    setCaret(caretAfterPick.current);
  };
  const pick = (i: number) => {
    const choice = choices[i];
    if (!trigger || !choice) return;
    const channel = trigger.kind === 'channel' ? model.streams.get(choice.streamId ?? -1) : undefined;
    // A channel where only general chat is allowed is linked at once (it has no topics to choose).
    if (channel && model.topicsPolicy(channel.stream_id) !== 'empty_topic_only') return openTopics(channel, choice);
    if (trigger.kind === 'syntax') return pickLanguage(choice.insert);
    if (trigger.kind === 'time') return setTiming({ start: trigger.start, end: caret, initial: localInput(trigger.query) });
    const r = applyChoice(text, caret, trigger, choice);
    caretAfterPick.current = r.caret;
    setText(r.text);
    setCaret(r.caret);
    onPicked?.(choice);
  };
  /** Puts `s` where the caret is (or over the selection), apart from the words around it; the caret after it and its space. */
  const insert = (s: string) => {
    const el = textRef.current;
    const start = el ? el.selectionStart : text.length;
    const end = el ? el.selectionEnd : text.length;
    const before = text.slice(0, start);
    const after = text.slice(end);
    const added = (before && !/\s$/.test(before) ? ' ' : '') + s + (/^\s/.test(after) ? '' : ' ');
    caretAfterPick.current = before.length + added.length + (/^\s/.test(after) ? 1 : 0);
    setText(before + added + after);
    setCaret(caretAfterPick.current);
  };
  const keyDown = (e: KeyboardEvent): boolean => {
    if (!choices.length || e.isComposing) return false;
    const move = e.key === 'ArrowDown' ? 1 : e.key === 'ArrowUp' ? -1 : 0;
    const channel = trigger?.kind === 'channel' ? model.streams.get(choices[activeIndex]?.streamId ?? -1) : undefined;
    if (e.key === '>' && channel) openTopics(channel, choices[activeIndex]!);
    else if (move) setActive({ key: triggerKey, index: (activeIndex + move + choices.length) % choices.length });
    else if ((e.key === 'Enter' && !e.shiftKey) || e.key === 'Tab') pick(activeIndex);
    else if (e.key === 'Escape' && trigger!.kind === 'topic' && trigger!.channel !== undefined) {
      // As Zulip's: the channel link closed, what was typed after it left as words.
      e.stopPropagation();
      replaceToCaret(trigger!.start, `${trigger!.link}${trigger!.link!.startsWith('[') ? '' : '**'} ${trigger!.query}`);
    } else if (e.key === 'Escape') {
      e.stopPropagation();
      setDismissed(trigger!.start);
    } else return false;
    e.preventDefault();
    return true;
  };
  const timePick = timing && trigger?.kind === 'time' && trigger.start === timing.start && (
    <div class="suggestions compose-suggestions">
      <TimePick
        initial={timing.initial}
        focus
        onPick={(syntax) => {
          // In place of what was typed (and a `>` just after it), as Zulip's.
          const after = text.slice(timing.end).replace(/^>/, '');
          const before = text.slice(0, timing.start) + syntax + ' ';
          caretAfterPick.current = before.length;
          setText(before + after);
          setCaret(before.length);
          setTiming(null);
        }}
        onCancel={() => {
          setTiming(null);
          textRef.current?.focus();
        }}
      />
    </div>
  );
  return {
    list: timePick || (choices.length ? <Suggestions id={id} choices={choices} active={activeIndex} onPick={pick} /> : null),
    textareaProps: {
      'aria-autocomplete': 'list' as const,
      'aria-controls': choices.length ? id : undefined,
      'aria-activedescendant': choices.length ? `${id}-${activeIndex}` : undefined,
      onKeyUp: (e: { currentTarget: HTMLTextAreaElement }) => setCaret(e.currentTarget.selectionStart),
      onClick: (e: { currentTarget: HTMLTextAreaElement }) => follow(e.currentTarget),
    },
    follow,
    keyDown,
    insert,
  };
}

/** A time as typed in `<time:…>`, as a local date and time for the picker ('' when it is not one). */
function localInput(typed: string): string {
  const at = new Date(typed);
  if (!typed || Number.isNaN(at.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

/** Lower case, without accents (Zulip's typeahead matches "resume" to "Résumé"). */
function folded(s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/**
 * Whether a topic matches what is typed, as Zulip's topic typeahead has it:
 * a query of one word starts one of the topic's words; one with spaces
 * starts the topic or follows a space in it.
 */
export function topicMatches(topic: string, query: string): boolean {
  const t = folded(topic);
  const q = folded(query.trim());
  if (!q.includes(' ')) return t.split(' ').some((w) => w.startsWith(q));
  return t.startsWith(q) || t.includes(` ${q}`);
}

/**
 * The topics to offer for what is typed, as Zulip's compose box does: the
 * channel's topics that match (most recent first within each of: the same
 * name, starting with it as typed, starting with it in any case, the rest),
 * at most SHOWN; where some match and none is what was typed, what was typed
 * comes first, as a new topic (unless the user may not start one).
 */
export function topicChoices(topics: string[], typed: string, mayStartTopic: boolean): Array<{ name: string; isNew: boolean }> {
  if (!typed.trim()) return [];
  // The general chat (the empty topic) goes by its name.
  const shown = (t: string) => (t === '' ? model.generalChatName() : t);
  const matched = topics.filter((t) => topicMatches(shown(t), typed));
  const lower = typed.toLowerCase();
  const group = (t: string) => (shown(t).toLowerCase() === lower ? 0 : shown(t).startsWith(typed) ? 1 : shown(t).toLowerCase().startsWith(lower) ? 2 : 3);
  const sorted = matched.map((t, i) => [group(t), i, t] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(([, , t]) => ({ name: t, isNew: false }));
  if (sorted.length && mayStartTopic && !matched.includes(typed)) sorted.unshift({ name: typed, isNew: true });
  return sorted.slice(0, SHOWN);
}

/**
 * The compose box's topic field's suggestions (Zulip's topic typeahead): the
 * list opens as one types and shows `topicChoices`, with a hint under it;
 * Enter or Tab (or a click) takes the highlighted topic and `onPicked` moves
 * on to the message; Escape closes the list.
 */
export function useTopicSuggestions(opts: {
  id: string;
  topics: string[];
  value: string;
  mayStartTopic: boolean;
  setValue(topic: string): void;
  onPicked?(): void;
  /** A topic field of a move (Zulip's topic edit typeahead): the list under the field, no New label and no hint. */
  moving?: boolean;
}) {
  const { id, topics, value, mayStartTopic, setValue, onPicked, moving = false } = opts;
  /** Open since the last thing typed (closed by a pick, Escape or leaving the field). */
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const choices = open ? topicChoices(topics, value, mayStartTopic) : [];
  const activeIndex = Math.min(active, choices.length - 1);
  const pick = (i: number) => {
    const c = choices[i];
    if (!c) return;
    setValue(c.name);
    setOpen(false);
    onPicked?.();
  };
  const keyDown = (e: KeyboardEvent): boolean => {
    if (!choices.length || e.isComposing) return false;
    const move = e.key === 'ArrowDown' ? 1 : e.key === 'ArrowUp' ? -1 : 0;
    if (move) setActive((activeIndex + move + choices.length) % choices.length);
    else if (e.key === 'Enter' || e.key === 'Tab') pick(activeIndex);
    else if (e.key === 'Escape') {
      e.stopPropagation();
      setOpen(false);
    } else return false;
    e.preventDefault();
    return true;
  };
  return {
    list: choices.length ? (
      <ul class={moving ? 'suggestions topic-suggestions under' : 'suggestions topic-suggestions'} id={id} role="listbox" aria-label="Topics">
        {choices.map((c, i) => (
          <li key={c.name} id={`${id}-${i}`} role="option" aria-selected={i === activeIndex} onMouseDown={(e) => e.preventDefault()} onClick={() => pick(i)}>
            {c.name === '' ? <em>{model.generalChatName()}</em> : c.name}
            {c.isNew && !moving && <em class="muted-text suggestion-label">New</em>}
          </li>
        ))}
        {!moving && (
          <li class="suggestions-hint" role="presentation">
            <em>{mayStartTopic ? 'Start a new topic or select one from the list.' : 'Select a topic from the list.'}</em>
          </li>
        )}
      </ul>
    ) : null,
    inputProps: {
      role: 'combobox' as const,
      'aria-autocomplete': 'list' as const,
      'aria-expanded': choices.length > 0,
      'aria-controls': choices.length ? id : undefined,
      'aria-activedescendant': choices.length ? `${id}-${activeIndex}` : undefined,
      onBlur: () => setOpen(false),
    },
    /** For the field's input handler: what is typed opens the list, at its first topic. */
    typed: () => {
      setOpen(true);
      setActive(0);
    },
    keyDown,
  };
}

/**
 * A move's topic field (a message's or a topic's), the destination channel's
 * topics suggested as one types, as Zulip's move dialog does.
 */
export function MoveTopicField(props: {
  channel: number;
  value: string;
  setValue(topic: string): void;
  listId: string;
  id?: string;
  'aria-label'?: string;
  disabled: boolean;
  maxLength: number;
}) {
  const { channel, value, setValue, listId, ...attributes } = props;
  useEffect(() => void model.ensureTopics(channel), [channel]);
  const suggest = useTopicSuggestions({ id: listId, topics: (model.topics.get(channel) ?? []).map((t) => t.name), value, mayStartTopic: true, setValue, moving: true });
  return (
    <span class="move-topic-field">
      <input
        type="text"
        {...attributes}
        value={value}
        onInput={(e) => {
          setValue(e.currentTarget.value);
          suggest.typed();
        }}
        onKeyDown={(e) => suggest.keyDown(e)}
        {...suggest.inputProps}
      />
      {suggest.list}
    </span>
  );
}
