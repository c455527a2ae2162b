/**
 * The Semaphore integration: Zulip's own test cases (payloads trimmed to
 * what is read): Semaphore Classic's builds and deploys, Semaphore 2.0's
 * pipelines for pushes, pull requests and tags, on GitHub and elsewhere.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('semaphore');
const { hook, expectPosted } = h;

const FORM = { contentType: 'application/x-www-form-urlencoded' };
const SHA = 'a490b8d508ebbdab1d77a5c2aefa35ceb2d62daf';
const COMMIT = { id: SHA, url: `https://github.com/donquixote/knighthood/commit/${SHA}`, author_email: 'don@lamancha.com', message: 'Create user account for Rocinante\n\nThe user is an admin user' };
const COMMIT_LINE = `* **Commit**: [a490b8d508e: Create user account for Rocinante](https://github.com/donquixote/knighthood/commit/${SHA})\n* **Author**: don@lamancha.com`;
const classic = { branch_name: 'master', project_name: 'knighthood', result: 'passed', commit: COMMIT };

test('semaphore: Semaphore Classic builds and deploys, and an event it does not describe', async () => {
  const m = await expectPosted(
    await hook('semaphore', { ...classic, event: 'build', build_number: 314, build_url: 'https://semaphoreci.com/donquixote/knighthood/branches/master/builds/314' }, FORM),
    'knighthood/master',
    `[Build 314](https://semaphoreci.com/donquixote/knighthood/branches/master/builds/314) passed:\n${COMMIT_LINE}`,
  );
  assert.equal(m.client, 'ZulipSemaphoreWebhook');
  await expectPosted(
    await hook(
      'semaphore',
      {
        ...classic,
        event: 'deploy',
        number: 17,
        html_url: 'https://semaphoreci.com/donquixote/knighthood/servers/lamancha-271/deploys/17',
        build_number: 314,
        build_html_url: 'https://semaphoreci.com/donquixote/knighthood/branches/master/builds/314',
        server_name: 'lamancha-271',
      },
      FORM,
    ),
    'knighthood/master',
    `[Deploy 17](https://semaphoreci.com/donquixote/knighthood/servers/lamancha-271/deploys/17) of [build 314](https://semaphoreci.com/donquixote/knighthood/branches/master/builds/314) passed:\n${COMMIT_LINE}\n* **Server**: lamancha-271`,
  );
  await expectPosted(await hook('semaphore', { ...classic, event: 'unknown' }, FORM), 'knighthood/master', 'unknown: passed');
});

const WORKFLOW = 'https://semaphore.semaphoreci.com/workflows';
const v2 = (repoUrl: string, revision: Record<string, unknown>, result = 'stopped', workflow = 'acabe58e-4bcc-4d39-be06-e98d71917703') => ({
  version: '1.0.0',
  organization: { name: 'semaphore' },
  project: { name: 'notifications' },
  repository: { url: repoUrl },
  workflow: { id: workflow },
  pipeline: { name: 'Notifications', result },
  revision: { sender: { login: 'radwo' }, tag: null, branch: null, pull_request: null, ...revision },
});
const GH = 'https://github.com/renderedtext/notifications';
const OTHER = 'https://gitlab.example.com/renderedtext/notifications';
const push = {
  reference_type: 'branch',
  commit_sha: '2d9f5fcec1ca7c68fa7bd44dd58ec4ff65814563',
  commit_message: 'Implement webhooks for SemaphoreCI\r\n\r\nThis implements the webhooks for Semaphore2',
  branch: { name: 'rw/webhook_impl' },
};
const pr = { reference_type: 'pull_request', pull_request: { number: '3', name: 'Testing PR notifications', branch_name: 'test-notifications' } };
const tag = { reference_type: 'tag', tag: { name: 'v1.0.1' } };

test('semaphore: Semaphore 2.0 pipelines for pushes, pull requests and tags, linked on GitHub, plain elsewhere', async () => {
  const pushHead = `[Notifications](${WORKFLOW}/acabe58e-4bcc-4d39-be06-e98d71917703) pipeline **stopped**:`;
  await expectPosted(
    await hook('semaphore', v2(GH, push)),
    'notifications/rw/webhook_impl',
    `${pushHead}\n* **Commit**: [(2d9f5fcec1c)](${GH}/commit/2d9f5fcec1ca7c68fa7bd44dd58ec4ff65814563) Implement webhooks for SemaphoreCI\n* **Branch**: rw/webhook_impl\n* **Author**: [radwo](https://github.com/radwo)`,
  );
  await expectPosted(
    await hook('semaphore', v2(OTHER, push)),
    'notifications/rw/webhook_impl',
    `${pushHead}\n* **Commit**: (2d9f5fcec1c) Implement webhooks for SemaphoreCI\n* **Branch**: rw/webhook_impl\n* **Author**: radwo`,
  );
  const prHead = `[Notifications](${WORKFLOW}/84383f37-d025-4811-b719-61c6acc92a1e) pipeline **failed**:`;
  await expectPosted(
    await hook('semaphore', v2(GH, pr, 'failed', '84383f37-d025-4811-b719-61c6acc92a1e')),
    'notifications/test-notifications',
    `${prHead}\n* **Pull request**: [Testing PR notifications](${GH}/pull/3)\n* **Branch**: test-notifications\n* **Author**: [radwo](https://github.com/radwo)`,
  );
  await expectPosted(
    await hook('semaphore', v2(OTHER, pr, 'failed', '84383f37-d025-4811-b719-61c6acc92a1e')),
    'notifications/test-notifications',
    `${prHead}\n* **Pull request**: Testing PR notifications (#3)\n* **Branch**: test-notifications\n* **Author**: radwo`,
  );
  const tagHead = `[Notifications](${WORKFLOW}/a8704319-2422-4828-9b11-6b2afa3554e6) pipeline **stopped**`;
  await expectPosted(
    await hook('semaphore', v2(GH, tag, 'stopped', 'a8704319-2422-4828-9b11-6b2afa3554e6')),
    'notifications',
    `${tagHead}:\n* **Tag**: [v1.0.1](${GH}/tree/v1.0.1)\n* **Author**: [radwo](https://github.com/radwo)`,
  );
  await expectPosted(await hook('semaphore', v2(OTHER, tag, 'stopped', 'a8704319-2422-4828-9b11-6b2afa3554e6')), 'notifications', `${tagHead}:\n* **Tag**: v1.0.1\n* **Author**: radwo`);
  await expectPosted(
    await hook('semaphore', v2(GH, { ...tag, reference_type: 'unknown' }, 'stopped', 'a8704319-2422-4828-9b11-6b2afa3554e6')),
    'notifications',
    `${tagHead} for unknown event`,
  );
});

test('semaphore: malformed payloads; only_events picks among the event types; the URL generator\'s entry', async () => {
  assertError(await hook('semaphore', { ...classic, event: 'build', build_url: 'x' }), 400, 'BAD_REQUEST', "payload['build_number'] is missing");
  assertError(await hook('semaphore', v2(GH, { ...push, branch: null })), 400, 'BAD_REQUEST', "payload['revision']['branch'] is not a dict");
  const before = await h.last();
  const res = await hook('semaphore', v2(GH, tag), { query: { only_events: '["branch","pull_request"]' } });
  assert.equal(res.body.result, 'success');
  assert.equal((await h.last()).id, before.id);
  const types = ['build', 'tag', 'unknown', 'branch', 'deploy', 'pull_request'];
  assert.deepEqual(await h.listed('semaphore'), { name: 'semaphore', display_name: 'Semaphore', all_event_types: types, config_options: [], url_options: [] });
});
