/**
 * Personal topic preferences: POST /user_topics, the legacy
 * PATCH /users/me/subscriptions/muted_topics, and their events: `user_topic`
 * to the user, plus the legacy `muted_topics` list, which queues that asked
 * for user_topic events do not get (as in Zulip's event queue).
 */
import type { Services } from '../services.ts';
import type { Tx } from '../store/db.ts';
import { badRequest } from '../lib/errors.ts';
import { nowSeconds } from '../lib/util.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { normalizeTopic } from '../lib/topic.ts';
import { transaction } from '../store/db.ts';
import { realmById } from '../store/realm.ts';
import { streamById, streamByName, subscription, type StreamRow } from '../store/streams.ts';
import { userTopicRows } from '../store/messages.ts';
import { deleteUserTopic, insertUserTopic, updateUserTopic, userTopicOf } from '../store/user-topics.ts';
import type { UserRow } from '../store/users.ts';
import type { EventQueue, QueueFilter } from '../events/queue.ts';
import type { ZulipEvent } from '../events/types.ts';
import { streamAccess } from './access.ts';
import { Groups } from './group-settings.ts';

export const VISIBILITY_POLICY = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;
export const VISIBILITY_POLICIES = [0, 1, 2, 3] as const;

type ChannelRef = { id: number } | { name: string };

/** The channel for setting a policy: readable (Zulip's access_stream_by_id / _by_name). */
async function channelToSet(svc: Services, tx: Tx, user: UserRow, ref: ChannelRef): Promise<StreamRow> {
  const stream = 'id' in ref ? await streamById(tx, svc.realmId, ref.id) : await streamByName(tx, svc.realmId, ref.name);
  const error = 'id' in ref ? 'Invalid channel ID' : `Invalid channel name '${ref.name}'`;
  if (!stream) throw badRequest(error);
  const groups = await Groups.load(tx, svc.realmId);
  if (!streamAccess(user, stream, !!(await subscription(tx, user.id, stream.id)), groups).content) throw badRequest(error);
  return stream;
}

/** The channel for removing a policy: any channel of the organization (access may since have been lost). */
async function channelToClear(svc: Services, tx: Tx, ref: ChannelRef, error: string): Promise<StreamRow> {
  const stream = 'id' in ref ? await streamById(tx, svc.realmId, ref.id) : await streamByName(tx, svc.realmId, ref.name);
  if (!stream) throw badRequest(error);
  return stream;
}

/**
 * Sets the user's policy for a topic; a no-op (no event) when nothing
 * changes. The topic may have no messages.
 */
export async function setTopicPolicy(
  svc: Services,
  user: UserRow,
  ref: ChannelRef,
  topicIn: string,
  policy: number,
  opts: { clearError?: string } = {},
): Promise<void> {
  const max = svc.config.maxTopicLength;
  if ([...topicIn].length > max) throw badRequest(`topic is too long (limit: ${max} characters)`);
  const result = await transaction(svc.store, async (tx) => {
    const realm = await realmById(tx, svc.realmId);
    const emptyName = String(realmSettings(realm.settings_json).empty_topic_display_name);
    const topic = normalizeTopic(topicIn, emptyName);
    const stream =
      policy === VISIBILITY_POLICY.INHERIT
        ? await channelToClear(svc, tx, ref, opts.clearError ?? ('id' in ref ? 'Invalid channel ID' : `Invalid channel name '${ref.name}'`))
        : await channelToSet(svc, tx, user, ref);
    const current = await userTopicOf(tx, user.id, stream.id, topic);
    const now = nowSeconds();
    if (policy === VISIBILITY_POLICY.INHERIT) {
      if (!current) return null;
      await deleteUserTopic(tx, user.id, stream.id, topic);
    } else if (!current) {
      await insertUserTopic(tx, user.id, stream.id, topic, policy, now);
    } else if (current.visibility_policy === policy) {
      return null;
    } else {
      await updateUserTopic(tx, user.id, stream.id, topic, policy, now);
    }
    const muted = (await userTopicRows(tx, user.id))
      .filter((r) => r.visibility_policy === VISIBILITY_POLICY.MUTED)
      .map((r) => [r.stream_name, r.topic, Number(r.last_updated)]);
    return { streamId: stream.id, topic, now, muted, emptyName };
  });
  if (!result) return;
  const meta = { emptyTopicName: result.emptyName };
  svc.bus.send({ type: 'muted_topics', muted_topics: result.muted }, [user.id], { meta });
  svc.bus.send({ type: 'user_topic', stream_id: result.streamId, topic_name: result.topic, last_updated: result.now, visibility_policy: policy }, [user.id], { meta });
}

/** PATCH /users/me/subscriptions/muted_topics (deprecated): op add mutes, remove clears the policy. */
export async function updateMutedTopic(svc: Services, user: UserRow, input: { streamId?: number; stream?: string; topic: string; op: 'add' | 'remove' }): Promise<void> {
  if (input.streamId === undefined && input.stream === undefined) throw badRequest("Please supply 'stream'.");
  if (input.streamId !== undefined && input.stream !== undefined) throw badRequest("Please choose one: 'stream' or 'stream_id'.");
  const ref: ChannelRef = input.streamId !== undefined ? { id: input.streamId } : { name: input.stream! };
  if (input.op === 'add') await setTopicPolicy(svc, user, ref, input.topic, VISIBILITY_POLICY.MUTED);
  else await setTopicPolicy(svc, user, ref, input.topic, VISIBILITY_POLICY.INHERIT, { clearError: 'Topic is not muted' });
}

const namedTopic = (q: EventQueue, topic: unknown, emptyName: string | undefined): unknown =>
  topic === '' && emptyName !== undefined && !q.opts.clientCapabilities.empty_topic_name ? emptyName : topic;

/** user_topic: the empty topic is named for clients without the empty_topic_name capability. */
export const userTopicEventFilter: QueueFilter = (q, event, meta) => ({ ...event, topic_name: namedTopic(q, event.topic_name, meta.emptyTopicName) });

/** muted_topics: clients that asked for user_topic events get no legacy copies; empty topic named as above. */
export const mutedTopicsEventFilter: QueueFilter = (q, event, meta) => {
  if (q.opts.eventTypes?.has('user_topic')) return null;
  const list = (event.muted_topics as Array<[string, string, number]>).map(([s, t, d]) => [s, namedTopic(q, t, meta.emptyTopicName), d]);
  return { ...event, muted_topics: list };
};
