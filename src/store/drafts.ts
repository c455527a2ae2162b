/** Synchronized drafts (Zulip's Draft model): the SQL. */
import type { Selectable } from 'kysely';
import type { Tx } from './db.ts';
import type { DraftsTable } from './schema.ts';

export type DraftRow = Selectable<DraftsTable>;

export interface DraftValues {
  type: string;
  to: number[];
  topic: string;
  content: string;
  lastEditTime: number;
}

const columns = (v: DraftValues) => ({ type: v.type, to_json: JSON.stringify(v.to), topic: v.topic, content: v.content, last_edit_time: v.lastEditTime });

export async function insertDraft(db: Tx, userId: number, v: DraftValues): Promise<number> {
  const r = await db.insertInto('drafts').values({ user_id: userId, ...columns(v) }).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

export async function draftOf(db: Tx, userId: number, id: number): Promise<DraftRow | undefined> {
  return db.selectFrom('drafts').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}

export async function updateDraft(db: Tx, userId: number, id: number, v: DraftValues): Promise<void> {
  await db.updateTable('drafts').set(columns(v)).where('id', '=', id).where('user_id', '=', userId).execute();
}

export async function deleteDraft(db: Tx, userId: number, id: number): Promise<void> {
  await db.deleteFrom('drafts').where('id', '=', id).where('user_id', '=', userId).execute();
}

export async function deleteAllDrafts(db: Tx, userId: number): Promise<void> {
  await db.deleteFrom('drafts').where('user_id', '=', userId).execute();
}

/** A user's drafts, oldest edit first (`newestFirst` with `limit` for /register). */
export async function draftsOf(db: Tx, userId: number, opts: { newestFirst?: boolean; limit?: number } = {}): Promise<DraftRow[]> {
  let q = db
    .selectFrom('drafts')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('last_edit_time', opts.newestFirst ? 'desc' : 'asc')
    .orderBy('id', opts.newestFirst ? 'desc' : 'asc');
  if (opts.limit !== undefined) q = q.limit(opts.limit);
  return q.execute();
}
