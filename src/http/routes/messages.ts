/** Messages: send, fetch, render, match narrows, personal flags. */
import { route } from '../route.ts';
import { p, v } from '../params.ts';
import { sendMessage } from '../../actions/messages.ts';
import { getMessage, getMessages, matchesNarrow, renderMessage } from '../../actions/messages-fetch.ts';
import { markAllAsRead, markStreamAsRead, markTopicAsRead, updateFlags, updateFlagsForNarrow } from '../../actions/message-flags.ts';
import { parseNarrow, type NarrowTerm } from '../../actions/narrow.ts';
import { deleteMessageByUser } from '../../actions/message-delete-api.ts';

/** A narrow: JSON list of {operator, operand, negated} or [operator, operand]; an empty list is no narrow. */
const narrowParam = () =>
  p.json<NarrowTerm[] | null>((x, name) => {
    const terms = parseNarrow(v.any()(x, name), name);
    return terms.length ? terms : null;
  }, 'narrow');

export default [
  route({
    method: 'POST',
    path: '/messages',
    auth: 'user',
    allowIncomingWebhooks: true,
    summary: 'Send a message',
    params: {
      type: p.enumStr(['stream', 'channel', 'private', 'direct'] as const),
      to: p.str().optional(),
      topic: p.str().alias('subject').allowNul().optional(),
      content: p.str().allowNul(),
      local_id: p.str().optional(),
      queue_id: p.str().optional(),
      read_by_sender: p.bool().optional(),
    },
    handler: (ctx, a) =>
      sendMessage(ctx.svc, ctx.user, {
        type: a.type,
        to: a.to,
        topic: a.topic,
        content: a.content,
        localId: a.local_id,
        queueId: a.queue_id,
        readBySender: a.read_by_sender,
        clientName: ctx.clientName,
      }),
  }),
  route({
    method: 'GET',
    path: '/messages',
    auth: 'web-optional',
    summary: 'Get messages (under /json also for logged-out visitors, from web-public channels, where the organization allows them)',
    params: {
      anchor: p.str().describe('A message ID, or `newest`, `oldest`, `first_unread` or `date`.').optional(),
      anchor_date: p.str().describe('With anchor `date`: an ISO 8601 date or date and time (UTC without an offset); the window is anchored at the first matching message sent at or after it, or at the newest end when there is none.').optional(),
      include_anchor: p.bool().default(true),
      num_before: p.int({ min: 0 }).default(0),
      num_after: p.int({ min: 0 }).default(0),
      narrow: narrowParam().default(null),
      message_ids: p.json(v.list(v.int({ min: 0 })), 'integer[]').optional(),
      use_first_unread_anchor: p.bool().default(false),
      client_gravatar: p.bool().default(true),
      apply_markdown: p.bool().default(true),
      allow_empty_topic_name: p.bool().default(false),
    },
    handler: (ctx, a) =>
      getMessages(ctx.svc, ctx.maybeUser, {
        anchor: a.anchor,
        anchorDate: a.anchor_date,
        useFirstUnreadAnchor: a.use_first_unread_anchor,
        includeAnchor: a.include_anchor,
        numBefore: a.num_before,
        numAfter: a.num_after,
        narrow: a.narrow,
        messageIds: a.message_ids,
        applyMarkdown: a.apply_markdown,
        clientGravatar: a.client_gravatar,
        allowEmptyTopicName: a.allow_empty_topic_name,
      }),
  }),
  route({
    method: 'GET',
    path: '/messages/matches_narrow',
    auth: 'user',
    summary: 'Check if messages match a narrow',
    params: { msg_ids: p.intList(), narrow: narrowParam() },
    handler: (ctx, a) => matchesNarrow(ctx.svc, ctx.user, a.msg_ids, a.narrow ?? []),
  }),
  route({
    method: 'POST',
    path: '/messages/render',
    auth: 'user',
    summary: 'Render a message',
    params: { content: p.str() },
    handler: (ctx, a) => renderMessage(ctx.svc, a.content),
  }),
  route({
    method: 'GET',
    path: '/messages/:message_id(^\\d+$)',
    auth: 'web-optional',
    summary: 'Fetch a single message (under /json also one of a web-public channel for logged-out visitors, where the organization allows them)',
    pathParams: { message_id: p.pathInt() },
    params: { apply_markdown: p.bool().default(true), allow_empty_topic_name: p.bool().default(false) },
    handler: (ctx, a) => getMessage(ctx.svc, ctx.maybeUser, a.message_id, { applyMarkdown: a.apply_markdown, allowEmptyTopicName: a.allow_empty_topic_name }),
  }),
  route({
    method: 'DELETE',
    path: '/messages/:message_id(^\\d+$)',
    auth: 'user',
    summary: 'Delete a message',
    pathParams: { message_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => {
      await deleteMessageByUser(ctx.svc, ctx.user, a.message_id);
    },
  }),
  route({
    method: 'POST',
    path: '/messages/flags',
    auth: 'user',
    summary: 'Update personal message flags',
    params: { messages: p.intList(), op: p.str(), flag: p.str() },
    handler: async (ctx, a) => {
      const r = await updateFlags(ctx.svc, ctx.user, a.op, a.flag, a.messages);
      return { messages: a.messages, ignored_because_not_subscribed_channels: r.ignoredChannels };
    },
  }),
  route({
    method: 'POST',
    path: '/messages/flags/narrow',
    auth: 'user',
    summary: 'Update personal message flags for narrow',
    params: {
      anchor: p.str(),
      include_anchor: p.bool().default(true),
      num_before: p.int({ min: 0 }),
      num_after: p.int({ min: 0 }),
      narrow: narrowParam(),
      op: p.str(),
      flag: p.str(),
    },
    handler: (ctx, a) =>
      updateFlagsForNarrow(ctx.svc, ctx.user, {
        anchor: a.anchor,
        includeAnchor: a.include_anchor,
        numBefore: a.num_before,
        numAfter: a.num_after,
        narrow: a.narrow,
        op: a.op,
        flag: a.flag,
      }),
  }),
  route({
    method: 'POST',
    path: '/mark_all_as_read',
    auth: 'user',
    summary: 'Mark all messages as read',
    params: {},
    handler: (ctx) => markAllAsRead(ctx.svc, ctx.user),
  }),
  route({
    method: 'POST',
    path: '/mark_stream_as_read',
    auth: 'user',
    summary: 'Mark messages in a channel as read',
    params: { stream_id: p.int() },
    handler: async (ctx, a) => {
      await markStreamAsRead(ctx.svc, ctx.user, a.stream_id);
    },
  }),
  route({
    method: 'POST',
    path: '/mark_topic_as_read',
    auth: 'user',
    summary: 'Mark messages in a topic as read',
    params: { stream_id: p.int(), topic_name: p.str() },
    handler: async (ctx, a) => {
      await markTopicAsRead(ctx.svc, ctx.user, a.stream_id, a.topic_name);
    },
  }),
];
