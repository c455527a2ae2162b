/**
 * Zulip's "next unread" keys: `n` opens the next topic with unread messages,
 * `p` the next direct-message conversation with unread messages, in the
 * order Zulip's web app goes through them. Topics: the channels in the left
 * sidebar's order (pinned first, then by name) from the channel in view
 * round to it again, each channel's topics newest first (by their newest
 * message); in the channel in view, the topics after the one in view (older
 * ones) first, then the newer ones. Conversations: newest first (by their
 * newest message), from the one after the conversation in view round to it.
 * Muted channels and topics are skipped, as in All messages' unread count.
 * `N`: the same through followed topics only (in muted channels too).
 */
import { model } from './model.ts';
import type { Term } from './narrow.ts';

/** A topic's visibility policy when the user follows it. */
const FOLLOWED = 3;

/** `list` from the item after `current` (the start if absent) round to the one before it. */
function after<T>(list: T[], current: number): T[] {
  return current < 0 ? list : [...list.slice(current + 1), ...list.slice(0, current)];
}

/**
 * The narrow of the next unread topic after the one in view (`terms`), or
 * null when no other has unread messages. `followedOnly` (Zulip's `N`): only
 * followed topics, muted channels included.
 */
export function nextUnreadTopic(terms: Term[], followedOnly = false): Term[] | null {
  const channel = terms.find((t) => t.operator === 'channel' && !t.negated)?.operand;
  const topic = terms.find((t) => t.operator === 'topic' && !t.negated)?.operand;
  const here = typeof channel === 'number' ? channel : undefined;
  const hereTopic = here !== undefined && topic !== undefined ? String(topic).toLowerCase() : undefined;

  // Each channel's unread topics (by lowercase name), each with its name and newest message known.
  const byChannel = new Map<number, Map<string, { name: string; newest: number }>>();
  for (const [id, u] of model.unread) {
    if (u.kind !== 'stream' || u.streamId === undefined) continue;
    const name = u.topic ?? '';
    if (followedOnly ? !model.subs.has(u.streamId) || model.topicPolicy(u.streamId, name) !== FOLLOWED : !model.inFeed(u)) continue;
    let topics = byChannel.get(u.streamId);
    if (!topics) byChannel.set(u.streamId, (topics = new Map()));
    const seen = topics.get(name.toLowerCase());
    topics.set(name.toLowerCase(), { name: seen?.name ?? name, newest: Math.max(seen?.newest ?? 0, id) });
  }
  /** A channel's topics in Zulip's order (newest first), with the one in view among them when it is in this channel. */
  const ordered = (streamId: number): Array<{ key: string; name: string }> => {
    const known = new Map((model.topics.get(streamId) ?? []).map((t) => [t.name.toLowerCase(), t.max_id]));
    const topics = [...(byChannel.get(streamId) ?? new Map()).entries()].map(([key, t]) => ({ key, name: t.name, newest: Math.max(t.newest, known.get(key) ?? 0) }));
    if (streamId === here && hereTopic !== undefined && !topics.some((t) => t.key === hereTopic)) topics.push({ key: hereTopic, name: hereTopic, newest: known.get(hereTopic) ?? 0 });
    return topics.sort((a, b) => b.newest - a.newest);
  };

  const channels = model.sidebarOrder().map((s) => s.stream_id);
  for (const streamId of [...(here !== undefined && channels.includes(here) ? [here] : []), ...after(channels, channels.indexOf(here ?? -1))]) {
    const topics = ordered(streamId);
    // (In the channel in view: after the topic in view, which itself is left out.)
    const next = streamId === here ? after(topics, topics.findIndex((t) => t.key === hereTopic))[0] : topics[0];
    if (next) {
      return [
        { operator: 'channel', operand: streamId },
        { operator: 'topic', operand: next.name },
      ];
    }
  }
  return null;
}

/** The narrow of the next unread direct-message conversation after the one in view, newest first (as Zulip's `p`), or null. */
export function nextUnreadDm(terms: Term[]): Term[] | null {
  const dm = terms.find((t) => t.operator === 'dm' && !t.negated)?.operand;
  const here = Array.isArray(dm) ? model.dmKey(dm) : undefined;
  // Every conversation with its newest message known, unread ones too (their messages may be newer than the list).
  const newest = new Map(model.recentDms);
  const unread = new Set<string>();
  for (const [id, u] of model.unread) {
    if (u.kind !== 'dm' || u.dmKey === undefined) continue;
    unread.add(u.dmKey);
    newest.set(u.dmKey, Math.max(newest.get(u.dmKey) ?? 0, id));
  }
  const order = [...newest.entries()].sort((a, b) => b[1] - a[1]).map(([key]) => key);
  const next = after(order, here === undefined ? -1 : order.indexOf(here)).find((key) => key !== here && unread.has(key));
  return next === undefined ? null : [{ operator: 'dm', operand: next.split(',').map(Number) }];
}
