/**
 * Each queue's copy of a `message` event: rendered or raw content
 * (apply_markdown), avatar per client_gravatar, the empty topic per the
 * empty_topic_name client capability, local_message_id for the sending
 * queue, and nothing at all for queues whose narrow the message misses.
 */
import type { EventQueue } from '../events/queue.ts';
import type { ZulipEvent } from '../events/types.ts';
import { messageMatchesTerms, type MessageForPredicate } from './narrow.ts';

interface Internal {
  raw_content: string;
  sender_queue_id: string | null;
  local_id: string | null;
  empty_topic_display_name: string;
}

export function messageEventForQueue(q: EventQueue, event: ZulipEvent): ZulipEvent | null {
  const { __parley, ...rest } = event as ZulipEvent & { __parley?: Internal };
  if (!__parley) return event;
  const msg = { ...(rest.message as Record<string, unknown>) };
  if (!q.opts.applyMarkdown) {
    msg.content = __parley.raw_content;
    msg.content_type = 'text/x-markdown';
  }
  if (q.opts.clientGravatar && typeof msg.avatar_url === 'string' && msg.avatar_url.startsWith('https://secure.gravatar.com/')) msg.avatar_url = null;
  if (msg.type === 'stream' && msg.subject === '' && !q.opts.clientCapabilities.empty_topic_name) msg.subject = __parley.empty_topic_display_name;
  const flags = (rest.flags as string[] | undefined) ?? [];
  if (q.opts.narrow.length) {
    const forMatch = { ...msg, content: __parley.raw_content, subject: String((rest.message as Record<string, unknown>).subject) } as unknown as MessageForPredicate;
    if (!messageMatchesTerms(q.opts.narrow, forMatch, flags, q.userId, __parley.empty_topic_display_name)) return null;
  }
  const out: ZulipEvent = { ...rest, message: msg, flags };
  if (__parley.sender_queue_id !== null && __parley.sender_queue_id === q.id && __parley.local_id !== null) out.local_message_id = __parley.local_id;
  return out;
}
