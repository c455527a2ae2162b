/**
 * The OpenProject integration: Zulip's own test cases (payloads trimmed to
 * what is read): projects created with and without a parent and updated,
 * work packages created and updated, time logged on a work package or a
 * project (durations in words, or "a time entry"), attachments uploaded;
 * unsupported items, event filters, and malformed payloads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('OpenProjectUpdates');
const { hook, expectPosted, last } = h;

const NIRVED = { name: 'Nirved Mishra' };
const DEMO = { name: 'Demo project' };
const project = (action: string, embedded?: Record<string, unknown>) => ({
  action,
  project: { _type: 'Project', id: 3, name: 'AI Backend', ...(embedded ? { _embedded: embedded } : {}), _links: { parent: { title: 'Demo project' } } },
});
const workPackage = (action: string) => ({
  action,
  work_package: { subject: 'Task1', _embedded: { type: { name: 'Task' }, author: NIRVED, project: DEMO } },
});
const timeEntry = (hours: unknown, withWorkPackage = true) => ({
  action: 'time_entry:created',
  time_entry: {
    hours,
    _embedded: { project: { name: 'Project1' }, ...(withWorkPackage ? { workPackage: { subject: 'kl' } } : {}), user: NIRVED },
  },
});
const attachment = {
  action: 'attachment:created',
  attachment: {
    fileName: 'a.out',
    _embedded: { author: NIRVED, container: { subject: 'task2', _links: { project: { title: 'Project 2' } } } },
  },
};

test('openproject: projects created with and without a parent, and updated', async () => {
  const m = await expectPosted(
    await hook('openproject', project('project:created', { parent: DEMO })),
    'AI Backend',
    'Project **AI Backend** was created as a sub-project of **Demo project**.',
  );
  assert.equal(m.client, 'ZulipOpenProjectWebhook');
  await expectPosted(await hook('openproject', project('project:created')), 'AI Backend', 'Project **AI Backend** was created.');
  // Only a creation names the parent.
  await expectPosted(await hook('openproject', project('project:updated', { parent: DEMO })), 'AI Backend', 'Project **AI Backend** was updated.');
});

test('openproject: work packages created and updated', async () => {
  await expectPosted(await hook('openproject', workPackage('work_package:created')), 'Demo project', '**Task1** (work package **Task**) was created by **Nirved Mishra**.');
  await expectPosted(await hook('openproject', workPackage('work_package:updated')), 'Demo project', '**Task1** (work package **Task**) was updated by **Nirved Mishra**.');
});

test('openproject: time logged on a work package or a project, its duration in words', async () => {
  await expectPosted(await hook('openproject', timeEntry('PT1H')), 'Project1', '**Nirved Mishra** logged **1 hour** on **kl**.');
  await expectPosted(await hook('openproject', timeEntry('PT1H', false)), 'Project1', '**Nirved Mishra** logged **1 hour** on **Project1**.');
  await expectPosted(await hook('openproject', timeEntry('PT7H42M')), 'Project1', '**Nirved Mishra** logged **7 hours and 42 minutes** on **kl**.');
  await expectPosted(await hook('openproject', timeEntry('XX')), 'Project1', '**Nirved Mishra** logged a time entry on **kl**.');
  await expectPosted(await hook('openproject', timeEntry('P2DT1H05M1S')), 'Project1', '**Nirved Mishra** logged **2 days, 1 hour, 5 minutes and 1 second** on **kl**.');
  await expectPosted(await hook('openproject', timeEntry('PT0S')), 'Project1', '**Nirved Mishra** logged **0 seconds** on **kl**.');
  // Digits of other scripts count as digits; a number too long to read makes the duration unreadable.
  await expectPosted(await hook('openproject', timeEntry('PT\u0663H\u0661M')), 'Project1', '**Nirved Mishra** logged **3 hours and 1 minute** on **kl**.');
  await expectPosted(await hook('openproject', timeEntry('PT12345678901234567890123H')), 'Project1', '**Nirved Mishra** logged **12345678901234567890123 hours** on **kl**.');
  await expectPosted(await hook('openproject', timeEntry(`PT${'1'.repeat(4301)}H`)), 'Project1', '**Nirved Mishra** logged a time entry on **kl**.');
  // An empty work package subject names the project.
  const blank = timeEntry('PT1H');
  (blank.time_entry._embedded as Record<string, unknown>).workPackage = { subject: '' };
  await expectPosted(await hook('openproject', blank), 'Project1', '**Nirved Mishra** logged **1 hour** on **Project1**.');
});

test('openproject: attachments uploaded', async () => {
  await expectPosted(await hook('openproject', attachment), 'Project 2', '**Nirved Mishra** uploaded **a.out** in **task2**.');
});

test('openproject: unsupported items, event filters, malformed payloads, the listing', async () => {
  const before = await last();
  const res = await hook('openproject', { action: 'membership:created', membership: {} });
  assertError(res, 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', "The 'membership:created' event isn't currently supported by the OpenProject webhook; ignoring");
  assert.equal(res.body.event_type, 'membership:created');
  // The item's own data is read first.
  assertError(await hook('openproject', { action: 'membership:created' }), 400, 'BAD_REQUEST', "payload['membership'] is missing");
  assertError(await hook('openproject', { action: 'project' }), 400, 'BAD_REQUEST', "payload['action'] is not of the form <item>:<action>: project");
  assertError(await hook('openproject', { action: 'project:created:x', project: {} }), 400, 'BAD_REQUEST', "payload['action'] is not of the form <item>:<action>: project:created:x");
  assertError(await hook('openproject', {}), 400, 'BAD_REQUEST', "payload['action'] is missing");
  assertError(await hook('openproject', { action: 3 }), 400, 'BAD_REQUEST', "payload['action'] is not a string");
  assertError(await hook('openproject', { action: 'project:created', project: { name: 'X', _embedded: null } }), 400, 'BAD_REQUEST', "payload['project']['_embedded'] is not a dict");
  assertError(await hook('openproject', { action: 'work_package:created', work_package: { subject: 'Task1', _embedded: { type: { name: 'Task' } } } }), 400, 'BAD_REQUEST', "payload['work_package']['_embedded']['author'] is missing");
  assertError(await hook('openproject', timeEntry(null)), 400, 'BAD_REQUEST', "payload['time_entry']['hours'] is not a string");
  assertError(await hook('openproject', timeEntry('PT')), 400, 'BAD_REQUEST', "payload['time_entry']['hours'] is a duration of no time: PT");
  assertError(await hook('openproject', { action: 'attachment:created', attachment: { fileName: 'a.out', _embedded: { author: NIRVED, container: { subject: 'task2' } } } }), 400, 'BAD_REQUEST', "payload['attachment']['_embedded']['container']['_links'] is missing");
  assertError(await hook('openproject', 'not json'), 400, 'BAD_REQUEST', 'Malformed JSON');
  assert.equal((await last()).id, before.id);

  // The event type is not matched against only_events / exclude_events.
  await expectPosted(
    await hook('openproject', workPackage('work_package:created'), { query: { exclude_events: JSON.stringify(['work_package:created']) } }),
    'Demo project',
    '**Task1** (work package **Task**) was created by **Nirved Mishra**.',
  );

  const types = ['project:created', 'project:updated', 'work_package:created', 'work_package:updated', 'time_entry:created', 'attachment:created'];
  assert.deepEqual(await h.listed('openproject'), { name: 'openproject', display_name: 'OpenProject', all_event_types: types, config_options: [], url_options: [] });
});
