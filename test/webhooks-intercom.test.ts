/**
 * The Intercom integration: Zulip's own test cases (payloads trimmed to what
 * is read): companies, contacts, conversations, events and users; the ping
 * and HEAD checks; unsupported topics and malformed payloads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('intercom');
const { hook, expectPosted, last } = h;

const notify = (topic: string, item: Record<string, unknown>) => ({ type: 'notification_event', topic, data: { type: 'notification_event_data', item } });
const ST_JOHNS = { city_name: "St. John's", region_name: 'Newfoundland and Labrador', country_name: 'Canada' };
const azure = { type: 'contact', name: null, pseudonym: "Azure Bus from St. John's", email: 'aaron@zulip.com', location_data: ST_JOHNS };
const eeshanLead = { type: 'lead', name: 'Eeshan Garg', email: 'eeshan@example.com' };
const cordelia = { type: 'admin', name: "Cordelia, Lear's daughter" };

test('intercom: companies, contacts, events and users', async () => {
  const m = await expectPosted(
    await hook('intercom', notify('company.created', { type: 'company', name: 'Kandra Labs', user_count: 1, monthly_spend: 0 })),
    'Companies',
    'New company **Kandra Labs** created:\n* **User count**: 1\n* **Monthly spending**: 0',
  );
  assert.equal(m.client, 'ZulipIntercomWebhook');
  await expectPosted(
    await hook('intercom', notify('contact.added_email', { ...azure, email: 'jerryguitarist@gmail.com' })),
    "Contact: Azure Bus from St. John's",
    'New email jerryguitarist@gmail.com added to contact.',
  );
  await expectPosted(
    await hook('intercom', notify('contact.created', azure)),
    "Contact: Azure Bus from St. John's",
    "New contact created:\n* **Name (or pseudonym)**: Azure Bus from St. John's\n* **Email**: aaron@zulip.com\n* **Location**: St. John's, Newfoundland and Labrador, Canada",
  );
  const lilac = { type: 'user', name: null, pseudonym: "Lilac Raindrop from St. John's", email: 'iago@zulip.com', location_data: ST_JOHNS };
  const signedUp = "Contact signed up:\n* **Email**: iago@zulip.com\n* **Location**: St. John's, Newfoundland and Labrador, Canada";
  await expectPosted(await hook('intercom', notify('contact.signed_up', lilac)), "User: Lilac Raindrop from St. John's", signedUp);
  await expectPosted(await hook('intercom', notify('visitor.signed_up', lilac)), "User: Lilac Raindrop from St. John's", signedUp);
  const eeshan = { type: 'contact', name: 'Eeshan Garg' };
  await expectPosted(await hook('intercom', notify('contact.tag.created', { tag: { name: 'developer' }, contact: eeshan })), 'Contact: Eeshan Garg', 'Contact tagged with the `developer` tag.');
  await expectPosted(await hook('intercom', notify('contact.tag.deleted', { tag: { name: 'developer' }, contact: eeshan })), 'Contact: Eeshan Garg', 'The tag `developer` was removed from the contact.');
  await expectPosted(await hook('intercom', notify('event.created', { event_name: 'invited-friend' })), 'Events', 'New event **invited-friend** created.');
  await expectPosted(
    await hook('intercom', notify('user.created', { type: 'user', name: 'Aaron Smith', email: 'aaron@zulip.com' })),
    'User: Aaron Smith',
    'New user created:\n* **Name**: Aaron Smith\n* **Email**: aaron@zulip.com',
  );
  // Without a name or pseudonym, the topic names the address.
  await expectPosted(await hook('intercom', notify('user.deleted', { type: 'user', name: null, pseudonym: null, email: 'jerryguitarist@gmail.com' })), 'User: jerryguitarist@gmail.com', 'User deleted.');
  await expectPosted(await hook('intercom', notify('user.email.updated', azure)), "Contact: Azure Bus from St. John's", "User's email was updated to aaron@zulip.com.");
  const tagged = (name: string) => ({ user: { type: 'user', name: 'eeshangarg' }, tag: { name } });
  await expectPosted(await hook('intercom', notify('user.tag.created', tagged('developer'))), 'User: eeshangarg', 'The tag `developer` was added to the user.');
  await expectPosted(
    await hook('intercom', notify('user.tag.deleted', tagged('CSV Import - 2019-03-26 22:46:04 UTC'))),
    'User: eeshangarg',
    'The tag `CSV Import - 2019-03-26 22:46:04 UTC` was removed from the user.',
  );
  await expectPosted(await hook('intercom', notify('user.unsubscribed', eeshan)), 'Contact: Eeshan Garg', 'User unsubscribed from emails.');
});

test('intercom: conversations assigned, opened, closed, snoozed; replies and notes quoted as text', async () => {
  await expectPosted(
    await hook('intercom', notify('conversation.admin.assigned', { assignee: { name: 'Tim Abbott' }, user: eeshanLead })),
    'Lead: Eeshan Garg',
    'Tim Abbott assigned to conversation.',
  );
  await expectPosted(
    await hook('intercom', notify('conversation.admin.opened', { assignee: { name: 'Eeshan Garg' }, user: { type: 'lead', name: "Cordelia, Lear's daughter" } })),
    "Lead: Cordelia, Lear's daughter",
    'Eeshan Garg opened the conversation.',
  );
  for (const action of ['closed', 'snoozed', 'unsnoozed']) {
    await expectPosted(await hook('intercom', notify(`conversation.admin.${action}`, { assignee: cordelia, user: eeshanLead })), 'Lead: Eeshan Garg', `Cordelia, Lear's daughter ${action} the conversation.`);
  }
  const parts = (body: string) => ({ conversation_parts: { conversation_parts: [{ body }] } });
  await expectPosted(
    await hook('intercom', notify('conversation.admin.replied', { assignee: cordelia, user: eeshanLead, ...parts('<p>Hey Eeshan! How can I help?</p>') })),
    'Lead: Eeshan Garg',
    "Cordelia, Lear's daughter replied to the conversation:\n\n``` quote\nHey Eeshan! How can I help?\n```",
  );
  await expectPosted(
    await hook('intercom', notify('conversation.admin.noted', { assignee: cordelia, user: eeshanLead, ...parts('<p>Talk to Tim about this user&#39;s query.</p>') })),
    'Lead: Eeshan Garg',
    "Cordelia, Lear's daughter added a note to the conversation:\n\n``` quote\nTalk to Tim about this user's query.\n```",
  );
  await expectPosted(
    await hook('intercom', notify('conversation.admin.single.created', { assignee: cordelia, user: eeshanLead, conversation_message: { body: '<p>Hi Eeshan, What&#x27;s up</p>' } })),
    'Lead: Eeshan Garg',
    "Cordelia, Lear's daughter initiated a conversation:\n\n``` quote\nHi Eeshan, What's up\n```",
  );
  await expectPosted(
    await hook('intercom', notify('conversation.user.created', { user: { type: 'lead', name: "Rose Poodle from St. John's" }, conversation_message: { body: '<p>Hello <b>everyone</b>!</p>' } })),
    "Lead: Rose Poodle from St. John's",
    "Rose Poodle from St. John's initiated a conversation:\n\n``` quote\nHello everyone!\n```",
  );
  await expectPosted(
    await hook('intercom', notify('conversation.user.replied', { user: eeshanLead, ...parts('<p>Well, I need some help getting access to a developer account.</p>') })),
    'Lead: Eeshan Garg',
    'Eeshan Garg replied to the conversation:\n\n``` quote\nWell, I need some help getting access to a developer account.\n```',
  );
  // An admin without a name, as Python writes None.
  await expectPosted(await hook('intercom', notify('conversation.admin.closed', { assignee: { type: 'nobody_admin' }, user: eeshanLead })), 'Lead: Eeshan Garg', 'None closed the conversation.');
});

test('intercom: the ping and the HEAD check post nothing; unsupported topics; malformed payloads; the URL generator\'s entry', async () => {
  const before = await last();
  assertSuccess(await hook('intercom', { type: 'notification_event', topic: 'ping', data: { item: { type: 'ping', message: 'Hello' } } }));
  const url = `${h.t.url}/api/v1/external/intercom?api_key=${h.bot.apiKey}&stream=intercom`;
  assert.equal((await fetch(url, { method: 'HEAD' })).status, 200);
  assert.equal((await last()).id, before.id);

  for (const topic of ['conversation.admin.open.assigned', 'constructor']) {
    const res = await hook('intercom', notify(topic, {}));
    assert.equal(res.status, 200);
    assert.equal(res.body.code, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE');
    assert.equal(res.body.msg, `The '${topic}' event isn't currently supported by the Intercom webhook; ignoring`);
  }
  assertError(await hook('intercom', notify('conversation.admin.closed', { assignee: null, user: eeshanLead })), 400, 'BAD_REQUEST', "payload['data']['item']['assignee'] is not a dict");
  assertError(await hook('intercom', { topic: 'user.deleted', data: {} }), 400, 'BAD_REQUEST', "payload['data']['item'] is missing");

  const listed = await h.listed('intercom');
  assert.equal(listed?.display_name, 'Intercom');
  assert.equal(listed?.all_event_types.length, 24);
  assert.ok(listed?.all_event_types.includes('conversation.admin.single.created'));
});
