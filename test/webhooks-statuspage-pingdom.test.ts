/**
 * The Statuspage and Pingdom integrations: Zulip's own test cases (payloads
 * trimmed to what is read), their errors and their event types.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('monitors');
const { hook, expectPosted } = h;
const form = { contentType: 'application/x-www-form-urlencoded' };

test('statuspage: incidents and components; a payload with neither', async () => {
  const incident = (status: string, body: string) => ({ page: { status_description: 'All Systems Operational' }, incident: { name: 'Database query delays', status, incident_updates: [{ body }] } });
  await expectPosted(
    await hook('statuspage', incident('identified', "We just encountered that database queries are timing out resulting in inconvenience to our end users...we'll do quick fix latest by tomorrow !!!"), form),
    'Database query delays: All Systems Operational',
    "**Database query delays**:\n* State: **identified**\n* Description: We just encountered that database queries are timing out resulting in inconvenience to our end users...we'll do quick fix latest by tomorrow !!!",
  );
  await expectPosted(await hook('statuspage', incident('resolved', 'The database issue is resolved.'), form), 'Database query delays: All Systems Operational', '**Database query delays**:\n* State: **resolved**\n* Description: The database issue is resolved.');
  const component = { page: { status_description: 'Service Under Maintenance' }, component: { name: 'Database component' }, component_update: { old_status: 'operational', new_status: 'under_maintenance' } };
  await expectPosted(await hook('statuspage', component, form), 'Database component: Service Under Maintenance', '**Database component** has changed status from **operational** to **under_maintenance**.');
  const before = (await h.last()).id;
  assertSuccess(await hook('statuspage', component, { query: { only_events: '["incident"]' } }));
  assert.equal((await h.last()).id, before);
  const anomalous = await hook('statuspage', {});
  assertError(anomalous, 400, 'ANOMALOUS_WEBHOOK_PAYLOAD', 'Unable to parse request: Did Statuspage generate this event?');
  assertError(await hook('statuspage', { ...incident('x', 'y'), incident: { name: 'n', status: 's', incident_updates: [] } }), 400, 'BAD_REQUEST', "payload['incident']['incident_updates'][0] is missing");
  assert.deepEqual(await h.listed('statuspage'), { name: 'statuspage', display_name: 'Statuspage', all_event_types: ['incident', 'component'], config_options: [], url_options: [] });
});

test('pingdom: checks going down (with the reason) and back up; unsupported check types', async () => {
  const check = (type: string, name: string, host: string, previous: string, current: string, long: string) => ({ check_name: name, check_type: type, check_params: { hostname: host }, previous_state: previous, current_state: current, long_description: long });
  await expectPosted(
    await hook('pingdom', check('HTTP', 'Test check', 'someurl.com', 'UP', 'DOWN', 'Non-recoverable failure in name resolution')),
    'Test check status.',
    'Service someurl.com changed its HTTP status from UP to DOWN:\n\n``` quote\nNon-recoverable failure in name resolution\n```',
  );
  await expectPosted(await hook('pingdom', check('SMTP', 'SMTP check', 'smtp.someurl.com', 'UP', 'DOWN', 'Connection refused')), 'SMTP check status.', 'Service smtp.someurl.com changed its SMTP status from UP to DOWN:\n\n``` quote\nConnection refused\n```');
  await expectPosted(await hook('pingdom', check('IMAP', 'IMAP check', 'imap.someurl.com', 'DOWN', 'UP', 'OK')), 'IMAP check status.', 'Service imap.someurl.com changed its IMAP status from DOWN to UP.');
  const before = (await h.last()).id;
  assertSuccess(await hook('pingdom', check('IMAP', 'IMAP check', 'imap.someurl.com', 'DOWN', 'UP', 'OK'), { query: { exclude_events: '["IMAP"]' } }));
  assert.equal((await h.last()).id, before);
  assertError(await hook('pingdom', check('TRANSACTION', 'T', 'h', 'UP', 'DOWN', 'x')), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', "The 'TRANSACTION' event isn't currently supported by the Pingdom webhook; ignoring");
  assertError(await hook('pingdom', { check_type: 'HTTP', check_name: 'n' }), 400, 'BAD_REQUEST', "payload['current_state'] is missing");
  assert.deepEqual(await h.listed('pingdom'), {
    name: 'pingdom',
    display_name: 'Pingdom',
    all_event_types: ['HTTP', 'HTTP_CUSTOM', 'HTTPS', 'SMTP', 'POP3', 'IMAP', 'PING', 'DNS', 'UDP', 'PORT_TCP'],
    config_options: [],
    url_options: [],
  });
});
