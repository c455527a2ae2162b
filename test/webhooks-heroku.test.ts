/**
 * The Heroku integration: Zulip's own test cases (the deploy hook's form
 * post) and the missing parameters.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('heroku');
const form = { contentType: 'application/x-www-form-urlencoded' };
const DEPLOY = {
  app: 'sample-project',
  app_uuid: 'f46ffea9-d6be-4293-ae6e-4449fa5ae29a',
  user: 'user@example.com',
  url: 'http://sample-project.herokuapp.com',
  head: '3eb5f44',
  head_long: '3eb5f447a2f6bcf254e63fbf2426b8e6738608eb',
  git_log: '  * Example User: Test commit for Deploy Hook 2',
  release: 'v9',
};
const body = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

test('heroku: a deploy, with one commit and with several', async () => {
  await h.expectPosted(
    await h.hook('heroku', body(DEPLOY), form),
    'sample-project',
    'user@example.com deployed version 3eb5f44 of [sample-project](http://sample-project.herokuapp.com):\n\n``` quote\n  * Example User: Test commit for Deploy Hook 2\n```',
  );
  await h.expectPosted(
    await h.hook('heroku', body({ ...DEPLOY, git_log: '  * Example User: Test commit for Deploy Hook\n  * Example User: Second test commit for Deploy Hook 2' }), form),
    'sample-project',
    'user@example.com deployed version 3eb5f44 of [sample-project](http://sample-project.herokuapp.com):\n\n``` quote\n  * Example User: Test commit for Deploy Hook\n  * Example User: Second test commit for Deploy Hook 2\n```',
  );
});

test('heroku: a missing parameter; its entry for the URL generator', async () => {
  const before = (await h.last()).id;
  for (const missing of ['head', 'app', 'user', 'url', 'git_log']) {
    const fields: Record<string, string> = { ...DEPLOY };
    delete fields[missing];
    assertError(await h.hook('heroku', body(fields), form), 400, 'REQUEST_VARIABLE_MISSING', `Missing '${missing}' argument`);
  }
  assert.equal((await h.last()).id, before);
  assert.deepEqual(await h.listed('heroku'), { name: 'heroku', display_name: 'Heroku', all_event_types: null, config_options: [], url_options: [] });
});
