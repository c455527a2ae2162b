/**
 * The Pingdom integration: Zulip's own test cases (payloads trimmed to what
 * is read), the check type as event type, unsupported check types and
 * malformed payloads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('pingdom');
const { hook, expectPosted } = h;
const check = (type: string, name: string, host: string, previous: string, current: string, long: string) => ({
  check_name: name,
  check_type: type,
  check_params: { hostname: host },
  previous_state: previous,
  current_state: current,
  long_description: long,
});

test('pingdom: checks going down (with the reason) and back up', async () => {
  await expectPosted(
    await hook('pingdom', check('HTTP', 'Test check', 'someurl.com', 'UP', 'DOWN', 'Non-recoverable failure in name resolution')),
    'Test check status.',
    'Service someurl.com changed its HTTP status from UP to DOWN:\n\n``` quote\nNon-recoverable failure in name resolution\n```',
  );
  await expectPosted(
    await hook('pingdom', check('SMTP', 'SMTP check', 'smtp.someurl.com', 'UP', 'DOWN', 'Connection refused')),
    'SMTP check status.',
    'Service smtp.someurl.com changed its SMTP status from UP to DOWN:\n\n``` quote\nConnection refused\n```',
  );
  await expectPosted(
    await hook('pingdom', check('IMAP', 'IMAP check', 'imap.someurl.com', 'UP', 'DOWN', 'Invalid hostname, address or socket')),
    'IMAP check status.',
    'Service imap.someurl.com changed its IMAP status from UP to DOWN:\n\n``` quote\nInvalid hostname, address or socket\n```',
  );
  await expectPosted(await hook('pingdom', check('IMAP', 'IMAP check', 'imap.someurl.com', 'DOWN', 'UP', 'OK')), 'IMAP check status.', 'Service imap.someurl.com changed its IMAP status from DOWN to UP.');
  // Only a change from UP to DOWN quotes the reason, which is not read otherwise.
  const { long_description: _l, ...noReason } = check('PING', 'Ping', 'example.com', 'UNCONFIRMED_DOWN', 'DOWN', '');
  await expectPosted(await hook('pingdom', noReason), 'Ping status.', 'Service example.com changed its PING status from UNCONFIRMED_DOWN to DOWN.');
});

test('pingdom: event types filter; unsupported check types; malformed payloads; its entry for the URL generator', async () => {
  const before = (await h.last()).id;
  assertSuccess(await hook('pingdom', check('IMAP', 'IMAP check', 'imap.someurl.com', 'DOWN', 'UP', 'OK'), { query: { exclude_events: '["IMAP"]' } }));
  assertSuccess(await hook('pingdom', check('HTTP', 'Test check', 'someurl.com', 'DOWN', 'UP', 'OK'), { query: { only_events: '["HTTPS"]' } }));
  assertError(await hook('pingdom', check('TRANSACTION', 'T', 'h', 'UP', 'DOWN', 'x')), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', "The 'TRANSACTION' event isn't currently supported by the Pingdom webhook; ignoring");
  assertError(await hook('pingdom', { check_type: 'HTTP', check_name: 'n' }), 400, 'BAD_REQUEST', "payload['current_state'] is missing");
  assertError(await hook('pingdom', { check_name: 'n' }), 400, 'BAD_REQUEST', "payload['check_type'] is missing");
  assertError(await hook('pingdom', { ...check('DNS', 'n', 'h', 'UP', 'DOWN', 'x'), check_params: { hostname: 7 } }), 400, 'BAD_REQUEST', "payload['check_params']['hostname'] is not a string");
  assertError(await hook('pingdom', { ...check('DNS', 'n', 'h', 'UP', 'DOWN', 'x'), long_description: null }), 400, 'BAD_REQUEST', "payload['long_description'] is not a string");
  assert.equal((await h.last()).id, before);
  assert.deepEqual(await h.listed('pingdom'), {
    name: 'pingdom',
    display_name: 'Pingdom',
    all_event_types: ['HTTP', 'HTTP_CUSTOM', 'HTTPS', 'SMTP', 'POP3', 'IMAP', 'PING', 'DNS', 'UDP', 'PORT_TCP'],
    config_options: [],
    url_options: [],
  });
});
