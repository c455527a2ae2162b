/** Password login: POST /fetch_api_key (the API key) and the web client's session login share it. */
import type { Services } from '../services.ts';
import { ApiError, authError, rateLimited } from '../lib/errors.ts';
import { checkPassword } from '../lib/passwords.ts';
import { RateLimit } from '../lib/rate-limit.ts';
import { validEmail } from '../lib/email-address.ts';
import { realmById } from '../store/realm.ts';
import { claimFirstLogin, userByEmail, type UserRow } from '../store/users.ts';
import { transaction } from '../store/db.ts';
import { isoFromSeconds, nowSeconds } from '../lib/util.ts';
import { userIdsWhoCanAccess } from './user-access.ts';

// Zulip allows 5 failed password attempts per username per 30 minutes.
const attempts = new WeakMap<Services, RateLimit>();
function loginLimiter(svc: Services): RateLimit {
  let limiter = attempts.get(svc);
  if (!limiter) attempts.set(svc, (limiter = new RateLimit(svc.redis, 'password', 5, 1800)));
  return limiter;
}

/**
 * Checks an email and password with Zulip's errors (invalid email, deactivated
 * organization or account, wrong credentials) and the per-username limit on
 * failed attempts. Returns the account.
 */
export async function passwordLogin(svc: Services, username: string, password: string): Promise<UserRow> {
  const limiter = loginLimiter(svc);
  const key = username.trim().toLowerCase();
  const wait = await limiter.blockedFor(key);
  if (wait > 0) throw rateLimited(wait);
  if (!validEmail(username.trim())) throw new ApiError('Enter a valid email address.');
  const user = await userByEmail(svc.store.db, svc.realmId, username.trim());
  const realm = await realmById(svc.store.db, svc.realmId);
  if (user && !user.is_bot) {
    if (realm.deactivated) throw authError('REALM_DEACTIVATED', 'This organization has been deactivated');
    if (!user.is_active) throw authError('USER_DEACTIVATED', 'Account is deactivated');
    if (await checkPassword(password, user.password_hash)) return await joinOnFirstLogin(svc, user);
  }
  await limiter.hit(key);
  throw authError('AUTHENTICATION_FAILED', 'Your username or password is incorrect');
}

/**
 * The first login of an account made through the API: it joins now (Zulip
 * since feature level 475), with a realm_user update of date_joined to
 * those who can access it.
 */
async function joinOnFirstLogin(svc: Services, user: UserRow): Promise<UserRow> {
  if (!user.joins_on_first_login) return user;
  const now = nowSeconds();
  if (!(await transaction(svc.store, (tx) => claimFirstLogin(tx, user.id, now)))) return user;
  const joined = { ...user, date_joined: now, joins_on_first_login: 0 };
  svc.bus.send({ type: 'realm_user', op: 'update', person: { user_id: user.id, date_joined: isoFromSeconds(now) } }, await userIdsWhoCanAccess(svc, joined));
  return joined;
}

/**
 * POST /json/fetch_api_key (Zulip's json_fetch_api_key): the logged-in user's
 * API key, once they give their password again; failures count against the
 * same per-username limit as logins.
 */
export async function fetchOwnApiKey(svc: Services, user: UserRow, password: string): Promise<Record<string, unknown>> {
  const limiter = loginLimiter(svc);
  const key = user.delivery_email.toLowerCase();
  const wait = await limiter.blockedFor(key);
  if (wait > 0) throw rateLimited(wait);
  if (!(await checkPassword(password, user.password_hash))) {
    await limiter.hit(key);
    throw new ApiError('Password is incorrect.');
  }
  return { api_key: user.api_key, email: user.delivery_email };
}

/** POST /fetch_api_key: trade an email and password for the API key. */
export async function fetchApiKey(svc: Services, username: string, password: string): Promise<Record<string, unknown>> {
  const user = await passwordLogin(svc, username, password);
  return { api_key: user.api_key, email: user.delivery_email, user_id: user.id };
}
