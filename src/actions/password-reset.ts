/**
 * "Forgot your password?": as Zulip's password reset form, whoever knows an
 * address can ask for a link to be mailed to it. The address's account gets
 * a one-use link that works for a day; an address without an account, or
 * whose account is deactivated, gets an email saying so (so the form itself
 * never tells whether an account exists). At most 2 requests an hour and 5 a
 * day per address (Zulip's password_reset_form_by_email limits), and 5 a day
 * from one client address (Zulip's sends_email_by_ip). Opening
 * the link and choosing a new password (with Zulip's strength rule) sets it,
 * ends the account's web sessions (as any password change does) and marks
 * every pending link of the account used. A link also stops working once
 * the password changes some other way.
 */
import { createHash } from 'node:crypto';
import type { Services } from '../services.ts';
import { emailSettings, sendEmail } from '../lib/email.ts';
import { validEmail } from '../lib/email-address.ts';
import { hashPassword, passwordStrongEnough } from '../lib/passwords.ts';
import { RateLimit } from '../lib/rate-limit.ts';
import { nowSeconds, randomAlnum } from '../lib/util.ts';
import { transaction, type Tx } from '../store/db.ts';
import { claimPasswordResets, insertPasswordReset, passwordResetByKeyHash, type PasswordResetRow } from '../store/password-resets.ts';
import { realmById } from '../store/realm.ts';
import { updateUser, userByDeliveryEmail, userById, type UserRow } from '../store/users.ts';
import { endUserSessions } from './sessions.ts';

/** How long a link works. */
const LINK_VALIDITY_SECONDS = 24 * 3600;

export const PASSWORD_RESET_PATH = '/accounts/password/reset/';

interface Limits {
  /** Per email address. */
  byEmail: RateLimit[];
  /** Per client (IP) address. */
  byClient: RateLimit;
}
const limits = new WeakMap<Services, Limits>();
function limitsOf(svc: Services): Limits {
  let l = limits.get(svc);
  if (!l)
    limits.set(
      svc,
      (l = {
        byEmail: [new RateLimit(svc.redis, 'password-reset-hour', 2, 3600), new RateLimit(svc.redis, 'password-reset-day', 5, 86400)],
        byClient: new RateLimit(svc.redis, 'sends-email-by-ip', svc.config.emailsPerAddressPerDay, 86400),
      }),
    );
  return l;
}

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
/** What ties a link to the password it was made for. */
const passwordMarker = (user: UserRow): string => sha256(`parley-password-reset:${user.password_hash ?? ''}`);

export type ResetRequestResult =
  | { kind: 'form_error'; error: string }
  /** `by`: the limit reached, the email address's or the client's. */
  | { kind: 'rate_limited'; seconds: number; by: 'email' | 'client' }
  | { kind: 'sent'; email: string };

/** The reset form's request from client address `ip`: mails the address its link, or why there is none. */
export async function requestPasswordReset(svc: Services, requested: string, ip: string): Promise<ResetRequestResult> {
  const email = requested.trim();
  if (!validEmail(email)) return { kind: 'form_error', error: 'Enter a valid email address.' };
  const realm = await realmById(svc.store.db, svc.realmId);
  // As Zulip: nothing is sent for a deactivated organization (the page says the same).
  if (realm.deactivated) return { kind: 'sent', email };
  const key = email.toLowerCase();
  const { byEmail, byClient } = limitsOf(svc);
  const emailWait = Math.max(...(await Promise.all(byEmail.map((l) => l.blockedFor(key)))));
  if (emailWait > 0) return { kind: 'rate_limited', seconds: Math.ceil(emailWait), by: 'email' };
  const clientWait = await byClient.blockedFor(ip);
  if (clientWait > 0) return { kind: 'rate_limited', seconds: Math.ceil(clientWait), by: 'client' };
  for (const l of byEmail) await l.hit(key);
  await byClient.hit(ip);

  const user = await userByDeliveryEmail(svc.store.db, svc.realmId, email);
  const where = `${realm.name} (${svc.config.externalUrl})`;
  let text: string;
  if (user && !user.is_bot && user.is_active) {
    const linkKey = randomAlnum(32);
    await transaction(svc.store, (tx) =>
      insertPasswordReset(tx, { realmId: svc.realmId, userId: user.id, keyHash: sha256(linkKey), passwordMarker: passwordMarker(user), now: nowSeconds() }),
    );
    text = [
      'Hi,',
      '',
      `Someone (hopefully you) asked to reset the password of your account ${user.delivery_email} in ${where}.`,
      '',
      'To choose a new password, open this link:',
      `${svc.config.externalUrl}${PASSWORD_RESET_PATH}${linkKey}/`,
      '',
      'The link works once, for 1 day. If you did not ask for this, you can ignore this email: your password stays as it is.',
    ].join('\n');
  } else if (user && !user.is_bot) {
    text = `Hi,\n\nSomeone (hopefully you) asked to reset the password of the account ${email} in ${where}, but that account has been deactivated. Ask an administrator of the organization to reactivate it.`;
  } else {
    text = `Hi,\n\nSomeone (hopefully you) asked to reset the password of the account ${email} in ${where}, but there is no account with this address there. If you did not ask for this, you can ignore this email.`;
  }
  try {
    // To the account's own address where there is one (as typed, it may differ in case).
    await sendEmail(emailSettings(svc.config), { to: [user && !user.is_bot ? user.delivery_email : email], subject: `Reset your password for ${realm.name}`, text: text + '\n', template: 'password_reset' });
  } catch (err) {
    svc.log.error({ err }, 'password reset email failed');
  }
  return { kind: 'sent', email };
}

export type ResetLinkState = { kind: 'invalid' } | { kind: 'expired' } | { kind: 'valid'; email: string };

/** A link still pending, not expired, for an active account whose password has not changed since. */
async function usableLink(svc: Services, db: Tx, key: string): Promise<{ kind: 'invalid' } | { kind: 'expired' } | { kind: 'valid'; row: PasswordResetRow; user: UserRow }> {
  if (!/^[A-Za-z0-9]{32}$/.test(key)) return { kind: 'invalid' };
  const row = await passwordResetByKeyHash(db, svc.realmId, sha256(key));
  if (!row) return { kind: 'invalid' };
  const user = await userById(db, svc.realmId, row.user_id);
  if (!user || !user.is_active) return { kind: 'invalid' };
  if (row.status !== 0 || Number(row.created) + LINK_VALIDITY_SECONDS < nowSeconds() || row.password_marker !== passwordMarker(user)) return { kind: 'expired' };
  return { kind: 'valid', row, user };
}

/** Opening the link: whether it still works, and for which address. */
export async function checkPasswordResetLink(svc: Services, key: string): Promise<ResetLinkState> {
  const r = await usableLink(svc, svc.store.db, key);
  return r.kind === 'valid' ? { kind: 'valid', email: r.user.delivery_email } : r;
}

export type ResetResult = ResetLinkState | { kind: 'form_error'; email: string; error: string } | { kind: 'done'; email: string };

/** The link's form: the new password, typed twice. */
export async function resetPassword(svc: Services, key: string, password: string, again: string): Promise<ResetResult> {
  const state = await checkPasswordResetLink(svc, key);
  if (state.kind !== 'valid') return state;
  const formError = (error: string): ResetResult => ({ kind: 'form_error', email: state.email, error });
  if (!password) return formError('Please enter a new password.');
  if (password !== again) return formError('The two passwords do not match.');
  if (!(await passwordStrongEnough(password))) return formError('The password is too weak.');
  const hash = await hashPassword(password);
  return transaction(svc.store, async (tx): Promise<ResetResult> => {
    // Checked again in the transaction: of two uses of one link at once, the second finds it used.
    const r = await usableLink(svc, tx, key);
    if (r.kind !== 'valid') return r;
    if (!(await claimPasswordResets(tx, r.user.id, r.row.id))) return { kind: 'expired' };
    await updateUser(tx, r.user.id, { password_hash: hash });
    await endUserSessions(tx, r.user.id);
    return { kind: 'done', email: r.user.delivery_email };
  });
}
