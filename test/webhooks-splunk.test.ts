/**
 * The Splunk integration: Zulip's own test cases (payloads trimmed to what
 * is read): an alert, the defaults for what Splunk left out, a long search
 * name as the topic.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('splunk');
const LINK = 'http://example.com:8000/app/search/search?q=%7Cloadjob%20rt_scheduler__admin__search__sudo_at_1483557185_2.2%20%7C%20head%201%20%7C%20tail%201&earliest=0&latest=now';
const RAW = 'Jan  4 11:14:32 myserver sudo: pam_unix(sudo:session): session closed for user root';
const ALERT = { results_link: LINK, search_name: 'sudo', result: { host: 'myserver', source: '/var/log/auth.log', _raw: RAW } };
const text = (search: string, link: string, host: string, source: string, raw: string) =>
  `Splunk alert from saved search:\n* **Search**: [${search}](${link})\n* **Host**: ${host}\n* **Source**: \`${source}\`\n* **Raw**: \`${raw}\``;

test('splunk: an alert; what Splunk left out; a long search name', async () => {
  const form = { contentType: 'application/x-www-form-urlencoded' };
  await h.expectPosted(await h.hook('splunk', ALERT, form), 'sudo', text('sudo', LINK, 'myserver', '/var/log/auth.log', RAW));
  const custom = { ...form, query: { topic: 'New Search Alert' } };
  const { results_link: _l, ...noLink } = ALERT;
  await h.expectPosted(await h.hook('splunk', noLink, custom), 'New Search Alert', text('sudo', 'Missing results_link', 'myserver', '/var/log/auth.log', RAW));
  const { search_name: _s, ...noName } = ALERT;
  await h.expectPosted(await h.hook('splunk', noName, custom), 'New Search Alert', text('Missing search_name', LINK, 'myserver', '/var/log/auth.log', RAW));
  await h.expectPosted(await h.hook('splunk', { ...ALERT, result: {} }, custom), 'New Search Alert', text('sudo', LINK, 'Missing host', 'Missing source', 'Missing _raw'));
  const long = "this-search's-got-47-words-37-sentences-58-words-we-wanna-know-details-of-the-search";
  await h.expectPosted(await h.hook('splunk', { ...ALERT, search_name: long }), `${long.slice(0, 57)}...`, text(long, LINK, 'myserver', '/var/log/auth.log', RAW));
  // Exactly 60 characters is cut too, as Zulip's Splunk integration does.
  const sixty = 'x'.repeat(60);
  await h.expectPosted(await h.hook('splunk', { ...ALERT, search_name: sixty }), `${'x'.repeat(57)}...`, text(sixty, LINK, 'myserver', '/var/log/auth.log', RAW));
});

test('splunk: malformed payloads; its entry for the URL generator', async () => {
  const before = (await h.last()).id;
  assertError(await h.hook('splunk', { ...ALERT, result: [] }), 400, 'BAD_REQUEST', "payload['result'] is not a dict");
  assertError(await h.hook('splunk', { ...ALERT, search_name: null }), 400, 'BAD_REQUEST', "payload['search_name'] is not a string");
  assert.equal((await h.last()).id, before);
  assert.deepEqual(await h.listed('splunk'), { name: 'splunk', display_name: 'Splunk', all_event_types: null, config_options: [], url_options: [] });
});
