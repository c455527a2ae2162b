/** Personal alert words (alert_words): the SQL. Words compare case-insensitively. */
import type { Tx } from './db.ts';
import { prepared } from './prepared.ts';

/** The user's alert words, in the order added. */
export async function alertWordsOf(db: Tx, userId: number): Promise<string[]> {
  const rows = await db.selectFrom('alert_words').select('word').where('user_id', '=', userId).orderBy('id').execute();
  return rows.map((r) => r.word);
}

export async function insertAlertWords(db: Tx, realmId: number, userId: number, words: string[]): Promise<void> {
  if (!words.length) return;
  await db.insertInto('alert_words').values(words.map((word) => ({ realm_id: realmId, user_id: userId, word }))).execute();
}

/** Removes the user's words equal to any of `words` ignoring case. */
export async function deleteAlertWords(db: Tx, userId: number, words: string[]): Promise<void> {
  const drop = new Set(words.map((w) => w.toLowerCase()));
  const rows = await db.selectFrom('alert_words').select(['id', 'word']).where('user_id', '=', userId).execute();
  const ids = rows.filter((r) => drop.has(r.word.toLowerCase())).map((r) => r.id);
  if (ids.length) await db.deleteFrom('alert_words').where('id', 'in', ids).execute();
}

/** Alert words of the organization's active users, by user ID. */
const realmAlertWordsQuery = prepared((db) =>
  db
    .selectFrom('alert_words as a')
    .innerJoin('users as u', 'u.id', 'a.user_id')
    .select(['a.user_id', 'a.word'])
    .where('a.realm_id', '=', 0)
    .where('u.is_active', '=', 1)
    .orderBy('a.id'),
);

export async function realmAlertWords(db: Tx, realmId: number): Promise<Map<number, string[]>> {
  const rows = await realmAlertWordsQuery(db, realmId, 1);
  const out = new Map<number, string[]>();
  for (const r of rows) {
    const list = out.get(r.user_id) ?? [];
    list.push(r.word);
    out.set(r.user_id, list);
  }
  return out;
}
