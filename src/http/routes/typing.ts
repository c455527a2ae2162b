/** Typing notifications. */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { sendEditTyping, sendTyping } from '../../actions/typing.ts';

export default [
  route({
    method: 'POST',
    path: '/typing',
    auth: 'user',
    summary: 'Set typing status',
    params: {
      type: p.enumStr(['direct', 'stream', 'channel'] as const).default('direct'),
      op: p.enumStr(['start', 'stop'] as const),
      to: p.intList().optional(),
      stream_id: p.int().optional(),
      topic: p.str().optional(),
    },
    handler: async (ctx, a) => {
      await sendTyping(ctx.svc, ctx.user, { type: a.type, op: a.op, to: a.to, streamId: a.stream_id, topic: a.topic });
    },
  }),
  route({
    method: 'POST',
    path: '/messages/:message_id(^\\d+$)/typing',
    auth: 'user',
    summary: 'Set typing status for message editing',
    pathParams: { message_id: p.pathInt() },
    params: { op: p.enumStr(['start', 'stop'] as const) },
    handler: async (ctx, a) => {
      await sendEditTyping(ctx.svc, ctx.user, a.message_id, a.op);
    },
  }),
];
