/**
 * The Zabbix integration: Zulip's own test case, and a payload missing what
 * the message needs ("Invalid payload", the bot's owner told).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('zabbix');
const ALERT = {
  hostname: 'www.example.com',
  severity: 'Average',
  status: 'PROBLEM',
  item: 'Agent ping is Up (1)',
  trigger: 'Zabbix agent on www.example.com is unreachable for 5 minutes',
  link: 'https://zabbix.example.com/tr_events.php?triggerid=14032&eventid=10528',
};

test('zabbix: an alert', async () => {
  await h.expectPosted(
    await h.hook('zabbix', ALERT),
    'www.example.com',
    'PROBLEM (Average) alert on [www.example.com](https://zabbix.example.com/tr_events.php?triggerid=14032&eventid=10528):\n* Zabbix agent on www.example.com is unreachable for 5 minutes\n* Agent ping is Up (1)',
  );
});

test("zabbix: a payload missing what the message needs is \"Invalid payload\", and the bot's owner is told; its entry for the URL generator", async () => {
  const before = (await h.last()).id;
  const { hostname: _h, ...incomplete } = ALERT;
  assertError(await h.hook('zabbix', incomplete), 400, 'BAD_REQUEST', 'Invalid payload');
  const owner = h.t.client(h.t.owner);
  const dms = assertSuccess(await owner.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }], apply_markdown: false })).messages;
  assert.equal(
    dms[0].content,
    `Hi there! Your bot Hook Bot just received a Zabbix payload that is missing\nsome data that Zulip requires. This usually indicates a configuration issue\nin your Zabbix webhook settings. Please make sure that you set the\nscript correctly and provide all the required parameters\nwhen configuring the Zabbix webhook. Contact support@${new URL(h.t.url).hostname} if you\nneed further help!`,
  );
  // Refused the same way, whatever is wrong with what the message needs; the owner is told once a day at most.
  assertError(await h.hook('zabbix', { ...ALERT, item: 3 }), 400, 'BAD_REQUEST', 'Invalid payload');
  assertError(await h.hook('zabbix', [ALERT]), 400, 'BAD_REQUEST', 'Invalid payload');
  assertError(await h.hook('zabbix', '{"hostname": '), 400, 'BAD_REQUEST', 'Malformed JSON');
  const after = assertSuccess(await owner.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }], apply_markdown: false })).messages;
  assert.equal(after[0].id, dms[0].id);
  assert.equal((await h.last()).id, before);
  assert.deepEqual(await h.listed('zabbix'), { name: 'zabbix', display_name: 'Zabbix', all_event_types: null, config_options: [], url_options: [] });
});
