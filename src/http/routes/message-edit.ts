/** Editing messages: PATCH /messages/{message_id} and GET /messages/{message_id}/history. */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { messageHistory, updateMessage } from '../../actions/message-edit.ts';

export default [
  route({
    method: 'PATCH',
    path: '/messages/:message_id(^\\d+$)',
    auth: 'user',
    summary: 'Edit a message',
    pathParams: { message_id: p.pathInt() },
    params: {
      content: p.str().allowNul().optional(),
      topic: p.str().alias('subject').allowNul().optional(),
      stream_id: p.int().optional(),
      propagate_mode: p.enumStr(['change_one', 'change_later', 'change_all'] as const).default('change_one'),
      send_notification_to_old_thread: p.bool().default(false),
      send_notification_to_new_thread: p.bool().default(true),
      prev_content_sha256: p.str().optional(),
    },
    handler: async (ctx, a) =>
      updateMessage(ctx.svc, ctx.user, a.message_id, {
        content: a.content,
        topic: a.topic,
        streamId: a.stream_id,
        propagateMode: a.propagate_mode,
        sendNotificationToOldThread: a.send_notification_to_old_thread,
        sendNotificationToNewThread: a.send_notification_to_new_thread,
        prevContentSha256: a.prev_content_sha256,
      }),
  }),
  route({
    method: 'GET',
    path: '/messages/:message_id(^\\d+$)/history',
    auth: 'user',
    summary: "Get a message's edit history",
    pathParams: { message_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => ({ message_history: await messageHistory(ctx.svc, ctx.user, a.message_id) }),
  }),
];
