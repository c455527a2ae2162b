/**
 * The Trello integration: Zulip's own test cases (payloads trimmed to what is
 * read), the HEAD request Trello checks the URL with, ignored actions and
 * card changes, unknown actions and malformed payloads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('trello');
const { hook, expectPosted } = h;

const BOARD = { shortLink: 'iqXXzYEj', name: 'Welcome Board' };
const TOMASZ = { fullName: 'TomaszKolek' };
const card = (name: string, shortLink: string, extra: Record<string, unknown> = {}) => ({ name, shortLink, ...extra });
const action = (type: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  model: { name: 'Welcome Board' },
  action: { type, data: { board: BOARD, ...data }, memberCreator: TOMASZ, ...extra },
});
const CARD_NAME = '[Card name](https://trello.com/c/9BduUcVQ)';
const NEW_CARD = '[New card](https://trello.com/c/xPKXoSTQ)';

test('trello: card actions', async () => {
  const post = async (payload: unknown, content: string, topic = 'Welcome Board') => expectPosted(await hook('trello', payload), topic, content);
  await post(
    action('updateCard', { card: card('This is a card.', 'r33ylX2Z'), listBefore: { name: 'Basics' }, listAfter: { name: 'Intermediate' }, old: { idList: 'x' } }),
    'TomaszKolek moved [This is a card.](https://trello.com/c/r33ylX2Z) from Basics to Intermediate.',
  );
  await post(action('updateCard', { card: card('New name', 'r33ylX2Z'), old: { name: 'Old name' } }), 'TomaszKolek renamed the card from "Old name" to [New name](https://trello.com/c/r33ylX2Z).');
  await post(action('addLabelToCard', { card: card('Card name', 'r33ylX2Z'), value: 'green', text: 'text value' }), 'TomaszKolek added a green label with "text value" to [Card name](https://trello.com/c/r33ylX2Z).');
  await post(action('removeLabelFromCard', { card: card('New Card', 'r33ylX2Z'), value: 'green', text: 'text value' }), 'TomaszKolek removed a green label with "text value" from [New Card](https://trello.com/c/r33ylX2Z).');
  await post(action('addMemberToCard', { card: card('Card name', '9BduUcVQ') }, { member: { fullName: 'TomaszKolek' } }), `TomaszKolek added TomaszKolek to ${CARD_NAME}.`);
  await post(action('removeMemberFromCard', { card: card('Card name', '9BduUcVQ') }, { member: { fullName: 'Trello' } }), `TomaszKolek removed Trello from ${CARD_NAME}.`);
  await post(action('updateCard', { card: card('Card name', '9BduUcVQ', { due: '2016-05-11T10:00:00.000Z' }), old: { due: null } }), `TomaszKolek set due date for ${CARD_NAME} to <time:2016-05-11T10:00:00+00:00>.`);
  await post(
    action('updateCard', { card: card('Card name', '9BduUcVQ', { due: '2016-05-24T10:00:00.000Z' }), old: { due: '2016-05-11T10:00:00.000Z' } }),
    `TomaszKolek changed due date for ${CARD_NAME} from <time:2016-05-11T10:00:00+00:00> to <time:2016-05-24T10:00:00+00:00>.`,
  );
  // Another offset is kept, the time written to the second (Python's isoformat, as Zulip's Grafana test has it).
  await post(action('updateCard', { card: card('Card name', '9BduUcVQ', { due: '2016-05-11T12:00:00.25+02:00' }), old: { due: null } }), `TomaszKolek set due date for ${CARD_NAME} to <time:2016-05-11T12:00:00+02:00>.`);
  await post(action('updateCard', { card: card('Card name', '9BduUcVQ', { due: null }), old: { due: '2016-05-11T10:00:00.000Z' } }), `TomaszKolek removed the due date from ${CARD_NAME}.`);
  await post(action('updateCard', { card: card('Card name', '9BduUcVQ', { closed: true }), old: { closed: false } }), `TomaszKolek archived ${CARD_NAME}.`);
  await post(action('updateCard', { card: card('Card name', '9BduUcVQ', { closed: false }), old: { closed: true } }), `TomaszKolek reopened ${CARD_NAME}.`);
  await post(action('createCard', { card: card('New card', '5qrgGdD5') }), 'TomaszKolek created [New card](https://trello.com/c/5qrgGdD5).');
  await post(action('addAttachmentToCard', { card: card('New card', 'xPKXoSTQ'), attachment: { url: 'http://url.com', name: 'attachment_name' } }), `TomaszKolek added [attachment_name](http://url.com) to ${NEW_CARD}.`);
  await post(action('addChecklistToCard', { card: card('New card', 'xPKXoSTQ'), checklist: { name: 'Checklist' } }), `TomaszKolek added the Checklist checklist to ${NEW_CARD}.`);
  const check = (state: string) => ({
    action: {
      type: 'updateCheckItemStateOnCard',
      data: { checkItem: { state, name: 'Tomatoes' }, checklist: { name: 'Checklist' }, card: card('Something something', 'R2thJK3P'), board: { shortLink: 'l9NqJcCd', name: 'Zulip' } },
      memberCreator: { fullName: 'Eeshan Garg' },
    },
  });
  await post(check('complete'), 'Eeshan Garg checked **Tomatoes** in **Checklist** ([Something something](https://trello.com/c/R2thJK3P)).', 'Zulip');
  await post(check('incomplete'), 'Eeshan Garg unchecked **Tomatoes** in **Checklist** ([Something something](https://trello.com/c/R2thJK3P)).', 'Zulip');
  await post(action('commentCard', { card: card('New card', 'xPKXoSTQ'), text: 'New comment' }), `TomaszKolek commented on ${NEW_CARD}:\n~~~ quote\nNew comment\n~~~`);
  const marco = { fullName: 'Marco Matarazzo' };
  const described = (old: string, now: string) => ({ action: { type: 'updateCard', data: { board: BOARD, card: card('New Card', 'P2r0z66z', { desc: now }), old: { desc: old } }, memberCreator: marco } });
  await post(described('', 'New Description'), 'Marco Matarazzo set description for [New Card](https://trello.com/c/P2r0z66z) to:\n~~~ quote\nNew Description\n~~~');
  await post(described('New Description', ''), 'Marco Matarazzo removed description from [New Card](https://trello.com/c/P2r0z66z).');
  await post(
    described('New Description', 'Changed Description'),
    'Marco Matarazzo changed description for [New Card](https://trello.com/c/P2r0z66z) from\n~~~ quote\nNew Description\n~~~\nto\n~~~ quote\nChanged Description\n~~~',
  );
  // A creator without a name, as Python writes None.
  await post({ action: { type: 'createCard', data: { board: BOARD, card: card('New card', '5qrgGdD5') }, memberCreator: {} } }, 'None created [New card](https://trello.com/c/5qrgGdD5).');
});

test('trello: board actions', async () => {
  const board = (type: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) => action(type, data, extra);
  const LINK = '[Welcome Board](https://trello.com/b/iqXXzYEj)';
  await expectPosted(await hook('trello', board('removeMemberFromBoard', {}, { member: { fullName: 'Trello' } })), 'Welcome Board', `TomaszKolek removed Trello from ${LINK}.`);
  await expectPosted(await hook('trello', board('addMemberToBoard', {}, { member: { fullName: 'Trello' } })), 'Welcome Board', `TomaszKolek added Trello to ${LINK}.`);
  await expectPosted(await hook('trello', board('createList', { list: { name: 'New list' } })), 'Welcome Board', `TomaszKolek added New list list to ${LINK}.`);
  const renamed = { action: { type: 'updateBoard', data: { board: { shortLink: 'iqXXzYEj', name: 'New name' }, old: { name: 'Welcome Board' } }, memberCreator: TOMASZ } };
  await expectPosted(await hook('trello', renamed), 'New name', 'TomaszKolek renamed the board from Welcome Board to [New name](https://trello.com/b/iqXXzYEj).');
});

test('trello: the HEAD request that checks the URL; ignored actions and card changes; unknown actions; malformed payloads', async () => {
  const url = (key: string) => `${h.t.url}/api/v1/external/trello?api_key=${key}&stream=trello`;
  assert.equal((await fetch(url(h.bot.apiKey), { method: 'HEAD' })).status, 200);
  // Still only for the bot's key; another integration's HEAD is a request like any other.
  assert.equal((await fetch(url('wrong-key'), { method: 'HEAD' })).status, 401);
  assert.equal((await fetch(`${h.t.url}/api/v1/external/netlify?api_key=${h.bot.apiKey}&stream=trello`, { method: 'HEAD' })).status, 400);
  const before = (await h.last()).id;
  for (const type of ['copyCard', 'createCheckItem', 'updateCheckItem', 'updateList']) assertSuccess(await hook('trello', { model: 'whatever', action: { type } }));
  for (const field of ['cover', 'dueComplete', 'idAttachmentCover', 'pos']) {
    assertSuccess(await hook('trello', { model: 'whatever', action: { type: 'updateCard', data: { card: {}, old: { [field]: 'should-be-ignored' } } } }));
  }
  assertSuccess(await hook('trello', { action: { type: 'updateBoard', data: { board: BOARD, old: { prefs: { background: 'blue' } } }, memberCreator: TOMASZ } }));
  assert.equal((await h.last()).id, before);
  assertError(await hook('trello', { action: { type: 'deleteCard' } }), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', "The 'deleteCard' event isn't currently supported by the Trello webhook; ignoring");
  assertError(await hook('trello', { action: { type: 'updateCard', data: { card: {}, old: { idLabels: [] } } } }), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', "The 'updateCard' event isn't currently supported by the Trello webhook; ignoring");
  assertError(await hook('trello', { action: { type: 'updateBoard', data: { board: BOARD, old: { name: '' } }, memberCreator: TOMASZ } }), 200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE');
  assertError(await hook('trello', { action: {} }), 400, 'BAD_REQUEST', "payload['action']['type'] is missing");
  assertError(await hook('trello', action('createCard', { card: { name: 'x' } })), 400, 'BAD_REQUEST', "payload['action']['data']['card']['shortLink'] is missing");
  assertError(
    await hook('trello', action('updateCard', { card: card('Card name', '9BduUcVQ', { due: 'next week' }), old: { due: null } })),
    400,
    'BAD_REQUEST',
    "payload['action']['data']['card']['due'] is not a valid ISO datetime",
  );
  assertError(await hook('trello', action('updateCard', { card: card('Card name', '9BduUcVQ', { closed: 'yes' }), old: { closed: false } })), 400, 'BAD_REQUEST', "payload['action']['data']['card']['closed'] is not a boolean");
  assert.equal((await h.last()).id, before);
  assert.deepEqual(await h.listed('trello'), { name: 'trello', display_name: 'Trello', all_event_types: null, config_options: [], url_options: [] });
});
