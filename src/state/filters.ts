/**
 * Per-event-type queue hooks (see QueueFilter): which registered clients get
 * an event and the shape of their copy. Feature modules add theirs here.
 */
import type { Services } from '../services.ts';
import type { EventQueue } from '../events/queue.ts';
import type { ZulipEvent } from '../events/types.ts';
import { messageEventForQueue } from '../actions/messages-events.ts';
import { streamEventFilter } from '../actions/streams-archive.ts';
import { installUserTopicFilters } from '../actions/user-topics.ts';

export function installEventFilters(svc: Services): void {
  // message: per-queue content (apply_markdown), avatars, empty topic, local_message_id, narrow.
  svc.queues.setFilter('message', messageEventForQueue);
  // stream: archiving/unarchiving reaches clients without archived_channels as delete/create.
  svc.queues.setFilter('stream', streamEventFilter);
  // realm_user/realm_bot person avatars follow each client's client_gravatar choice.
  // Channel typing only reaches clients that declared stream_typing_notifications;
  // the empty topic is named for clients without the empty_topic_name capability.
  const namedTopic = (q: EventQueue, topic: unknown, internal: { empty_topic_display_name?: string } | undefined): unknown =>
    topic === '' && internal?.empty_topic_display_name !== undefined && !q.opts.clientCapabilities.empty_topic_name ? internal.empty_topic_display_name : topic;
  svc.queues.setFilter('typing', (q, event) => {
    const { __parley, ...rest } = event as ZulipEvent & { __parley?: { empty_topic_display_name?: string } };
    if (rest.message_type !== 'stream') return rest;
    if (!q.opts.clientCapabilities.stream_typing_notifications) return null;
    return { ...rest, topic: namedTopic(q, rest.topic, __parley) };
  });
  svc.queues.setFilter('typing_edit_message', (q, event) => {
    const { __parley, ...rest } = event as ZulipEvent & { __parley?: { empty_topic_display_name?: string } };
    const recipient = rest.recipient as Record<string, unknown>;
    if (recipient.type !== 'channel') return rest;
    return { ...rest, recipient: { ...recipient, topic: namedTopic(q, recipient.topic, __parley) } };
  });
  // update_message: the empty topic is named for clients without the empty_topic_name capability.
  svc.queues.setFilter('update_message', (q, event) => {
    const { __parley, ...rest } = event as ZulipEvent & { __parley?: { empty_topic_display_name?: string } };
    if ('orig_subject' in rest) rest.orig_subject = namedTopic(q, rest.orig_subject, __parley);
    if ('subject' in rest) rest.subject = namedTopic(q, rest.subject, __parley);
    return rest;
  });
  // Clients without bulk_message_deletion get one legacy event per message.
  svc.queues.setFilter('delete_message', (q, event) => {
    if (q.opts.clientCapabilities.bulk_message_deletion) return event;
    const { message_ids: ids, ...rest } = event;
    return (ids as number[]).map((id) => ({ ...rest, type: 'delete_message', message_id: id }));
  });
  svc.queues.setFilter('realm_user', (q, event) => {
    const person = event.person as Record<string, unknown> | undefined;
    if (event.op === 'add' && person && q.opts.clientGravatar && typeof person.avatar_url === 'string' && person.avatar_url.startsWith('https://secure.gravatar.com/')) {
      return { ...event, person: { ...person, avatar_url: null } };
    }
    return event;
  });

  // presence events carry every format; each queue keeps the one it asked for:
  // modern (simplified_presence_events capability, FL 419), slim (no email) or legacy.
  svc.queues.setFilter('presence', (q, event) => {
    const { presences, email, ...legacy } = event;
    if (q.opts.clientCapabilities.simplified_presence_events === true) return { type: event.type, presences };
    return q.opts.slimPresence ? legacy : { ...legacy, email };
  });
  // Legacy settings events go only to clients without the user_settings_object capability.
  for (const legacy of ['update_display_settings', 'update_global_notifications']) {
    svc.queues.setFilter(legacy, (q, event) => (q.opts.clientCapabilities.user_settings_object ? null : event));
  }
  // user_topic / muted_topics: empty topic naming and legacy-event suppression.
  installUserTopicFilters(svc);
}
