/**
 * Organization linkifiers: GET /realm/linkifiers, POST /realm/filters,
 * PATCH/DELETE /realm/filters/{id}, PATCH /realm/linkifiers (reorder).
 * Administrators only for changes; every change sends `realm_linkifiers`
 * (the whole ordered list) to all active users, as Zulip does.
 */
import { lockNamesOf } from '../store/locks.ts';
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';
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
  type LinkifierFields,
  type LinkifierRow,
} from '../store/linkifiers.ts';
import { linkifierError, reverseLinkifierError } from '../markdown/linkifiers.ts';
import { isAdminRole } from './users-format.ts';
import { cachedActiveUserIds } from './cache.ts';

export interface LinkifierDict {
  pattern: string;
  url_template: string;
  id: number;
  example_input: string | null;
  reverse_template: string | null;
  alternative_url_templates: string[];
}

/** A linkifier in Zulip's dict form (example_input and reverse_template: feature level 471; alternative_url_templates: 478). */
function linkifierDict(r: LinkifierRow): LinkifierDict {
  return {
    pattern: r.pattern,
    url_template: r.url_template,
    id: r.id,
    example_input: r.example_input,
    reverse_template: r.reverse_template,
    alternative_url_templates: JSON.parse(r.alternative_url_templates) as string[],
  };
}

/** The organization's linkifiers in Zulip's dict form, in processing order. */
export async function realmLinkifiers(db: Tx, realmId: number): Promise<LinkifierDict[]> {
  return (await linkifiersOf(db, realmId)).map(linkifierDict);
}

/**
 * What POST /realm/filters and PATCH /realm/filters/{id} send. The reverse
 * fields are optional: omitted on PATCH, they keep their value; an empty
 * example_input or reverse_template sets it back to null.
 */
export interface LinkifierInput {
  pattern: string;
  urlTemplate: string;
  exampleInput?: string;
  reverseTemplate?: string;
  alternativeUrlTemplates?: string[];
}

/** The row's new fields: the input over the current ones (none for a new linkifier). */
function linkifierFields(input: LinkifierInput, current?: LinkifierRow): LinkifierFields {
  const orNull = (value: string | undefined, old: string | null): string | null => (value === undefined ? old : value === '' ? null : value);
  return {
    pattern: input.pattern.trim(),
    url_template: input.urlTemplate.trim(),
    example_input: orNull(input.exampleInput, current?.example_input ?? null),
    reverse_template: orNull(input.reverseTemplate, current?.reverse_template ?? null),
    alternative_url_templates: input.alternativeUrlTemplates ? JSON.stringify(input.alternativeUrlTemplates.map((t) => t.trim())) : (current?.alternative_url_templates ?? '[]'),
  };
}

const notFound = (): ApiError => badRequest('Linkifier not found.');

/** Zulip's ValidationFailureError: the first message, and every error by field. */
async function validate(db: Tx, realmId: number, row: LinkifierFields, exceptId?: number): Promise<void> {
  const { pattern } = row;
  const errors: Record<string, string[]> = {};
  const err = linkifierError(pattern, row.url_template);
  if (err) errors[err.field] = [err.msg];
  // The reverse fields are checked against a pattern that compiles.
  const reverseErr =
    err?.field === 'pattern'
      ? null
      : reverseLinkifierError(pattern, row.example_input, row.reverse_template, JSON.parse(row.alternative_url_templates) as string[]);
  if (reverseErr) errors[reverseErr.field] = [reverseErr.msg];
  const dup = await linkifierByPattern(db, realmId, pattern);
  if (dup && dup.id !== exceptId) (errors.__all__ ??= []).push('Realm filter with this Realm and Pattern already exists.');
  const fields = Object.keys(errors).sort((a, b) => fieldRank(a) - fieldRank(b));
  if (fields.length) throw badRequest(errors[fields[0]!]![0]!, { errors: Object.fromEntries(fields.map((f) => [f, errors[f]])) });
}

const fieldRank = (f: string): number => ['pattern', 'url_template', 'example_input', 'reverse_template', 'alternative_url_templates', '__all__'].indexOf(f);

function checkAdmin(user: UserRow): void {
  if (!isAdminRole(user.role)) throw requireAdmin();
}

async function notify(svc: Services, list: LinkifierDict[]): Promise<void> {
  svc.bus.send({ type: 'realm_linkifiers', realm_linkifiers: list }, await cachedActiveUserIds(svc));
}

export async function listLinkifiers(svc: Services): Promise<{ linkifiers: LinkifierDict[] }> {
  return { linkifiers: await realmLinkifiers(svc.store.db, svc.realmId) };
}

export async function addLinkifier(svc: Services, user: UserRow, input: LinkifierInput): Promise<{ id: number }> {
  checkAdmin(user);
  const fields = linkifierFields(input);
  const { id, list } = await transaction(svc.store, async (tx) => {
    await lockNamesOf(svc.store, tx, 'realm_linkifiers');
    await validate(tx, svc.realmId, fields);
    const id = await insertLinkifier(tx, svc.realmId, fields);
    return { id, list: await realmLinkifiers(tx, svc.realmId) };
  });
  await notify(svc, list);
  return { id };
}

export async function editLinkifier(svc: Services, user: UserRow, id: number, input: LinkifierInput): Promise<void> {
  checkAdmin(user);
  const list = await transaction(svc.store, async (tx) => {
    await lockNamesOf(svc.store, tx, 'realm_linkifiers');
    const current = await linkifierById(tx, svc.realmId, id);
    if (!current) throw notFound();
    const fields = linkifierFields(input, current);
    await validate(tx, svc.realmId, fields, id);
    await updateLinkifier(tx, svc.realmId, id, fields);
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
