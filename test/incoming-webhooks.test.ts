/**
 * Incoming webhooks (/api/v1/external/<integration>): each integration posts
 * Zulip's topic and text; api_key / stream / topic / only_events /
 * exclude_events parameters; unknown events, missing headers and malformed
 * payloads get Zulip's errors (never a 500).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const CHANNEL = 'integrations';
const h = webhookHarness(CHANNEL);
const { hook, last, expectPosted } = h;

// ---------------------------------------------------------------------------
// GitHub

const REPO = { name: 'public-repo', full_name: 'baxterthehacker/public-repo', html_url: 'https://github.com/baxterthehacker/public-repo', private: false };
const SENDER = { login: 'baxterthehacker', html_url: 'https://github.com/baxterthehacker' };
const gh = (event: string) => ({ headers: { 'X-GitHub-Event': event } });

test('github push: one commit, topic "<repo> / <branch>", sent with the webhook client name', async () => {
  const payload = {
    ref: 'refs/heads/changes',
    compare: 'https://github.com/baxterthehacker/public-repo/compare/9049f1265b7d...0d1a26e67d8f',
    deleted: false,
    forced: false,
    commits: [
      {
        id: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
        message: 'Update README.md\n\nMore detail.',
        url: 'https://github.com/baxterthehacker/public-repo/commit/0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
        author: { name: 'baxterthehacker', username: 'baxterthehacker' },
      },
    ],
    repository: REPO,
    sender: SENDER,
  };
  const m = await expectPosted(
    await hook('github', payload, gh('push')),
    'public-repo / changes',
    'baxterthehacker [pushed](https://github.com/baxterthehacker/public-repo/compare/9049f1265b7d...0d1a26e67d8f) 1 commit to branch changes.\n\n' +
      '* Update README.md ([0d1a26e67d8](https://github.com/baxterthehacker/public-repo/commit/0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c))',
  );
  assert.equal(m.client, 'ZulipGitHubWebhook');

  // Several committers are named, most commits first.
  const commits = ['Tomasz', 'Ben', 'Tomasz', 'baxterthehacker'].map((name) => ({ ...payload.commits[0], author: { name } }));
  const res = await hook('github', { ...payload, commits }, gh('push'));
  const row = '* Update README.md ([0d1a26e67d8](https://github.com/baxterthehacker/public-repo/commit/0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c))';
  await expectPosted(
    res,
    'public-repo / changes',
    'baxterthehacker [pushed](https://github.com/baxterthehacker/public-repo/compare/9049f1265b7d...0d1a26e67d8f) 4 commits to branch changes. Commits by Tomasz (2), Ben (1) and baxterthehacker (1).\n\n' +
      [row, row, row, row].join('\n'),
  );

  // The branches filter drops other branches; tags are their own message.
  const before = (await last()).id;
  assertSuccess(await hook('github', payload, { ...gh('push'), query: { branches: 'master,dev' } }));
  assert.equal((await last()).id, before);
  await expectPosted(await hook('github', { ref: 'refs/tags/v1.0', created: true, repository: REPO, sender: SENDER }, gh('push')), 'public-repo', 'baxterthehacker pushed tag v1.0.');
});

const PR = {
  number: 1,
  title: 'Update the README with new information',
  html_url: 'https://github.com/baxterthehacker/public-repo/pull/1',
  body: 'This is a pretty simple change that we need to pull into master.',
  assignee: null,
  merged: false,
  head: { label: 'changes' },
  base: { label: 'master' },
};

test('github pull_request: opened, closed, merged, custom topic adds the title', async () => {
  const opened = { action: 'opened', number: 1, pull_request: PR, repository: REPO, sender: SENDER };
  await expectPosted(
    await hook('github', opened, gh('pull_request')),
    'public-repo / PR #1 Update the README with new information',
    'baxterthehacker opened [PR #1](https://github.com/baxterthehacker/public-repo/pull/1) from `changes` to `master`:\n\n~~~ quote\nThis is a pretty simple change that we need to pull into master.\n~~~',
  );
  await expectPosted(
    await hook('github', { ...opened, action: 'closed' }, gh('pull_request')),
    'public-repo / PR #1 Update the README with new information',
    'baxterthehacker closed without merge [PR #1](https://github.com/baxterthehacker/public-repo/pull/1).',
  );
  await expectPosted(
    await hook('github', { ...opened, action: 'closed', pull_request: { ...PR, merged: true } }, { ...gh('pull_request'), query: { topic: 'notifications' } }),
    'notifications',
    'baxterthehacker merged [PR #1 Update the README with new information](https://github.com/baxterthehacker/public-repo/pull/1).',
  );
  // Ignored actions post nothing and succeed.
  const before = (await last()).id;
  assertSuccess(await hook('github', { ...opened, action: 'labeled' }, gh('pull_request')));
  assert.equal((await last()).id, before);
});

const ISSUE = {
  number: 2,
  title: 'Spelling error in the README file',
  html_url: 'https://github.com/baxterthehacker/public-repo/issues/2',
  body: "It looks like you accidentally spelled 'commit' with two 't's.",
};

test('github issues and issue_comment', async () => {
  await expectPosted(
    await hook('github', { action: 'opened', issue: ISSUE, repository: REPO, sender: SENDER }, gh('issues')),
    'public-repo / issue #2 Spelling error in the README file',
    "baxterthehacker opened [issue #2](https://github.com/baxterthehacker/public-repo/issues/2):\n\n~~~ quote\nIt looks like you accidentally spelled 'commit' with two 't's.\n~~~",
  );
  const comment = { html_url: 'https://github.com/baxterthehacker/public-repo/issues/2#issuecomment-99262140', body: "You are totally right! I'll get this fixed right away." };
  await expectPosted(
    await hook('github', { action: 'created', issue: ISSUE, comment, repository: REPO, sender: SENDER }, gh('issue_comment')),
    'public-repo / issue #2 Spelling error in the README file',
    "baxterthehacker [commented](https://github.com/baxterthehacker/public-repo/issues/2#issuecomment-99262140) on [issue #2](https://github.com/baxterthehacker/public-repo/issues/2):\n\n~~~ quote\nYou are totally right! I'll get this fixed right away.\n~~~",
  );
  // An edit that leaves the text unchanged is not posted.
  const before = (await last()).id;
  assertSuccess(await hook('github', { action: 'edited', changes: { body: { from: comment.body } }, issue: ISSUE, comment, repository: REPO, sender: SENDER }, gh('issue_comment')));
  assert.equal((await last()).id, before);
});

test('github release and ping', async () => {
  const release = { tag_name: '0.0.1', name: null, html_url: 'https://github.com/baxterthehacker/public-repo/releases/tag/0.0.1' };
  await expectPosted(
    await hook('github', { action: 'published', release, repository: REPO, sender: SENDER }, gh('release')),
    'public-repo',
    'baxterthehacker published release [0.0.1](https://github.com/baxterthehacker/public-repo/releases/tag/0.0.1) for tag 0.0.1.',
  );
  await expectPosted(await hook('github', { zen: 'Keep it simple.', repository: REPO, sender: SENDER }, gh('ping')), 'public-repo', 'GitHub webhook has been successfully configured by baxterthehacker.');
});

test('github: unsupported event is Zulip\'s 200 error; missing header is 400 and the owner is told', async () => {
  const res = await hook('github', { action: 'frobbed', repository: REPO, sender: SENDER }, gh('frobnicate'));
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, {
    result: 'error',
    msg: "The 'frobnicate:frobbed' event isn't currently supported by the GitHub webhook; ignoring",
    code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
    webhook_name: 'GitHub',
    event_type: 'frobnicate:frobbed',
  });

  const missing = await hook('github', { repository: REPO, sender: SENDER });
  assertError(missing, 400, 'MISSING_HTTP_EVENT_HEADER', "Missing the HTTP event header 'X-GitHub-Event'");
  assert.equal(missing.body.header, 'X-GitHub-Event');
  const dm = await last([{ operator: 'is', operand: 'dm' }]);
  assert.match(dm.content, /^Hi there! {2}Your bot Hook Bot just sent an HTTP request to \/api\/v1\/external\/github that\nis missing the HTTP X-GitHub-Event header\./);
});

// ---------------------------------------------------------------------------
// GitLab

const PROJECT = { name: 'my-awesome-project', web_url: 'https://gitlab.com/tomaszkolek0/my-awesome-project' };
const GL_USER = { name: 'Tomasz Kolek', username: 'tomaszkolek0' };
const gl = (event: string) => ({ headers: { 'X-GitLab-Event': event } });

test('gitlab push, merge request and issue', async () => {
  await expectPosted(
    await hook(
      'gitlab',
      {
        object_kind: 'push',
        before: '5fcdd5551fc3085df79bece2c32b1400802ac407',
        after: 'eb6ae1e591e0819dc5bf187c6bfe18ec065a80e9',
        ref: 'refs/heads/tomek',
        user_name: 'Tomasz Kolek',
        project: PROJECT,
        commits: [
          {
            id: '66abd2da28809ffa128ed0447965cf11d7f863a7',
            message: 'b\n',
            url: 'https://gitlab.com/tomaszkolek0/my-awesome-project/commit/66abd2da28809ffa128ed0447965cf11d7f863a7',
            author: { name: 'Tomasz Kolek' },
          },
        ],
      },
      gl('Push Hook'),
    ),
    'my-awesome-project / tomek',
    'Tomasz Kolek [pushed](https://gitlab.com/tomaszkolek0/my-awesome-project/-/compare/5fcdd5551fc3085df79bece2c32b1400802ac407...eb6ae1e591e0819dc5bf187c6bfe18ec065a80e9) 1 commit to branch tomek.\n\n' +
      '* b ([66abd2da288](https://gitlab.com/tomaszkolek0/my-awesome-project/commit/66abd2da28809ffa128ed0447965cf11d7f863a7))',
  );

  const mr = {
    object_kind: 'merge_request',
    user: GL_USER,
    project: PROJECT,
    object_attributes: {
      iid: 1,
      title: 'Merge Request title',
      url: 'https://gitlab.com/tomaszkolek0/my-awesome-project/-/merge_requests/1',
      source_branch: 'tomek',
      target_branch: 'master',
      description: 'fixes #1',
      action: 'open',
    },
    assignees: [{ name: 'Tomasz Kolek', username: 'tomaszkolek0' }],
  };
  await expectPosted(
    await hook('gitlab', mr, gl('Merge Request Hook')),
    'my-awesome-project / MR #1 Merge Request title',
    'Tomasz Kolek created [MR #1](https://gitlab.com/tomaszkolek0/my-awesome-project/-/merge_requests/1) from `tomek` to `master` (assigned to Tomasz Kolek):\n\n~~~ quote\nfixes #1\n~~~',
  );
  await expectPosted(
    await hook('gitlab', { ...mr, object_attributes: { ...mr.object_attributes, action: 'merge' } }, gl('Merge Request Hook')),
    'my-awesome-project / MR #1 Merge Request title',
    'Tomasz Kolek merged [MR #1](https://gitlab.com/tomaszkolek0/my-awesome-project/-/merge_requests/1) from `tomek` to `master`.',
  );

  const issue = {
    object_kind: 'issue',
    user: GL_USER,
    project: PROJECT,
    object_attributes: { iid: 1, title: 'Issue title', url: 'https://gitlab.com/tomaszkolek0/my-awesome-project/-/issues/1', description: 'Issue description<!-- hidden -->', action: 'open' },
  };
  await expectPosted(
    await hook('gitlab', issue, gl('Issue Hook')),
    'my-awesome-project / issue #1 Issue title',
    'Tomasz Kolek created [issue #1](https://gitlab.com/tomaszkolek0/my-awesome-project/-/issues/1):\n\n~~~ quote\nIssue description\n~~~',
  );
  // With a custom topic the project is linked and the title shown.
  await expectPosted(
    await hook('gitlab', { ...issue, object_attributes: { ...issue.object_attributes, action: 'close' } }, { ...gl('Issue Hook'), query: { topic: 'gitlab' } }),
    'gitlab',
    '[[my-awesome-project](https://gitlab.com/tomaszkolek0/my-awesome-project)] Tomasz Kolek closed [issue #1 Issue title](https://gitlab.com/tomaszkolek0/my-awesome-project/-/issues/1).',
  );

  const res = await hook('gitlab', { object_kind: 'x' }, gl('Frobnicate Hook'));
  assert.equal(res.status, 200);
  assert.equal(res.body.code, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE');
  assert.equal(res.body.msg, "The 'Frobnicate Hook' event isn't currently supported by the GitLab webhook; ignoring");
});

// ---------------------------------------------------------------------------
// Alertmanager, Grafana, JSON, Slack

test('alertmanager: alerts grouped by instance, firing and resolved', async () => {
  const alert = (instance: string, alertname: string, status: string) => ({
    status,
    labels: { instance, alertname },
    annotations: {},
    generatorURL: `http://prometheus.example.com/graph?g0.expr=up&g0.tab=1#${alertname}`,
  });
  const res = await hook('alertmanager', { alerts: [alert('node1', 'DiskFull', 'firing'), alert('node1', 'HighLoad', 'firing'), alert('node2', 'DiskFull', 'resolved')] });
  assertSuccess(res);
  const msgs = assertSuccess(
    await h.t.client(h.t.owner).get('/messages', { anchor: 'newest', num_before: 2, num_after: 0, narrow: [{ operator: 'channel', operand: CHANNEL }], apply_markdown: false }),
  ).messages;
  assert.deepEqual(
    msgs.map((m: any) => [m.subject, m.content]),
    [
      [
        'node1',
        ':alert: **FIRING**\n* DiskFull ([source](http://prometheus.example.com/graph?g0.expr=up&g0.tab=0#DiskFull))\n* HighLoad ([source](http://prometheus.example.com/graph?g0.expr=up&g0.tab=0#HighLoad))',
      ],
      ['node2', ':squared_ok: **Resolved** DiskFull ([source](http://prometheus.example.com/graph?g0.expr=up&g0.tab=0#DiskFull))'],
    ],
  );
});

test('grafana: unified alerting (8+) and legacy (7) payloads', async () => {
  await expectPosted(
    await hook('grafana', {
      alerts: [
        {
          status: 'resolved',
          labels: { alertname: 'TestAlert', instance: 'Grafana' },
          annotations: { summary: 'Notification test' },
          startsAt: '2022-08-31T05:54:04.52289368Z',
          endsAt: '2022-08-31T10:30:00.52288431Z',
          generatorURL: '',
          fingerprint: 'c6eadffa33fcdf37',
          silenceURL: 'https://zuliptestingwh2.grafana.net/alerting/silence/new?alertmanager=grafana&matcher=alertname%3DTestAlert&matcher=instance%3DGrafana',
          valueString: "[ metric='foo' labels={instance=bar} value=10 ]",
        },
      ],
    }, { contentType: 'application/x-www-form-urlencoded' }),
    '[TestAlert]',
    ':checkbox: **RESOLVED**\n\n**TestAlert**\n\nThis alert was fired at <time:2022-08-31T05:54:04+00:00>.\n\nThis alert was resolved at <time:2022-08-31T10:30:00+00:00>.\n\n' +
      "Labels:\n- alertname: TestAlert\n- instance: Grafana\n\nValues:\n[ metric='foo' labels={instance=bar} value=10 ]\n\nAnnotations:\n- summary: Notification test\n\n" +
      '[Silence](https://zuliptestingwh2.grafana.net/alerting/silence/new?alertmanager=grafana&matcher=alertname%3DTestAlert&matcher=instance%3DGrafana)',
  );
  // A start with an offset keeps it (Zulip's alert_multiple_v8 case).
  await expectPosted(
    await hook('grafana', {
      alerts: [
        {
          status: 'firing',
          labels: { alertname: 'High memory usage' },
          annotations: {},
          startsAt: '2021-10-12T09:51:03.157076+02:00',
          endsAt: '0001-01-01T00:00:00Z',
          fingerprint: 'x',
          generatorURL: 'https://play.grafana.org/alerting/1afz29v7z/edit',
        },
      ],
    }),
    '[High memory usage]',
    ':alert: **FIRING**\n\n**High memory usage**\n\nThis alert was fired at <time:2021-10-12T09:51:03+02:00>.\n\nLabels:\n- alertname: High memory usage\n\n\n[Generator](https://play.grafana.org/alerting/1afz29v7z/edit)',
  );
  await expectPosted(
    await hook('grafana', {
      title: '[Alerting] Test notification',
      ruleName: 'Test rule',
      ruleUrl: 'http://localhost:3000/',
      state: 'alerting',
      message: 'Someone is testing the alert notification within grafana.',
      evalMatches: [{ metric: 'High value', value: 100 }, { metric: 'Higher Value', value: 200 }],
      imageUrl: 'https://grafana.com/assets/img/blog/mixed_styles.png',
    }),
    '[Alerting] Test notification',
    ':alert: **ALERTING**\n\n[Test rule](http://localhost:3000/)\n\nSomeone is testing the alert notification within grafana.\n\n**High value:** 100\n**Higher Value:** 200\n\n[Click to view visualization](https://grafana.com/assets/img/blog/mixed_styles.png)',
  );
  assertError(await hook('grafana', { title: 'x', ruleName: 'r', ruleUrl: 'u', state: 'exploded' }), 400, 'BAD_REQUEST', "Invalid payload['state']");
});

test('json: the document as an indented code block in topic "JSON"', async () => {
  await expectPosted(
    await hook('json', { hello: 'wörld', list: [1, true, null], nested: { empty: {} } }),
    'JSON',
    '```json\n{\n  "hello": "w\\u00f6rld",\n  "list": [\n    1,\n    true,\n    null\n  ],\n  "nested": {\n    "empty": {}\n  }\n}\n```',
  );
  // Numbers as Python reads and writes them: floats keep their point, integers every digit.
  await expectPosted(
    await hook('json', '{"f": 1.0, "e": 1e5, "big": 12345678901234567890123, "neg0": -0, "small": 0.00001, "n": [2.50, -3E-2]}'),
    'JSON',
    '```json\n{\n  "f": 1.0,\n  "e": 100000.0,\n  "big": 12345678901234567890123,\n  "neg0": 0,\n  "small": 1e-05,\n  "n": [\n    2.5,\n    -0.03\n  ]\n}\n```',
  );
});

test('slack_incoming: JSON and form-encoded payload, Slack markup translated', async () => {
  await expectPosted(
    await hook('slack_incoming', { text: 'Hello, *world* and _you_! See <https://example.com|the site>.', channel: '#general' }),
    'general',
    'Hello, **world** and *you*! See [the site](https://example.com).',
  );
  const form = new URLSearchParams({ payload: JSON.stringify({ text: 'from a form', icon_emoji: ':wave:' }) }).toString();
  await expectPosted(await hook('slack_incoming', form, { contentType: 'application/x-www-form-urlencoded', query: { topic: 'slack' } }), 'slack', ':wave: from a form');
  await expectPosted(
    await hook('slack_incoming', { blocks: [{ type: 'header', text: { type: 'plain_text', text: 'Title' } }, { type: 'divider' }, { type: 'section', text: { type: 'mrkdwn', text: 'Body' } }] }),
    // "(no topic)" is the empty topic (general chat), as in Zulip.
    'general chat',
    '## Title\n\n----\n\nBody',
  );
  // Answered as Slack answers (Zulip's slack_error_handler).
  const missing = await hook('slack_incoming', '', { contentType: 'application/x-www-form-urlencoded' });
  assert.equal(missing.status, 400);
  assert.deepEqual(missing.body, { ok: false, error: "Missing 'payload' argument" });
});

// ---------------------------------------------------------------------------
// Addressing, filters, authentication, malformed payloads

// ---------------------------------------------------------------------------
// Gogs and Gitea (texts as Zulip's zerver/webhooks/gogs and gitea tests expect them)

const gogsEvent = (event: string) => ({ headers: { 'X-Gogs-Event': event } });
const giteaEvent = (event: string) => ({ headers: { 'X-Gitea-Event': event } });
const TRY_GIT = { name: 'try-git', html_url: 'http://localhost:3000/john/try-git' };
const GOGS_TEST = { name: 'test', html_url: 'https://try.gogs.io/kostekIV/test' };
const KOSTEK = { login: 'kostekIV', username: 'kostekIV' };
const gogsCommit = (author: { name: string; username: string }) => ({
  id: 'd8fce16c72a2ff56a5afc8a08645a6ce45491794',
  message: 'Webhook Test\n',
  url: 'http://localhost:3000/john/try-git/commit/d8fce16c72a2ff56a5afc8a08645a6ce45491794',
  author: { ...author, email: 'x@example.com' },
});
const gogsPush = (commits: unknown[]) => ({
  ref: 'refs/heads/master',
  compare_url: 'http://localhost:3000/john/try-git/compare/479e6b772b7fba19412457483f50b201286d0103...d8fce16c72a2ff56a5afc8a08645a6ce45491794',
  commits,
  repository: TRY_GIT,
  sender: { login: 'john', username: 'john' },
});
const COMMIT_ROW = '* Webhook Test ([d8fce16c72a](http://localhost:3000/john/try-git/commit/d8fce16c72a2ff56a5afc8a08645a6ce45491794))';
const GOGS_COMPARE = '[pushed](http://localhost:3000/john/try-git/compare/479e6b772b7fba19412457483f50b201286d0103...d8fce16c72a2ff56a5afc8a08645a6ce45491794)';

test('gogs push: commits and their committers, more than 20, the branches filter; a new branch', async () => {
  const john = { name: 'John', username: '' };
  const m = await expectPosted(await hook('gogs', gogsPush([gogsCommit(john)]), gogsEvent('push')), 'try-git / master', `john ${GOGS_COMPARE} 1 commit to branch master. Commits by John (1).\n\n${COMMIT_ROW}`);
  assert.equal(m.client, 'ZulipGogsWebhook');
  await expectPosted(
    await hook('gogs', gogsPush([gogsCommit({ name: 'Benjamin', username: '' }), gogsCommit(john)]), { ...gogsEvent('push'), query: { branches: 'master,development' } }),
    'try-git / master',
    `john ${GOGS_COMPARE} 2 commits to branch master. Commits by Benjamin (1) and John (1).\n\n${COMMIT_ROW}\n${COMMIT_ROW}`,
  );
  await expectPosted(
    await hook('gogs', gogsPush(Array.from({ length: 30 }, () => gogsCommit(john))), gogsEvent('push')),
    'try-git / master',
    `john ${GOGS_COMPARE} 30 commits to branch master. Commits by John (30).\n\n${`${COMMIT_ROW}\n`.repeat(20)}[and 10 more commit(s)]`,
  );
  // A branch outside the filter: answered, nothing posted.
  const before = await last();
  assertSuccess(await hook('gogs', gogsPush([gogsCommit(john)]), { ...gogsEvent('push'), query: { branches: 'changes,development' } }));
  assert.equal((await last()).id, before.id);
  await expectPosted(
    await hook('gogs', { ref: 'my_feature', ref_type: 'branch', repository: TRY_GIT, sender: { login: 'john', username: 'john' } }, gogsEvent('create')),
    'try-git / my_feature',
    'john created [my_feature](http://localhost:3000/john/try-git/src/my_feature) branch.',
  );
});

test('gogs pull requests, issues, comments and releases; an event it does not handle, and a missing header', async () => {
  const pr = (over: Record<string, unknown>) => ({
    id: 1,
    number: 1,
    title: 'Title Text for Pull Request',
    user: { login: 'john', username: 'john' },
    html_url: 'http://localhost:3000/john/try-git/pulls/1',
    head_branch: 'feature',
    base_branch: 'master',
    merged: false,
    merged_by: null,
    assignee: null,
    ...over,
  });
  await expectPosted(
    await hook('gogs', { action: 'opened', number: 1, pull_request: pr({}), repository: TRY_GIT, sender: KOSTEK }, gogsEvent('pull_request')),
    'try-git / PR #1 Title Text for Pull Request',
    'john opened [PR #1](http://localhost:3000/john/try-git/pulls/1) from `feature` to `master`.',
  );
  await expectPosted(
    await hook('gogs', { action: 'opened', pull_request: pr({}), repository: TRY_GIT, sender: KOSTEK }, { ...gogsEvent('pull_request'), query: { topic: 'notifications' } }),
    'notifications',
    'john opened [PR #1 Title Text for Pull Request](http://localhost:3000/john/try-git/pulls/1) from `feature` to `master`.',
  );
  await expectPosted(
    await hook('gogs', { action: 'closed', pull_request: pr({ id: 2, number: 2, html_url: 'http://localhost:3000/john/try-git/pulls/2', merged: true, merged_by: { login: 'john', username: 'john' } }), repository: TRY_GIT, sender: KOSTEK }, gogsEvent('pull_request')),
    'try-git / PR #2 Title Text for Pull Request',
    'john merged [PR #2](http://localhost:3000/john/try-git/pulls/2) from `feature` to `master`.',
  );
  const kostekPr = pr({ id: 1349, number: 2, title: 'Test', user: KOSTEK, html_url: 'https://try.gogs.io/kostekIV/test/pulls/2', head_branch: 'c', assignee: KOSTEK });
  await expectPosted(await hook('gogs', { action: 'edited', pull_request: kostekPr, repository: GOGS_TEST, sender: KOSTEK }, gogsEvent('pull_request')), 'test / PR #1349 Test', 'kostekIV edited [PR #2](https://try.gogs.io/kostekIV/test/pulls/2).');
  await expectPosted(
    await hook('gogs', { action: 'assigned', pull_request: kostekPr, repository: GOGS_TEST, sender: KOSTEK }, gogsEvent('pull_request')),
    'test / PR #1349 Test',
    'kostekIV assigned kostekIV to [PR #2](https://try.gogs.io/kostekIV/test/pulls/2) from `c` to `master`.',
  );

  const issue = { id: 9, number: 3, title: 'New test issue', body: 'Test', assignee: null };
  await expectPosted(
    await hook('gogs', { action: 'opened', issue, repository: GOGS_TEST, sender: KOSTEK }, gogsEvent('issues')),
    'test / issue #3 New test issue',
    'kostekIV opened [issue #3](https://try.gogs.io/kostekIV/test/issues/3):\n\n~~~ quote\nTest\n~~~',
  );
  await expectPosted(
    await hook('gogs', { action: 'assigned', issue: { ...issue, assignee: KOSTEK }, repository: GOGS_TEST, sender: KOSTEK }, gogsEvent('issues')),
    'test / issue #3 New test issue',
    'kostekIV assigned kostekIV to [issue #3](https://try.gogs.io/kostekIV/test/issues/3) (assigned to kostekIV):\n\n~~~ quote\nTest\n~~~',
  );
  await expectPosted(
    await hook('gogs', { action: 'created', issue, comment: { html_url: 'https://try.gogs.io/kostekIV/test/issues/3#issuecomment-3635', body: 'Test comment' }, repository: GOGS_TEST, sender: KOSTEK }, gogsEvent('issue_comment')),
    'test / issue #3 New test issue',
    'kostekIV [commented](https://try.gogs.io/kostekIV/test/issues/3#issuecomment-3635) on [issue #3](https://try.gogs.io/kostekIV/test/issues/3):\n\n~~~ quote\nTest comment\n~~~',
  );
  await expectPosted(
    await hook('gogs', { action: 'edited', issue, comment: { html_url: 'https://try.gogs.io/kostekIV/test/issues/3#issuecomment-3634', body: 'edit comment' }, repository: GOGS_TEST, sender: KOSTEK }, gogsEvent('issue_comment')),
    'test / issue #3 New test issue',
    'kostekIV edited a [comment](https://try.gogs.io/kostekIV/test/issues/3#issuecomment-3634) on [issue #3](https://try.gogs.io/kostekIV/test/issues/3):\n\n~~~ quote\nedit comment\n~~~',
  );
  await expectPosted(
    await hook(
      'gogs',
      { action: 'published', release: { tag_name: 'v1.4', name: 'Title', author: { login: 'cestrell', username: 'cestrell' } }, repository: { name: 'zulip_test', html_url: 'https://try.gogs.io/cestrell/zulip_test' }, sender: KOSTEK },
      gogsEvent('release'),
    ),
    'zulip_test / v1.4 Title',
    'cestrell published release [Title](https://try.gogs.io/cestrell/zulip_test) for tag v1.4.',
  );
  // only_events picks among the event types.
  const before = await last();
  assertSuccess(await hook('gogs', { action: 'opened', issue, repository: GOGS_TEST, sender: KOSTEK }, { ...gogsEvent('issues'), query: { only_events: '["push"]' } }));
  assert.equal((await last()).id, before.id);

  const fork = await hook('gogs', { repository: GOGS_TEST }, gogsEvent('fork'));
  assert.equal(fork.status, 200);
  assert.equal(fork.body.msg, "The 'fork' event isn't currently supported by the Gogs webhook; ignoring");
  assertError(await hook('gogs', { repository: GOGS_TEST }), 400, 'MISSING_HTTP_EVENT_HEADER', "Missing the HTTP event header 'X-Gogs-Event'");
});

test('gitea: a pull request\'s branches from head and base and its assignee named; issues, comments (on a pull request too) and pushes as Gogs', async () => {
  const repo = { name: 'test', html_url: 'https://try.gitea.io/kostekIV/test' };
  const pr = { id: 1906, number: 5, title: 'test 2', user: KOSTEK, html_url: 'https://try.gitea.io/kostekIV/test/pulls/5', head: { ref: 'd' }, base: { ref: 'master' }, merged: false, merged_by: null, assignee: KOSTEK };
  const m = await expectPosted(
    await hook('gitea', { action: 'assigned', pull_request: pr, repository: repo, sender: KOSTEK }, giteaEvent('pull_request')),
    'test / PR #1906 test 2',
    'kostekIV assigned kostekIV to [PR #5](https://try.gitea.io/kostekIV/test/pulls/5) from `d` to `master` (assigned to kostekIV).',
  );
  assert.equal(m.client, 'ZulipGiteaWebhook');
  await expectPosted(
    await hook('gitea', { action: 'closed', pull_request: { ...pr, assignee: null }, repository: repo, sender: KOSTEK }, giteaEvent('pull_request')),
    'test / PR #1906 test 2',
    'kostekIV closed [PR #5](https://try.gitea.io/kostekIV/test/pulls/5) from `d` to `master`.',
  );
  // Gitea names the one who acted (the sender), not the pull request's author.
  await expectPosted(
    await hook('gitea', { action: 'closed', pull_request: { ...pr, assignee: null }, repository: repo, sender: { login: 'Aneesh-Hegde', username: 'Aneesh-Hegde' } }, giteaEvent('pull_request')),
    'test / PR #1906 test 2',
    'Aneesh-Hegde closed [PR #5](https://try.gitea.io/kostekIV/test/pulls/5) from `d` to `master`.',
  );
  await expectPosted(
    await hook('gitea', { action: 'closed', issue: { number: 3, title: 'Test issue 2', body: 'Test body', assignee: KOSTEK }, repository: repo, sender: KOSTEK }, giteaEvent('issues')),
    'test / issue #3 Test issue 2',
    'kostekIV closed [issue #3](https://try.gitea.io/kostekIV/test/issues/3) (assigned to kostekIV):\n\n~~~ quote\nTest body\n~~~',
  );
  await expectPosted(
    await hook(
      'gitea',
      { action: 'created', issue: { number: 1, title: 'dummy', body: '' }, comment: { html_url: 'https://try.gitea.io/kostekIV/test/pulls/1/files#issuecomment-24399', body: 'test comment' }, repository: repo, sender: KOSTEK },
      giteaEvent('issue_comment'),
    ),
    'test / issue #1 dummy',
    'kostekIV [commented](https://try.gitea.io/kostekIV/test/pulls/1/files#issuecomment-24399) on [issue #1](https://try.gitea.io/kostekIV/test/issues/1):\n\n~~~ quote\ntest comment\n~~~',
  );
  await expectPosted(
    await hook('gitea', { ref: 'test-branch', ref_type: 'branch', repository: repo, sender: KOSTEK }, giteaEvent('create')),
    'test / test-branch',
    'kostekIV created [test-branch](https://try.gitea.io/kostekIV/test/src/test-branch) branch.',
  );
  assertError(await hook('gitea', { repository: repo }, gogsEvent('push')), 400, 'MISSING_HTTP_EVENT_HEADER', "Missing the HTTP event header 'X-Gitea-Event'");
});

// ---------------------------------------------------------------------------
// UptimeRobot (texts as Zulip's zerver/webhooks/uptimerobot tests expect them)

test('uptimerobot: a monitor down and back up; a payload missing what the texts need is "Invalid payload" and the bot\'s owner is told once', async () => {
  const down = { monitor_friendly_name: 'Web Server', monitor_url: 'server1.example.com', alert_type_friendly_name: 'Down', alert_details: 'Host Is Unreachable', alert_friendly_duration: '' };
  const m = await expectPosted(await hook('uptimerobot', down), 'Web Server', 'Web Server (server1.example.com) is DOWN (Host Is Unreachable).');
  assert.equal(m.client, 'ZulipUptimeRobotWebhook');
  await expectPosted(
    await hook('uptimerobot', { monitor_friendly_name: 'Mail Server', monitor_url: 'server2.example.com', alert_type_friendly_name: 'Up', alert_details: 'Host Is Reachable', alert_friendly_duration: '44 minutes and 37 seconds' }),
    'Mail Server',
    'Mail Server (server2.example.com) is back UP (Host Is Reachable).\nIt was down for 44 minutes and 37 seconds.',
  );
  // only_events: "up" and "down".
  const before = await last();
  assertSuccess(await hook('uptimerobot', down, { query: { exclude_events: '["down"]' } }));
  assert.equal((await last()).id, before.id);
  assertError(await hook('uptimerobot', { ...down, alert_type_friendly_name: 'Paused' }), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', "The 'Paused' event isn't currently supported by the UptimeRobot webhook; ignoring");

  // Its own bot, so that no earlier notice to the owner counts against this one.
  const owner = h.t.client(h.t.owner);
  const b = assertSuccess(await owner.post('/bots', { full_name: 'Uptime $& Bot', short_name: 'uptime', bot_type: 2 }));
  const { alert_details: _missing, ...incomplete } = down;
  assertError(await hook('uptimerobot', incomplete, { apiKey: b.api_key }), 400, 'BAD_REQUEST', 'Invalid payload');
  const dm = await last([{ operator: 'is', operand: 'dm' }]);
  assert.equal(
    dm.content,
    `Hi there! Your bot Uptime $& Bot just received a UptimeRobot payload that is missing\nsome data that Zulip requires. This usually indicates a configuration issue\nin your UptimeRobot webhook settings. Please make sure that you set the required parameters\nwhen configuring the UptimeRobot webhook. Contact support@${new URL(h.t.url).hostname} if you\nneed further help!`,
  );
  assertError(await hook('uptimerobot', incomplete, { apiKey: b.api_key }), 400, 'BAD_REQUEST', 'Invalid payload');
  assert.equal((await last([{ operator: 'is', operand: 'dm' }])).id, dm.id, 'told once a day');
});

// ---------------------------------------------------------------------------
// Sentry (texts as Zulip's zerver/webhooks/sentry tests expect them)

const SENTRY_ISSUES = 'https://sentry.io/organizations/hypro999-personal-organization/issues';
const pythonFrame = {
  filename: 'trigger-exception.py',
  pre_context: ['', '', 'if __name__ == "__main__":', '    sentry_sdk.init(dsn=SECRET_DSN)', '    try:'],
  context_line: '        raise Exception("Custom exception!")',
  post_context: ['    except Exception as e:', '        sentry_sdk.capture_exception(e)', ''],
};
const pythonException = {
  event_id: '599349254a1447a99774b5310711c1a8',
  platform: 'python',
  version: '7',
  title: 'Exception: Custom exception!',
  level: 'error',
  datetime: '2020-04-28T13:56:05.903736Z',
  web_url: `${SENTRY_ISSUES}/1635244907/events/599349254a1447a99774b5310711c1a8/`,
  metadata: { type: 'Exception', value: 'Custom exception!', filename: 'trigger-exception.py' },
  exception: { values: [{ type: 'Exception', value: 'Custom exception!', stacktrace: { frames: [pythonFrame] } }] },
};
const SENTRY_ACTOR = { type: 'user', id: '1', name: 'Hemanth V. Alluri' };

test('sentry: an exception event with the lines around the failing one, from the last frame of the file Sentry names', async () => {
  await expectPosted(
    await hook('sentry', { action: 'triggered', data: { event: pythonException, triggered_rule: 'rule' }, actor: { type: 'application', id: 'sentry', name: 'Sentry' } }),
    'Exception: Custom exception!',
    `**New exception:** [Exception: Custom exception!](${SENTRY_ISSUES}/1635244907/events/599349254a1447a99774b5310711c1a8/)
\`\`\`quote
**level:** error
**timestamp:** <time:2020-04-28T13:56:05+00:00>
**filename:** trigger-exception.py
\`\`\`

Traceback:
\`\`\`python3


     if __name__ == "__main__":
         sentry_sdk.init(dsn=SECRET_DSN)
         try:
--->         raise Exception("Custom exception!")
         except Exception as e:
             sentry_sdk.capture_exception(e)

\`\`\``,
  );
  // Of chained exceptions the last with a stack trace, and in it the last frame of that file; Go's code block language.
  const frame = (line: string) => ({ filename: 'main.go', pre_context: ['a := 1'], context_line: line, post_context: null });
  const golang = {
    ...pythonException,
    platform: 'go',
    version: '7',
    title: '*url.Error: Get "bad_url": unsupported protocol scheme ""',
    metadata: { filename: 'main.go' },
    exception: { values: [{ stacktrace: { frames: [frame('first()')] } }, { stacktrace: { frames: [frame('second()'), { filename: 'other.go', context_line: 'x()' }, frame('third()')] } }, { type: 'NoStack' }] },
  };
  const m = await expectPosted(
    await hook('sentry', { data: { event: golang } }),
    '*url.Error: Get "bad_url": unsupported protocol scheme ""',
    `**New exception:** [*url.Error: Get "bad_url": unsupported protocol scheme ""](${SENTRY_ISSUES}/1635244907/events/599349254a1447a99774b5310711c1a8/)\n\`\`\`quote\n**level:** error\n**timestamp:** <time:2020-04-28T13:56:05+00:00>\n**filename:** main.go\n\`\`\`\n\nTraceback:\n\`\`\`go\n     a := 1\n---> third()\n\`\`\``,
  );
  assert.equal(m.client, 'ZulipSentryWebhook');
  // No frame of that file with its line: no traceback; no file named at all: "None", as Zulip writes it.
  await expectPosted(
    await hook('sentry', { data: { event: { ...pythonException, platform: 'javascript', exception: { values: [{ stacktrace: { frames: [{ filename: 'trigger-exception.py', context_line: null }] } }] } } } }),
    'Exception: Custom exception!',
    `**New exception:** [Exception: Custom exception!](${SENTRY_ISSUES}/1635244907/events/599349254a1447a99774b5310711c1a8/)\n\`\`\`quote\n**level:** error\n**timestamp:** <time:2020-04-28T13:56:05+00:00>\n**filename:** trigger-exception.py\n\`\`\``,
  );
  await expectPosted(
    await hook('sentry', { data: { event: { ...pythonException, metadata: {} } } }),
    'Exception: Custom exception!',
    `**New exception:** [Exception: Custom exception!](${SENTRY_ISSUES}/1635244907/events/599349254a1447a99774b5310711c1a8/)\n\`\`\`quote\n**level:** error\n**timestamp:** <time:2020-04-28T13:56:05+00:00>\n**filename:** None\n\`\`\``,
  );
  // Ruby (Zulip's Rails case): empty lines around the failing one stay empty.
  const rails = {
    ...pythonException,
    platform: 'ruby',
    title: 'ZeroDivisionError: divided by 0',
    datetime: '2023-05-29T10:12:33.000Z',
    web_url: 'https://sentry.io/organizations/nitk-46/issues/4213933362/events/49b528e13e45497ab9adc3173fd2ed34/',
    metadata: { filename: 'app/controllers/articles_controller.rb' },
    exception: {
      values: [
        {
          stacktrace: {
            frames: [
              {
                filename: 'app/controllers/articles_controller.rb',
                pre_context: ['class ArticlesController < ApplicationController', '', '  def index', '', '    begin', ''],
                context_line: '      132312 / 0',
                post_context: ['', '    rescue ZeroDivisionError => exception', '', '      Sentry.capture_exception(exception)', '', '    end', ''],
              },
            ],
          },
        },
      ],
    },
  };
  await expectPosted(
    await hook('sentry', { data: { event: rails } }),
    'ZeroDivisionError: divided by 0',
    `**New exception:** [ZeroDivisionError: divided by 0](https://sentry.io/organizations/nitk-46/issues/4213933362/events/49b528e13e45497ab9adc3173fd2ed34/)
\`\`\`quote
**level:** error
**timestamp:** <time:2023-05-29T10:12:33+00:00>
**filename:** app/controllers/articles_controller.rb
\`\`\`

Traceback:
\`\`\`ruby
     class ArticlesController < ApplicationController

       def index

         begin

--->       132312 / 0

         rescue ZeroDivisionError => exception

           Sentry.capture_exception(exception)

         end

\`\`\``,
  );
  // A title over 60 characters is cut as every topic is.
  const long = "TypeError: Cannot read properties of null (reading 'insertBefore')";
  await expectPosted(
    await hook('sentry', { data: { event: { ...pythonException, title: long, metadata: {} } } }),
    "TypeError: Cannot read properties of null (reading 'inser...",
    `**New exception:** [${long}](${SENTRY_ISSUES}/1635244907/events/599349254a1447a99774b5310711c1a8/)\n\`\`\`quote\n**level:** error\n**timestamp:** <time:2020-04-28T13:56:05+00:00>\n**filename:** None\n\`\`\``,
  );
});

test('sentry: a message event; the legacy webhook plugin\'s payload; the oldest payload; the Raven SDK refused, its sample event not', async () => {
  const message = { ...pythonException, exception: undefined, metadata: undefined, logentry: { message: 'A simple message-based issue.' }, level: 'info', title: 'A simple message-based issue.', datetime: '2020-04-28T14:05:04.123Z' };
  await expectPosted(
    await hook('sentry', { data: { event: message } }),
    'A simple message-based issue.',
    `**New message event:** [A simple message-based issue.](${SENTRY_ISSUES}/1635244907/events/599349254a1447a99774b5310711c1a8/)\n\`\`\`quote\n**level:** info\n**timestamp:** <time:2020-04-28T14:05:04+00:00>\n\`\`\``,
  );
  // The webhook plugin: no "data"; the event's link is the issue's URL and its ID, its time the event's timestamp (else when received).
  const { web_url: _w, datetime: _d, ...bare } = pythonException;
  const plugin = { project_name: 'zulip', url: 'https://sentry.io/organizations/bar-foundation/issues/1972208801/', event: { ...bare, event_id: 'c916dccfd58e41dcabaebef0091f0736', timestamp: 1603322711.9, title: 'ValueError: new sentry error.' } };
  await expectPosted(
    await hook('sentry', plugin),
    'ValueError: new sentry error.',
    `**New exception:** [ValueError: new sentry error.](https://sentry.io/organizations/bar-foundation/issues/1972208801/events/c916dccfd58e41dcabaebef0091f0736/)\n\`\`\`quote\n**level:** error\n**timestamp:** <time:2020-10-21T23:25:11+00:00>\n**filename:** trigger-exception.py\n\`\`\`\n\nTraceback:\n\`\`\`python3\n\n\n     if __name__ == "__main__":\n         sentry_sdk.init(dsn=SECRET_DSN)\n         try:\n--->         raise Exception("Custom exception!")\n         except Exception as e:\n             sentry_sdk.capture_exception(e)\n\n\`\`\``,
  );
  const { timestamp: _t, ...received } = plugin.event;
  await expectPosted(
    await hook('sentry', { ...plugin, event: { ...received, received: 1603322712, metadata: {}, platform: 'node' } }),
    'ValueError: new sentry error.',
    `**New exception:** [ValueError: new sentry error.](https://sentry.io/organizations/bar-foundation/issues/1972208801/events/c916dccfd58e41dcabaebef0091f0736/)\n\`\`\`quote\n**level:** error\n**timestamp:** <time:2020-10-21T23:25:12+00:00>\n**filename:** None\n\`\`\``,
  );
  // The oldest payload (no event ID): the project as the topic.
  await expectPosted(
    await hook('sentry', { project_name: 'zulip', level: 'error', url: 'https://sentry.io/zulip/zulip/issues/156699934/', message: 'This is an example python exception' }),
    'zulip',
    'New [issue](https://sentry.io/zulip/zulip/issues/156699934/) (level: ERROR):\n\n``` quote\nThis is an example python exception\n```',
  );
  // The Raven SDK (a Python event before version 7): Zulip's 200 error; Sentry's sample event, as old, is taken.
  const raven = await hook('sentry', { data: { event: { ...message, version: '6' } } });
  assert.equal(raven.status, 200);
  assert.deepEqual(raven.body, {
    result: 'error',
    msg: "The 'Raven SDK' event isn't currently supported by the Sentry webhook; ignoring",
    code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
    webhook_name: 'Sentry',
    event_type: 'Raven SDK',
  });
  await expectPosted(
    await hook('sentry', { data: { event: { ...message, version: '5', level: 'error', title: 'This is an example Python exception' } } }),
    'This is an example Python exception',
    `**New message event:** [This is an example Python exception](${SENTRY_ISSUES}/1635244907/events/599349254a1447a99774b5310711c1a8/)\n\`\`\`quote\n**level:** error\n**timestamp:** <time:2020-04-28T14:05:04+00:00>\n\`\`\``,
  );
  // Neither an exception nor a message; data that is neither an event nor an issue; a malformed event.
  assertError(await hook('sentry', { data: { event: { ...message, logentry: undefined } } }), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', "The 'unknown-event type' event isn't currently supported by the Sentry webhook; ignoring");
  assertError(await hook('sentry', { data: { installation: {}, other: 1 } }), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', "The '['installation', 'other']' event isn't currently supported by the Sentry webhook; ignoring");
  // The keys as Python's repr of a list writes them.
  assertError(await hook('sentry', { data: { "it's": 1 } }), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', 'The \'["it\'s"]\' event isn\'t currently supported by the Sentry webhook; ignoring');
  assertError(await hook('sentry', { data: { event: { ...message, level: 3 } } }), 400, 'BAD_REQUEST', "payload['data']['event']['level'] is not a string");
  assertError(await hook('sentry', { ...plugin, event: { ...plugin.event, timestamp: 1e300 } }), 400, 'BAD_REQUEST', "payload['event']['timestamp'] is not a valid timestamp");
  assertError(await hook('sentry', { ...plugin, url: 'http://[::1/x' }), 400, 'BAD_REQUEST', "payload['url'] is not a URL");
  // An issue's URL without a scheme is joined as Python's urljoin joins relative paths.
  const relative = await hook('sentry', { ...plugin, url: '/organizations/bar-foundation/issues/1972208801/', event: { ...received, received: 1603322712, metadata: {}, platform: 'node' } });
  assertSuccess(relative);
  assert.match((await last()).content, /^\*\*New exception:\*\* \[ValueError: new sentry error\.\]\(\/organizations\/bar-foundation\/issues\/1972208801\/events\/c916dccfd58e41dcabaebef0091f0736\/\)/);
});

test('sentry: an issue created, assigned (to a person or a team), resolved and ignored', async () => {
  const issue = { title: 'Exception: program has entered an invalid state.', level: 'error', lastSeen: '2020-04-28T13:56:05.903736Z', assignedTo: null };
  const topic = issue.title;
  await expectPosted(
    await hook('sentry', { action: 'created', data: { issue }, actor: { type: 'application', name: 'Sentry' } }),
    topic,
    `**New issue created:** ${topic}\n\`\`\`quote\n**level:** error\n**timestamp:** <time:2020-04-28T13:56:05+00:00>\n**assignee:** No one\n\`\`\``,
  );
  await expectPosted(
    await hook('sentry', { action: 'assigned', data: { issue: { ...issue, assignedTo: { type: 'user', name: 'Hemanth V. Alluri' } } }, actor: SENTRY_ACTOR }),
    topic,
    `Issue **${topic}** has now been assigned to **Hemanth V. Alluri** by **Hemanth V. Alluri**.`,
  );
  await expectPosted(
    await hook('sentry', { action: 'assigned', data: { issue: { ...issue, assignedTo: { type: 'team', name: 'lone-wolf' } } }, actor: SENTRY_ACTOR }),
    topic,
    `Issue **${topic}** has now been assigned to **team lone-wolf** by **Hemanth V. Alluri**.`,
  );
  await expectPosted(await hook('sentry', { action: 'resolved', data: { issue }, actor: SENTRY_ACTOR }), topic, `Issue **${topic}** was marked as resolved by **Hemanth V. Alluri**.`);
  await expectPosted(await hook('sentry', { action: 'ignored', data: { issue }, actor: SENTRY_ACTOR }), topic, `Issue **${topic}** was ignored by **Hemanth V. Alluri**.`);
  // The issue's last sighting is read whatever the action, as Zulip reads it.
  const { lastSeen: _seen, ...unseen } = issue;
  assertError(await hook('sentry', { action: 'resolved', data: { issue: unseen }, actor: SENTRY_ACTOR }), 400, 'BAD_REQUEST', "payload['data']['issue']['lastSeen'] is missing");
  assertError(
    await hook('sentry', { action: 'archived', data: { issue }, actor: SENTRY_ACTOR }),
    200,
    'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
    "The 'archived action' event isn't currently supported by the Sentry webhook; ignoring",
  );
});

test('without stream the bot owner gets a direct message; an unknown channel tells the owner instead of failing', async () => {
  assertSuccess(await hook('json', { a: 1 }, { stream: null }));
  const dm = await last([{ operator: 'is', operand: 'dm' }]);
  assert.equal(dm.sender_id, h.bot.id);
  assert.equal(dm.content, '```json\n{\n  "a": 1\n}\n```');

  // (A second bot: reminders to an owner are sent at most once a day per bot, and the first bot had one.)
  const b2 = assertSuccess(await h.t.client(h.t.owner).post('/bots', { full_name: 'Hook Two', short_name: 'hook2', bot_type: 2 }));
  const b2email = assertSuccess(await h.t.client(h.t.owner).get(`/users/${b2.user_id}`)).user.email;
  assertSuccess(await hook('json', { a: 1 }, { stream: 'no such channel', apiKey: b2.api_key }));
  const notice = await last([{ operator: 'is', operand: 'dm' }]);
  assert.equal(notice.sender_email, 'notification-bot@zulip.com');
  assert.equal(notice.content, `Your bot \`${b2email}\` tried to send a message to channel #**no such channel**, but that channel does not exist. Click [here](#channels/new) to create it.`);
});

test('stream by ID; topic parameter; only_events and exclude_events', async () => {
  const sub = assertSuccess(await h.t.client(h.t.owner).get('/get_stream_id', { stream: CHANNEL }));
  await expectPosted(await hook('json', { b: 2 }, { stream: String(sub.stream_id), query: { topic: 'custom' } }), 'custom', '```json\n{\n  "b": 2\n}\n```');
  const before = (await last()).id;
  const base = { zen: 'z', repository: REPO, sender: SENDER };
  assertSuccess(await hook('github', base, { ...gh('ping'), query: { only_events: JSON.stringify(['push*']) } }));
  assertSuccess(await hook('github', base, { ...gh('ping'), query: { exclude_events: JSON.stringify(['p?ng']) } }));
  assert.equal((await last()).id, before);
  await expectPosted(await hook('github', base, { ...gh('ping'), query: { only_events: JSON.stringify(['pi*']) } }), 'public-repo', 'GitHub webhook has been successfully configured by baxterthehacker.');
});

test('authentication: api_key required, malformed and unknown keys are 401', async () => {
  assertError(await hook('json', { a: 1 }, { apiKey: null }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'api_key' argument");
  assertError(await hook('json', { a: 1 }, { apiKey: 'short' }), 401, 'INVALID_API_KEY', 'Malformed API key');
  assertError(await hook('json', { a: 1 }, { apiKey: 'a'.repeat(32) }), 401, 'INVALID_API_KEY', 'Invalid API key');
  const res = await fetch(`${h.t.url}/api/v1/external/nonexistent?api_key=${h.bot.apiKey}`, { method: 'POST' });
  assert.equal(res.status, 404);
});

test('malformed payloads are 400 with Zulip\'s messages, never 500', async () => {
  assertError(await hook('json', '{not json'), 400, 'BAD_REQUEST', 'Malformed JSON');
  assertError(await hook('grafana', ''), 400, 'BAD_REQUEST', 'Malformed JSON');
  assertError(await hook('alertmanager', { nope: [] }), 400, 'BAD_REQUEST', "payload['alerts'] is missing");
  assertError(await hook('alertmanager', { alerts: 'x' }), 400, 'BAD_REQUEST', "payload['alerts'] is not a list");
  assertError(await hook('alertmanager', { alerts: [{ status: 'firing', generatorURL: 5 }] }), 400, 'BAD_REQUEST', "payload['alerts'][0]['generatorURL'] is not a string");
  assertError(await hook('github', [1, 2], gh('push')), 400, 'BAD_REQUEST', 'payload is not a dict');
  assertError(await hook('github', { ref: 'refs/heads/x', sender: SENDER, repository: REPO }, gh('push')), 400, 'BAD_REQUEST', "payload['commits'] is missing");
  assertError(await hook('gitlab', { object_attributes: { action: 'open' } }, gl('Issue Hook')), 400, 'BAD_REQUEST', "payload['user'] is missing");
  assertError(await hook('json', '[1]'), 400, 'BAD_REQUEST', 'payload is not a dict');
});
