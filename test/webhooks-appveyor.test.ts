/**
 * The AppVeyor integration: Zulip's own test cases (a build completed and
 * failed; payloads trimmed to what is read), AppVeyor's times read as
 * Python's strptime reads them, and malformed payloads refused with a 400
 * naming the field.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('appveyor');
const { hook, expectPosted } = h;

const eventData = {
  passed: true,
  failed: false,
  status: 'completed',
  started: '9/9/2018 7:04 PM',
  finished: '9/9/2018 7:06 PM',
  projectName: 'Hubot-DSC-Resource',
  buildVersion: '2.0.59',
  commitId: 'c06e208b47',
  commitDate: '6/12/2018 6:22 PM',
  commitMessage: 'Increment version number.',
  committerName: 'Joe Bloggs',
  buildUrl: 'https://ci.appveyor.com/project/joebloggs/hubot-dsc-resource/build/2.0.59',
  commitUrl: 'https://github.com/joebloggs/Hubot-DSC-Resource/commit/c06e208b47',
};
const build = (eventName: string, over: Record<string, unknown> = {}) => ({ eventName, eventData: { ...eventData, ...over } });
const message = (status: string, started = '2018-09-09T19:04:00+00:00', finished = '2018-09-09T19:06:00+00:00') =>
  `[Build Hubot-DSC-Resource 2.0.59 ${status}](https://ci.appveyor.com/project/joebloggs/hubot-dsc-resource/build/2.0.59):\n` +
  '* **Commit**: [c06e208b47: Increment version number.](https://github.com/joebloggs/Hubot-DSC-Resource/commit/c06e208b47) by Joe Bloggs\n' +
  `* **Started**: <time:${started}>\n* **Finished**: <time:${finished}>`;

test('appveyor: a build completed and failed', async () => {
  const m = await expectPosted(await hook('appveyor', build('build_success')), 'Hubot-DSC-Resource', message('completed'));
  assert.equal(m.client, 'ZulipAppveyorWebhook');
  await expectPosted(await hook('appveyor', build('build_failure', { passed: false, failed: true, status: 'failed' })), 'Hubot-DSC-Resource', message('failed'));
});

test('appveyor: times as strptime reads them (12 AM is midnight, 12 PM noon, zero padding, any case, runs of spaces)', async () => {
  await expectPosted(
    await hook('appveyor', build('build_success', { started: '12/31/2019 12:05 am', finished: '01/01/2020  12:59   PM' })),
    'Hubot-DSC-Resource',
    message('completed', '2019-12-31T00:05:00+00:00', '2020-01-01T12:59:00+00:00'),
  );
  await expectPosted(await hook('appveyor', build('build_success', { started: '2/29/2020 1:0 AM', finished: '2/29/2020 11:07 PM' })), 'Hubot-DSC-Resource', message('completed', '2020-02-29T01:00:00+00:00', '2020-02-29T23:07:00+00:00'));
});

test("appveyor: malformed payloads are refused with a 400 naming the field; the URL generator's entry", async () => {
  assertError(await hook('appveyor', { eventName: 'build_success' }), 400, 'BAD_REQUEST', "payload['eventData'] is missing");
  const { commitDate: _unused, ...noCommitDate } = eventData;
  assertError(await hook('appveyor', { eventName: 'build_success', eventData: noCommitDate }), 400, 'BAD_REQUEST', "payload['eventData']['commitDate'] is missing");
  assertError(await hook('appveyor', build('build_success', { buildVersion: 59 })), 400, 'BAD_REQUEST', "payload['eventData']['buildVersion'] is not a string");
  assertError(await hook('appveyor', build('build_success', { committerName: null })), 400, 'BAD_REQUEST', "payload['eventData']['committerName'] is not a string");
  for (const started of ['2018-09-09T19:04:00Z', '9/9/2018 19:04 PM', '2/30/2020 1:00 AM', '9/9/18 7:04 PM', '9/9/2018 7:04 PM UTC']) {
    assertError(await hook('appveyor', build('build_success', { started })), 400, 'BAD_REQUEST', `payload['eventData']['started'] is not a time of the form M/D/YYYY h:mm AM: ${started}`);
  }
  assertError(await hook('appveyor', build('build_success', { finished: 'yesterday' })), 400, 'BAD_REQUEST', "payload['eventData']['finished'] is not a time of the form M/D/YYYY h:mm AM: yesterday");
  assertError(await hook('appveyor', '{"eventData":'), 400, 'BAD_REQUEST', 'Malformed JSON');
  const listed = await h.listed('appveyor');
  assert.equal(listed?.display_name, 'AppVeyor');
  assert.equal(listed?.all_event_types, null);
  assert.deepEqual(listed?.url_options, []);
});
