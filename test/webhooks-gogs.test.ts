/**
 * The Gogs and Gitea integrations: Zulip's own test cases (payloads trimmed
 * to what is read) beside those of incoming-webhooks.test.ts: Gitea's
 * pushes and pull requests opened, merged, edited and reopened, Gogs's
 * pull requests reopened and synchronized and issues closed, edited and
 * reopened; a payload read in Zulip's order (its text before its topic).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('commits');
const { hook, expectPosted, last } = h;

const gogsEvent = (event: string) => ({ headers: { 'X-Gogs-Event': event } });
const giteaEvent = (event: string) => ({ headers: { 'X-Gitea-Event': event } });
const KOSTEK = { login: 'kostekIV', username: 'kostekIV' };
const GITEA_TEST = { name: 'test', html_url: 'https://try.gitea.io/kostekIV/test' };
const GOGS_TEST = { name: 'test', html_url: 'https://try.gogs.io/kostekIV/test' };

const SHAS = ['2ec0c971d04723523aa20f2b378f8b419b47d4ec', '6cb1701c8b0114ad716f4cd49153076e7109cb85', '6773eabc0778a3e38997c06a13f5f0c48b67e5dc', '337402cf675ce7082ddcd23d06a116c85241825a', '0a38cad3fac3a13bb78b738d13f15ce9cc3343fa'];
const giteaPush = {
  ref: 'refs/heads/d',
  compare_url: 'https://try.gitea.io/kostekIV/test/compare/21138d2ca0ce18f8e037696fdbe1b3f0c211f630...2ec0c971d04723523aa20f2b378f8b419b47d4ec',
  commits: SHAS.map((id) => ({ id, message: 'commit\n', url: `https://try.gitea.io/kostekIV/test/commit/${id}`, author: { name: 'kostekIV', email: 'x@example.com', username: 'kostekIV' } })),
  repository: GITEA_TEST,
  sender: KOSTEK,
};

test('gitea: a push of five commits; one to a branch outside the filter is ignored', async () => {
  await expectPosted(
    await hook('gitea', giteaPush, giteaEvent('push')),
    'test / d',
    `kostekIV [pushed](${giteaPush.compare_url}) 5 commits to branch d.\n\n` + SHAS.map((sha) => `* commit ([${sha.slice(0, 11)}](https://try.gitea.io/kostekIV/test/commit/${sha}))`).join('\n'),
  );
  const before = (await last()).id;
  assertSuccess(await hook('gitea', giteaPush, { ...giteaEvent('push'), query: { branches: 'changes,development' } }));
  assert.equal((await last()).id, before);
});

test('gitea: pull requests opened, merged, edited and reopened', async () => {
  const pr = (over: Record<string, unknown>) => ({
    id: 1905,
    number: 4,
    title: 'New pr',
    html_url: 'https://try.gitea.io/kostekIV/test/pulls/4',
    head: { ref: 'test-branch' },
    base: { ref: 'master' },
    merged: false,
    merged_by: null,
    assignee: null,
    ...over,
  });
  await expectPosted(
    await hook('gitea', { action: 'opened', pull_request: pr({}), repository: GITEA_TEST, sender: KOSTEK }, giteaEvent('pull_request')),
    'test / PR #1905 New pr',
    'kostekIV opened [PR #4](https://try.gitea.io/kostekIV/test/pulls/4) from `test-branch` to `master`.',
  );
  await expectPosted(
    await hook(
      'gitea',
      {
        action: 'closed',
        pull_request: pr({ number: 1905, title: 'Fix remove-op on reaction event', head: { ref: 'reaction-metadata' }, base: { ref: 'main' }, merged: true, merged_by: KOSTEK }),
        repository: { name: 'zulip-terminal', html_url: 'https://try.gitea.io/kostekIV/zulip-terminal' },
        sender: KOSTEK,
      },
      giteaEvent('pull_request'),
    ),
    'zulip-terminal / PR #1905 Fix remove-op on reaction event',
    'kostekIV merged [PR #1905](https://try.gitea.io/kostekIV/test/pulls/4) from `reaction-metadata` to `main`.',
  );
  const five = pr({ id: 1906, number: 5, title: 'test 2', html_url: 'https://try.gitea.io/kostekIV/test/pulls/5', head: { ref: 'd' } });
  await expectPosted(await hook('gitea', { action: 'edited', pull_request: five, repository: GITEA_TEST, sender: KOSTEK }, giteaEvent('pull_request')), 'test / PR #1906 test 2', 'kostekIV edited [PR #5](https://try.gitea.io/kostekIV/test/pulls/5).');
  await expectPosted(
    await hook('gitea', { action: 'reopened', pull_request: five, repository: GITEA_TEST, sender: KOSTEK }, giteaEvent('pull_request')),
    'test / PR #1906 test 2',
    'kostekIV reopened [PR #5](https://try.gitea.io/kostekIV/test/pulls/5) from `d` to `master`.',
  );
});

test('gitea: issues opened, edited, assigned and reopened (the assignee named); a comment edited', async () => {
  const issue = { number: 3, title: 'Test issue', body: 'Test body', assignee: null };
  await expectPosted(
    await hook('gitea', { action: 'opened', issue, repository: GITEA_TEST, sender: KOSTEK }, giteaEvent('issues')),
    'test / issue #3 Test issue',
    'kostekIV opened [issue #3](https://try.gitea.io/kostekIV/test/issues/3):\n\n~~~ quote\nTest body\n~~~',
  );
  const assigned = { ...issue, title: 'Test issue 2', assignee: KOSTEK };
  for (const action of ['edited', 'reopened']) {
    await expectPosted(
      await hook('gitea', { action, issue: assigned, repository: GITEA_TEST, sender: KOSTEK }, giteaEvent('issues')),
      'test / issue #3 Test issue 2',
      `kostekIV ${action} [issue #3](https://try.gitea.io/kostekIV/test/issues/3) (assigned to kostekIV):\n\n~~~ quote\nTest body\n~~~`,
    );
  }
  await expectPosted(
    await hook('gitea', { action: 'assigned', issue: { ...issue, assignee: KOSTEK }, repository: GITEA_TEST, sender: KOSTEK }, giteaEvent('issues')),
    'test / issue #3 Test issue',
    'kostekIV assigned kostekIV to [issue #3](https://try.gitea.io/kostekIV/test/issues/3) (assigned to kostekIV):\n\n~~~ quote\nTest body\n~~~',
  );
  await expectPosted(
    await hook(
      'gitea',
      { action: 'edited', issue: assigned, comment: { html_url: 'https://try.gitea.io/kostekIV/test/issues/3#issuecomment-24400', body: 'edit test comment' }, repository: GITEA_TEST, sender: KOSTEK },
      giteaEvent('issue_comment'),
    ),
    'test / issue #3 Test issue 2',
    'kostekIV edited a [comment](https://try.gitea.io/kostekIV/test/issues/3#issuecomment-24400) on [issue #3](https://try.gitea.io/kostekIV/test/issues/3):\n\n~~~ quote\nedit test comment\n~~~',
  );
});

test('gitea and gogs: an assignee removed is named as Zulip names a missing one ("None")', async () => {
  await expectPosted(
    await hook('gitea', { action: 'unassigned', issue: { number: 3, title: 'Test issue', body: 'Test body', assignee: null }, repository: GITEA_TEST, sender: KOSTEK }, giteaEvent('issues')),
    'test / issue #3 Test issue',
    'kostekIV unassigned None from [issue #3](https://try.gitea.io/kostekIV/test/issues/3):\n\n~~~ quote\nTest body\n~~~',
  );
  const pr = { id: 1349, number: 2, title: 'Test', user: KOSTEK, html_url: 'https://try.gogs.io/kostekIV/test/pulls/2', head_branch: 'c', base_branch: 'master', merged: false, merged_by: null, assignee: null };
  await expectPosted(
    await hook('gogs', { action: 'unassigned', pull_request: pr, repository: GOGS_TEST, sender: KOSTEK }, gogsEvent('pull_request')),
    'test / PR #1349 Test',
    'kostekIV unassigned None from [PR #2](https://try.gogs.io/kostekIV/test/pulls/2) from `c` to `master`.',
  );
});

test('gogs: pull requests reopened and synchronized; issues reopened, edited and closed', async () => {
  const pr = { id: 1349, number: 2, title: 'reopened', user: KOSTEK, html_url: 'https://try.gogs.io/kostekIV/test/pulls/2', head_branch: 'c', base_branch: 'master', merged: false, merged_by: null, assignee: null };
  await expectPosted(
    await hook('gogs', { action: 'reopened', pull_request: pr, repository: GOGS_TEST, sender: KOSTEK }, gogsEvent('pull_request')),
    'test / PR #1349 reopened',
    'kostekIV reopened [PR #2](https://try.gogs.io/kostekIV/test/pulls/2) from `c` to `master`.',
  );
  await expectPosted(
    await hook('gogs', { action: 'synchronized', pull_request: { ...pr, title: 'Test', assignee: KOSTEK }, repository: GOGS_TEST, sender: KOSTEK }, gogsEvent('pull_request')),
    'test / PR #1349 Test',
    'kostekIV synchronized [PR #2](https://try.gogs.io/kostekIV/test/pulls/2) from `c` to `master`.',
  );
  const issue = { number: 3, title: 'New test issue', body: 'Test', assignee: null };
  for (const [action, body] of [['reopened', 'Test'], ['edited', 'Test edit'], ['closed', 'Closed #3']]) {
    await expectPosted(
      await hook('gogs', { action, issue: { ...issue, body }, repository: GOGS_TEST, sender: KOSTEK }, gogsEvent('issues')),
      'test / issue #3 New test issue',
      `kostekIV ${action} [issue #3](https://try.gogs.io/kostekIV/test/issues/3):\n\n~~~ quote\n${body}\n~~~`,
    );
  }
});

test("gogs: a payload is read in Zulip's order (its text before its topic); a commit's author needs a user name, even an empty one", async () => {
  const pr = { number: 2, user: KOSTEK, html_url: 'https://try.gogs.io/kostekIV/test/pulls/2', head_branch: 'c', base_branch: 'master', merged: false, assignee: null };
  // The topic's id and title are read after the text.
  assertError(await hook('gogs', { action: 'opened', pull_request: { ...pr, number: 'x' }, repository: GOGS_TEST }, gogsEvent('pull_request')), 400, 'BAD_REQUEST', "payload['pull_request']['number'] is not an integer");
  assertError(await hook('gogs', { action: 'opened', pull_request: pr, repository: GOGS_TEST }, gogsEvent('pull_request')), 400, 'BAD_REQUEST', "payload['pull_request']['id'] is missing");
  assertError(await hook('gogs', { action: 'opened', issue: { number: 3 }, repository: GOGS_TEST, sender: KOSTEK }, gogsEvent('issues')), 400, 'BAD_REQUEST', "payload['issue']['assignee'] is missing");
  assertError(await hook('gogs', { action: 'created', issue: { number: 3 }, repository: GOGS_TEST, sender: KOSTEK }, gogsEvent('issue_comment')), 400, 'BAD_REQUEST', "payload['comment'] is missing");
  assertError(await hook('gogs', { action: 'published', release: { tag_name: 5 }, repository: GOGS_TEST }, gogsEvent('release')), 400, 'BAD_REQUEST', "payload['release']['author'] is missing");
  assertError(await hook('gogs', { ref: 'b', repository: { name: 'test' } }, gogsEvent('create')), 400, 'BAD_REQUEST', "payload['repository']['html_url'] is missing");
  const push = { ref: 'refs/heads/master', compare_url: 'http://x/compare', repository: GOGS_TEST, sender: KOSTEK };
  assertError(await hook('gogs', { ...push, sender: {}, commits: 'none' }, gogsEvent('push')), 400, 'BAD_REQUEST', "payload['sender']['username'] is missing");
  const commit = { id: 'd8fce16c72a2ff56a5afc8a08645a6ce45491794', message: 'Webhook Test', url: 'http://x/commit' };
  assertError(await hook('gogs', { ...push, commits: [{ ...commit, author: { name: 'John' } }] }, gogsEvent('push')), 400, 'BAD_REQUEST', "payload['commits'][0]['author']['username'] is missing");
  await expectPosted(
    await hook('gogs', { ...push, commits: [{ ...commit, author: { name: 'John Smith', username: '' } }] }, gogsEvent('push')),
    'test / master',
    'kostekIV [pushed](http://x/compare) 1 commit to branch master. Commits by John (1).\n\n* Webhook Test ([d8fce16c72a](http://x/commit))',
  );
});
