/**
 * Zapier and IFTTT incoming webhooks: the topic (or the older `subject`) and
 * the content as the service composed them, Zulip's errors for what is
 * missing or malformed, and Zapier's connection check answered with the
 * bot's identity.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('automation');
const { hook, last, expectPosted } = h;

for (const name of ['zapier', 'ifttt']) {
  test(`${name}: topic or subject, and content, posted as they are; a missing one is Zulip's 400`, async () => {
    await expectPosted(
      await hook(name, { subject: 'New email from zulip@zulip.com', content: 'Your email content is: \nMy Email content.' }),
      'New email from zulip@zulip.com',
      'Your email content is: \nMy Email content.',
    );
    await expectPosted(
      await hook(name, { topic: 'Here is your weather update for the day:', content: 'Foggy in the morning.\nMaximum temperature to be 24.\nMinimum temperature to be 12' }),
      'Here is your weather update for the day:',
      'Foggy in the morning.\nMaximum temperature to be 24.\nMinimum temperature to be 12',
    );
    // topic wins over subject; the topic parameter wins over both.
    await expectPosted(await hook(name, { topic: 'new', subject: 'old', content: 'x' }), 'new', 'x');
    await expectPosted(await hook(name, { topic: 'new', content: 'y' }, { query: { topic: 'chosen' } }), 'chosen', 'y');

    const before = (await last()).id;
    assertError(await hook(name, { content: 'Email subject: Subject' }), 400, 'BAD_REQUEST', "Topic can't be empty");
    assertError(await hook(name, { topic: null, content: 'x' }), 400, 'BAD_REQUEST', "Topic can't be empty");
    assertError(await hook(name, { topic: 'Email sent from email@email.com' }), 400, 'BAD_REQUEST', "Content can't be empty");
    assertError(await hook(name, '{"topic": '), 400, 'BAD_REQUEST');
    assert.equal((await last()).id, before);
  });
}

test('ifttt: a topic or content that is not text is "Malformed payload"', async () => {
  const before = (await last()).id;
  assertError(await h.hook('ifttt', { topic: { wrong: 'example' }, content: 'Email subject: Subject' }), 400, 'BAD_REQUEST', 'Malformed payload');
  assertError(await h.hook('ifttt', { topic: 'Email sent from email@email.com', content: { wrong: 'example' } }), 400, 'BAD_REQUEST', 'Malformed payload');
  assertError(await h.hook('ifttt', [1, 2]), 400, 'BAD_REQUEST', 'Malformed payload');
  assert.equal((await last()).id, before);
});

test("zapier: the app's connection check answers the bot's name, email and ID and sends nothing; a malformed field is a 400 naming it", async () => {
  const before = (await last()).id;
  const res = await hook('zapier', { type: 'auth' });
  assert.deepEqual(assertSuccess(res), { result: 'success', msg: '', full_name: 'Hook Bot', email: h.bot.email, id: h.bot.id });
  // Without `stream` as well (the app checks the key alone).
  assert.equal(assertSuccess(await hook('zapier', { type: 'auth' }, { stream: null })).id, h.bot.id);
  assert.equal((await last()).id, before);
  assertError(await hook('zapier', { topic: { wrong: 'example' }, content: 'x' }), 400, 'BAD_REQUEST', "payload['topic'] is not a string");
  assertError(await hook('zapier', { type: 7 }), 400, 'BAD_REQUEST', "payload['type'] is not a string");
  // The older `subject` is read after the content, as Zulip reads them.
  assertError(await hook('zapier', { subject: 5, content: 6 }), 400, 'BAD_REQUEST', "payload['content'] is not a string");
  assertError(await hook('zapier', { subject: 5, content: 'x' }), 400, 'BAD_REQUEST', "payload['subject'] is not a string");
});

test("a payload that is not JSON: 400 \"Malformed JSON\", and the bot's owner is told (not for Zapier, as Zulip)", async () => {
  const owner = h.t.client(h.t.owner);
  const newBot = async (name: string) => {
    const b = assertSuccess(await owner.post('/bots', { full_name: name, short_name: name.toLowerCase().replace(/ /g, '-'), bot_type: 2 }));
    return b.api_key as string;
  };
  const dm = [{ operator: 'dm', operand: 'notification-bot@zulip.com' }];
  const lastNotice = async () => (await last(dm))?.id ?? 0;

  const zapierKey = await newBot('Zap Bot');
  const before = await lastNotice();
  assertError(await hook('zapier', '{"topic": ', { apiKey: zapierKey }), 400, 'BAD_REQUEST', 'Malformed JSON');
  assert.equal(await lastNotice(), before);

  const iftttKey = await newBot('Applet Bot');
  assertError(await hook('ifttt', 'topic=x', { apiKey: iftttKey, contentType: 'application/x-www-form-urlencoded' }), 400, 'BAD_REQUEST', 'Malformed JSON');
  const notice = await last(dm);
  assert.ok(notice.id > before);
  assert.equal(notice.sender_email, 'notification-bot@zulip.com');
  assert.equal(
    notice.content,
    "Hi there! It looks like you tried to set up the Zulip IFTTT integration,\nbut didn't correctly configure the webhook to send data in the JSON format\nthat this integration expects!",
  );
  // At most once a day per bot.
  assertError(await hook('ifttt', '', { apiKey: iftttKey }), 400, 'BAD_REQUEST', 'Malformed JSON');
  assert.equal(await lastNotice(), notice.id);
});
