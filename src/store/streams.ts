/** Channels (streams) and subscriptions: the SQL. */
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Tx } from './db.ts';
import { prepared } from './prepared.ts';
import type { StreamsTable, SubscriptionsTable } from './schema.ts';

export type StreamRow = Selectable<StreamsTable>;
export type SubscriptionRow = Selectable<SubscriptionsTable>;

export async function streamById(db: Tx, realmId: number, id: number): Promise<StreamRow | undefined> {
  return db.selectFrom('streams').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst();
}

export async function streamByName(db: Tx, realmId: number, name: string): Promise<StreamRow | undefined> {
  return db
    .selectFrom('streams')
    .selectAll()
    .where('realm_id', '=', realmId)
    .where(sql`lower(name)`, '=', sql`lower(${name})`)
    .executeTakeFirst();
}

/** Whether the organization has any channel at all (archived ones count). */
export async function hasAnyChannel(db: Tx, realmId: number): Promise<boolean> {
  return (await db.selectFrom('streams').select('id').where('realm_id', '=', realmId).limit(1).executeTakeFirst()) !== undefined;
}

export async function allStreams(db: Tx, realmId: number): Promise<StreamRow[]> {
  return db.selectFrom('streams').selectAll().where('realm_id', '=', realmId).orderBy('id').execute();
}

/** Active subscription of one user to one channel. */
const subscriptionQuery = prepared((db) => db.selectFrom('subscriptions').selectAll().where('user_id', '=', 0).where('stream_id', '=', 0).where('active', '=', 1));

export async function subscription(db: Tx, userId: number, streamId: number): Promise<SubscriptionRow | undefined> {
  return (await subscriptionQuery(db, userId, streamId, 1))[0];
}

/** User IDs of the active subscribers of a channel (active users only). */
const subscriberIdsQuery = prepared((db) =>
  db
    .selectFrom('subscriptions')
    .innerJoin('users', 'users.id', 'subscriptions.user_id')
    .select('subscriptions.user_id')
    .where('subscriptions.stream_id', '=', 0)
    .where('subscriptions.active', '=', 1)
    .where('users.is_active', '=', 1)
    .orderBy('subscriptions.user_id'),
);

export async function subscriberIds(db: Tx, streamId: number): Promise<number[]> {
  const rows = await subscriberIdsQuery(db, streamId, 1, 1);
  return rows.map((r) => r.user_id);
}

/** A subscriber's settings that decide how they are notified of a channel message. */
export interface SubscriberNotificationRow {
  user_id: number;
  is_muted: number;
  email_notifications: number | null;
  wildcard_mentions_notify: number | null;
}

const subscriberNotificationQuery = prepared((db) =>
  db
    .selectFrom('subscriptions')
    .select(['user_id', 'is_muted', 'email_notifications', 'wildcard_mentions_notify'])
    .where('stream_id', '=', 0)
    .where('active', '=', 1)
    .orderBy('user_id'),
);

/**
 * The active subscriptions of a channel (by user ID) with their notification
 * settings, deactivated users' included: callers leave those out with the
 * users they hold (joined to the users table here, each subscriber's whole
 * row would be read).
 */
export async function subscribersWithNotificationSettings(db: Tx, streamId: number): Promise<SubscriberNotificationRow[]> {
  return subscriberNotificationQuery(db, streamId, 1);
}

/** The channels the user is subscribed to and has muted. */
export async function mutedStreamIds(db: Tx, userId: number): Promise<Set<number>> {
  const rows = await db.selectFrom('subscriptions').select('stream_id').where('user_id', '=', userId).where('active', '=', 1).where('is_muted', '=', 1).execute();
  return new Set(rows.map((r) => r.stream_id));
}

/** Channel IDs the user is actively subscribed to. */
export async function subscribedStreamIds(db: Tx, userId: number): Promise<number[]> {
  const rows = await db.selectFrom('subscriptions').select('stream_id').where('user_id', '=', userId).where('active', '=', 1).execute();
  return rows.map((r) => r.stream_id);
}

export type NewStream = Insertable<StreamsTable>;
export type StreamPatch = Updateable<StreamsTable>;
export type SubscriptionPatch = Updateable<SubscriptionsTable>;

export async function insertStream(db: Tx, row: NewStream): Promise<StreamRow> {
  return db.insertInto('streams').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateStream(db: Tx, id: number, patch: StreamPatch): Promise<void> {
  await db.updateTable('streams').set(patch).where('id', '=', id).execute();
}

export async function streamsByIds(db: Tx, realmId: number, ids: number[]): Promise<StreamRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('streams').selectAll().where('realm_id', '=', realmId).where('id', 'in', ids).orderBy('id').execute();
}

/** Every subscription row of a user (active and former), with its channel. */
export async function subscriptionRowsOfUser(db: Tx, userId: number): Promise<SubscriptionRow[]> {
  return db.selectFrom('subscriptions').selectAll().where('user_id', '=', userId).orderBy('stream_id').execute();
}

/** Subscription row (active or not) of one user to one channel. */
export async function subscriptionRow(db: Tx, userId: number, streamId: number): Promise<SubscriptionRow | undefined> {
  return db.selectFrom('subscriptions').selectAll().where('user_id', '=', userId).where('stream_id', '=', streamId).executeTakeFirst();
}

/**
 * Active (user, channel) subscriptions of the realm's channels, by user ID,
 * deactivated users' included (callers that want active users only filter
 * with the users they hold: reading each subscriber's row here would read
 * the users table, settings and all).
 */
export async function activeSubscriptionPairs(db: Tx, realmId: number): Promise<Array<{ stream_id: number; user_id: number }>> {
  return db
    .selectFrom('subscriptions')
    .innerJoin('streams', 'streams.id', 'subscriptions.stream_id')
    .select(['subscriptions.stream_id', 'subscriptions.user_id'])
    .where('streams.realm_id', '=', realmId)
    .where('subscriptions.active', '=', 1)
    .orderBy('subscriptions.user_id')
    .execute();
}

/** Creates a subscription or reactivates a former one (keeping its personal settings). */
export async function activateSubscription(db: Tx, userId: number, streamId: number, color: string): Promise<void> {
  const existing = await subscriptionRow(db, userId, streamId);
  if (existing) {
    await db.updateTable('subscriptions').set({ active: 1 }).where('id', '=', existing.id).execute();
  } else {
    await db
      .insertInto('subscriptions')
      .values({
        user_id: userId,
        stream_id: streamId,
        active: 1,
        color,
        desktop_notifications: null,
        audible_notifications: null,
        push_notifications: null,
        email_notifications: null,
        wildcard_mentions_notify: null,
      })
      .execute();
  }
}

export async function deactivateSubscription(db: Tx, userId: number, streamId: number): Promise<void> {
  await db.updateTable('subscriptions').set({ active: 0 }).where('user_id', '=', userId).where('stream_id', '=', streamId).execute();
}

export async function updateSubscription(db: Tx, userId: number, streamId: number, patch: SubscriptionPatch): Promise<void> {
  await db.updateTable('subscriptions').set(patch).where('user_id', '=', userId).where('stream_id', '=', streamId).execute();
}

/** Colours the user's subscriptions (active or not) already use. */
export async function usedColors(db: Tx, userId: number): Promise<Map<number, string>> {
  const rows = await db.selectFrom('subscriptions').select(['stream_id', 'color']).where('user_id', '=', userId).execute();
  return new Map(rows.map((r) => [r.stream_id, r.color]));
}

/** Per-channel message statistics: first message ID, messages since `since`, newest message time. */
export async function channelMessageStats(
  db: Tx,
  realmId: number,
  since: number,
): Promise<Map<number, { first: number | null; recent: number; last: number | null }>> {
  const rows = await db
    .selectFrom('messages')
    .select((eb) => [
      'recipient_id',
      eb.fn.min('id').as('first'),
      eb.fn.max('date_sent').as('last'),
      eb.fn.sum<number>(eb.case().when('date_sent', '>=', since).then(1).else(0).end()).as('recent'),
    ])
    .where('realm_id', '=', realmId)
    .where('recipient_type', '=', 2)
    .groupBy('recipient_id')
    .execute();
  return new Map(rows.map((r) => [r.recipient_id, { first: r.first === null ? null : Number(r.first), recent: Number(r.recent ?? 0), last: r.last === null ? null : Number(r.last) }]));
}

/** Whether the channel has any message in a non-empty topic. */
export async function channelHasNamedTopics(db: Tx, streamId: number): Promise<boolean> {
  const row = await db
    .selectFrom('messages')
    .select('id')
    .where('recipient_type', '=', 2)
    .where('recipient_id', '=', streamId)
    .where('topic', '!=', '')
    .limit(1)
    .executeTakeFirst();
  return !!row;
}

/**
 * Users active since `since`: by presence (when the presence table exists)
 * or by having sent a message. Call outside a transaction.
 */
export async function recentlyActiveUserIds(db: Tx, realmId: number, since: number): Promise<Set<number>> {
  const msgs = await db.selectFrom('messages').select('sender_id').distinct().where('realm_id', '=', realmId).where('date_sent', '>=', since).execute();
  const out = new Set(msgs.map((r) => r.sender_id));
  try {
    const pres = await sql<{ user_id: number }>`SELECT user_id FROM user_presence WHERE realm_id = ${realmId} AND last_active_time >= ${since}`.execute(db);
    for (const r of pres.rows) out.add(Number(r.user_id));
  } catch {
    // No presence data yet.
  }
  return out;
}
