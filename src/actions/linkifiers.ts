/**
 * Organization linkifiers: GET /realm/linkifiers, POST /realm/filters,
 * PATCH/DELETE /realm/filters/{id}, PATCH /realm/linkifiers (reorder).
 * Administrators only for changes; every change sends `realm_linkifiers`
 * (the whole ordered list) to all active users, as Zulip does.
 */
import { lockNamesOf } from '../store/locks.ts';
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';
import { activeUserIds } from '../store/users.ts';
import { transaction, type Tx } from '../store/db.ts';
import { ApiError, badRequest, requireAdmin } from '../lib/errors.ts';
import {
  deleteLinkifier,
  insertLinkifier,
  linkifierById,
  linkifierByPattern,
  linkifiersOf,
  setLinkifierOrder,
  updateLinkifier,
} from '../store/linkifiers.ts';
import { linkifierError, type Linkifier } from '../markdown/linkifiers.ts';
import { isAdminRole } from './users-format.ts';

export interface LinkifierDict {
  pattern: string;
  url_template: string;
  id: number;
}

/** The organization's linkifiers in Zulip's dict form, in processing order. */
export async function realmLinkifiers(db: Tx, realmId: number): Promise<LinkifierDict[]> {
  return (await linkifiersOf(db, realmId)).map((r) => ({ pattern: r.pattern, url_template: r.url_template, id: r.id }));
}

/** The linkifiers as the Markdown renderer takes them. */
export async function linkifiersForRendering(db: Tx, realmId: number): Promise<Linkifier[]> {
  return (await linkifiersOf(db, realmId)).map((r) => ({ pattern: r.pattern, url_template: r.url_template }));
}

const notFound = (): ApiError => badRequest('Linkifier not found.');

/** Zulip's ValidationFailureError: the first message, and every error by field. */
async function validate(db: Tx, realmId: number, pattern: string, urlTemplate: string, exceptId?: number): Promise<void> {
  const errors: Record<string, string[]> = {};
  const err = linkifierError(pattern, urlTemplate);
  if (err) errors[err.field] = [err.msg];
  const dup = await linkifierByPattern(db, realmId, pattern);
  if (dup && dup.id !== exceptId) (errors.__all__ ??= []).push('Realm filter with this Realm and Pattern already exists.');
  const fields = Object.keys(errors).sort((a, b) => fieldRank(a) - fieldRank(b));
  if (fields.length) throw badRequest(errors[fields[0]!]![0]!, { errors: Object.fromEntries(fields.map((f) => [f, errors[f]])) });
}

const fieldRank = (f: string): number => ['pattern', 'url_template', '__all__'].indexOf(f);

function checkAdmin(user: UserRow): void {
  if (!isAdminRole(user.role)) throw requireAdmin();
}

async function notify(svc: Services, list: LinkifierDict[]): Promise<void> {
  svc.bus.send({ type: 'realm_linkifiers', realm_linkifiers: list }, await activeUserIds(svc.store.db, svc.realmId));
}

export async function listLinkifiers(svc: Services): Promise<{ linkifiers: LinkifierDict[] }> {
  return { linkifiers: await realmLinkifiers(svc.store.db, svc.realmId) };
}

export async function addLinkifier(svc: Services, user: UserRow, pattern: string, urlTemplate: string): Promise<{ id: number }> {
  checkAdmin(user);
  pattern = pattern.trim();
  urlTemplate = urlTemplate.trim();
  const { id, list } = await transaction(svc.store, async (tx) => {
    await lockNamesOf(svc.store, tx, 'realm_linkifiers');
    await validate(tx, svc.realmId, pattern, urlTemplate);
    const id = await insertLinkifier(tx, svc.realmId, pattern, urlTemplate);
    return { id, list: await realmLinkifiers(tx, svc.realmId) };
  });
  await notify(svc, list);
  return { id };
}

export async function editLinkifier(svc: Services, user: UserRow, id: number, pattern: string, urlTemplate: string): Promise<void> {
  checkAdmin(user);
  pattern = pattern.trim();
  urlTemplate = urlTemplate.trim();
  const list = await transaction(svc.store, async (tx) => {
    await lockNamesOf(svc.store, tx, 'realm_linkifiers');
    if (!(await linkifierById(tx, svc.realmId, id))) throw notFound();
    await validate(tx, svc.realmId, pattern, urlTemplate, id);
    await updateLinkifier(tx, svc.realmId, id, pattern, urlTemplate);
    return realmLinkifiers(tx, svc.realmId);
  });
  await notify(svc, list);
}

export async function removeLinkifier(svc: Services, user: UserRow, id: number): Promise<void> {
  checkAdmin(user);
  const list = await transaction(svc.store, async (tx) => {
    if (!(await linkifierById(tx, svc.realmId, id))) throw notFound();
    await deleteLinkifier(tx, svc.realmId, id);
    return realmLinkifiers(tx, svc.realmId);
  });
  await notify(svc, list);
}

export async function reorderLinkifiers(svc: Services, user: UserRow, orderedIds: number[]): Promise<void> {
  checkAdmin(user);
  const list = await transaction(svc.store, async (tx) => {
    const ids = new Set(orderedIds);
    if (ids.size < orderedIds.length) throw badRequest('The ordered list must not contain duplicated linkifiers');
    const existing = await linkifiersOf(tx, svc.realmId);
    if (existing.length !== ids.size || existing.some((l) => !ids.has(l.id))) {
      throw badRequest('The ordered list must enumerate all existing linkifiers exactly once');
    }
    if (existing.length === 0) return null;
    for (const [order, lid] of orderedIds.entries()) await setLinkifierOrder(tx, svc.realmId, lid, order);
    return realmLinkifiers(tx, svc.realmId);
  });
  if (list) await notify(svc, list);
}
