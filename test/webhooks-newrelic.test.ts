/**
 * The New Relic integration: Zulip's own test cases (payloads trimmed to what
 * is read), the notice for a payload missing what the message needs, and
 * malformed payloads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('newrelic');
const { hook, expectPosted } = h;

const STORAGE = "PIETER-UBUNTU query result is > 1.0 for 5 minutes on 'Storage on Host Exceeded Threshold'";
const STORAGE_URL = 'https://radar-api.service.newrelic.com/accounts/4420147/issues/13bbcdca-f0b6-470d-b0be-b34583c58869?notifier=WEBHOOK';
const base = (extra: Record<string, unknown>) => ({
  issueUrl: STORAGE_URL,
  title: STORAGE,
  priority: 'HIGH',
  totalIncidents: 1,
  state: 'ACTIVATED',
  createdAt: 1713769949493,
  updatedAt: 1713769949494,
  alertPolicyNames: ['Golden Signals'],
  alertConditionNames: ['Storage on Host Exceeded Threshold'],
  ...extra,
});
const TOPIC = "PIETER-UBUNTU query result is > 1.0 for 5 minutes on 'Sto...";
const text = (state: string, updated: string, owner: string, custom = '') =>
  `:orange_circle: **[${STORAGE}](${STORAGE_URL})**\n\n\`\`\`quote\n**Priority**: HIGH\n**State**: ${state}\n**Updated at**: <time:${updated}>\n${owner}\n\`\`\`\n\n` +
  `\`\`\`spoiler :file: Incident details\n\n- **Alert policies**: \`Golden Signals\`\n- **Conditions**: \`Storage on Host Exceeded Threshold\`\n- **Total incidents**: 1\n- **Incident created at**: <time:2024-04-22T07:12:29+00:00>\n${custom}\n\`\`\``;

test('newrelic: incidents created, activated, acknowledged and closed, with the workflow\'s custom fields', async () => {
  await expectPosted(await hook('newrelic', base({ owner: 'N/A', zulipCustomFields: { 'Your custom payload': 'somedata123' } })), TOPIC, text('ACTIVATED', '2024-04-22T07:12:29+00:00', '', '- **Your custom payload**: somedata123\n'));
  await expectPosted(
    await hook('newrelic', base({ state: 'CLOSED', updatedAt: 1713770135419, owner: 'Pieter Cardillo Kwok', zulipCustomFields: { 'Your custom payload': 'somedata123' } })),
    TOPIC,
    text('CLOSED', '2024-04-22T07:15:35+00:00', '**Acknowledged by**: Pieter Cardillo Kwok', '- **Your custom payload**: somedata123\n'),
  );
  await expectPosted(await hook('newrelic', base({ updatedAt: 1713770077412 })), TOPIC, text('ACTIVATED', '2024-04-22T07:14:37+00:00', ''));
  const custom = {
    'Your custom payload': 'somedata123',
    'custom status 1': true,
    'Custom list 1': ['SSD', 2000, false, null, 13.33],
    'Custom field 1': null,
    'Custom field 2': 9000,
    'Invalid fields 1': { a: 1 },
    'Invalid field 2': [[1]],
  };
  await expectPosted(
    await hook('newrelic', base({ zulipCustomFields: custom })),
    TOPIC,
    text(
      'ACTIVATED',
      '2024-04-22T07:12:29+00:00',
      '',
      '- **Your custom payload**: somedata123\n- **Custom status 1**: True\n- **Custom list 1**: SSD, 2000, False, None, 13.33\n- **Custom field 1**: None\n- **Custom field 2**: 9000\n- **Invalid fields 1**: *Value is not a supported data type*\n- **Invalid field 2**: *Value is not a supported data type*\n',
    ),
  );
  const critical = {
    issueUrl: 'https://radar-api.service.newrelic.com/accounts/1/issues/0ea2df1c-adab-45d2-aae0-042b609d2322?notifier=SLACK',
    title: "MAIN-APP-UBUNTU query result is > 2.0 for 1 minutes on 'High CPU'",
    priority: 'CRITICAL',
    totalIncidents: 1,
    state: 'CREATED',
    createdAt: 1713767789495,
    updatedAt: 1713767789495,
    alertPolicyNames: ['Golden Signals'],
    alertConditionNames: ['High CPU'],
  };
  await expectPosted(
    await hook('newrelic', critical),
    "MAIN-APP-UBUNTU query result is > 2.0 for 1 minutes on 'H...",
    ":red_circle: **[MAIN-APP-UBUNTU query result is > 2.0 for 1 minutes on 'High CPU'](https://radar-api.service.newrelic.com/accounts/1/issues/0ea2df1c-adab-45d2-aae0-042b609d2322?notifier=SLACK)**\n\n```quote\n**Priority**: CRITICAL\n**State**: CREATED\n**Updated at**: <time:2024-04-22T06:36:29+00:00>\n\n```\n\n```spoiler :file: Incident details\n\n- **Alert policies**: `Golden Signals`\n- **Conditions**: `High CPU`\n- **Total incidents**: 1\n- **Incident created at**: <time:2024-04-22T06:36:29+00:00>\n\n```",
  );
  // The state is the event type.
  const before = (await h.last()).id;
  assertSuccess(await hook('newrelic', critical, { query: { only_events: '["CLOSED"]' } }));
  assert.equal((await h.last()).id, before);
});

test('newrelic: a payload missing what the message needs gets the notice naming it; malformed payloads; its entry for the URL generator', async () => {
  await expectPosted(
    await hook('newrelic', { id: 'x' }),
    'New Relic incident alerts',
    ':danger: A New Relic [incident](https://one.newrelic.com/alerts-ai) updated\n\n**Warning**: Unable to use the default notification format because at least one expected field was missing from the incident payload. See [New Relic integration documentation](/integrations/newrelic).\n\n**Missing fields**: `issueUrl`, `title`, `priority`, `totalIncidents`, `state`, `createdAt`, `updatedAt`, `alertPolicyNames`, `alertConditionNames`',
  );
  const before = (await h.last()).id;
  assertError(await hook('newrelic', base({ priority: 'URGENT' })), 400, 'BAD_REQUEST', "Invalid payload['priority']");
  assertError(await hook('newrelic', base({ state: 'OPEN' })), 400, 'BAD_REQUEST', "Invalid payload['state']");
  assertError(await hook('newrelic', base({ alertConditionNames: [1] })), 400, 'BAD_REQUEST', "payload['alertConditionNames'][0] is not a string");
  assertError(await hook('newrelic', base({ createdAt: '1713769949493' })), 400, 'BAD_REQUEST', "payload['createdAt'] is not an integer");
  assertError(await hook('newrelic', base({ zulipCustomFields: [] })), 400, 'BAD_REQUEST', "payload['zulipCustomFields'] is not a dict");
  assertError(await hook('newrelic', [1]), 400, 'BAD_REQUEST', 'payload is not a dict');
  assert.equal((await h.last()).id, before);
  assert.deepEqual(await h.listed('newrelic'), { name: 'newrelic', display_name: 'New Relic', all_event_types: ['CREATED', 'ACTIVATED', 'CLOSED'], config_options: [], url_options: [] });
});
