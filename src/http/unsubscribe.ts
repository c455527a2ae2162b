/**
 * Email unsubscribe links (/accounts/unsubscribe/<type>/<key>): they work
 * without logging in, as Zulip's do. The key names the user and the kind of
 * email (missed_messages, digest); following it turns that email off and
 * shows a small page. Unknown links are 404.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Services } from '../services.ts';
import { escapeHtml } from './signup.ts';
import { unsubscribe } from '../actions/missed-message-emails.ts';

const WHAT: Record<string, string> = { missed_messages: 'missed message emails', digest: 'digest emails' };

function page(reply: FastifyReply, status: number, title: string, text: string): void {
  reply
    .code(status)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .header('Referrer-Policy', 'no-referrer')
    .send(
      '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
        `<title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></main></body></html>`,
    );
}

export function registerUnsubscribe(app: FastifyInstance, svc: Services): void {
  app.route({
    method: ['GET', 'POST'],
    url: '/accounts/unsubscribe/:type/:key',
    handler: async (req, reply) => {
      const { type, key } = req.params as { type: string; key: string };
      const user = await unsubscribe(svc, type, key);
      if (!user) {
        page(reply, 404, 'Unknown email unsubscribe request', 'This unsubscribe link is not valid. You can change your email preferences in your notification settings.');
        return;
      }
      page(reply, 200, 'Unsubscribed successfully!', `You've successfully unsubscribed from ${WHAT[type]} for ${user.delivery_email}. You can turn them back on in your notification settings.`);
    },
  });
}
