/**
 * The Harbor integration: Zulip's own test cases (payloads trimmed to what
 * is read): an image pushed, scans completed (with and without
 * vulnerabilities, an image without a tag), ignored events, the operator
 * looked up among the organization's accounts, a report of another kind,
 * malformed payloads, and the URL generator's entry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('harbor');
const { hook, expectPosted } = h;

const REPORT = 'application/vnd.security.vulnerability.report; version=1.1';
const HELM_DIGEST = 'sha256:b50334049354ed01330403212605dce2f4676a4e787ed113506861d9cf3c5424';

const event = (type: string, operator: string, repo: string, resource: Record<string, unknown>) => ({
  type,
  occur_at: 1571334632,
  operator,
  event_data: { resources: [resource], repository: { repo_full_name: repo } },
});
const push = event('PUSH_ARTIFACT', 'admin', 'example/test', { digest: 'sha256:d72f37f783ed6a8d58ac70b4db052707d1ec9d4ea010ef5ccd84652faf9ed844', tag: 'latest' });
const scanned = (summary: Record<string, unknown>, tag?: string) =>
  event('SCANNING_COMPLETED', 'auto', 'test/alpine/helm', { digest: HELM_DIGEST, ...(tag ? { tag } : {}), scan_overview: { [REPORT]: { summary: { total: 5, fixable: 5, summary } } } });

test('harbor: an image pushed, by its operator', async () => {
  const m = await expectPosted(await hook('harbor', push), 'example/test', '**admin** pushed image `example/test:latest`');
  assert.equal(m.client, 'ZulipHarborWebhook');
});

test('harbor: scans completed, with the count of each severity, none, and an image without a tag', async () => {
  const bySeverity = '* High: **4**\n* Unknown: **1**';
  await expectPosted(
    await hook('harbor', scanned({ High: 4, Unknown: 1 }, '3.8.1')),
    'test/alpine/helm',
    `Image scan completed for \`test/alpine/helm:3.8.1\`. Vulnerabilities by severity:\n\n${bySeverity}`,
  );
  await expectPosted(
    await hook('harbor', event('SCANNING_COMPLETED', 'auto', 'test123/test-image', { tag: 'latest', scan_overview: { [REPORT]: { summary: { summary: {} } } } })),
    'test123/test-image',
    'Image scan completed for `test123/test-image:latest`. Vulnerabilities by severity:\n\nNone',
  );
  await expectPosted(
    await hook('harbor', scanned({ High: 4, Unknown: 1 })),
    'test/alpine/helm',
    `Image scan completed for \`test/alpine/helm@${HELM_DIGEST}\`. Vulnerabilities by severity:\n\n${bySeverity}`,
  );
});

test('harbor: ignored events post nothing; other events and report kinds are not supported', async () => {
  const before = await h.last();
  for (const type of ['DELETE_ARTIFACT', 'PULL_ARTIFACT', 'SCANNING_FAILED', 'UPLOAD_CHART', 'DOWNLOAD_CHART', 'DELETE_CHART']) {
    assertSuccess(await hook('harbor', { ...push, type }));
  }
  assert.equal((await h.last()).id, before.id);

  const res = await hook('harbor', { ...push, type: 'QUOTA_EXCEED' });
  assert.equal(res.status, 200);
  assert.equal(res.body.result, 'error');
  assert.equal(res.body.code, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE');
  assert.equal(res.body.msg, "The 'QUOTA_EXCEED' event isn't currently supported by the Harbor webhook; ignoring");

  // A scan whose report is of another kind: the event type named is the list of report kinds.
  const other = event('SCANNING_COMPLETED', 'auto', 'test/alpine/helm', { tag: '1', scan_overview: { 'application/vnd.scanner.adapter.vuln.report.harbor+json; version=1.0': {}, "it's": {} } });
  const r2 = await hook('harbor', other);
  assert.equal(r2.status, 200);
  assert.equal(r2.body.code, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE');
  assert.equal(r2.body.event_type, `['application/vnd.scanner.adapter.vuln.report.harbor+json; version=1.0', "it's"]`);
  assert.equal((await h.last()).id, before.id);
});

test('harbor: the operator is looked up by the name Zulip looks up (the bolded one)', async () => {
  // An account plainly named after the operator is not mentioned: the name looked up is "**admin**".
  await h.t.makeUser({ name: 'admin', email: 'admin@example.com' });
  await expectPosted(await hook('harbor', push), 'example/test', '**admin** pushed image `example/test:latest`');
  // Names cannot hold "*", but an address may start with the bolded operator (in any case): that account is mentioned.
  await h.t.makeUser({ name: 'Registry Robot', email: '**robot**@example.com' });
  await expectPosted(await hook('harbor', { ...push, operator: 'ROBOT' }), 'example/test', '@**Registry Robot** pushed image `example/test:latest`');
});

test('harbor: the topic parameter is decoded once more', async () => {
  await expectPosted(await hook('harbor', push, { query: { topic: 'images%20pushed' } }), 'images pushed', '**admin** pushed image `example/test:latest`');
});

test('harbor: malformed payloads are refused with a 400', async () => {
  assertError(await hook('harbor', 'not json'), 400, 'BAD_REQUEST', 'Malformed JSON');
  const { operator: _o, ...noOperator } = push;
  assertError(await hook('harbor', noOperator), 400, 'BAD_REQUEST', "payload['operator'] is missing");
  // Even an ignored event names its repository.
  assertError(await hook('harbor', { type: 'PULL_ARTIFACT', operator: 'admin', event_data: { resources: [] } }), 400, 'BAD_REQUEST', "payload['event_data']['repository'] is missing");
  assertError(await hook('harbor', { ...push, event_data: { resources: [], repository: { repo_full_name: 'example/test' } } }), 400, 'BAD_REQUEST', "payload['event_data']['resources'][0] is missing");
  assertError(await hook('harbor', scanned({ High: 'four' }, '1')), 400, 'BAD_REQUEST', `payload['event_data']['resources'][0]['scan_overview']['${REPORT}']['summary']['summary']['High'] is not an integer`);
});

test('harbor: listed for the URL generator', async () => {
  assert.deepEqual(await h.listed('harbor'), {
    name: 'harbor',
    display_name: 'Harbor',
    all_event_types: ['PUSH_ARTIFACT', 'SCANNING_COMPLETED'],
    config_options: [],
    url_options: [],
  });
});
