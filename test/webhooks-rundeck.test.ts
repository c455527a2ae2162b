/**
 * The Rundeck integration: Zulip's own test cases (payloads trimmed to what
 * is read, sent as Rundeck does, JSON under a form content type): an
 * execution started, scheduled, running long, succeeded and failed; statuses
 * it does not describe and malformed payloads are refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('rundeck');
const { hook, expectPosted } = h;

const FORM = { contentType: 'application/x-www-form-urlencoded' };
const TOPIC = 'Global Log Filter Usage';
const LOCAL = 'http://localhost:4440/project/welcome-project-community';
const JOB = `[Global Log Filter Usage](${LOCAL}/job/show/a0296d93-4b10-48d7-8b7d-86ad3f603b85)`;

const notification = (trigger: string, status: string, id: number, over: Record<string, unknown> = {}) => ({
  trigger,
  status,
  executionId: id,
  execution: {
    id,
    href: `${LOCAL}/execution/show/${id}`,
    permalink: null,
    status,
    project: 'welcome-project-community',
    job: { id: 'a0296d93-4b10-48d7-8b7d-86ad3f603b85', name: TOPIC, permalink: `${LOCAL}/job/show/a0296d93-4b10-48d7-8b7d-86ad3f603b85` },
    ...over,
  },
});

test('rundeck: an execution started, succeeded, failed, running long, and scheduled', async () => {
  const m = await expectPosted(await hook('rundeck', notification('start', 'running', 3), FORM), TOPIC, `${JOB} execution [#3](${LOCAL}/execution/show/3) for welcome-project-community has started. :running:`);
  assert.equal(m.client, 'ZulipRundeckWebhook');
  await expectPosted(await hook('rundeck', notification('success', 'succeeded', 3), FORM), TOPIC, `${JOB} execution [#3](${LOCAL}/execution/show/3) for welcome-project-community has succeeded. :check:`);
  await expectPosted(await hook('rundeck', notification('failure', 'failed', 7), FORM), TOPIC, `${JOB} execution [#7](${LOCAL}/execution/show/7) for welcome-project-community has failed. :cross_mark:`);
  await expectPosted(
    await hook('rundeck', notification('avgduration', 'running', 6), FORM),
    TOPIC,
    `${JOB} execution [#6](${LOCAL}/execution/show/6) for welcome-project-community is running long. :time_ticking:`,
  );
  const scheduled = notification('start', 'scheduled', 12, {
    href: 'https://rundeck.com/project/myproject/execution/follow/12',
    project: 'myproject',
    job: { id: 'a0296d93-4b10-48d7-8b7d-86ad3f603b85', name: TOPIC, project: 'MyProject', permalink: 'https://rundeck.com/project/myproject/job/show/a0296d93-4b10-48d7-8b7d-86ad3f603b85' },
  });
  await expectPosted(
    await hook('rundeck', scheduled, FORM),
    TOPIC,
    '[Global Log Filter Usage](https://rundeck.com/project/myproject/job/show/a0296d93-4b10-48d7-8b7d-86ad3f603b85) execution [#12](https://rundeck.com/project/myproject/execution/follow/12) for myproject has started. :running:',
  );
});

test("rundeck: statuses it does not describe and malformed payloads are refused; the URL generator's entry", async () => {
  assertError(await hook('rundeck', notification('failure', 'aborted', 8), FORM), 400, 'BAD_REQUEST', "payload['execution']['status'] is not a status the Rundeck webhook describes: aborted");
  const noTrigger: Record<string, unknown> = notification('start', 'running', 3);
  delete noTrigger.trigger;
  assertError(await hook('rundeck', noTrigger, FORM), 400, 'BAD_REQUEST', "payload['trigger'] is missing");
  assertError(await hook('rundeck', notification('start', 'running', 3, { id: '3' }), FORM), 400, 'BAD_REQUEST', "payload['execution']['id'] is not an integer");
  assertError(await hook('rundeck', { trigger: 'start' }, FORM), 400, 'BAD_REQUEST', "payload['execution'] is missing");
  assertError(await hook('rundeck', 'trigger=start', FORM), 400, 'BAD_REQUEST', 'Malformed JSON');
  const listed = await h.listed('rundeck');
  assert.equal(listed?.display_name, 'Rundeck');
  assert.equal(listed?.all_event_types, null);
  assert.deepEqual(listed?.url_options, []);
});
