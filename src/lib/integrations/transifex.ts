/**
 * Transifex (/api/v1/external/transifex): a resource fully translated or
 * fully reviewed in a language, from Transifex's webhook parameters
 * (`project`, `resource`, `language`, `event`); event types `translated`,
 * `review`; topic: `<project> in <language>`.
 */
import { badRequest } from '../errors.ts';
import { requiredParam, unsupportedEvent, type Integration, type WebhookMessage, type WebhookRequest } from './types.ts';

/** An optional JSON integer parameter (Transifex's percentages, which the text does not use). */
function checkJsonInt(req: WebhookRequest, name: string): void {
  const raw = req.param(name);
  if (raw === undefined) return;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw badRequest(`Argument "${name}" is not valid JSON.`);
  }
  if (v !== null && !Number.isInteger(v)) throw badRequest(`${name} is not an integer`);
}

export const transifex: Integration = {
  name: 'Transifex',
  notifyOnMalformedJson: false,
  eventTypes: ['translated', 'review'],
  handle(req): WebhookMessage[] {
    const project = requiredParam(req, 'project');
    const resource = requiredParam(req, 'resource');
    const language = requiredParam(req, 'language');
    const event = requiredParam(req, 'event');
    checkJsonInt(req, 'translated');
    checkJsonInt(req, 'reviewed');
    const topic = `${project} in ${language}`;
    if (event === 'translation_completed') return [{ topic, body: `Resource ${resource} fully translated.`, eventType: 'translated' }];
    if (event === 'review_completed') return [{ topic, body: `Resource ${resource} fully reviewed.`, eventType: 'review' }];
    throw unsupportedEvent('Transifex', event);
  },
};
