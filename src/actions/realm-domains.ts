/**
 * The organization's allowed email domains: GET/POST /realm/domains and
 * PATCH/DELETE /realm/domains/{domain}, with Zulip's validation, errors and
 * `realm_domains` events (add / change / remove) to every user. Changing the
 * list is for owners, as the emails_restricted_to_domains setting it serves.
 * Removing the last domain turns emails_restricted_to_domains off, as Zulip
 * does (with its `realm` update event).
 */
import { lockSettingsOf } from '../store/locks.ts';
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';
import { ROLE } from '../store/users.ts';
import { transaction } from '../store/db.ts';
import { realmById, updateRealm } from '../store/realm.ts';
import { deleteRealmDomain, insertRealmDomain, realmDomainExists, realmDomains, updateRealmDomain, type RealmDomain } from '../store/realm-domains.ts';
import { badRequest, requireOwner } from '../lib/errors.ts';
import { parseJsonObject } from '../lib/util.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import type { ZulipEvent } from '../events/types.ts';
import type { Tx } from '../store/db.ts';
import { isDisposableDomain } from '../lib/disposable.ts';
import { cachedActiveUserIds } from './cache.ts';

export async function listRealmDomains(svc: Services): Promise<RealmDomain[]> {
  return realmDomains(svc.store.db, svc.realmId);
}

/** Zulip's validate_domain, with its messages (null when valid). */
export function domainError(domain: string): string | null {
  if (domain.length === 0) return "Domain can't be empty.";
  if (!domain.includes('.')) return 'Domain must have at least one dot (.)';
  if (domain.length > 255) return 'Domain is too long';
  if (domain.startsWith('.') || domain.endsWith('.')) return 'Domain cannot start or end with a dot (.)';
  for (const part of domain.split('.')) {
    if (!part) return "Consecutive '.' are not allowed.";
    if (part.startsWith('-') || part.endsWith('-')) return "Subdomains cannot start or end with a '-'.";
    if (!/^[a-z0-9-]*$/.test(part)) return "Domain can only have letters, numbers, '.' and '-'s.";
  }
  return null;
}

const noEntry = (domain: string) => badRequest(`No entry found for domain ${domain}.`);

async function announce(svc: Services, events: ZulipEvent[]): Promise<void> {
  if (!events.length) return;
  const to = await cachedActiveUserIds(svc);
  for (const ev of events) svc.bus.send(ev, to);
}

export async function addRealmDomain(svc: Services, actor: UserRow, rawDomain: string, allowSubdomains: boolean): Promise<{ new_domain: [number, string] }> {
  if (actor.role !== ROLE.OWNER) throw requireOwner();
  const domain = rawDomain.trim().toLowerCase();
  const err = domainError(domain);
  if (err) throw badRequest(`Invalid domain: ${err}`);
  const id = await transaction(svc.store, async (tx) => {
    await lockSettingsOf(svc.store, tx, 'realm', svc.realmId);
    if (await realmDomainExists(tx, svc.realmId, domain)) throw badRequest(`The domain ${domain} is already a part of your organization.`);
    return insertRealmDomain(tx, svc.realmId, { domain, allow_subdomains: allowSubdomains });
  });
  await announce(svc, [{ type: 'realm_domains', op: 'add', realm_domain: { domain, allow_subdomains: allowSubdomains } }]);
  return { new_domain: [id, domain] };
}

export async function changeRealmDomain(svc: Services, actor: UserRow, domain: string, allowSubdomains: boolean): Promise<void> {
  if (actor.role !== ROLE.OWNER) throw requireOwner();
  const ok = await transaction(svc.store, (tx) => updateRealmDomain(tx, svc.realmId, { domain, allow_subdomains: allowSubdomains }));
  if (!ok) throw noEntry(domain);
  await announce(svc, [{ type: 'realm_domains', op: 'change', realm_domain: { domain, allow_subdomains: allowSubdomains } }]);
}

export async function removeRealmDomain(svc: Services, actor: UserRow, domain: string): Promise<void> {
  if (actor.role !== ROLE.OWNER) throw requireOwner();
  const events: ZulipEvent[] = [];
  await transaction(svc.store, async (tx) => {
    // Before the delete: of two removals at once, the second counts what the first left.
    await lockSettingsOf(svc.store, tx, 'realm', svc.realmId);
    if (!(await deleteRealmDomain(tx, svc.realmId, domain))) throw noEntry(domain);
    events.push({ type: 'realm_domains', op: 'remove', domain });
    if ((await realmDomains(tx, svc.realmId)).length === 0) {
      const realm = await realmById(tx, svc.realmId);
      if (realmSettings(realm.settings_json).emails_restricted_to_domains) {
        const stored = parseJsonObject(realm.settings_json);
        stored.emails_restricted_to_domains = false;
        await updateRealm(tx, svc.realmId, { settings_json: JSON.stringify(stored) });
        events.push({ type: 'realm', op: 'update', property: 'emails_restricted_to_domains', value: false });
      }
    }
  });
  await announce(svc, events);
}

/** Zulip's email_allowed_for_realm domain rule: the address's domain, or a subdomain where allowed. */
export function emailDomainAllowed(email: string, domains: RealmDomain[]): boolean {
  const at = email.lastIndexOf('@');
  let domain = email.slice(at + 1).toLowerCase();
  if (domains.some((d) => d.domain === domain)) return true;
  while (domain.includes('.')) {
    domain = domain.slice(domain.indexOf('.') + 1);
    if (domains.some((d) => d.allow_subdomains && d.domain === domain)) return true;
  }
  return false;
}

/** Why Zulip's email_allowed_for_realm refuses an address. */
export type EmailRefusal = 'disposable' | 'plus' | 'domain';

/**
 * Zulip's email_allowed_for_realm: why the organization refuses this
 * address, or null when allowed. Restricted to domains: the address's
 * domain must be allowed and its local part may not contain '+'; otherwise
 * disposable domains are refused when disallow_disposable_email_addresses
 * is on.
 */
export async function emailRefusal(db: Tx, realmId: number, settings: Record<string, unknown>, email: string): Promise<EmailRefusal | null> {
  const at = email.lastIndexOf('@');
  const domain = email.slice(at + 1).toLowerCase();
  if (!settings.emails_restricted_to_domains) {
    return settings.disallow_disposable_email_addresses && isDisposableDomain(domain) ? 'disposable' : null;
  }
  if (email.slice(0, at).includes('+')) return 'plus';
  return emailDomainAllowed(email, await realmDomains(db, realmId)) ? null : 'domain';
}

/** The refusal as Zulip's invitation errors say it. */
export const INVITATION_REFUSALS: Record<EmailRefusal, (email: string) => string> = {
  disposable: () => 'Please use your real email address.',
  plus: () => 'Email addresses containing + are not allowed.',
  domain: () => 'Outside your domain.',
};

/** The refusal as Zulip's sign-up form says it. */
export const SIGNUP_REFUSALS: Record<EmailRefusal, (email: string) => string> = {
  disposable: () => 'Please use your real email address.',
  plus: () => 'Email addresses containing + are not allowed in this organization.',
  domain: (email) => `Your email address, ${email}, is not in one of the domains that are allowed to register for accounts in this organization.`,
};
