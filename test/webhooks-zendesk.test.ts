/**
 * The Zendesk integration: Zulip's own test cases (a form post with HTTP
 * Basic, as Zendesk's targets send), the topic cut to 60 characters, and the
 * missing parameters.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('zendesk');

/** A post as a Zendesk target makes it: form fields, the bot's address and key in HTTP Basic. */
async function target(fields: Record<string, string>) {
  const res = await fetch(`${h.t.url}/api/v1/external/zendesk`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`${h.bot.email}:${h.bot.apiKey}`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ stream: 'zendesk', ...fields }).toString(),
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Record<string, any>, headers: res.headers, text };
}

test('zendesk: the message as composed, in topic "#<id>: <title>" cut to 60 characters', async () => {
  await h.expectPosted(await target({ ticket_title: 'Test ticket', ticket_id: '4', message: 'some message' }), '#4: Test ticket', 'some message');
  await h.expectPosted(await target({ ticket_title: 'Test ticket' + '!'.repeat(80), ticket_id: '4', message: 'some message' }), '#4: Test ticket' + '!'.repeat(42) + '...', 'some message');
  await h.expectPosted(await target({ ticket_title: 'Some ticket', ticket_id: '5', message: 'New comment:\n> It is better\n* here' }), '#5: Some ticket', 'New comment:\n> It is better\n* here');
  // The parameters may come in the query string too, with the bot's key.
  await h.expectPosted(await h.hook('zendesk', '', { query: { ticket_title: 'Query', ticket_id: '6', message: 'from the query' } }), '#6: Query', 'from the query');
});

test('zendesk: a missing parameter; its entry for the URL generator', async () => {
  const before = (await h.last()).id;
  for (const missing of ['ticket_title', 'ticket_id', 'message']) {
    const fields: Record<string, string> = { ticket_title: 'T', ticket_id: '1', message: 'm' };
    delete fields[missing];
    const res = await target(fields);
    assertError(res, 400, 'REQUEST_VARIABLE_MISSING', `Missing '${missing}' argument`);
    assert.equal(res.body.var_name, missing);
  }
  assert.equal((await h.last()).id, before);
  assert.deepEqual(await h.listed('zendesk'), { name: 'zendesk', display_name: 'Zendesk', all_event_types: null, config_options: [], url_options: [] });
});
