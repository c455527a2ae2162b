/**
 * The SonarQube integration: an analysis's quality gate with the failed
 * conditions, with and without a branch (Zulip's own test cases, sent with
 * the form content type SonarQube uses), and Zulip's errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('SonarQube');
const { hook, expectPosted } = h;
const FORM = { contentType: 'application/x-www-form-urlencoded' };

const PROJECT = { key: 'test-sonar', name: 'test-sonar', url: 'http://localhost:9000/dashboard?id=test-sonar' };
const BRANCH = { name: 'master', type: 'BRANCH', isMain: true, url: 'http://localhost:9000/dashboard?id=test-sonar' };
const MAINTAINABILITY = { metric: 'maintainability_rating', operator: 'GREATER_THAN', value: '1', status: 'OK', errorThreshold: '1' };
const COVERAGE = { metric: 'coverage', operator: 'LESS_THAN', value: '0.0', status: 'ERROR', errorThreshold: '80' };
const DUPLICATION = { metric: 'duplicated_lines_density', operator: 'GREATER_THAN', value: '89.39828080229226', status: 'ERROR', errorThreshold: '3' };
const NO_DATA = { metric: 'new_coverage', operator: 'LESS_THAN', status: 'NO_VALUE', errorThreshold: '80' };

function analysis(status: string, conditions: unknown[], branch: unknown = BRANCH) {
  return {
    serverUrl: 'http://localhost:9000',
    taskId: 'AXgTFfXRZCzhMRNj54bo',
    status: 'SUCCESS',
    analysedAt: '2021-03-08T18:25:04+0000',
    project: PROJECT,
    ...(branch ? { branch } : {}),
    qualityGate: { name: 'Sonar way', status, conditions },
    properties: {},
  };
}

const LINK = '[test-sonar](http://localhost:9000/dashboard?id=test-sonar)';
const FAILED = '* coverage: **error** 0.0 should be greater than or equal to 80.\n* duplicated lines density: **error** 89.39828080229226 should be less than or equal to 3.';

test('sonarqube: success and error, with a branch and without; a condition without a value', async () => {
  await expectPosted(await hook('sonarqube', analysis('OK', [MAINTAINABILITY, NO_DATA]), FORM), 'test-sonar / master', `Project ${LINK} analysis of branch master resulted in success.`);
  await expectPosted(
    await hook('sonarqube', analysis('ERROR', [MAINTAINABILITY, COVERAGE, DUPLICATION]), FORM),
    'test-sonar / master',
    `Project ${LINK} analysis of branch master resulted in error:\n${FAILED}`,
  );
  const { value: _dropped, ...noValue } = DUPLICATION;
  await expectPosted(
    await hook('sonarqube', analysis('ERROR', [MAINTAINABILITY, COVERAGE, noValue]), FORM),
    'test-sonar / master',
    `Project ${LINK} analysis of branch master resulted in error:\n* coverage: **error** 0.0 should be greater than or equal to 80.\n* duplicated lines density: **error**.`,
  );
  await expectPosted(await hook('sonarqube', analysis('OK', [MAINTAINABILITY], null), FORM), 'test-sonar', `Project ${LINK} analysis resulted in success.`);
  await expectPosted(await hook('sonarqube', analysis('ERROR', [COVERAGE, DUPLICATION], { name: null }), FORM), 'test-sonar', `Project ${LINK} analysis resulted in error:\n${FAILED}`);
  // An operator Zulip has no wording for is named as it is.
  await expectPosted(
    await hook('sonarqube', analysis('ERROR', [{ ...COVERAGE, operator: 'EQUALS' }], null)),
    'test-sonar',
    `Project ${LINK} analysis resulted in error:\n* coverage: **error** 0.0 EQUALS 80.`,
  );
});

test('sonarqube: malformed payloads are 400s naming the field; its entry for the URL generator', async () => {
  assertError(await hook('sonarqube', { qualityGate: {} }), 400, 'BAD_REQUEST', "payload['project'] is missing");
  // Zulip reads the project's link before the quality gate.
  assertError(await hook('sonarqube', { project: { name: 'test-sonar' } }), 400, 'BAD_REQUEST', "payload['project']['url'] is missing");
  assertError(await hook('sonarqube', analysis('ERROR', [{ ...COVERAGE, errorThreshold: 80 }])), 400, 'BAD_REQUEST', "payload['qualityGate']['conditions'][0]['errorThreshold'] is not a string");
  assertError(await hook('sonarqube', analysis('ERROR', 'none' as any)), 400, 'BAD_REQUEST', "payload['qualityGate']['conditions'] is not a list");
  const reg = assertSuccess(await h.t.client(h.t.owner).post('/register', { fetch_event_types: JSON.stringify(['realm_incoming_webhook_bots']) }));
  assert.deepEqual(reg.realm_incoming_webhook_bots.find((b: any) => b.name === 'sonarqube'), {
    name: 'sonarqube',
    display_name: 'SonarQube',
    all_event_types: null,
    config_options: [],
    url_options: [],
  });
});
