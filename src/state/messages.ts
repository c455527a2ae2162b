/** The message sections of POST /register: max_message_id, unread_msgs, recent_private_conversations, starred_messages. */
import { feature, namedTopic, type StateProvider } from './registry.ts';
import { messageEventForQueue } from '../actions/messages-events.ts';
import { directGroupMembers, FLAG, maxMessageIdFor, RECIPIENT, recentDirectMessages, starredMessageIds, unreadRows } from '../store/messages.ts';
import { unreadMessageDetails } from '../actions/message-flags.ts';
import { cachedRealm } from '../actions/cache.ts';

const MAX_UNREAD_MESSAGES = 50000;

const provider1: StateProvider = {
  types: ['message', 'update_message_flags', 'recent_private_conversations'],
  async fetch(svc, opts, wants) {
    const db = svc.store.db;
    const me = opts.user;
    const out: Record<string, unknown> = {};
    if (wants('message')) out.max_message_id = await maxMessageIdFor(db, me.id);
    if (wants('message') && wants('update_message_flags')) {
      const rows = await unreadRows(db, me.id, MAX_UNREAD_MESSAGES);
      const details = await unreadMessageDetails(db, me, rows);
      const emptyTopicName = String((await cachedRealm(svc, db)).settings.empty_topic_display_name);
      const pms = new Map<number, number[]>();
      const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
      const huddles = new Map<string, number[]>();
      const groupMembers = await directGroupMembers(db, rows.filter((r) => r.recipient_type === RECIPIENT.GROUP).map((r) => r.recipient_id));
      const mentions: number[] = [];
      let count = 0;
      for (const r of rows) {
        const d = details[String(r.message_id)];
        if (r.recipient_type === RECIPIENT.STREAM) {
          const key = `${r.recipient_id}\n${r.topic}`;
          let s = streams.get(key);
          // Clients without the empty_topic_name capability see the organization's name for the empty topic.
          const topic = r.topic === '' && !opts.clientCapabilities.empty_topic_name ? emptyTopicName : r.topic;
          if (!s) streams.set(key, (s = { stream_id: r.recipient_id, topic, unread_message_ids: [] }));
          s.unread_message_ids.push(r.message_id);
          if (d.unmuted_stream_msg) count++;
        } else if (r.recipient_type === RECIPIENT.PERSONAL) {
          const other = r.sender_id === me.id ? r.recipient_id : r.sender_id;
          pms.set(other, [...(pms.get(other) ?? []), r.message_id]);
          count++;
        } else {
          const key = (groupMembers.get(r.recipient_id) ?? []).join(',');
          huddles.set(key, [...(huddles.get(key) ?? []), r.message_id]);
          count++;
        }
        if (r.flags & FLAG.mentioned) mentions.push(r.message_id);
        else if (r.flags & (FLAG.stream_wildcard_mentioned | FLAG.topic_wildcard_mentioned)) {
          if (r.recipient_type !== RECIPIENT.STREAM || d.unmuted_stream_msg) mentions.push(r.message_id);
        }
      }
      out.unread_msgs = {
        pms: [...pms.entries()].sort((a, b) => a[0] - b[0]).map(([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids })),
        streams: [...streams.values()].sort((a, b) => a.stream_id - b.stream_id || (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0)),
        huddles: [...huddles.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([k, ids]) => ({ user_ids_string: k, unread_message_ids: ids })),
        mentions,
        count,
        old_unreads_missing: rows.length === MAX_UNREAD_MESSAGES,
      };
    }
    if (wants('recent_private_conversations')) {
      const rows = await recentDirectMessages(db, me.id, 1000);
      const groups = await directGroupMembers(db, rows.filter((r) => r.recipient_type === RECIPIENT.GROUP).map((r) => r.recipient_id));
      const convs = new Map<string, { max_message_id: number; user_ids: number[] }>();
      for (const r of rows) {
        let users: number[];
        if (r.recipient_type === RECIPIENT.PERSONAL) {
          const other = r.sender_id === me.id ? r.recipient_id : r.sender_id;
          users = other === me.id ? [] : [other];
        } else users = (groups.get(r.recipient_id) ?? []).filter((u) => u !== me.id);
        const key = users.join(',');
        const c = convs.get(key);
        if (!c) convs.set(key, { max_message_id: r.id, user_ids: users });
        else c.max_message_id = Math.max(c.max_message_id, r.id);
      }
      out.recent_private_conversations = [...convs.values()].sort((a, b) => b.max_message_id - a.max_message_id);
    }
    return out;
  },
};

const provider2: StateProvider = {
  types: ['starred_messages'],
  async fetch(svc, opts) {
    return { starred_messages: await starredMessageIds(svc.store.db, opts.user.id) };
  },
};

export default feature({
  state: [provider1, provider2],
  filters: {
    // Per-queue content (apply_markdown), avatars, empty topic, local_message_id, narrow.
    message: messageEventForQueue,
    // The empty topic is named for clients without the empty_topic_name capability.
    update_message: (q, event, meta) => {
      const rest = { ...event };
      if ('orig_subject' in rest) rest.orig_subject = namedTopic(q, rest.orig_subject, meta);
      if ('subject' in rest) rest.subject = namedTopic(q, rest.subject, meta);
      return rest;
    },
    // Clients without bulk_message_deletion get one legacy event per message; the empty topic is named as above.
    delete_message: (q, event, meta) => {
      if (event.type !== 'delete_message') return event;
      const named = 'topic' in event ? { ...event, topic: namedTopic(q, event.topic, meta) as string } : event;
      if (q.opts.clientCapabilities.bulk_message_deletion) return named;
      const { message_ids: ids, ...rest } = named;
      return (ids ?? []).map((id) => ({ ...rest, message_id: id }));
    },
    // The topics of message_details (removing the read flag), named as above.
    update_message_flags: (q, event, meta) => {
      const details = event.message_details as Record<string, { type: string; topic?: string }> | undefined;
      if (!details || meta.emptyTopicName === undefined || q.opts.clientCapabilities.empty_topic_name) return event;
      const out: Record<string, unknown> = {};
      for (const [id, d] of Object.entries(details)) out[id] = d.type === 'stream' && d.topic === '' ? { ...d, topic: meta.emptyTopicName } : d;
      return { ...event, message_details: out };
    },
  },
});
