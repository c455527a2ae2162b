/**
 * Personal topic preferences (user_topics): the SQL. Topics compare
 * case-insensitively, as in Zulip; a row keeps the spelling it was created with.
 */
import { sql } from 'kysely';
import type { Tx } from './db.ts';
import { prepared } from './prepared.ts';

export interface UserTopicRow {
  stream_id: number;
  topic: string;
  visibility_policy: number;
  last_updated: number;
}

export async function userTopicOf(db: Tx, userId: number, streamId: number, topic: string): Promise<UserTopicRow | undefined> {
  const r = await db
    .selectFrom('user_topics')
    .select(['stream_id', 'topic', 'visibility_policy', 'last_updated'])
    .where('user_id', '=', userId)
    .where('stream_id', '=', streamId)
    .where(sql`lower(topic)`, '=', sql`lower(${topic})`)
    .executeTakeFirst();
  return r ? { ...r, last_updated: Number(r.last_updated) } : undefined;
}

/**
 * A row for a topic the user has none for. When a concurrent transaction
 * has just made one (two first messages to a new topic, each following it
 * for its sender), that one stays and this does nothing.
 */
export async function insertUserTopic(db: Tx, userId: number, streamId: number, topic: string, policy: number, lastUpdated: number): Promise<void> {
  await db
    .insertInto('user_topics')
    .values({ user_id: userId, stream_id: streamId, topic, visibility_policy: policy, last_updated: lastUpdated })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function updateUserTopic(db: Tx, userId: number, streamId: number, topic: string, policy: number, lastUpdated: number): Promise<void> {
  await db
    .updateTable('user_topics')
    .set({ visibility_policy: policy, last_updated: lastUpdated })
    .where('user_id', '=', userId)
    .where('stream_id', '=', streamId)
    .where(sql`lower(topic)`, '=', sql`lower(${topic})`)
    .execute();
}

export async function deleteUserTopic(db: Tx, userId: number, streamId: number, topic: string): Promise<void> {
  await db
    .deleteFrom('user_topics')
    .where('user_id', '=', userId)
    .where('stream_id', '=', streamId)
    .where(sql`lower(topic)`, '=', sql`lower(${topic})`)
    .execute();
}

/** Every user's policy for a topic (compared case-insensitively). */
export async function topicPolicyRows(db: Tx, streamId: number, topic: string): Promise<Array<{ user_id: number; visibility_policy: number }>> {
  return db
    .selectFrom('user_topics')
    .select(['user_id', 'visibility_policy'])
    .where('stream_id', '=', streamId)
    .where(sql`lower(topic)`, '=', sql`lower(${topic})`)
    .orderBy('user_id')
    .execute();
}

const channelTopicPolicyRowsQuery = prepared((db) => db.selectFrom('user_topics').select(['user_id', 'visibility_policy', 'topic']).where('stream_id', '=', 0));

/** Every user's policy for every topic of a channel (one query, by the user_topics_stream index). */
export async function channelTopicPolicyRows(db: Tx, streamId: number): Promise<Array<{ user_id: number; visibility_policy: number; topic: string }>> {
  return channelTopicPolicyRowsQuery(db, streamId);
}
