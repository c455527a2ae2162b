/**
 * The OpenSearch integration: Zulip's own fixtures (the default template,
 * a template naming its topic, the test notification), sent as text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('opensearch');
const { hook, expectPosted } = h;

const TEXT = { contentType: 'text/plain' };

test('opensearch: the notification as the message; a first "topic:" line names the topic; any Content-Type', async () => {
  const alert =
    'Monitor Storage size monitor just entered alert status. Please investigate the issue.\n- Trigger: Storage size over 1TB\n- Severity: 1\n- Period start: 2025-02-25T00:58:39.607Z\n- Period end: 2025-02-25T00:59:39.607Z';
  const m = await expectPosted(await hook('opensearch', `${alert}\n`, TEXT), 'OpenSearch alerts', alert);
  assert.equal(m.client, 'ZulipOpenSearchWebhook');
  await expectPosted(
    await hook('opensearch', 'topic: Resource Monitor\nAlert of severity **3** triggered by **Insufficient memory**.\n', { contentType: 'application/json' }),
    'Resource Monitor',
    'Alert of severity **3** triggered by **Insufficient memory**.',
  );
  await expectPosted(await hook('opensearch', 'Test message content body for config id Uz5bK5UBeE4fYdADfbg0', TEXT), 'OpenSearch alerts', 'Test message content body for config id Uz5bK5UBeE4fYdADfbg0');
  // "topic:" without a line after it is text like any other.
  await expectPosted(await hook('opensearch', 'topic: all of it', TEXT), 'OpenSearch alerts', 'topic: all of it');
  assertError(await hook('opensearch', '', TEXT), 400, 'BAD_REQUEST', 'Message must not be empty');
  assert.equal((await h.listed('opensearch'))?.display_name, 'OpenSearch');
});
