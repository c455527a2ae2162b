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
});
