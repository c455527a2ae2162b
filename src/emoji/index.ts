// Zulip-compatible unicode emoji data.
//
// emoji-names.json maps each emoji code (dash-separated lowercase hex
// codepoints, with U+FE0F variation selectors removed, e.g. "1f642",
// "0023-20e3") to its list of Zulip names: canonical name first, then
// aliases. The names are Zulip's curated names (which differ from
// emoji-datasource's short names, e.g. 1f642 is "smile"); the codes are
// those of iamcal's emoji-datasource, unqualified.
import namesByCode from './emoji-names.json' with { type: 'json' };

export interface UnicodeEmoji {
  name: string;
  code: string;
}

const CODE_TO_NAMES: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries(namesByCode as Record<string, string[]>),
);
const NAME_TO_CODE: ReadonlyMap<string, string> = (() => {
  const m = new Map<string, string>();
  for (const [code, names] of CODE_TO_NAMES) {
    for (const n of names) m.set(n, code);
  }
  return m;
})();

/** Every emoji code with its names (canonical first): the server's emoji data document. */
export function codeToNames(): Readonly<Record<string, string[]>> {
  return namesByCode as Record<string, string[]>;
}

/** Emoticon -> emoji name conversions (used when translate_emoticons is on). */
export const EMOTICON_CONVERSIONS: Readonly<Record<string, string>> = {
  ':)': 'smile',
  '(:': 'smile',
  ':(': 'frown',
  '<3': 'heart',
  ':|': 'neutral',
  ':/': 'confused',
  ';)': 'wink',
  ':D': 'grinning',
  ':o': 'open_mouth',
  ':O': 'open_mouth',
  ':p': 'stuck_out_tongue',
  ':P': 'stuck_out_tongue',
};

/** Look up a unicode emoji by any of its Zulip names (canonical or alias). */
export function emojiByName(name: string): UnicodeEmoji | undefined {
  const code = NAME_TO_CODE.get(name);
  return code === undefined ? undefined : { name, code };
}

/** Look up a unicode emoji by code; returns its canonical name. */
export function emojiByCode(code: string): UnicodeEmoji | undefined {
  const names = CODE_TO_NAMES.get(code.toLowerCase());
  return names === undefined ? undefined : { name: names[0]!, code: code.toLowerCase() };
}

/** All names (canonical first) for an emoji code. */
export function namesForCode(code: string): readonly string[] | undefined {
  return CODE_TO_NAMES.get(code);
}

/** Dash-separated hex codepoints of a string with U+FE0F removed ("unqualified"). */
export function unicodeToCode(text: string): string {
  const parts: string[] = [];
  for (const ch of text.replaceAll('\ufe0f', '')) {
    parts.push(ch.codePointAt(0)!.toString(16).padStart(4, '0'));
  }
  return parts.join('-');
}

/** The literal characters for an emoji code. */
export function codeToUnicode(code: string): string {
  return code
    .split('-')
    .map((h) => String.fromCodePoint(parseInt(h, 16)))
    .join('');
}

/**
 * Given a literal unicode emoji sequence (as matched by POSSIBLE_EMOJI_RE),
 * return the Zulip emoji it denotes, or undefined if Zulip would leave the
 * text alone (unknown sequence, or a character with text presentation).
 */
export function nameForUnicodeSequence(text: string): UnicodeEmoji | undefined {
  if (TEXT_PRESENTATION_RE.test(text)) return undefined;
  const code = unicodeToCode(text);
  const names = CODE_TO_NAMES.get(code);
  return names === undefined ? undefined : { name: names[0]!, code };
}

// A single character without default emoji presentation (optionally
// followed by a keycap combiner) is left as text: arrows, ©, digits...
const TEXT_PRESENTATION_RE = /^\P{Emoji_Presentation}\u20e3?$/u;

const EMOJI_UNIT =
  String.raw`(?:\p{RI}\p{RI}|\p{Emoji}(?:\p{Emoji_Modifier}|\ufe0f\u20e3?|[\u{e0020}-\u{e007e}]+\u{e007f})?)`;
/** Candidate emoji sequences (UTS #51 EBNF), global. */
export const POSSIBLE_EMOJI_RE = new RegExp(`${EMOJI_UNIT}(?:\\u200d${EMOJI_UNIT})*`, 'gu');

/**
 * Validation for the user-status / reaction endpoints: is (emoji_name,
 * emoji_code) a real Zulip unicode emoji? Mirrors Zulip's checks: the code
 * must be known, and the name must be one of that code's names.
 */
export function checkUnicodeEmoji(
  emojiName: string,
  emojiCode: string,
): { ok: true } | { ok: false; error: 'Invalid emoji code.' | 'Invalid emoji name.' } {
  if (!CODE_TO_NAMES.has(emojiCode)) return { ok: false, error: 'Invalid emoji code.' };
  if (NAME_TO_CODE.get(emojiName) !== emojiCode) return { ok: false, error: 'Invalid emoji name.' };
  return { ok: true };
}

export function isValidUnicodeEmoji(emojiName: string, emojiCode: string): boolean {
  return checkUnicodeEmoji(emojiName, emojiCode).ok;
}

/** Every emoji name (canonical and aliases), sorted, like Zulip's picker list. */
export function allEmojiNames(): string[] {
  return [...NAME_TO_CODE.keys()].sort();
}
