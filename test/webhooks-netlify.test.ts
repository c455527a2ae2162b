/**
 * The Netlify integration: deploys building, ready, failed, locked and
 * unlocked (Zulip's own test cases, payloads trimmed to what is read), and
 * Zulip's errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('netlify');
const { hook, expectPosted } = h;

const DEPLOY = {
  id: '5b2a1c9ca0c9a25ba3d7b1a5',
  site_id: 'bc8c3b57-dd50-4b12-9b5d-3b5e4b3b4c4e',
  name: 'objective-jepsen-35fbb2',
  url: 'http://objective-jepsen-35fbb2.netlify.com',
  branch: 'master',
  state: 'building',
  error_message: null,
  context: 'production',
};
const on = (event: string) => ({ headers: { 'X-Netlify-Event': event } });
const BUILD = 'The build [objective-jepsen-35fbb2](http://objective-jepsen-35fbb2.netlify.com) on branch master';

test('netlify: a deploy building, ready, failed, locked and unlocked', async () => {
  await expectPosted(await hook('netlify', DEPLOY, on('deploy_building')), 'master', `${BUILD} is now building.`);
  await expectPosted(await hook('netlify', { ...DEPLOY, state: 'ready' }, on('deploy_created')), 'master', `${BUILD} is now ready.`);
  const failed = { ...DEPLOY, state: 'error', error_message: "failed during stage 'building site': Build script returned non-zero exit code: 127" };
  await expectPosted(await hook('netlify', failed, on('deploy_failed')), 'master', `${BUILD} failed during stage 'building site': Build script returned non-zero exit code: 127`);
  await expectPosted(await hook('netlify', { ...DEPLOY, state: 'ready' }, on('deploy_locked')), 'master', `${BUILD} is now locked.`);
  await expectPosted(await hook('netlify', { ...DEPLOY, state: 'ready' }, on('deploy_unlocked')), 'master', `${BUILD} is now unlocked.`);
  // only_events picks among the event types.
  const before = (await h.last()).id;
  assertSuccess(await hook('netlify', DEPLOY, { ...on('deploy_building'), query: { only_events: '["deploy_failed"]' } }));
  assert.equal((await h.last()).id, before);
});

test("netlify: an event it does not handle, a missing header, malformed payloads; its entry for the URL generator", async () => {
  assertError(await hook('netlify', DEPLOY, on('deploy_request_pending')), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', "The 'deploy_request_pending' event isn't currently supported by the Netlify webhook; ignoring");
  assertError(await hook('netlify', DEPLOY), 400, 'MISSING_HTTP_EVENT_HEADER', "Missing the HTTP event header 'X-Netlify-Event'");
  assertError(await hook('netlify', DEPLOY, on('deploy_failed')), 400, 'BAD_REQUEST', "payload['error_message'] is not a string");
  const { state: _s, ...noState } = DEPLOY;
  assertError(await hook('netlify', noState, on('deploy_locked')), 400, 'BAD_REQUEST', "payload['state'] is missing");
  const reg = assertSuccess(await h.t.client(h.t.owner).post('/register', { fetch_event_types: JSON.stringify(['realm_incoming_webhook_bots']) }));
  assert.deepEqual(reg.realm_incoming_webhook_bots.find((b: any) => b.name === 'netlify'), {
    name: 'netlify',
    display_name: 'Netlify',
    all_event_types: ['deploy_failed', 'deploy_locked', 'deploy_unlocked', 'deploy_building', 'deploy_created'],
    config_options: [],
    url_options: [],
  });
});
