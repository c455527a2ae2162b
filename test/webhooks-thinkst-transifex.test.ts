/**
 * The Thinkst Canary and Transifex integrations: Zulip's own test cases
 * (Canary incidents and Canarytokens with their details; resources fully
 * translated or reviewed), and what is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('alerts');
const { hook, expectPosted } = h;

const FORM = { contentType: 'application/x-www-form-urlencoded' };
const canary = (over: Record<string, unknown>) => ({
  AlertType: 'CanaryIncident',
  CanaryName: 'foo-bar',
  CanaryIP: '1.1.1.1',
  CanaryLocation: 'dining room',
  SourceIP: '1.1.1.1',
  ReverseDNS: 'attacker.local',
  ...over,
});

test('thinkst: Canary incidents (details, passwords in backticks, an empty reverse DNS left out) and Canarytokens', async () => {
  const dummy = {
    ReverseDNS: 'attacker-ip.local',
    CanaryName: '0000000testnode',
    Description: 'Dummy Incident',
    Timestamp: '2020-06-09 13:59:38 (UTC)',
    CanaryIP: '1.1.1.1',
    AlertType: 'CanaryIncident',
    Intro: 'This is a dummy incident.',
    IncidentHash: 'aa875f255f94e3ffe40dc85cf1a8b1e0',
    CanaryPort: 8080,
    SourceIP: '2.2.2.2',
    AdditionalDetails: [
      ['Field1', 'VALUE1'],
      ['Field2', 'VALUE2'],
      ['Field3', 'VALUE3'],
    ],
  };
  const dummyText =
    '**:alert: Canary *0000000testnode* has been triggered!**\n\nThis is a dummy incident.\n\n**Incident ID:** `aa875f255f94e3ffe40dc85cf1a8b1e0`\n**Kind:** Dummy Incident\n' +
    '**Timestamp:** <time:2020-06-09T13:59:38+00:00>\n**Canary IP:** `1.1.1.1`\n**Source IP:** `2.2.2.2`\n**Reverse DNS:** `attacker-ip.local`\n**Field1:** VALUE1\n**Field2:** VALUE2\n**Field3:** VALUE3';
  const m = await expectPosted(await hook('thinkst', dummy, FORM), 'canary alert - 0000000testnode', dummyText);
  assert.equal(m.client, 'ZulipThinkstWebhook');
  await expectPosted(await hook('thinkst', dummy, { query: { topic: 'foo' } }), 'foo', dummyText);
  await expectPosted(
    await hook(
      'thinkst',
      canary({
        ReverseDNS: '',
        Description: 'HTTP Login Attempt',
        Timestamp: '2020-07-20 14:55:45 (UTC)',
        Intro: 'HTTP Login Attempt has been detected against one of your Canaries (foo-bar) at 1.1.1.1.',
        IncidentHash: '1ef86f5cf4090a5252c6f453c5cd46bd',
        AdditionalDetails: [
          ['Username', 'regular'],
          ['Password', '*******'],
          ['Background Context', 'You have had 14 incidents from 1.1.1.1 previously.'],
        ],
      }),
    ),
    'canary alert - foo-bar',
    '**:alert: Canary *foo-bar* has been triggered!**\n\nHTTP Login Attempt has been detected against one of your Canaries (foo-bar) at 1.1.1.1.\n\n' +
      '**Incident ID:** `1ef86f5cf4090a5252c6f453c5cd46bd`\n**Kind:** HTTP Login Attempt\n**Timestamp:** <time:2020-07-20T14:55:45+00:00>\n**Canary IP:** `1.1.1.1`\n' +
      '**Canary location:** dining room\n**Source IP:** `1.1.1.1`\n**Username:** regular\n**Password:** `*******`\n**Background Context:** You have had 14 incidents from 1.1.1.1 previously.',
  );
  const token = {
    Token: 'dbwx4d68flwh2u5zku56nogu6',
    Intro: 'A MS Word .docx Document Canarytoken has been triggered over doc-msword by the source IP 1.1.1.1.',
    Description: 'MS Word .docx Document',
    Triggered: 5,
    AdditionalDetails: [
      ['Accept', '*/*'],
      ['Dst Port', 80],
    ],
    Timestamp: '2020-07-20 14:40:15 (UTC)',
    Reminder: 'test document',
    IncidentHash: 'db6f9b5528c6c6c385cb3bb63f5949c8',
    AlertType: 'CanarytokenIncident',
  };
  const tokenText = (times: string) =>
    '**:alert: Canarytoken *test document* has been triggered!**\n\nA MS Word .docx Document Canarytoken has been triggered over doc-msword by the source IP 1.1.1.1.\n\n' +
    `**Incident ID:** \`db6f9b5528c6c6c385cb3bb63f5949c8\`\n**Token:** \`dbwx4d68flwh2u5zku56nogu6\`\n**Kind:** MS Word .docx Document\n**Timestamp:** <time:2020-07-20T14:40:15+00:00>\n**Triggered:** ${times}\n` +
    '**Accept:** `*/*`\n**Dst Port:** 80';
  await expectPosted(await hook('thinkst', token, FORM), 'canarytoken alert - test document', tokenText('5 times'));
  await expectPosted(await hook('thinkst', { ...token, Triggered: 1 }), 'canarytoken alert - test document', tokenText('1 time'));
});

test('thinkst: malformed payloads are refused naming Zulip\'s `message`', async () => {
  assertError(await hook('thinkst', { CanaryName: 'x', Intro: 'y' }), 400, 'BAD_REQUEST', "message['AlertType'] is missing");
  assertError(await hook('thinkst', canary({ Intro: 'y', Timestamp: 'yesterday' })), 400, 'BAD_REQUEST', "message['Timestamp'] is not a valid ISO datetime");
  assertError(await hook('thinkst', canary({ Intro: 'y', AdditionalDetails: [['k', true]] })), 400, 'BAD_REQUEST', "message['AdditionalDetails'][0][1] is not a string");
  assert.equal((await h.listed('thinkst'))?.display_name, 'Thinkst');
});

test('transifex: resources fully translated or reviewed; other events, missing parameters', async () => {
  const params = (over: Record<string, string>) => ({ query: { project: 'project-title', language: 'en', resource: 'file', ...over } });
  const m = await expectPosted(await hook('transifex', {}, params({ event: 'review_completed', reviewed: '100' })), 'project-title in en', 'Resource file fully reviewed.');
  assert.equal(m.client, 'ZulipTransifexWebhook');
  await expectPosted(await hook('transifex', {}, params({ event: 'translation_completed', translated: '100' })), 'project-title in en', 'Resource file fully translated.');
  const res = await hook('transifex', {}, params({ event: 'resource_deleted' }));
  assert.equal(res.status, 200);
  assert.equal(res.body.msg, "The 'resource_deleted' event isn't currently supported by the Transifex webhook; ignoring");
  assertError(await hook('transifex', {}, { query: { project: 'p', language: 'en', event: 'review_completed' } }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'resource' argument");
  assertError(await hook('transifex', {}, params({ event: 'review_completed', reviewed: 'all' })), 400, 'BAD_REQUEST', 'Argument "reviewed" is not valid JSON.');
  // only_events picks among the event types.
  const before = await h.last();
  assert.equal((await hook('transifex', {}, { query: { project: 'p', language: 'en', resource: 'r', event: 'review_completed', only_events: '["translated"]' } })).body.result, 'success');
  assert.equal((await h.last()).id, before.id);
  assert.deepEqual((await h.listed('transifex'))?.all_event_types, ['translated', 'review']);
});
