/** Draft synchronization: GET/POST /drafts, PATCH/DELETE /drafts/{draft_id}. */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { createDrafts, editDraft, getDrafts, removeDraft } from '../../actions/drafts.ts';

// The draft objects are checked in the action, after the user's
// enable_drafts_synchronization setting, as Zulip does.
const rawJson = (type: string) => p.custom<string>(type, (raw) => raw).optional();

export default [
  route({
    method: 'GET',
    path: '/drafts',
    auth: 'user',
    summary: 'Get drafts',
    params: {},
    handler: (ctx) => getDrafts(ctx.svc, ctx.user),
  }),
  route({
    method: 'POST',
    path: '/drafts',
    auth: 'user',
    summary: 'Create drafts',
    params: { drafts: rawJson('object[]') },
    handler: (ctx, a) => createDrafts(ctx.svc, ctx.user, a.drafts),
  }),
  route({
    method: 'PATCH',
    path: '/drafts/:draft_id(^\\d+$)',
    auth: 'user',
    summary: 'Edit a draft',
    pathParams: { draft_id: p.pathInt() },
    params: { draft: rawJson('object') },
    handler: async (ctx, a) => {
      await editDraft(ctx.svc, ctx.user, a.draft_id, a.draft);
    },
  }),
  route({
    method: 'DELETE',
    path: '/drafts/:draft_id(^\\d+$)',
    auth: 'user',
    summary: 'Delete a draft',
    pathParams: { draft_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => {
      await removeDraft(ctx.svc, ctx.user, a.draft_id);
    },
  }),
];
