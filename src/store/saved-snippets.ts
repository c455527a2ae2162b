/** Saved snippets (Zulip's SavedSnippet model): the SQL. */
import type { Selectable } from 'kysely';
import type { Tx } from './db.ts';
import type { SavedSnippetsTable } from './schema.ts';

export type SavedSnippetRow = Selectable<SavedSnippetsTable>;

export async function insertSavedSnippet(db: Tx, v: { realmId: number; userId: number; title: string; content: string; now: number }): Promise<SavedSnippetRow> {
  return db
    .insertInto('saved_snippets')
    .values({ realm_id: v.realmId, user_id: v.userId, title: v.title, content: v.content, date_created: v.now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function savedSnippetOf(db: Tx, userId: number, id: number): Promise<SavedSnippetRow | undefined> {
  return db.selectFrom('saved_snippets').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}

export async function updateSavedSnippet(db: Tx, id: number, patch: { title?: string; content?: string }): Promise<void> {
  await db.updateTable('saved_snippets').set(patch).where('id', '=', id).execute();
}

export async function deleteSavedSnippet(db: Tx, id: number): Promise<void> {
  await db.deleteFrom('saved_snippets').where('id', '=', id).execute();
}

export async function savedSnippetsOf(db: Tx, userId: number): Promise<SavedSnippetRow[]> {
  return db.selectFrom('saved_snippets').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}
