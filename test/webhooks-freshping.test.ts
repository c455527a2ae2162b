/**
 * The Freshping integration: Zulip's own test cases (the webhook test, a
 * check unreachable and reachable again; payloads trimmed to what is read),
 * event filtering, unsupported check states, malformed payloads, and the
 * entry the URL generator lists.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('freshping');
const { hook, expectPosted } = h;

const event = (data: Record<string, unknown>) => ({
  organization_name: 'Example Org',
  webhook_type: 'AL',
  webhook_event_data: { check_name: 'Test Check', application_name: " 's Application", request_url: 'https://example.com', http_status_code: 200, ...data },
});

test('freshping: the webhook test, a check unreachable and reachable again', async () => {
  const m = await expectPosted(
    await hook('freshping', event({ check_state_name: 'Available', check_name: 'Example check', application_name: 'Webhook test', request_url: 'https://www.example.com/' })),
    'Freshping',
    'Freshping webhook has been successfully configured.',
  );
  assert.equal(m.client, 'ZulipFreshpingWebhook');
  await expectPosted(
    await hook('freshping', event({ check_state_name: 'Reporting Error', http_status_code: 521 })),
    'Test Check',
    'https://example.com has just become unreachable.\nError code: 521.',
  );
  await expectPosted(await hook('freshping', event({ check_state_name: 'Available' })), 'Test Check', 'https://example.com is back up and no longer unreachable.');
  // An error reported from Freshping's test application is told as an error, under the test's topic.
  await expectPosted(
    await hook('freshping', event({ check_state_name: 'Reporting Error', application_name: 'Webhook test', http_status_code: 503 })),
    'Freshping',
    'https://example.com has just become unreachable.\nError code: 503.',
  );
});

test('freshping: only_events and exclude_events pick among the check states', async () => {
  const before = await h.last();
  const down = event({ check_state_name: 'Reporting Error', http_status_code: 500 });
  assert.equal((await hook('freshping', down, { query: { only_events: '["available"]' } })).body.result, 'success');
  assert.equal((await hook('freshping', event({ check_state_name: 'Available' }), { query: { exclude_events: '["avail*"]' } })).body.result, 'success');
  assert.equal((await h.last()).id, before.id);
  await expectPosted(await hook('freshping', down, { query: { only_events: '["reporting_error"]' } }), 'Test Check', 'https://example.com has just become unreachable.\nError code: 500.');
});

test('freshping: other check states are not supported; malformed payloads are refused with a 400', async () => {
  const res = await hook('freshping', event({ check_state_name: 'Paused' }));
  assert.equal(res.status, 200);
  assert.equal(res.body.result, 'error');
  assert.equal(res.body.code, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE');
  assert.equal(res.body.msg, "The 'Paused' event isn't currently supported by the Freshping webhook; ignoring");
  assertError(await hook('freshping', { webhook_type: 'AL' }), 400, 'BAD_REQUEST', "payload['webhook_event_data'] is missing");
  assertError(await hook('freshping', event({ check_state_name: null })), 400, 'BAD_REQUEST', "payload['webhook_event_data']['check_state_name'] is not a string");
  assertError(await hook('freshping', event({ check_state_name: 'Reporting Error', http_status_code: '521' })), 400, 'BAD_REQUEST', "payload['webhook_event_data']['http_status_code'] is not an integer");
  const { webhook_event_data: data } = event({ check_state_name: 'Available' });
  const { check_name: _, ...noName } = data;
  assertError(await hook('freshping', { webhook_event_data: noName }), 400, 'BAD_REQUEST', "payload['webhook_event_data']['check_name'] is missing");
});

test('freshping: listed with its event types, without URL options', async () => {
  assert.deepEqual(await h.listed('freshping'), { name: 'freshping', display_name: 'Freshping', all_event_types: ['reporting_error', 'available'], config_options: [], url_options: [] });
});
