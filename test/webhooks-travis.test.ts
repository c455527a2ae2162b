/**
 * The Travis CI integration: Zulip's own test cases (the build's JSON in a
 * form field), the event filters on push and pull_request, statuses and
 * malformed payloads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('travis');
const form = { contentType: 'application/x-www-form-urlencoded' };
const BUILD = {
  id: 92495257,
  status_message: 'Passed',
  build_url: 'https://travis-ci.org/hl7-fhir/fhir-svn/builds/92495257',
  compare_url: 'https://github.com/hl7-fhir/fhir-svn/compare/6dccb98bcfd9...6c457d366a31',
  author_name: 'josh_mandel',
  type: 'push',
};
const TEXT = 'Author: josh_mandel\nBuild status: Passed :thumbs_up:\nDetails: [changes](https://github.com/hl7-fhir/fhir-svn/compare/6dccb98bcfd9...6c457d366a31), [build log](https://travis-ci.org/hl7-fhir/fhir-svn/builds/92495257)';
const post = (payload: unknown, query: Record<string, string> = {}) => h.hook('travis', new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), { ...form, query });

test('travis: a build, its status and emoji; the event filters on push and pull_request', async () => {
  await h.expectPosted(await post(BUILD), 'builds', TEXT);
  await h.expectPosted(await post({ ...BUILD, status_message: 'Still Failing' }), 'builds', TEXT.replace('Passed :thumbs_up:', 'Still Failing :thumbs_down:'));
  await h.expectPosted(await post({ ...BUILD, status_message: 'Pending' }), 'builds', TEXT.replace('Passed :thumbs_up:', 'Pending :counterclockwise:'));
  await h.expectPosted(await post({ ...BUILD, status_message: 'Odd' }), 'builds', TEXT.replace('Passed :thumbs_up:', "Odd (No emoji specified for status 'Odd'.)"));
  const pr = { ...BUILD, type: 'pull_request' };
  await h.expectPosted(await post(pr, { only_events: '["pull_request"]' }), 'builds', TEXT);
  const before = (await h.last()).id;
  assertSuccess(await post(BUILD, { only_events: '["pull_request"]' }));
  assertSuccess(await post(pr, { exclude_events: '["pull_request"]' }));
  assertSuccess(await post(BUILD, { exclude_events: '["*"]' }));
  assert.equal((await h.last()).id, before);
  await h.expectPosted(await post(BUILD, { exclude_events: '["pull_request"]' }), 'builds', TEXT);
  // A build type outside the listed ones (a cron build) is posted unless a filter leaves it out.
  const cron = { ...BUILD, type: 'cron' };
  await h.expectPosted(await post(cron), 'builds', TEXT);
  const afterCron = (await h.last()).id;
  assertSuccess(await post(cron, { only_events: '["push","pull_request"]' }));
  assert.equal((await h.last()).id, afterCron);
});

test('travis: malformed payloads; its entry for the URL generator', async () => {
  const before = (await h.last()).id;
  assertError(await h.hook('travis', 'x=1', form), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'payload' argument");
  assertError(await h.hook('travis', 'payload=%7Bnot', form), 400, 'BAD_REQUEST', 'Argument "payload" is not valid JSON.');
  const { author_name: _a, ...noAuthor } = BUILD;
  assertError(await post(noAuthor), 400, 'BAD_REQUEST', "payload['author_name'] is missing");
  assert.equal((await h.last()).id, before);
  assert.deepEqual(await h.listed('travis'), { name: 'travis', display_name: 'Travis CI', all_event_types: ['push', 'pull_request'], config_options: [], url_options: [] });
});
