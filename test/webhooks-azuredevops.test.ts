/**
 * The Azure DevOps integration: Service Hooks' pushes and pull requests with
 * Zulip's topics and texts (its own test cases, payloads trimmed to what is
 * read), the branches filter, merges that did not complete ignored, and
 * Zulip's errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('azure-devops');
const { hook, last, expectPosted } = h;

const REPO_URL = 'https://dev.azure.com/ttchong/test-zulip/_git/test-zulip';
const REPOSITORY = { id: '98f0ce59-a912-43d5-96d2-bc0942a03f7b', name: 'test-zulip', remoteUrl: REPO_URL, defaultBranch: 'refs/heads/main' };
const YURO = { displayName: 'Yuro Itaki', uniqueName: 'yuroitaki@email.com' };

function commit(sha: string, comment: string, author = 'Yuro Itaki') {
  return { commitId: sha, author: { name: author, email: 'someone@email.com', date: '2022-07-17T07:14:01Z' }, comment, url: `https://dev.azure.com/ttchong/_apis/git/repositories/x/commits/${sha}` };
}

function push(branch: string, oldId: string, newId: string, commits?: unknown[]) {
  return {
    eventType: 'git.push',
    publisherId: 'tfs',
    resource: {
      ...(commits ? { commits } : {}),
      refUpdates: [{ name: `refs/heads/${branch}`, oldObjectId: oldId, newObjectId: newId }],
      repository: REPOSITORY,
      pushedBy: YURO,
      pushId: 2,
    },
  };
}

const README = commit('b0ce2f2009c3c87dbefadf61d7eb2c0697a6f369', 'Modify readme');
const README_ROW = `* Modify readme ([b0ce2f2009c](${REPO_URL}/commit/b0ce2f2009c3c87dbefadf61d7eb2c0697a6f369))`;
const PUSHED = `Yuro Itaki [pushed](${REPO_URL}/branchCompare?baseVersion=GC51515957669f93c543df09f8f3e7f47c3613c879&targetVersion=GCb0ce2f2009c3c87dbefadf61d7eb2c0697a6f369&_a=files)`;
const ZERO = '0000000000000000000000000000000000000000';

test('azuredevops push: commits, committers, more than 20, a branch pushed or removed without commits; the branches filter', async () => {
  const one = push('main', '51515957669f93c543df09f8f3e7f47c3613c879', 'b0ce2f2009c3c87dbefadf61d7eb2c0697a6f369', [README]);
  await expectPosted(await hook('azuredevops', one), 'test-zulip / main', `${PUSHED} 1 commit to branch main.\n\n${README_ROW}`);
  await expectPosted(await hook('azuredevops', one, { query: { branches: 'main,dev' } }), 'test-zulip / main', `${PUSHED} 1 commit to branch main.\n\n${README_ROW}`);
  const before = (await last()).id;
  assert.deepEqual(assertSuccess(await hook('azuredevops', one, { query: { branches: 'development' } })), { result: 'success', msg: '' });
  // Whole names, as Zulip's is_branch_name_notifiable matches them: "mainline" does not name "main".
  assertSuccess(await hook('azuredevops', one, { query: { branches: 'mainline,dev' } }));
  assert.equal((await last()).id, before);
  await expectPosted(await hook('azuredevops', one, { query: { branches: 'dev, main' } }), 'test-zulip / main', `${PUSHED} 1 commit to branch main.\n\n${README_ROW}`);

  await expectPosted(
    await hook('azuredevops', push('dev', ZERO, '0929a3404b39f6e39076a640779b2c1c961e19b5', [])),
    'test-zulip / dev',
    `Yuro Itaki [pushed](${REPO_URL}/branchCompare?baseVersion=GC${ZERO}&targetVersion=GC0929a3404b39f6e39076a640779b2c1c961e19b5&_a=files) the branch dev.`,
  );
  await expectPosted(
    await hook('azuredevops', push('dev', '0929a3404b39f6e39076a640779b2c1c961e19b5', ZERO)),
    'test-zulip / dev',
    `Yuro Itaki [pushed](${REPO_URL}/branchCompare?baseVersion=GC0929a3404b39f6e39076a640779b2c1c961e19b5&targetVersion=GC${ZERO}&_a=files) the branch dev.`,
  );

  const reply = commit('0929a3404b39f6e39076a640779b2c1c961e19b5', 'Add reply', 'Itachi Sensei');
  const howAreYou = commit('819ce8de51bedfc250c202edcaee0ce8dc70bf3b', 'Add how are you');
  const replyRow = `* Add reply ([0929a3404b3](${REPO_URL}/commit/0929a3404b39f6e39076a640779b2c1c961e19b5))`;
  const howRow = `* Add how are you ([819ce8de51b](${REPO_URL}/commit/819ce8de51bedfc250c202edcaee0ce8dc70bf3b))`;
  const pushed = `Yuro Itaki [pushed](${REPO_URL}/branchCompare?baseVersion=GCcc21b940719cc372b364d932eb39e528b0ec2a91&targetVersion=GC0929a3404b39f6e39076a640779b2c1c961e19b5&_a=files)`;
  const two = push('main', 'cc21b940719cc372b364d932eb39e528b0ec2a91', '0929a3404b39f6e39076a640779b2c1c961e19b5', [reply, howAreYou]);
  await expectPosted(await hook('azuredevops', two), 'test-zulip / main', `${pushed} 2 commits to branch main. Commits by Itachi Sensei (1) and Yuro Itaki (1).\n\n${replyRow}\n${howRow}`);
  const by = (name: string, c: ReturnType<typeof commit>) => ({ ...c, author: { ...c.author, name } });
  const six = [reply, by('Yuro Itaki', howAreYou), by('Jonas Nielsen', howAreYou), by('Yuro Itaki', howAreYou), by('Someone Else', howAreYou), by('Itachi Sensei', reply)];
  await expectPosted(
    await hook('azuredevops', { ...two, resource: { ...two.resource, commits: six } }),
    'test-zulip / main',
    `${pushed} 6 commits to branch main. Commits by Itachi Sensei (2), Yuro Itaki (2), Jonas Nielsen (1) and others (1).\n\n${replyRow}\n${howRow}\n${howRow}\n${howRow}\n${howRow}\n${replyRow}`,
  );
  const fifty = { ...one, resource: { ...one.resource, commits: Array.from({ length: 50 }, () => README) } };
  await expectPosted(await hook('azuredevops', fifty), 'test-zulip / main', `${PUSHED} 50 commits to branch main.\n\n${Array(20).fill(README_ROW).join('\n')}\n[and 30 more commit(s)]`);
});

function pr(eventType: string, id: number, title: string, extra: Record<string, unknown> = {}, detailed?: string) {
  return {
    eventType,
    ...(detailed !== undefined ? { detailedMessage: { text: detailed, markdown: detailed } } : {}),
    resource: {
      repository: REPOSITORY,
      pullRequestId: id,
      status: 'active',
      createdBy: YURO,
      title,
      sourceRefName: 'refs/heads/dev',
      targetRefName: 'refs/heads/main',
      mergeStatus: 'queued',
      _links: { web: { href: `${REPO_URL}/pullrequest/${id}` } },
      ...extra,
    },
  };
}

test('azuredevops pull requests: created (with and without a description), merged, updated; a merge attempted is ignored', async () => {
  await expectPosted(
    await hook('azuredevops', pr('git.pullrequest.created', 1, 'Add PR request', { description: 'Add PR request' })),
    'test-zulip / PR #1 Add PR request',
    `Yuro Itaki created [PR #1 Add PR request](${REPO_URL}/pullrequest/1) from \`dev\` to \`main\`:\n\n~~~ quote\nAdd PR request\n~~~`,
  );
  await expectPosted(
    await hook('azuredevops', pr('git.pullrequest.created', 2, 'Raised 2nd PR!', { sourceRefName: 'refs/heads/stg' })),
    'test-zulip / PR #2 Raised 2nd PR!',
    `Yuro Itaki created [PR #2 Raised 2nd PR!](${REPO_URL}/pullrequest/2) from \`stg\` to \`main\`.`,
  );
  await expectPosted(
    await hook('azuredevops', pr('git.pullrequest.merged', 1, 'Add PR request', { status: 'completed', mergeStatus: 'succeeded' })),
    'test-zulip / PR #1 Add PR request',
    `Yuro Itaki merged [PR #1 Add PR request](${REPO_URL}/pullrequest/1) from \`dev\` to \`main\`.`,
  );
  const detailed = `Yuro Itaki updated the source branch of [pull request 2](${REPO_URL}/pullrequest/2) (Raised 2nd PR!) in [test-zulip](${REPO_URL}/)\r\nRaised 2nd PR!\r\n`;
  await expectPosted(
    await hook('azuredevops', pr('git.pullrequest.updated', 2, 'Raised 2nd PR!', {}, detailed)),
    'test-zulip / PR #2 Raised 2nd PR!',
    `Yuro Itaki updated [PR #2 Raised 2nd PR!](${REPO_URL}/pullrequest/2)\n\n~~~ quote\n${detailed}\n~~~`,
  );
  const before = (await last()).id;
  assertSuccess(await hook('azuredevops', pr('git.pullrequest.merged', 4, 'Add 4th PR', { mergeStatus: 'conflicts' })));
  assert.equal((await last()).id, before);
});

test('azuredevops: an event it does not handle is Zulip\'s 200 error; malformed payloads are 400s naming the field; its entry for the URL generator', async () => {
  assertError(
    await hook('azuredevops', { eventType: 'build.complete', resource: {} }),
    200,
    'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
    "The 'build.complete' event isn't currently supported by the AzureDevOps webhook; ignoring",
  );
  assertError(await hook('azuredevops', { eventType: 'workitem.created' }), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE');
  assertError(await hook('azuredevops', { resource: {} }), 400, 'BAD_REQUEST', "payload['eventType'] is missing");
  assertError(await hook('azuredevops', pr('git.pullrequest.created', 'x' as any, 'T')), 400, 'BAD_REQUEST', "payload['resource']['pullRequestId'] is not an integer");
  const p = push('main', 'a', 'b', [{ commitId: 'c', author: {}, comment: 'm' }]);
  assertError(await hook('azuredevops', p), 400, 'BAD_REQUEST', "payload['resource']['commits'][0]['author']['name'] is missing");
  // Read in Zulip's order: a commit's author before its ID; without a branches filter, a push's repository before its branch.
  const badCommit = push('main', 'a', 'b', [{ commitId: 5, author: {}, comment: 'm' }]);
  assertError(await hook('azuredevops', badCommit), 400, 'BAD_REQUEST', "payload['resource']['commits'][0]['author']['name'] is missing");
  assertError(await hook('azuredevops', { eventType: 'git.push', resource: {} }), 400, 'BAD_REQUEST', "payload['resource']['repository'] is missing");
  assertError(await hook('azuredevops', { eventType: 'git.push', resource: {} }, { query: { branches: 'main' } }), 400, 'BAD_REQUEST', "payload['resource']['refUpdates'] is missing");

  const reg = assertSuccess(await h.t.client(h.t.owner).post('/register', { fetch_event_types: JSON.stringify(['realm_incoming_webhook_bots']) }));
  assert.deepEqual(
    reg.realm_incoming_webhook_bots.find((b: any) => b.name === 'azuredevops'),
    {
      name: 'azuredevops',
      display_name: 'AzureDevOps',
      all_event_types: ['git.push', 'git.pullrequest.created', 'git.pullrequest.merged', 'git.pullrequest.updated'],
      config_options: [],
      url_options: [{ key: 'branches', label: '', validator: 'check_string' }],
    },
  );
});
