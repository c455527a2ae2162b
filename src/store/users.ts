/** User accounts and bots: all SQL about the users table. */
import { sql, type Selectable, type Insertable, type Updateable } from 'kysely';
import type { Db, Tx } from './db.ts';
import { RECIPIENT } from './messages.ts';
import type { UsersTable } from './schema.ts';
import { prepared, preparedIn } from './prepared.ts';

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserPatch = Updateable<UsersTable>;

export const ROLE = {
  OWNER: 100,
  ADMINISTRATOR: 200,
  MODERATOR: 300,
  MEMBER: 400,
  GUEST: 600,
} as const;

export const BOT_TYPE = {
  GENERIC: 1,
  INCOMING_WEBHOOK: 2,
  OUTGOING_WEBHOOK: 3,
  EMBEDDED: 4,
} as const;

export async function userByApiKey(db: Tx, apiKey: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('api_key', '=', apiKey).executeTakeFirst();
}

export async function userById(db: Tx, realmId: number, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).where('realm_id', '=', realmId).executeTakeFirst();
}

/** Finds a user by delivery email or public email, case-insensitively (the lowest ID when both match). */
export async function userByEmail(db: Tx, realmId: number, email: string): Promise<UserRow | undefined> {
  // One lookup per column, each by its index: asked with OR in one query,
  // SQLite read every user of the organization instead.
  const byColumn = (column: 'delivery_email' | 'email') =>
    db
      .selectFrom('users')
      .selectAll()
      .where('realm_id', '=', realmId)
      .where(sql`lower(${sql.ref(column)})`, '=', sql`lower(${email})`)
      .orderBy('id')
      .executeTakeFirst();
  const byDelivery = await byColumn('delivery_email');
  const byShown = await byColumn('email');
  return byDelivery && byShown ? (byDelivery.id < byShown.id ? byDelivery : byShown) : (byDelivery ?? byShown);
}

/**
 * An account's first login, if it joins then (see joins_on_first_login):
 * date_joined becomes `now`. False when the mark was already gone (another
 * login took it).
 */
export async function claimFirstLogin(db: Tx, userId: number, now: number): Promise<boolean> {
  const r = await db
    .updateTable('users')
    .set({ date_joined: now, joins_on_first_login: 0 })
    .where('id', '=', userId)
    .where('joins_on_first_login', '=', 1)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Finds a user by the email the API shows (`email`: the real address or a dummy one), case-insensitively. */
export async function userByApiEmail(db: Tx, realmId: number, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('realm_id', '=', realmId).where(sql`lower(email)`, '=', sql`lower(${email})`).executeTakeFirst();
}

export async function allUsers(db: Tx, realmId: number): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().where('realm_id', '=', realmId).orderBy('id').execute();
}

const rowVersionsQuery = prepared((db) => db.selectFrom('users').select(['id', 'row_version']).where('realm_id', '=', 0).orderBy('id'));

/** Every account's ID and row version (moved by each change to its row), by ID order. */
export async function userRowVersions(db: Tx, realmId: number): Promise<Array<{ id: number; row_version: number }>> {
  return rowVersionsQuery(db, realmId);
}

const usersByIdsQuery = preparedIn((db, ids) => db.selectFrom('users').selectAll().where('realm_id', '=', 0).where('id', 'in', ids));

/** These accounts of the organization (those that exist), by ID order. */
export async function usersByIds(db: Tx, realmId: number, ids: readonly number[]): Promise<UserRow[]> {
  if (ids.length === 0) return [];
  return (await usersByIdsQuery(db, [realmId], ids)).sort((a, b) => a.id - b.id);
}

export async function botsOwnedBy(db: Tx, ownerId: number): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().where('bot_owner_id', '=', ownerId).orderBy('id').execute();
}

export async function activeUserIds(db: Tx, realmId: number): Promise<number[]> {
  const rows = await db.selectFrom('users').select('id').where('realm_id', '=', realmId).where('is_active', '=', 1).execute();
  return rows.map((r) => r.id);
}

/** The organization's active owners (bots aside), a query to finish. */
const activeOwners = (db: Tx, realmId: number) =>
  db.selectFrom('users').where('realm_id', '=', realmId).where('is_active', '=', 1).where('is_bot', '=', 0).where('role', '=', ROLE.OWNER);

/** The organization's first active owner (the one the first start made, unless gone). */
export async function firstActiveOwner(db: Tx, realmId: number): Promise<UserRow | undefined> {
  return activeOwners(db, realmId).selectAll().orderBy('id').limit(1).executeTakeFirst();
}

export async function countActiveOwners(db: Tx, realmId: number): Promise<number> {
  const row = await activeOwners(db, realmId)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertUser(db: Tx, user: NewUser): Promise<UserRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
}

export async function updateUser(db: Tx, id: number, patch: UserPatch): Promise<void> {
  await db.updateTable('users').set(patch).where('id', '=', id).execute();
}

/** Deactivates an active user; false when the user was already inactive (a concurrent deactivation won). */
export async function deactivateUserRow(db: Tx, id: number): Promise<boolean> {
  const res = await db.updateTable('users').set({ is_active: 0 }).where('id', '=', id).where('is_active', '=', 1).executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export async function emailTaken(db: Tx, realmId: number, email: string): Promise<boolean> {
  return (await userByEmail(db, realmId, email)) !== undefined;
}

/** Active human administrators and owners. */
export async function adminUserIds(db: Tx, realmId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('realm_id', '=', realmId)
    .where('is_active', '=', 1)
    .where('is_bot', '=', 0)
    .where('role', '<=', ROLE.ADMINISTRATOR)
    .execute();
  return rows.map((r) => r.id);
}

/** Active bots owned by a user (deactivated first when the owner is). */
export async function activeBotsOwnedBy(db: Tx, ownerId: number): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().where('bot_owner_id', '=', ownerId).where('is_active', '=', 1).where('is_bot', '=', 1).orderBy('id').execute();
}

/** Active accounts, bots included, but not the system bots (Zulip keeps those in a realm of their own). */
export async function countActiveUsers(db: Tx, realmId: number): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('realm_id', '=', realmId)
    .where('is_active', '=', 1)
    .where('is_system_bot', '=', 0)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Whether an active account already uses this full name (Zulip's bot name check). */
export async function activeNameTaken(db: Tx, realmId: number, fullName: string): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('realm_id', '=', realmId)
    .where('is_active', '=', 1)
    .where('full_name', '=', fullName)
    .executeTakeFirst();
  return row !== undefined;
}

/** Finds a user by delivery email exactly (case-insensitively), as Zulip's get_user_by_delivery_email. */
export async function userByDeliveryEmail(db: Tx, realmId: number, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('realm_id', '=', realmId)
    .where(sql`lower(delivery_email)`, '=', sql`lower(${email})`)
    .executeTakeFirst();
}

/** Inserts a system bot (is_system_bot = 1): generic bot, no owner, empty settings. */
export async function insertSystemBot(db: Tx, realmId: number, email: string, fullName: string, apiKey: string): Promise<UserRow> {
  return insertUser(db, {
    realm_id: realmId,
    email,
    delivery_email: email,
    full_name: fullName,
    api_key: apiKey,
    role: ROLE.MEMBER,
    is_bot: 1,
    bot_type: BOT_TYPE.GENERIC,
    date_joined: Math.floor(Date.now() / 1000),
    is_system_bot: 1,
  });
}

/**
 * Users who share a conversation with `userId`: an active subscription to a
 * channel it is subscribed to (active accounts only), membership of one of
 * its direct-message groups, or a one-to-one direct message either way
 * (deactivated accounts too for these two when asked). Zulip's basis for
 * which users a guest restricted by can_access_all_users_group may see
 * (get_accessible_user_ids: subscribers of its channels and groups, and the
 * users involved in its one-to-one direct messages).
 */
export async function userIdsSharingConversations(db: Tx, userId: number, opts: { deactivatedDirectPartners: boolean }): Promise<Set<number>> {
  const viaChannels = await db
    .selectFrom('subscriptions as mine')
    .innerJoin('subscriptions as theirs', 'theirs.stream_id', 'mine.stream_id')
    .innerJoin('users', 'users.id', 'theirs.user_id')
    .select('theirs.user_id')
    .distinct()
    .where('mine.user_id', '=', userId)
    .where('mine.active', '=', 1)
    .where('theirs.active', '=', 1)
    .where('users.is_active', '=', 1)
    .execute();
  let groups = db
    .selectFrom('direct_group_members as mine')
    .innerJoin('direct_group_members as theirs', 'theirs.group_id', 'mine.group_id')
    .innerJoin('users', 'users.id', 'theirs.user_id')
    .select('theirs.user_id')
    .distinct()
    .where('mine.user_id', '=', userId);
  // One-to-one direct messages: a message's recipient_id is the other user's ID.
  let sentTo = db
    .selectFrom('messages')
    .innerJoin('users', 'users.id', 'messages.recipient_id')
    .select('messages.recipient_id as user_id')
    .distinct()
    .where('messages.sender_id', '=', userId)
    .where('messages.recipient_type', '=', RECIPIENT.PERSONAL);
  let receivedFrom = db
    .selectFrom('messages')
    .innerJoin('users', 'users.id', 'messages.sender_id')
    .select('messages.sender_id as user_id')
    .distinct()
    .where('messages.recipient_type', '=', RECIPIENT.PERSONAL)
    .where('messages.recipient_id', '=', userId);
  if (!opts.deactivatedDirectPartners) {
    groups = groups.where('users.is_active', '=', 1);
    sentTo = sentTo.where('users.is_active', '=', 1);
    receivedFrom = receivedFrom.where('users.is_active', '=', 1);
  }
  const viaGroups = await groups.execute();
  const viaDirect = [...(await sentTo.execute()), ...(await receivedFrom.execute())];
  return new Set([...viaChannels, ...viaGroups, ...viaDirect].map((r) => r.user_id));
}
