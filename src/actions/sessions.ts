/**
 * Web login sessions (the browser client's HttpOnly `sessionid` cookie).
 * A session id is 256 random bits handed to the browser once; the store keeps
 * only its SHA-256 hash, the user, the CSRF token bound to the session and the
 * expiry. Sessions end on logout, on expiry, and (see endUserSessions' callers)
 * when the account is deactivated, its password changes or its API key is
 * regenerated.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Services } from '../services.ts';
import { transaction, type Tx } from '../store/db.ts';
import {
  deleteExpiredSessions,
  deleteSession,
  deleteUserSessions,
  insertSession,
  sessionWithUser,
} from '../store/sessions.ts';
import type { UserRow } from '../store/users.ts';
import { passwordLogin } from './auth.ts';

export interface NewSession {
  /** The session id for the cookie (never stored). */
  sessionId: string;
  csrfToken: string;
  /** Expiry, ms since the epoch. */
  expires: number;
  user: UserRow;
}

export interface ActiveSession {
  idHash: string;
  csrfToken: string;
  user: UserRow;
}

export function hashSessionId(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}

/** A fresh random token (256 bits, base64url): session ids. */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/** A fresh CSRF token: 32 characters of [A-Za-z0-9_-] (192 bits). */
export function newCsrfToken(): string {
  return randomBytes(24).toString('base64url');
}

const SESSION_ID_RE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Logs in with email and password (the checks, errors and rate limit of
 * POST /fetch_api_key) and starts a session. `previousSessionId`, the
 * session the browser already had, is ended.
 */
export async function loginWithPassword(
  svc: Services,
  username: string,
  password: string,
  previousSessionId?: string,
): Promise<NewSession> {
  const user = await passwordLogin(svc, username, password);
  const now = Date.now();
  const session: NewSession = {
    sessionId: newSessionId(),
    csrfToken: newCsrfToken(),
    expires: now + svc.config.sessionCookieAgeSeconds * 1000,
    user,
  };
  await transaction(svc.store, async (tx) => {
    await deleteExpiredSessions(tx, now);
    if (previousSessionId) await deleteSession(tx, hashSessionId(previousSessionId));
    await insertSession(tx, {
      id_hash: hashSessionId(session.sessionId),
      user_id: user.id,
      csrf_token: session.csrfToken,
      date_created: now,
      expires: session.expires,
    });
  });
  return session;
}

/**
 * The live session with this id, or null when it is unknown, expired, or its
 * account or organization is deactivated.
 */
export async function resolveSession(svc: Services, sessionId: string | undefined): Promise<ActiveSession | null> {
  if (!sessionId || !SESSION_ID_RE.test(sessionId)) return null;
  const idHash = hashSessionId(sessionId);
  const row = await sessionWithUser(svc.store.db, idHash);
  if (!row) return null;
  const { session_csrf_token: csrfToken, session_expires: expires, realm_deactivated: realmDeactivated, ...user } = row;
  if (expires <= Date.now() || !user.is_active || user.realm_id !== svc.realmId) {
    await deleteSession(svc.store.db, idHash);
    return null;
  }
  if (realmDeactivated) return null;
  return { idHash, csrfToken, user };
}

/** Logout: ends the session with this id (nothing when unknown). */
export async function logout(svc: Services, sessionId: string | undefined): Promise<void> {
  if (sessionId && SESSION_ID_RE.test(sessionId)) await deleteSession(svc.store.db, hashSessionId(sessionId));
}

/**
 * Ends a user's web sessions (deactivation, password change, API key
 * regeneration), inside the caller's transaction; `keepIdHash` is the session
 * that made the change, which stays logged in (as Zulip keeps the session
 * that changed the password).
 */
export async function endUserSessions(tx: Tx, userId: number, keepIdHash?: string): Promise<void> {
  await deleteUserSessions(tx, userId, keepIdHash);
}
