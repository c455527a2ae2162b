/**
 * Personal topic preferences: POST /user_topics, the legacy
 * PATCH /users/me/subscriptions/muted_topics, and their events: `user_topic`
 * to the user, plus the legacy `muted_topics` list, which queues that asked
 * for user_topic events do not get (as in Zulip's event queue).
 */
import { lockUserRowsOf } from '../store/locks.ts';
import { cachedGroups } from './cache.ts';
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
import { deleteUserTopic, insertUserTopic, topicPolicyRows, updateUserTopic, userTopicOf } from '../store/user-topics.ts';
import type { UserRow } from '../store/users.ts';
import type { EventQueue, QueueFilter } from '../events/queue.ts';
import type { EventMeta, ZulipEvent } from '../events/types.ts';
import { streamAccess } from './access.ts';

/** An event of a changed topic policy, its recipients and its routing data. */
export type TopicPolicyEvent = [ZulipEvent, number[], EventMeta];

export const VISIBILITY_POLICY = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;
export const VISIBILITY_POLICIES = [0, 1, 2, 3] as const;

type ChannelRef = { id: number } | { name: string };

/** The channel for setting a policy: readable (Zulip's access_stream_by_id / _by_name). */
async function channelToSet(svc: Services, tx: Tx, user: UserRow, ref: ChannelRef): Promise<StreamRow> {
  const stream = 'id' in ref ? await streamById(tx, svc.realmId, ref.id) : await streamByName(tx, svc.realmId, ref.name);
  const error = 'id' in ref ? 'Invalid channel ID' : `Invalid channel name '${ref.name}'`;
  if (!stream) throw badRequest(error);
  const groups = await cachedGroups(svc, tx);
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
    await lockUserRowsOf(svc.store, tx, user.id);
    const realm = await realmById(tx, svc.realmId);
    const emptyName = String(realmSettings(realm.settings_json).empty_topic_display_name);
    const topic = normalizeTopic(topicIn, emptyName);
    const stream =
      policy === VISIBILITY_POLICY.INHERIT
        ? await channelToClear(svc, tx, ref, opts.clearError ?? ('id' in ref ? 'Invalid channel ID' : `Invalid channel name '${ref.name}'`))
        : await channelToSet(svc, tx, user, ref);
    const now = nowSeconds();
    if (!(await setTopicPolicyTx(tx, user.id, stream.id, topic, policy, now))) return null;
    return { events: await topicPolicyEvents(tx, user.id, [{ streamId: stream.id, topic, policy }], now, emptyName) };
  });
  if (!result) return;
  for (const [event, users, meta] of result.events) svc.bus.send(event, users, { meta });
}

/** Stores a user's policy for a topic (INHERIT deletes it); false when nothing changed. */
export async function setTopicPolicyTx(tx: Tx, userId: number, streamId: number, topic: string, policy: number, now: number): Promise<boolean> {
  const current = await userTopicOf(tx, userId, streamId, topic);
  if (policy === VISIBILITY_POLICY.INHERIT) {
    if (!current) return false;
    await deleteUserTopic(tx, userId, streamId, topic);
  } else if (!current) {
    await insertUserTopic(tx, userId, streamId, topic, policy, now);
  } else if (current.visibility_policy === policy) {
    return false;
  } else {
    await updateUserTopic(tx, userId, streamId, topic, policy, now);
  }
  return true;
}

/**
 * The events of a user's changed topic policies: the legacy `muted_topics`
 * list (once, as it is after the changes) and a `user_topic` per change.
 */
export async function topicPolicyEvents(
  tx: Tx,
  userId: number,
  changes: Array<{ streamId: number; topic: string; policy: number }>,
  now: number,
  emptyName: string,
): Promise<TopicPolicyEvent[]> {
  if (!changes.length) return [];
  const meta: EventMeta = { emptyTopicName: emptyName };
  const muted = (await userTopicRows(tx, userId))
    .filter((r) => r.visibility_policy === VISIBILITY_POLICY.MUTED)
    .map((r) => [r.stream_name, r.topic, Number(r.last_updated)]);
  const out: TopicPolicyEvent[] = [[{ type: 'muted_topics', muted_topics: muted }, [userId], meta]];
  for (const c of changes) {
    out.push([{ type: 'user_topic', stream_id: c.streamId, topic_name: c.topic, last_updated: now, visibility_policy: c.policy }, [userId], meta]);
  }
  return out;
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

/** Zulip's get_visibility_policy_after_merge: the more visible of two policies wins. */
function policyAfterMerge(orig: number, target: number): number {
  if (orig === target) return orig;
  if (orig === VISIBILITY_POLICY.UNMUTED || target === VISIBILITY_POLICY.UNMUTED) return VISIBILITY_POLICY.UNMUTED;
  return VISIBILITY_POLICY.INHERIT;
}

/**
 * When a whole topic moves (Zulip's do_update_message with
 * moved_all_visible_messages), users' policies go with it: removed for users
 * who lose access to the messages, moved to the new topic for the others,
 * merged with a policy they had there when the target topic already had
 * messages. Called inside the move's transaction; returns the events.
 */
export async function moveTopicPolicies(
  tx: Tx,
  m: { origStreamId: number; origTopic: string; targetStreamId: number; targetTopic: string; targetHadMessages: boolean; losingAccess: Set<number>; now: number; emptyName: string },
): Promise<TopicPolicyEvent[]> {
  const orig = new Map<number, number>();
  const target = new Map<number, number>();
  const changes = new Map<number, Array<{ streamId: number; topic: string; policy: number }>>();
  const change = (userId: number, streamId: number, topic: string, policy: number) => {
    const list = changes.get(userId) ?? [];
    list.push({ streamId, topic, policy });
    changes.set(userId, list);
  };
  for (const r of await topicPolicyRows(tx, m.origStreamId, m.origTopic)) {
    if (m.origStreamId !== m.targetStreamId && m.losingAccess.has(r.user_id)) {
      // The messages left for a channel the user cannot read: as if deleted for them.
      if (await setTopicPolicyTx(tx, r.user_id, m.origStreamId, m.origTopic, VISIBILITY_POLICY.INHERIT, m.now)) change(r.user_id, m.origStreamId, m.origTopic, VISIBILITY_POLICY.INHERIT);
    } else {
      orig.set(r.user_id, r.visibility_policy);
    }
  }
  for (const r of await topicPolicyRows(tx, m.targetStreamId, m.targetTopic)) target.set(r.user_id, r.visibility_policy);
  for (const userId of new Set([...orig.keys(), ...target.keys()])) {
    const o = orig.get(userId) ?? VISIBILITY_POLICY.INHERIT;
    const t = target.get(userId) ?? VISIBILITY_POLICY.INHERIT;
    if (o === t) continue;
    if (o !== VISIBILITY_POLICY.INHERIT && (await setTopicPolicyTx(tx, userId, m.origStreamId, m.origTopic, VISIBILITY_POLICY.INHERIT, m.now))) {
      change(userId, m.origStreamId, m.origTopic, VISIBILITY_POLICY.INHERIT);
    }
    const next = m.targetHadMessages ? policyAfterMerge(o, t) : o;
    if (next === t) continue;
    if (await setTopicPolicyTx(tx, userId, m.targetStreamId, m.targetTopic, next, m.now)) change(userId, m.targetStreamId, m.targetTopic, next);
  }
  const events: TopicPolicyEvent[] = [];
  for (const [userId, list] of changes) events.push(...(await topicPolicyEvents(tx, userId, list, m.now, m.emptyName)));
  return events;
}

/** Zulip's AUTOMATICALLY_CHANGE_VISIBILITY_POLICY_* setting values. */
const AUTO = { ON_PARTICIPATION: 1, ON_SEND: 2, ON_INITIATION: 3, NEVER: 4 } as const;

/**
 * Zulip's visibility_policy_for_send_message: the policy a channel message
 * gives its sender's topic under their automatically_follow_topics_policy and
 * automatically_unmute_topics_in_muted_streams_policy settings (null: none
 * that makes the topic more visible). `initiated`: no older message in the
 * topic the sender can see.
 */
export function policyForSentMessage(settings: Record<string, unknown>, current: number, streamMuted: boolean, initiated: () => Promise<boolean>): Promise<number | null> | number | null {
  if (current === VISIBILITY_POLICY.FOLLOWED) return null;
  const follow = settings.automatically_follow_topics_policy;
  const unmute = settings.automatically_unmute_topics_in_muted_streams_policy;
  if (follow === AUTO.ON_PARTICIPATION || follow === AUTO.ON_SEND) return VISIBILITY_POLICY.FOLLOWED;
  let policy: number | null = streamMuted && (unmute === AUTO.ON_PARTICIPATION || unmute === AUTO.ON_SEND) ? VISIBILITY_POLICY.UNMUTED : null;
  // A topic with a policy of its own was not just started.
  if (current !== VISIBILITY_POLICY.INHERIT) return policy !== null && policy === current ? null : policy;
  if (follow !== AUTO.ON_INITIATION && !(streamMuted && unmute === AUTO.ON_INITIATION)) return policy;
  return initiated().then((first) => {
    if (first && follow === AUTO.ON_INITIATION) return VISIBILITY_POLICY.FOLLOWED;
    if (first && streamMuted && unmute === AUTO.ON_INITIATION) policy = VISIBILITY_POLICY.UNMUTED;
    return policy;
  });
}

/**
 * After a channel message is stored (inside the sending transaction): the
 * sender's automatic follow/unmute of the topic, and "follow topics where
 * mentioned" for the mentioned users. Returns the policy set for the sender
 * (the message event's automatic_new_visibility_policy) and the events.
 */
export async function applyAutomaticTopicPolicies(
  tx: Tx,
  a: {
    sender: UserRow;
    senderSettings: Record<string, unknown>;
    streamId: number;
    topic: string;
    streamMuted: boolean;
    /** Whether the sender sees no earlier message in the topic. */
    initiated: () => Promise<boolean>;
    /** Each user's visibility policy for the topic before this message (cachedTopicPolicies). */
    policies: ReadonlyMap<number, number>;
    mentioned: Array<{ user: UserRow; settings: Record<string, unknown> }>;
    now: number;
    emptyName: string;
  },
): Promise<{ senderPolicy: number | null; events: TopicPolicyEvent[] }> {
  const events: TopicPolicyEvent[] = [];
  let senderPolicy: number | null = null;
  const follow = a.senderSettings.automatically_follow_topics_policy;
  const unmute = a.senderSettings.automatically_unmute_topics_in_muted_streams_policy;
  if (!a.sender.is_bot && !(follow === AUTO.NEVER && unmute === AUTO.NEVER)) {
    const current = a.policies.get(a.sender.id) ?? VISIBILITY_POLICY.INHERIT;
    const next = await policyForSentMessage(a.senderSettings, current, a.streamMuted, a.initiated);
    if (next !== null && (await setTopicPolicyTx(tx, a.sender.id, a.streamId, a.topic, next, a.now))) {
      senderPolicy = next;
      events.push(...(await topicPolicyEvents(tx, a.sender.id, [{ streamId: a.streamId, topic: a.topic, policy: next }], a.now, a.emptyName)));
    }
  }
  for (const m of a.mentioned) {
    if (m.user.id === a.sender.id || m.user.is_bot || !m.user.is_active || m.settings.automatically_follow_topics_where_mentioned === false) continue;
    // Each user is mentioned once, and only their own policy is written: `policies` is still theirs.
    const current = a.policies.get(m.user.id);
    if (current === VISIBILITY_POLICY.MUTED || current === VISIBILITY_POLICY.FOLLOWED) continue;
    if (await setTopicPolicyTx(tx, m.user.id, a.streamId, a.topic, VISIBILITY_POLICY.FOLLOWED, a.now)) {
      events.push(...(await topicPolicyEvents(tx, m.user.id, [{ streamId: a.streamId, topic: a.topic, policy: VISIBILITY_POLICY.FOLLOWED }], a.now, a.emptyName)));
    }
  }
  return { senderPolicy, events };
}
