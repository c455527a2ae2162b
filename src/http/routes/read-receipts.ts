/** GET /messages/{message_id}/read_receipts. */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { readReceipts } from '../../actions/read-receipts.ts';

export default [
  route({
    method: 'GET',
    path: '/messages/:message_id(^\\d+$)/read_receipts',
    auth: 'user',
    summary: "Get a message's read receipts",
    pathParams: { message_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => ({ user_ids: await readReceipts(ctx.svc, ctx.user, a.message_id) }),
  }),
];
