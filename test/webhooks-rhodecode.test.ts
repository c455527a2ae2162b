/**
 * The RhodeCode integration: Zulip's own test cases (pushes with their
 * committers, more commits than listed, a branch without commits, a
 * deleted branch, the branches option), and what is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('rhodecode');
const { hook, expectPosted, last } = h;

const REPO = 'https://code.rhodecode.com/u/yuroitaki/zulip-testing';
const YURO = 'Yuro Itaki <yuroitaki@email.com>';
const commit = (author: string, sha: string, message: string) => ({ author, raw_id: sha, message: `${message}\n`, url: `${REPO}/changeset/${sha}` });
const README = commit(YURO, '2b8c0ebf50710bc2e1cdb6a33071dd2435ad667c', 'Modify README');
const README_ROW = `* Modify README ([2b8c0ebf507](${REPO}/changeset/2b8c0ebf50710bc2e1cdb6a33071dd2435ad667c))`;
const push = (commits: unknown[], branches: string[] = ['master']) => ({
  event: { name: 'repo-push', repo: { repo_name: 'u/yuroitaki/zulip-testing' }, actor: { username: 'yuroitaki' }, push: { commits, branches: branches.map((name) => ({ name })) } },
  token: '',
});

test('rhodecode: pushes, their committers and "others", more than twenty commits, a branch without commits, a deleted branch', async () => {
  const m = await expectPosted(await hook('rhodecode', push([README])), 'u/yuroitaki/zulip-testing / master', `yuroitaki pushed 1 commit to branch master. Commits by ${YURO} (1).\n\n${README_ROW}`);
  assert.equal(m.client, 'ZulipRhodeCodeWebhook');
  const add = commit('Itachi Sensei <itachisensei@email.com>', 'b0d892e1cdd4236b1f74debca1772ea330ff5acd', 'Add test.py');
  const modify = commit(YURO, '6dbae5f842f80ccb05508a1de7aace9d0f327473', 'Modify test.py');
  const addRow = `* Add test.py ([b0d892e1cdd](${REPO}/changeset/b0d892e1cdd4236b1f74debca1772ea330ff5acd))`;
  const modifyRow = `* Modify test.py ([6dbae5f842f](${REPO}/changeset/6dbae5f842f80ccb05508a1de7aace9d0f327473))`;
  await expectPosted(
    await hook('rhodecode', push([add, modify])),
    'u/yuroitaki/zulip-testing / master',
    `yuroitaki pushed 2 commits to branch master. Commits by Itachi Sensei <itachisensei@email.com> (1) and ${YURO} (1).\n\n${addRow}\n${modifyRow}`,
  );
  const jonas = { ...modify, author: 'Jonas Nielsen <jonasnielsen@email.com>' };
  const other = { ...modify, author: 'Someone Else <else@email.com>' };
  await expectPosted(
    await hook('rhodecode', push([add, modify, jonas, other, modify, add])),
    'u/yuroitaki/zulip-testing / master',
    `yuroitaki pushed 6 commits to branch master. Commits by Itachi Sensei <itachisensei@email.com> (2), ${YURO} (2), Jonas Nielsen <jonasnielsen@email.com> (1) and others (1).\n\n${addRow}\n${modifyRow}\n${modifyRow}\n${modifyRow}\n${modifyRow}\n${addRow}`,
  );
  await expectPosted(
    await hook('rhodecode', push(Array(50).fill(README))),
    'u/yuroitaki/zulip-testing / master',
    `yuroitaki pushed 50 commits to branch master. Commits by ${YURO} (50).\n\n${`${README_ROW}\n`.repeat(20)}[and 30 more commit(s)]`,
  );
  await expectPosted(await hook('rhodecode', push([], ['dev'])), 'u/yuroitaki/zulip-testing / dev', 'yuroitaki pushed the branch dev.');
  const deleted = { author: YURO, raw_id: 'delete_branch=>dev', message: 'Deleted branch dev', url: `${REPO}/changeset/delete_branch=%3Edev` };
  await expectPosted(
    await hook('rhodecode', push([deleted], [])),
    'u/yuroitaki/zulip-testing / dev',
    `yuroitaki pushed 1 commit to branch dev. Commits by ${YURO} (1).\n\n* Deleted branch dev ([delete_bran](${REPO}/changeset/delete_branch=%3Edev))`,
  );
});

test('rhodecode: the branches option; other events; malformed payloads; the URL generator\'s entry', async () => {
  await expectPosted(await hook('rhodecode', push([README]), { query: { branches: 'master,dev' } }), 'u/yuroitaki/zulip-testing / master', `yuroitaki pushed 1 commit to branch master. Commits by ${YURO} (1).\n\n${README_ROW}`);
  const before = await last();
  assertSuccess(await hook('rhodecode', push([README]), { query: { branches: 'development' } }));
  assert.equal((await last()).id, before.id);
  const res = await hook('rhodecode', { event: { name: 'pullrequest-create', repo: { repo_name: 'r' } } });
  assert.equal(res.status, 200);
  assert.equal(res.body.msg, "The 'pullrequest-create' event isn't currently supported by the RhodeCode webhook; ignoring");
  assertError(await hook('rhodecode', push([{ ...README, raw_id: 'abc' }], [])), 400, 'BAD_REQUEST', "payload['event']['push']['commits'][0]['raw_id'] does not name a deleted branch");
  assertError(await hook('rhodecode', push([], [])), 400, 'BAD_REQUEST', "payload['event']['push']['commits'][0] is missing");
  const listed = await h.listed('rhodecode');
  assert.equal(listed?.display_name, 'RhodeCode');
  assert.deepEqual(listed?.url_options, [{ key: 'branches', label: '', validator: 'check_string' }]);
});
