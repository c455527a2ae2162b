/**
 * Canarytokens (/api/v1/external/canarytoken): a token from canarytokens.org
 * was triggered, with when (canarytokens.org's UTC time, shown in each
 * reader's time zone), the token's memo and a link to manage it. Tokens of
 * Thinkst's paid Canary product send another document (see thinkst.ts).
 * Topic: `canarytoken alert`.
 */
import { Wild } from './wild.ts';
import { isoGlobalTime, jsonPayload, type Integration, type WebhookMessage } from './types.ts';

export const canarytoken: Integration = {
  name: 'Canarytokens',
  displayName: 'Thinkst Canarytokens',
  handle(req): WebhookMessage[] {
    // The body is named `message` in validation errors; canarytokens.org posts
    // it as JSON whatever its Content-Type says.
    const m = new Wild('message', jsonPayload(req).value);
    const time = m.at('time');
    // "YYYY-MM-DD HH:MM:SS", sometimes followed by "(UTC)": a UTC time.
    const when = isoGlobalTime(new Wild(time.name, `${time.str().replace('(UTC)', '').trim()}+00:00`));
    const body = `**:alert: Canarytoken has been triggered on ${when}!**\n\n${m.at('memo').str()} \n\n[Manage this canarytoken](${m.at('manage_url').str()})`;
    return [{ topic: 'canarytoken alert', body }];
  },
};
