/**
 * The Papertrail integration: Zulip's own test cases (the alert's JSON in a
 * form field), at most four events and a link to the rest, and malformed
 * payloads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('papertrail');
const SEARCH = { id: 42, name: 'Important stuff', query: 'cron OR server1', html_search_url: 'https://papertrailapp.com/searches/42' };
const event = (source: string, message: string) => ({ received_at: '2011-05-18T20:30:02-07:00', source_name: source, message });
const post = (payload: unknown) => h.hook('papertrail', new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), { contentType: 'application/x-www-form-urlencoded' });
const line = (source: string, message: string) => `<time:2011-05-18T20:30:02-07:00> - ${source} - cron OR server1:\n\`\`\` quote\n${message}\n\`\`\``;

test('papertrail: a search that matched a few events, and one that matched more than four', async () => {
  await h.expectPosted(
    await post({ events: [event('abc', 'message body'), event('server1', 'A short event')], saved_search: SEARCH }),
    'logs',
    `[Search for "Important stuff"](https://papertrailapp.com/searches/42) found **2** matches:\n\n${line('abc', 'message body')}\n${line('server1', 'A short event')}`,
  );
  const five = [1, 2, 3, 4].map((n) => event('abc', `message body ${n}`)).concat([event('server1', 'A short event')]);
  await h.expectPosted(
    await post({ events: five, saved_search: SEARCH }),
    'logs',
    `[Search for "Important stuff"](https://papertrailapp.com/searches/42) found **5** matches:\n\n${[1, 2, 3, 4].map((n) => line('abc', `message body ${n}`)).join('\n')}\n[See more](https://papertrailapp.com/searches/42)`,
  );
});

test('papertrail: a payload without events; malformed payloads; its entry for the URL generator', async () => {
  const before = (await h.last()).id;
  assertError(await post({ saved_search: SEARCH }), 400, 'BAD_REQUEST', 'Events key is missing from payload');
  assertError(await post({ events: [{ ...event('abc', 'm'), received_at: 'May 18' }], saved_search: SEARCH }), 400, 'BAD_REQUEST', "payload['events'][0]['received_at'] is not a valid ISO datetime");
  assertError(await h.hook('papertrail', { events: [] }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'payload' argument");
  // As Zulip reads it: the search's name and link, the number of events, then each event.
  assertError(await post({ events: 'x' }), 400, 'BAD_REQUEST', "payload['saved_search'] is missing");
  assertError(await post({ events: null, saved_search: SEARCH }), 400, 'BAD_REQUEST', "payload['events'] does not have a length");
  assertError(await post({ events: { a: 1 }, saved_search: SEARCH }), 400, 'BAD_REQUEST', "payload['events'] is not a list");
  assertError(await post({ events: [event('abc', 'm')], saved_search: { ...SEARCH, query: 7 } }), 400, 'BAD_REQUEST', "payload['saved_search']['query'] is not a string");
  assertError(await post([]), 400, 'BAD_REQUEST', 'payload is not a dict');
  assert.equal((await h.last()).id, before);
  assert.deepEqual(await h.listed('papertrail'), { name: 'papertrail', display_name: 'Papertrail', all_event_types: null, config_options: [], url_options: [] });
});
