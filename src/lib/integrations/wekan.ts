/**
 * Wekan (/api/v1/external/wekan): Wekan's outgoing webhook writes its own
 * sentence (`text`) followed by a line with the card's or board's URL; the
 * sentence becomes the message, with a link to see it in Wekan. Topic:
 * `Wekan Notification`.
 */
import { jsonPayload, type Integration, type WebhookMessage } from './types.ts';

export const wekan: Integration = {
  name: 'Wekan',
  handle(req): WebhookMessage[] {
    const text = jsonPayload(req).at('text').str();
    const url = text.split('\n').pop()!;
    // Zulip removes the URL wherever it appears, and every line break.
    const sentence = (url ? text.split(url).join('') : text).replace(/\n/g, '');
    return [{ topic: 'Wekan Notification', body: `${sentence}.\n\n[See in Wekan](${url})` }];
  },
};
