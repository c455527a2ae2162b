/**
 * The Home Assistant integration: Zulip's own test cases (the notify
 * service's JSON, sent with a form Content-Type), and malformed payloads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('homeassistant');
const { hook, expectPosted } = h;
const form = { contentType: 'application/x-www-form-urlencoded' };

test('homeassistant: a message, in the topic Home Assistant names or "homeassistant"', async () => {
  await expectPosted(await hook('homeassistant', { message: 'The sun will be shining today!' }, form), 'homeassistant', 'The sun will be shining today!');
  await expectPosted(
    await hook('homeassistant', { topic: 'Weather forecast', message: 'It will be 30 degrees Celsius out there today!' }, form),
    'Weather forecast',
    'It will be 30 degrees Celsius out there today!',
  );
  await expectPosted(await hook('homeassistant', { message: 'As JSON too.' }), 'homeassistant', 'As JSON too.');
});

test('homeassistant: malformed payloads; its entry for the URL generator', async () => {
  const before = (await h.last()).id;
  assertError(await hook('homeassistant', { title: 'x' }), 400, 'BAD_REQUEST', "payload['message'] is missing");
  assertError(await hook('homeassistant', { message: 'x', topic: null }), 400, 'BAD_REQUEST', "payload['topic'] is not a string");
  assertError(await hook('homeassistant', 'message=x', form), 400, 'BAD_REQUEST', 'Malformed JSON');
  assert.equal((await h.last()).id, before);
  assert.deepEqual(await h.listed('homeassistant'), { name: 'homeassistant', display_name: 'Home Assistant', all_event_types: null, config_options: [], url_options: [] });
});
