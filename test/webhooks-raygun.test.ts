/**
 * The Raygun integration: Zulip's own test cases (errors new and
 * reoccurred, follow-ups, status changes, comments, assignments), what
 * null parts of an error leave out, and what is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('raygun');
const { hook, expectPosted } = h;

const FORM = { contentType: 'application/x-www-form-urlencoded' };
const APP = { name: 'application name', url: 'http://app.raygun.io/application-url' };
const APP_LINE = '* **Application details**: [application name](http://app.raygun.io/application-url)';
const TIME = '<time:1970-01-28T01:49:36+00:00>';
const error = { url: 'http://app.raygun.io/error-url', message: '', firstOccurredOn: '1970-01-28T01:49:36Z', lastOccurredOn: '1970-01-28T01:49:36Z', usersAffected: 1, totalOccurrences: 1 };
const instance = {
  tags: ['test', 'error-page', 'v1.0.1', 'env:staging'],
  affectedUser: { Identifier: 'a9b7d84a-c0d3-4e7e-9ded-1ec13d033846', IsAnonymous: true, UUID: 'a9b7d84a-c0d3-4e7e-9ded-1ec13d033846' },
  customData: { userLoggedIn: true, pageName: 'Error Page' },
};
const notification = (eventType: string, err: Record<string, unknown>) => ({ event: 'error_notification', eventType, error: err, application: APP });
const STATS = `* **First occurred**: ${TIME}\n* **Last occurred**: ${TIME}\n* 1 users affected with 1 total occurrences`;
const DETAILS = '* **Tags**: test, error-page, v1.0.1, env:staging\n* **Affected user**: a9b7d8...33846\n* **pageName**: Error Page\n* **userLoggedIn**: True';

test('raygun: new and reoccurred errors with their details; follow-ups', async () => {
  const m = await expectPosted(await hook('raygun', notification('NewErrorOccurred', { ...error, instance }), FORM), 'test', `New [Error](http://app.raygun.io/error-url) occurred:\n${STATS}\n${DETAILS}\n${APP_LINE}`);
  assert.equal(m.client, 'ZulipRaygunWebhook');
  await expectPosted(await hook('raygun', notification('ErrorReoccurred', { ...error, instance }), FORM), 'test', `[Error](http://app.raygun.io/error-url) reoccurred:\n${STATS}\n${DETAILS}\n${APP_LINE}`);
  await expectPosted(await hook('raygun', notification('OneMinuteFollowUp', error), FORM), 'test', `One minute [follow-up error](http://app.raygun.io/error-url):\n${STATS}\n${APP_LINE}`);
  await expectPosted(await hook('raygun', notification('HourlyFollowUp', error), FORM), 'test', `Hourly [follow-up error](http://app.raygun.io/error-url):\n${STATS}\n${APP_LINE}`);
  // A message, when the error has one; tags, user and custom data left out when null.
  await expectPosted(
    await hook('raygun', notification('NewErrorOccurred', { ...error, message: 'Script Error', instance: { tags: null, affectedUser: null, customData: null } })),
    'test',
    `New [Error](http://app.raygun.io/error-url) occurred:\n* **Message**: Script Error\n${STATS}\n${APP_LINE}`,
  );
});

test('raygun: activity on an error: its status, a comment, an assignment', async () => {
  const activity = (eventType: string, extra: Record<string, unknown>, app = APP) => ({
    event: 'error_activity',
    eventType,
    error: { url: 'https://app.raygun.com/error-url', activityDate: '1970-01-28T01:49:36Z', message: 'Script Error', ...extra },
    application: app,
  });
  await expectPosted(
    await hook('raygun', activity('StatusChanged', { status: 'Ignored', user: 'Emma Cat' }, { name: 'Best App', url: 'http://app.raygun.io/application-url' }), FORM),
    'test',
    `[Error](https://app.raygun.com/error-url) status changed to **Ignored** by Emma Cat:\n* **Timestamp**: ${TIME}\n* **Application details**: [Best App](http://app.raygun.io/application-url)`,
  );
  await expectPosted(
    await hook('raygun', activity('CommentAdded', { comment: 'Ignoring these errors', user: 'Anita Peacock' }), FORM),
    'test',
    `Anita Peacock commented on [Error](https://app.raygun.com/error-url):\n\n\`\`\` quote\nIgnoring these errors\n\`\`\`\n* **Timestamp**: ${TIME}\n${APP_LINE}`,
  );
  await expectPosted(
    await hook('raygun', activity('AssignedToUser', { assignedTo: 'Kyle Kenny', user: 'Amy Loondon' }), FORM),
    'test',
    `Amy Loondon assigned [Error](https://app.raygun.com/error-url) to Kyle Kenny:\n* **Timestamp**: ${TIME}\n${APP_LINE}`,
  );
});

test('raygun: unsupported events and event types; malformed payloads; the URL generator\'s entry', async () => {
  for (const [payload, name] of [
    [{ event: 'deployment', eventType: 'x' }, 'deployment'],
    [notification('ErrorResolved', error), 'ErrorResolved'],
    [{ event: 'error_activity', eventType: 'Deleted', error: {}, application: APP }, 'Deleted'],
  ] as const) {
    const res = await hook('raygun', payload);
    assert.equal(res.status, 200);
    assert.equal(res.body.msg, `The '${name}' event isn't currently supported by the Raygun webhook; ignoring`);
  }
  assertError(await hook('raygun', notification('HourlyFollowUp', { ...error, lastOccurredOn: 'yesterday' })), 400, 'BAD_REQUEST', "payload['error']['lastOccurredOn'] is not a valid ISO datetime");
  assertError(await hook('raygun', notification('NewErrorOccurred', error)), 400, 'BAD_REQUEST', "payload['error']['instance'] is missing");
  assert.deepEqual((await h.listed('raygun'))?.all_event_types, ['error_notification', 'error_activity']);
});
