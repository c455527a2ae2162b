/**
 * The dbt Cloud and Delighted integrations: job runs started, succeeded,
 * completed with errors and failed, linked with the access URL; survey
 * responses from promoters and others (Zulip's test cases).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('data');
const { hook, expectPosted } = h;

const run = (eventType: string, runStatus: string, runStartedAt = '2023-01-31T19:28:07Z') => ({
  accountId: 1,
  eventType,
  data: {
    jobId: '123',
    jobName: 'Daily Job (dbt build)',
    runId: '12345',
    environmentName: 'Production',
    projectName: 'Example Project',
    projectId: '167194',
    runStatus,
    runReason: 'Kicked off from the UI by bwilliams@example.com',
    runStartedAt,
  },
});

test('dbt: job runs started, succeeded, completed with errors and failed; links with the access URL', async () => {
  const m = await expectPosted(
    await hook('dbt', run('job.run.started', 'Running')),
    'Example Project',
    ':yellow_circle: Daily Job (dbt build) deployment started in **Production**.\n\nJob #123 was kicked off from the UI by bwilliams@example.com at <time:2023-01-31T19:28:07Z>.',
  );
  assert.equal(m.client, 'ZulipDBTWebhook');
  await expectPosted(
    await hook('dbt', run('job.run.completed', 'Success')),
    'Example Project',
    ':green_circle: Daily Job (dbt build) deployment succeeded in **Production**.\n\nJob #123 was kicked off from the UI by bwilliams@example.com at <time:2023-01-31T19:28:07Z>.',
  );
  const P = 'https://cloud.getdbt.com/deploy/1/projects/167194';
  await expectPosted(
    await hook('dbt', run('job.run.completed', 'Errored', '2025-10-05T19:15:56Z'), { query: { access_url: 'https://cloud.getdbt.com/anything' } }),
    'Example Project',
    `:cross_mark: Daily Job (dbt build) [deployment](${P}/runs/12345) completed with errors in **Production**.\n\n[Job #123](${P}/jobs/123) was kicked off from the UI by bwilliams@example.com at <time:2025-10-05T19:15:56Z>.`,
  );
  await expectPosted(
    await hook('dbt', run('job.run.errored', 'Errored')),
    'Example Project',
    ':cross_mark: Daily Job (dbt build) deployment failed in **Production**.\n\nJob #123 was kicked off from the UI by bwilliams@example.com at <time:2023-01-31T19:28:07Z>.',
  );
  const res = await hook('dbt', run('job.run.completed', 'Cancelled'));
  assert.equal(res.status, 200);
  assert.equal(res.body.msg, "The 'job.run.completed (cancelled)' event isn't currently supported by the DBT webhook; ignoring");
  assert.equal((await hook('dbt', run('job.run.queued', 'Queued'))).body.msg, "The 'job.run.queued' event isn't currently supported by the DBT webhook; ignoring");
  assertError(await hook('dbt', { ...run('job.run.started', 'Running'), accountId: '1' }), 400, 'BAD_REQUEST', "payload['accountId'] is not an integer");
  const listed = await h.listed('dbt');
  assert.equal(listed?.display_name, 'DBT');
  assert.deepEqual(listed?.url_options, [{ key: 'access_url', label: 'DBT Access URL', validator: 'check_string' }]);
});

test('delighted: survey responses from promoters and others', async () => {
  const response = (email: string, score: number, comment: string) => ({ event_type: 'survey_response.updated', event_data: { person: { email }, score, comment } });
  const m = await expectPosted(
    await hook('delighted', response('charlie_gravis@example.com', 9, 'Your service is fast and flawless!'), { contentType: 'application/x-www-form-urlencoded' }),
    'Survey response',
    'Kudos! You have a new promoter. Score of 9/10 from charlie_gravis@example.com:\n\n``` quote\nYour service is fast and flawless!\n```',
  );
  assert.equal(m.client, 'ZulipDelightedWebhook');
  await expectPosted(
    await hook('delighted', response('paul_gravis@example.com', 5, 'Your service is slow, but nearly flawless! Keep up the good work!')),
    'Survey response',
    'Great! You have new feedback. Score of 5/10 from paul_gravis@example.com:\n\n``` quote\nYour service is slow, but nearly flawless! Keep up the good work!\n```',
  );
  assertError(await hook('delighted', { event_data: { person: {}, score: 1, comment: 'x' } }), 400, 'BAD_REQUEST', "payload['event_data']['person']['email'] is missing");
});
