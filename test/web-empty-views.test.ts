/**
 * What a view with no messages says in the web client, in real Chromium, as
 * Zulip's web app says it (its empty-narrow banners): a direct-message
 * conversation not yet started (and "start the conversation", which opens
 * the compose box there and sends), one's notes to oneself, someone unknown,
 * direct messages turned off; a topic with no messages (and starting it);
 * Mentions and Reactions; a channel whose topics are all muted; a private
 * channel one cannot see; a search that cannot match; a sender who wrote
 * nothing yet.
 * Skipped (with one line saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertSuccess, streamIdOf } from './helpers.ts';
import { browserTests, eventually, focusedLabel, goToHash, loginPage, PASSWORD, withWebServer } from './web-browser.ts';

await browserTests('the web client in Chromium: empty views', (newContext) => {
  test('each empty view says why in Zulip\u2019s words, and where one may write, "start the conversation" opens the compose box there', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Empty' });
      const carol = await t.makeUser({ name: 'Carol Quiet' });
      const bobApi = t.client(bob);
      const general = await streamIdOf(bobApi, 'general');
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'hush', description: '' }]), principals: JSON.stringify([t.owner.id, bob.id]) }));
      assertSuccess(await owner.post('/messages', { type: 'stream', to: 'hush', topic: 'only topic', content: 'muted away' }));
      const hush = await streamIdOf(bobApi, 'hush');
      assertSuccess(await bobApi.post('/user_topics', { stream_id: hush, topic: 'only topic', visibility_policy: 1 }));
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'vault' }]), invite_only: 'true' }));
      const vault = await streamIdOf(owner, 'vault');

      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      const history = page.getByRole('log', { name: 'History' });
      const says = async (hash: string, ...lines: string[]) => {
        await goToHash(page, hash);
        for (const line of lines) await history.getByText(line, { exact: true }).waitFor();
      };
      const start = history.getByRole('button', { name: 'start the conversation' });

      // A conversation with Carol not started: started from the view, the message at the server.
      await says(`#narrow/dm/${carol.id}-carol`, 'You have no direct messages with Carol Quiet yet.');
      await start.click();
      const message = page.getByLabel('Message', { exact: true });
      assert.equal(await focusedLabel(page, 'Message'), 'Message');
      await message.fill('Hello Carol');
      await message.press('Enter');
      await eventually(async () => {
        const r = assertSuccess(await t.client(carol).get('/messages', { anchor: 'newest', num_before: 1, num_after: 0 }));
        return r.messages[0]?.content === '<p>Hello Carol</p>';
      }, 'the message at the server');
      await eventually(async () => (await history.getByText('You have no direct messages with Carol Quiet yet.').count()) === 0, 'the notice gone');

      await says(`#narrow/dm/${bob.id}-bob`, "You haven't sent yourself any notes yet!");
      await says('#narrow/dm/999999-nobody', 'This user does not exist!');

      // A topic with no messages: started from the view, in that topic.
      await says(`#narrow/channel/${general}-general/topic/fresh.20ideas`, 'There are no messages here.');
      await start.click();
      await eventually(async () => (await page.getByLabel('Topic', { exact: true }).inputValue()) === 'fresh ideas', 'the topic in the box');
      await message.fill('First idea');
      await message.press('Enter');
      await eventually(async () => (assertSuccess(await bobApi.get(`/users/me/${general}/topics`)).topics as Array<{ name: string }>).some((x) => x.name === 'fresh ideas'), 'the topic at the server');

      await says('#narrow/is/mentioned', 'This view will show messages where you are mentioned.');
      await says('#narrow/has/reaction/sender/me', 'None of your messages have emoji reactions yet.');
      await says(`#narrow/channel/${hush}-hush`, 'You have muted all the topics in this channel.');
      await says(`#narrow/channel/${vault}-vault`, "This channel doesn't exist, or you are not allowed to view it.");
      await says(`#narrow/channel/${general}-general/channel/${hush}-hush`, 'No search results.', 'You are searching for messages that belong to more than one channel, which is not possible.');
      await says(`#narrow/sender/${carol.id}-carol`, "You haven't received any messages sent by Carol Quiet yet.");
      assert.equal(await start.count(), 0);

      // Direct messages turned off: the conversation's view says so, and offers no start.
      const groups = assertSuccess(await owner.get('/user_groups')).user_groups as Array<{ id: number; name: string }>;
      const nobody = groups.find((g) => g.name === 'role:nobody')!.id;
      assertSuccess(await owner.patch('/realm', { direct_message_permission_group: JSON.stringify({ new: nobody }) }));
      const dave = await t.makeUser({ name: 'Dave Later' });
      await says(`#narrow/dm/${dave.id}-dave`, 'Direct messages are disabled in this organization.');
      assert.equal(await start.count(), 0);
      await ctx.close();
    }));
});
