/**
 * File uploads: POST /user_uploads, GET /attachments, DELETE /attachments/{id},
 * the thumbnail status of an upload. Serving files: src/http/uploads.ts;
 * resumable uploads (/api/v1/tus): src/http/tus.ts.
 */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { listAttachments, removeAttachment, thumbnailStatus, uploadFile } from '../../actions/uploads.ts';

export default [
  route({
    method: 'POST',
    path: '/user_uploads',
    auth: 'user',
    summary: 'Upload a file',
    params: {},
    handler: async (ctx) => uploadFile(ctx.svc, ctx.user, ctx.req.files ?? []),
  }),
  route({
    method: 'GET',
    path: '/attachments',
    auth: 'user',
    summary: 'Get attachments',
    params: {},
    handler: async (ctx) => listAttachments(ctx.svc, ctx.user),
  }),
  route({
    method: 'DELETE',
    path: '/attachments/:attachment_id(^\\d+$)',
    auth: 'user',
    summary: 'Delete an attachment',
    pathParams: { attachment_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => {
      await removeAttachment(ctx.svc, ctx.user, a.attachment_id);
    },
  }),
  route({
    method: 'GET',
    path: '/thumbnail/status/:realm_id_str/*',
    auth: 'user',
    summary: 'Check thumbnail status of your uploaded image',
    pathParams: { realm_id_str: p.pathStr(), '*': p.pathStr() },
    params: {},
    handler: async (ctx, a) => thumbnailStatus(ctx.svc, ctx.user, `${a.realm_id_str}/${a['*']}`),
  }),
];
