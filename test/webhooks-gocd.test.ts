/**
 * The GoCD integration: Zulip's own test cases (payloads trimmed to what is
 * read): a stage building, passed, failed, and failed with jobs of mixed
 * results; other notifications post nothing; malformed payloads are refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('gocd');
const { hook, expectPosted } = h;

interface Job {
  name: string;
  result: string;
}

const stagePayload = (opts: { pipeline: string; stage: string; url: string; branch: string; revision: string; state: string; result: string; created: string; finished?: string; jobs: Job[] }) => ({
  data: {
    pipeline: {
      name: opts.pipeline,
      counter: '90',
      group: 'defaultGroup',
      'build-cause': [
        {
          material: { 'git-configuration': { 'shallow-clone': false, branch: opts.branch, url: opts.url }, type: 'git' },
          changed: false,
          modifications: [{ revision: opts.revision, 'modified-time': 'Jan 31, 2024, 1:56:14 AM', data: {} }],
        },
      ],
      stage: {
        name: opts.stage,
        counter: '1',
        state: opts.state,
        result: opts.result,
        'create-time': opts.created,
        ...(opts.finished === undefined ? {} : { 'last-transition-time': opts.finished }),
        jobs: opts.jobs,
      },
    },
  },
  type: 'stage',
});

const TEST_REPO = { pipeline: 'Pipeline', stage: 'Stage', url: 'https://github.com/swayam0322/Test', branch: 'main', revision: '59f3c6e4540b6a89ad5505790e5efdf964e7b837' };
const GETTING_STARTED = { url: 'https://github.com/PieterCK/getting-started-repo.git', branch: 'master', revision: '963eb239c7b91eac2e15c727e06e908fd334e6f9' };
const building = stagePayload({ ...TEST_REPO, state: 'Building', result: 'Unknown', created: 'Feb 1, 2024, 1:58:13 AM', jobs: [{ name: 'Job', result: 'Unknown' }] });

test('gocd: a stage building, passed, failed, and failed with mixed job results', async () => {
  const m = await expectPosted(
    await hook('gocd', building),
    'Pipeline / Stage',
    '**Pipeline building**: Pipeline / Stage\n- **Commit**: [`59f3c6e4540`](https://github.com/swayam0322/Test/commit/59f3c6e4540) on branch `main`\n- **Started**: <time:Feb 1, 2024, 1:58:13 AM>',
  );
  assert.equal(m.client, 'ZulipGocdWebhook');
  await expectPosted(
    await hook('gocd', stagePayload({ ...TEST_REPO, state: 'Passed', result: 'Passed', created: 'Feb 1, 2024, 1:58:13 AM', finished: 'Feb 1, 2024, 1:58:40 AM', jobs: [{ name: 'Job', result: 'Passed' }] })),
    'Pipeline / Stage',
    ':green_circle: **Build passed**: Pipeline / Stage\n- **Commit**: [`59f3c6e4540`](https://github.com/swayam0322/Test/commit/59f3c6e4540) on branch `main`\n- **Started**: <time:Feb 1, 2024, 1:58:13 AM>\n- **Finished**: <time:Feb 1, 2024, 1:58:40 AM>\n- **Passed**: `Job`',
  );
  await expectPosted(
    await hook(
      'gocd',
      stagePayload({ ...GETTING_STARTED, pipeline: 'pipeline-one', stage: 'stage-two', state: 'Failed', result: 'Failed', created: 'Aug 28, 2024, 9:30:19 PM', finished: 'Aug 28, 2024, 9:31:00 PM', jobs: [{ name: 'task-two', result: 'Failed' }] }),
    ),
    'pipeline-one / stage-two',
    ':red_circle: **Build failed**: pipeline-one / stage-two\n- **Commit**: [`963eb239c7b`](https://github.com/PieterCK/getting-started-repo.git/commit/963eb239c7b) on branch `master`\n- **Started**: <time:Aug 28, 2024, 9:30:19 PM>\n- **Finished**: <time:Aug 28, 2024, 9:31:00 PM>\n- **Failed**: `task-two`',
  );
  const mixed = [
    { name: 'check-backend-lints', result: 'Failed' },
    { name: 'check-backend-tests', result: 'Passed' },
    { name: 'test-frontend-js', result: 'Failed' },
    { name: 'zulip-ci-debian-12', result: 'Passed' },
  ];
  await expectPosted(
    await hook('gocd', stagePayload({ ...GETTING_STARTED, pipeline: 'test-pipeline', stage: 'backend-tests', state: 'Failed', result: 'Failed', created: 'Aug 29, 2024, 3:59:18 PM', finished: 'Aug 29, 2024, 4:00:15 PM', jobs: mixed })),
    'test-pipeline / backend-tests',
    ':red_circle: **Build failed**: test-pipeline / backend-tests\n- **Commit**: [`963eb239c7b`](https://github.com/PieterCK/getting-started-repo.git/commit/963eb239c7b) on branch `master`\n- **Started**: <time:Aug 29, 2024, 3:59:18 PM>\n- **Finished**: <time:Aug 29, 2024, 4:00:15 PM>\n- **Failed**: `check-backend-lints`, `test-frontend-js`\n- **Passed**: `check-backend-tests`, `zulip-ci-debian-12`',
  );
});

test('gocd: other notifications post nothing; malformed payloads are refused; the URL generator\'s entry', async () => {
  const before = await h.last();
  assertSuccess(await hook('gocd', { type: 'agent', data: { agent_state: 'Idle' } }));
  assert.equal((await h.last()).id, before.id);
  assertError(await hook('gocd', { data: {} }), 400, 'BAD_REQUEST', "payload['type'] is missing");
  const noCause = structuredClone(building);
  noCause.data.pipeline['build-cause'] = [];
  assertError(await hook('gocd', noCause), 400, 'BAD_REQUEST', "payload['data']['pipeline']['build-cause'][0] is missing");
  const unfinished = stagePayload({ ...TEST_REPO, state: 'Passed', result: 'Passed', created: 'Feb 1, 2024, 1:58:13 AM', jobs: [] });
  assertError(await hook('gocd', unfinished), 400, 'BAD_REQUEST', "payload['data']['pipeline']['stage']['last-transition-time'] is missing");
  assertError(await hook('gocd', 'not json'), 400, 'BAD_REQUEST', 'Malformed JSON');
  const listed = await h.listed('gocd');
  assert.equal(listed?.display_name, 'GoCD');
  assert.equal(listed?.all_event_types, null);
  assert.deepEqual(listed?.url_options, []);
});
