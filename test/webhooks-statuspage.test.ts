/**
 * The Statuspage integration: Zulip's own test cases (payloads trimmed to
 * what is read; Statuspage posts JSON labelled as a form), its event types,
 * the anomalous payload and malformed ones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('statuspage-test');
const { hook, expectPosted } = h;
const form = { contentType: 'application/x-www-form-urlencoded' };
const incident = (status: string, body: string) => ({
  page: { status_indicator: 'critical', status_description: 'All Systems Operational' },
  incident: { name: 'Database query delays', status, incident_updates: [{ status, body }] },
});
const COMPONENT = {
  page: { status_description: 'Service Under Maintenance' },
  component: { status: 'under_maintenance', name: 'Database component' },
  component_update: { old_status: 'operational', new_status: 'under_maintenance' },
};

test('statuspage: an incident created and updated; a component changing status', async () => {
  await expectPosted(
    await hook('statuspage', incident('identified', "We just encountered that database queries are timing out resulting in inconvenience to our end users...we'll do quick fix latest by tomorrow !!!"), form),
    'Database query delays: All Systems Operational',
    "**Database query delays**:\n* State: **identified**\n* Description: We just encountered that database queries are timing out resulting in inconvenience to our end users...we'll do quick fix latest by tomorrow !!!",
  );
  await expectPosted(
    await hook('statuspage', incident('resolved', 'The database issue is resolved.'), form),
    'Database query delays: All Systems Operational',
    '**Database query delays**:\n* State: **resolved**\n* Description: The database issue is resolved.',
  );
  await expectPosted(await hook('statuspage', COMPONENT, form), 'Database component: Service Under Maintenance', '**Database component** has changed status from **operational** to **under_maintenance**.');
  // A payload with both is an incident.
  await expectPosted(await hook('statuspage', { ...COMPONENT, ...incident('monitoring', 'Watching.') }), 'Database query delays: All Systems Operational', '**Database query delays**:\n* State: **monitoring**\n* Description: Watching.');
});

test('statuspage: event types filter; the anomalous payload; malformed payloads; its entry for the URL generator', async () => {
  const before = (await h.last()).id;
  assertSuccess(await hook('statuspage', COMPONENT, { query: { only_events: '["incident"]' } }));
  assertSuccess(await hook('statuspage', incident('resolved', 'x'), { query: { exclude_events: '["inc*"]' } }));
  assert.equal((await h.last()).id, before);
  assertError(await hook('statuspage', {}), 400, 'ANOMALOUS_WEBHOOK_PAYLOAD', 'Unable to parse request: Did Statuspage generate this event?');
  assertError(await hook('statuspage', { ...incident('x', 'y'), incident: { name: 'n', status: 's', incident_updates: [] } }), 400, 'BAD_REQUEST', "payload['incident']['incident_updates'][0] is missing");
  assertError(await hook('statuspage', { incident: { name: 'n' } }), 400, 'BAD_REQUEST', "payload['page'] is missing");
  assertError(await hook('statuspage', { ...COMPONENT, component_update: { old_status: 'operational', new_status: null } }), 400, 'BAD_REQUEST', "payload['component_update']['new_status'] is not a string");
  assertError(await hook('statuspage', ['incident']), 400, 'BAD_REQUEST', 'payload is not a dict');
  assert.equal((await h.last()).id, before);
  assert.deepEqual(await h.listed('statuspage'), { name: 'statuspage', display_name: 'Statuspage', all_event_types: ['incident', 'component'], config_options: [], url_options: [] });
});
