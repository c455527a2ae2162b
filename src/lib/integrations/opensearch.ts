/**
 * OpenSearch (/api/v1/external/opensearch): OpenSearch's alerting sends its
 * notification's text as the body (whatever Content-Type it names), which
 * becomes the message; a first line `topic: <name>` names the topic, else
 * `OpenSearch alerts`.
 */
import type { Integration, WebhookMessage } from './types.ts';

export const opensearch: Integration = {
  name: 'OpenSearch',
  notifyOnMalformedJson: false,
  handle(req): WebhookMessage[] {
    const text = req.body;
    const end = text.indexOf('\n');
    if (text.startsWith('topic:') && end !== -1) return [{ topic: text.slice(6, end).trim(), body: text.slice(end + 1) }];
    return [{ topic: 'OpenSearch alerts', body: text }];
  },
};
