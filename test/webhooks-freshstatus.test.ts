/**
 * The Freshstatus integration: Zulip's own test cases (incidents opened with
 * one, several and more than five services, their notes and closing notes;
 * scheduled maintenance planned, its notes and closing; the webhook test;
 * an event not supported yet; a payload missing data, refused and told to
 * the bot's owner), payloads trimmed to what is read; event filtering, an
 * unreadable time, and the entry the URL generator lists.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('freshstatus');
const { hook, expectPosted } = h;

const eventData = (event_type: string) => ({ webhook_id: 102, account_name: 'example', event_type, event_created_on: '2021-04-12 16:30:43.392582+00:00' });
const incident = (affected_services: string, title = 'Degradation of Database Server') => ({
  id: '53481',
  title,
  source: 'Monitoring System',
  end_time: 'None',
  start_time: '2021-04-12 16:29:00+00:00',
  description: 'This issue is being investigated.',
  affected_services,
  status: 'Open',
  event_data: eventData('INCIDENT_OPEN'),
});
const opened = (title: string, services: string) =>
  `The following incident has been opened: **${title}**\n**Description:** This issue is being investigated.\n**Start Time:** <time:2021-04-12T16:29:00+00:00>\n**Affected Services:**\n${services}`;
const noteOn = (title: string, incident_status: string, message: string, event_type: string) => ({
  id: '130594',
  title,
  status: '',
  message,
  incident_id: '53482',
  incident_status,
  event_data: eventData(event_type),
});
const MAINTENANCE_TITLE = 'Expect some services downtime due to server maintenance';
const MAINTENANCE_DESCRIPTION = 'As part of the upgrade routine, we will be carrying out server maintenance work for this Service.';
const maintenance = (affected_services: string) => ({
  id: '53492',
  title: MAINTENANCE_TITLE,
  description: MAINTENANCE_DESCRIPTION,
  affected_services,
  start_time: '2021-04-12 17:08:00+00:00',
  scheduled_start_time: '2021-04-12 17:08:00+00:00',
  scheduled_end_time: '2021-04-12 18:08:00+00:00',
  status: 'Planned',
  event_data: eventData('MAINTENANCE_PLANNED'),
});
const planned = (services: string) =>
  `The following scheduled maintenance has been opened: **${MAINTENANCE_TITLE}**\n**Description:** ${MAINTENANCE_DESCRIPTION}\n` +
  `**Scheduled Start Time:** <time:2021-04-12T17:08:00+00:00>\n**Scheduled End Time:** <time:2021-04-12T18:08:00+00:00>\n**Affected Services:**\n${services}`;

test('freshstatus: incidents opened (one service, several, more than five)', async () => {
  const m = await expectPosted(await hook('freshstatus', incident('Database Server')), 'Degradation of Database Server', opened('Degradation of Database Server', '* Database Server'));
  assert.equal(m.client, 'ZulipFreshstatusWebhook');
  const multiple = 'Degradation of Multiple Servers';
  await expectPosted(
    await hook('freshstatus', incident('Database Server,Web Server,Web Server 2', multiple)),
    multiple,
    opened(multiple, '* Database Server\n* Web Server\n* Web Server 2'),
  );
  await expectPosted(
    await hook('freshstatus', incident('Database Server,Web Server,Web Server 2,Database Server 2,Active Directory Server,Exchange Server,Web Server 3', multiple)),
    multiple,
    opened(multiple, '* Database Server\n* Web Server\n* Web Server 2\n* Database Server 2\n* Active Directory Server\n[and 2 more service(s)]'),
  );
});

test('freshstatus: scheduled maintenance planned (one service, several, more than five)', async () => {
  await expectPosted(await hook('freshstatus', maintenance('Sample Service')), MAINTENANCE_TITLE, planned('* Sample Service'));
  await expectPosted(await hook('freshstatus', maintenance('Sample Service,Sample Service 2')), MAINTENANCE_TITLE, planned('* Sample Service\n* Sample Service 2'));
  const seven = [1, 2, 3, 4, 5, 6, 7].map((n) => (n === 1 ? 'Sample Service' : `Sample Service ${n}`));
  await expectPosted(
    await hook('freshstatus', maintenance(seven.join(','))),
    MAINTENANCE_TITLE,
    planned('* Sample Service\n* Sample Service 2\n* Sample Service 3\n* Sample Service 4\n* Sample Service 5\n[and 2 more service(s)]'),
  );
});

test('freshstatus: notes on incidents and scheduled maintenance, and their closing notes', async () => {
  const INCIDENT = 'Degradation of Database Server';
  const MAINTENANCE = 'Scheduled Maintenance Test';
  const cases: Array<[string, string, string, string, string]> = [
    ['INCIDENT_NOTE_CREATE', INCIDENT, 'Open', 'The incident is being worked on.', 'note has been added to the incident'],
    ['INCIDENT_NOTE_CREATE', INCIDENT, 'Closed', 'The incident has been resolved.', 'incident has been closed'],
    ['MAINTENANCE_NOTE_CREATE', MAINTENANCE, 'Planned', 'We are about to start the maintenance.', 'note has been added to the scheduled maintenance'],
    ['MAINTENANCE_NOTE_CREATE', MAINTENANCE, 'Closed', 'The maintenance is now complete.', 'scheduled maintenance has been closed'],
  ];
  for (const [event, title, status, message, what] of cases) {
    await expectPosted(await hook('freshstatus', noteOn(title, status, message, event)), title, `The following ${what}: **${title}**\n**Note:** ${message}`);
  }
});

test('freshstatus: the webhook test; events not supported yet are said so', async () => {
  await expectPosted(await hook('freshstatus', { ...incident('x'), id: '1', title: 'Sample title' }), 'Freshstatus', 'Freshstatus webhook has been successfully configured.');
  const reopened = { ...incident("'service 1','service 2','service 3'"), id: '1', title: 'Sample title', event_data: eventData('INCIDENT_REOPEN') };
  await expectPosted(await hook('freshstatus', reopened), 'Sample title', 'The event (INCIDENT_REOPEN) is not supported yet.');
  // An incident note in another state than open or closed is not supported either.
  await expectPosted(await hook('freshstatus', noteOn('Sample title', 'Planned', 'x', 'INCIDENT_NOTE_CREATE')), 'Sample title', 'The event (INCIDENT_NOTE_CREATE) is not supported yet.');
});

test('freshstatus: only_events and exclude_events pick among the event types', async () => {
  const before = await h.last();
  assertSuccess(await hook('freshstatus', incident('Database Server'), { query: { only_events: '["MAINTENANCE_*"]' } }));
  assertSuccess(await hook('freshstatus', maintenance('Sample Service'), { query: { exclude_events: '["MAINTENANCE_PLANNED"]' } }));
  assert.equal((await h.last()).id, before.id);
  await expectPosted(await hook('freshstatus', maintenance('Sample Service'), { query: { only_events: '["MAINTENANCE_*"]' } }), MAINTENANCE_TITLE, planned('* Sample Service'));
});

test("freshstatus: a payload missing data is \"Invalid payload\", and the bot's owner is told; an unreadable time is refused", async () => {
  const { title: _, ...untitled } = noteOn('Scheduled Maintenance Test', 'Closed', 'The maintenance is now complete.', 'MAINTENANCE_NOTE_CREATE');
  const { event_type: _e, ...noType } = untitled.event_data;
  const before = await h.last();
  assertError(await hook('freshstatus', { ...untitled, event_data: noType }), 400, 'BAD_REQUEST', 'Invalid payload');
  assert.equal((await h.last()).id, before.id);
  const owner = h.t.client(h.t.owner);
  const dms = assertSuccess(await owner.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }], apply_markdown: false })).messages;
  assert.equal(
    dms[0].content,
    'Hi there! Your bot Hook Bot just received a Freshstatus payload that is missing\nsome data that Zulip requires. This usually indicates a configuration issue\n' +
      'in your Freshstatus webhook settings. Please make sure that you provide all the required parameters\n' +
      `when configuring the Freshstatus webhook. Contact support@${new URL(h.t.url).hostname} if you\nneed further help!`,
  );
  assertError(await hook('freshstatus', untitled), 400, 'BAD_REQUEST', 'Invalid payload');
  assertError(await hook('freshstatus', { ...incident('Database Server'), id: 1 }), 400, 'BAD_REQUEST', 'Invalid payload');
  assertError(await hook('freshstatus', [1, 2]), 400, 'BAD_REQUEST', 'Invalid payload');
  assertError(await hook('freshstatus', { ...incident('Database Server'), start_time: '{start_time}' }), 400, 'BAD_REQUEST', "payload['start_time'] is not a valid ISO datetime");
  assertError(await hook('freshstatus', { ...maintenance('Sample Service'), scheduled_end_time: 'None' }), 400, 'BAD_REQUEST', "payload['scheduled_end_time'] is not a valid ISO datetime");
  assertError(await hook('freshstatus', '{"id": '), 400, 'BAD_REQUEST', 'Malformed JSON');
});

test('freshstatus: listed with its event types, without URL options', async () => {
  assert.deepEqual(await h.listed('freshstatus'), {
    name: 'freshstatus',
    display_name: 'Freshstatus',
    all_event_types: ['MAINTENANCE_NOTE_CREATE', 'INCIDENT_NOTE_CREATE', 'INCIDENT_OPEN', 'MAINTENANCE_PLANNED', 'INCIDENT_REOPEN'],
    config_options: [],
    url_options: [],
  });
});
