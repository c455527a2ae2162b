/** Scheduled messages: create, list, edit, delete. */
import { route } from '../route.ts';
import { LIMITS, p } from '../params.ts';
import { createScheduledMessage, editScheduledMessage, listScheduledMessages, removeScheduledMessage } from '../../actions/scheduled-messages.ts';

const TYPES = ['direct', 'channel', 'stream', 'private'] as const;

export default [
  route({
    method: 'GET',
    path: '/scheduled_messages',
    auth: 'user',
    summary: 'Get scheduled messages',
    params: {},
    handler: async (ctx) => ({ scheduled_messages: await listScheduledMessages(ctx.svc, ctx.user) }),
  }),
  route({
    method: 'POST',
    path: '/scheduled_messages',
    auth: 'user',
    summary: 'Create a scheduled message',
    params: {
      type: p.enumStr(TYPES),
      to: p.str(),
      topic: p.str().alias('subject').allowNul().optional(),
      content: p.str().allowNul(),
      scheduled_delivery_timestamp: p.int({ max: LIMITS.timestampMax }),
      read_by_sender: p.bool().optional(),
    },
    handler: (ctx, a) =>
      createScheduledMessage(ctx.svc, ctx.user, {
        type: a.type,
        to: a.to,
        topic: a.topic,
        content: a.content,
        scheduledDeliveryTimestamp: a.scheduled_delivery_timestamp,
        readBySender: a.read_by_sender,
        clientName: ctx.clientName,
      }),
  }),
  route({
    method: 'PATCH',
    path: '/scheduled_messages/:scheduled_message_id(^\\d+$)',
    auth: 'user',
    summary: 'Edit a scheduled message',
    pathParams: { scheduled_message_id: p.pathInt() },
    params: {
      type: p.enumStr(TYPES).optional(),
      to: p.str().optional(),
      topic: p.str().alias('subject').allowNul().optional(),
      content: p.str().allowNul().optional(),
      scheduled_delivery_timestamp: p.int({ max: LIMITS.timestampMax }).optional(),
    },
    handler: async (ctx, a) => {
      await editScheduledMessage(ctx.svc, ctx.user, a.scheduled_message_id, {
        type: a.type,
        to: a.to,
        topic: a.topic,
        content: a.content,
        scheduledDeliveryTimestamp: a.scheduled_delivery_timestamp,
        clientName: ctx.clientName,
      });
    },
  }),
  route({
    method: 'DELETE',
    path: '/scheduled_messages/:scheduled_message_id(^\\d+$)',
    auth: 'user',
    summary: 'Delete a scheduled message',
    pathParams: { scheduled_message_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => {
      await removeScheduledMessage(ctx.svc, ctx.user, a.scheduled_message_id);
    },
  }),
];
