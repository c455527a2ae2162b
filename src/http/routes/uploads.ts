/** File uploads: POST /user_uploads, GET /attachments, DELETE /attachments/{id}. Serving files: src/http/uploads.ts. */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { listAttachments, removeAttachment, uploadFile } from '../../actions/uploads.ts';

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
];
