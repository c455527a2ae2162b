/**
 * The web client's own copies of server data stay in step with the server:
 * the languages suggested after a code fence are the renderer's (with
 * Zulip's popularity), and the emoji picker's categories hold every emoji
 * the server names, each once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { codeLanguages } from '../web/tools/code-languages.ts';

const read = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));

test("the code languages are the renderer's (web/tools/code-languages.ts writes them)", () => {
  const web = read('../web/src/code-languages.json') as Record<string, [string, number]>;
  assert.deepEqual(web, codeLanguages());
  assert.deepEqual(web.py, ['Python', 0]);
  assert.deepEqual(web.python, ['Python', 26]);
  assert.deepEqual(web.spoiler, ['spoiler', 29]);
  assert.deepEqual(web.text, ['Text only', 31]);
});

test("the emoji picker's categories hold every emoji the server names, each once, in Zulip's order of categories", () => {
  const catalog = read('../web/src/emoji-catalog.json') as Array<[string, string[]]>;
  const names = read('../src/emoji/emoji-names.json') as Record<string, string[]>;
  assert.deepEqual(
    catalog.map(([c]) => c),
    ['Smileys & Emotion', 'People & Body', 'Animals & Nature', 'Food & Drink', 'Activities', 'Travel & Places', 'Objects', 'Symbols', 'Flags'],
  );
  const codes = catalog.flatMap(([, c]) => c);
  assert.equal(new Set(codes).size, codes.length, 'each once');
  assert.deepEqual([...codes].sort(), Object.keys(names).sort());
});
