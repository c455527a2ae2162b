/**
 * First start: creates the organization and its owner on an empty database,
 * and writes the owner's zuliprc under DATA_DIR (in the same transaction).
 */
import { writeFileSync } from 'node:fs';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../lib/private-files.ts';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import type { Store } from '../store/db.ts';
import { transaction } from '../store/db.ts';
import { firstRealm, insertRealm } from '../store/realm.ts';
import { generatePassword, hashPassword } from '../lib/passwords.ts';
import { nowSeconds } from '../lib/util.ts';
import { realmUserDefaults } from '../lib/user-settings.ts';
import { insertUser, ROLE, type UserRow } from '../store/users.ts';
import { createSystemGroups } from '../store/groups.ts';
import { validEmail } from '../lib/email-address.ts';
import { newApiKey } from '../lib/util.ts';

export interface Bootstrap {
  realmId: number;
  /** Set on the first start only. */
  created?: { owner: UserRow; password: string; generatedPassword: boolean };
}

export function zuliprc(email: string, apiKey: string, site: string): string {
  return `[api]\nemail=${email}\nkey=${apiKey}\nsite=${site}\n`;
}

export async function ensureRealm(store: Store, config: Config): Promise<Bootstrap> {
  const existing = await firstRealm(store.db);
  if (existing) return { realmId: existing.id };
  const email = config.ownerEmail ?? `owner@${new URL(config.externalUrl).hostname === '127.0.0.1' ? 'parley.local' : new URL(config.externalUrl).hostname}`;
  if (!validEmail(email)) throw new Error(`PARLEY_OWNER_EMAIL is not a valid email address: ${email}`);
  const generatedPassword = !config.ownerPassword;
  const password = config.ownerPassword ?? generatePassword();
  const passwordHash = await hashPassword(password);
  const result = await transaction(store, async (tx) => {
    // Zulip turns read receipts on in a new organization that needs invitations to
    // join (as a new one does) or restricts addresses to its domains; off otherwise.
    const realm = await insertRealm(tx, { string_id: '', name: config.realmName, date_created: nowSeconds(), settings_json: JSON.stringify({ enable_read_receipts: true }) });
    await createSystemGroups(tx, realm.id, nowSeconds());
    const owner = await insertUser(tx, {
      realm_id: realm.id,
      email,
      delivery_email: email,
      full_name: 'Owner',
      password_hash: passwordHash,
      api_key: newApiKey(),
      role: ROLE.OWNER,
      date_joined: nowSeconds(),
      settings_json: JSON.stringify(realmUserDefaults('{}')),
    });
    // Written before the commit: if it cannot be, nothing is created, and the
    // next start tries again (a commit that fails after it leaves a zuliprc
    // the next start's overwrites).
    ensurePrivateDir(config.dataDir);
    writeFileSync(join(config.dataDir, 'zuliprc'), zuliprc(email, owner.api_key, config.externalUrl), { mode: PRIVATE_FILE_MODE });
    return { realmId: realm.id, owner };
  });
  return { realmId: result.realmId, created: { owner: result.owner, password, generatedPassword } };
}
