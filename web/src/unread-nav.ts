/**
 * Zulip's "next unread" keys: `n` opens the next topic with unread messages,
 * `p` the next direct-message conversation with unread messages. Topics go
 * by the left sidebar's order of channels (pinned first, then by name): the
 * other unread topics of the channel in view first, then the channels after
 * it, then from the top; within a channel, the topic with the oldest unread
 * message first. Muted channels and topics are skipped, as in All
 * messages' unread count. Conversations go by their oldest unread message.
 */
import { model } from './model.ts';
import type { Term } from './narrow.ts';

/** The narrow of the next unread topic after the one in view (`terms`), or null when no other has unread messages. */
export function nextUnreadTopic(terms: Term[]): Term[] | null {
  const channel = terms.find((t) => t.operator === 'channel' && !t.negated)?.operand;
  const topic = terms.find((t) => t.operator === 'topic' && !t.negated)?.operand;
  const here = typeof channel === 'number' ? channel : undefined;
  const hereTopic = here !== undefined && topic !== undefined ? String(topic).toLowerCase() : undefined;

  // Each unread topic once, with its oldest unread message.
  const topics = new Map<string, { streamId: number; topic: string; oldest: number }>();
  for (const [id, u] of model.unread) {
    if (u.kind !== 'stream' || u.streamId === undefined || !model.inFeed(u)) continue;
    const name = u.topic ?? '';
    if (u.streamId === here && name.toLowerCase() === hereTopic) continue;
    const key = `${u.streamId}\n${name.toLowerCase()}`;
    const seen = topics.get(key);
    if (!seen || id < seen.oldest) topics.set(key, { streamId: u.streamId, topic: seen?.topic ?? name, oldest: id });
  }
  if (!topics.size) return null;

  const order = model.sidebarChannels().map((s) => s.stream_id);
  const start = here === undefined ? 0 : Math.max(0, order.indexOf(here));
  const rank = (streamId: number) => (order.indexOf(streamId) - start + order.length) % order.length;
  const next = [...topics.values()].sort((a, b) => rank(a.streamId) - rank(b.streamId) || a.oldest - b.oldest)[0]!;
  return [
    { operator: 'channel', operand: next.streamId },
    { operator: 'topic', operand: next.topic },
  ];
}

/** The narrow of the unread direct-message conversation with the oldest unread message, other than the one in view, or null. */
export function nextUnreadDm(terms: Term[]): Term[] | null {
  const dm = terms.find((t) => t.operator === 'dm' && !t.negated)?.operand;
  const here = Array.isArray(dm) ? model.dmKey(dm) : undefined;
  let best: { key: string; oldest: number } | null = null;
  for (const [id, u] of model.unread) {
    if (u.kind !== 'dm' || u.dmKey === undefined || u.dmKey === here) continue;
    if (!best || id < best.oldest) best = { key: u.dmKey, oldest: id };
  }
  return best ? [{ operator: 'dm', operand: best.key.split(',').map(Number) }] : null;
}
