/**
 * Alert words: GET/POST/DELETE /users/me/alert_words, the `alert_words`
 * event, and the matching rule for has_alert_word on new messages.
 */
import type { Services } from '../services.ts';
import { transaction, type Tx } from '../store/db.ts';
import type { UserRow } from '../store/users.ts';
import { alertWordsOf, deleteAlertWords, insertAlertWords } from '../store/alert-words.ts';
import { cachedAlertWords } from './cache.ts';

export async function listAlertWords(svc: Services, user: UserRow): Promise<string[]> {
  return alertWordsOf(svc.store.db, user.id);
}

/** Adds words (trimmed, blanks dropped); words already present in any case are skipped, and among new ones the last spelling wins. */
export async function addAlertWords(svc: Services, user: UserRow, words: string[]): Promise<string[]> {
  const cleaned = words.map((w) => w.trim()).filter((w) => w !== '');
  const list = await transaction(svc.store, async (tx) => {
    const existing = new Set((await alertWordsOf(tx, user.id)).map((w) => w.toLowerCase()));
    const fresh = new Map<string, string>();
    for (const w of cleaned) if (!existing.has(w.toLowerCase())) fresh.set(w.toLowerCase(), w);
    await insertAlertWords(tx, svc.realmId, user.id, [...fresh.values()]);
    return alertWordsOf(tx, user.id);
  });
  svc.bus.send({ type: 'alert_words', alert_words: list }, [user.id]);
  return list;
}

/** Removes words, ignoring case; unknown words are ignored. */
export async function removeAlertWords(svc: Services, user: UserRow, words: string[]): Promise<string[]> {
  const list = await transaction(svc.store, async (tx) => {
    await deleteAlertWords(tx, user.id, words);
    return alertWordsOf(tx, user.id);
  });
  svc.bus.send({ type: 'alert_words', alert_words: list }, [user.id]);
  return list;
}

// Zulip's AlertWordNotificationProcessor: the character before a match must
// be one of these (or the match starts the text, or its second character --
// Zulip tests the index before the match with `<= 0`), and the character after
// one of these (or the match ends the text). Zulip's after-set also lists the
// two-character string '",', which can never equal one character.
const BEFORE = new Set([' ', '\n', '(', '"', '.', ',', "'", ';', '[', '*', '`', '>']);
const AFTER = new Set([' ', '\n', ')', '?', ':', '.', ',', "'", ';', ']', '!', '*', '`']);

/**
 * Users whose alert words occur in `text` (the message source after the
 * fenced-block preprocessor, so fenced code is excluded), matched
 * case-insensitively as whole words.
 */
export function matchAlertWords(text: string, wordsByUser: ReadonlyMap<number, readonly string[]>): Set<number> {
  const out = new Set<number>();
  if (!wordsByUser.size) return out;
  const content = text.toLowerCase();
  const byWord = new Map<string, number[]>();
  for (const [uid, words] of wordsByUser) {
    for (const w of words) {
      const lw = w.toLowerCase();
      if (!lw) continue;
      const list = byWord.get(lw) ?? [];
      list.push(uid);
      byWord.set(lw, list);
    }
  }
  for (const [word, uids] of byWord) {
    for (let start = content.indexOf(word); start !== -1; start = content.indexOf(word, start + 1)) {
      const before = start - 1;
      const after = start + word.length;
      if ((before <= 0 || BEFORE.has(content[before]!)) && (after >= content.length || AFTER.has(content[after]!))) {
        for (const u of uids) out.add(u);
        break;
      }
    }
  }
  return out;
}

/** Users of the organization whose alert words occur in a message's alert text. */
export async function alertedUserIds(svc: Services, tx: Tx, alertText: string | undefined): Promise<Set<number>> {
  if (!alertText) return new Set();
  return matchAlertWords(alertText, await cachedAlertWords(svc, tx));
}
