/**
 * The Freshdesk integration: Zulip's own test cases, posted as Freshdesk's
 * "Trigger Webhook" action posts them (HTTP Basic with the bot's address
 * and key, a JSON body labelled as a form): tickets created (HTML
 * descriptions as Markdown, inline images linked), statuses and priorities
 * changed, public and private notes; unknown events ignored; malformed
 * payloads and events refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('freshdesk');
const { expectPosted, last } = h;

/** A post as Freshdesk makes it: the bot's address and key in HTTP Basic, the channel in the query. */
async function freshdesk(body: unknown) {
  const res = await fetch(`${h.t.url}/api/v1/external/freshdesk?stream=freshdesk`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`${h.bot.email}:${h.bot.apiKey}`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Record<string, any>, headers: res.headers, text };
}

const TICKET = {
  ticket_id: '11',
  ticket_url: 'http://test1234zzz.freshdesk.com/helpdesk/tickets/11',
  ticket_type: 'Incident',
  ticket_subject: 'Test ticket subject',
  ticket_description: '<div>Test ticket description.</div>',
  ticket_status: 'Open',
  ticket_priority: 'Medium',
  requester_name: 'Requester Bob',
  requester_email: 'requester-bob@example.com',
};
const hook = (event: string, fields: Record<string, string> = {}) => freshdesk({ freshdesk_webhook: { ...TICKET, triggered_event: event, ...fields } });
const BOB = 'Requester Bob <requester-bob@example.com>';
const LINK = '[ticket #11](http://test1234zzz.freshdesk.com/helpdesk/tickets/11)';

test('freshdesk: a ticket created, its description as Markdown', async () => {
  const m = await expectPosted(
    await hook('{ticket_action:created}', {
      ticket_subject: 'Test ticket subject ☃',
      ticket_description: '<div>Test ticket description ☃.</div>',
      ticket_status: 'Pending',
      ticket_priority: 'High',
      requester_name: 'Requester ☃ Bob',
    }),
    '#11: Test ticket subject ☃',
    'Requester ☃ Bob <requester-bob@example.com> created [ticket #11](http://test1234zzz.freshdesk.com/helpdesk/tickets/11):\n\n``` quote\nTest ticket description ☃.\n```\n\n* **Type**: Incident\n* **Priority**: High\n* **Status**: Pending',
  );
  assert.equal(m.client, 'ZulipFreshdeskWebhook');
  // Inline images become links named by their file; long lines are wrapped at 78 characters.
  const guineaPigs = {
    ticket_id: '12',
    ticket_url: 'http://test1234zzz.freshdesk.com/helpdesk/tickets/12',
    ticket_type: 'Problem',
    ticket_subject: 'Not enough ☃ guinea pigs',
    ticket_description:
      '<div>There are too many cat pictures on the internet ☃. We need more guinea pigs. Exhibit 1:</div>\n<div><br></div>\n<div></div>\n<div><img src="http://cdn.freshdesk.com/data/helpdesk/attachments/production/12744808/original/guinea_pig.png?1383958880" class="inline-image" data-id="12744808" style=""></div>\n<br>',
    ticket_status: 'Open',
    ticket_priority: 'Urgent',
    requester_name: 'Requester ☃ Bob',
  };
  await expectPosted(
    await hook('{ticket_action:created}', guineaPigs),
    '#12: Not enough ☃ guinea pigs',
    'Requester ☃ Bob <requester-bob@example.com> created [ticket #12](http://test1234zzz.freshdesk.com/helpdesk/tickets/12):\n\n``` quote\nThere are too many cat pictures on the internet ☃. We need more guinea pigs.\nExhibit 1:\n\n  \n\n[guinea_pig.png](http://cdn.freshdesk.com/data/helpdesk/attachments/production/12744808/original/guinea_pig.png)\n```\n\n* **Type**: Problem\n* **Priority**: Urgent\n* **Status**: Open',
  );
  // Emphasis, links (a bare URL as <url>), lists, entities, and text that would read as Markdown escaped; lines over 78 characters wrapped.
  await expectPosted(
    await hook('{ticket_action:created}', {
      ticket_description: '<p>Hello <b>world</b>, see <a href="https://example.com/docs">the docs</a> or <a href="https://example.com">https://example.com</a>.</p><ul><li>one</li><li>two</li></ul><p>1. not a list &amp; a&nbsp;&nbsp;b</p>',
    }),
    '#11: Test ticket subject',
    `${BOB} created ${LINK}:\n\n\`\`\` quote\nHello **world** , see [the docs](https://example.com/docs) or\n<https://example.com>.\n\n  * one\n  * two\n\n1\\. not a list & a\u00a0\u00a0b\n\`\`\`\n\n* **Type**: Incident\n* **Priority**: Medium\n* **Status**: Open`,
  );
});

test('freshdesk: statuses and priorities changed, notes added', async () => {
  await expectPosted(await hook('{status:{from:4,to:6}}', { ticket_subject: 'Test ticket subject ☃' }), '#11: Test ticket subject ☃', `${BOB} updated ${LINK}:\n\n* **Status**: Resolved -> Waiting on Customer`);
  await expectPosted(await hook('{priority:{from:3,to:1}}'), '#11: Test ticket subject', `${BOB} updated ${LINK}:\n\n* **Priority**: High -> Low`);
  // A number past the known names is shown as it is; a negative one counts from the end, as Python indexes.
  await expectPosted(await hook('{status:{from:12,to:-1}}'), '#11: Test ticket subject', `${BOB} updated ${LINK}:\n\n* **Status**: 12 -> Monthly`);
  await expectPosted(await hook('{note_type:private}'), '#11: Test ticket subject', `${BOB} added a private note to ${LINK}.`);
  await expectPosted(await hook('{note_type:public}'), '#11: Test ticket subject', `${BOB} added a public note to ${LINK}.`);
});

test('freshdesk: unknown events post nothing; malformed payloads and events are refused; its entry for the URL generator', async () => {
  const before = (await last()).id;
  const ignored = await hook('{unknown_event:{from:3,to:1}}');
  assert.equal(ignored.status, 200);
  assert.equal(ignored.body.result, 'success');
  assert.equal((await hook('{ticket_action:updated}')).body.result, 'success');
  const { triggered_event: _, ...missing } = { ...TICKET, triggered_event: '' };
  assertError(await freshdesk({ freshdesk_webhook: missing }), 400, 'BAD_REQUEST', "payload['freshdesk_webhook']['triggered_event'] is missing");
  assertError(await freshdesk({ ticket: TICKET }), 400, 'BAD_REQUEST', "payload['freshdesk_webhook'] is missing");
  assertError(await hook('{status:{from:4,to:6}}', { requester_email: 7 as unknown as string }), 400, 'BAD_REQUEST', "payload['freshdesk_webhook']['requester_email'] is not a string");
  assertError(await hook('{status:{from:four,to:6}}'), 400, 'BAD_REQUEST', 'Invalid Freshdesk event: "four" is not a number');
  assertError(await hook('{status:{from:4}}'), 400, 'BAD_REQUEST', 'Invalid Freshdesk event: {status:{from:4}}');
  assertError(await hook('{status:4}'), 400, 'BAD_REQUEST', 'Invalid Freshdesk event: {status:4}');
  assertError(await hook('{status:{from:-10,to:6}}'), 400, 'BAD_REQUEST', 'Invalid Freshdesk event: no status -10');
  assertError(await freshdesk('{"freshdesk_webhook": '), 400, 'BAD_REQUEST', 'Malformed JSON');
  assert.equal((await last()).id, before);
  assert.deepEqual(await h.listed('freshdesk'), { name: 'freshdesk', display_name: 'Freshdesk', all_event_types: null, config_options: [], url_options: [] });
});
