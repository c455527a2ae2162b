/**
 * Serving data export archives at /exports/<realm_id>/<random>/<name>.tar.gz
 * (the export_url of GET /export/realm) to the organization's
 * administrators, with HTTP Basic authentication or the web session.
 * Unknown or deleted archives are 404, other users 403, both with small
 * HTML bodies as for uploaded files.
 */
import { createReadStream, statSync } from 'node:fs';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Services } from '../services.ts';
import { unauthorized } from '../lib/errors.ts';
import { authenticate, countApiRequest, type AuthLimits } from './auth.ts';
import { requestSession } from './web.ts';
import { exportArchiveForDownload, EXPORTS_URL_PREFIX } from '../actions/realm-export.ts';
import { isAdminRole } from '../actions/users-format.ts';

function html(reply: FastifyReply, status: number, text: string): void {
  reply.code(status).header('Content-Type', 'text/html; charset=utf-8').send(`<p>${text}</p>`);
}

export function registerExportServing(app: FastifyInstance, svc: Services, limits: AuthLimits): void {
  app.get(`${EXPORTS_URL_PREFIX}*`, async (req, reply) => {
    const path = (req.params as { '*': string })['*'];
    const user = req.headers.authorization !== undefined ? await authenticate(svc, limits, req, true) : ((await requestSession(svc, req))?.user ?? null);
    if (!user) throw unauthorized();
    await countApiRequest(limits, user.id, reply);
    if (!isAdminRole(user.role)) return html(reply, 403, 'You are not authorized to view this file.');
    const file = path.includes('\0') ? null : await exportArchiveForDownload(svc, user, path);
    let size: number;
    try {
      if (!file) throw new Error('no archive');
      size = statSync(file).size;
    } catch {
      return html(reply, 404, 'This file does not exist or has been deleted.');
    }
    return reply
      .header('Content-Type', 'application/gzip')
      .header('Content-Length', String(size))
      .header('Content-Disposition', `attachment; filename="${path.split('/').pop()!.replace(/[^A-Za-z0-9._-]/g, '_')}"`)
      .header('Cache-Control', 'private, no-store')
      .header('X-Content-Type-Options', 'nosniff')
      .send(createReadStream(file!));
  });
}
