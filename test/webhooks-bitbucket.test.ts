/**
 * The Bitbucket Cloud integration (/api/v1/external/bitbucket2): Zulip's own
 * test cases (payloads trimmed to what is read): pushes of commits, force
 * pushes, deleted branches and tags, the branches option, forks, commit
 * comments and build statuses, issues, pull requests by X-Event-Key,
 * repository changes, and what is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('bitbucket');
const { hook, expectPosted, last } = h;

const BASE = 'https://bitbucket.org/kolaszek/repository-name';
const REPO = { name: 'Repository name', full_name: 'kolaszek/repository-name', links: { html: { href: BASE } } };
const TOMASZ = { display_name: 'Tomasz', nickname: 'kolaszek' };
const SHA = '84b96adc644a30fd6465b3d196369d880762afed';
const ROW = `* first commit ([84b96adc644](${BASE}/commits/${SHA}))`;
const TOPIC = 'Repository name';
const BRANCH_TOPIC = 'Repository name / master';
const PR_TOPIC = 'Repository name / PR #1 new commit';
const ISSUE_TOPIC = 'Repository name / issue #1 Bug';

const link = (href: string) => ({ html: { href } });
const commit = (author: Record<string, unknown>) => ({ hash: SHA, message: 'first commit\n\nmore', author, links: link(`${BASE}/commits/${SHA}`) });
const byTomasz = commit({ raw: 'Tomasz Kolek <tomasz@example.com>', user: TOMASZ });
const byRaw = (name: string) => commit({ raw: `${name} <${name.toLowerCase()}@example.com>` });
const branchChange = (commits: unknown[], over: Record<string, unknown> = {}) => ({
  new: { type: 'branch', name: 'master', target: { hash: SHA } },
  old: { type: 'branch', name: 'master' },
  links: link(`${BASE}/branch/master`),
  forced: false,
  truncated: false,
  commits,
  ...over,
});
const tagChange = (name: string, removed = false) => {
  const tag = { type: 'tag', name, links: link(`${BASE}/commits/tag/${name}`) };
  return { new: removed ? null : tag, old: removed ? tag : null, forced: false };
};
const push = (...changes: unknown[]) => ({ actor: TOMASZ, repository: REPO, push: { changes } });
const pushed = (n: number) => `Tomasz [pushed](${BASE}/branch/master) ${n} commit${n > 1 ? 's' : ''} to branch master.`;
const event = (key: string) => ({ headers: { 'X-Event-Key': key } });

test('bitbucket2: pushes of commits (committers, "and others", truncated lists), force pushes, deleted branches, the branches option', async () => {
  const m = await expectPosted(await hook('bitbucket2', push(branchChange([byTomasz]))), BRANCH_TOPIC, `${pushed(1)}\n\n${ROW}`);
  assert.equal(m.client, 'ZulipBitbucket2Webhook');
  const three = push(branchChange([byRaw('Ben'), byRaw('Ben'), byTomasz]));
  await expectPosted(await hook('bitbucket2', three), BRANCH_TOPIC, `${pushed(3)} Commits by Ben (2) and Tomasz (1).\n\n${ROW}\n${ROW}\n${ROW}`);
  const ten = push(branchChange([...Array(4).fill(byTomasz), ...Array(3).fill(byRaw('James')), ...Array(2).fill(byRaw('Brendon')), byRaw('Ann')]));
  await expectPosted(
    await hook('bitbucket2', ten, { query: { branches: 'master,development' } }),
    BRANCH_TOPIC,
    `${pushed(10)} Commits by Tomasz (4), James (3), Brendon (2) and others (1).\n\n${Array(10).fill(ROW).join('\n')}`,
  );
  const compare = `${BASE}/branches/compare/6f161a7bced94430ac8947d87dbf45c6deee3fb0..1221f2fda6f1e3654b09f1f3a08390e4cb25bb48`;
  const a = { ...byTomasz, hash: '6f161a7bced94430ac8947d87dbf45c6deee3fb0', message: 'a', links: link(`${BASE}/commits/6f161a7bced94430ac8947d87dbf45c6deee3fb0`) };
  await expectPosted(
    await hook('bitbucket2', push(branchChange(Array(5).fill(a), { links: link(compare), truncated: true }))),
    BRANCH_TOPIC,
    `Tomasz [pushed](${compare}) 5 commits to branch master.\n\n${`* a ([6f161a7bced](${BASE}/commits/6f161a7bced94430ac8947d87dbf45c6deee3fb0))\n`.repeat(5)}[and more commit(s)]`,
  );
  const forced = branchChange([], { forced: true, new: { type: 'branch', name: 'master', target: { hash: '25f93d22b719e2d678a7ad5ee0ef0d1fcdf39c12' } } });
  await expectPosted(
    await hook('bitbucket2', push(forced), { query: { branches: 'master,development' } }),
    BRANCH_TOPIC,
    `Tomasz [force pushed](${BASE}/branch/master) to branch master. Head is now 25f93d22b719e2d678a7ad5ee0ef0d1fcdf39c12.`,
  );
  await expectPosted(await hook('bitbucket2', push(branchChange([], { new: null }))), BRANCH_TOPIC, 'Tomasz deleted branch master.');

  // Branches the option does not name, and a push with no changes: answered, nothing posted.
  const before = await last();
  for (const payload of [push(branchChange([byTomasz])), three, ten, push(forced)]) {
    assertSuccess(await hook('bitbucket2', payload, { query: { branches: 'changes,development' } }));
  }
  assertSuccess(await hook('bitbucket2', push()));
  assert.equal((await last()).id, before.id);
});

test('bitbucket2: tags pushed and removed, each change of a push its own message; the branches option looks at the last change', async () => {
  await expectPosted(await hook('bitbucket2', push(tagChange('a'))), TOPIC, `Tomasz pushed tag [a](${BASE}/commits/tag/a).`);
  await expectPosted(await hook('bitbucket2', push(tagChange('a', true))), TOPIC, `Tomasz removed tag [a](${BASE}/commits/tag/a).`);
  await expectPosted(await hook('bitbucket2', push(tagChange('v1.0.'))), TOPIC, `Tomasz pushed tag [v1.0.](${BASE}/commits/tag/v1.0.)`);

  const twoTags = await hook('bitbucket2', push(tagChange('a'), tagChange('b')));
  assertSuccess(twoTags);
  const recent = async (n: number) => {
    const res = assertSuccess(await h.t.client(h.t.owner).get('/messages', { anchor: 'newest', num_before: n, num_after: 0, narrow: [{ operator: 'channel', operand: 'bitbucket' }], apply_markdown: false }));
    return (res.messages as Array<Record<string, any>>).map((x) => [x.subject, x.content]);
  };
  assert.deepEqual(await recent(2), [
    [TOPIC, `Tomasz pushed tag [a](${BASE}/commits/tag/a).`],
    [TOPIC, `Tomasz pushed tag [b](${BASE}/commits/tag/b).`],
  ]);
  // A branch and then a tag: the last change is a tag, so the option holds nothing back.
  for (const branches of [undefined, 'master,development', 'changes,development']) {
    assertSuccess(await hook('bitbucket2', push(branchChange([byTomasz]), tagChange('a')), { query: branches ? { branches } : {} }));
    assert.deepEqual(await recent(2), [
      [BRANCH_TOPIC, `${pushed(1)}\n\n${ROW}`],
      [TOPIC, `Tomasz pushed tag [a](${BASE}/commits/tag/a).`],
    ]);
  }
  // Whole names only: "mastery" does not name "master"; spaces around names do not count.
  const beforeMastery = await last();
  assertSuccess(await hook('bitbucket2', push(branchChange([byTomasz])), { query: { branches: 'mastery' } }));
  assert.equal((await last()).id, beforeMastery.id);
  await expectPosted(await hook('bitbucket2', push(branchChange([byTomasz])), { query: { branches: 'dev , master' } }), BRANCH_TOPIC, `${pushed(1)}\n\n${ROW}`);
});

test('bitbucket2: forks, commit comments and build statuses, issues, with a topic given the title named', async () => {
  const fork = { name: 'repository-name2', full_name: 'kolaszek/repository-name2', links: link('https://bitbucket.org/kolaszek/repository-name2') };
  await expectPosted(
    await hook('bitbucket2', { actor: TOMASZ, repository: REPO, fork }),
    TOPIC,
    'Tomasz forked the repository into [kolaszek/repository-name2](https://bitbucket.org/kolaszek/repository-name2).',
  );
  const c = '32c4ea19aa3af10acd08e419e2c354941a365d74';
  const comment = {
    content: { raw: 'Nice fix!' },
    links: link(`${BASE}/commits/${c}#comment-3354963`),
    commit: { hash: c, links: link(`${BASE}/commits/${c}`) },
  };
  await expectPosted(
    await hook('bitbucket2', { actor: TOMASZ, repository: REPO, comment, commit: { hash: c } }),
    TOPIC,
    `Tomasz [commented](${BASE}/commits/${c}#comment-3354963) on [32c4ea19aa3](${BASE}/commits/${c}):\n~~~ quote\nNice fix!\n~~~`,
  );
  const status = {
    key: 'mybuildtool',
    url: 'https://my-build-tool.com/builds/MY-PROJECT/BUILD-777',
    state: 'SUCCESSFUL',
    links: { commit: { href: 'https://api.bitbucket.org/2.0/repositories/kolaszek/repository-name/commit/9fec847784abb10b2fa567ee63b85bd238955d0e' } },
  };
  await expectPosted(
    await hook('bitbucket2', { actor: TOMASZ, repository: REPO, commit_status: status }),
    TOPIC,
    `[System mybuildtool](https://my-build-tool.com/builds/MY-PROJECT/BUILD-777) changed status of [9fec847784a](${BASE}/commits/9fec847784abb10b2fa567ee63b85bd238955d0e) to SUCCESSFUL.`,
  );

  const issue = { id: 1, title: 'Bug', assignee: TOMASZ, content: { raw: 'Such a bug' }, links: link(`${BASE}/issues/2/bug`) };
  const created = { actor: TOMASZ, repository: REPO, issue };
  await expectPosted(await hook('bitbucket2', created), ISSUE_TOPIC, `Tomasz created [issue #1](${BASE}/issues/2/bug) (assigned to Tomasz):\n\n~~~ quote\nSuch a bug\n~~~`);
  await expectPosted(
    await hook('bitbucket2', created, { query: { topic: 'notifications' } }),
    'notifications',
    `Tomasz created [issue #1 Bug](${BASE}/issues/2/bug) (assigned to Tomasz):\n\n~~~ quote\nSuch a bug\n~~~`,
  );
  await expectPosted(
    await hook('bitbucket2', { ...created, issue: { ...issue, assignee: null, content: { raw: '' } } }),
    ISSUE_TOPIC,
    `Tomasz created [issue #1](${BASE}/issues/2/bug).`,
  );
  await expectPosted(await hook('bitbucket2', { ...created, changes: { status: { old: 'new', new: 'open' } } }), ISSUE_TOPIC, `Tomasz updated [issue #1](${BASE}/issues/2/bug).`);
  const commented = { ...created, comment: { links: link(`${BASE}/issues/2#comment-28973596`) } };
  await expectPosted(await hook('bitbucket2', commented), ISSUE_TOPIC, `Tomasz [commented](${BASE}/issues/2#comment-28973596) on [issue #1](${BASE}/issues/2/bug).`);
  await expectPosted(
    await hook('bitbucket2', commented, { query: { topic: 'notifications' } }),
    'notifications',
    `Tomasz [commented](${BASE}/issues/2#comment-28973596) on [issue #1 Bug](${BASE}/issues/2/bug).`,
  );
});

test('bitbucket2: pull requests by X-Event-Key (created, updated, approvals, merged, declined, comments), with a topic given the title named', async () => {
  const pr = {
    id: 1,
    title: 'new commit',
    description: 'description',
    reviewers: [{ display_name: 'Tomasz Kolek' }],
    source: { branch: { name: 'new-branch' } },
    destination: { branch: { name: 'master' } },
    links: link(`${BASE}/pull-requests/1`),
  };
  const body = { actor: TOMASZ, repository: REPO, pullrequest: pr };
  const url = `${BASE}/pull-requests/1`;
  const m = await expectPosted(
    await hook('bitbucket2', body, event('pullrequest:created')),
    PR_TOPIC,
    `Tomasz created [PR #1](${url}) from \`new-branch\` to \`master\` (assigned to Tomasz Kolek):\n\n~~~ quote\ndescription\n~~~`,
  );
  assert.equal(m.client, 'ZulipBitbucket2Webhook');
  await expectPosted(
    await hook('bitbucket2', body, { ...event('pullrequest:created'), query: { topic: 'notifications' } }),
    'notifications',
    `Tomasz created [PR #1 new commit](${url}) from \`new-branch\` to \`master\` (assigned to Tomasz Kolek):\n\n~~~ quote\ndescription\n~~~`,
  );
  await expectPosted(await hook('bitbucket2', body, event('pullrequest:updated')), PR_TOPIC, `Tomasz updated [PR #1](${url}) (assigned to Tomasz Kolek):\n\n~~~ quote\ndescription\n~~~`);
  await expectPosted(
    await hook('bitbucket2', { ...body, pullrequest: { ...pr, reviewers: [], description: '' } }, event('pullrequest:created')),
    PR_TOPIC,
    `Tomasz created [PR #1](${url}) from \`new-branch\` to \`master\`.`,
  );
  await expectPosted(await hook('bitbucket2', body, event('pullrequest:approved')), PR_TOPIC, `Tomasz approved [PR #1](${url}).`);
  await expectPosted(
    await hook('bitbucket2', body, { ...event('pullrequest:approved'), query: { topic: 'notifications' } }),
    'notifications',
    `Tomasz approved [PR #1 new commit](${url}).`,
  );
  await expectPosted(await hook('bitbucket2', body, event('pullrequest:unapproved')), PR_TOPIC, `Tomasz unapproved [PR #1](${url}).`);
  await expectPosted(await hook('bitbucket2', body, event('pullrequest:rejected')), PR_TOPIC, `Tomasz rejected [PR #1](${url}).`);
  await expectPosted(await hook('bitbucket2', body, event('pullrequest:fulfilled')), PR_TOPIC, `Tomasz merged [PR #1](${url}) from \`new-branch\` to \`master\`.`);

  const onPr3 = { ...body, pullrequest: { ...pr, links: link(`${BASE}/pull-requests/3`) }, comment: { content: { raw: 'Comment1' }, links: link(`${BASE}/pull-requests/3/_/diff#comment-20576503`) } };
  const c = `${BASE}/pull-requests/3/_/diff#comment-20576503`;
  await expectPosted(
    await hook('bitbucket2', onPr3, event('pullrequest:comment_created')),
    PR_TOPIC,
    `Tomasz [commented](${c}) on [PR #1](${BASE}/pull-requests/3):\n\n~~~ quote\nComment1\n~~~`,
  );
  await expectPosted(
    await hook('bitbucket2', onPr3, { ...event('pullrequest:comment_updated'), query: { topic: 'notifications' } }),
    'notifications',
    `Tomasz updated a [comment](${c}) on [PR #1 new commit](${BASE}/pull-requests/3):\n\n~~~ quote\nComment1\n~~~`,
  );
  await expectPosted(
    await hook('bitbucket2', onPr3, event('pullrequest:comment_deleted')),
    PR_TOPIC,
    `Tomasz deleted a [comment](${c}) on [PR #1](${BASE}/pull-requests/3):\n\n~~~ quote\nComment1\n~~~`,
  );
});

test('bitbucket2: repository changes; people named by display name, else nickname, else "Unknown user"', async () => {
  const changes = {
    website: { old: '', new: 'http://zulipchat.com' },
    name: { old: 'test-repo', new: 'new-name' },
    links: { old: null, new: null },
    language: { old: '', new: 'python' },
    full_name: { old: 'webhooktest/test-repo', new: 'webhooktest/new-name' },
    description: { old: '', new: 'Random description.' },
  };
  await expectPosted(
    await hook('bitbucket2', { actor: { nickname: 'eeshangarg' }, repository: { ...REPO, name: 'new-name' }, changes }, event('repo:updated')),
    'new-name',
    'eeshangarg changed the website of the **new-name** repo to **http://zulipchat.com**.\n' +
      'eeshangarg changed the name of the **new-name** repo from **test-repo** to **new-name**.\n' +
      'eeshangarg changed the language of the **new-name** repo to **python**.\n' +
      'eeshangarg changed the full name of the **new-name** repo from **webhooktest/test-repo** to **webhooktest/new-name**.\n' +
      'eeshangarg changed the description of the **new-name** repo to **Random description.**',
  );
  const { website: _website, ...withoutWebsite } = changes;
  assertError(
    await hook('bitbucket2', { actor: TOMASZ, repository: REPO, changes: withoutWebsite }, event('repo:updated')),
    400,
    'BAD_REQUEST',
    "payload['changes']['website'] is missing",
  );
  await expectPosted(await hook('bitbucket2', { actor: {}, repository: REPO, fork: { full_name: 'x/y', links: link('https://bitbucket.org/x/y') } }), TOPIC, 'Unknown user forked the repository into [x/y](https://bitbucket.org/x/y).');
});

test('bitbucket2: unsupported events, a missing X-Event-Key (the owner told of "BitBucket"), and the URL generator\'s entry', async () => {
  const pr = { id: 1, title: 't', links: link(`${BASE}/pull-requests/1`) };
  const res = await hook('bitbucket2', { actor: TOMASZ, repository: REPO, pullrequest: pr }, event('pullrequest:changes_request_created'));
  assert.equal(res.status, 200);
  assert.equal(res.body.result, 'error');
  assert.equal(res.body.code, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE');
  assert.equal(res.body.msg, "The 'pullrequest:changes_request_created' event isn't currently supported by the Bitbucket2 webhook; ignoring");
  const other = await hook('bitbucket2', { actor: TOMASZ, repository: REPO }, event('repo:transfer'));
  assert.equal(other.body.msg, "The 'repo:transfer' event isn't currently supported by the Bitbucket2 webhook; ignoring");

  assertError(await hook('bitbucket2', { actor: TOMASZ, repository: REPO, pullrequest: pr }), 400, 'MISSING_HTTP_EVENT_HEADER', "Missing the HTTP event header 'X-Event-Key'");
  const dm = await last([{ operator: 'is', operand: 'dm' }]);
  assert.match(dm.content, /that\nis missing the HTTP X-Event-Key header\. {2}Because this header is how\nBitBucket indicates the event type/);

  // only_events picks among the event types.
  const before = await last();
  assertSuccess(await hook('bitbucket2', { actor: TOMASZ, repository: REPO, pullrequest: { ...pr, reviewers: [], description: '', source: { branch: { name: 'a' } }, destination: { branch: { name: 'b' } } } }, { ...event('pullrequest:created'), query: { only_events: '["push"]' } }));
  assert.equal((await last()).id, before.id);

  assert.deepEqual(await h.listed('bitbucket2'), {
    name: 'bitbucket2',
    display_name: 'Bitbucket',
    all_event_types: [
      'change_commit_status',
      'pull_request_comment_created',
      'pull_request_updated',
      'pull_request_unapproved',
      'push',
      'pull_request_approved',
      'pull_request_fulfilled',
      'issue_created',
      'issue_commented',
      'fork',
      'pull_request_comment_updated',
      'pull_request_created',
      'pull_request_rejected',
      'repo:updated',
      'issue_updated',
      'commit_comment',
      'pull_request_comment_deleted',
    ],
    config_options: [],
    url_options: [{ key: 'branches', label: '', validator: 'check_string' }],
  });
});

// ---------------------------------------------------------------------------
// Bitbucket Server (bitbucket3)

const SERVER = 'http://139.59.64.214:7990';
const serverUser = (name: string) => ({ name, displayName: name === 'hypro999' ? 'Hemanth V. Alluri' : name, links: { self: [{ href: `${SERVER}/users/${name}` }] } });
const HYPRO = `[hypro999](${SERVER}/users/hypro999)`;
const ZURA = `[zura](${SERVER}/users/zura)`;
const SANDBOX = { name: 'sandbox', links: { self: [{ href: `${SERVER}/projects/SBOX/repos/sandbox/browse` }] } };
const server = (eventKey: string, body: Record<string, unknown>, actor = 'hypro999') => ({ eventKey, actor: serverUser(actor), repository: SANDBOX, ...body });
const ref = (displayId: string, type = 'BRANCH') => ({ id: `refs/${type === 'TAG' ? 'tags' : 'heads'}/${displayId}`, displayId, type });
const pullRequest = (id: number, title: string, over: Record<string, unknown> = {}) => ({
  id,
  title,
  links: { self: [{ href: `${SERVER}/projects/SBOX/repos/sandbox/pull-requests/${id}` }] },
  fromRef: { displayId: 'master' },
  toRef: { displayId: 'master', repository: { name: 'sandbox' } },
  reviewers: [],
  ...over,
});
const reviewer = (name: string) => ({ user: serverUser(name) });
const prUrl = (id: number) => `${SERVER}/projects/SBOX/repos/sandbox/pull-requests/${id}`;

test('bitbucket3: the ping, commit comments, forks, a new name, and pushes of branches and tags (the branches option)', async () => {
  const m = await expectPosted(await hook('bitbucket3', { test: true }, event('diagnostics:ping')), 'Bitbucket Server Ping', 'Congratulations! The Bitbucket Server webhook was configured successfully!');
  assert.equal(m.client, 'ZulipBitbucket3Webhook');
  await expectPosted(await hook('bitbucket3', { test: true }, { ...event('diagnostics:ping'), query: { topic: 'my topic' } }), 'my topic', 'Congratulations! The Bitbucket Server webhook was configured successfully!');

  const sha = '508d1b67f1f8f3a25f543a030a7a178894aa9907';
  const commitUrl = `${SERVER}/projects/SBOX/repos/sandbox/commits/${sha}`;
  const comment = (key: string, text: string) => server(key, { commit: sha, comment: { text } });
  await expectPosted(await hook('bitbucket3', comment('repo:comment:added', 'Just an arbitrary comment on a commit.')), 'sandbox', `${HYPRO} commented on [508d1b67f1f](${commitUrl}):\n~~~ quote\nJust an arbitrary comment on a commit.\n~~~`);
  await expectPosted(await hook('bitbucket3', comment('repo:comment:edited', 'Nothing to see here...')), 'sandbox', `${HYPRO} edited their comment on [508d1b67f1f](${commitUrl}):\n~~~ quote\nNothing to see here...\n~~~`);
  await expectPosted(await hook('bitbucket3', comment('repo:comment:deleted', 'Nothing to see here...')), 'sandbox', `${HYPRO} deleted their comment on [508d1b67f1f](${commitUrl}):\n~~~ quote\n~~Nothing to see here...~~\n~~~`);

  const fork = { name: 'sandbox fork', links: { self: [{ href: `${SERVER}/users/hypro999/repos/sandbox-fork/browse` }] }, origin: SANDBOX };
  await expectPosted(
    await hook('bitbucket3', server('repo:forked', { repository: fork })),
    'sandbox',
    `User Hemanth V. Alluri(login: ${HYPRO}) forked the repository into [sandbox fork](${SERVER}/users/hypro999/repos/sandbox-fork/browse).`,
  );
  await expectPosted(
    await hook('bitbucket3', server('repo:modified', { old: { name: 'sandbox' }, new: { name: 'sandbox v2' } })),
    'sandbox v2',
    `${HYPRO} changed the name of the **sandbox** repo from **sandbox** to **sandbox v2**.`,
  );

  const refs = (...changes: unknown[]) => server('repo:refs_changed', { changes });
  await expectPosted(await hook('bitbucket3', refs({ ref: ref('branch2'), type: 'ADD', toHash: 'a' })), 'sandbox / branch2', `${HYPRO} created branch2 branch.`);
  await expectPosted(await hook('bitbucket3', refs({ ref: ref('branch2'), type: 'DELETE', toHash: '0' })), 'sandbox / branch2', `${HYPRO} deleted branch branch2.`);
  await expectPosted(await hook('bitbucket3', refs({ ref: ref('newtag', 'TAG'), type: 'ADD', toHash: 'a' })), 'sandbox', `${HYPRO} pushed tag newtag.`);
  await expectPosted(await hook('bitbucket3', refs({ ref: ref('test-tag', 'TAG'), type: 'DELETE', toHash: '0' })), 'sandbox', `${HYPRO} removed tag test-tag.`);
  const two = refs({ ref: ref('branch1'), type: 'UPDATE', toHash: '3980c2be32a7e23c795741d5dc1a2eecb9b85d6d' }, { ref: ref('master'), type: 'UPDATE', toHash: 'fc43d13cff1abb28631196944ba4fc4ad06a2cf2' });
  const branch1 = `${HYPRO} pushed to branch branch1. Head is now 3980c2be32a7e23c795741d5dc1a2eecb9b85d6d.`;
  const master = `${HYPRO} pushed to branch master. Head is now fc43d13cff1abb28631196944ba4fc4ad06a2cf2.`;
  assertSuccess(await hook('bitbucket3', two));
  const recent = assertSuccess(await h.t.client(h.t.owner).get('/messages', { anchor: 'newest', num_before: 2, num_after: 0, narrow: [{ operator: 'channel', operand: 'bitbucket' }], apply_markdown: false }));
  assert.deepEqual(
    (recent.messages as Array<Record<string, any>>).map((x) => [x.subject, x.content]),
    [
      ['sandbox / branch1', branch1],
      ['sandbox / master', master],
    ],
  );
  await expectPosted(await hook('bitbucket3', two, { query: { branches: 'master' } }), 'sandbox / master', master);
  await expectPosted(await hook('bitbucket3', two, { query: { branches: 'branch1' } }), 'sandbox / branch1', branch1);
});

test('bitbucket3: pull requests opened (reviewers, description), modified, deleted, declined, merged, reviews and comments; a topic given names the title', async () => {
  const pr1 = pullRequest(1, 'Branch1', { fromRef: { displayId: 'branch1' }, description: '* Add file2.txt\n* Add file3.txt' });
  await expectPosted(
    await hook('bitbucket3', server('pr:opened', { pullRequest: pr1 })),
    'sandbox / PR #1 Branch1',
    `${HYPRO} opened [PR #1](${prUrl(1)}) from \`branch1\` to \`master\`:\n\n~~~ quote\n* Add file2.txt\n* Add file3.txt\n~~~`,
  );
  await expectPosted(await hook('bitbucket3', server('pr:opened', { pullRequest: pullRequest(2, 'Add notes feature.') })), 'sandbox / PR #2 Add notes feature.', `${HYPRO} opened [PR #2](${prUrl(2)}) from \`master\` to \`master\`.`);
  const pr5 = pullRequest(5, 'Add Notes Feature', { reviewers: [reviewer('shimura'), reviewer('sougo')], description: null });
  const reviewers2 = `[shimura](${SERVER}/users/shimura) and [sougo](${SERVER}/users/sougo)`;
  await expectPosted(await hook('bitbucket3', server('pr:opened', { pullRequest: pr5 })), 'sandbox / PR #5 Add Notes Feature', `${HYPRO} opened [PR #5](${prUrl(5)}) from \`master\` to \`master\` (assigned reviewers: ${reviewers2}).`);
  await expectPosted(
    await hook('bitbucket3', server('pr:opened', { pullRequest: pr5 }), { query: { topic: 'custom_topic' } }),
    'custom_topic',
    `${HYPRO} opened [PR #5 Add Notes Feature](${prUrl(5)}) from \`master\` to \`master\` (assigned reviewers: ${reviewers2}).`,
  );
  const pr6 = pullRequest(6, 'sample_file: Add sample_file.txt.', { reviewers: [reviewer('sougo'), reviewer('zura'), reviewer('shimura')], description: 'Add a simple text file.' });
  const topic6 = 'sandbox / PR #6 sample_file: Add sample_file.txt.';
  await expectPosted(
    await hook('bitbucket3', server('pr:opened', { pullRequest: pr6 })),
    topic6,
    `${HYPRO} opened [PR #6](${prUrl(6)}) from \`master\` to \`master\` (assigned reviewers: [sougo](${SERVER}/users/sougo), ${ZURA} and [shimura](${SERVER}/users/shimura)):\n\n~~~ quote\nAdd a simple text file.\n~~~`,
  );
  const modified = { ...pr1, reviewers: [reviewer('shimura')], description: 'Both files!' };
  await expectPosted(await hook('bitbucket3', server('pr:modified', { pullRequest: modified })), 'sandbox / PR #1 Branch1', `${HYPRO} modified [PR #1](${prUrl(1)}) (assigned reviewers: [shimura](${SERVER}/users/shimura)):\n\n~~~ quote\nBoth files!\n~~~`);
  await expectPosted(await hook('bitbucket3', server('pr:deleted', { pullRequest: pullRequest(2, 'Add notes feature.') })), 'sandbox / PR #2 Add notes feature.', `${HYPRO} deleted [PR #2](${prUrl(2)}).`);
  await expectPosted(await hook('bitbucket3', server('pr:deleted', { pullRequest: pullRequest(2, 'Add notes feature.') }), { query: { topic: 'custom_topic' } }), 'custom_topic', `${HYPRO} deleted [PR #2 Add notes feature.](${prUrl(2)})`);
  await expectPosted(await hook('bitbucket3', server('pr:declined', { pullRequest: pullRequest(7, 'Crazy Idea') }, 'zura')), 'sandbox / PR #7 Crazy Idea', `${ZURA} declined [PR #7](${prUrl(7)}).`);
  await expectPosted(await hook('bitbucket3', server('pr:merged', { pullRequest: pr6 }, 'zura')), topic6, `${ZURA} merged [PR #6](${prUrl(6)}) from \`master\` to \`master\`.`);
  await expectPosted(await hook('bitbucket3', server('pr:reviewer:approved', { pullRequest: pr6 }, 'zura')), topic6, `${ZURA} approved [PR #6](${prUrl(6)}).`);
  await expectPosted(await hook('bitbucket3', server('pr:reviewer:unapproved', { pullRequest: pr6 }, 'zura')), topic6, `${ZURA} unapproved [PR #6](${prUrl(6)}).`);
  await expectPosted(await hook('bitbucket3', server('pr:reviewer:needs_work', { pullRequest: pr6 }, 'zura')), topic6, `${ZURA} marked [PR #6](${prUrl(6)}) as "needs work".`);
  await expectPosted(
    await hook('bitbucket3', server('pr:reviewer:needs_work', { pullRequest: pr6 }, 'zura'), { query: { topic: 'custom_topic' } }),
    'custom_topic',
    `${ZURA} marked [PR #6 sample_file: Add sample_file.txt.](${prUrl(6)}) as "needs work".`,
  );
  await expectPosted(await hook('bitbucket3', server('pr:reviewer:updated', { pullRequest: { ...pr1, reviewers: [reviewer('shimura')] } })), 'sandbox / PR #1 Branch1', `${HYPRO} reassigned [PR #1](${prUrl(1)}) to [shimura](${SERVER}/users/shimura).`);
  await expectPosted(
    await hook('bitbucket3', server('pr:reviewer:updated', { pullRequest: { ...pr1, reviewers: [reviewer('shimura'), reviewer('sougo')] } }), { query: { topic: 'custom_topic' } }),
    'custom_topic',
    `${HYPRO} reassigned [PR #1 Branch1](${prUrl(1)}) to ${reviewers2}.`,
  );
  await expectPosted(await hook('bitbucket3', server('pr:reviewer:updated', { pullRequest: pr1 })), 'sandbox / PR #1 Branch1', `${HYPRO} removed all reviewers from [PR #1](${prUrl(1)}).`);
  await expectPosted(await hook('bitbucket3', server('pr:reviewer:updated', { pullRequest: pr1 }), { query: { topic: 'custom_topic' } }), 'custom_topic', `${HYPRO} removed all reviewers from [PR #1 Branch1](${prUrl(1)}).`);
  await expectPosted(
    await hook('bitbucket3', server('pr:reviewer:updated', { pullRequest: pullRequest(2, 'Add notes feature.') }), { query: { topic: 'custom_topic' } }),
    'custom_topic',
    `${HYPRO} removed all reviewers from [PR #2 Add notes feature.](${prUrl(2)})`,
  );
  const said = (key: string) => server(key, { pullRequest: pr6, comment: { text: 'This seems like a pretty good idea.' } }, 'zura');
  await expectPosted(await hook('bitbucket3', said('pr:comment:added')), topic6, `${ZURA} commented on [PR #6](${prUrl(6)}):\n\n~~~ quote\nThis seems like a pretty good idea.\n~~~`);
  await expectPosted(await hook('bitbucket3', said('pr:comment:edited')), topic6, `${ZURA} edited their comment on [PR #6](${prUrl(6)}):\n\n~~~ quote\nThis seems like a pretty good idea.\n~~~`);
  await expectPosted(await hook('bitbucket3', said('pr:comment:deleted')), topic6, `${ZURA} deleted their comment on [PR #6](${prUrl(6)}):\n\n~~~ quote\n~~This seems like a pretty good idea.~~\n~~~`);
});

test('bitbucket3: unsupported events and changes, the event from the header, and the URL generator\'s entry', async () => {
  const res = await hook('bitbucket3', server('pr:from_ref_updated', {}));
  assert.equal(res.status, 200);
  assert.equal(res.body.msg, "The 'pr:from_ref_updated' event isn't currently supported by the Bitbucket3 webhook; ignoring");
  const merged = await hook('bitbucket3', server('repo:refs_changed', { changes: [{ ref: ref('master'), type: 'MERGE', toHash: 'a' }] }));
  assert.equal(merged.body.msg, "The 'repo:refs_changed.MERGE' event isn't currently supported by the Bitbucket3 webhook; ignoring");
  assertError(await hook('bitbucket3', { actor: serverUser('hypro999') }), 400, 'MISSING_HTTP_EVENT_HEADER', "Missing the HTTP event header 'X-Event-Key'");
  const { eventKey: _key, ...withoutKey } = server('pr:reviewer:approved', { pullRequest: pullRequest(6, 'x') }, 'zura');
  await expectPosted(await hook('bitbucket3', withoutKey, event('pr:reviewer:approved')), 'sandbox / PR #6 x', `${ZURA} approved [PR #6](${prUrl(6)}).`);
  const listed = await h.listed('bitbucket3');
  assert.equal(listed?.display_name, 'Bitbucket Server');
  assert.equal(listed?.all_event_types.length, 19);
  assert.deepEqual(listed?.url_options, [{ key: 'branches', label: '', validator: 'check_string' }]);
});
