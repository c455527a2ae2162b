/**
 * The Review Board integration: Zulip's own test cases (review requests
 * published, with several reviewers, reopened and closed; reviews and
 * replies), and what is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('reviewboard');
const { hook, expectPosted, last } = h;

const RB = 'https://rbcommons.com/s/zulip';
const event = (name: string) => ({ headers: { 'X-ReviewBoard-Event': name } });
const person = (title: string) => ({ title, href: `${RB}/api/users/${title}/` });
const request = (id: number, summary: string, over: Record<string, unknown> = {}) => ({
  id,
  summary,
  description: summary,
  status: 'pending',
  branch: 'master',
  absolute_url: `${RB}/r/${id}/`,
  target_people: [person('drsbgarg')],
  links: { submitter: person('eeshangarg'), repository: { title: 'Scheduler' }, self: { href: `${RB}/api/review-requests/${id}/` } },
  ...over,
});
const FIRST = 'Initial commit (first iteration)';

test('reviewboard: review requests published (one or several reviewers, with or without a branch), reopened and closed', async () => {
  const m = await expectPosted(
    await hook('reviewboard', { review_request: request(2, 'Initial commit') }, event('review_request_published')),
    'Scheduler',
    `**eeshangarg** opened [#2: Initial commit](${RB}/r/2/):\n\n\`\`\` quote\n**Description**: Initial commit\n**Status**: pending\n**Target people**: **drsbgarg**\n**Branch**: master\n\`\`\``,
  );
  assert.equal(m.client, 'ZulipReviewBoardWebhook');
  await expectPosted(
    await hook('reviewboard', { review_request: request(2, 'Initial commit', { target_people: ['drsbgarg', 'johndoe', 'janedoe'].map(person) }) }, event('review_request_published')),
    'Scheduler',
    `**eeshangarg** opened [#2: Initial commit](${RB}/r/2/):\n\n\`\`\` quote\n**Description**: Initial commit\n**Status**: pending\n**Target people**: **drsbgarg**, **johndoe**, and **janedoe**\n**Branch**: master\n\`\`\``,
  );
  // Without a branch, Zulip's template leaves an empty line.
  await expectPosted(
    await hook('reviewboard', { review_request: request(2, 'Initial commit', { branch: null }) }, event('review_request_published')),
    'Scheduler',
    `**eeshangarg** opened [#2: Initial commit](${RB}/r/2/):\n\n\`\`\` quote\n**Description**: Initial commit\n**Status**: pending\n**Target people**: **drsbgarg**\n\n\`\`\``,
  );
  await expectPosted(
    await hook('reviewboard', { review_request: request(1, FIRST), reopened_by: { username: 'eeshangarg' } }, event('review_request_reopened')),
    'Scheduler',
    `**eeshangarg** reopened [#1: ${FIRST}](${RB}/r/1/):\n\n\`\`\` quote\n**Description**: ${FIRST}\n**Status**: pending\n**Target people**: **drsbgarg**\n**Branch**: master\n\`\`\``,
  );
  await expectPosted(
    await hook('reviewboard', { review_request: request(1, FIRST, { status: 'submitted' }), closed_by: { username: 'eeshangarg' }, close_type: 'submitted' }, event('review_request_closed')),
    'Scheduler',
    `**eeshangarg** closed [#1: ${FIRST}](${RB}/r/1/):\n\n\`\`\` quote\n**Description**: ${FIRST}\n**Status**: submitted\n**Target people**: **drsbgarg**\n**Close type**: submitted\n**Branch**: master\n\`\`\``,
  );
});

test('reviewboard: reviews and replies published', async () => {
  await expectPosted(
    await hook('reviewboard', { review: { absolute_url: `${RB}/r/1/#review651728`, body_top: 'Left some minor comments, thanks!', links: { user: person('eeshangarg') } }, review_request: request(1, FIRST) }, event('review_published')),
    'Scheduler',
    `**eeshangarg** [reviewed](${RB}/r/1/#review651728) [#1: ${FIRST}](${RB}/r/1/):\n\n**Review**:\n\`\`\` quote\nLeft some minor comments, thanks!\n\`\`\``,
  );
  const replyUrl = `${RB}/api/review-requests/1/reviews/651728/replies/651732/`;
  await expectPosted(
    await hook('reviewboard', { reply: { body_top: '', links: { self: { href: replyUrl }, user: person('drsbgarg') } }, review_request: request(1, FIRST) }, event('reply_published')),
    'Scheduler',
    `**drsbgarg** [replied](${replyUrl}) to [#1: ${FIRST}](${RB}/api/review-requests/1/):\n\n**Reply**:\n\`\`\` quote\n\n\`\`\``,
  );
});

test('reviewboard: other events, a missing header (the owner told of "Review Board"), malformed payloads; the URL generator\'s entry', async () => {
  const res = await hook('reviewboard', { review_request: request(1, FIRST) }, event('review_request_deleted'));
  assert.equal(res.status, 200);
  assert.equal(res.body.msg, "The 'review_request_deleted' event isn't currently supported by the ReviewBoard webhook; ignoring");
  assertError(await hook('reviewboard', { review_request: request(1, FIRST) }), 400, 'MISSING_HTTP_EVENT_HEADER', "Missing the HTTP event header 'X-ReviewBoard-Event'");
  assert.match((await last([{ operator: 'is', operand: 'dm' }])).content, /\nReview Board indicates the event type/);
  assertError(await hook('reviewboard', { review_request: request(1, FIRST, { target_people: [] }) }, event('review_request_published')), 400, 'BAD_REQUEST', "payload['review_request']['target_people'] is empty");
  assertError(await hook('reviewboard', { review_request: request(1, FIRST) }, event('review_request_closed')), 400, 'BAD_REQUEST', "payload['closed_by'] is missing");
  const listed = await h.listed('reviewboard');
  assert.equal(listed?.display_name, 'Review Board');
  assert.deepEqual(listed?.all_event_types, ['review_request_published', 'review_request_reopened', 'review_request_closed', 'review_published', 'reply_published']);
});
