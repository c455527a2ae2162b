/**
 * Code playgrounds: POST /realm/playgrounds and DELETE
 * /realm/playgrounds/{id} (administrators), with Zulip's RealmPlayground
 * validation; `realm_playgrounds` events (the whole list) to all active
 * users.
 */
import { lockNamesOf } from '../store/locks.ts';
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';
import { transaction, type Tx } from '../store/db.ts';
import { badRequest, requireAdmin } from '../lib/errors.ts';
import { templateVariables } from '../markdown/linkifiers.ts';
import { deletePlayground, insertPlayground, playgroundById, playgroundExists, playgroundsOf } from '../store/playgrounds.ts';
import { isAdminRole } from './users-format.ts';
import { cachedActiveUserIds } from './cache.ts';

/** Zulip's RealmPlayground.MAX_PYGMENTS_LANGUAGE_LENGTH. */
export const MAX_PYGMENTS_LANGUAGE_LENGTH = 40;

export interface PlaygroundDict {
  id: number;
  name: string;
  pygments_language: string;
  url_template: string;
}

export async function realmPlaygrounds(db: Tx, realmId: number): Promise<PlaygroundDict[]> {
  return (await playgroundsOf(db, realmId)).map((r) => ({ id: r.id, name: r.name, pygments_language: r.pygments_language, url_template: r.url_template }));
}

function checkAdmin(user: UserRow): void {
  if (!isAdminRole(user.role)) throw requireAdmin();
}

/** Django's full_clean of a RealmPlayground: field errors, then clean(), then uniqueness; the first message, all errors by field. */
async function validate(db: Tx, realmId: number, name: string, language: string, urlTemplate: string): Promise<void> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, msg: string) => (errors[field] ??= []).push(msg);
  if (name === '') add('name', 'This field cannot be blank.');
  if (language === '') add('pygments_language', 'This field cannot be blank.');
  else if ([...language].length > MAX_PYGMENTS_LANGUAGE_LENGTH) {
    add('pygments_language', `Ensure this value has at most ${MAX_PYGMENTS_LANGUAGE_LENGTH} characters (it has ${[...language].length}).`);
  } else if (!/^[ a-zA-Z0-9_+\-./#]*$/.test(language)) add('pygments_language', 'Invalid characters in pygments language');
  const vars = urlTemplate === '' ? null : templateVariables(urlTemplate);
  if (urlTemplate === '') add('url_template', 'This field cannot be blank.');
  else if (vars === null) add('url_template', 'Invalid URL template.');
  else if (!vars.includes('code')) add('__all__', 'Missing the required variable "code" in the URL template');
  else if (new Set(vars).size !== 1) add('__all__', '"code" should be the only variable present in the URL template');
  if (!errors.name && !errors.pygments_language && (await playgroundExists(db, realmId, language, name))) {
    add('__all__', 'Realm playground with this Realm, Pygments language and Name already exists.');
  }
  const fields = Object.keys(errors);
  if (fields.length) throw badRequest(errors[fields[0]!]![0]!, { errors });
}

async function notify(svc: Services, list: PlaygroundDict[]): Promise<void> {
  svc.bus.send({ type: 'realm_playgrounds', realm_playgrounds: list }, await cachedActiveUserIds(svc));
}

export async function addPlayground(svc: Services, user: UserRow, input: { name: string; pygmentsLanguage: string; urlTemplate: string }): Promise<{ id: number }> {
  checkAdmin(user);
  const name = input.name.trim();
  const language = input.pygmentsLanguage.trim();
  const urlTemplate = input.urlTemplate.trim();
  const { id, list } = await transaction(svc.store, async (tx) => {
    await lockNamesOf(svc.store, tx, 'realm_playgrounds');
    await validate(tx, svc.realmId, name, language, urlTemplate);
    const id = await insertPlayground(tx, { realm_id: svc.realmId, name, pygments_language: language, url_template: urlTemplate });
    return { id, list: await realmPlaygrounds(tx, svc.realmId) };
  });
  await notify(svc, list);
  return { id };
}

export async function removePlayground(svc: Services, user: UserRow, id: number): Promise<void> {
  checkAdmin(user);
  const list = await transaction(svc.store, async (tx) => {
    if (!(await playgroundById(tx, svc.realmId, id))) throw badRequest('Invalid playground');
    await deletePlayground(tx, svc.realmId, id);
    return realmPlaygrounds(tx, svc.realmId);
  });
  await notify(svc, list);
}
