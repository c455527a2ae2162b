/**
 * GitHub's events beyond pushes, pull requests, issues and releases
 * (which test/incoming-webhooks.test.ts covers): check runs, deployments,
 * discussions and their comments, wiki pages, organization membership,
 * GitHub Pages builds, teams; Zulip's own test cases, payloads trimmed to
 * what is read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('github');
const { hook, expectPosted, last } = h;

const gh = (event: string) => ({ headers: { 'X-GitHub-Event': event } });
const BAXTER = { login: 'baxterthehacker', html_url: 'https://github.com/baxterthehacker' };
const REPO = { name: 'public-repo', full_name: 'baxterthehacker/public-repo', html_url: 'https://github.com/baxterthehacker/public-repo', private: false };

test('github: check runs (completed only), deployments and their status, GitHub Pages builds', async () => {
  const run = (status: string) => ({
    action: status === 'completed' ? 'completed' : 'created',
    check_run: { name: 'randscape', html_url: 'http://github.com/github/hello-world/runs/4', status, conclusion: 'success', head_sha: 'd6fde92930d4715a2b49857d24b940956b26d2d3' },
    repository: { ...REPO, name: 'hello-world', html_url: 'http://github.com/github/hello-world' },
    sender: BAXTER,
  });
  await expectPosted(
    await hook('github', run('completed'), gh('check_run')),
    'hello-world / checks',
    'Check [randscape](http://github.com/github/hello-world/runs/4) completed (success). ([d6fde92930d](http://github.com/github/hello-world/commit/d6fde92930d4715a2b49857d24b940956b26d2d3))',
  );
  const before = await last();
  assertSuccess(await hook('github', run('in_progress'), gh('check_run')));
  assert.equal((await last()).id, before.id);

  const deployment = { deployment: { environment: 'production' }, repository: REPO, sender: BAXTER };
  await expectPosted(await hook('github', deployment, gh('deployment')), 'public-repo / Deployment on production', 'baxterthehacker created new deployment.');
  await expectPosted(
    await hook('github', { ...deployment, deployment_status: { state: 'success' } }, gh('deployment_status')),
    'public-repo / Deployment on production',
    'Deployment changed status to success.',
  );

  const build = (status: string, message: string | null) => ({ build: { status, error: { message }, pusher: { login: 'baxterthehacker' } }, repository: REPO, sender: BAXTER });
  await expectPosted(await hook('github', build('built', null), gh('page_build')), 'public-repo', 'GitHub Pages build, triggered by baxterthehacker, has finished building.');
  await expectPosted(
    await hook('github', build('errored', 'Something went wrong.'), gh('page_build')),
    'public-repo',
    'GitHub Pages build, triggered by baxterthehacker, has failed: \n~~~ quote\nSomething went wrong.\n~~~.',
  );
  await expectPosted(await hook('github', build('queued', null), gh('page_build')), 'public-repo', 'GitHub Pages build, triggered by baxterthehacker, is queued.');
});

test('github: discussions and their comments (a topic given names the title), wiki pages', async () => {
  const SB = { login: 'sbansal1999', html_url: 'https://github.com/sbansal1999' };
  const repo = { ...REPO, name: 'testing-gh' };
  const discussion = {
    html_url: 'https://github.com/sbansal1999/testing-gh/discussions/20',
    number: 20,
    title: 'Lets discuss',
    body: 'Some random text about which no one cares.\r\n',
    category: { name: 'General' },
  };
  const topic = 'testing-gh discussion #20: Lets discuss';
  await expectPosted(
    await hook('github', { action: 'created', discussion, repository: repo, sender: SB }, gh('discussion')),
    topic,
    'sbansal1999 created [discussion #20](https://github.com/sbansal1999/testing-gh/discussions/20) in General:\n\n~~~ quote\n### Lets discuss\nSome random text about which no one cares.\r\n\n~~~',
  );
  const comment = (action: string, body: string) => ({
    action,
    discussion,
    comment: { body, html_url: 'https://github.com/sbansal1999/testing-gh/discussions/20#discussioncomment-6332416' },
    changes: action === 'edited' ? { body: { from: 'some random comment' } } : undefined,
    repository: repo,
    sender: SB,
  });
  const link = 'https://github.com/sbansal1999/testing-gh/discussions/20#discussioncomment-6332416';
  await expectPosted(
    await hook('github', comment('created', 'some random comment'), gh('discussion_comment')),
    topic,
    `sbansal1999 [commented](${link}) on [discussion #20](https://github.com/sbansal1999/testing-gh/discussions/20):\n\n~~~ quote\nsome random comment\n~~~`,
  );
  await expectPosted(
    await hook('github', comment('created', 'some random comment'), { ...gh('discussion_comment'), query: { topic: 'notifications' } }),
    'notifications',
    `sbansal1999 [commented](${link}) on [discussion #20 Lets discuss](https://github.com/sbansal1999/testing-gh/discussions/20):\n\n~~~ quote\nsome random comment\n~~~`,
  );
  await expectPosted(
    await hook('github', comment('edited', 'some random comment edited'), gh('discussion_comment')),
    topic,
    `sbansal1999 edited a [comment](${link}) on [discussion #20](https://github.com/sbansal1999/testing-gh/discussions/20):\n\n~~~ quote\nsome random comment edited\n~~~`,
  );

  const page = { action: 'created', title: 'Home', html_url: 'https://github.com/baxterthehacker/public-repo/wiki/Home' };
  await expectPosted(
    await hook('github', { pages: [page, page], repository: REPO, sender: { login: 'jasonrudolph' } }, gh('gollum')),
    'public-repo / wiki pages',
    'jasonrudolph:\n* created [Home](https://github.com/baxterthehacker/public-repo/wiki/Home)\n* created [Home](https://github.com/baxterthehacker/public-repo/wiki/Home)',
  );
});

test('github: organization membership, teams edited (ignored and unknown team actions), repositories added to a team', async () => {
  const member = { login: 'kdaigle', html_url: 'https://github.com/kdaigle' };
  const membership = (action: string) => ({ action, member, team: { name: 'Contractors' }, organization: { login: 'baxterandthehackers' }, sender: BAXTER });
  await expectPosted(await hook('github', membership('added'), gh('membership')), 'baxterandthehackers organization', 'baxterthehacker added [kdaigle](https://github.com/kdaigle) to the Contractors team.');
  await expectPosted(await hook('github', membership('removed'), gh('membership')), 'baxterandthehackers organization', 'baxterthehacker removed [kdaigle](https://github.com/kdaigle) from the Contractors team.');

  const HYPRO = { login: 'Hypro999', html_url: 'https://github.com/Hypro999' };
  const team = (changes: Record<string, unknown>, over: Record<string, unknown> = {}) => ({
    action: 'edited',
    changes,
    team: { name: 'Testing Team', description: 'A temporary team so that I can get some webhook fixtures!', privacy: 'secret', ...over },
    sender: HYPRO,
  });
  await expectPosted(
    await hook('github', team({ description: { from: '' } }, { name: 'Testing' }), gh('team')),
    'team Testing',
    '**Hypro999** changed the team description to:\n\n~~~ quote\nA temporary team so that I can get some webhook fixtures!\n~~~',
  );
  await expectPosted(await hook('github', team({ name: { from: 'Testing' } }), gh('team')), 'team Testing Team', 'Team `Testing` was renamed to `Testing Team`.');
  await expectPosted(await hook('github', team({ privacy: { from: 'closed' } }), gh('team')), 'team Testing Team', 'Team visibility changed to `secret`');
  await expectPosted(
    await hook('github', { action: 'edited', changes: { bogus_key2: {}, bogus_key1: {} }, team: { name: 'My Team' }, sender: HYPRO }, gh('team')),
    'team My Team',
    'Team has changes to `bogus_key1/bogus_key2` data.',
  );
  const before = await last();
  for (const action of ['added_to_repository', 'created', 'deleted', 'removed_from_repository']) {
    assertSuccess(await hook('github', { action, team: { name: 'x' }, sender: HYPRO }, gh('team')));
  }
  assert.equal((await last()).id, before.id);
  const unknown = await hook('github', { action: 'archived', team: { name: 'x' }, sender: HYPRO }, gh('team'));
  assert.equal(unknown.status, 200);
  assert.equal(unknown.body.msg, "The 'unsupported team action archived' event isn't currently supported by the GitHub webhook; ignoring");

  await expectPosted(
    await hook('github', { team: { name: 'github' }, repository: { ...REPO, full_name: 'baxterandthehackers/public-repo', html_url: 'https://github.com/baxterandthehackers/public-repo' }, sender: BAXTER }, gh('team_add')),
    'public-repo',
    'The repository [baxterandthehackers/public-repo](https://github.com/baxterandthehackers/public-repo) was added to team github.',
  );
});

test('github: the event types the URL generator offers, in Zulip\'s order', async () => {
  assert.deepEqual((await h.listed('github'))?.all_event_types, [
    'commit_comment',
    'closed_pull_request',
    'create',
    'check_run',
    'delete',
    'deployment',
    'deployment_status',
    'discussion',
    'discussion_comment',
    'fork',
    'gollum',
    'issue_comment',
    'issue_labeled_or_unlabeled',
    'issue_milestoned_or_demilestoned',
    'issues',
    'member',
    'membership',
    'opened_pull_request',
    'updated_pull_request',
    'assigned_or_unassigned_pull_request',
    'page_build',
    'ping',
    'public',
    'pull_request_ready_for_review',
    'pull_request_review',
    'pull_request_review_comment',
    'pull_request_review_requested',
    'pull_request_auto_merge',
    'locked_or_unlocked_pull_request',
    'push_commits',
    'push_tags',
    'release',
    'repository',
    'star',
    'status',
    'team',
    'team_add',
    'watch',
  ]);
});
