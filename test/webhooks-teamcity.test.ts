/**
 * The TeamCity integration: Zulip's own test cases (payloads trimmed to
 * what is read): builds successful (also on a branch), fixed, broken, still
 * broken and started; a personal build sent directly to whoever started it
 * (found by name or by TeamCity user name, else nothing sent), under the
 * rules of the caller's direct messages; a payload of another format (the
 * owner told, the request answered with success); malformed payloads; the
 * URL generator's entry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('teamcity');
const { hook, expectPosted, last } = h;

const TOPIC = 'Project :: Compile';
const LOG = 'http://teamcity/viewLog.html?buildTypeId=Project_Compile&buildId=19952';
const LINKS = `See [changes](${LOG}&tab=buildChangesDiv) and [build log](${LOG}).`;
const PROPERTIES = [
  { name: 'DotNetFramework2.0.50727_x64_Path', value: 'C:\\Windows\\Microsoft.NET\\Framework64\\v2.0.50727' },
  { name: 'DotNetFramework2.0_x64', value: '2.0.50727' },
];
const build = (fields: Record<string, unknown>) => ({
  build: {
    buildStatus: 'Tests passed: 27',
    buildResult: 'success',
    buildResultDelta: 'unchanged',
    buildFullName: 'Project :: Compile',
    buildStatusUrl: LOG,
    buildNumber: '5535 - CL 123456',
    triggeredBy: 'Perforce',
    teamcityProperties: PROPERTIES,
    ...fields,
  },
});
const broken = { buildStatus: 'Exit code 1 (new)', buildResult: 'failure', buildResultDelta: 'broken' };
const personal = (triggeredBy: string, username: string | null) =>
  build({
    ...broken,
    triggeredBy,
    teamcityProperties: [...PROPERTIES, { name: 'env.BUILD_IS_PERSONAL', value: 'true' }, ...(username === null ? [] : [{ name: 'teamcity.build.triggeredBy.username', value: username }])],
  });
const PERSONAL_TEXT = `Your personal build for Project :: Compile build 5535 - CL 123456 is broken with status Exit code 1 (new)! :thumbs_down: ${LINKS}`;

test('teamcity: builds successful, on a branch, fixed, broken, still broken, started', async () => {
  const m = await expectPosted(await hook('teamcity', build({})), TOPIC, `Project :: Compile build 5535 - CL 123456 was successful! :thumbs_up: ${LINKS}`);
  assert.equal(m.client, 'ZulipTeamCityWebhook');
  await expectPosted(
    await hook('teamcity', build({ branchName: 'MyBranch', branchDisplayName: 'MyBranch' })),
    'Project :: Compile (MyBranch)',
    `Project :: Compile build 5535 - CL 123456 was successful! :thumbs_up: ${LINKS}`,
  );
  await expectPosted(await hook('teamcity', build({ buildResultDelta: 'fixed' })), TOPIC, `Project :: Compile build 5535 - CL 123456 has been fixed! :thumbs_up: ${LINKS}`);
  await expectPosted(await hook('teamcity', build(broken)), TOPIC, `Project :: Compile build 5535 - CL 123456 is broken with status Exit code 1 (new)! :thumbs_down: ${LINKS}`);
  await expectPosted(
    await hook('teamcity', build({ buildStatus: 'Exit code 1', buildResult: 'failure', buildResultDelta: 'unchanged' })),
    TOPIC,
    `Project :: Compile build 5535 - CL 123456 is still broken with status Exit code 1! :thumbs_down: ${LINKS}`,
  );
  await expectPosted(await hook('teamcity', build({ buildResult: 'running' })), TOPIC, `Project :: Compile build 5535 - CL 123456 has started. ${LINKS}`);
  // A property that only looks like the personal flag does not make the build personal.
  await expectPosted(
    await hook('teamcity', build({ teamcityProperties: [...PROPERTIES, { name: 'env.BUILD_IS_PERSONAL', value: 'false' }] })),
    TOPIC,
    `Project :: Compile build 5535 - CL 123456 was successful! :thumbs_up: ${LINKS}`,
  );
});

test('teamcity: a personal build goes to whoever started it, directly, by name or else by TeamCity user name', async () => {
  const iago = await h.t.makeUser({ name: 'Iago', email: 'iago@example.com' });
  const david = await h.t.makeUser({ name: 'David Payne' });
  const channelBefore = (await last()).id;
  const dmWithBot = async (who: { email: string; apiKey: string }) => {
    const res = assertSuccess(await h.t.client(who).get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'dm', operand: h.bot.email }], apply_markdown: false }));
    return res.messages[0] as Record<string, any> | undefined;
  };

  // Zulip's case: no account is named "David Payne" there; the user name "iago" starts Iago's address.
  assertSuccess(await hook('teamcity', personal('Nobody Known; MS Visual Studio', 'iago')));
  const toIago = await dmWithBot(iago);
  assert.equal(toIago?.content, PERSONAL_TEXT);
  assert.equal(toIago?.type, 'private');
  assert.equal(toIago?.sender_id, h.bot.id);
  assert.equal(toIago?.client, 'ZulipTeamCityWebhook');
  assert.deepEqual(toIago?.display_recipient.map((r: { id: number }) => r.id).sort(), [h.bot.id, iago.id].sort());

  // The name TeamCity gives (before "; <client>") comes first, in any case.
  assertSuccess(await hook('teamcity', personal('DAVID PAYNE; MS Visual Studio', 'iago')));
  assert.equal((await dmWithBot(david))?.content, PERSONAL_TEXT);
  assert.equal((await dmWithBot(iago))?.id, toIago?.id);

  // Nobody found: nothing is sent.
  assertSuccess(await hook('teamcity', personal('Nobody Known', 'nobody')));
  assertSuccess(await hook('teamcity', personal('Nobody Known', null)));
  assert.equal((await dmWithBot(iago))?.id, toIago?.id);
  assert.equal((await last()).id, channelBefore);
});

test("teamcity: a personal build's direct message follows the caller's rules for direct messages", async () => {
  const owner = h.t.client(h.t.owner);
  const rosa = await h.t.makeUser({ name: 'Rosa Builder', email: 'rosa@example.com' });
  const groups = assertSuccess(await owner.get('/user_groups')).user_groups as Array<{ id: number; name: string }>;
  const nobody = groups.find((g) => g.name === 'role:nobody')!.id;
  const everyone = groups.find((g) => g.name === 'role:everyone')!.id;
  assertSuccess(await owner.patch('/realm', { direct_message_permission_group: JSON.stringify({ new: nobody }) }));
  try {
    // A bot may send direct messages all the same.
    assertSuccess(await hook('teamcity', personal('Rosa Builder', null)));
    const dm = assertSuccess(await h.t.client(rosa).get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }], apply_markdown: false })).messages[0];
    assert.equal(dm.content, PERSONAL_TEXT);
    assert.equal(dm.sender_id, h.bot.id);
    // A person calling the URL may not.
    const caller = await h.t.makeUser({ name: 'Caller Person' });
    assertError(await hook('teamcity', personal('Rosa Builder', null), { apiKey: caller.apiKey }), 400, 'BAD_REQUEST', 'Direct messages are disabled in this organization.');
  } finally {
    assertSuccess(await owner.patch('/realm', { direct_message_permission_group: JSON.stringify({ new: everyone }) }));
  }
});

test("teamcity: a payload of another format posts nothing, and the bot's owner is told (once a day)", async () => {
  const slack = { username: 'TeamCity', attachments: [{ title: 'Failed (broken) : ${buildName}', color: 'danger' }] };
  const dm = [{ operator: 'dm', operand: 'notification-bot@zulip.com' }];
  const channelBefore = (await last()).id;
  assertSuccess(await hook('teamcity', slack));
  const notice = await last(dm);
  assert.equal(notice.sender_email, 'notification-bot@zulip.com');
  assert.equal(
    notice.content,
    "Hi there! Your bot Hook Bot just received a TeamCity payload in a\nformat that Zulip doesn't recognize. This usually indicates a\nconfiguration issue in your TeamCity webhook settings. Please make sure\n" +
      `that you set the **Payload Format** option to **Legacy Webhook (JSON)**\nin your TeamCity webhook configuration. Contact support@${new URL(h.t.url).hostname} if you\nneed further help!`,
  );
  assertSuccess(await hook('teamcity', slack));
  assert.equal((await last(dm)).id, notice.id);
  assert.equal((await last()).id, channelBefore);
});

test('teamcity: malformed payloads are refused with a 400', async () => {
  assertError(await hook('teamcity', '{"build": '), 400, 'BAD_REQUEST', 'Malformed JSON');
  assertError(await hook('teamcity', { build: null }), 400, 'BAD_REQUEST', "payload['build'] is not a dict");
  const { buildNumber: _n, ...noNumber } = build({}).build;
  assertError(await hook('teamcity', { build: noNumber }), 400, 'BAD_REQUEST', "payload['build']['buildNumber'] is missing");
  assertError(await hook('teamcity', build({ buildResult: 'unknown' })), 400, 'BAD_REQUEST', "payload['build']['buildResult'] is not one of success, failure, running");
  // The properties are read for every build, to tell a personal one.
  const { teamcityProperties: _p, ...noProperties } = build({}).build;
  assertError(await hook('teamcity', { build: noProperties }), 400, 'BAD_REQUEST', "payload['build']['teamcityProperties'] is missing");
  assertError(await hook('teamcity', build({ teamcityProperties: [{ value: 'x' }] })), 400, 'BAD_REQUEST', "payload['build']['teamcityProperties'][0]['name'] is missing");
  assertError(await hook('teamcity', build({ branchDisplayName: 7 })), 400, 'BAD_REQUEST', "payload['build']['branchDisplayName'] is not a string");
});

test('teamcity: listed for the URL generator', async () => {
  assert.deepEqual(await h.listed('teamcity'), { name: 'teamcity', display_name: 'Teamcity', all_event_types: null, config_options: [], url_options: [] });
});
