/**
 * The Airbrake and Airbyte integrations: Zulip's own test cases (an error
 * occurred; syncs succeeded and failed, Airbyte's test notifications), and
 * malformed payloads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('data');
const { hook, expectPosted } = h;

test('airbrake: an error occurred, linked to its group', async () => {
  const payload = {
    error: { id: '1705190192091077626', error_message: 'Error message from logger', error_class: 'ZeroDivisionError', project: { id: 125209, name: 'ZulipIntegrationTest' } },
    airbrake_error_url: 'https://zulip.airbrake.io/projects/125209/groups/1705190192091077626',
  };
  const m = await expectPosted(
    await hook('airbrake', payload),
    'ZulipIntegrationTest',
    '[ZeroDivisionError](https://zulip.airbrake.io/projects/125209/groups/1705190192091077626): "Error message from logger" occurred.',
  );
  assert.equal(m.client, 'ZulipAirbrakeWebhook');
  assertError(await hook('airbrake', { error: payload.error }), 400, 'BAD_REQUEST', "payload['airbrake_error_url'] is missing");
  assert.equal((await h.listed('airbrake'))?.display_name, 'Airbrake');
});

test('airbyte: syncs succeeded and failed; test notifications', async () => {
  const W = 'https://cloud.airbyte.com/workspaces/84d2dd6e-82aa-406e-91f3-bf8dbf176e69';
  const data = (over: Record<string, unknown>) => ({
    workspace: { name: 'Zulip Airbyte Integration' },
    connection: { name: 'Google Sheets → Postgres', url: `${W}/connections/aa941643` },
    source: { name: 'Google Sheets', url: `${W}/source/363c0ea3` },
    destination: { name: 'Postgres', url: `${W}/destination/b3a05072` },
    success: true,
    durationFormatted: '1 min 23 sec',
    recordsEmitted: 1400,
    recordsCommitted: 1400,
    bytesEmittedFormatted: '281 kB',
    bytesCommittedFormatted: '281 kB',
    ...over,
  });
  const details = (records: string, bytes: string, duration: string) =>
    `* **Source:** [Google Sheets](${W}/source/363c0ea3)\n* **Destination:** [Postgres](${W}/destination/b3a05072)\n* **Records:** ${records}\n* **Bytes:** ${bytes}\n* **Duration:** ${duration}`;
  const topic = 'Zulip Airbyte Integration - Google Sheets → Postgres';
  const m = await expectPosted(
    await hook('airbyte', { data: data({}) }),
    topic,
    `:green_circle: Airbyte sync **succeeded** for [Google Sheets → Postgres](${W}/connections/aa941643).\n\n\n${details('1400 emitted, 1400 committed', '281 kB emitted, 281 kB committed', '1 min 23 sec')}`,
  );
  assert.equal(m.client, 'ZulipAirbyteWebhook');
  const failed = data({ success: false, durationFormatted: '28 sec', recordsEmitted: 0, recordsCommitted: 0, bytesEmittedFormatted: '0 B', bytesCommittedFormatted: '0 B', errorMessage: 'Checking source connection failed' });
  await expectPosted(
    await hook('airbyte', { data: failed }),
    topic,
    `:red_circle: Airbyte sync **failed** for [Google Sheets → Postgres](${W}/connections/aa941643).\n\n\n${details('0 emitted, 0 committed', '0 B emitted, 0 B committed', '28 sec')}\n\n**Error message:** Checking source connection failed`,
  );
  const hello = 'Hello World! This is a test from Airbyte to try slack notification settings for sync successes.';
  await expectPosted(await hook('airbyte', { text: hello }), 'Airbyte notification', hello);
  assertError(await hook('airbyte', { data: data({ success: false }) }), 400, 'BAD_REQUEST', "payload['data']['errorMessage'] is missing");
  assertError(await hook('airbyte', { blocks: [] }), 400, 'BAD_REQUEST', "payload['text'] is missing");
  assert.equal((await h.listed('airbyte'))?.display_name, 'Airbyte');
});
