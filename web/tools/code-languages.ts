/**
 * Writes web/src/code-languages.json, the languages the compose box suggests
 * after a code fence (Zulip's pygments_data): each language name the
 * server's renderer knows (src/markdown/pygments-languages.json, Pygments'
 * lexer aliases) with its display name and Zulip's popularity (its
 * tools/setup/lang.json; 0 for the rest), and Zulip's own fences (math,
 * quote, spoiler, text). Run when the server's
 * list changes (a test checks they agree):
 *
 *   node web/tools/code-languages.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '../../..');

/**
 * Zulip's popularity of languages (tools/setup/lang.json as of Zulip's main
 * branch of December 2025: its "default", "custom" and "aliases" together,
 * as its build_pygments_data reads them).
 */
export const PRIORITIES: Record<string, number> = {
  text: 31, javascript: 27, python: 26, java: 25, go: 24, rust: 23, html: 22, css: 21, sql: 20, bash: 19, powershell: 18, 'c#': 17, php: 16,
  typescript: 15, 'c++': 14, c: 13, kotlin: 12, ruby: 11, asm: 10, 'vb.net': 9, swift: 8, r: 7, 'objective-c': 6, dart: 5, scala: 4, perl: 3,
  haskell: 2, julia: 1,
  latex: 10, math: 28, quote: 30, spoiler: 29,
  js: 27, csharp: 17, cpp: 14, tex: 10, vbnet: 9,
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
