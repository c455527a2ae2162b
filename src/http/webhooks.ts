/**
 * Incoming webhooks at /api/v1/external/<integration>, outside the declared
 * route table because their bodies are the third party's own documents
 * (JSON, or Slack's form-encoded `payload`). The caller is identified by the
 * `api_key` query parameter (or HTTP Basic); `stream`, `topic`,
 * `only_events` and `exclude_events` are read from the query string or form.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';
import { authenticate, authenticateApiKey, countApiRequest, type AuthLimits } from './auth.ts';
import { parseForm } from './form.ts';
import { missingArgument } from '../lib/errors.ts';
import { INTEGRATIONS, receiveWebhook } from '../actions/incoming-webhooks.ts';

export const WEBHOOK_PATH_PREFIX = '/api/v1/external/';

function rawQuery(req: FastifyRequest): string {
  return (req.query as { __raw?: string }).__raw ?? '';
}

export function registerIncomingWebhooks(app: FastifyInstance, svc: Services, limits: AuthLimits): void {
  app.route({
    method: ['GET', 'POST'],
    url: `${WEBHOOK_PATH_PREFIX}:integration`,
    handler: async (req, reply) => {
      const name = (req.params as { integration: string }).integration;
      if (!Object.prototype.hasOwnProperty.call(INTEGRATIONS, name)) {
        reply.code(404).send({ result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
        return;
      }
      const fields = parseForm(rawQuery(req));
      if (req.formFields) for (const [k, v] of req.formFields) if (!fields.has(k)) fields.set(k, v);
      const apiKey = fields.get('api_key');
      let user;
      if (apiKey !== undefined) user = await authenticateApiKey(svc, limits, req, apiKey);
      else if (req.headers.authorization !== undefined) user = (await authenticate(svc, limits, req, true, { allowIncomingWebhooks: true }))!;
      else throw missingArgument('api_key');
      await countApiRequest(limits, user.id, reply);
      if (req.method === 'HEAD' && INTEGRATIONS[name].succeedsOnHead) {
        reply.send({ result: 'success', msg: '' });
        return;
      }
      const contentType = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      const data = await receiveWebhook(svc, user, name, {
        path: req.url.split('?')[0],
        body: (req.rawBody ?? req.jsonBody)?.toString('utf8') ?? '',
        contentType,
        header: (h) => {
          const v = req.headers[h.toLowerCase()];
          return Array.isArray(v) ? v[0] : v;
        },
        param: (k) => fields.get(k),
      });
      reply.send({ result: 'success', msg: '', ...data });
    },
  });
}
