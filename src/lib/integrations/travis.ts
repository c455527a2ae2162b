/**
 * Travis CI (/api/v1/external/travis): a build's notification, its JSON in
 * the form field `payload`: who, the status (with Zulip's emoji), links to
 * the changes and the build log; the build's `type` (`push` or
 * `pull_request`) is the event type; topic: "builds".
 */
import { jsonParam, type Integration, type WebhookMessage } from './types.ts';

const GOOD = ['Passed', 'Fixed'];
const BAD = ['Failed', 'Broken', 'Still Failing', 'Errored', 'Canceled'];
const PENDING = ['Pending'];

function emojiOf(status: string): string {
  if (GOOD.includes(status)) return ':thumbs_up:';
  if (BAD.includes(status)) return ':thumbs_down:';
  if (PENDING.includes(status)) return ':counterclockwise:';
  return `(No emoji specified for status '${status}'.)`;
}

export const travis: Integration = {
  name: 'Travis',
  displayName: 'Travis CI',
  eventTypes: ['push', 'pull_request'],
  handle(req): WebhookMessage[] {
    const p = jsonParam(req, 'payload');
    const [author, status, compare, build, type] = ['author_name', 'status_message', 'compare_url', 'build_url', 'type'].map((k) => p.at(k).str());
    const body = `Author: ${author}\nBuild status: ${status} ${emojiOf(status)}\nDetails: [changes](${compare}), [build log](${build})`;
    return [{ topic: 'builds', body, eventType: type }];
  },
};
