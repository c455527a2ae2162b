/**
 * The PagerDuty integration: Zulip's own test cases for webhooks V1, V2 and
 * V3 (payloads trimmed to what is read), unsupported events and malformed
 * payloads, alone or after messages that are sent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('pagerduty');
const { hook, expectPosted } = h;

const ARMOOO = { email: 'armooo@zulip.com', html_url: 'https://zulip-test.pagerduty.com/users/POBCFRJ' };
const SERVICE = { name: 'Test service', html_url: 'https://zulip-test.pagerduty.com/services/PIL5CUQ' };
const v1 = (type: string, incident: Record<string, unknown>) => ({ messages: [{ type, data: { incident: { id: 'P140S4Y', service: SERVICE, ...incident } } }] });
const INC3 = { incident_number: 3, html_url: 'https://zulip-test.pagerduty.com/incidents/P140S4Y', assigned_to_user: ARMOOO, trigger_summary_data: { subject: 'foo' } };
const INC1 = { incident_number: 1, html_url: 'https://zulip-test.pagerduty.com/incidents/PO1XIJ5', assigned_to_user: ARMOOO, trigger_summary_data: { subject: 'It is on fire' } };

test('pagerduty V1: triggered, unacknowledged, acknowledged, resolved (by someone or on its own)', async () => {
  const triggered = 'Incident [3](https://zulip-test.pagerduty.com/incidents/P140S4Y) triggered by [Test service](https://zulip-test.pagerduty.com/services/PIL5CUQ) (assigned to [armooo](https://zulip-test.pagerduty.com/users/POBCFRJ)).\n\n``` quote\nfoo\n```';
  await expectPosted(await hook('pagerduty', v1('incident.trigger', INC3)), 'Incident 3', triggered);
  await expectPosted(await hook('pagerduty', v1('incident.unacknowledge', INC3)), 'Incident 3', triggered.replace('triggered', 'unacknowledged'));
  const ack = 'Incident [1](https://zulip-test.pagerduty.com/incidents/PO1XIJ5) acknowledged by [armooo](https://zulip-test.pagerduty.com/users/POBCFRJ).\n\n``` quote\nIt is on fire\n```';
  await expectPosted(await hook('pagerduty', v1('incident.acknowledge', INC1)), 'Incident 1', ack);
  const { trigger_summary_data: _t, ...noSummary } = INC1;
  await expectPosted(await hook('pagerduty', v1('incident.acknowledge', noSummary)), 'Incident 1', ack.replace('It is on fire', ''));
  await expectPosted(
    await hook('pagerduty', v1('incident.resolve', { ...INC1, assigned_to_user: null, resolved_by_user: ARMOOO })),
    'Incident 1',
    'Incident [1](https://zulip-test.pagerduty.com/incidents/PO1XIJ5) resolved by [armooo](https://zulip-test.pagerduty.com/users/POBCFRJ).\n\n``` quote\nIt is on fire\n```',
  );
  await expectPosted(
    await hook('pagerduty', v1('incident.resolve', { incident_number: 2, html_url: 'https://zulip-test.pagerduty.com/incidents/PX7K9J2', trigger_summary_data: { subject: 'new' } })),
    'Incident 2',
    'Incident [2](https://zulip-test.pagerduty.com/incidents/PX7K9J2) resolved.\n\n``` quote\nnew\n```',
  );
  await expectPosted(
    await hook('pagerduty', v1('incident.resolve', { incident_number: 48219, html_url: 'https://dropbox.pagerduty.com/incidents/PJKGZF9', trigger_summary_data: { description: 'mp_error_block_down_critical\u2119\u01b4' } })),
    'Incident 48219',
    'Incident [48219](https://dropbox.pagerduty.com/incidents/PJKGZF9) resolved.\n\n``` quote\nmp_error_block_down_critical\u2119\u01b4\n```',
  );
  // Assigned, escalated and delegated (V1 only); a quoted user name is unquoted.
  const one = '[1](https://zulip-test.pagerduty.com/incidents/PO1XIJ5)';
  const armooo = '[armooo](https://zulip-test.pagerduty.com/users/POBCFRJ)';
  await expectPosted(await hook('pagerduty', v1('incident.assign', INC1)), 'Incident 1', `Incident ${one} assigned to ${armooo}.\n\n\`\`\` quote\nIt is on fire\n\`\`\``);
  await expectPosted(await hook('pagerduty', v1('incident.escalate', INC1)), 'Incident 1', `Incident ${one} escalated by ${armooo}.\n\n\`\`\` quote\nIt is on fire\n\`\`\``);
  await expectPosted(
    await hook('pagerduty', v1('incident.delegate', { ...INC1, assigned_to_user: { ...ARMOOO, email: '"armooo"@zulip.com' } })),
    'Incident 1',
    `Incident ${one} delineated by ${armooo}.\n\n\`\`\` quote\nIt is on fire\n\`\`\``,
  );
  await expectPosted(await hook('pagerduty', v1('incident.assign', { ...INC1, assigned_to_user: null })), 'Incident 1', `Incident ${one} assigned to nobody.\n\n\`\`\` quote\nIt is on fire\n\`\`\``);
  // Several messages in one request, each its own message.
  const before = (await h.last()).id;
  assertSuccess(await hook('pagerduty', { messages: [...v1('incident.acknowledge', INC1).messages, ...v1('incident.trigger', INC3).messages] }));
  const got = assertSuccess(await h.t.client(h.t.owner).get('/messages', { anchor: before, num_before: 0, num_after: 5, narrow: [{ operator: 'channel', operand: 'pagerduty' }], apply_markdown: false })).messages;
  assert.deepEqual(got.slice(1).map((m: any) => m.subject), ['Incident 1', 'Incident 3']);
});

test('pagerduty V2 and V3', async () => {
  const LAURA = { summary: 'Laura Haley', html_url: 'https://webdemo.pagerduty.com/users/P553OPV' };
  const v2 = (event: string, incident: Record<string, unknown>) => ({
    messages: [
      {
        event,
        incident: {
          id: 'PRORDTY',
          incident_number: 33,
          html_url: 'https://webdemo.pagerduty.com/incidents/PRORDTY',
          service: { name: 'Production XDB Cluster', html_url: 'https://webdemo.pagerduty.com/services/PN49J75' },
          assignments: [{ assignee: LAURA }],
          last_status_change_by: LAURA,
          description: 'My new incident',
          ...incident,
        },
      },
    ],
  });
  const trig = 'Incident [33](https://webdemo.pagerduty.com/incidents/PRORDTY) triggered by [Production XDB Cluster](https://webdemo.pagerduty.com/services/PN49J75) (assigned to [Laura Haley](https://webdemo.pagerduty.com/users/P553OPV)).\n\n``` quote\nMy new incident\n```';
  await expectPosted(await hook('pagerduty', v2('incident.trigger', {})), 'Incident 33', trig);
  await expectPosted(await hook('pagerduty', v2('incident.trigger', { assignments: [] })), 'Incident 33', trig.replace('[Laura Haley](https://webdemo.pagerduty.com/users/P553OPV)', 'nobody'));
  await expectPosted(
    await hook('pagerduty', v2('incident.resolve', {})),
    'Incident 33',
    'Incident [33](https://webdemo.pagerduty.com/incidents/PRORDTY) resolved by [Laura Haley](https://webdemo.pagerduty.com/users/P553OPV).\n\n``` quote\nMy new incident\n```',
  );
  await expectPosted(
    await hook('pagerduty', v2('incident.acknowledge', {})),
    'Incident 33',
    'Incident [33](https://webdemo.pagerduty.com/incidents/PRORDTY) acknowledged by [Laura Haley](https://webdemo.pagerduty.com/users/P553OPV).\n\n``` quote\nMy new incident\n```',
  );
  await expectPosted(
    await hook('pagerduty', v2('incident.assign', { assignments: [{ assignee: { summary: 'Wiley Jacobson', html_url: 'https://webdemo.pagerduty.com/users/PFBSJ2Z' } }] })),
    'Incident 33',
    'Incident [33](https://webdemo.pagerduty.com/incidents/PRORDTY) assigned to [Wiley Jacobson](https://webdemo.pagerduty.com/users/PFBSJ2Z).\n\n``` quote\nMy new incident\n```',
  );
  const PIG = { summary: 'PIG 208', html_url: 'https://pig208.pagerduty.com/users/PJ0LVEB' };
  const v3 = (event_type: string, data: Record<string, unknown>) => ({
    event: {
      event_type,
      agent: PIG,
      data: { id: 'PQ1K5C8', html_url: 'https://pig208.pagerduty.com/incidents/PQ1K5C8', number: 10, title: 'Test Incident', service: { summary: 'pig208', html_url: 'https://pig208.pagerduty.com/services/PA2P440' }, assignees: [PIG], ...data },
    },
  });
  await expectPosted(
    await hook('pagerduty', v3('incident.triggered', { number: 9, title: 'Test Incident 3', html_url: 'https://pig208.pagerduty.com/incidents/PFQZPSY' })),
    'Incident Test Incident 3 (#9)',
    'Incident [Test Incident 3 (#9)](https://pig208.pagerduty.com/incidents/PFQZPSY) triggered by [pig208](https://pig208.pagerduty.com/services/PA2P440) (assigned to [PIG 208](https://pig208.pagerduty.com/users/PJ0LVEB)).',
  );
  await expectPosted(
    await hook('pagerduty', v3('incident.unacknowledged', {})),
    'Incident Test Incident (#10)',
    'Incident [Test Incident (#10)](https://pig208.pagerduty.com/incidents/PQ1K5C8) unacknowledged by [pig208](https://pig208.pagerduty.com/services/PA2P440) (assigned to [PIG 208](https://pig208.pagerduty.com/users/PJ0LVEB)).',
  );
  await expectPosted(await hook('pagerduty', v3('incident.acknowledged', {})), 'Incident Test Incident (#10)', 'Incident [Test Incident (#10)](https://pig208.pagerduty.com/incidents/PQ1K5C8) acknowledged by [PIG 208](https://pig208.pagerduty.com/users/PJ0LVEB).');
  await expectPosted(
    await hook('pagerduty', v3('incident.resolved', { number: 6, html_url: 'https://pig208.pagerduty.com/incidents/PCPZE64' })),
    'Incident Test Incident (#6)',
    'Incident [Test Incident (#6)](https://pig208.pagerduty.com/incidents/PCPZE64) resolved by [PIG 208](https://pig208.pagerduty.com/users/PJ0LVEB).',
  );
  await expectPosted(
    await hook('pagerduty', v3('incident.reassigned', { number: 3, html_url: 'https://pig208.pagerduty.com/incidents/PIQUG8X', assignees: [{ summary: 'Test User', html_url: 'https://pig208.pagerduty.com/users/PI9DT01' }] })),
    'Incident Test Incident (#3)',
    'Incident [Test Incident (#3)](https://pig208.pagerduty.com/incidents/PIQUG8X) reassigned to [Test User](https://pig208.pagerduty.com/users/PI9DT01).',
  );
  // The action is the event type.
  const before = (await h.last()).id;
  assertSuccess(await hook('pagerduty', v3('incident.acknowledged', {}), { query: { only_events: '["resolved"]' } }));
  assert.equal((await h.last()).id, before);
});

test('pagerduty: unsupported events of each version; malformed payloads; its entry for the URL generator', async () => {
  const before = (await h.last()).id;
  const unsupported = "The 'incident.unsupported' event isn't currently supported by the PagerDuty webhook; ignoring";
  assertError(await hook('pagerduty', v1('incident.unsupported', INC1)), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', unsupported);
  assertError(await hook('pagerduty', { messages: [{ event: 'incident.unsupported' }] }), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', unsupported);
  assertError(await hook('pagerduty', { event: { event_type: 'incident.unsupported' } }), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', unsupported);
  // Nothing to tell: no messages and no event.
  assertSuccess(await hook('pagerduty', { messages: [] }));
  assertError(await hook('pagerduty', '{"messages": ['), 400, 'BAD_REQUEST', 'Malformed JSON');
  for (const email of ['nobody', 'armooo@zulip@com', 'a b@zulip.com', 'Armooo <armooo@zulip.com>']) {
    assertError(await hook('pagerduty', v1('incident.trigger', { ...INC3, assigned_to_user: { email, html_url: 'x' } })), 400, 'BAD_REQUEST', "payload['messages'][0]['data']['incident']['assigned_to_user']['email'] is not an email address");
  }
  // A V2 incident without a description has nothing to quote.
  const v2 = (incident: Record<string, unknown>) => ({ messages: [{ event: 'incident.trigger', incident: { id: 'P', incident_number: 1, html_url: 'u', service: { name: 's', html_url: 'u' }, assignments: [], last_status_change_by: { summary: 'a', html_url: 'u' }, ...incident } }] });
  assertError(await hook('pagerduty', v2({ description: null })), 400, 'BAD_REQUEST', "payload['messages'][0]['incident']['description'] is not a string");
  assertError(await hook('pagerduty', v2({})), 400, 'BAD_REQUEST', "payload['messages'][0]['incident']['description'] is missing");
  assertError(await hook('pagerduty', v1('incident.trigger', { ...INC3, incident_number: '3' })), 400, 'BAD_REQUEST', "payload['messages'][0]['data']['incident']['incident_number'] is not an integer");
  assertError(await hook('pagerduty', { event: { event_type: 'incident.resolved', data: { id: 'x', html_url: 'u', number: 1, title: 't', service: { summary: 's', html_url: 'u' }, assignees: [] } } }), 400, 'BAD_REQUEST', "payload['event']['agent'] is not a dict");
  assert.equal((await h.last()).id, before);
  assert.deepEqual(await h.listed('pagerduty'), {
    name: 'pagerduty',
    display_name: 'PagerDuty',
    all_event_types: ['resolved', 'assigned', 'unacknowledged', 'acknowledged', 'triggered', 'reassigned'],
    config_options: [],
    url_options: [],
  });
});

test('pagerduty: a message that cannot be read after others: their messages are sent, then the request is refused', async () => {
  let before = (await h.last()).id;
  const unsupported = "The 'incident.unsupported' event isn't currently supported by the PagerDuty webhook; ignoring";
  assertError(await hook('pagerduty', { messages: [...v1('incident.acknowledge', INC1).messages, { type: 'incident.unsupported' }] }), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', unsupported);
  const after = async (id: number) => (await h.since(id)).map((m) => m.subject as string);
  assert.deepEqual(await after(before), ['Incident 1']);
  before = (await h.last()).id;
  assertError(
    await hook('pagerduty', { messages: [...v1('incident.acknowledge', INC1).messages, ...v1('incident.trigger', INC3).messages, ...v1('incident.trigger', { ...INC3, incident_number: '4' }).messages] }),
    400,
    'BAD_REQUEST',
    "payload['messages'][2]['data']['incident']['incident_number'] is not an integer",
  );
  assert.deepEqual(await after(before), ['Incident 1', 'Incident 3']);
});
