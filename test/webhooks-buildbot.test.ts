/**
 * The Buildbot integration: Zulip's own test cases (builds started and
 * finished with each kind of result, a project left empty), and what is
 * refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('buildbot');
const { hook, expectPosted } = h;

const build = (over: Record<string, unknown>) => ({ buildid: 33, buildername: 'runtests', url: 'http://exampleurl.com/#builders/1/builds/33', project: 'buildbot-hello', timestamp: 1553910544, ...over });

test('buildbot: builds started and finished (success, failure, cancelled), a project left empty', async () => {
  const m = await expectPosted(await hook('buildbot', build({ event: 'new' })), 'buildbot-hello', 'Build [#33](http://exampleurl.com/#builders/1/builds/33) for **runtests** started.');
  assert.equal(m.client, 'ZulipBuildbotWebhook');
  await expectPosted(
    await hook('buildbot', build({ event: 'finished', results: 0 })),
    'buildbot-hello',
    'Build [#33](http://exampleurl.com/#builders/1/builds/33) (result: success) for **runtests** finished.',
  );
  await expectPosted(
    await hook('buildbot', build({ event: 'finished', results: 2, buildid: 34, url: 'http://exampleurl.com/#builders/1/builds/34', project: '' })),
    'general',
    'Build [#34](http://exampleurl.com/#builders/1/builds/34) (result: failure) for **runtests** finished.',
  );
  await expectPosted(
    await hook('buildbot', { timestamp: 1558960446, buildid: 10434, project: 'zulip/zulip-zapier', results: 6, url: 'https://ci.example.org/#builders/79/builds/307', event: 'finished', buildername: 'AMD64 Ubuntu 18.04 Python 3' }),
    'zulip/zulip-zapier',
    'Build [#10434](https://ci.example.org/#builders/79/builds/307) (result: cancelled) for **AMD64 Ubuntu 18.04 Python 3** finished.',
  );
});

test('buildbot: other events, unknown result codes and malformed payloads are refused; the URL generator\'s entry', async () => {
  const res = await hook('buildbot', build({ event: 'stepStarted' }));
  assert.equal(res.status, 200);
  assert.equal(res.body.code, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE');
  assert.equal(res.body.msg, "The 'stepStarted' event isn't currently supported by the Buildbot webhook; ignoring");
  assertError(await hook('buildbot', build({ event: 'finished', results: 7 })), 400, 'BAD_REQUEST', "payload['results'] is not a Buildbot result: 7");
  assertError(await hook('buildbot', build({ event: 'finished' })), 400, 'BAD_REQUEST', "payload['results'] is missing");
  assertError(await hook('buildbot', build({ event: 'new', project: null })), 400, 'BAD_REQUEST', "payload['project'] is not a string");
  assert.deepEqual(await h.listed('buildbot'), { name: 'buildbot', display_name: 'Buildbot', all_event_types: ['new', 'finished'], config_options: [], url_options: [] });
});
