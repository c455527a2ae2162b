/**
 * The Greenhouse integration: Zulip's own test cases (candidates hired,
 * rejected, moved to another stage, new prospects; the ping), and malformed
 * payloads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('greenhouse');
const { hook, expectPosted, last } = h;

const FORM = { contentType: 'application/x-www-form-urlencoded' };
const S3 = 'https://prod-heroku.s3.amazonaws.com/...';
const resume = { filename: 'resume.pdf', url: S3, type: 'resume' };
const event = (action: string, candidate: Record<string, unknown>, role: string) => ({ action, payload: { application: { id: 1, candidate, jobs: [{ id: 3, name: role }] } } });
const person = (id: number, first: string, last: string, emails: unknown[], attachments: unknown[] = [resume]) => ({
  id,
  first_name: first,
  last_name: last,
  email_addresses: emails,
  phone_numbers: [{ value: '330-281-8004', type: 'home' }],
  attachments,
});

test('greenhouse: candidates hired, rejected and moved on, new prospects', async () => {
  const johnny = person(19, 'Johnny', 'Smith', [
    { value: 'personal@example.com', type: 'personal' },
    { value: 'work@example.com', type: 'work' },
  ]);
  const m = await expectPosted(
    await hook('greenhouse', event('hire_candidate', johnny, 'Developer'), FORM),
    'Hire Candidate - 19',
    `Hire Candidate Johnny Smith (ID: 19), applying for:\n* **Role**: Developer\n* **Emails**: personal@example.com (Personal), work@example.com (Work)\n* **Attachments**: [Resume](${S3})`,
  );
  assert.equal(m.client, 'ZulipGreenhouseWebhook');
  const hector = person(265788, 'Hector', 'Porter', [{ value: 'hector.porter.265788@example.com', type: 'personal' }]);
  await expectPosted(
    await hook('greenhouse', event('reject_candidate', hector, 'Designer'), FORM),
    'Reject Candidate - 265788',
    `Reject Candidate Hector Porter (ID: 265788), applying for:\n* **Role**: Designer\n* **Emails**: hector.porter.265788@example.com (Personal)\n* **Attachments**: [Resume](${S3})`,
  );
  const giuseppe = person(265772, 'Giuseppe', 'Hurley', [{ value: 'giuseppe.hurley@example.com', type: 'personal' }], [
    resume,
    { filename: 'cover.pdf', url: S3, type: 'cover_letter' },
    { filename: 'x.pdf', url: S3, type: 'attachment' },
    { filename: 'y.pdf', url: null, type: 'other' },
  ]);
  await expectPosted(
    await hook('greenhouse', event('candidate_stage_change', giuseppe, 'Designer'), FORM),
    'Candidate Stage Change - 265772',
    `Candidate Stage Change Giuseppe Hurley (ID: 265772), applying for:\n* **Role**: Designer\n* **Emails**: giuseppe.hurley@example.com (Personal)\n* **Attachments**: [Resume](${S3}), [Cover_Letter](${S3}), [Attachment](${S3})`,
  );
  const trisha = person(968190, 'Trisha', 'Troy', [{ value: 't.troy@example.com', type: 'personal' }]);
  await expectPosted(
    await hook('greenhouse', event('new_prospect_application', trisha, 'Designer'), FORM),
    'New Prospect Application - 968190',
    `New Prospect Application Trisha Troy (ID: 968190), applying for:\n* **Role**: Designer\n* **Emails**: t.troy@example.com (Personal)\n* **Attachments**: [Resume](${S3})`,
  );
  // A candidate's own update names them outside the application.
  const updated = { action: 'update_candidate', payload: { candidate: { id: 7, first_name: 'Ann', last_name: 'Lee' }, application: { candidate: trisha, jobs: [{ name: 'Designer' }] } } };
  await expectPosted(
    await hook('greenhouse', updated, FORM),
    'Update Candidate - 7',
    `Update Candidate Ann Lee (ID: 7), applying for:\n* **Role**: Designer\n* **Emails**: t.troy@example.com (Personal)\n* **Attachments**: [Resume](${S3})`,
  );
});

test('greenhouse: the ping posts nothing; malformed payloads; the URL generator\'s entry', async () => {
  const before = await last();
  assertSuccess(await hook('greenhouse', { action: 'ping', payload: { web_hook_id: 1 } }, FORM));
  assert.equal((await last()).id, before.id);
  const bad = person(1, 'A', 'B', [], [{ type: 'resume', url: 'not a url' }]);
  assertError(await hook('greenhouse', event('hire_candidate', bad, 'Designer')), 400, 'BAD_REQUEST', "payload['payload']['application']['candidate']['attachments'][0]['url'] is not a URL");
  assertError(await hook('greenhouse', { action: 'hire_candidate', payload: { application: { candidate: person(1, 'A', 'B', []), jobs: [] } } }), 400, 'BAD_REQUEST', "payload['payload']['application']['jobs'][0] is missing");
  assert.equal((await h.listed('greenhouse'))?.display_name, 'Greenhouse');
});
