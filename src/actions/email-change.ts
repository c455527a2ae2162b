/**
 * Changing one's email address (PATCH /settings `email`), with Zulip's
 * confirmation flow: the new address gets a link
 * (/accounts/confirm_new_email/<key>/); opening it changes the address,
 * tells the old address, and sends the realm_user events (delivery_email to
 * those who may see it; new_email to everyone when the address is public;
 * the avatar when it is a Gravatar, which follows the address).
 */
import type { Services } from '../services.ts';
import { badRequest } from '../lib/errors.ts';
import { emailSettings, sendEmail } from '../lib/email.ts';
import { validEmail } from '../lib/email-address.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { nowSeconds, randomAlnum } from '../lib/util.ts';
import { transaction, type Tx } from '../store/db.ts';
import { lockNamesOf } from '../store/locks.ts';
import { claimEmailChange, emailChangeByKey, insertEmailChange, type EmailChangeRow } from '../store/email-changes.ts';
import { realmById } from '../store/realm.ts';
import { updateUser, userByDeliveryEmail, userById, type UserRow } from '../store/users.ts';
import { cachedUsers } from './cache.ts';
import { avatarUrl, canSeeDeliveryEmail, emailVisibility, isAdminRole, publicEmail } from './users-format.ts';
import { userIdsWhoCanAccess } from './user-access.ts';

/** How long the confirmation link works (Zulip's default confirmation validity: 1 day). */
const CONFIRMATION_VALIDITY_SECONDS = 24 * 3600;

export const confirmEmailUrl = (svc: Services, key: string): string => `${svc.config.externalUrl}/accounts/confirm_new_email/${key}/`;

/** Why an address cannot be taken, or null (Zulip's validate_email_not_already_in_realm). */
async function addressTaken(svc: Services, db: Tx, email: string): Promise<string | null> {
  const existing = await userByDeliveryEmail(db, svc.realmId, email);
  if (!existing) return null;
  if (existing.is_system_bot) return 'Reserved for system bots.';
  return existing.is_active ? 'Already has an account.' : 'Account has been deactivated.';
}

/**
 * The realm_user events of a changed address (`before` and `updated` are the
 * account's row before and after): delivery_email to those who may see it,
 * the avatar when it is a Gravatar (which follows the address), and
 * new_email to everyone who can access the account when the address shown
 * in the API changed.
 */
export async function announceEmailChange(svc: Services, before: UserRow, updated: UserRow): Promise<void> {
  const everyone = (await cachedUsers(svc)).list;
  const recipients = await userIdsWhoCanAccess(svc, updated);
  const accessing = new Set(recipients);
  const mayKnow = everyone.filter((u) => accessing.has(u.id) && canSeeDeliveryEmail(u, updated)).map((u) => u.id);
  svc.bus.send({ type: 'realm_user', op: 'update', person: { user_id: updated.id, delivery_email: updated.delivery_email } }, mayKnow);
  announceGravatar(svc, updated, recipients);
  if (updated.email !== before.email) svc.bus.send({ type: 'realm_user', op: 'update', person: { user_id: updated.id, new_email: updated.email } }, recipients);
}

/** A Gravatar follows the address: its realm_user update (nothing for an uploaded picture). */
function announceGravatar(svc: Services, user: UserRow, recipients: number[]): void {
  if (user.avatar_source !== 'G') return;
  const url = avatarUrl(svc.config, user, false);
  svc.bus.send(
    { type: 'realm_user', op: 'update', person: { user_id: user.id, avatar_source: 'G', avatar_url: url, avatar_url_medium: url, avatar_version: user.avatar_version } },
    recipients,
  );
}

/**
 * The address shown in the API (`email`) for a new email_address_visibility:
 * the real address only for "everyone", a dummy one otherwise (Zulip changes
 * it only when "everyone" is the old or the new value).
 */
export function emailForVisibility(svc: Services, user: UserRow, oldVisibility: number, newVisibility: number): string {
  if (oldVisibility !== 1 && newVisibility !== 1) return user.email;
  return publicEmail(svc.config, user.id, user.delivery_email, newVisibility);
}

/**
 * The realm_user events of a changed email_address_visibility (`before` and
 * `after` are the account's row with the old and new setting and address):
 * delivery_email to those who may now see the address, delivery_email null
 * to those who no longer may; and, when the address shown in the API
 * changed, new_email and the Gravatar to everyone who can access the account.
 */
export async function announceEmailVisibility(svc: Services, before: UserRow, after: UserRow): Promise<void> {
  const recipients = await userIdsWhoCanAccess(svc, after);
  const accessing = new Set(recipients);
  const users = (await cachedUsers(svc)).list.filter((u) => u.is_active && accessing.has(u.id));
  const nowVisible = users.filter((u) => !canSeeDeliveryEmail(u, before) && canSeeDeliveryEmail(u, after)).map((u) => u.id);
  const nowHidden = users.filter((u) => canSeeDeliveryEmail(u, before) && !canSeeDeliveryEmail(u, after)).map((u) => u.id);
  if (nowVisible.length) svc.bus.send({ type: 'realm_user', op: 'update', person: { user_id: after.id, delivery_email: after.delivery_email } }, nowVisible);
  if (nowHidden.length) svc.bus.send({ type: 'realm_user', op: 'update', person: { user_id: after.id, delivery_email: null } }, nowHidden);
  if (after.email === before.email) return;
  svc.bus.send({ type: 'realm_user', op: 'update', person: { user_id: after.id, new_email: after.email } }, recipients);
  announceGravatar(svc, after, recipients);
}

/** The organization's email_changes_disabled (administrators exempt), as Zulip says it. */
async function emailChangeRefusal(svc: Services, db: Tx, user: UserRow): Promise<string | null> {
  const settings = realmSettings((await realmById(db, svc.realmId)).settings_json);
  return settings.email_changes_disabled && !isAdminRole(user.role) ? 'Email address changes are disabled in this organization.' : null;
}

/** The checks of an address change: the address to change to (trimmed), or null when it is the current one. */
export async function checkEmailChange(svc: Services, user: UserRow, requested: string): Promise<string | null> {
  const email = requested.trim();
  if (email.toLowerCase() === user.delivery_email.toLowerCase()) return null;
  const refused = await emailChangeRefusal(svc, svc.store.db, user);
  if (refused) throw badRequest(refused);
  if (!validEmail(email)) throw badRequest('Invalid address.');
  const taken = await addressTaken(svc, svc.store.db, email);
  if (taken) throw badRequest(taken);
  return email;
}

/** Starts the change to an address checkEmailChange returned: the pending change and its confirmation email. */
export async function startEmailChange(svc: Services, user: UserRow, email: string): Promise<void> {
  const realm = await realmById(svc.store.db, svc.realmId);
  const key = randomAlnum(24).toLowerCase();
  await transaction(svc.store, (tx) => insertEmailChange(tx, { realmId: svc.realmId, userId: user.id, oldEmail: user.delivery_email, newEmail: email, key, now: nowSeconds() }));
  try {
    await sendEmail(emailSettings(svc.config), {
      to: [email],
      subject: 'Verify your new email address',
      text:
        [
          'Hi,',
          '',
          `We received a request to change the email address for the ${realm.name} account (${svc.config.externalUrl}) from ${user.delivery_email} to ${email}.`,
          '',
          'To confirm this change, open this link:',
          confirmEmailUrl(svc, key),
          '',
          'The link expires in 1 day.',
        ].join('\n') + '\n',
      template: 'confirm_new_email',
    });
  } catch (err) {
    svc.log.error({ err, userId: user.id }, 'email change confirmation failed');
  }
}

export type EmailChangeResult =
  | { kind: 'invalid' }
  | { kind: 'expired' }
  | { kind: 'taken'; error: string }
  | { kind: 'refused'; error: string }
  | { kind: 'changed'; oldEmail: string; newEmail: string };

type Confirmation = Exclude<EmailChangeResult, { kind: 'changed' }> | { kind: 'changed'; user: UserRow; change: EmailChangeRow; apiEmail: string };

/**
 * Opening the confirmation link: the address changes once, if still free.
 * The checks, the claim of the link and the change are one transaction,
 * under the lock that new accounts take for their address: of two links
 * for one address opened at once, the second finds it taken.
 */
export async function confirmEmailChange(svc: Services, key: string): Promise<EmailChangeResult> {
  if (!/^[A-Za-z0-9]{1,100}$/.test(key)) return { kind: 'invalid' };
  const r = await transaction(svc.store, async (tx): Promise<Confirmation> => {
    await lockNamesOf(svc.store, tx, 'users');
    const change = await emailChangeByKey(tx, svc.realmId, key);
    if (!change) return { kind: 'invalid' };
    if (change.status !== 0 || Number(change.created) + CONFIRMATION_VALIDITY_SECONDS < nowSeconds()) return { kind: 'expired' };
    const user = await userById(tx, svc.realmId, change.user_id);
    if (!user || !user.is_active) return { kind: 'invalid' };
    // As Zulip: the organization's email_changes_disabled is checked again when the link is opened.
    const refused = await emailChangeRefusal(svc, tx, user);
    if (refused) return { kind: 'refused', error: refused };
    const taken = await addressTaken(svc, tx, change.new_email);
    if (taken) return { kind: 'taken', error: taken };
    if (!(await claimEmailChange(tx, change.id))) return { kind: 'expired' };
    const apiEmail = publicEmail(svc.config, user.id, change.new_email, emailVisibility(user));
    await updateUser(tx, user.id, { delivery_email: change.new_email, email: apiEmail });
    return { kind: 'changed', user, change, apiEmail };
  });
  if (r.kind !== 'changed') return r;
  const { user, change, apiEmail } = r;
  await announceEmailChange(svc, user, { ...user, delivery_email: change.new_email, email: apiEmail });
  try {
    await sendEmail(emailSettings(svc.config), {
      to: [change.old_email],
      subject: 'Email address changed',
      text: `Hi,\n\nThe email address for your account (${svc.config.externalUrl}) was changed from ${change.old_email} to ${change.new_email}.\n`,
      template: 'notify_change_in_email',
    });
  } catch (err) {
    svc.log.error({ err, userId: user.id }, 'email change notice failed');
  }
  return { kind: 'changed', oldEmail: change.old_email, newEmail: change.new_email };
}
