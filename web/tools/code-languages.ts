/**
 * Writes web/src/code-languages.json, the languages the compose box suggests
 * after a code fence (Zulip's pygments_data): each language name the
 * server's renderer knows (src/markdown/pygments-languages.json, Pygments'
 * lexer aliases) with its display name and Zulip's popularity (its
 * tools/setup/lang.json, from Stack Overflow's survey; 0 for the rest), and
 * Zulip's own fences (math, quote, spoiler, text). Run when the server's
 * list changes (a test checks they agree):
 *
 *   node web/tools/code-languages.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '../../..');

/** Zulip's popularity of languages (tools/setup/lang.json), and of its own fences. */
export const PRIORITIES: Record<string, number> = {
  abap: 27, ada: 25, awk: 1, bash: 7, c: 49, 'c#': 47, 'c++': 48, cobol: 26, cpp: 48, csharp: 47, css: 48, d: 29, dart: 28,
  delphi: 42, erlang: 10, fsharp: 19, go: 34, groovy: 13, haskell: 15, html: 30, java: 50, javascript: 51, js: 43, julia: 4,
  latex: 40, lisp: 18, lua: 22, mask: 2, math: 50, matlab: 33, mql: 9, mql4: 9, 'objective-c': 35, objectivec: 35,
  objectpascal: 42, pascal: 42, perl: 40, php: 44, pl: 40, prolog: 16, python: 46, quote: 50, r: 37, rb: 39, ruby: 39,
  rust: 8, sas: 30, scala: 21, scheme: 14, spoiler: 50, sql: 32, swift: 41, tex: 40, text: 1, 'vb.net': 45, vbnet: 45, xml: 1,
};

/** The suggestions' data: each name, its display name and its popularity. */
export function codeLanguages(): Record<string, [pretty: string, priority: number]> {
  const names = JSON.parse(readFileSync(join(root, 'src/markdown/pygments-languages.json'), 'utf8')) as Record<string, string>;
  const out: Record<string, [string, number]> = {};
  for (const [name, pretty] of Object.entries(names)) out[name] = [pretty, PRIORITIES[name] ?? 0];
  for (const [name, priority] of Object.entries(PRIORITIES)) out[name] ??= [name, priority];
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(join(root, 'web/src/code-languages.json'), JSON.stringify(codeLanguages()) + '\n');
}
