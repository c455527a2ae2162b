/**
 * Saved snippets (GET/POST /saved_snippets, PATCH/DELETE
 * /saved_snippets/{id}): reusable message text of one user, with
 * `saved_snippets` events (add/update/remove) to that user's queues and
 * the `saved_snippets` /register section.
 */
import type { Services } from '../services.ts';
import { transaction } from '../store/db.ts';
import { ApiError } from '../lib/errors.ts';
import { nowSeconds } from '../lib/util.ts';
import type { UserRow } from '../store/users.ts';
import { deleteSavedSnippet, insertSavedSnippet, savedSnippetOf, savedSnippetsOf, updateSavedSnippet, type SavedSnippetRow } from '../store/saved-snippets.ts';

/** Zulip's SavedSnippet.MAX_TITLE_LENGTH. */
export const MAX_SNIPPET_TITLE_LENGTH = 60;

export const formatSavedSnippet = (r: SavedSnippetRow) => ({ id: r.id, title: r.title, content: r.content, date_created: Number(r.date_created) });

const notFound = (): ApiError => new ApiError('Saved snippet does not exist.', { status: 404 });

export async function listSavedSnippets(svc: Services, user: UserRow): Promise<Array<ReturnType<typeof formatSavedSnippet>>> {
  return (await savedSnippetsOf(svc.store.db, user.id)).map(formatSavedSnippet);
}

/** Title and content come trimmed and checked by the route. */
export async function createSavedSnippet(svc: Services, user: UserRow, title: string, content: string): Promise<{ saved_snippet_id: number }> {
  const row = await transaction(svc.store, (tx) => insertSavedSnippet(tx, { realmId: svc.realmId, userId: user.id, title, content, now: nowSeconds() }));
  svc.bus.send({ type: 'saved_snippets', op: 'add', saved_snippet: formatSavedSnippet(row) }, [user.id]);
  return { saved_snippet_id: row.id };
}

/** Nothing to change is a success without an event, as in Zulip. */
export async function editSavedSnippet(svc: Services, user: UserRow, id: number, title: string | undefined, content: string | undefined): Promise<void> {
  if (title === undefined && content === undefined) return;
  const row = await transaction(svc.store, async (tx) => {
    if (!(await savedSnippetOf(tx, user.id, id))) throw notFound();
    await updateSavedSnippet(tx, id, { ...(title !== undefined ? { title } : {}), ...(content !== undefined ? { content } : {}) });
    return (await savedSnippetOf(tx, user.id, id))!;
  });
  svc.bus.send({ type: 'saved_snippets', op: 'update', saved_snippet: formatSavedSnippet(row) }, [user.id]);
}

export async function removeSavedSnippet(svc: Services, user: UserRow, id: number): Promise<void> {
  await transaction(svc.store, async (tx) => {
    if (!(await savedSnippetOf(tx, user.id, id))) throw notFound();
    await deleteSavedSnippet(tx, id);
  });
  svc.bus.send({ type: 'saved_snippets', op: 'remove', saved_snippet_id: id }, [user.id]);
}
