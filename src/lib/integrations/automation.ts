/**
 * Zapier (/api/v1/external/zapier) and IFTTT (/api/v1/external/ifttt): the
 * automation services compose the message themselves, so the payload is a
 * topic and the content (`subject` is the older name of `topic`), sent as
 * they are. Zapier's app first checks its connection with a payload of
 * `"type": "auth"`, answered with the bot's name, email and ID. IFTTT
 * refuses a topic or content that is not text as "Malformed payload".
 */
import { badRequest } from '../errors.ts';
import type { Wild } from './wild.ts';
import { IDENTIFY_BOT, jsonPayload, type Integration, type WebhookMessage } from './types.ts';

/** The payload's `topic` (or older `subject`, read after the content, as Zulip reads it) and `content`, each null when absent or null. */
function topicAndContent(p: Wild): { topic: string | null; content: string | null } {
  let topic = p.get('topic').strOrNull();
  const content = p.get('content').strOrNull();
  if (topic === null) topic = p.get('subject').strOrNull();
  return { topic, content };
}

/** One message, or Zulip's error for what is missing. */
function composed(topic: string | null, content: string | null): WebhookMessage[] {
  if (topic === null) throw badRequest("Topic can't be empty");
  if (content === null) throw badRequest("Content can't be empty");
  return [{ topic, body: content }];
}

export const zapier: Integration = {
  name: 'Zapier',
  notifyOnMalformedJson: false,
  handle(req) {
    const p = jsonPayload(req);
    if (p.get('type').strOrNull() === 'auth') return IDENTIFY_BOT;
    const { topic, content } = topicAndContent(p);
    return composed(topic, content);
  },
};

export const ifttt: Integration = {
  name: 'IFTTT',
  handle(req) {
    const p = jsonPayload(req);
    let fields;
    try {
      fields = topicAndContent(p);
    } catch {
      throw badRequest('Malformed payload');
    }
    return composed(fields.topic, fields.content);
  },
};
