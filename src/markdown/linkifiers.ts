/**
 * Organization linkifiers (pure: no I/O). Zulip stores linkifier patterns in
 * RE2/Python syntax and URL templates in RFC 6570 syntax; this module turns
 * a pattern into the equivalent JavaScript regular expression, validates
 * patterns and templates with Zulip's messages, and expands templates.
 *
 * A linkifier only matches after the start of the text, whitespace or an
 * opening delimiter, and not when a letter or digit follows (Zulip's
 * prepare_linkifier_pattern); the matched text is the OUTER group.
 */
import { parseTemplate } from 'url-template';

export interface Linkifier {
  pattern: string;
  url_template: string;
}

export const BEFORE_GROUP = 'linkifier_before_match';
export const OUTER_GROUP = 'linkifier_actual_match';
export const AFTER_GROUP = 'linkifier_after_match';

/** Characters JavaScript's `u` mode allows after a backslash as themselves. */
const JS_SYNTAX_CHARS = new Set('^$\\.*+?()[]{}|/'.split(''));

export class PatternError extends Error {}

/**
 * Translates an RE2 pattern to JavaScript (`u` flag) syntax: Python's
 * `(?P<name>`, one-letter Unicode classes (`\pL`), `\A`/`\z`, escaped
 * punctuation, and a leading `(?flags)`. Constructs RE2 rejects
 * (lookaround, backreferences) throw PatternError with RE2's wording.
 */
export function re2ToJs(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const n = source[i + 1];
      if (n === undefined) throw new PatternError(`trailing \\`);
      if ((n === 'p' || n === 'P') && /[A-Za-z]/.test(source[i + 2] ?? '')) {
        out += `\\${n}{${source[i + 2]}}`;
        i += 2;
      } else if (/[1-9]/.test(n)) {
        throw new PatternError(`invalid escape sequence: \\${n}`);
      } else if (n === 'A' && !inClass) {
        out += '^';
        i++;
      } else if (n === 'z' && !inClass) {
        out += '$';
        i++;
      } else if (/[!-/:-@[-`{-~ ]/.test(n) && !JS_SYNTAX_CHARS.has(n)) {
        out += `\\x${n.charCodeAt(0).toString(16).padStart(2, '0')}`;
        i++;
      } else {
        out += c + n;
        i++;
      }
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      // A ']' right after '[' or '[^' is a literal member, as in RE2.
      if (source[i + 1] === '^') out += source[++i];
      if (source[i + 1] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    if (c === '(' && source[i + 1] === '?') {
      const rest = source.slice(i + 2);
      if (rest.startsWith('P<')) {
        out += '(?<';
        i += 3;
        continue;
      }
      if (rest.startsWith('=') || rest.startsWith('!') || rest.startsWith('<=') || rest.startsWith('<!') || rest.startsWith('P=')) {
        throw new PatternError(`invalid perl operator: (?${rest.startsWith('P=') ? 'P=' : rest.slice(0, rest[0] === '<' ? 2 : 1)}`);
      }
      const flags = /^([imsU-]+)\)/.exec(rest);
      if (flags) {
        if (i !== 0 || flags[1]!.includes('-') || flags[1]!.includes('U')) throw new PatternError(`invalid perl operator: (?${flags[1]})`);
        // A leading (?flags) applies to the whole pattern: a modifier group.
        return `(?${flags[1]}:${re2ToJs(source.slice(i + 2 + flags[0].length))})`;
      }
    }
    out += c;
  }
  return out;
}

/** RE2's message for a JavaScript syntax error, as far as the two can be matched. */
function re2Message(err: Error, pattern: string): string {
  const m = /: ([^:]*)$/.exec(err.message);
  const reason = m ? m[1]! : err.message;
  if (/Unterminated group/i.test(reason)) return `missing ): ${pattern}`;
  if (/Unmatched '\)'/i.test(reason)) return `unexpected ): ${pattern}`;
  if (/Unterminated character class/i.test(reason)) return `missing ]: ${pattern.slice(pattern.lastIndexOf('['))}`;
  if (/Nothing to repeat/i.test(reason)) return `missing argument to repetition operator: ${pattern}`;
  if (/Duplicate capture group name/i.test(reason)) return `duplicate capture group name: ${pattern}`;
  if (/Invalid capture group name/i.test(reason)) return `invalid named capture group: ${pattern}`;
  if (/Invalid escape|Invalid property name/i.test(reason)) return `invalid escape sequence: ${pattern}`;
  return reason.charAt(0).toLowerCase() + reason.slice(1);
}

/** Compiles a linkifier pattern alone (as Zulip's filter_pattern_validator does): its named groups, or a PatternError. */
export function checkPattern(pattern: string): { groups: string[] } {
  let js: string;
  try {
    js = re2ToJs(pattern);
  } catch (e) {
    throw new PatternError(`Bad regular expression: ${(e as Error).message}`);
  }
  let re: RegExp;
  try {
    re = new RegExp(`${js}|`, 'u');
  } catch (e) {
    throw new PatternError(`Bad regular expression: ${re2Message(e as Error, pattern)}`);
  }
  // The empty alternative matches '', listing every named group.
  const m = re.exec('')!;
  return { groups: Object.keys(m.groups ?? {}) };
}

/** RFC 6570 template syntax check (Python uri_template.validate) and its variable names. */
export function templateVariables(template: string): string[] | null {
  const names: string[] = [];
  const varspec = /^([A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(\.([A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*(:[1-9][0-9]{0,3}|\*)?$/;
  let i = 0;
  while (i < template.length) {
    const c = template[i]!;
    if (c === '}') return null;
    if (c !== '{') {
      if (/[\s"'<>\\^`|]/.test(c)) return null;
      if (c === '%' && !/^%[0-9A-Fa-f]{2}/.test(template.slice(i))) return null;
      i++;
      continue;
    }
    const end = template.indexOf('}', i);
    if (end < 0) return null;
    let expr = template.slice(i + 1, end);
    if (expr.includes('{')) return null;
    if (/^[+#./;?&]/.test(expr)) expr = expr.slice(1);
    if (expr === '') return null;
    for (const spec of expr.split(',')) {
      if (!varspec.test(spec)) return null;
      names.push(spec.replace(/(:\d+|\*)$/, ''));
    }
    i = end + 1;
  }
  return names;
}

/**
 * Zulip's RealmFilter validation: the pattern compiles, the template is a
 * valid URL template, and the template's variables are exactly the
 * pattern's named groups. Returns Zulip's error (field, message) or null.
 */
export function linkifierError(pattern: string, urlTemplate: string): { field: string; msg: string } | null {
  let groups: string[];
  try {
    groups = checkPattern(pattern).groups;
  } catch (e) {
    return { field: 'pattern', msg: (e as Error).message };
  }
  const vars = templateVariables(urlTemplate);
  if (vars === null) return { field: 'url_template', msg: 'Invalid URL template.' };
  const groupSet = new Set(groups);
  const varSet = new Set(vars);
  const first = (xs: string[]) => [...xs].sort()[0]!;
  const missingInPattern = [...varSet].filter((v) => !groupSet.has(v));
  if (missingInPattern.length) return { field: '__all__', msg: `Group '${first(missingInPattern)}' in URL template is not present in linkifier pattern.` };
  const missingInUrl = [...groupSet].filter((g) => !varSet.has(g));
  if (missingInUrl.length) return { field: '__all__', msg: `Group '${first(missingInUrl)}' in linkifier pattern is not present in URL template.` };
  return null;
}

/**
 * A reverse template's pieces (feature level 471): literal text, with
 * `{{` and `}}` for literal braces, and `{name}` for a named group of the
 * pattern. Null when a brace is unbalanced or a name is not a word.
 */
export function reverseTemplatePieces(template: string): Array<string | { name: string }> | null {
  const out: Array<string | { name: string }> = [];
  let text = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if ((c === '{' || c === '}') && template[i + 1] === c) {
      text += c;
      i++;
    } else if (c === '{') {
      const m = /^\{(\w+)\}/u.exec(template.slice(i));
      if (!m) return null;
      if (text) out.push(text);
      text = '';
      out.push({ name: m[1]! });
      i += m[0].length - 1;
    } else if (c === '}') {
      return null;
    } else {
      text += c;
    }
  }
  if (text) out.push(text);
  return out;
}

/**
 * Checks the reverse-linkifier fields against a valid pattern (Zulip's
 * validation since feature levels 471 and 478): the example input is text
 * the pattern matches as a whole; a reverse template needs an example
 * input, names only the pattern's groups, and turns the groups the pattern
 * finds in the example input back into the example input; each alternative
 * URL template is a valid URL template with exactly the pattern's groups.
 * Returns the error (field, message) or null.
 */
export function reverseLinkifierError(
  pattern: string,
  exampleInput: string | null,
  reverseTemplate: string | null,
  alternativeUrlTemplates: readonly string[],
): { field: string; msg: string } | null {
  let groups: Record<string, string | undefined> | undefined;
  if (exampleInput !== null) {
    const m = new RegExp(`^(?:${re2ToJs(pattern)})$`, 'u').exec(exampleInput);
    if (!m) return { field: 'example_input', msg: 'Example input does not match the linkifier pattern.' };
    groups = m.groups ?? {};
  }
  if (reverseTemplate !== null) {
    if (!groups) return { field: 'reverse_template', msg: 'A reverse template requires an example input.' };
    const pieces = reverseTemplatePieces(reverseTemplate);
    if (!pieces) return { field: 'reverse_template', msg: 'Invalid reverse template.' };
    const unknown = pieces.find((piece) => typeof piece !== 'string' && !(piece.name in groups!));
    if (unknown && typeof unknown !== 'string') return { field: 'reverse_template', msg: `Group '${unknown.name}' in reverse template is not present in linkifier pattern.` };
    const text = pieces.map((piece) => (typeof piece === 'string' ? piece : (groups![piece.name] ?? ''))).join('');
    if (text !== exampleInput) return { field: 'reverse_template', msg: 'Reverse template does not produce the example input.' };
  }
  for (const template of alternativeUrlTemplates) {
    const err = linkifierError(pattern, template);
    if (err) return { field: 'alternative_url_templates', msg: err.msg.replace('URL template', 'alternative URL template') };
  }
  return null;
}

export interface CompiledLinkifier {
  re: RegExp;
  expand(groups: Record<string, string | undefined>): string;
}

const compiled = new Map<string, CompiledLinkifier | null>();

/**
 * The prepared form of a linkifier (cached by pattern and template), or
 * null when its pattern cannot be compiled (it then matches nothing, as in
 * Zulip).
 */
export function compileLinkifier(l: Linkifier): CompiledLinkifier | null {
  const key = `${l.pattern}\u0000${l.url_template}`;
  if (compiled.has(key)) return compiled.get(key)!;
  let value: CompiledLinkifier | null = null;
  try {
    const src = `(?<${BEFORE_GROUP}>^|\\s|\\u0085|\\p{Z}|['"(,:<])(?<${OUTER_GROUP}>${re2ToJs(l.pattern)})(?<${AFTER_GROUP}>$|[^\\p{L}\\p{N}])`;
    const template = parseTemplate(l.url_template);
    value = {
      re: new RegExp(src, 'gu'),
      expand: (groups) => {
        const ctx: Record<string, string> = {};
        for (const [k, v] of Object.entries(groups)) if (v !== undefined) ctx[k] = v;
        return template.expand(ctx);
      },
    };
  } catch {
    value = null;
  }
  if (compiled.size > 1000) compiled.clear();
  compiled.set(key, value);
  return value;
}
