/**
 * Saved navigation views (left-sidebar views): GET/POST /navigation_views,
 * PATCH/DELETE /navigation_views/{fragment}, with Zulip's rules for built-in
 * views (no custom name) and custom ones (a name required), and
 * `navigation_view` events (op add, update, remove) to the user's own queues.
 */
import { lockUserRowsOf } from '../store/locks.ts';
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';
import { transaction, type Tx } from '../store/db.ts';
import { ApiError, badRequest } from '../lib/errors.ts';
import {
  deleteNavigationView,
  insertNavigationView,
  navigationView,
  navigationViewNamed,
  navigationViewsOf,
  updateNavigationView,
  type NavigationViewRow,
} from '../store/navigation-views.ts';

/** Zulip's BUILT_IN_VIEW_FRAGMENTS. */
export const BUILT_IN_VIEW_FRAGMENTS = new Set([
  'inbox',
  'recent',
  'feed',
  'drafts',
  'narrow/has/reaction/sender/me',
  'narrow/is/mentioned',
  'narrow/is/starred',
  'scheduled',
  'reminders',
]);

export function navigationViewDict(v: NavigationViewRow): Record<string, unknown> {
  return { fragment: v.fragment, is_pinned: !!v.is_pinned, name: v.name };
}

export async function registerNavigationViews(db: Tx, userId: number): Promise<Array<Record<string, unknown>>> {
  return (await navigationViewsOf(db, userId)).map(navigationViewDict);
}

const alreadyExists = (): ApiError => badRequest('Navigation view already exists.');

async function existing(db: Tx, user: UserRow, fragment: string): Promise<NavigationViewRow> {
  const v = await navigationView(db, user.id, fragment);
  if (!v) throw new ApiError('Navigation view does not exist.', { status: 404 });
  return v;
}

export async function listNavigationViews(svc: Services, user: UserRow): Promise<{ navigation_views: Array<Record<string, unknown>> }> {
  return { navigation_views: await registerNavigationViews(svc.store.db, user.id) };
}

export async function addNavigationView(svc: Services, user: UserRow, fragment: string, isPinned: boolean, name: string | undefined): Promise<void> {
  if (BUILT_IN_VIEW_FRAGMENTS.has(fragment)) {
    if (name !== undefined) throw badRequest('Built-in views cannot have a custom name.');
  } else if (!name) {
    throw badRequest('Custom views must have a valid name.');
  }
  const row = await transaction(svc.store, async (tx) => {
    await lockUserRowsOf(svc.store, tx, user.id);
    if (await navigationView(tx, user.id, fragment)) throw alreadyExists();
    if (name !== undefined && (await navigationViewNamed(tx, user.id, name))) throw alreadyExists();
    await insertNavigationView(tx, { user_id: user.id, fragment, is_pinned: isPinned ? 1 : 0, name: name ?? null });
    return (await navigationView(tx, user.id, fragment))!;
  });
  svc.bus.send({ type: 'navigation_view', op: 'add', navigation_view: navigationViewDict(row) }, [user.id]);
}

export async function editNavigationView(svc: Services, user: UserRow, fragment: string, isPinned: boolean | undefined, name: string | undefined): Promise<void> {
  if (BUILT_IN_VIEW_FRAGMENTS.has(fragment) && name !== undefined) throw badRequest('Built-in views cannot have a custom name.');
  const data = await transaction(svc.store, async (tx) => {
    if (name !== undefined && (await navigationViewNamed(tx, user.id, name))) throw alreadyExists();
    const view = await existing(tx, user, fragment);
    const out: Record<string, unknown> = {};
    if (name !== undefined) out.name = name;
    if (isPinned !== undefined) out.is_pinned = isPinned;
    await updateNavigationView(tx, view.id, { ...(name !== undefined ? { name } : {}), ...(isPinned !== undefined ? { is_pinned: isPinned ? 1 : 0 } : {}) });
    return out;
  });
  svc.bus.send({ type: 'navigation_view', op: 'update', fragment, data }, [user.id]);
}

export async function removeNavigationView(svc: Services, user: UserRow, fragment: string): Promise<void> {
  await transaction(svc.store, async (tx) => {
    const view = await existing(tx, user, fragment);
    await deleteNavigationView(tx, view.id);
  });
  svc.bus.send({ type: 'navigation_view', op: 'remove', fragment }, [user.id]);
}
