/**
 * Each queue's copy of a `message` event: rendered or raw content
 * (apply_markdown), avatar per client_gravatar, the empty topic per the
 * empty_topic_name client capability, local_message_id for the sending
 * queue, and nothing at all for queues whose narrow the message misses.
 */
import type { EventQueue } from '../events/queue.ts';
import type { EventMeta, ZulipEvent } from '../events/types.ts';
import { messageMatchesTerms, type MessageForPredicate } from './narrow.ts';

export function messageEventForQueue(q: EventQueue, event: ZulipEvent, meta: EventMeta): ZulipEvent | null {
  if (event.type !== 'message' || meta.rawContent === undefined) return event;
  const rest = event;
  const msg = { ...rest.message };
  if (!q.opts.applyMarkdown) {
    msg.content = meta.rawContent;
    msg.content_type = 'text/x-markdown';
  }
  if (q.opts.clientGravatar && typeof msg.avatar_url === 'string' && msg.avatar_url.startsWith('https://secure.gravatar.com/')) msg.avatar_url = null;
  if (msg.type === 'stream' && msg.subject === '' && !q.opts.clientCapabilities.empty_topic_name) msg.subject = meta.emptyTopicName;
  if (meta.hiddenSender?.userIds.includes(q.userId)) Object.assign(msg, meta.hiddenSender.fields);
  const flags = (rest.flags as string[] | undefined) ?? [];
  if (q.opts.narrow.length) {
    const forMatch = { ...msg, content: meta.rawContent, rendered_content: rest.message.content, subject: String(rest.message.subject) } as unknown as MessageForPredicate;
    if (!messageMatchesTerms(q.opts.narrow, forMatch, flags, q.userId, meta.emptyTopicName ?? '')) return null;
  }
  const out: ZulipEvent = { ...rest, message: msg, flags };
  if (meta.senderQueueId != null && meta.senderQueueId === q.id && meta.localId != null) out.local_message_id = meta.localId;
  return out;
}
