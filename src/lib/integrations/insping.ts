/**
 * Insping (/api/v1/external/insping): a checked site's state changed, with
 * its URL, response time and when; topic: `insping`. Hello World
 * (/api/v1/external/helloworld), Zulip's example integration: a greeting
 * with a featured article; topic: `Hello World`.
 */
import { isoGlobalTime, jsonPayload, type Integration, type WebhookMessage } from './types.ts';

export const insping: Integration = {
  name: 'Insping',
  handle(req): WebhookMessage[] {
    const data = jsonPayload(req).at('webhook_event_data');
    const state = data.at('check_state_name').str();
    const url = data.at('request_url').str();
    const time = data.at('response_time').int();
    const when = isoGlobalTime(data.at('request_start_time'));
    return [{ topic: 'insping', body: `State changed to **${state}**:\n* **URL**: ${url}\n* **Response time**: ${time} ms\n* **Timestamp**: ${when}` }];
  },
};

export const helloworld: Integration = {
  name: 'HelloWorld',
  displayName: 'Hello World',
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const article = `**[${p.at('featured_title').str()}](${p.at('featured_url').str()})**`;
    return [{ topic: 'Hello World', body: `Hello! I am happy to be here! :smile:\nThe Wikipedia featured article for today is ${article}` }];
  },
};
