/**
 * The Errbit integration: Zulip's own test case (an error message, its
 * payload trimmed to what is read), malformed payloads, and the entry the
 * URL generator lists.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('errbit');
const { hook, expectPosted } = h;

const problem = {
  url: 'https://errbit.example.com/apps/5e1ed1ff1a603f3916f4f0de/problems/5e1fe93e1a603f3916f4f0e3',
  app_name: 'ZulipIntegrationTest',
  environment: 'ErrbitEnvName',
  error_class: 'IllegalStateException',
  message: 'Invalid state error',
  notices_count: 5,
};

test('errbit: an error message, linked to its problem', async () => {
  const m = await expectPosted(
    await hook('errbit', { problem }),
    'ZulipIntegrationTest / ErrbitEnvName',
    '[IllegalStateException](https://errbit.example.com/apps/5e1ed1ff1a603f3916f4f0de/problems/5e1fe93e1a603f3916f4f0e3): "Invalid state error" occurred.',
  );
  assert.equal(m.client, 'ZulipErrbitWebhook');
});

test('errbit: malformed payloads are refused with a 400 naming the field', async () => {
  assertError(await hook('errbit', {}), 400, 'BAD_REQUEST', "payload['problem'] is missing");
  const { environment: _, ...noEnvironment } = problem;
  assertError(await hook('errbit', { problem: noEnvironment }), 400, 'BAD_REQUEST', "payload['problem']['environment'] is missing");
  assertError(await hook('errbit', { problem: { ...problem, message: null } }), 400, 'BAD_REQUEST', "payload['problem']['message'] is not a string");
  assertError(await hook('errbit', { problem: 'oops' }), 400, 'BAD_REQUEST', "payload['problem'] is not a dict");
  assertError(await hook('errbit', 'not json'), 400, 'BAD_REQUEST', 'Malformed JSON');
});

test('errbit: listed for the URL generator without event types or URL options', async () => {
  assert.deepEqual(await h.listed('errbit'), { name: 'errbit', display_name: 'Errbit', all_event_types: null, config_options: [], url_options: [] });
});
