/**
 * The Linear integration: Zulip's own test cases (payloads trimmed to what is
 * read), Linear's own follow-up updates acknowledged without a message,
 * unknown types and malformed payloads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('linear');
const { hook, expectPosted } = h;

const TEAM = { name: 'Webhooks' };
const OUTAGE =
  'The outage that occurred on the above-mentioned date is a cause for concern as it could have significant implications for the organization and its users.';
const issue = (action: string, data: Record<string, unknown>, url: string) => ({ action, type: 'Issue', url, data: { number: 42, team: TEAM, ...data } });

test('linear: issues and sub-issues created, updated and removed', async () => {
  const url42 = 'https://linear.app/webhooks/issue/WEB-42/drop-down-overflow-in-the-select-menu';
  const plain = issue('create', { title: 'Drop-down overflow in the select menu.', priorityLabel: 'High', state: { name: 'Todo' } }, url42);
  await expectPosted(await hook('linear', plain), 'Issue: Drop-down overflow in the select menu.', `[Issue](${url42}) was created in team Webhooks.\nPriority: High, Status: Todo.`);
  // A topic in the URL.
  assertSuccess(await hook('linear', plain, { query: { topic: 'notifications' } }));
  assert.equal((await h.last()).subject, 'notifications');
  const url43 = 'https://linear.app/webhooks/issue/WEB-43/very-small-font-in-tooltip';
  const described = issue('create', { title: 'Very small font in tooltip', priorityLabel: 'No priority', description: 'The tooltips are small.', state: { name: 'Todo' } }, url43);
  await expectPosted(await hook('linear', described), 'Issue: Very small font in tooltip', `[Issue](${url43}) was created in team Webhooks:\n~~~ quote\nThe tooltips are small.\n~~~\n\nStatus: Todo.`);
  const url44 = 'https://linear.app/webhooks/issue/WEB-44/this-is-regarding-the-outage';
  const complex = issue(
    'update',
    { title: 'This is regarding the outage that we faced on 11/1...', priorityLabel: 'Urgent', description: OUTAGE, assignee: { name: 'Satyam Bansal' }, state: { name: 'In Progress' } },
    url44,
  );
  await expectPosted(
    await hook('linear', complex),
    'Issue: This is regarding the outage that we faced on 11/1...',
    `[Issue](${url44}) was updated in team Webhooks:\n~~~ quote\n${OUTAGE}\n~~~\n\nPriority: Urgent, Assignee: Satyam Bansal, Status: In Progress.`,
  );
  await expectPosted(await hook('linear', issue('remove', { title: 'This is regarding the outage' }, url44)), 'Issue: This is regarding the outage', 'This issue has been removed from team Webhooks.');
  const url46 = 'https://linear.app/webhooks/issue/WEB-46/impact-analysis';
  const sub = issue('create', { title: 'Impact Analysis', parentId: 'f9a37fcf', priorityLabel: 'No priority', description: 'Examining the extent of the outage.', state: { name: 'Todo' } }, url46);
  await expectPosted(await hook('linear', sub), 'Sub-Issue: Impact Analysis', `[Sub-Issue](${url46}) was created in team Webhooks:\n~~~ quote\nExamining the extent of the outage.\n~~~\n\nStatus: Todo.`);
  await expectPosted(await hook('linear', issue('remove', { title: 'Impact Analysis', parentId: 'f9a37fcf' }, url46)), 'Sub-Issue: Impact Analysis', 'This issue has been removed from team Webhooks.');
});

test('linear: comments created, updated and removed', async () => {
  const comment = (action: string) => ({
    action,
    type: 'Comment',
    url: 'https://linear.app/webhooks/issue/WEB-46#comment-c7cafc52',
    data: { body: 'Performing a thorough impact analysis.', issue: { title: 'Thorough Impact Analysis and Cost Realization' }, user: { name: 'Satyam Bansal' } },
  });
  const topic = 'Issue: Thorough Impact Analysis and Cost Realization';
  await expectPosted(
    await hook('linear', comment('create')),
    topic,
    'Satyam Bansal [commented](https://linear.app/webhooks/issue/WEB-46#comment-c7cafc52) on issue **Thorough Impact Analysis and Cost Realization**:\n~~~ quote\nPerforming a thorough impact analysis.\n~~~',
  );
  await expectPosted(
    await hook('linear', comment('update')),
    topic,
    'Satyam Bansal [updated comment](https://linear.app/webhooks/issue/WEB-46#comment-c7cafc52) on issue **Thorough Impact Analysis and Cost Realization**:\n~~~ quote\nPerforming a thorough impact analysis.\n~~~',
  );
  await expectPosted(await hook('linear', comment('remove')), topic, 'Satyam Bansal has removed a comment.');
});

test('linear: projects created, updated (each change) and removed; status updates', async () => {
  const actor = { name: 'Dhruv Shetty' };
  const project = (action: string, name: string, url: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ action, type: 'Project', actor, url, data: { name, ...data }, ...extra });
  const zulipUrl = 'https://linear.app/zulipdhruv/project/project-zulip-a98782de01a9';
  await expectPosted(
    await hook('linear', project('create', 'Project-Zulip', zulipUrl, { description: 'This is a project for zulip', status: { name: 'Backlog' }, priority: 0 })),
    'Project: Project-Zulip',
    `Dhruv Shetty created project [Project-Zulip](${zulipUrl}):\n~~~ quote\nThis is a project for zulip\n~~~\n**Status:** Backlog`,
  );
  const zpUrl = 'https://linear.app/zulipdhruv/project/zulip-project-532c1333013b';
  const complex = project('create', 'Zulip-Project', zpUrl, {
    description: 'Summary for the Project',
    status: { name: 'Planned' },
    lead: { name: 'Dhruv Shetty' },
    priority: 1,
    startDate: '2026-05-28',
    targetDate: '2026-05-30',
    milestones: [{ name: 'Phase 1' }],
  });
  await expectPosted(
    await hook('linear', complex),
    'Project: Zulip-Project',
    `Dhruv Shetty created project [Zulip-Project](${zpUrl}):\n~~~ quote\nSummary for the Project\n**Start date:** 2026-05-28 \u2013 **Target date:** 2026-05-30\n~~~\n**Status:** Planned \u00b7 **Lead:** Dhruv Shetty \u00b7 **Priority:** Urgent\n- **Milestone:** Phase 1`,
  );
  const manhattan = 'https://linear.app/zulipdhruv/project/project-manhattan-9719af1a1893';
  await expectPosted(
    await hook('linear', project('create', 'Project-Manhattan', manhattan, { status: { name: 'Backlog' }, startDate: null })),
    'Project: Project-Manhattan',
    `Dhruv Shetty created project [Project-Manhattan](${manhattan})\n**Status:** Backlog`,
  );
  const terminal = 'https://linear.app/zulipdhruv/project/zulip-terminal-5bfd1327f54b';
  await expectPosted(
    await hook('linear', project('create', 'Zulip-terminal', terminal, { status: { name: 'Backlog' }, startDate: '2026-06-01', targetDate: '2026-06-03', milestones: [{ name: 'A' }, { name: 'B' }] })),
    'Project: Zulip-terminal',
    `Dhruv Shetty created project [Zulip-terminal](${terminal})\n**Status:** Backlog\n- **Start date:** 2026-06-01\n- **Target date:** 2026-06-03\n- **Milestones:** A, B`,
  );
  const updated = (data: Record<string, unknown>, updatedFrom: Record<string, unknown>, name = 'Zulip-Project', url = zpUrl) => project('update', name, url, data, { updatedFrom });
  const head = `Dhruv Shetty updated project [Zulip-Project](${zpUrl}).\n`;
  await expectPosted(await hook('linear', updated({ priority: 2 }, { priority: 1 })), 'Project: Zulip-Project', `${head}Priority is now set to High.`);
  await expectPosted(await hook('linear', updated({ targetDate: '2026-06-02' }, { targetDate: '2026-05-30' })), 'Project: Zulip-Project', `${head}Target date is postponed to 2026-06-02.`);
  await expectPosted(await hook('linear', updated({ targetDate: '2026-05-29' }, { targetDate: '2026-05-30' })), 'Project: Zulip-Project', `${head}Target date is preponed to 2026-05-29.`);
  await expectPosted(await hook('linear', updated({ targetDate: '2026-05-30' }, { targetDate: null })), 'Project: Zulip-Project', `${head}Target date is set to 2026-05-30.`);
  await expectPosted(await hook('linear', updated({ status: { name: 'In Progress' } }, { statusId: 'x' })), 'Project: Zulip-Project', `${head}Project status is now In Progress.`);
  await expectPosted(await hook('linear', updated({ lead: { name: 'dhruv' } }, { leadId: null })), 'Project: Zulip-Project', `${head}Dhruv is now the project lead.`);
  await expectPosted(await hook('linear', updated({}, { content: 'old' })), 'Project: Zulip-Project', `${head}Description is updated.`);
  await expectPosted(
    await hook('linear', updated({ name: 'Zulip-Project', priority: 3 }, { name: 'Old', priority: 2, content: 'x' })),
    'Project: Zulip-Project',
    `${head}Renamed to Zulip-Project, priority is now set to Medium, description is updated.`,
  );
  await expectPosted(await hook('linear', project('remove', 'Project-Zulip', zulipUrl, {})), 'Project: Project-Zulip', 'Dhruv Shetty removed project **Project-Zulip**.');
  const statusUpdate = (action: string, data: Record<string, unknown>) => ({
    action,
    type: 'ProjectUpdate',
    url: 'https://linear.app/zulipdhruv/project/project-zulip-c65c2156ca87/activity#project-update-4a0814c9',
    data: { user: { name: 'Dhruv Shetty' }, project: { name: 'Project Zulip' }, ...data },
  });
  await expectPosted(
    await hook('linear', statusUpdate('create', { health: 'atRisk', body: 'This is a project status update' })),
    'Project: Project Zulip',
    'Dhruv Shetty [posted](https://linear.app/zulipdhruv/project/project-zulip-c65c2156ca87/activity#project-update-4a0814c9) a status update on **Project Zulip** (health: At Risk):\n~~~ quote\nThis is a project status update\n~~~',
  );
  await expectPosted(
    await hook('linear', statusUpdate('update', { health: 'offTrack', body: 'There is a risk', diffMarkdown: '**Priority**: Medium' })),
    'Project: Project Zulip',
    'Dhruv Shetty [edited](https://linear.app/zulipdhruv/project/project-zulip-c65c2156ca87/activity#project-update-4a0814c9) a status update on **Project Zulip** (health: Off Track):\n~~~ quote\nThere is a risk\n~~~\n\n**Priority**: Medium',
  );
  await expectPosted(await hook('linear', statusUpdate('remove', {})), 'Project: Project Zulip', 'Dhruv Shetty removed a status update on **Project Zulip**.');
});

test("linear: Linear's own follow-up updates and other types acknowledged without a message; unknown types; malformed payloads; its entry for the URL generator", async () => {
  const before = (await h.last()).id;
  const project = (updatedFrom: Record<string, unknown>) => ({ action: 'update', type: 'Project', actor: { name: 'D' }, url: 'https://x', data: { name: 'P', targetDate: null }, updatedFrom });
  assertSuccess(await hook('linear', project({ lastUpdateId: 'x', updatedAt: 'y' })));
  assertSuccess(await hook('linear', project({ updatedAt: 'y' })));
  assertSuccess(await hook('linear', project({ targetDate: '2026-05-30' })));
  for (const type of ['IssueLabel', 'Cycle', 'Reaction']) assertSuccess(await hook('linear', { type, action: 'create' }));
  assert.equal((await h.last()).id, before);
  assertError(await hook('linear', { type: 'Document', action: 'create' }), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', "The 'Document:create' event isn't currently supported by the Linear webhook; ignoring");
  assertError(await hook('linear', { type: 'Document' }), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', "The 'Document:???' event isn't currently supported by the Linear webhook; ignoring");
  assertError(await hook('linear', { action: 'create' }), 400, 'BAD_REQUEST', "payload['type'] is missing");
  assertError(await hook('linear', { type: 'Issue', action: 'create', url: 'https://x', data: { title: 'T', number: '4', team: TEAM } }), 400, 'BAD_REQUEST', "payload['data']['number'] is not an integer");
  assertError(await hook('linear', { type: 'Comment', action: 'create', data: { issue: {} } }), 400, 'BAD_REQUEST', "payload['data']['issue']['title'] is missing");
  assertError(await hook('linear', { type: 'Project', action: 'update', actor: { name: 'D' }, url: 'https://x', data: { name: 'P' } }), 400, 'BAD_REQUEST', "payload['updatedFrom'] is missing");
  assert.equal((await h.last()).id, before);
  assert.deepEqual(await h.listed('linear'), {
    name: 'linear',
    display_name: 'Linear',
    all_event_types: ['issue', 'sub_issue', 'comment', 'project', 'project_update'],
    config_options: [],
    url_options: [],
  });
});
