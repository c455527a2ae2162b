/**
 * The Opsgenie integration: Zulip's own test cases (payloads trimmed to what
 * is read; Opsgenie posts JSON with a form Content-Type), the European
 * region's links, and malformed payloads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('opsgenie');
const { hook, expectPosted } = h;
const form = { contentType: 'application/x-www-form-urlencoded' };

const ID = '052652ac-5d1c-464a-812a-7dd18bbfba8c';
const alert = (action: string, extra: Record<string, unknown> = {}, tags: string[] | null = ['tag1', 'tag2']) => ({
  alert: { ...(tags ? { tags } : {}), message: 'test alert', alertId: ID, ...extra },
  action,
  integrationName: 'Integration1',
});
const HEAD = `[Opsgenie alert for Integration1](https://app.opsgenie.com/alert/V2#/show/${ID}):`;

test('opsgenie: each action with what it carries', async () => {
  const cases: Array<[unknown, string]> = [
    [alert('Acknowledge'), `${HEAD}\n* **Type**: Acknowledge\n* **Message**: test alert\n* **Tags**: \`tag1\`, \`tag2\``],
    [alert('AddNote', { note: 'note to test alert' }), `${HEAD}\n* **Type**: AddNote\n* **Note**: note to test alert\n* **Message**: test alert\n* **Tags**: \`tag1\`, \`tag2\``],
    [alert('AddRecipient', { recipient: 'team2_escalation' }), `${HEAD}\n* **Type**: AddRecipient\n* **Recipient**: team2_escalation\n* **Message**: test alert\n* **Tags**: \`tag1\`, \`tag2\``],
    [alert('AddTags', { addedTags: 'tag1,tag2,tag3' }, ['tag1', 'tag2', 'tag3']), `${HEAD}\n* **Type**: AddTags\n* **Tags added**: tag1,tag2,tag3\n* **Message**: test alert\n* **Tags**: \`tag1\`, \`tag2\`, \`tag3\``],
    [alert('AddTeam', { team: 'team2' }), `${HEAD}\n* **Type**: AddTeam\n* **Team added**: team2\n* **Message**: test alert\n* **Tags**: \`tag1\`, \`tag2\``],
    [alert('AssignOwnership', { owner: 'user2@ifountain.com' }), `${HEAD}\n* **Type**: AssignOwnership\n* **Assigned owner**: user2@ifountain.com\n* **Message**: test alert\n* **Tags**: \`tag1\`, \`tag2\``],
    [alert('Close', {}, null), `${HEAD}\n* **Type**: Close\n* **Message**: test alert`],
    [alert('RemoveTags', { removedTags: 'tag3' }), `${HEAD}\n* **Type**: RemoveTags\n* **Tags removed**: tag3\n* **Message**: test alert\n* **Tags**: \`tag1\`, \`tag2\``],
    [alert('TestAction'), `${HEAD}\n* **Type**: TestAction\n* **Message**: test alert\n* **Tags**: \`tag1\`, \`tag2\``],
    [alert('Delete', {}, null), `${HEAD}\n* **Type**: Delete\n* **Message**: test alert`],
    [alert('UnAcknowledge'), `${HEAD}\n* **Type**: UnAcknowledge\n* **Message**: test alert\n* **Tags**: \`tag1\`, \`tag2\``],
    // An empty list of tags is not told; an action Opsgenie adds later is told as the others.
    [alert('Snooze', {}, []), `${HEAD}\n* **Type**: Snooze\n* **Message**: test alert`],
  ];
  for (const [payload, text] of cases) await expectPosted(await hook('opsgenie', payload, form), 'Integration1', text);
  await expectPosted(
    await hook('opsgenie', { alert: { alertId: '7ba97e3a-d328-4b5e-8f9a-39e945a3869a' }, action: 'Escalate', escalationName: 'test_esc', integrationName: 'Webhook_Test' }, form),
    'Webhook_Test',
    '[Opsgenie alert for Webhook_Test](https://app.opsgenie.com/alert/V2#/show/7ba97e3a-d328-4b5e-8f9a-39e945a3869a):\n* **Type**: Escalate\n* **Escalation**: test_esc',
  );
  await expectPosted(
    await hook('opsgenie', { alert: { tags: ['vip'], message: 'another alert', alertId: 'ec03dad6-62c8-4c94-b38b-d88f398e900f' }, action: 'Create', integrationName: 'Webhook' }, form),
    'Webhook',
    '[Opsgenie alert for Webhook](https://app.opsgenie.com/alert/V2#/show/ec03dad6-62c8-4c94-b38b-d88f398e900f):\n* **Type**: Create\n* **Message**: another alert\n* **Tags**: `vip`',
  );
  await expectPosted(
    await hook('opsgenie', { alert: { tags: ['tag1', 'tag2'], message: 'message test', alertId: '8a745a79-3ed3-4044-8427-98e067c0623c' }, action: 'TakeOwnership', integrationName: 'Webhook' }, form),
    'Webhook',
    '[Opsgenie alert for Webhook](https://app.opsgenie.com/alert/V2#/show/8a745a79-3ed3-4044-8427-98e067c0623c):\n* **Type**: TakeOwnership\n* **Message**: message test\n* **Tags**: `tag1`, `tag2`',
  );
  // The European service.
  await expectPosted(
    await hook('opsgenie', alert('Close', {}, null), { ...form, query: { eu_region: 'true' } }),
    'Integration1',
    `[Opsgenie alert for Integration1](https://app.eu.opsgenie.com/alert/V2#/show/${ID}):\n* **Type**: Close\n* **Message**: test alert`,
  );
  // The action is the event type.
  const before = (await h.last()).id;
  assertSuccess(await hook('opsgenie', alert('Close'), { query: { only_events: '["Create"]' } }));
  assert.equal((await h.last()).id, before);
});

test('opsgenie: malformed payloads; its entry for the URL generator', async () => {
  const before = (await h.last()).id;
  assertError(await hook('opsgenie', { alert: { alertId: ID }, integrationName: 'I' }), 400, 'BAD_REQUEST', "payload['action'] is missing");
  assertError(await hook('opsgenie', alert('Close', { note: 3 })), 400, 'BAD_REQUEST', "payload['alert']['note'] is not a string");
  assertError(await hook('opsgenie', alert('Close'), { query: { eu_region: 'maybe' } }), 400, 'BAD_REQUEST', 'eu_region is not a boolean');
  assertError(await hook('opsgenie', '{"alert": ', form), 400, 'BAD_REQUEST', 'Malformed JSON');
  assertError(await hook('opsgenie', { action: 'Close', integrationName: 'I' }), 400, 'BAD_REQUEST', "payload['alert'] is missing");
  assertError(await hook('opsgenie', { ...alert('Close'), alert: { alertId: ID, tags: 'tag1' } }), 400, 'BAD_REQUEST', "payload['alert']['tags'] is not a list");
  assertError(await hook('opsgenie', { ...alert('Escalate'), escalationName: null }), 400, 'BAD_REQUEST', "payload['escalationName'] is not a string");
  assert.equal((await h.last()).id, before);
  assert.deepEqual(await h.listed('opsgenie'), {
    name: 'opsgenie',
    display_name: 'Opsgenie',
    all_event_types: ['AddTeam', 'UnAcknowledge', 'AddNote', 'TestAction', 'Close', 'Escalate', 'AddRecipient', 'RemoveTags', 'Acknowledge', 'Delete', 'AddTags', 'TakeOwnership', 'Create', 'AssignOwnership'],
    config_options: [],
    url_options: [{ key: 'eu_region', label: "Use Opsgenie's European service region", validator: 'check_bool' }],
  });
});
