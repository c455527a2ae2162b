/**
 * The Slack-compatible webhook (slack_incoming): Zulip's own test cases
 * (payloads trimmed to what is read): Slack's markup, links and blocks,
 * attachments and their pieces, the form-encoded payload, an empty message;
 * answers as Slack's (`"ok": true`; errors raised while handling as
 * `{"ok": false, "error": ...}`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const CHANNEL = 'slack_incoming';
const h = webhookHarness(CHANNEL);
const { hook, expectPosted, last } = h;
// "(no topic)" is the empty topic, which reads as "general chat".
const NO_TOPIC = 'general chat';

test('slack_incoming: a text message, answered with "ok": true; Slack\'s *bold*, _italic_ and ~strike~ as Zulip\'s', async () => {
  const res = await hook('slack_incoming', { text: 'Hello, world.' });
  assert.deepEqual(res.body, { result: 'success', msg: '', ok: true });
  await expectPosted(res, NO_TOPIC, 'Hello, world.');
  for (const [input, output] of [
    ['some *foo* word', 'some **foo** word'],
    ['*foo*', '**foo**'],
    ['*foo* *bar*', '**foo** **bar**'],
    ['*foo*a*bar*', '*foo*a*bar*'],
    ['some _foo_ word', 'some *foo* word'],
    ['a ~gone~ word', 'a ~~gone~~ word'],
    ['a (*not* this)', 'a (**not** this)'],
    ['mid*word*bold', 'mid*word*bold'],
  ]) {
    await expectPosted(await hook('slack_incoming', { text: input }), NO_TOPIC, output);
  }
});

test("slack_incoming: Slack's links, with text or without, and mail links", async () => {
  await expectPosted(
    await hook('slack_incoming', { text: 'See <https://example.com/a|the site>, <https://example.org/b> and <www.example.net|this>; write to <mailto:me@example.com|me@example.com>.' }),
    NO_TOPIC,
    'See [the site](https://example.com/a), https://example.org/b and [this](www.example.net); write to mailto:me@example.com.',
  );
});

test('slack_incoming: nothing to say sends nothing, and is answered as success', async () => {
  const before = (await last()).id;
  assert.deepEqual((await hook('slack_incoming', { text: null })).body, { result: 'success', msg: '', ok: true });
  const allNull = { title: null, title_link: null, image_url: null, ts: null, text: null, pretext: null, footer: null };
  assertSuccess(await hook('slack_incoming', { attachments: [allNull] }));
  assert.equal((await last()).id, before);
});

test('slack_incoming: a form-encoded payload, its channel as the topic, its icon emoji before the text', async () => {
  const payload = JSON.stringify({ channel: '#devops', icon_emoji: ':zap:', text: 'chris has started deploying project tag v0.0.2rc10 to staging', username: 'Deploy Bot' });
  await expectPosted(
    await hook('slack_incoming', new URLSearchParams({ payload }).toString(), { contentType: 'application/x-www-form-urlencoded' }),
    'devops',
    ':zap: chris has started deploying project tag v0.0.2rc10 to staging',
  );
});

const HOTEL_IMAGE = 'https://is5-ssl.mzstatic.com/image/thumb/Purple3/v4/d3/72/5c/d3725c8f-c642-5d69-1904-aa36e4297885/source/256x256bb.jpg';
const CAT = 'https://pbs.twimg.com/profile_images/625633822235693056/lNGUneLX_400x400.jpg';

test('slack_incoming: blocks (sections with an image and fields; actions, and the block types Zulip does not render, left out)', async () => {
  await expectPosted(
    await hook('slack_incoming', {
      channel: 'C1H9RESGL',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: 'Danny Torrence left the following _review_ for your property:' } },
        {
          type: 'section',
          text: { type: 'mrkdwn', text: '<https://google.com|Overlook Hotel> \n :star: \n Doors had too many axe holes, guest in room 237 was far too rowdy, whole place felt stuck in the 1920s.' },
          accessory: { type: 'image', image_url: HOTEL_IMAGE, alt_text: 'Haunted hotel image' },
        },
        { type: 'section', fields: [{ type: 'mrkdwn', text: '*Average Rating*\n1.0' }] },
        { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Reply to review', emoji: false } }] },
        ...['call', 'contact_card', 'condition', 'file', 'table', 'rich_text'].map((type) => ({ type })),
      ],
    }),
    'C1H9RESGL',
    'Danny Torrence left the following *review* for your property:\n\n' +
      '[Overlook Hotel](https://google.com) \n :star: \n Doors had too many axe holes, guest in room 237 was far too rowdy, whole place felt stuck in the 1920s.\n\n' +
      `[Haunted hotel image](${HOTEL_IMAGE})\n\n**Average Rating**\n1.0`,
  );
  assertError(await hook('slack_incoming', { blocks: [{ type: 'carousel' }] }), 400, 'BAD_REQUEST', "Invalid payload['blocks'][0]['type']");
  // Image addresses are checked as Django's URLValidator checks them (Zulip's check_url).
  for (const url of ['javascript://example.com/x', 'http://cobalt/cat.png', 'https://exa mple.com/cat.png']) {
    assertError(await hook('slack_incoming', { blocks: [{ type: 'image', image_url: url, alt_text: 'cat' }] }), 400, 'BAD_REQUEST', "payload['blocks'][0]['image_url'] is not a URL");
  }
  await expectPosted(await hook('slack_incoming', { blocks: [{ type: 'image', image_url: 'http://localhost:8080/cat.png', alt_text: 'cat' }] }), NO_TOPIC, '[cat](http://localhost:8080/cat.png)');
  // Text objects are checked as Zulip's check_text_block words it.
  assertError(await hook('slack_incoming', { blocks: [{ type: 'header', text: { text: 'T' } }] }), 400, 'BAD_REQUEST', "type key is missing from payload['blocks'][0]['text']");
  assertError(await hook('slack_incoming', { blocks: [{ type: 'header', text: { type: 'mrkdwn', text: 'T' } }] }), 400, 'BAD_REQUEST', 'Invalid payload[\'blocks\'][0][\'text\']["type"]');
  assertError(await hook('slack_incoming', { blocks: [{ type: 'section', fields: [{ type: 'mrkdwn', text: 5 }] }] }), 400, 'BAD_REQUEST', 'payload[\'blocks\'][0][\'fields\'][0]["text"] is not a string');
  assertError(await hook('slack_incoming', { blocks: [{ type: 'section', text: 'T' }] }), 400, 'BAD_REQUEST', "payload['blocks'][0]['text'] is not a dict");
});

test("slack_incoming: an attachment's title, text, blocks and fields", async () => {
  const text =
    ':chart_with_upwards_trend: *<http://generator.local/1|Graph>*   :notebook: *<https://runbook.local/1|Runbook>*\n\n*Alert details*:\n*Alert:* api-server down - `critical`\n' +
    "*Description:* api-server at 1.2.3.4:8080 couldn't be scraped *Details:*\n   • *alertname:* `InstanceDown`\n   • *env:* `prod`\n  \n";
  await expectPosted(
    await hook('slack_incoming', {
      channel: '#prometheus-alerts',
      blocks: null,
      attachments: [{ title: '[FIRING:2] InstanceDown for api-server (env="prod", severity="critical")', title_link: 'https://alertmanager.local//#/alerts?receiver=default', text, footer: '' }],
    }),
    'prometheus-alerts',
    '## [[FIRING:2] InstanceDown for api-server (env="prod", severity="critical")](https://alertmanager.local//#/alerts?receiver=default)\n\n' +
      ':chart_with_upwards_trend: **[Graph](http://generator.local/1)**   :notebook: **[Runbook](https://runbook.local/1)**\n\n**Alert details**:\n**Alert:** api-server down - `critical`\n' +
      "**Description:** api-server at 1.2.3.4:8080 couldn't be scraped **Details:**\n   • **alertname:** `InstanceDown`\n   • **env:** `prod`",
  );
  const plain = (t: string) => ({ type: 'plain_text', text: t, emoji: true });
  await expectPosted(
    await hook('slack_incoming', {
      attachments: [
        {
          blocks: [
            { type: 'section', text: { type: 'mrkdwn', text: 'This is a section block with an accessory image.' }, accessory: { type: 'image', image_url: CAT, alt_text: 'cute cat' } },
            { type: 'section', text: { type: 'mrkdwn', text: 'This is a section block with a button.' }, accessory: { type: 'button', text: plain('Click Me'), value: 'click_me_123' } },
            { type: 'section', fields: ['one', 'two', 'three', 'four', 'five'].map(plain) },
          ],
        },
      ],
    }),
    NO_TOPIC,
    `This is a section block with an accessory image.\n\n[cute cat](${CAT})\n\nThis is a section block with a button.\n\n| | |\n|-|-|\n| one | two |\n| three | four |\n| five |  |`,
  );
  await expectPosted(
    await hook('slack_incoming', {
      attachments: [
        {
          color: 'good',
          fields: [
            { title: 'Requested by', value: 'Some user', short: true },
            { title: 'Duration', value: '00:02:03', short: true },
            { title: 'Build pipeline', value: 'ConsumerAddressModule', short: true },
            { title: 'Title with null value', value: null, short: true },
            { title: 'Title without value', short: true },
            { title: null, value: 'Value with null title', short: true },
            { value: 'Value without title', short: true },
            { title: null, value: null, short: true },
          ],
          pretext: 'Build bla bla succeeded',
        },
      ],
    }),
    NO_TOPIC,
    'Build bla bla succeeded\n\n**Requested by**: Some user\n**Duration**: 00:02:03\n**Build pipeline**: ConsumerAddressModule\n**Title with null value**\n**Title without value**\nValue with null title\nValue without title',
  );
});

test("slack_incoming: an attachment's pieces, each of which may be null; its time as <time:>, also from a string", async () => {
  await expectPosted(await hook('slack_incoming', { attachments: [{ title: 'Test', image_url: CAT, ts: 1655945306 }] }), NO_TOPIC, `## Test\n\n[](${CAT})\n\n<time:2022-06-23T00:48:26+00:00>`);
  const all = { title: 'Sample title.', title_link: 'https://www.google.com', image_url: CAT, ts: 1655945306, text: 'Sample text.', pretext: 'Sample pretext.', footer: 'Sample footer.' };
  const TITLE = '## [Sample title.](https://www.google.com)';
  const TIME = '<time:2022-06-23T00:48:26+00:00>';
  const cases: Array<[keyof typeof all, string]> = [
    ['title', `Sample pretext.\n\nSample text.\n\n[](${CAT})\n\nSample footer.\n\n${TIME}`],
    ['image_url', `${TITLE}\n\nSample pretext.\n\nSample text.\n\nSample footer.\n\n${TIME}`],
    ['ts', `${TITLE}\n\nSample pretext.\n\nSample text.\n\n[](${CAT})\n\nSample footer.`],
    ['text', `${TITLE}\n\nSample pretext.\n\n[](${CAT})\n\nSample footer.\n\n${TIME}`],
    ['pretext', `${TITLE}\n\nSample text.\n\n[](${CAT})\n\nSample footer.\n\n${TIME}`],
    ['footer', `${TITLE}\n\nSample pretext.\n\nSample text.\n\n[](${CAT})\n\n${TIME}`],
    ['title_link', `## Sample title.\n\nSample pretext.\n\nSample text.\n\n[](${CAT})\n\nSample footer.\n\n${TIME}`],
  ];
  for (const [field, expected] of cases) await expectPosted(await hook('slack_incoming', { attachments: [{ ...all, [field]: null }] }), NO_TOPIC, expected);
  // A time Slack sent as a string with a fraction; an image address that is not a URL as it stands, quoted.
  await expectPosted(
    await hook('slack_incoming', { attachments: [{ title: 'Test', image_url: 'https://example.com/a cat.png', ts: '1655945306.7' }] }),
    NO_TOPIC,
    `## Test\n\n[](https://example.com/a%20cat.png)\n\n${TIME}`,
  );
  assertError(await hook('slack_incoming', { attachments: [{ ts: 'soon' }] }), 400, 'BAD_REQUEST', "payload['attachments'][0]['ts'] is not an integer");
});

test("slack_incoming: errors raised while handling are answered in Slack's form, and a body that is not JSON does not tell the bot's owner", async () => {
  const owner = h.t.client(h.t.owner);
  const dmsBefore = assertSuccess(await owner.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }] })).messages.at(-1)?.id;
  const bad = await hook('slack_incoming', '{not json');
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body, { ok: false, error: 'Malformed JSON' });
  const dmsAfter = assertSuccess(await owner.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }] })).messages.at(-1)?.id;
  assert.equal(dmsAfter, dmsBefore);
  const filters = await hook('slack_incoming', { text: 'x' }, { query: { only_events: 'nope' } });
  assert.equal(filters.status, 400);
  assert.deepEqual(filters.body, { ok: false, error: 'Argument "only_events" is not valid JSON.' });
  // Nothing to send reads no filter.
  assertSuccess(await hook('slack_incoming', { text: '' }, { query: { only_events: 'nope' } }));
  // Authentication, and a payload's malformed fields, keep Zulip's answer.
  assertError(await hook('slack_incoming', { text: 'x' }, { apiKey: null }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'api_key' argument");
  assertError(await hook('slack_incoming', { channel: 5, text: 'x' }), 400, 'BAD_REQUEST', "payload['channel'] is not a string");
});
