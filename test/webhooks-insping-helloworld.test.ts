/**
 * The Insping and Hello World integrations: Zulip's own test cases, and
 * malformed payloads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('misc');
const { hook, expectPosted } = h;

const FORM = { contentType: 'application/x-www-form-urlencoded' };

test('insping: a site available or not responding', async () => {
  const event = (state: string, time: number, start: string) => ({
    organization_name: 'test',
    webhook_event_data: { check_state_name: state, request_start_time: start, request_url: 'http://privisus.zulipdev.org:9991', response_time: time },
  });
  const m = await expectPosted(
    await hook('insping', event('Available', 223, '2017-12-29T17:23:46.457990+00:00'), FORM),
    'insping',
    'State changed to **Available**:\n* **URL**: http://privisus.zulipdev.org:9991\n* **Response time**: 223 ms\n* **Timestamp**: <time:2017-12-29T17:23:46+00:00>',
  );
  assert.equal(m.client, 'ZulipInspingWebhook');
  await expectPosted(
    await hook('insping', event('Not Responding', 942, '2017-12-29T17:13:46.788129+00:00'), FORM),
    'insping',
    'State changed to **Not Responding**:\n* **URL**: http://privisus.zulipdev.org:9991\n* **Response time**: 942 ms\n* **Timestamp**: <time:2017-12-29T17:13:46+00:00>',
  );
  assertError(await hook('insping', event('Available', 1, 'soon')), 400, 'BAD_REQUEST', "payload['webhook_event_data']['request_start_time'] is not a valid ISO datetime");
});

test('helloworld: the greeting and the featured article; the URL generator\'s entry', async () => {
  const m = await expectPosted(
    await hook('helloworld', { featured_title: 'Goodbye', featured_url: 'https://en.wikipedia.org/wiki/Goodbye' }, FORM),
    'Hello World',
    'Hello! I am happy to be here! :smile:\nThe Wikipedia featured article for today is **[Goodbye](https://en.wikipedia.org/wiki/Goodbye)**',
  );
  assert.equal(m.client, 'ZulipHelloWorldWebhook');
  assertError(await hook('helloworld', { featured_title: 'x' }), 400, 'BAD_REQUEST', "payload['featured_url'] is missing");
  assert.equal((await h.listed('helloworld'))?.display_name, 'Hello World');
});
