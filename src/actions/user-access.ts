/**
 * Which users a user may "access" (Zulip's can_access_all_users_group).
 *
 * Only guests are ever restricted, and only when the organization's
 * can_access_all_users_group does not include them (its value may only be
 * role:everyone or role:members). A restricted guest accesses themselves,
 * every bot, and the users who share a channel subscription or a
 * direct-message group with them; everyone else is an "Unknown user" to
 * them: left out of user lists (or, for clients without the
 * user_list_incomplete capability, shown as a placeholder), refused by
 * GET /users/{id}, and not told about changes to them.
 */
import type { Config } from '../config.ts';
import type { Services } from '../services.ts';
import type { Tx } from '../store/db.ts';
import { ROLE, userIdsSharingConversations, type UserRow } from '../store/users.ts';
import { UNKNOWN_USER_AVATAR_PATH } from '../lib/static-paths.ts';
import { cachedGroups, cachedProfileData, cachedRealm, cachedUsers } from './cache.ts';
import { realmGroupSetting } from './group-settings.ts';
import { formatUser } from './users-format.ts';

/** Zulip's name for a user the viewer may not access. */
export const INACCESSIBLE_USER_NAME = 'Unknown user';

/** Whether the organization limits what some users (guests) may access. */
export async function userAccessRestricted(svc: Services, db: Tx = svc.store.db): Promise<boolean> {
  const [realm, groups] = await Promise.all([cachedRealm(svc, db), cachedGroups(svc, db)]);
  return realmGroupSetting(realm.row.settings_json, 'can_access_all_users_group', groups) !== groups.systemGroupId('role:everyone');
}

/** Whether `viewer` may access every user of the organization (spectators may). */
export async function canAccessAllUsers(svc: Services, viewer: UserRow | null, db: Tx = svc.store.db): Promise<boolean> {
  if (!viewer || viewer.role !== ROLE.GUEST) return true;
  const [realm, groups] = await Promise.all([cachedRealm(svc, db), cachedGroups(svc, db)]);
  return groups.allows(viewer, realmGroupSetting(realm.row.settings_json, 'can_access_all_users_group', groups));
}

/** A viewer's access, read once for a request: `can(target)` says whether it may access that user. */
export interface UserAccess {
  all: boolean;
  can(target: UserRow): boolean;
}

/**
 * The users `viewer` may access. Members of its direct-message groups count
 * even once deactivated (as in Zulip's user lists); channel subscribers only
 * while active.
 */
export async function userAccess(svc: Services, viewer: UserRow | null, db: Tx = svc.store.db): Promise<UserAccess> {
  if (!viewer || (await canAccessAllUsers(svc, viewer, db))) return { all: true, can: () => true };
  const sharing = await userIdsSharingConversations(db, viewer.id, { deactivatedDirectPartners: true });
  return { all: false, can: (t) => !!t.is_bot || t.id === viewer.id || sharing.has(t.id) };
}

/** Whether `viewer` may access `target` (one check; use userAccess for many). */
export async function canAccessUser(svc: Services, viewer: UserRow | null, target: UserRow, db: Tx = svc.store.db): Promise<boolean> {
  if (!viewer || viewer.id === target.id || target.is_bot) return true;
  return (await userAccess(svc, viewer, db)).can(target);
}

/**
 * The active users who may access `target`: the recipients of events about
 * it (Zulip's get_user_ids_who_can_access_user).
 */
export async function userIdsWhoCanAccess(svc: Services, target: UserRow, db: Tx = svc.store.db): Promise<number[]> {
  const users = (await cachedUsers(svc, db)).list.filter((u) => u.is_active);
  if (target.is_bot || !(await userAccessRestricted(svc, db))) return users.map((u) => u.id);
  const [realm, groups] = await Promise.all([cachedRealm(svc, db), cachedGroups(svc, db)]);
  const setting = realmGroupSetting(realm.row.settings_json, 'can_access_all_users_group', groups);
  const sharing = await userIdsSharingConversations(db, target.id, { deactivatedDirectPartners: false });
  return users.filter((u) => u.id === target.id || u.role !== ROLE.GUEST || groups.allows(u, setting) || sharing.has(u.id)).map((u) => u.id);
}

/** The dummy address an inaccessible user is known by. */
const placeholderEmail = (config: Config, userId: number): string => `user${userId}@${new URL(config.externalUrl).hostname}`;

/** Zulip's placeholder user object for a user the viewer may not access. */
export function inaccessibleUser(config: Config, userId: number): Record<string, unknown> {
  return {
    email: placeholderEmail(config, userId),
    user_id: userId,
    avatar_version: 1,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    role: ROLE.MEMBER,
    is_bot: false,
    full_name: INACCESSIBLE_USER_NAME,
    timezone: '',
    is_active: true,
    date_joined: '1970-01-01T00:00:00+00:00',
    delivery_email: null,
    avatar_url: UNKNOWN_USER_AVATAR_PATH,
    profile_data: {},
    is_imported_stub: false,
  };
}

/**
 * Follows the access of restricted guests across a change of subscriptions:
 * returns a function to call after the change, which tells each guest of
 * the users it has newly come to access (realm_user add with the user's data)
 * and of those it no longer may (realm_user remove, as "Unknown user"), as
 * Zulip does when subscriptions are added or removed.
 */
export async function trackAccessChanges(svc: Services, candidates: UserRow[]): Promise<() => Promise<void>> {
  const guests = [...new Map(candidates.filter((u) => u.role === ROLE.GUEST && u.is_active).map((u) => [u.id, u])).values()];
  if (!guests.length || !(await userAccessRestricted(svc))) return async () => {};
  const tracked: Array<{ guest: UserRow; before: Set<number> }> = [];
  for (const guest of guests) {
    if (await canAccessAllUsers(svc, guest)) continue;
    tracked.push({ guest, before: await userIdsSharingConversations(svc.store.db, guest.id, { deactivatedDirectPartners: true }) });
  }
  return async () => {
    const users = await cachedUsers(svc);
    const human = (id: number, guest: UserRow): UserRow | undefined => {
      const u = users.byId.get(id);
      return u && !u.is_bot && u.id !== guest.id ? u : undefined;
    };
    for (const { guest, before } of tracked) {
      const after = await userIdsSharingConversations(svc.store.db, guest.id, { deactivatedDirectPartners: true });
      const gained = [...after].filter((id) => !before.has(id)).flatMap((id) => human(id, guest) ?? []);
      const lost = [...before].filter((id) => !after.has(id)).flatMap((id) => human(id, guest) ?? []);
      await announceAccessGained(svc, [{ guest, users: gained }]);
      for (const u of lost) svc.bus.send({ type: 'realm_user', op: 'remove', person: { user_id: u.id, full_name: INACCESSIBLE_USER_NAME } }, [guest.id]);
    }
  };
}

/** Tells each guest, with realm_user add events, about the users it has come to access. */
export async function announceAccessGained(svc: Services, gains: Array<{ guest: UserRow; users: UserRow[] }>): Promise<void> {
  for (const { guest, users } of gains) {
    if (!users.length) continue;
    const profile = await cachedProfileData(svc);
    for (const u of users) {
      svc.bus.send({ type: 'realm_user', op: 'add', person: formatUser(svc.config, u, { viewer: guest, clientGravatar: false, profileData: profile.get(u.id) ?? {} }) }, [guest.id]);
    }
  }
}

/**
 * For a direct-message conversation about to get its first message (a new
 * group, or one-to-one): the members each restricted guest among them does
 * not access yet (and will, through it).
 */
export async function accessGainedByConversation(svc: Services, members: UserRow[], db: Tx): Promise<Array<{ guest: UserRow; users: UserRow[] }>> {
  const gains: Array<{ guest: UserRow; users: UserRow[] }> = [];
  for (const guest of members) {
    if (guest.role !== ROLE.GUEST) continue;
    const access = await userAccess(svc, guest, db);
    if (!access.all) gains.push({ guest, users: members.filter((u) => !access.can(u)) });
  }
  return gains;
}

/** A message's sender fields as Zulip shows them when the viewer may not access the sender. */
export function hiddenSenderFields(config: Config, senderId: number): Record<string, unknown> {
  return { sender_full_name: INACCESSIBLE_USER_NAME, sender_email: placeholderEmail(config, senderId), avatar_url: UNKNOWN_USER_AVATAR_PATH };
}

/**
 * Messages as `viewer` may see them: the sender of a message it may read but
 * whose sender it may not access (someone who left the channel since) is an
 * "Unknown user", as Zulip's can_access_sender.
 */
export async function hideInaccessibleSenders(
  svc: Services,
  viewer: UserRow | null,
  messages: Array<Record<string, unknown>>,
  db: Tx = svc.store.db,
  /** The viewer's access, when the caller has it already. */
  known?: UserAccess,
): Promise<Array<Record<string, unknown>>> {
  const access = known ?? (await userAccess(svc, viewer, db));
  if (access.all) return messages;
  const users = await cachedUsers(svc, db);
  return messages.map((m) => {
    const sender = users.byId.get(Number(m.sender_id));
    return sender && !access.can(sender) ? { ...m, ...hiddenSenderFields(svc.config, sender.id) } : m;
  });
}

/** Among a message's recipients, those who may not access its sender (a channel message from a non-subscriber). */
export async function recipientsNotAccessing(svc: Services, sender: UserRow, recipientIds: number[], db: Tx = svc.store.db): Promise<number[]> {
  if (sender.is_bot || !(await userAccessRestricted(svc, db))) return [];
  const users = await cachedUsers(svc, db);
  if (!recipientIds.some((id) => users.byId.get(id)?.role === ROLE.GUEST)) return [];
  const accessing = new Set(await userIdsWhoCanAccess(svc, sender, db));
  return recipientIds.filter((id) => !accessing.has(id));
}
