/**
 * The Canarytokens integration: Zulip's own test cases (canarytokens.org's
 * test alert and a real one, posted as JSON under a form Content-Type; a
 * topic chosen in the URL), times with and without "(UTC)", malformed
 * payloads, and the entry the URL generator lists.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('canarytoken');
const { hook, expectPosted } = h;

const FORM = { contentType: 'application/x-www-form-urlencoded' };
const real = {
  manage_url: 'https://canarytokens.org/manage?token=foo&auth=bar',
  memo: 'Canarytoken example',
  additional_data: { src_ip: '81.151.13.3', referer: null, location: null },
  channel: 'HTTP',
  time: '2020-06-09 14:04:47 (UTC)',
};
const REAL_TEXT =
  '**:alert: Canarytoken has been triggered on <time:2020-06-09T14:04:47+00:00>!**\n\n' +
  'Canarytoken example \n\n' +
  '[Manage this canarytoken](https://canarytokens.org/manage?token=foo&auth=bar)';

test("canarytoken: canarytokens.org's test alert and a real one", async () => {
  const saved = { manage_url: 'http://example.com/test/url/for/webhook', memo: 'Congrats! The newly saved webhook works', channel: 'HTTP', time: '2020-06-09 14:04:39' };
  const m = await expectPosted(
    await hook('canarytoken', saved, FORM),
    'canarytoken alert',
    '**:alert: Canarytoken has been triggered on <time:2020-06-09T14:04:39+00:00>!**\n\n' +
      'Congrats! The newly saved webhook works \n\n' +
      '[Manage this canarytoken](http://example.com/test/url/for/webhook)',
  );
  assert.equal(m.client, 'ZulipCanarytokensWebhook');
  await expectPosted(await hook('canarytoken', real, FORM), 'canarytoken alert', REAL_TEXT);
  // As JSON too, and with the time's fraction of a second dropped.
  await expectPosted(await hook('canarytoken', { ...real, time: '2020-06-09 14:04:47.250 (UTC)' }), 'canarytoken alert', REAL_TEXT);
});

test('canarytoken: a topic chosen in the URL', async () => {
  await expectPosted(await hook('canarytoken', real, { ...FORM, query: { topic: 'foo' } }), 'foo', REAL_TEXT);
});

test('canarytoken: malformed payloads are refused with a 400', async () => {
  const { memo: _, ...noMemo } = real;
  assertError(await hook('canarytoken', noMemo, FORM), 400, 'BAD_REQUEST', "message['memo'] is missing");
  assertError(await hook('canarytoken', { ...real, time: 1591711487 }), 400, 'BAD_REQUEST', "message['time'] is not a string");
  assertError(await hook('canarytoken', { ...real, time: 'yesterday' }), 400, 'BAD_REQUEST', "message['time'] is not a valid ISO datetime");
  // A time that already names its offset is not canarytokens.org's.
  assertError(await hook('canarytoken', { ...real, time: '2020-06-09 14:04:47+02:00' }), 400, 'BAD_REQUEST', "message['time'] is not a valid ISO datetime");
  assertError(await hook('canarytoken', 'memo=hello', FORM), 400, 'BAD_REQUEST', 'Malformed JSON');
});

test('canarytoken: listed as Thinkst Canarytokens, without event types or URL options', async () => {
  assert.deepEqual(await h.listed('canarytoken'), { name: 'canarytoken', display_name: 'Thinkst Canarytokens', all_event_types: null, config_options: [], url_options: [] });
});
