/**
 * The Jira integration: Zulip's own test cases (payloads trimmed to what is
 * read), Jira's wiki markup in comments, people looked up among the
 * organization's accounts, the URL's parameters decoded once more, ignored
 * and unknown events, and Zulip's errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';
import { convertJiraMarkup } from '../src/lib/integrations/jira.ts';

const h = webhookHarness('jira');
const { hook, expectPosted } = h;

const OTHELLO = 'Othello, the Moor of Venice';
/** The account Jira's address othello@example.net stands for (made once, by the first test that needs it). */
let othello: Promise<unknown> | undefined;
const withOthello = () => (othello ??= h.t.makeUser({ name: OTHELLO, email: 'othello@example.net' }));

const BUG15 = {
  self: 'http://lfranchi.com:8080/rest/api/2/issue/10400',
  key: 'BUG-15',
  fields: { summary: 'New bug with hook', priority: { name: 'Major' }, assignee: null as unknown },
};
const LEO = { displayName: 'Leo Franchi', emailAddress: 'othello@example.net' };
const BUG15_LINK = '[BUG-15: New bug with hook](http://lfranchi.com:8080/browse/BUG-15)';
const withAssignee = (email: string) => ({ ...BUG15, fields: { ...BUG15.fields, assignee: { displayName: 'Leo Franchi', emailAddress: email } } });
const COMMENT = 'Adding a comment. Oh, what a comment it is!';

test('jira: issues created (with and without an assignee, Unicode) and deleted', async () => {
  const created = { webhookEvent: 'jira:issue_created', user: LEO, issue: BUG15 };
  const text = `Leo Franchi created ${BUG15_LINK}:\n\n* **Priority**: Major\n* **Assignee**: no one`;
  await expectPosted(await hook('jira', created), 'BUG-15: New bug with hook', text);
  // A priority missing is left empty, as Zulip's get_in does.
  const noPriority = { ...created, issue: { ...BUG15, fields: { summary: 'New bug with hook' } } };
  await expectPosted(await hook('jira', noPriority), 'BUG-15: New bug with hook', text.replace('Major', ''));
  const unicode = { webhookEvent: 'jira:issue_created', user: { displayName: 'Leo Franchi\u00e0' }, issue: { ...BUG15, fields: { ...BUG15.fields, summary: 'New bug with \u00e0 hook' } } };
  await expectPosted(
    await hook('jira', unicode),
    'BUG-15: New bug with \u00e0 hook',
    'Leo Franchi\u00e0 created [BUG-15: New bug with \u00e0 hook](http://lfranchi.com:8080/browse/BUG-15):\n\n* **Priority**: Major\n* **Assignee**: no one',
  );
  const assigned = {
    webhookEvent: 'jira:issue_created',
    user: { displayName: 'Leonardo Franchi [Administrator]' },
    issue: { self: 'https://zulipp.atlassian.net/rest/api/2/issue/10006', key: 'TEST-4', fields: { summary: 'Test Created Assignee', priority: { name: 'Major' }, assignee: { displayName: 'Leonardo Franchi [Administrator]' } } },
  };
  await expectPosted(
    await hook('jira', assigned),
    'TEST-4: Test Created Assignee',
    'Leonardo Franchi [Administrator] created [TEST-4: Test Created Assignee](https://zulipp.atlassian.net/browse/TEST-4):\n\n* **Priority**: Major\n* **Assignee**: Leonardo Franchi [Administrator]',
  );
  await expectPosted(await hook('jira', { webhookEvent: 'jira:issue_deleted', user: LEO, issue: BUG15 }), 'BUG-15: New bug with hook', `Leo Franchi deleted ${BUG15_LINK}.`);
  // No full stop after a title that ends with punctuation.
  const asked = { ...BUG15, fields: { ...BUG15.fields, summary: 'Why?' } };
  await expectPosted(await hook('jira', { webhookEvent: 'jira:issue_deleted', user: LEO, issue: asked }), 'BUG-15: Why?', 'Leo Franchi deleted [BUG-15: Why?](http://lfranchi.com:8080/browse/BUG-15)');
});

test('jira: issues updated: comments (the assignee found by address), changes from the changelog, a transition', async () => {
  await withOthello();
  const commented = { webhookEvent: 'jira:issue_updated', issue_event_type_name: 'issue_commented', user: LEO, issue: withAssignee('othello@example.net'), comment: { body: COMMENT } };
  const quoted = `\n\n\`\`\` quote\n${COMMENT}\n\`\`\``;
  await expectPosted(await hook('jira', commented), 'BUG-15: New bug with hook', `Leo Franchi commented on ${BUG15_LINK} (assigned to **${OTHELLO}**):${quoted}`);
  // The address is matched in any case; an older Jira names no sub-event but sends the comment.
  const { issue_event_type_name: _s, ...v1 } = commented;
  await expectPosted(await hook('jira', { ...v1, issue: withAssignee('OTHELLO@example.net') }), 'BUG-15: New bug with hook', `Leo Franchi commented on ${BUG15_LINK} (assigned to **${OTHELLO}**):${quoted}`);
  await expectPosted(
    await hook('jira', { ...commented, issue_event_type_name: 'issue_comment_edited' }),
    'BUG-15: New bug with hook',
    `Leo Franchi edited a comment on ${BUG15_LINK} (assigned to **${OTHELLO}**):${quoted}`,
  );
  const deleted = {
    webhookEvent: 'jira:issue_updated',
    issue_event_type_name: 'issue_comment_deleted',
    user: { displayName: 'Tomasz Kolek' },
    issue: { self: 'https://zuliptomek.atlassian.net/rest/api/2/issue/10000', key: 'TOM-1', fields: { summary: 'New Issue', assignee: { emailAddress: 'kolaszek@go2.pl' } } },
  };
  await expectPosted(
    await hook('jira', deleted),
    'TOM-1: New Issue',
    'Tomasz Kolek deleted a comment from [TOM-1: New Issue](https://zuliptomek.atlassian.net/browse/TOM-1) (assigned to **kolaszek@go2.pl**).',
  );
  const links = { ...commented, comment: { body: 'This is the [first link|https://google.com] and this is the [second link|https://google.com] and this is the end.' } };
  await expectPosted(
    await hook('jira', links),
    'BUG-15: New bug with hook',
    `Leo Franchi commented on ${BUG15_LINK} (assigned to **${OTHELLO}**):\n\n\`\`\` quote\nThis is the [first link](https://google.com) and this is the [second link](https://google.com) and this is the end.\n\`\`\``,
  );
  const reassigned = { webhookEvent: 'jira:issue_updated', user: LEO, issue: withAssignee('othello@example.net'), changelog: { items: [{ field: 'assignee', fromString: null, toString: 'Othello' }] } };
  await expectPosted(await hook('jira', reassigned), 'BUG-15: New bug with hook', `Leo Franchi updated ${BUG15_LINK} (assigned to **${OTHELLO}**):\n\n* Changed assignee to **${OTHELLO}**`);
  const test1 = (assignee: unknown) => ({ self: 'https://zulipp.atlassian.net/rest/api/2/issue/10000', key: 'TEST-1', fields: { summary: 'Fix That', assignee } });
  const admin = { displayName: 'Leonardo Franchi [Administrator]' };
  const priority = { webhookEvent: 'jira:issue_updated', user: admin, issue: test1({ emailAddress: 'leo@zulip.com' }), changelog: { items: [{ field: 'priority', fromString: 'Critical', toString: 'Major' }] } };
  await expectPosted(
    await hook('jira', priority),
    'TEST-1: Fix That',
    'Leonardo Franchi [Administrator] updated [TEST-1: Fix That](https://zulipp.atlassian.net/browse/TEST-1) (assigned to **leo@zulip.com**):\n\n* Changed priority from **Critical** to **Major**',
  );
  const status = { webhookEvent: 'jira:issue_updated', user: admin, issue: test1(null), changelog: { items: [{ field: 'status', fromString: 'To Do', toString: 'In Progress' }] } };
  const statusText = 'Leonardo Franchi [Administrator] updated [TEST-1: Fix That](https://zulipp.atlassian.net/browse/TEST-1):\n\n* Changed status from **To Do** to **In Progress**';
  await expectPosted(await hook('jira', status), 'TEST-1: Fix That', statusText);
  // A transition without webhookEvent (an old Jira plugin) is an update.
  const transition = { user: admin, issue: test1(null), transition: { from_status: 'To Do', to_status: 'In Progress' } };
  await expectPosted(await hook('jira', transition), 'TEST-1: Fix That', statusText);
});

test("jira: wiki markup in comments, and mentions looked up among the organization's accounts", async () => {
  const body =
    'This is a comment that likes to *exercise* a lot of _different_ {{conventions}} that {{jira uses}}.\r\n\r\n{noformat}\r\nthis code is not highlighted, but monospaced\r\n{noformat}\r\n\r\n{code:python}\r\ndef python():\r\n    print "likes to be formatted"\r\n{code}\r\n\r\n[http://www.google.com] is a bare link, and [Google|http://www.google.com] is given a title.\r\n\r\nThanks!\r\n\r\n{quote}\r\nSomeone said somewhere\r\n{quote}';
  const markup = {
    webhookEvent: 'jira:issue_updated',
    user: { displayName: 'Leonardo Franchi [Administrator]' },
    issue: { self: 'https://zulipp.atlassian.net/rest/api/2/issue/10100', key: 'TEST-7', fields: { summary: 'Testing of rich text', assignee: null } },
    comment: { body },
  };
  // Zulip's expected text, Jira's line ends kept.
  await expectPosted(
    await hook('jira', markup),
    'TEST-7: Testing of rich text',
    'Leonardo Franchi [Administrator] commented on [TEST-7: Testing of rich text](https://zulipp.atlassian.net/browse/TEST-7):\n\n``` quote\nThis is a comment that likes to **exercise** a lot of _different_ `conventions` that `jira uses`.\r\n\r\n~~~\n\r\nthis code is not highlighted, but monospaced\r\n\n~~~\r\n\r\n~~~\n\r\ndef python():\r\n    print "likes to be formatted"\r\n\n~~~\r\n\r\n[http://www.google.com](http://www.google.com) is a bare link, and [Google](http://www.google.com) is given a title.\r\n\r\nThanks!\r\n\r\n~~~ quote\n\r\nSomeone said somewhere\r\n\n~~~\n```',
  );
  const users = [
    { id: 1, full_name: 'Iago', email: 'iago@example.net', delivery_email: 'iago@example.net', is_active: true, is_system_bot: false },
    { id: 2, full_name: 'Gone', email: 'gone@example.net', delivery_email: 'gone@example.net', is_active: false, is_system_bot: false },
    { id: 3, full_name: 'Othello', email: 'othello@example.net', delivery_email: 'othello@example.net', is_active: true, is_system_bot: false },
  ];
  assert.equal(convertJiraMarkup('[~iago] [~IAGO] [~othe] [~gone] [~nobody] bq. quoted', users), '**Iago** **Iago** **Othello** **gone** **nobody** > quoted');
  // The account's name in a real message, from the server's own users.
  await withOthello();
  const mention = { webhookEvent: 'jira:issue_updated', user: LEO, issue: BUG15, comment: { body: 'Over to you, [~othello]' } };
  await expectPosted(await hook('jira', mention), 'BUG-15: New bug with hook', `Leo Franchi commented on ${BUG15_LINK}:\n\n\`\`\` quote\nOver to you, **${OTHELLO}**\n\`\`\``);
});

test('jira: the newer comment events, also without the issue', async () => {
  const comment = { author: { displayName: 'Hemanth V. Alluri' }, body: 'Sounds like it\u2019s pretty important. I\u2019ll get this fixed ASAP\\!', self: 'https://f20171170.atlassian.net/rest/api/2/issue/10000/comment/12000' };
  const issue = { self: 'https://f20171170.atlassian.net/rest/api/2/issue/10000', key: 'SP-1', fields: { summary: 'Add support for newer format Jira issue comment events' } };
  const topic = 'SP-1: Add support for newer format Jira issue comment events';
  const quote = (s: string) => `\n\`\`\` quote\n${s}\n\`\`\``;
  const said = 'Sounds like it\u2019s pretty important. I\u2019ll get this fixed ASAP!';
  const link = '[SP-1: Add support for newer format Jira issue comment events](https://f20171170.atlassian.net/browse/SP-1)';
  await expectPosted(await hook('jira', { webhookEvent: 'comment_created', comment, issue }), topic, `Hemanth V. Alluri commented on ${link}${quote(said)}`);
  await expectPosted(
    await hook('jira', { webhookEvent: 'comment_created', comment }),
    '10000: Upgrade Jira to get the issue title here.',
    `Hemanth V. Alluri commented on 10000: Upgrade Jira to get the issue title here.${quote(said)}`,
  );
  await expectPosted(await hook('jira', { webhookEvent: 'comment_updated', comment, issue }), topic, `Hemanth V. Alluri updated their comment on ${link}${quote(said)}`);
  await expectPosted(await hook('jira', { webhookEvent: 'comment_deleted', comment, issue }), topic, `Hemanth V. Alluri deleted their comment on ${link}${quote(`~~${said}~~`)}`);
});

test('jira: the channel and topic parameters decoded once more, as Jira escapes them twice', async () => {
  const owner = h.t.client(h.t.owner);
  assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'jira alerts' }] }));
  const created = { webhookEvent: 'jira:issue_created', user: LEO, issue: BUG15 };
  const text = `Leo Franchi created ${BUG15_LINK}:\n\n* **Priority**: Major\n* **Assignee**: no one`;
  const inAlerts = [{ operator: 'channel', operand: 'jira alerts' }];
  for (const stream of ['jira%20alerts', 'jira%2520alerts']) {
    assertSuccess(await hook('jira', created, { stream: decodeURIComponent(stream) }));
    const m = await h.last(inAlerts);
    assert.equal(m.content, text);
    assert.equal(m.subject, 'BUG-15: New bug with hook');
  }
  assertSuccess(await hook('jira', created, { stream: 'jira%20alerts', query: { topic: 'alerts%20test' } }));
  assert.equal((await h.last(inAlerts)).subject, 'alerts test');
  // Other integrations take the parameters as they are.
  assertSuccess(await hook('json', { a: 1 }, { query: { topic: 'alerts%20test' } }));
  assert.equal((await h.last()).subject, 'alerts%20test');
});

test('jira: ignored events, unknown ones, an anomalous payload, malformed ones; its entry for the URL generator', async () => {
  const before = (await h.last()).id;
  for (const event of ['attachment_created', 'issuelink_created', 'issuelink_deleted', 'jira:version_released', 'jira:worklog_updated', 'sprint_closed', 'sprint_started', 'worklog_created', 'worklog_updated']) {
    assertSuccess(await hook('jira', { webhookEvent: event }));
  }
  assert.equal((await h.last()).id, before);
  assertError(await hook('jira', { webhookEvent: 'jira:unknown', issue: BUG15 }), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', "The 'jira:unknown' event isn't currently supported by the Jira webhook; ignoring");
  const anomalous = await hook('jira', { ticket: 'not from Jira' });
  assertError(anomalous, 400, 'ANOMALOUS_WEBHOOK_PAYLOAD', 'Unable to parse request: Did Jira generate this event?');
  assert.equal(anomalous.body.webhook_name, 'Jira');
  assertError(await hook('jira', { webhookEvent: 'jira:issue_created', user: { displayName: null }, issue: BUG15 }), 400, 'BAD_REQUEST', "payload['user']['displayName'] is not a string");
  assertError(await hook('jira', { webhookEvent: 'comment_created', issue: BUG15 }), 400, 'BAD_REQUEST', "payload['comment'] is missing");
  assertError(await hook('jira', { webhookEvent: 'jira:issue_updated', user: LEO, issue: BUG15, changelog: { items: 'x' } }), 400, 'BAD_REQUEST', "payload['changelog']['items'] is not a list");
  assertError(await hook('jira', { webhookEvent: 7 }), 400, 'BAD_REQUEST', "payload['webhookEvent'] is not a string");
  assert.equal((await h.last()).id, before);
  assert.deepEqual(await h.listed('jira'), {
    name: 'jira',
    display_name: 'Jira',
    all_event_types: ['jira:issue_created', 'jira:issue_deleted', 'jira:issue_updated', 'comment_created', 'comment_updated', 'comment_deleted'],
    config_options: [],
    url_options: [],
  });
});
