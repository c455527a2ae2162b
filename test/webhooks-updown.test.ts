/**
 * The Updown integration: Zulip's own test cases (payloads trimmed to what is
 * read), several events in one request, an unknown event and malformed
 * payloads, alone or after events whose messages are sent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('updown');
const { hook, expectPosted } = h;

const event = (name: string, downtime: Record<string, unknown>) => ({ event: name, check: { url: 'https://updown.io' }, downtime });
/** The texts of the channel's messages after message `id`. */
const textsAfter = async (id: number): Promise<string[]> => (await h.since(id)).map((m) => m.content as string);
const DOWN = event('check.down', { error: '500', started_at: '2016-02-07T13:11:43Z', ended_at: null, duration: null });

test('updown: a check down, up again after a while, up for the first time; several events in one request', async () => {
  await expectPosted(await hook('updown', [DOWN]), 'https://updown.io', 'Service is `down`. It returned a 500 error at <time:2016-02-07T13:11:43+00:00>.');
  await expectPosted(
    await hook('updown', [event('check.up', { error: '500', started_at: '2016-02-07T13:11:43Z', ended_at: '2016-02-07T13:16:07Z', duration: 265 })]),
    'https://updown.io',
    'Service is `up` again after 4 minutes 25 seconds.',
  );
  await expectPosted(await hook('updown', [event('check.up', { error: null, started_at: null, ended_at: null, duration: null })]), 'https://updown.io', 'Service is `up`.');
  await expectPosted(
    await hook('updown', [event('check.up', { error: null, started_at: '2016-02-07T13:11:43Z', ended_at: null, duration: 90061 })]),
    'https://updown.io',
    'Service is `up` again after 1 day 1 hour 1 minute 1 second.',
  );
  const before = (await h.last()).id;
  assertSuccess(await hook('updown', [DOWN, event('check.up', { error: '500', started_at: '2016-02-07T13:11:43Z', ended_at: '2016-02-07T13:11:44Z', duration: 1 })]));
  assert.deepEqual(await textsAfter(before), ['Service is `down`. It returned a 500 error at <time:2016-02-07T13:11:43+00:00>.', 'Service is `up` again after 1 second.']);
  // The event type is the state.
  const last = (await h.last()).id;
  assertSuccess(await hook('updown', [DOWN], { query: { only_events: '["up"]' } }));
  assert.equal((await h.last()).id, last);
});

test('updown: an unknown event; malformed payloads; its entry for the URL generator', async () => {
  const before = (await h.last()).id;
  assertError(await hook('updown', [event('unknown', {})]), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', "The 'unknown' event isn't currently supported by the Updown webhook; ignoring");
  assertError(await hook('updown', [event('check.sideways', {})]), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', "The 'check.sideways' event isn't currently supported by the Updown webhook; ignoring");
  assertError(await hook('updown', DOWN), 400, 'BAD_REQUEST', 'payload is not a list');
  assertError(await hook('updown', [event('check.down', { error: '500', started_at: 'yesterday' })]), 400, 'BAD_REQUEST', "payload[0]['downtime']['started_at'] is not a valid ISO datetime");
  assertError(await hook('updown', [event('check.up', { started_at: 'x', duration: '1' })]), 400, 'BAD_REQUEST', "payload[0]['downtime']['duration'] is not an integer");
  assert.equal((await h.last()).id, before);
  assert.deepEqual(await h.listed('updown'), { name: 'updown', display_name: 'Updown', all_event_types: ['up', 'down'], config_options: [], url_options: [] });
});

test('updown: an event that cannot be read after others: their messages are sent, then the request is refused', async () => {
  const UP = event('check.up', { error: '500', started_at: '2016-02-07T13:11:43Z', ended_at: '2016-02-07T13:11:44Z', duration: 1 });
  let last = (await h.last()).id;
  assertError(await hook('updown', [DOWN, event('unknown', {})]), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', "The 'unknown' event isn't currently supported by the Updown webhook; ignoring");
  assert.deepEqual(await textsAfter(last), ['Service is `down`. It returned a 500 error at <time:2016-02-07T13:11:43+00:00>.']);
  last = (await h.last()).id;
  assertError(await hook('updown', [DOWN, UP, { event: 'check.down', check: {} }]), 400, 'BAD_REQUEST', "payload[2]['check']['url'] is missing");
  assert.deepEqual(await textsAfter(last), ['Service is `down`. It returned a 500 error at <time:2016-02-07T13:11:43+00:00>.', 'Service is `up` again after 1 second.']);
  // The event-type filter applies to the messages before the error too.
  last = (await h.last()).id;
  assertError(await hook('updown', [DOWN, UP, event('check.sideways', {})], { query: { only_events: '["up"]' } }), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', "The 'check.sideways' event isn't currently supported by the Updown webhook; ignoring");
  assert.deepEqual(await textsAfter(last), ['Service is `up` again after 1 second.']);
});
