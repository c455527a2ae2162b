/** Reading users: GET /users, /users/me, /users/{id}, /users/{email} and realm_user state. */
import type { Services } from '../services.ts';
import { ApiError, badRequest, unauthorized } from '../lib/errors.ts';
import { userByDeliveryEmail, userById, usersByIds, type UserRow } from '../store/users.ts';
import { dummyEmailUserId, formatUser, givenEmailNames } from './users-format.ts';
import { cachedProfileData, cachedRealm, cachedUsers } from './cache.ts';
import { canAccessUser, userAccess } from './user-access.ts';

export function noSuchUser(): ApiError {
  return new ApiError('No such user');
}

export async function listUsers(
  svc: Services,
  viewer: UserRow | null,
  opts: { clientGravatar: boolean; includeCustomProfileFields: boolean; userIds?: number[] },
): Promise<Record<string, unknown>[]> {
  let rows: readonly UserRow[] = opts.userIds
    ? await usersByIds(svc.store.db, svc.realmId, opts.userIds)
    : (await cachedUsers(svc)).list.filter((u) => !u.is_system_bot);
  if (opts.userIds) {
    const found = new Set(rows.map((r) => r.id));
    const missing = opts.userIds.find((id) => !found.has(id));
    if (missing !== undefined) throw new ApiError('Invalid user ID: ' + missing);
  }
  // Users the viewer may not access are left out (Zulip, since feature level 437).
  const access = await userAccess(svc, viewer);
  if (!access.all) rows = rows.filter((u) => access.can(u));
  const profile = opts.includeCustomProfileFields ? await cachedProfileData(svc) : undefined;
  return rows.map((u) =>
    formatUser(svc.config, u, { viewer, clientGravatar: opts.clientGravatar, profileData: profile ? (profile.get(u.id) ?? {}) : undefined }),
  );
}

/**
 * The user an address from a client names (GET /users/{email}): the user of
 * a dummy address's ID, or the user of a real address whose email
 * visibility lets the viewer see it (Zulip's access_user_by_email).
 */
export async function userByGivenEmail(svc: Services, viewer: UserRow, email: string): Promise<UserRow | undefined> {
  const dummyId = dummyEmailUserId(svc.config, email);
  const u = dummyId !== undefined ? await userById(svc.store.db, svc.realmId, dummyId) : await userByDeliveryEmail(svc.store.db, svc.realmId, email.trim());
  return u && givenEmailNames(svc.config, viewer, u, email) ? u : undefined;
}

export async function getUser(
  svc: Services,
  viewer: UserRow,
  target: { id?: number; email?: string },
  opts: { clientGravatar: boolean; includeCustomProfileFields: boolean },
): Promise<Record<string, unknown>> {
  const u = target.id !== undefined ? await userById(svc.store.db, svc.realmId, target.id) : await userByGivenEmail(svc, viewer, target.email ?? '');
  if (!u) throw noSuchUser();
  if (!(await canAccessUser(svc, viewer, u))) throw badRequest('Insufficient permission');
  const profile = opts.includeCustomProfileFields ? await cachedProfileData(svc) : undefined;
  return formatUser(svc.config, u, {
    viewer,
    clientGravatar: opts.clientGravatar,
    profileData: profile ? (profile.get(u.id) ?? {}) : undefined,
  });
}

export async function getOwnUser(svc: Services, me: UserRow): Promise<Record<string, unknown>> {
  const profile = await cachedProfileData(svc);
  // Without is_imported_stub, not part of this answer: never added (a `delete` would turn the object
  // into a slow dictionary that the answer's envelope then copies key by key).
  return formatUser(svc.config, me, { viewer: me, clientGravatar: false, profileData: profile.get(me.id) ?? {}, withoutImportedStub: true });
}

/**
 * Anonymous access (spec §5.4): allowed only when the server enables
 * web-public channels and the organization enables spectator access;
 * otherwise the caller must authenticate. Returns the anonymous viewer (null).
 */
export async function requireSpectatorAccess(svc: Services): Promise<null> {
  if (!(await spectatorAccessEnabled(svc))) throw unauthorized('Missing authorization header for basic auth');
  return null;
}

/**
 * Whether logged-out visitors may read (Zulip's allow_web_public_streams_access):
 * the server enables web-public channels and the organization spectator access.
 */
export async function spectatorAccessEnabled(svc: Services): Promise<boolean> {
  return svc.config.webPublicStreamsEnabled && !!(await cachedRealm(svc)).settings.enable_spectator_access;
}
