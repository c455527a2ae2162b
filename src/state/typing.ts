/** Typing notifications: no /register state; channel typing is shaped per queue. */
import { feature, namedTopic } from './registry.ts';

export default feature({
  filters: {
    // Channel typing only reaches clients that declared stream_typing_notifications;
    // the empty topic is named for clients without the empty_topic_name capability.
    typing: (q, event, meta) => {
      if (event.message_type !== 'stream') return event;
      if (!q.opts.clientCapabilities.stream_typing_notifications) return null;
      return { ...event, topic: namedTopic(q, event.topic, meta) };
    },
    typing_edit_message: (q, event, meta) => {
      const recipient = event.recipient as Record<string, unknown>;
      if (recipient.type !== 'channel') return event;
      return { ...event, recipient: { ...recipient, topic: namedTopic(q, recipient.topic, meta) } };
    },
  },
});
