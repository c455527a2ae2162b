/**
 * Serving public images (custom emoji, avatars, the organization's icon and
 * logo) at /user_avatars/<path>, without authentication, as Zulip's web
 * server does for its avatar storage.
 */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { avatarContentType, readAvatarFile } from '../actions/avatar-files.ts';

export function registerAvatarServing(app: FastifyInstance, svc: Services): void {
  app.get('/user_avatars/*', async (req, reply) => {
    const path = (req.params as { '*': string })['*'];
    const data = await readAvatarFile(svc, path);
    if (!data) {
      reply.code(404).header('Content-Type', 'text/html; charset=utf-8').send('<p>File not found</p>');
      return;
    }
    reply
      .header('Content-Type', avatarContentType(path))
      .header('Cache-Control', 'public, max-age=86400')
      .header('X-Content-Type-Options', 'nosniff')
      .send(data);
  });
}
