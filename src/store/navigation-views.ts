/** Saved navigation views (Zulip's NavigationView, one row per user and fragment): the SQL. */
import type { Selectable } from 'kysely';
import type { Tx } from './db.ts';
import type { NavigationViewsTable } from './schema.ts';

export type NavigationViewRow = Selectable<NavigationViewsTable>;

export async function navigationViewsOf(db: Tx, userId: number): Promise<NavigationViewRow[]> {
  return db.selectFrom('navigation_views').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

export async function navigationView(db: Tx, userId: number, fragment: string): Promise<NavigationViewRow | undefined> {
  return db.selectFrom('navigation_views').selectAll().where('user_id', '=', userId).where('fragment', '=', fragment).executeTakeFirst();
}

export async function navigationViewNamed(db: Tx, userId: number, name: string): Promise<NavigationViewRow | undefined> {
  return db.selectFrom('navigation_views').selectAll().where('user_id', '=', userId).where('name', '=', name).executeTakeFirst();
}

export async function insertNavigationView(db: Tx, v: { user_id: number; fragment: string; is_pinned: number; name: string | null }): Promise<void> {
  await db.insertInto('navigation_views').values(v).execute();
}

export async function updateNavigationView(db: Tx, id: number, patch: Partial<{ is_pinned: number; name: string }>): Promise<void> {
  await db.updateTable('navigation_views').set(patch).where('id', '=', id).execute();
}

export async function deleteNavigationView(db: Tx, id: number): Promise<void> {
  await db.deleteFrom('navigation_views').where('id', '=', id).execute();
}
