/**
 * Serving uploaded files, outside the /api/v1 route table (Zulip serves
 * these paths with either session or API authentication):
 * - GET /user_uploads/<realm_id>/<path>           the file (HTTP Basic auth or the web session; spectators for web-public files)
 * - GET /user_uploads/download/<realm_id>/<path>  the same, always as a download
 * - GET /user_uploads/temporary/<token>/<name>    no auth: a short-lived URL from the API variant
 * - GET /user_uploads/thumbnail/<path>/<format>   an uploaded image's thumbnail (auth as for the file)
 * - GET /api/v1/user_uploads/<realm_id>/<path>    JSON {url}: that temporary URL
 * - GET /thumbnail?url=<image URL>&size=<size>     the image of an inline preview: a redirect to it
 * - GET /json/user_uploads/<realm_id>/<path>      the same with the web session
 * Unknown files are 404 and files the caller may not read 403, both with
 * Zulip's small HTML bodies.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';
import { ApiError, unauthorized } from '../lib/errors.ts';
import { authenticate, countApiRequest, type AuthLimits } from './auth.ts';
import { parseForm } from './form.ts';
import { authenticateSession, requestSession } from './web.ts';
import type { UserRow } from '../store/users.ts';
import { pathIdFromToken, readThumbnail, readUpload, temporaryUrl, validateAttachmentRequest } from '../actions/uploads.ts';
import type { AttachmentRow } from '../store/attachments.ts';
import { INLINE_MIME_TYPES } from '../lib/mime-types.ts';

type Params = { realm_id_str: string; '*': string };

/** Django's content_disposition_header. */
function contentDisposition(attachment: boolean, filename: string): string {
  const kind = attachment ? 'attachment' : 'inline';
  if (/^[\x00-\x7f]*$/.test(filename)) return `${kind}; filename="${filename.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  return `${kind}; filename*=utf-8''${encodeURIComponent(filename)}`;
}

function notFound(reply: FastifyReply): void {
  reply.code(404).header('Content-Type', 'text/html; charset=utf-8').header('Vary', 'Accept').send('<p>This file does not exist or has been deleted.</p>');
}

async function sendFile(svc: Services, reply: FastifyReply, pathId: string, contentType: string, forceDownload: boolean): Promise<void> {
  const data = await readUpload(svc, pathId);
  if (!data) {
    reply.code(404).header('Content-Type', 'text/html; charset=utf-8').send('<p>File not found</p>');
    return;
  }
  const download = forceDownload || !INLINE_MIME_TYPES.has(contentType);
  reply
    .header('Content-Type', contentType)
    .header('Content-Disposition', contentDisposition(download, pathId.split('/').pop() ?? ''))
    .header('Cache-Control', 'private, immutable')
    .header('X-Content-Type-Options', 'nosniff')
    .send(data);
}

export function registerUploadServing(app: FastifyInstance, svc: Services, limits: AuthLimits): void {
  /** The caller: HTTP Basic under /api/v1; the web session under /json; either for the file URLs (as Zulip's web app). */
  const caller = async (req: FastifyRequest, mode: 'file' | 'download' | 'url' | 'json'): Promise<UserRow | null> => {
    if (mode === 'json') return (await authenticateSession(svc, req, { required: true, csrf: false }))!.user;
    if (mode === 'url' || req.headers.authorization !== undefined) return authenticate(svc, limits, req, mode === 'url');
    return (await requestSession(svc, req))?.user ?? null;
  };
  /** The attachment at `pathId` if the caller may read it; else null, with the answer (404, 403, or 401) sent or thrown. */
  const access = async (req: FastifyRequest, reply: FastifyReply, pathId: string, mode: 'file' | 'download' | 'url' | 'json'): Promise<AttachmentRow | null> => {
    const user = await caller(req, mode);
    // Under /api/v1 and /json the answers are Zulip's JSON envelope; the file URLs answer HTML as Zulip's do.
    const api = mode === 'url' || mode === 'json';
    if (pathId.includes('\0')) {
      // No stored path holds U+0000 (and no database text can).
      if (api) throw new ApiError('This file does not exist or has been deleted.', { status: 404 });
      notFound(reply);
      return null;
    }
    if (user) await countApiRequest(limits, user.id, reply);
    const v = await validateAttachmentRequest(svc, svc.store.db, user, pathId);
    if (!v && api) throw new ApiError('This file does not exist or has been deleted.', { status: 404 });
    if (!v) {
      notFound(reply);
      return null;
    }
    if (!v.authorized) {
      if (!user) throw unauthorized();
      if (api) throw new ApiError('You are not authorized to view this file.', { status: 403 });
      reply.code(403).header('Content-Type', 'text/html; charset=utf-8').header('Vary', 'Accept').send('<p>You are not authorized to view this file.</p>');
      return null;
    }
    return v.attachment;
  };
  const serve = (mode: 'file' | 'download' | 'url' | 'json') => async (req: FastifyRequest, reply: FastifyReply) => {
    const params = req.params as Params;
    const attachment = await access(req, reply, `${params.realm_id_str}/${params['*']}`, mode);
    if (!attachment) return;
    if (mode === 'url' || mode === 'json') {
      reply.send({ result: 'success', msg: '', url: temporaryUrl(attachment.path_id) });
      return;
    }
    await sendFile(svc, reply, attachment.path_id, attachment.content_type, mode === 'download');
  };

  // An uploaded image's thumbnail: /user_uploads/thumbnail/<path_id>/<format name>,
  // readable by whoever may read the image; a format not made gives the closest made one.
  app.get('/user_uploads/thumbnail/*', async (req, reply) => {
    const rest = (req.params as { '*': string })['*'];
    const cut = rest.lastIndexOf('/');
    if (cut <= 0) return notFound(reply);
    const attachment = await access(req, reply, rest.slice(0, cut), 'file');
    if (!attachment) return;
    const data = await readThumbnail(svc, attachment, rest.slice(cut + 1));
    if (!data) return notFound(reply);
    reply
      .header('Content-Type', 'image/webp')
      .header('Cache-Control', 'private, immutable')
      .header('X-Content-Type-Options', 'nosniff')
      .send(data);
  });

  app.get('/user_uploads/temporary/:token/:filename', async (req, reply) => {
    const { token, filename } = req.params as { token: string; filename: string };
    if (filename.includes('\0')) return notFound(reply);
    const pathId = pathIdFromToken(token, filename);
    const v = await validateAttachmentRequest(svc, svc.store.db, null, pathId);
    if (!v) return notFound(reply);
    await sendFile(svc, reply, v.attachment.path_id, v.attachment.content_type, false);
  });
  app.get('/user_uploads/download/:realm_id_str/*', serve('download'));
  app.get('/user_uploads/:realm_id_str/*', serve('file'));
  app.get('/api/v1/user_uploads/:realm_id_str/*', serve('url'));
  app.get('/json/user_uploads/:realm_id_str/*', serve('json'));

  // The image of an inline preview (/thumbnail?url=<image URL>&size=thumbnail|full, as
  // the renderer writes it): for a logged-in caller, a redirect to the image.
  app.get('/thumbnail', async (req, reply) => {
    const user = await caller(req, 'file');
    if (!user) throw unauthorized();
    await countApiRequest(limits, user.id, reply);
    const query = parseForm((req.query as { __raw?: string }).__raw ?? '');
    const url = query.get('url');
    const size = query.get('size') ?? undefined;
    // Another site's image, or one of this server's uploads (`user_uploads/...`, whose own route checks access).
    const upload = typeof url === 'string' && url.startsWith('user_uploads/') && !url.split(/[/\\]/).includes('..');
    if (typeof url !== 'string' || !(upload || /^https?:\/\//i.test(url)) || url.includes('\0')) throw new ApiError('Invalid URL', { status: 400 });
    if (size !== undefined && size !== 'thumbnail' && size !== 'full') throw new ApiError('Invalid size.', { status: 400 });
    reply.code(302).header('Location', upload ? `/${url}` : url).header('Cache-Control', 'private, max-age=3600').send();
  });
}
