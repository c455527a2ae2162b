import { useEffect, useState } from 'preact/hooks';
import { model } from './model.ts';
import { withPlaygroundLinks } from './playgrounds.ts';

/** Re-render the calling component whenever the model changes. */
export function useModel(): void {
  const [, setTick] = useState(0);
  useEffect(() => model.subscribe(() => setTick((x) => x + 1)), []);
}

/** The emoji picker's Popular section: Zulip's six (its popular_emojis), by their names and code points. */
export const POPULAR_EMOJI: [name: string, code: string][] = [
  ['+1', '1f44d'], ['tada', '1f389'], ['smile', '1f642'], ['heart', '2764'], ['working_on_it', '1f6e0'], ['octopus', '1f419'],
];

export function emojiChar(code: string): string {
  try {
    const points = code.split('-').map((h) => parseInt(h, 16));
    // Characters like ❤ (U+2764) need the emoji variation selector to be drawn in colour.
    if (points.length === 1 && points[0]! < 0x1f000) points.push(0xfe0f);
    return String.fromCodePoint(...points);
  } catch {
    return '';
  }
}

/** What `make` gives, remembered in `memo` under `key` (a memo holding more than `limit` is emptied first). */
export function remembered<T>(memo: Map<string, T>, limit: number, key: string, make: () => T): T {
  let out = memo.get(key);
  if (out === undefined) {
    out = make();
    if (memo.size > limit) memo.clear();
    memo.set(key, out);
  }
  return out;
}

const cache = new Map<string, string>();

/** The playgrounds prepareHtml last saw, and how many lists it has seen (in its cache's keys, which then follow the list). */
let keyedPlaygrounds: unknown = null;
let playgroundsSeen = 0;

function playgroundsKey(): string {
  if (model.playgrounds !== keyedPlaygrounds) {
    keyedPlaygrounds = model.playgrounds;
    playgroundsSeen++;
  }
  return `${playgroundsSeen}:`;
}

/** The largest box an image preview is shown in (styles.css, .message_inline_image img). */
const IMAGE_BOX = { width: 360, height: 240 };

/**
 * Zulip renders Unicode emoji as `<span class="emoji emoji-1f642">:smile:</span>`
 * for its sprite sheets; here the text becomes the character itself. Code
 * blocks get their playground links (withPlaygroundLinks).
 */
export function prepareHtml(html: string): string {
  // Previews follow the organization's inline_image_preview, as the server's do.
  const previews = model.realm.realm_inline_image_preview !== false;
  const h24 = !!model.settings.twenty_four_hour_time;
  const animate = animatePolicy();
  const text = textEmoji();
  return remembered(cache, 5000, (previews ? '1' : '0') + (h24 ? '1' : '0') + (text ? '1' : '0') + animate + playgroundsKey() + html, () => {
    let out = localTimes(html, h24);
    // Emoji as characters, or with the "text" emoji set as their names (":smile:"), custom ones too.
    out = text
      ? out.replace(/<img alt="(:[^"<>]*:)" class="emoji"[^>]*>/g, '<span class="emoji">$1</span>')
      : out.replace(/(<span[^>]*class="emoji emoji-([0-9a-f-]+)"[^>]*>)[^<]*(<\/span>)/g, (_m, open: string, code: string, close: string) => open + emojiChar(code) + close);
    // Image links to uploads get an inline preview where the server rendered none
    // (messages rendered before it made previews of uploads).
    const rendered = out;
    if (previews) out = out.replace(/<a href="(\/user_uploads\/[^"]+\.(?:png|jpe?g|gif|webp))"[^>]*>([^<]*)<\/a>/gi, (m, href: string) =>
      rendered.includes(`<div class="message_inline_image"><a href="${href}"`)
        ? m
        : `${m}<span class="message_inline_image"><a href="${href}" target="_blank" rel="noopener noreferrer"><img src="${href}" alt="" loading="lazy"></a></span>`,
    );
    // A thumbnailed upload says its size (data-original-dimensions): its box is
    // laid out before the image loads, so the list does not jump when it arrives.
    out = out.replace(/<img ([^>]*?)data-original-dimensions="(\d+)x(\d+)"([^>]*)>/g, (m, before: string, w: string, h: string, after: string) => {
      const width = Number(w);
      const height = Number(h);
      if (!width || !height || m.includes(' style=')) return m;
      const shown = Math.max(1, Math.round(width * Math.min(1, IMAGE_BOX.width / width, IMAGE_BOX.height / height)));
      return `<img ${before}data-original-dimensions="${w}x${h}"${after} style="aspect-ratio: ${width} / ${height}; width: ${shown}px">`;
    });
    // An animated upload's preview moves only as the user's web_animate_image_previews says.
    out = animatedPreviews(out, animate);
    // Code blocks in a language with playgrounds offer to open their code there.
    return withPlaygroundLinks(out, model.playgrounds);
  });
}

/** Whether the user's emoji set (Zulip's emojiset) is "text": emoji shown as their names, ":smile:". */
export function textEmoji(): boolean {
  return model.settings.emojiset === 'text';
}

/** The user's web_animate_image_previews ('always', 'on_hover', Zulip's default, or 'never'); on a screen without hovering, 'on_hover' animates always, as in Zulip. */
function animatePolicy(): string {
  const policy = String(model.settings.web_animate_image_previews ?? 'on_hover');
  return policy === 'on_hover' && matchMedia('(hover: none)').matches ? 'always' : policy;
}

/** The names of the server's animated and still thumbnails (its server_thumbnail_formats). */
function thumbnailNames(): { animated?: string; still?: string } {
  const formats: Array<{ name: string; animated: boolean }> = model.realm.server_thumbnail_formats ?? [];
  return { animated: formats.find((f) => f.animated)?.name, still: formats.find((f) => !f.animated)?.name };
}

/**
 * Animated uploads' previews (`data-animated="true"`) as Zulip's web app shows
 * them: the animated thumbnail when `policy` is 'always'; else the still one,
 * marked with a play sign (class message_inline_animated_image_still), which
 * animates while the pointer is over it under 'on_hover' (animateOnHover).
 */
function animatedPreviews(html: string, policy: string): string {
  const { animated, still } = thumbnailNames();
  const name = policy === 'always' ? animated : still;
  if (!name || !html.includes('data-animated="true"')) return html;
  return html.replace(
    /<div class="message_inline_image">(<a [^>]*>)<img ([^>]*?)data-animated="true"([^>]*?)src="(\/user_uploads\/thumbnail\/[^"]+\/)[^"/]+"/g,
    (_m, a: string, before: string, between: string, dir: string) =>
      `<div class="message_inline_image${policy === 'always' ? '' : ' message_inline_animated_image_still'}">${a}<img ${before}data-animated="true"${between}src="${dir}${name}"`,
  );
}

/** Under 'on_hover', an animated upload's still preview animates while the pointer is over it (`over`), and stops after. */
export function animateOnHover(target: EventTarget | null, over: boolean): void {
  const img = (target as HTMLElement | null)?.closest?.<HTMLImageElement>('.message_inline_animated_image_still img[data-animated="true"]');
  if (!img || animatePolicy() !== 'on_hover') return;
  const { animated, still } = thumbnailNames();
  const name = over ? animated : still;
  if (name) img.src = img.src.replace(/\/[^/]+$/, `/${name}`);
  img.closest('.message_inline_image')?.classList.toggle('animating', over);
}

/**
 * A global time (Markdown's `<time:…>`, which the server renders as a
 * `<time datetime>` holding the text written) shown as the date and time in
 * the reader's time zone and clock style, as Zulip's web app shows it; the
 * text written is in its tooltip.
 */
function localTimes(html: string, h24: boolean): string {
  return html.replace(/<time datetime="([^"]+)">([^<]*)<\/time>/g, (m, iso: string, written: string) => {
    const ms = Date.parse(iso);
    if (Number.isNaN(ms)) return m;
    const shown = dateFormat({ ...LOCAL_TIME, hour12: !h24 }).format(new Date(ms));
    const tip = `In your time zone. Written as: ${written.replace(/"/g, '&quot;')}`;
    return `<time datetime="${iso}" title="${tip}">${shown}</time>`;
  });
}

/** How a global time shows. */
const LOCAL_TIME: Intl.DateTimeFormatOptions = { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' };

/** Where alert words are not highlighted: links, code, mentions (as in Zulip), math and emoji. */
const NO_ALERT_WORDS = 'a, code, pre, .user-mention, .user-group-mention, .topic-mention, .katex, .emoji';
const alertCache = new Map<string, string>();

/** The list this browser's localStorage keeps under `key` (empty when there is none, or what is there is not a JSON list). */
export function storedList(key: string): unknown[] {
  try {
    const list = JSON.parse(localStorage.getItem(key) ?? '[]') as unknown;
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/** `set` with `item` added, or taken out if it was there (a new set). */
export function toggled<T>(set: ReadonlySet<T>, item: T): Set<T> {
  const next = new Set(set);
  if (!next.delete(item)) next.add(item);
  return next;
}

/**
 * A set of strings this browser keeps under `key` (which parts of a view are
 * collapsed, say), and a function adding a string to it or taking it out.
 */
export function useStoredSet(key: string, initial: readonly string[] = []): [ReadonlySet<string>, (item: string) => void] {
  const [set, setSet] = useState<ReadonlySet<string>>(() => new Set(localStorage.getItem(key) === null ? initial : storedList(key).filter((k): k is string => typeof k === 'string')));
  const toggle = (item: string) => {
    const next = toggled(set, item);
    setSet(next);
    localStorage.setItem(key, JSON.stringify([...next]));
  };
  return [set, toggle];
}

/** `now`, or undefined when it is what `was` (a parameter the API then leaves out: encodeParams skips undefined ones), so a PATCH sends only what changed. */
export function ifChanged<T>(now: T, was: T): T | undefined {
  return now === was ? undefined : now;
}

const copyCache = new Map<string, string>();

/** Code blocks with a button copying their code (the message list handles its clicks). */
export function withCopyButtons(html: string): string {
  if (!html.includes('class="codehilite"')) return html;
  return remembered(copyCache, 2000, html, () =>
    html.replace(/<div class="codehilite"([^>]*)>/g, '<div class="codehilite"$1><button type="button" class="copy-code" aria-label="Copy code">Copy</button>'),
  );
}

const plainCache = new Map<string, string>();

/**
 * Rendered message HTML as one line of text (its blocks and line breaks
 * separated by spaces, emoji as characters, math without its MathML copy),
 * as the lists of scheduled messages and reminders show a message.
 */
export function plainText(html: string): string {
  return remembered(plainCache, 500, html, () => {
    const doc = new DOMParser().parseFromString(prepareHtml(html), 'text/html');
    for (const el of doc.body.querySelectorAll('.katex-mathml')) el.remove();
    for (const el of doc.body.querySelectorAll('br')) el.replaceWith(' ');
    for (const el of doc.body.querySelectorAll('p, div, blockquote, pre, li, tr, td, th, h1, h2, h3, h4, h5, h6')) el.append(' ');
    return (doc.body.textContent ?? '').replace(/\s+/g, ' ').trim();
  });
}

/**
 * A message's HTML with each occurrence of the alert words in its text (any
 * case, as whole words) in a `<span class="alert-word">`, outside links,
 * code and mentions.
 */
export function highlightAlertWords(html: string, words: string[]): string {
  if (!words.length) return html;
  return remembered(alertCache, 2000, `${words.join('\n')}\u0000${html}`, () => {
    // Longer words first, so that "red alert" wins over "red".
    const choices = [...words].sort((a, b) => b.length - a.length).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    const pattern = new RegExp(`(^|[^\\p{L}\\p{N}_])(${choices.join('|')})(?=$|[^\\p{L}\\p{N}_])`, 'giu');
    const box = document.createElement('template');
    box.innerHTML = html;
    const texts: Text[] = [];
    const walker = document.createTreeWalker(box.content, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) if (!n.parentElement?.closest(NO_ALERT_WORDS)) texts.push(n as Text);
    for (const t of texts) {
      const text = t.data;
      const parts = document.createDocumentFragment();
      let done = 0;
      for (const m of text.matchAll(pattern)) {
        const start = m.index + m[1]!.length;
        const span = document.createElement('span');
        span.className = 'alert-word';
        span.textContent = m[2]!;
        parts.append(text.slice(done, start), span);
        done = start + m[2]!.length;
      }
      if (done === 0) continue;
      parts.append(text.slice(done));
      t.replaceWith(parts);
    }
    return box.innerHTML;
  });
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();
/**
 * The browser's date and time format with these options, made once: making
 * one costs far more than formatting with it, and toLocaleTimeString (and
 * its kin) with options make one at every call, while a message list formats
 * a time and a day for each message at each render (a profile of a list of 50
 * receiving messages: two thirds of its rendering time). An unknown time zone
 * throws a RangeError, as those methods do.
 */
function dateFormat(options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = JSON.stringify(options);
  let format = dateFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(undefined, options);
    dateFormats.set(key, format);
  }
  return format;
}

/** The time of day, in the user's 12- or 24-hour style; in `timeZone` when given (an unknown zone throws a RangeError). */
export function formatTime(ts: number, timeZone?: string): string {
  const h24 = !!model.settings.twenty_four_hour_time;
  return dateFormat({ hour: 'numeric', minute: '2-digit', hour12: !h24, timeZone }).format(new Date(ts * 1000));
}

export function formatDay(ts: number): string {
  const d = new Date(ts * 1000);
  const now = new Date();
  const days = Math.round((new Date(now.toDateString()).getTime() - new Date(d.toDateString()).getTime()) / 86400000);
  if (days === 0) return 'Today';
  if (days === 1) return 'Yesterday';
  return dateFormat({ weekday: days < 7 ? 'short' : undefined, month: 'short', day: 'numeric', year: d.getFullYear() === now.getFullYear() ? undefined : 'numeric' }).format(d);
}

export function fullTime(ts: number): string {
  return new Date(ts * 1000).toLocaleString();
}

export function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  return ((parts[0]?.[0] ?? '?') + (parts.length > 1 ? parts[parts.length - 1]![0] : '')).toUpperCase();
}

export function avatarColor(id: number): string {
  const hues = [210, 160, 280, 20, 340, 120, 45, 190, 250, 0];
  return `hsl(${hues[id % hues.length]} 55% 48%)`;
}

/**
 * The address of a user's uploaded avatar, served by this server under
 * /user_avatars/; null for any other (Gravatar's): a self-hosted
 * organization's pages call out to no third party, so those users keep
 * their initials.
 */
export function uploadedAvatarUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url, location.href);
    return u.origin === location.origin && u.pathname.startsWith('/user_avatars/') ? u.pathname + u.search : null;
  } catch {
    return null;
  }
}

export function cx(...names: (string | false | null | undefined)[]): string {
  return names.filter(Boolean).join(' ');
}

/** Zulip's color_scheme: 1 = the system's, 2 = dark, 3 = light. */
export function applyTheme(scheme: number = model.settings.color_scheme ?? 1): void {
  const dark = scheme === 2 || (scheme !== 3 && matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

/** Zulip's default web_font_size_px, at which the page's text is its own 14 px. */
const DEFAULT_FONT_SIZE_PX = 16;
/** Zulip's default web_line_height_percent. */
const DEFAULT_LINE_HEIGHT_PERCENT = 140;
/** The density applyDensity last set ("<px>/<percent>"). */
let appliedDensity = '';

/**
 * The user's information density, as Zulip's web app has it for the whole
 * page: its text scaled by web_font_size_px (14 px at Zulip's default 16:
 * this page's text is that much smaller than Zulip's at every size), its
 * lines spaced by web_line_height_percent.
 */
export function applyDensity(fontPx: number = model.settings.web_font_size_px ?? DEFAULT_FONT_SIZE_PX, linePercent: number = model.settings.web_line_height_percent ?? DEFAULT_LINE_HEIGHT_PERCENT): void {
  if (appliedDensity === `${fontPx}/${linePercent}`) return;
  appliedDensity = `${fontPx}/${linePercent}`;
  const root = document.documentElement.style;
  root.setProperty('--base-font-size', `${(fontPx * 14) / DEFAULT_FONT_SIZE_PX}px`);
  root.setProperty('--base-line-height', String(linePercent / 100));
}

/** Focuses the element the first time it is rendered (a ref callback), not again when it renders again. */
export function autoFocusOnce(el: HTMLElement | null): void {
  if (el && !el.dataset.focused) {
    el.dataset.focused = '1';
    el.focus();
  }
}

/** A zuliprc file (a user's or a bot's), as Zulip's apps, libraries and terminal client read it. */
export function zuliprc(email: string, apiKey: string): string {
  return `[api]\nemail=${email}\nkey=${apiKey}\nsite=${location.origin}\n`;
}

/** How many characters (Unicode code points) a text has, as the server counts a message's length: a UTF-16 surrogate pair is one. */
export function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/**
 * Data bundled in a chunk of its own, fetched with its first use: `value()`
 * is null until it is in; `load(then)` fetches it once (again after a
 * failure) and calls `then` when it is in.
 */
export function lazyData<T>(fetchChunk: () => Promise<{ default: unknown }>): { value(): T | null; load(then: () => void): void } {
  let data: T | null = null;
  let loading: Promise<void> | null = null;
  return {
    value: () => data,
    load(then) {
      if (data) return;
      loading ??= fetchChunk().then((m) => {
        data = m.default as T;
      });
      void loading.then(then, () => (loading = null));
    },
  };
}
