/**
 * The Wekan and WordPress integrations: Zulip's own test cases (Wekan's
 * sentences with their link; WordPress posts and pages, placeholders for
 * fields not sent, unknown actions refused).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('cms');
const { hook, expectPosted } = h;

const FORM = { contentType: 'application/x-www-form-urlencoded' };
const BOARD = 'http://127.0.0.1/b/Jinj4Xj7qnHLRmrTY/bucket-list';
const CARD = `${BOARD}/pMtu7kPZvMuhhC4hL`;
const wekan = (text: string, url: string) => ({ text: `${text}\n${url}`, user: 'JohnFish', description: 'act-x' });

test('wekan: each sentence with its link to the card or board', async () => {
  const m = await expectPosted(
    await hook('wekan', wekan('JohnFish commented on card "Markdown and emoji\'s": "This feature is important" at list "Design" at swimlane "Default" at board "Bucket List"', CARD), FORM),
    'Wekan Notification',
    `JohnFish commented on card "Markdown and emoji's": "This feature is important" at list "Design" at swimlane "Default" at board "Bucket List".\n\n[See in Wekan](${CARD})`,
  );
  assert.equal(m.client, 'ZulipWekanWebhook');
  await expectPosted(
    await hook('wekan', wekan('JohnFish Swimlane "Default" at board "Bucket List" moved to Archive', BOARD), FORM),
    'Wekan Notification',
    `JohnFish Swimlane "Default" at board "Bucket List" moved to Archive.\n\n[See in Wekan](${BOARD})`,
  );
  await expectPosted(await hook('wekan', wekan('JohnFish act-removeList', BOARD)), 'Wekan Notification', `JohnFish act-removeList.\n\n[See in Wekan](${BOARD})`);
  // A sentence over two lines is joined; the URL is taken out wherever it appears.
  await expectPosted(await hook('wekan', { text: `JohnFish moved card\n at ${BOARD} to list "Done"\n${BOARD}` }), 'Wekan Notification', `JohnFish moved card at  to list "Done".\n\n[See in Wekan](${BOARD})`);
  assertError(await hook('wekan', { user: 'JohnFish' }), 400, 'BAD_REQUEST', "payload['text'] is missing");
  assert.equal((await h.listed('wekan'))?.display_name, 'Wekan');
});

test('wordpress: posts and pages published, placeholders for fields not sent; unknown actions refused', async () => {
  // WordPress's form ends its last field with a line break, as Zulip's fixtures do.
  const m = await expectPosted(
    await hook('wordpress', 'hook=publish_post&post_type=post&post_title=New%20Blog%20Post&post_url=http%3A%2F%2Fexample.com\n', FORM),
    'WordPress notification',
    'New post published:\n* [New Blog Post](http://example.com\n)',
  );
  assert.equal(m.client, 'ZulipWordPressWebhook');
  await expectPosted(
    await hook('wordpress', 'topic=WordPress%20Page&hook=publish_page&post_type=page&post_title=New%20Blog%20Page&post_url=http%3A%2F%2Fexample.com', FORM),
    'WordPress Page',
    'New page published:\n* [New Blog Page](http://example.com)',
  );
  await expectPosted(await hook('wordpress', 'hook=publish_post\n', FORM), 'WordPress notification', 'New post published:\n* [New WordPress post](WordPress post URL)');
  assertError(await hook('wordpress', '', FORM), 400, 'BAD_REQUEST', 'Unknown WordPress webhook action: WordPress action');
  assertError(await hook('wordpress', 'hook=delete_post&post_title=x', FORM), 400, 'BAD_REQUEST', 'Unknown WordPress webhook action: delete_post');
  const listed = await h.listed('wordpress');
  assert.equal(listed?.display_name, 'WordPress');
  assert.deepEqual(listed?.all_event_types, ['publish_post', 'publish_page']);
});
