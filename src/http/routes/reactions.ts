/** Emoji reactions: POST and DELETE /messages/{message_id}/reactions. */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { addReaction, removeReaction } from '../../actions/reactions.ts';

export default [
  route({
    method: 'POST',
    path: '/messages/:message_id(^\\d+$)/reactions',
    auth: 'user',
    summary: 'Add an emoji reaction',
    pathParams: { message_id: p.pathInt() },
    params: { emoji_name: p.str(), emoji_code: p.str().optional(), reaction_type: p.str().optional() },
    handler: async (ctx, a) => {
      await addReaction(ctx.svc, ctx.user, a.message_id, { emojiName: a.emoji_name, emojiCode: a.emoji_code, reactionType: a.reaction_type });
    },
  }),
  route({
    method: 'DELETE',
    path: '/messages/:message_id(^\\d+$)/reactions',
    auth: 'user',
    summary: 'Remove an emoji reaction',
    pathParams: { message_id: p.pathInt() },
    params: { emoji_name: p.str().optional(), emoji_code: p.str().optional(), reaction_type: p.str().optional() },
    handler: async (ctx, a) => {
      await removeReaction(ctx.svc, ctx.user, a.message_id, { emojiName: a.emoji_name, emojiCode: a.emoji_code, reactionType: a.reaction_type });
    },
  }),
];
