/**
 * Administering accounts: creating users, changing names and roles,
 * deactivating and reactivating, and API key regeneration -- with Zulip's
 * permission rules, messages and events.
 */
import { lockUntilCommit } from '../store/locks.ts';
import { endUserSessions } from './sessions.ts';
import { deleteMessages } from './message-delete.ts';
import { messageIdsBySenders } from '../store/messages.ts';
import { checkProfileData, updateProfileData, type ProfileDataItem } from './profile-fields.ts';
import type { Services } from '../services.ts';
import { newApiKey } from '../lib/util.ts';
import { passwordStrongEnough } from '../lib/passwords.ts';
import { ApiError, badRequest, requireAdmin, requireOwner } from '../lib/errors.ts';
import { sendEmail, emailSettings } from '../lib/email.ts';
import { validEmail } from '../lib/email-address.ts';
import { realmById } from '../store/realm.ts';
import { transaction, type Tx } from '../store/db.ts';
import {
  activeBotsOwnedBy,
  countActiveOwners,
  countActiveUsers,
  updateUser,
  userByDeliveryEmail,
  userById,
  deactivateUserRow,
  ROLE,
  type UserRow,
} from '../store/users.ts';
import { avatarUrl, isAdminRole } from './users-format.ts';
import { checkBotCreationPolicy, sendBotOwnerEvents } from './bots-format.ts';
import { checkFullName, createUser } from './users.ts';
import { noSuchUser, userByGivenEmail } from './users-read.ts';
import { sendActivationPeerEvents, sendRoleChangeStreamEvents } from './access-change-events.ts';
import { loadChannelContext } from './streams-format.ts';
import { greetNewUser } from './welcome-bot.ts';
import { userIdsWhoCanAccess } from './user-access.ts';

export const ROLES: readonly number[] = [ROLE.OWNER, ROLE.ADMINISTRATOR, ROLE.MODERATOR, ROLE.MEMBER, ROLE.GUEST];

/** The name a deleted profile gets (actions.delete_profile). */
export const DELETED_USER_NAME = 'Deleted user';

// ---------------------------------------------------------------------------
// Access helpers (Zulip's access_user_by_id / can_admin_user)

/** Whether `me` may administer `target`: administrators, or the owner of a bot. */
export function canAdminUser(me: UserRow, target: UserRow): boolean {
  return target.bot_owner_id === me.id || isAdminRole(me.role);
}

export function insufficientPermission(): ApiError {
  return badRequest('Insufficient permission');
}

export async function accessUserById(
  svc: Services,
  me: UserRow,
  userId: number,
  opts: { allowDeactivated?: boolean; allowBots?: boolean; forAdmin: boolean },
): Promise<UserRow> {
  const target = await userById(svc.store.db, svc.realmId, userId);
  if (!target) throw noSuchUser();
  if (target.is_bot && !opts.allowBots) throw noSuchUser();
  if (!target.is_active && !opts.allowDeactivated) throw badRequest('User is deactivated');
  if (opts.forAdmin && !canAdminUser(me, target)) throw insufficientPermission();
  return target;
}

/** Whether `u` is the realm's only active human owner. */
export async function isLastOwner(svc: Services, u: UserRow, tx: Tx = svc.store.db): Promise<boolean> {
  if (u.role !== ROLE.OWNER || u.is_bot) return false;
  return (await countActiveOwners(tx, svc.realmId)) === 1;
}

async function reload(svc: Services, id: number): Promise<UserRow> {
  const u = await userById(svc.store.db, svc.realmId, id);
  if (!u) throw noSuchUser();
  return u;
}

// ---------------------------------------------------------------------------
// Creating users (POST /users)

export async function createUserByAdmin(
  svc: Services,
  me: UserRow,
  input: { email: string; password: string; fullName: string },
): Promise<{ user_id: number }> {
  if (!isAdminRole(me.role)) throw requireAdmin();
  const fullName = checkFullName(input.fullName);
  const email = input.email;
  if (!validEmail(email)) throw badRequest('Bad name or username');
  if (await userByDeliveryEmail(svc.store.db, svc.realmId, email)) throw badRequest(`Email '${email}' already in use`);
  if (!(await passwordStrongEnough(input.password))) throw badRequest('The password is too weak.');
  const user = await createUser(svc, { email, fullName, password: input.password, joinsOnFirstLogin: true });
  await greetNewUser(svc, user);
  return { user_id: user.id };
}

// ---------------------------------------------------------------------------
// Names and roles

/** Changes a user's (or bot's) full name and announces it. */
export async function changeFullName(svc: Services, target: UserRow, fullName: string): Promise<void> {
  await transaction(svc.store, (tx) => updateUser(tx, target.id, { full_name: fullName }));
  const person = { user_id: target.id, full_name: fullName };
  svc.bus.send({ type: 'realm_user', op: 'update', person }, await userIdsWhoCanAccess(svc, target));
}

/**
 * Runs `check` in the transaction, after the lock that role changes and
 * deactivations that must keep an owner (or a user) take: of two at the same
 * moment, the second sees what the first left.
 */
async function checkedInTransaction(svc: Services, tx: Tx, check: ((tx: Tx) => Promise<void>) | undefined): Promise<void> {
  if (!check) return;
  await lockUntilCommit(svc.store, tx, 'owners');
  await check(tx);
}

/** Changes a role (no permission checks: callers do them, `check` in the transaction) and announces it. */
export async function changeRole(svc: Services, target: UserRow, role: number, check?: (tx: Tx) => Promise<void>): Promise<void> {
  if (target.role === role) return;
  const before = await loadChannelContext(svc, svc.store.db);
  await transaction(svc.store, async (tx) => {
    await checkedInTransaction(svc, tx, check);
    await updateUser(tx, target.id, { role });
  });
  svc.bus.send(
    { type: 'realm_user', op: 'update', person: { user_id: target.id, role } },
    await userIdsWhoCanAccess(svc, target),
  );
  // Channels the new role can or can no longer see.
  await sendRoleChangeStreamEvents(svc, before, target);
}

/** The role-change permission rules shared by PATCH /users/{id} and PATCH /bots/{id}. */
export function checkRoleChangeAllowed(me: UserRow, target: UserRow, role: number): void {
  if ((role === ROLE.OWNER || target.role === ROLE.OWNER) && me.role !== ROLE.OWNER) throw requireOwner();
  if (!isAdminRole(me.role)) throw requireAdmin();
}

/** PATCH /users/{user_id}. */
export async function updateUserByAdmin(
  svc: Services,
  me: UserRow,
  userId: number,
  input: { fullName?: string; role?: number; profileData?: ProfileDataItem[] },
): Promise<void> {
  const target = await accessUserById(svc, me, userId, { allowDeactivated: true, allowBots: true, forAdmin: true });
  // Every check first, in Zulip's order (role, name, profile data): a
  // refused request changes nothing.
  const role = input.role !== undefined && input.role !== target.role ? input.role : undefined;
  const keepOwner = async (tx: Tx) => {
    if (await isLastOwner(svc, target, tx)) throw badRequest('The owner permission cannot be removed from the only organization owner.');
  };
  if (role !== undefined) {
    checkRoleChangeAllowed(me, target, role);
    await keepOwner(svc.store.db);
  }
  const name = input.fullName !== undefined && input.fullName !== target.full_name && input.fullName.trim() !== '' ? checkFullName(input.fullName) : undefined;
  if (input.profileData !== undefined) {
    if (!isAdminRole(me.role)) throw requireAdmin();
    await checkProfileData(svc, svc.store.db, me, target.id, input.profileData);
  }
  if (role !== undefined) await changeRole(svc, target, role, keepOwner);
  if (name !== undefined) await changeFullName(svc, target, name);
  if (input.profileData !== undefined) await updateProfileData(svc, me, target.id, input.profileData);
}

/** PATCH /users/{email}: the same update, the user named by an email as in GET /users/{email}. */
export async function updateUserByEmail(
  svc: Services,
  me: UserRow,
  email: string,
  input: { fullName?: string; role?: number; profileData?: ProfileDataItem[] },
): Promise<void> {
  const target = await userByGivenEmail(svc, me, email);
  if (!target) throw noSuchUser();
  await updateUserByAdmin(svc, me, target.id, input);
}

// ---------------------------------------------------------------------------
// Deactivation

export interface DeactivationActions {
  delete_profile: boolean;
  delete_public_channel_messages: boolean;
  delete_private_channel_messages: boolean;
  delete_direct_messages: boolean;
}

export const NO_DEACTIVATION_ACTIONS: DeactivationActions = {
  delete_profile: false,
  delete_public_channel_messages: false,
  delete_private_channel_messages: false,
  delete_direct_messages: false,
};

/** Ends every event queue of the user (Zulip deletes them on deactivation). */
function dropQueues(svc: Services, userId: number): Promise<void> {
  return svc.queues.deleteUserQueues(userId);
}

/**
 * Deactivates one account (bots it owns first, when `cascade`), with Zulip's
 * events: realm_user update is_active=false to every active user (since
 * feature level 474 a bot's managers get no realm_bot update for it).
 * Returns the deactivated accounts, bots first.
 */
export async function deactivateUser(svc: Services, target: UserRow, opts: { cascade?: boolean; check?: (tx: Tx) => Promise<void> } = {}): Promise<UserRow[]> {
  const done: UserRow[] = [];
  if (!target.is_active) return done;
  if (opts.cascade !== false) {
    for (const bot of await activeBotsOwnedBy(svc.store.db, target.id)) {
      done.push(...(await deactivateUser(svc, bot, { cascade: false })));
    }
  }
  const before = await loadChannelContext(svc, svc.store.db);
  const changed = await transaction(svc.store, async (tx) => {
    await checkedInTransaction(svc, tx, opts.check);
    const changed = await deactivateUserRow(tx, target.id);
    await endUserSessions(tx, target.id);
    return changed;
  });
  if (!changed) return done;
  const recipients = await userIdsWhoCanAccess(svc, target);
  svc.bus.send({ type: 'realm_user', op: 'update', person: { user_id: target.id, is_active: false } }, recipients);
  // The user leaves the subscriber lists of their channels.
  await sendActivationPeerEvents(svc, target.id, 'peer_remove', before);
  await dropQueues(svc, target.id);
  done.push({ ...target, is_active: 0 });
  return done;
}

/** actions.delete_profile: the "Deleted user" name and no picture. */
export async function deleteProfile(svc: Services, target: UserRow): Promise<void> {
  if (target.full_name !== DELETED_USER_NAME) await changeFullName(svc, target, DELETED_USER_NAME);
  if (target.avatar_source !== 'G') {
    const version = target.avatar_version + 1;
    await transaction(svc.store, (tx) => updateUser(tx, target.id, { avatar_source: 'G', avatar_version: version }));
    const u = await reload(svc, target.id);
    const url = avatarUrl(svc.config, u, false);
    const recipients = await userIdsWhoCanAccess(svc, u);
    svc.bus.send(
      {
        type: 'realm_user',
        op: 'update',
        person: { user_id: u.id, avatar_source: 'G', avatar_url: url, avatar_url_medium: url, avatar_version: version },
      },
      recipients,
    );
  }
}

/**
 * The message-deletion parts of DELETE /users/{id} `actions`
 * (delete_public_channel_messages, delete_private_channel_messages,
 * delete_direct_messages): deletes the messages these accounts sent, of
 * the chosen kinds, with the usual delete_message events.
 */
export async function deleteMessagesOfDeactivatedUsers(
  svc: Services,
  userIds: number[],
  flags: { publicChannels: boolean; privateChannels: boolean; directMessages: boolean },
): Promise<void> {
  const ids = await messageIdsBySenders(svc.store.db, svc.realmId, userIds, flags);
  await deleteMessages(svc, ids);
}

/** Applies the optional `actions` to the deactivated accounts: bots first, then the user. */
export async function applyDeactivationActions(svc: Services, accounts: UserRow[], actions: DeactivationActions): Promise<void> {
  if (actions.delete_profile) {
    for (const u of accounts) await deleteProfile(svc, await reload(svc, u.id));
  }
  if (actions.delete_public_channel_messages || actions.delete_private_channel_messages || actions.delete_direct_messages) {
    await deleteMessagesOfDeactivatedUsers(
      svc,
      accounts.map((u) => u.id),
      {
        publicChannels: actions.delete_public_channel_messages,
        privateChannels: actions.delete_private_channel_messages,
        directMessages: actions.delete_direct_messages,
      },
    );
  }
}

/** The notification email of DELETE /users/{id} with deactivation_notification_comment. */
export async function sendDeactivationEmail(svc: Services, target: UserRow, comment: string): Promise<void> {
  const realm = await realmById(svc.store.db, svc.realmId);
  const url = svc.config.externalUrl;
  const lines = [
    `Hello ${target.full_name},`,
    '',
    `Your account in the ${realm.name} organization (${url}) has been deactivated by an administrator.`,
  ];
  if (comment) lines.push('', 'The administrator provided the following comment:', '', comment);
  lines.push('', 'If you believe this was done in error, please contact an organization administrator.');
  await sendEmail(emailSettings(svc.config), {
    to: [target.delivery_email],
    subject: `Your account on ${url} has been deactivated`,
    text: lines.join('\n') + '\n',
    template: 'deactivate',
  });
}

/** DELETE /users/{user_id}. */
export async function deactivateUserByAdmin(
  svc: Services,
  me: UserRow,
  userId: number,
  input: { actions?: DeactivationActions; comment?: string },
): Promise<void> {
  if (!isAdminRole(me.role)) throw requireAdmin();
  const target = await accessUserById(svc, me, userId, { forAdmin: true });
  if (target.role === ROLE.OWNER && me.role !== ROLE.OWNER) throw requireOwner();
  const keepOwner = async (tx: Tx) => {
    if (await isLastOwner(svc, target, tx)) throw badRequest('Cannot deactivate the only organization owner');
  };
  await keepOwner(svc.store.db);
  const accounts = await deactivateUser(svc, target, { check: keepOwner });
  await applyDeactivationActions(svc, accounts, input.actions ?? NO_DEACTIVATION_ACTIONS);
  if (input.comment !== undefined) {
    // The account is already deactivated: a mail failure is logged, not reported to the caller.
    await sendDeactivationEmail(svc, target, input.comment.trim()).catch((err: unknown) => {
      svc.log.error({ err, userId: target.id }, 'deactivation email failed');
    });
  }
}

function cannotDeactivateLast(isLastOwnerFlag: boolean): ApiError {
  const entity = isLastOwnerFlag ? 'organization owner' : 'user';
  return new ApiError(`Cannot deactivate the only ${entity}.`, {
    code: 'CANNOT_DEACTIVATE_LAST_USER',
    extra: { is_last_owner: isLastOwnerFlag, entity },
  });
}

/** DELETE /users/me. */
export async function deactivateOwnUser(svc: Services, me: UserRow): Promise<void> {
  const keepUsers = async (tx: Tx) => {
    if ((await countActiveUsers(tx, svc.realmId)) === 1) throw cannotDeactivateLast(false);
    if (await isLastOwner(svc, me, tx)) throw cannotDeactivateLast(true);
  };
  await keepUsers(svc.store.db);
  await deactivateUser(svc, me, { check: keepUsers });
}

/** DELETE /bots/{bot_id} and other paths that deactivate one account without further checks. */
export async function deactivateAccount(svc: Services, target: UserRow): Promise<void> {
  await deactivateUser(svc, target);
}

// ---------------------------------------------------------------------------
// Reactivation

/**
 * Reactivates an account: realm_user update is_active=true to every active
 * user (and, for a bot whose owner is deactivated, the acting user becomes
 * the owner, with the owner change's events).
 */
export async function reactivateUser(svc: Services, target: UserRow, acting: UserRow | null): Promise<void> {
  const previousOwner = target.is_bot && target.bot_owner_id ? await userById(svc.store.db, svc.realmId, target.bot_owner_id) : undefined;
  const newOwner = previousOwner && !previousOwner.is_active && acting ? acting : undefined;
  await transaction(svc.store, (tx) => updateUser(tx, target.id, { is_active: 1, ...(newOwner ? { bot_owner_id: newOwner.id } : {}) }));
  const u = await reload(svc, target.id);
  svc.bus.send({ type: 'realm_user', op: 'update', person: { user_id: u.id, is_active: true } }, await userIdsWhoCanAccess(svc, u));
  // Back in the subscriber lists of their channels.
  await sendActivationPeerEvents(svc, u.id, 'peer_add', null);
  if (u.is_bot && newOwner) await sendBotOwnerEvents(svc, u, newOwner, previousOwner ?? null);
}

/** POST /users/{user_id}/reactivate. */
export async function reactivateUserByAdmin(svc: Services, me: UserRow, userId: number): Promise<void> {
  const target = await accessUserById(svc, me, userId, { allowDeactivated: true, allowBots: true, forAdmin: true });
  if (target.is_bot) {
    await checkBotCreationPolicy(svc, me, target.bot_type ?? 1);
  }
  await reactivateUser(svc, target, me);
}

// ---------------------------------------------------------------------------
// API keys

/**
 * Gives the account a new API key (the old one stops working) and ends its
 * web sessions, except `keepSession` (the session that asked for it). No
 * event: since feature level 474 clients ask for a bot's key when they need it.
 */
export async function regenerateApiKey(svc: Services, target: UserRow, keepSession?: string): Promise<string> {
  const apiKey = newApiKey();
  await transaction(svc.store, async (tx) => {
    await updateUser(tx, target.id, { api_key: apiKey });
    await endUserSessions(tx, target.id, keepSession);
  });
  return apiKey;
}

/** POST /users/me/api_key/regenerate. */
export async function regenerateOwnApiKey(svc: Services, me: UserRow, keepSession?: string): Promise<{ api_key: string }> {
  return { api_key: await regenerateApiKey(svc, me, keepSession) };
}
