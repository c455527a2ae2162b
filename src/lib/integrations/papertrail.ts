/**
 * Papertrail (/api/v1/external/papertrail): a saved search's alert, its
 * JSON in the form field `payload`: the search and how many events matched,
 * then the first four events (time, source, query, the line quoted) and a
 * link to see more; topic: "logs".
 */
import { badRequest } from '../errors.ts';
import { isoGlobalTime, jsonParam, type Integration, type WebhookMessage } from './types.ts';

export const papertrail: Integration = {
  name: 'Papertrail',
  handle(req): WebhookMessage[] {
    const p = jsonParam(req, 'payload');
    if (!p.has('events')) throw badRequest('Events key is missing from payload');
    const search = p.at('saved_search');
    const [name, url] = [search.at('name').str(), search.at('html_search_url').str()];
    const parts = [`[Search for "${name}"](${url}) found **${p.at('events').length()}** matches:\n`];
    for (const [i, event] of p.at('events').list().entries()) {
      const time = isoGlobalTime(event.at('received_at'));
      const source = event.at('source_name').str();
      const query = search.at('query').str();
      parts.push(`${time} - ${source} - ${query}:\n\`\`\` quote\n${event.at('message').str()}\n\`\`\``);
      if (i >= 3) {
        parts.push(`[See more](${url})`);
        break;
      }
    }
    return [{ topic: 'logs', body: parts.join('\n') }];
  },
};
