/** A channel's topics (GET /users/me/{stream_id}/topics) and its email address. */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { getChannelEmailAddress, getChannelTopics } from '../../actions/channel-topics.ts';

export default [
  route({
    method: 'GET',
    path: '/users/me/:stream_id(^\\d+$)/topics',
    auth: 'web-optional',
    summary: "Get topics in a channel (under /json also a web-public channel's for logged-out visitors, where the organization allows them)",
    pathParams: { stream_id: p.pathInt() },
    params: { allow_empty_topic_name: p.bool().default(false) },
    handler: (ctx, a) => getChannelTopics(ctx.svc, ctx.maybeUser, a.stream_id, a.allow_empty_topic_name),
  }),
  route({
    method: 'GET',
    path: '/streams/:stream_id(^\\d+$)/email_address',
    auth: 'user',
    summary: "Get a channel's email address",
    pathParams: { stream_id: p.pathInt() },
    params: { sender_id: p.int({ min: 0 }).optional() },
    handler: (ctx, a) => getChannelEmailAddress(ctx.svc, ctx.user, a.stream_id, a.sender_id),
  }),
];
