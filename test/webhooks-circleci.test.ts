/**
 * The CircleCI integration: Zulip's own test cases (payloads trimmed to what
 * is read): the test ping, jobs and workflows for GitHub, Bitbucket and
 * GitLab projects, pipelines run by hand, and malformed payloads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('circleci');
const { hook, expectPosted } = h;

const HARI = 'Hari Prashant Bhimaraju';
const githubVcs = (over: Record<string, unknown> = {}) => ({
  provider_name: 'github',
  target_repository_url: 'https://github.com/zulip-testing/circleci-webhook-test',
  revision: 'a5e30a908224e46626a796d058289475f6d387b5',
  branch: 'main',
  commit: { subject: 'Fix remove-op on reaction event.', author: { name: HARI } },
  ...over,
});
const bitbucketVcs = (over: Record<string, unknown> = {}) => ({
  provider_name: 'bitbucket',
  target_repository_url: 'https://bitbucket.org/hariprashant1/circleci-webhook-testing',
  revision: '8ab595d2de95767993472837df2cb7884519a92b',
  branch: 'master',
  commit: { subject: 'app.py edited online with Bitbucket', author: { name: HARI } },
  ...over,
});

test('circleci: the test ping; jobs and workflows for GitHub and Bitbucket projects, and pipelines run by hand', async () => {
  await expectPosted(await hook('circleci', { type: 'ping', webhook: { name: 'Testing' } }), 'Test event', "Webhook 'Testing' test event successful.");
  await expectPosted(
    await hook('circleci', { type: 'job-completed', project: { name: 'main branch - build notifications' }, pipeline: { number: 4, vcs: githubVcs() }, job: { name: 'build-and-test', status: 'success' } }),
    'main branch - build notifications',
    `Job \`build-and-test\` within Pipeline #4 has succeeded.\n\nTriggered on [\`a5e30a90822: Fix remove-op on reaction event.\`](https://github.com/zulip-testing/circleci-webhook-test/commit/a5e30a908224e46626a796d058289475f6d387b5) on branch \`main\` by ${HARI}.`,
  );
  const bbWorkflow = (number: number, vcs: unknown, id: string) => ({
    type: 'workflow-completed',
    project: { name: 'circleci-webhook-testing' },
    pipeline: { number, vcs },
    workflow: { name: 'sample', url: `https://app.circleci.com/pipelines/bitbucket/hariprashant1/circleci-webhook-testing/${number}/workflows/${id}`, status: 'success' },
  });
  await expectPosted(
    await hook('circleci', bbWorkflow(4, bitbucketVcs(), 'fd29ef0c-3e39-4c8f-b1d5-d8be1bab8165')),
    'circleci-webhook-testing',
    `Workflow [\`sample\`](https://app.circleci.com/pipelines/bitbucket/hariprashant1/circleci-webhook-testing/4/workflows/fd29ef0c-3e39-4c8f-b1d5-d8be1bab8165) within Pipeline #4 has succeeded.\n\nTriggered on [\`8ab595d2de9: app.py edited online with Bitbucket\`](https://bitbucket.org/hariprashant1/circleci-webhook-testing/commits/8ab595d2de95767993472837df2cb7884519a92b) on branch \`master\` by ${HARI}.`,
  );
  const manual = bitbucketVcs({ revision: 'cab5eacb4ccee2710529894425341fa20a48fe6a', commit: { subject: null } });
  await expectPosted(
    await hook('circleci', bbWorkflow(2, manual, 'baa45986-84db-47a0-bc6c-89e9fe751bc9')),
    'circleci-webhook-testing',
    "Workflow [`sample`](https://app.circleci.com/pipelines/bitbucket/hariprashant1/circleci-webhook-testing/2/workflows/baa45986-84db-47a0-bc6c-89e9fe751bc9) within Pipeline #2 has succeeded.\n\nTriggered on `master`'s HEAD on [cab5eacb4cc](https://bitbucket.org/hariprashant1/circleci-webhook-testing/commits/cab5eacb4ccee2710529894425341fa20a48fe6a).",
  );
  const tag = githubVcs({ target_repository_url: 'https://github.com/prah23/circleci-webhook-test', revision: '0e6e66c14e61fbcd95db716b0f30d67dbcce7814', branch: null, commit: { subject: null } });
  await expectPosted(
    await hook('circleci', {
      type: 'workflow-completed',
      project: { name: 'circleci-webhook-test' },
      pipeline: { number: 20, vcs: tag },
      workflow: { name: 'sample', url: 'https://app.circleci.com/pipelines/github/prah23/circleci-webhook-test/20/workflows/045c6271-78e2-4802-8a62-f4fa6d25d0c9', status: 'failed' },
    }),
    'circleci-webhook-test',
    'Workflow [`sample`](https://app.circleci.com/pipelines/github/prah23/circleci-webhook-test/20/workflows/045c6271-78e2-4802-8a62-f4fa6d25d0c9) within Pipeline #20 has failed.\n\nTriggered on the latest tag on [0e6e66c14e6](https://github.com/prah23/circleci-webhook-test/commit/0e6e66c14e61fbcd95db716b0f30d67dbcce7814).',
  );
});

test('circleci: GitLab projects; the event types; malformed payloads; its entry for the URL generator', async () => {
  const gitlab = {
    type: 'job-completed',
    project: { name: 'circleci-webhook-test' },
    pipeline: {
      number: 3,
      trigger: { type: 'gitlab' },
      trigger_parameters: {
        gitlab: {
          commit_title: 'app: Enhance message within hello().',
          checkout_sha: 'c31f86994c54672f97b5bd5e544315b7bd40e4c1',
          commit_author_name: HARI,
          web_url: 'https://gitlab.com/zulip-testing/circleci-webhook-test',
          branch: 'main',
        },
      },
    },
    job: { name: 'build-and-test', status: 'success' },
  };
  await expectPosted(
    await hook('circleci', gitlab),
    'circleci-webhook-test',
    `Job \`build-and-test\` within Pipeline #3 has succeeded.\n\nTriggered on [\`c31f86994c5: app: Enhance message within hello().\`](https://gitlab.com/zulip-testing/circleci-webhook-test/-/commit/c31f86994c54672f97b5bd5e544315b7bd40e4c1) on branch \`main\` by ${HARI}.`,
  );
  const before = (await h.last()).id;
  assertSuccess(await hook('circleci', gitlab, { query: { only_events: '["workflow-completed"]' } }));
  assert.equal((await h.last()).id, before);
  assertError(await hook('circleci', { ...gitlab, pipeline: { ...gitlab.pipeline, trigger: { type: 'webhook' } } }), 400, 'BAD_REQUEST', "Projects using this version control system provider aren't supported");
  assertError(await hook('circleci', { ...gitlab, type: 'build-completed' }), 400, 'BAD_REQUEST', "Invalid payload['type']");
  assertError(await hook('circleci', { type: 'ping' }), 400, 'BAD_REQUEST', "payload['webhook'] is missing");
  assert.equal((await h.last()).id, before);
  assert.deepEqual(await h.listed('circleci'), { name: 'circleci', display_name: 'CircleCI', all_event_types: ['ping', 'job-completed', 'workflow-completed'], config_options: [], url_options: [] });
});
