/** Channels (streams) and subscriptions: the SQL. */
import { sql, type Selectable } from 'kysely';
import type { Tx } from './db.ts';
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
    .where(sql`lower(name)`, '=', name.toLowerCase())
    .executeTakeFirst();
}

export async function allStreams(db: Tx, realmId: number): Promise<StreamRow[]> {
  return db.selectFrom('streams').selectAll().where('realm_id', '=', realmId).orderBy('id').execute();
}

/** Active subscription of one user to one channel. */
export async function subscription(db: Tx, userId: number, streamId: number): Promise<SubscriptionRow | undefined> {
  return db
    .selectFrom('subscriptions')
    .selectAll()
    .where('user_id', '=', userId)
    .where('stream_id', '=', streamId)
    .where('active', '=', 1)
    .executeTakeFirst();
}

/** User IDs of the active subscribers of a channel (active users only). */
export async function subscriberIds(db: Tx, streamId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('subscriptions')
    .innerJoin('users', 'users.id', 'subscriptions.user_id')
    .select('subscriptions.user_id')
    .where('subscriptions.stream_id', '=', streamId)
    .where('subscriptions.active', '=', 1)
    .where('users.is_active', '=', 1)
    .orderBy('subscriptions.user_id')
    .execute();
  return rows.map((r) => r.user_id);
}

/** Channel IDs the user is actively subscribed to. */
export async function subscribedStreamIds(db: Tx, userId: number): Promise<number[]> {
  const rows = await db.selectFrom('subscriptions').select('stream_id').where('user_id', '=', userId).where('active', '=', 1).execute();
  return rows.map((r) => r.stream_id);
}
