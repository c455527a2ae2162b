/** Personal topic preferences: POST /user_topics and the legacy PATCH /users/me/subscriptions/muted_topics. */
import { route } from '../route.ts';
import { p, v } from '../params.ts';
import { setTopicPolicy, updateMutedTopic, VISIBILITY_POLICIES } from '../../actions/user-topics.ts';

export default [
  route({
    method: 'POST',
    path: '/user_topics',
    auth: 'user',
    summary: 'Update personal preferences for a topic',
    params: { stream_id: p.int(), topic: p.str(), visibility_policy: p.json(v.literal(VISIBILITY_POLICIES), 'integer') },
    handler: async (ctx, a) => {
      await setTopicPolicy(ctx.svc, ctx.user, { id: a.stream_id }, a.topic, a.visibility_policy);
    },
  }),
  route({
    method: 'PATCH',
    path: '/users/me/subscriptions/muted_topics',
    auth: 'user',
    summary: 'Topic muting',
    params: { stream_id: p.int().optional(), stream: p.str().optional(), topic: p.str(), op: p.enumStr(['add', 'remove'] as const) },
    handler: async (ctx, a) => {
      await updateMutedTopic(ctx.svc, ctx.user, { streamId: a.stream_id, stream: a.stream, topic: a.topic, op: a.op });
    },
  }),
];
