/**
 * Splunk (/api/v1/external/splunk): a saved search's alert: the search (a
 * link to its results), the host, source and raw event of the result that
 * triggered it, each replaced by "Missing <field>" when Splunk left it out;
 * topic: the search's name, cut below 60 characters.
 */
import { jsonPayload, type Integration, type WebhookMessage } from './types.ts';

/** Zulip's MAX_TOPIC_NAME_LENGTH. */
const MAX_TOPIC = 60;

export const splunk: Integration = {
  name: 'Splunk',
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const search = p.get('search_name', 'Missing search_name').str();
    const link = p.get('results_link', 'Missing results_link').str();
    const result = p.get('result', {});
    const host = result.get('host', 'Missing host').str();
    const source = result.get('source', 'Missing source').str();
    const raw = result.get('_raw', 'Missing _raw').str();
    const chars = [...search];
    const topic = chars.length >= MAX_TOPIC ? `${chars.slice(0, MAX_TOPIC - 3).join('')}...` : search;
    const body = `Splunk alert from saved search:\n* **Search**: [${search}](${link})\n* **Host**: ${host}\n* **Source**: \`${source}\`\n* **Raw**: \`${raw}\``;
    return [{ topic, body }];
  },
};
