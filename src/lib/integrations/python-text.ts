/** Python's string methods the integrations' texts are written with. */

/** Python's str.capitalize(): the first character upper case, the rest lower case. */
export function pyCapitalize(s: string): string {
  const cp = s.codePointAt(0);
  if (cp === undefined) return s;
  const first = String.fromCodePoint(cp);
  return first.toUpperCase() + s.slice(first.length).toLowerCase();
}

/** Python's str.title(): each run of cased letters capitalized. */
export function pyTitle(s: string): string {
  let out = '';
  let inWord = false;
  for (const ch of s) {
    const cased = ch.toLowerCase() !== ch.toUpperCase();
    out += cased ? (inWord ? ch.toLowerCase() : ch.toUpperCase()) : ch;
    inWord = cased;
  }
  return out;
}

/** Python's string.punctuation. */
export const PY_PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/** Whether a text ends in one of Python's string.punctuation (Zulip's texts then add no full stop). */
export const endsWithPunctuation = (s: string): boolean => s.length > 0 && PY_PUNCTUATION.includes(s[s.length - 1]!);
