/**
 * The Front integration: Zulip's own test cases (payloads trimmed to what is
 * read, posted as Front posts them: a JSON body labelled as a form): messages
 * in and out, replies, comments and mentions, conversations assigned (by a
 * teammate, themselves or a rule), unassigned, archived (by a teammate or
 * Gmail), reopened, deleted, restored, tagged and untagged; only_events on
 * Front's `type`; an unknown `type` and malformed payloads refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness, type HookOpts } from './webhook-helpers.ts';

const h = webhookHarness('front');
const { hook, expectPosted, last } = h;

const FORM: HookOpts = { contentType: 'application/x-www-form-urlencoded' };
const LEELA = { _meta: { type: 'teammate' }, data: { id: 'tea_40yq', first_name: 'Leela', last_name: 'Turanga' } };
const BENDER = { _meta: { type: 'teammate' }, data: { id: 'tea_40z6', first_name: 'Bender', last_name: 'Rodriguez' } };
const RECIPIENT = { handle: 'calculon@momsbot.com', role: 'to' };
const INBOXES = { _meta: { type: 'inboxes' }, data: [{ id: 'inb_6j96', address: 'support@planet-express.com', name: 'Support@', type: 'gmail' }] };
const EPSILON = { id: 'cnv_keo696', subject: 'Your next delivery is on Epsilon 96Z', recipient: RECIPIENT };
const ROBOT = { id: 'cnv_keocka', subject: 'Re: Being a robot is great, but...', recipient: RECIPIENT };

const event = (type: string, conversation: object, source: object, target?: object) => ({ id: 'evt_28du7y2', type, conversation, source, ...(target ? { target } : {}) });
const message = (id: string) => ({ _meta: { type: 'message' }, data: { id, type: 'email' } });
const comment = (body: string) => ({ _meta: { type: 'comment' }, data: { id: 'com_shgc2', body } });
const tag = { _meta: { type: 'tag' }, data: { id: 'tag_11dg2', name: 'Urgent' } };
/** Posts one event as Front does (a JSON body labelled as a form). */
const send = (type: string, conversation: object, source: object, target?: object) => hook('front', event(type, conversation, source, target), FORM);

test('front: messages in and out, replies', async () => {
  const m = await expectPosted(
    await send('outbound', EPSILON, INBOXES, message('msg_1176ie2')),
    'cnv_keo696',
    '[Outbound message](https://app.frontapp.com/open/msg_1176ie2) from **support@planet-express.com** to **calculon@momsbot.com**:\n```quote\n*Subject*: Your next delivery is on Epsilon 96Z\n```',
  );
  assert.equal(m.client, 'ZulipFrontWebhook');
  await expectPosted(
    await send('inbound', { id: '2x9c5v', subject: 'Cancellation Request for Subscription #SUB-67890', recipient: { handle: 'calculon@momsbot.com', role: 'from' } }, INBOXES, message('msg_1176r8y')),
    '2x9c5v',
    '[Inbound message](https://app.frontapp.com/open/msg_1176r8y) from **calculon@momsbot.com** to **support@planet-express.com**:\n```quote\n*Subject*: Cancellation Request for Subscription #SUB-67890\n```',
  );
  await expectPosted(
    await send('out_reply', ROBOT, INBOXES, message('msg_1176ryy')),
    'cnv_keocka',
    '[Outbound reply](https://app.frontapp.com/open/msg_1176ryy) from **support@planet-express.com** to **calculon@momsbot.com**.',
  );
});

test('front: comments and mentions, quoted', async () => {
  const cases: Array<[string, object, object, string, string, string]> = [
    ['comment', ROBOT, BENDER, 'Sure.', 'cnv_keocka', '**Bender Rodriguez** left a comment:\n```quote\nSure.\n```'],
    ['mention', ROBOT, LEELA, '@bender Could you take it from here?', 'cnv_keocka', '**Leela Turanga** left a comment:\n```quote\n@bender Could you take it from here?\n```'],
    ['mention', EPSILON, LEELA, '@all Could someone else take this?', 'cnv_keo696', '**Leela Turanga** left a comment:\n```quote\n@all Could someone else take this?\n```'],
  ];
  for (const [type, conversation, source, text, topic, content] of cases) await expectPosted(await send(type, conversation, source, comment(text)), topic, content);
});

test('front: conversations assigned (to another, to themselves, by a rule), unassigned, archived, reopened, deleted, restored', async () => {
  await expectPosted(await send('assign', { ...EPSILON, subject: '' }, LEELA, LEELA), 'cnv_keo696', '**Leela Turanga** assigned themselves.');
  await expectPosted(await send('assign', ROBOT, LEELA, LEELA), 'cnv_keocka', '**Leela Turanga** assigned themselves.');
  await expectPosted(await send('assign', ROBOT, LEELA, BENDER), 'cnv_keocka', '**Leela Turanga** assigned **Bender Rodriguez**.');
  const rule = { _meta: { type: 'rule' }, data: { id: 'rul_6o2', name: 'Important deliveries' } };
  await expectPosted(await send('assign', ROBOT, rule, BENDER), 'cnv_keocka', "**'Important deliveries' rule** assigned **Bender Rodriguez**.");
  await expectPosted(await send('unassign', EPSILON, LEELA), 'cnv_keo696', 'Unassigned by **Leela Turanga**.');
  await expectPosted(await send('archive', EPSILON, LEELA), 'cnv_keo696', 'Archived by **Leela Turanga**.');
  // Archived by Gmail: the source's kind is named.
  await expectPosted(await send('archive', EPSILON, { _meta: { type: 'gmail' }, data: {} }), 'cnv_keo696', 'Archived by **(gmail)**.');
  await expectPosted(await send('reopen', EPSILON, LEELA), 'cnv_keo696', 'Reopened by **Leela Turanga**.');
  await expectPosted(await send('trash', EPSILON, LEELA), 'cnv_keo696', 'Deleted by **Leela Turanga**.');
  await expectPosted(await send('restore', EPSILON, LEELA), 'cnv_keo696', 'Restored by **Leela Turanga**.');
});

test('front: tags added and removed; sent as JSON too', async () => {
  await expectPosted(await send('tag', ROBOT, LEELA, tag), 'cnv_keocka', '**Leela Turanga** added tag **Urgent**.');
  await expectPosted(await hook('front', event('untag', ROBOT, LEELA, tag)), 'cnv_keocka', '**Leela Turanga** removed tag **Urgent**.');
});

test('front: only_events and exclude_events pick by Front type', async () => {
  const before = (await last()).id;
  const res = await hook('front', event('archive', EPSILON, LEELA), { ...FORM, query: { only_events: JSON.stringify(['tag', 'untag']) } });
  assert.equal(res.body.result, 'success');
  assert.equal((await last()).id, before);
  await expectPosted(
    await hook('front', event('reopen', EPSILON, LEELA), { ...FORM, query: { exclude_events: JSON.stringify(['archive']) } }),
    'cnv_keo696',
    'Reopened by **Leela Turanga**.',
  );
});

test('front: an unknown type, malformed payloads; its entry for the URL generator', async () => {
  const before = (await last()).id;
  assertError(await send('qwerty', ROBOT, LEELA, BENDER), 400, 'BAD_REQUEST', 'Unknown webhook request');
  // A type that is an Object property, not one of Front's.
  assertError(await send('toString', ROBOT, LEELA, BENDER), 400, 'BAD_REQUEST', 'Unknown webhook request');
  assertError(await hook('front', { conversation: ROBOT }, FORM), 400, 'BAD_REQUEST', "payload['type'] is missing");
  assertError(await hook('front', { ...event('archive', ROBOT, LEELA), type: 7 }, FORM), 400, 'BAD_REQUEST', "payload['type'] is not a string");
  assertError(await hook('front', { type: 'archive', source: LEELA }, FORM), 400, 'BAD_REQUEST', "payload['conversation'] is missing");
  // A message whose source is a teammate rather than a list of inboxes.
  assertError(await send('inbound', ROBOT, LEELA, message('msg_1')), 400, 'BAD_REQUEST', "payload['source']['data'] is not a list");
  assertError(await send('inbound', ROBOT, { ...INBOXES, data: [] }, message('msg_1')), 400, 'BAD_REQUEST', "payload['source']['data'][0] is missing");
  assertError(await send('assign', ROBOT, LEELA), 400, 'BAD_REQUEST', "payload['target'] is missing");
  assertError(await send('tag', ROBOT, { _meta: { type: 'teammate' }, data: { first_name: 'Leela' } }, tag), 400, 'BAD_REQUEST', "payload['source']['data']['last_name'] is missing");
  assertError(await hook('front', 'not json', FORM), 400, 'BAD_REQUEST', 'Malformed JSON');
  assert.equal((await last()).id, before);
  assert.deepEqual(await h.listed('front'), {
    name: 'front',
    display_name: 'Front',
    all_event_types: ['inbound', 'outbound', 'out_reply', 'comment', 'mention', 'assign', 'unassign', 'archive', 'reopen', 'trash', 'restore', 'tag', 'untag'],
    config_options: [],
    url_options: [],
  });
});
