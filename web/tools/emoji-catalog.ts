/**
 * Writes web/src/emoji-catalog.json, the emoji picker's sections: Zulip's
 * categories of Unicode emoji (its emoji_catalog), each emoji by its code as
 * the server names them (src/emoji/emoji-names.json), in the order of
 * iamcal's emoji-datasource (its `sort_order`), skin tone components left
 * out. Run by hand when the emoji data changes, with the path of
 * emoji-datasource's emoji.json (`npm pack emoji-datasource@16.0.0`, a
 * 25 MB package of images not worth installing for this one file):
 *
 *   node web/tools/emoji-catalog.ts package/emoji.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '../../..');
/** Zulip's order of the categories (its emoji picker's). */
const CATEGORIES = ['Smileys & Emotion', 'People & Body', 'Animals & Nature', 'Food & Drink', 'Activities', 'Travel & Places', 'Objects', 'Symbols', 'Flags'];

interface DataSourceEmoji {
  unified: string;
  non_qualified: string | null;
  category: string;
  sort_order: number;
}

const source = process.argv[2];
if (!source) throw new Error('usage: node web/tools/emoji-catalog.ts <emoji-datasource emoji.json>');
const data = JSON.parse(readFileSync(source, 'utf8')) as DataSourceEmoji[];
const names = JSON.parse(readFileSync(join(root, 'src/emoji/emoji-names.json'), 'utf8')) as Record<string, string[]>;
/** The server's codes: lower case, without the U+FE0F variation selector. */
const code = (u: string) => u.toLowerCase().split('-').filter((p) => p !== 'fe0f').join('-');
const byCategory = new Map<string, DataSourceEmoji[]>(CATEGORIES.map((c) => [c, []]));
for (const e of data) {
  const list = byCategory.get(e.category);
  if (list && (code(e.unified) in names || (e.non_qualified && code(e.non_qualified) in names))) list.push(e);
}
const catalog = CATEGORIES.map((c) => [c, byCategory.get(c)!.sort((a, b) => a.sort_order - b.sort_order).map((e) => (code(e.unified) in names ? code(e.unified) : code(e.non_qualified!)))]);
const missing = Object.keys(names).length - catalog.reduce((n, [, codes]) => n + codes.length, 0);
if (missing) console.warn(`${missing} named emoji in no category`);
writeFileSync(join(root, 'web/src/emoji-catalog.json'), JSON.stringify(catalog) + '\n');
