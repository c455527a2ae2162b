/**
 * Muted users and alert words in the web client, in real Chromium: a user
 * muted from their card (as the server then has it), their messages
 * collapsed and revealable one by one, their name left out of People, the
 * conversations list, the compose box's suggestions and who is typing;
 * unmuted from Settings; a mute the page missed refused with the server's
 * reason; mutes made elsewhere showing live. Alert words added (several
 * at once) and removed in Settings, as the server has them, a refusal with
 * the server's reason, words added elsewhere showing live, and a message
 * containing one with the word highlighted (not inside code) and notifying.
 * The topics one muted, unmuted or followed, listed in Settings and changed
 * there; All messages leaving out a muted topic or channel at once, and
 * taking it back once unmuted; a channel's view leaving out a muted topic
 * but its messages that mention the user.
 * Skipped (with one line saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertSuccess, type Client, streamIdOf } from './helpers.ts';
import { browserTests, eventGate, eventually, goToHash, loginPage, messageRow, notificationsShown, PASSWORD, recordNotifications, selectedText, setInFront, withWebServer, openSettings } from './web-browser.ts';

const sendTo = async (c: Client, topic: string, content: string) => assertSuccess(await c.post('/messages', { type: 'stream', to: 'general', topic, content }));

/** The IDs of the users `c`'s account muted, as the server has them. */
async function mutedAtServer(c: Client): Promise<number[]> {
  const r = assertSuccess(await c.post('/register', { fetch_event_types: ['muted_users'] }));
  return (r.muted_users as Array<{ id: number }>).map((u) => u.id).sort((a, b) => a - b);
}

/** Sets `c`'s visibility policy of a topic (1 muted, 0 none), which must succeed. */
const setTopicPolicy = async (c: Client, streamId: number, topic: string, policy: number) => assertSuccess(await c.post('/user_topics', { stream_id: streamId, topic, visibility_policy: policy }));

/** The account's alert words, as the server has them. */
async function alertWordsAtServer(c: Client): Promise<string[]> {
  return (assertSuccess(await c.get('/users/me/alert_words')).alert_words as string[]).sort();
}

const settings = (page: Page) => page.getByRole('dialog', { name: 'Settings' });

const person = (page: Page, name: string) => page.getByRole('complementary', { name: 'People' }).getByRole('button', { name: new RegExp(`^${name}\\b`) });

await browserTests('the web client in Chromium: muted users and alert words', (newContext) => {
  test("muting from the card: the server has it, the sender's messages collapse and show one by one, left out of People, conversations and suggestions; unmuted in Settings; a refusal with the server's reason", () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Muter' });
      const carol = await t.makeUser({ name: 'Carol Loud' });
      const carmen = await t.makeUser({ name: 'Carmen Calm' });
      const bobApi = t.client(bob);
      const carolApi = t.client(carol);
      const sent = await sendTo(carolApi, 'noise', 'Carol first words');
      const general = assertSuccess(await carolApi.get(`/messages/${sent.id}`)).message.stream_id as number;
      await sendTo(carolApi, 'noise', 'Carol second words');
      assertSuccess(await carolApi.post('/messages', { type: 'direct', to: JSON.stringify([bob.id]), content: 'Carol whispers' }));
      assertSuccess(await bobApi.post('/messages', { type: 'direct', to: JSON.stringify([carol.id]), content: 'Bob answers Carol' }));

      const ctx = await newContext();
      const events = await eventGate(ctx);
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      const first = messageRow(page, 'Carol first words');
      await first.waitFor();
      await messageRow(page, 'Carol whispers').waitFor();
      const conversations = page.getByRole('navigation', { name: 'Conversations' });
      await conversations.getByRole('link', { name: /Carol Loud/ }).waitFor();

      // Mute from her card (opened from her message's name).
      await first.getByRole('button', { name: 'Carol Loud' }).click();
      const card = page.getByRole('dialog', { name: 'Carol Loud' });
      await card.getByRole('button', { name: 'Mute this user' }).click();
      await card.getByRole('button', { name: 'Unmute this user' }).waitFor();
      assert.deepEqual(await mutedAtServer(bobApi), [carol.id]);
      await card.getByRole('button', { name: 'Close' }).click();

      // Her channel messages are collapsed, without her name; each is shown on its own. Their one-on-one conversation is not shown at all (either way: Zulip's).
      const hiddenText = 'This message was hidden because you muted the sender.';
      await eventually(async () => (await page.getByText(hiddenText).count()) === 2, 'her two channel messages to be hidden');
      assert.equal(await page.getByText('Carol first words').count(), 0);
      assert.equal(await page.getByText('Carol whispers').count(), 0);
      assert.equal(await page.getByText('Bob answers Carol').count(), 0);
      assert.equal(await page.getByRole('log', { name: 'History' }).getByRole('button', { name: 'Carol Loud' }).count(), 0);
      const hiddenRows = page.getByRole('article', { name: /^Muted user, / });
      assert.equal(await hiddenRows.count(), 2);
      await hiddenRows.nth(1).getByRole('button', { name: 'Show message' }).click();
      await messageRow(page, 'Carol second words').waitFor();
      assert.equal(await page.getByText('Carol first words').count(), 0);
      assert.equal(await page.getByText(hiddenText).count(), 1);
      // Hidden again from its menu (offered only on a shown message of a muted sender).
      const shown = messageRow(page, 'Carol second words');
      await shown.hover();
      await shown.getByRole('button', { name: 'More actions' }).click();
      await page.getByRole('menu', { name: 'More actions' }).getByRole('menuitem', { name: 'Hide muted message again' }).click();
      await eventually(async () => (await page.getByText(hiddenText).count()) === 2, 'the message hidden again');
      assert.equal(await page.getByText('Carol second words').count(), 0);
      await hiddenRows.nth(1).getByRole('button', { name: 'Show message' }).click();
      await messageRow(page, 'Carol second words').waitFor();

      // The one-on-one conversation itself shows it: hers collapsed, his as it is (Zulip's).
      await goToHash(page, `#narrow/dm/${carol.id}`);
      await messageRow(page, 'Bob answers Carol').waitFor();
      await page.getByRole('article', { name: /^Muted user, / }).getByText(hiddenText).waitFor();
      assert.equal(await page.getByText('Carol whispers').count(), 0);
      await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^All messages/ }).click();
      await eventually(async () => (await page.getByText(hiddenText).count()) === 2, 'back in All messages');

      // Left out of People, the conversations list and the compose box's suggestions.
      await eventually(async () => (await person(page, 'Carol Loud').count()) === 0, 'Carol to leave People');
      assert.equal(await conversations.getByRole('link', { name: /Carol Loud/ }).count(), 0);
      const box = page.getByLabel('Message', { exact: true });
      await box.fill('@Car');
      const suggestions = page.getByRole('listbox', { name: 'Suggestions' });
      await suggestions.getByRole('option', { name: /Carmen Calm/ }).waitFor();
      assert.equal(await suggestions.getByRole('option', { name: /Carol Loud/ }).count(), 0);
      await box.fill('');

      // In the topic, who is typing: Carmen shows, Carol (whose notice came first) does not.
      await page.getByRole('log', { name: 'History' }).getByRole('link', { name: 'noise', exact: true }).first().click();
      await eventually(async () => (await page.getByLabel('Topic', { exact: true }).inputValue()) === 'noise', 'the compose box to write to the topic');
      const typing = { type: 'stream', stream_id: general, topic: 'noise', op: 'start' };
      assertSuccess(await carolApi.post('/typing', typing));
      assertSuccess(await t.client(carmen).post('/typing', typing));
      await page.getByText('Carmen Calm is typing\u2026', { exact: true }).waitFor();
      assert.equal(await page.getByText(/Carol Loud.*typing/).count(), 0);

      // Unmuted in Settings: the server has it, and her messages show again.
      const dialog = await openSettings(page);
      const mutedList = dialog.getByRole('list', { name: 'Muted users' });
      await mutedList.getByRole('listitem', { name: 'Carol Loud' }).getByText(/muted since/).waitFor();
      await mutedList.getByRole('button', { name: 'Unmute Carol Loud' }).click();
      await dialog.getByText('You have not muted anyone.', { exact: false }).waitFor();
      assert.deepEqual(await mutedAtServer(bobApi), []);
      await page.keyboard.press('Escape');
      await messageRow(page, 'Carol first words').waitFor();
      assert.equal(await page.getByText(hiddenText).count(), 0);
      await person(page, 'Carol Loud').waitFor();
      await conversations.getByRole('link', { name: /Carol Loud/ }).waitFor();

      // Muted elsewhere while the page misses the event: the card still offers to mute, and the server's refusal shows.
      await person(page, 'Carol Loud').click();
      await card.getByRole('button', { name: 'Mute this user' }).waitFor();
      events.hold();
      assertSuccess(await bobApi.post(`/users/me/muted_users/${carol.id}`));
      await card.getByRole('button', { name: 'Mute this user' }).click();
      await card.getByRole('alert').filter({ hasText: 'User already muted' }).waitFor();
      assert.deepEqual(await mutedAtServer(bobApi), [carol.id]);
      events.release();
      await card.getByRole('button', { name: 'Unmute this user' }).waitFor();
      await ctx.close();
    }));

  test('mutes and unmutes made elsewhere show live', () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Watcher' });
      const dave = await t.makeUser({ name: 'Dave Chatty' });
      const bobApi = t.client(bob);
      await sendTo(t.client(dave), 'chat', 'Dave says something');
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      const row = messageRow(page, 'Dave says something');
      await row.waitFor();
      const dialog = await openSettings(page);
      await dialog.getByText('You have not muted anyone.', { exact: false }).waitFor();

      assertSuccess(await bobApi.post(`/users/me/muted_users/${dave.id}`));
      await dialog.getByRole('list', { name: 'Muted users' }).getByRole('listitem', { name: 'Dave Chatty' }).waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('article', { name: /^Muted user, / }).getByText('This message was hidden because you muted the sender.').waitFor();
      assert.equal(await page.getByText('Dave says something').count(), 0);

      assertSuccess(await bobApi.delete(`/users/me/muted_users/${dave.id}`));
      await messageRow(page, 'Dave says something').waitFor();
      assert.equal(await page.getByRole('article', { name: /^Muted user, / }).count(), 0);
      await ctx.close();
    }));

  test("All messages follows muting at once, as Zulip's combined feed: a topic or a channel muted leaves it, unmuted comes back (with what came while it was muted), in view or while kept between visits", () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Muter' });
      const bobApi = t.client(bob);
      await sendTo(owner, 'topic one', 'alpha in one');
      await sendTo(owner, 'topic two', 'beta in two');
      assertSuccess(await bobApi.request('PATCH', '/settings', { web_home_view: 'all_messages' }));
      const general = await streamIdOf(bobApi, 'general');
      const topicPolicy = (policy: number) => setTopicPolicy(bobApi, general, 'topic one', policy);
      const channelMuted = async (muted: boolean) =>
        assertSuccess(await bobApi.post('/users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: general, property: 'is_muted', value: muted }]) }));
      const shown = (text: string) => messageRow(page, text).count();

      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      await page.getByRole('heading', { name: 'All messages', exact: true }).waitFor();
      await messageRow(page, 'alpha in one').waitFor();
      await messageRow(page, 'beta in two').waitFor();

      // In view: the muted topic leaves, the other stays; unmuted, it comes back.
      await topicPolicy(1);
      await eventually(async () => (await shown('alpha in one')) === 0, 'the muted topic gone');
      assert.equal(await shown('beta in two'), 1);
      // A message to the muted topic while it is muted: not shown; unmuted, it is there with the others.
      await sendTo(owner, 'topic one', 'gamma while muted');
      await sendTo(owner, 'topic two', 'delta after it');
      await messageRow(page, 'delta after it').waitFor();
      assert.equal(await shown('gamma while muted'), 0);
      await topicPolicy(0);
      await messageRow(page, 'alpha in one').waitFor();
      await messageRow(page, 'gamma while muted').waitFor();

      // The channel muted and unmuted.
      await channelMuted(true);
      await eventually(async () => (await shown('alpha in one')) + (await shown('beta in two')) === 0, 'the muted channel gone');
      await channelMuted(false);
      await messageRow(page, 'alpha in one').waitFor();
      await messageRow(page, 'beta in two').waitFor();

      // Kept while in the inbox: muted then, gone on coming back; unmuted then, back on coming back.
      const views = page.getByRole('navigation', { name: 'Views' });
      const awayWhile = async (change: () => Promise<unknown>) => {
        await views.getByRole('link', { name: /^Inbox/ }).click();
        await page.getByRole('heading', { name: 'Inbox', exact: true }).waitFor();
        await change();
        // (The event reached the page: the inbox shows the topic's state.)
        await new Promise((r) => setTimeout(r, 500));
        await views.getByRole('link', { name: /^All messages/ }).click();
        await page.getByRole('heading', { name: 'All messages', exact: true }).waitFor();
      };
      await awayWhile(() => topicPolicy(1));
      await messageRow(page, 'beta in two').waitFor();
      await eventually(async () => (await shown('alpha in one')) === 0, 'the topic muted while away gone');
      await awayWhile(() => topicPolicy(0));
      await messageRow(page, 'alpha in one').waitFor();
      await ctx.close();
    }));

  test("a channel's view leaves out a muted topic's messages but those that mention the user, live; the topic's own view shows them (Zulip's)", () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Muter' });
      const bobApi = t.client(bob);
      await sendTo(owner, 'topic one', 'alpha in one');
      await sendTo(owner, 'topic one', '@**Bob Muter** beta mentions you');
      await sendTo(owner, 'topic two', 'gamma in two');
      const general = await streamIdOf(bobApi, 'general');
      const topicPolicy = (policy: number) => setTopicPolicy(bobApi, general, 'topic one', policy);
      const shown = (text: string) => messageRow(page, text).count();

      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      await goToHash(page, `#narrow/channel/${general}-general`);
      await page.getByRole('heading', { name: '#general', exact: true }).waitFor();
      await messageRow(page, 'gamma in two').waitFor();
      await messageRow(page, 'alpha in one').waitFor();

      await topicPolicy(1);
      await eventually(async () => (await shown('alpha in one')) === 0, 'the muted topic left out');
      assert.equal(await shown('beta mentions you'), 1);
      assert.equal(await shown('gamma in two'), 1);

      // The topic's own view: all of it.
      await goToHash(page, `#narrow/channel/${general}-general/topic/topic.20one`);
      await page.getByRole('heading', { name: '#general › topic one', exact: true }).waitFor();
      await messageRow(page, 'alpha in one').waitFor();
      await messageRow(page, 'beta mentions you').waitFor();

      // Back in the channel and unmuted: shown again.
      await goToHash(page, `#narrow/channel/${general}-general`);
      await messageRow(page, 'gamma in two').waitFor();
      assert.equal(await shown('alpha in one'), 0);
      await topicPolicy(0);
      await messageRow(page, 'alpha in one').waitFor();
      await ctx.close();
    }));

  test("the compose box's channel, when none is chosen, is that of the newest channel message shown: not one a muting leaves out", () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Composer' });
      const bobApi = t.client(bob);
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'design' }]), principals: JSON.stringify([bob.id]) }));
      const design = await streamIdOf(bobApi, 'design');
      const general = await streamIdOf(bobApi, 'general');
      assertSuccess(await owner.post('/messages', { type: 'stream', to: 'design', topic: 'plans', content: 'design first' }));
      await sendTo(owner, 'noise', 'general newest');

      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      await goToHash(page, '#feed');
      await messageRow(page, 'general newest').waitFor();
      const channel = page.getByLabel('Channel', { exact: true });
      await eventually(async () => (await channel.inputValue()) === String(general), 'the newest message\u2019s channel');
      await setTopicPolicy(bobApi, general, 'noise', 1);
      await eventually(async () => (await messageRow(page, 'general newest').count()) === 0, 'the muted topic left out');
      await eventually(async () => (await channel.inputValue()) === String(design), 'the channel of the newest message shown');
      await ctx.close();
    }));

  test("topics muted, unmuted or followed, in Settings (Zulip's #settings/topics): listed newest first, as the server has them, live; a state changed there (Default takes it off the list); filtered by name; a link to the topic", () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Topics' });
      const bobApi = t.client(bob);
      const general = await streamIdOf(bobApi, 'general');
      // (Sent by someone else: the topics one starts are followed by default.)
      await sendTo(t.client(t.owner), 'Lunch Plans', 'where to eat');
      await sendTo(t.client(t.owner), 'release', 'on Friday');
      const policy = (topic: string, visibility_policy: number) => bobApi.post('/user_topics', { stream_id: general, topic, visibility_policy });
      const atServer = async () => {
        const r = assertSuccess(await bobApi.post('/register', { fetch_event_types: ['user_topic'] }));
        return Object.fromEntries((r.user_topics as Array<{ topic_name: string; visibility_policy: number }>).map((u) => [u.topic_name, u.visibility_policy]));
      };
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      await page.evaluate(() => ((globalThis as any).location.hash = '#settings/topics'));
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      await dialog.getByText('You have not muted, unmuted or followed any topic.', { exact: false }).waitFor();

      // Made elsewhere: they show, the newest change first, with the topic's name as written.
      assertSuccess(await policy('Lunch Plans', 1));
      await new Promise((r) => setTimeout(r, 1100));
      assertSuccess(await policy('release', 3));
      const list = dialog.getByRole('list', { name: 'Topics' });
      await eventually(async () => (await list.getByRole('listitem').count()) === 2, 'two topics listed');
      assert.deepEqual(await list.getByRole('listitem').evaluateAll((items) => items.map((i) => i.getAttribute('aria-label'))), ['#general > release', '#general > Lunch Plans']);
      const state = (name: string) => dialog.getByLabel(`State of #general > ${name}`);
      assert.equal(await selectedText(state('release')), 'Followed');
      assert.equal(await selectedText(state('Lunch Plans')), 'Muted');

      // Changed here: the server has it.
      await state('Lunch Plans').selectOption({ label: 'Followed' });
      await eventually(async () => (await atServer())['Lunch Plans'] === 3, 'followed at the server');
      await state('release').selectOption({ label: 'Default' });
      await eventually(async () => !('release' in (await atServer())), 'no state at the server');
      await eventually(async () => (await list.getByRole('listitem').count()) === 1, 'the topic off the list');

      // Filtered by channel or topic name.
      assertSuccess(await policy('release', 2));
      await eventually(async () => (await list.getByRole('listitem').count()) === 2, 'listed again');
      await dialog.getByLabel('Find a topic').fill('dinner');
      await dialog.getByText('No topics match.').waitFor();
      await dialog.getByLabel('Find a topic').fill('lunch');
      await eventually(async () => (await list.getByRole('listitem').count()) === 1, 'one topic found');
      // Its link opens the topic.
      await list.getByRole('link', { name: '#general > Lunch Plans' }).click();
      await page.getByRole('heading', { name: '#general › Lunch Plans' }).waitFor();
      await messageRow(page, 'where to eat').waitFor();
      await ctx.close();
    }));

  test("a message sent to a muted topic, or a muted channel, says the user will not be notified (Zulip's notice); Unmute topic unmutes it there", () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Quiet' });
      const bobApi = t.client(bob);
      const owner = t.client(t.owner);
      await sendTo(owner, 'noise', 'loud things');
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'lounge' }]), principals: JSON.stringify([t.owner.id, bob.id]) }));
      assertSuccess(await owner.post('/messages', { type: 'stream', to: 'lounge', topic: 'chatter', content: 'idle talk' }));
      assertSuccess(await owner.post('/messages', { type: 'stream', to: 'lounge', topic: 'gossip', content: 'did you hear' }));
      const general = await streamIdOf(bobApi, 'general');
      const lounge = await streamIdOf(bobApi, 'lounge');
      await setTopicPolicy(bobApi, general, 'noise', 1);
      assertSuccess(await bobApi.post('/users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: lounge, property: 'is_muted', value: true }]) }));
      const policyAtServer = async (streamId: number, topic: string) => {
        const r = assertSuccess(await bobApi.post('/register', { fetch_event_types: ['user_topic'] }));
        return (r.user_topics as Array<{ stream_id: number; topic_name: string; visibility_policy: number }>).find((u) => u.stream_id === streamId && u.topic_name === topic)?.visibility_policy ?? 0;
      };
      const page = await loginPage(await newContext(), t.url, bob.email, PASSWORD);
      const notice = page.locator('.compose-banner', { hasText: 'You will not receive notifications about new messages.' });
      const box = page.getByLabel('Message', { exact: true });

      /** Opens the topic (its message `seen` in view), sends `text` there; once the server has answered and the page has drawn, the notice's text, or null without one. */
      const sendIn = async (streamId: number, name: string, topic: string, seen: string, text: string) => {
        await page.evaluate((h) => ((globalThis as any).location.hash = h), `#narrow/channel/${streamId}-${name}/topic/${topic}`);
        await messageRow(page, seen).waitFor();
        await box.fill(text);
        const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/json/messages' && r.request().method() === 'POST');
        await box.press('Enter');
        await answered;
        await messageRow(page, text).waitFor();
        await page.evaluate(() => new Promise((done) => (globalThis as any).requestAnimationFrame(() => (globalThis as any).requestAnimationFrame(done))));
        return (await notice.count()) ? (await notice.locator('span').textContent())!.trim() : null;
      };
      const unmuteFromNotice = async (streamId: number, topic: string, policy: number) => {
        await notice.getByRole('button', { name: 'Unmute topic' }).click();
        await eventually(async () => (await policyAtServer(streamId, topic)) === policy, `${topic}: policy ${policy} at the server`);
        await notice.waitFor({ state: 'detached' });
      };

      // A muted topic: the notice; Unmute topic takes the mute off (no policy); then no notice.
      assert.equal(await sendIn(general, 'general', 'noise', 'loud things', 'me too'), 'Your message was sent to a topic you have muted. You will not receive notifications about new messages.');
      await unmuteFromNotice(general, 'noise', 0);
      assert.equal(await sendIn(general, 'general', 'noise', 'loud things', 'and again'), null);

      // A muted channel's topic: Zulip's default unmutes it as one sends there (the answer's automatic_new_visibility_policy): no notice.
      assert.equal(await sendIn(lounge, 'lounge', 'chatter', 'idle talk', 'hello lounge'), null);
      await eventually(async () => (await policyAtServer(lounge, 'chatter')) === 2, 'unmuted by the send');
      // With that turned off: the notice names the channel; Unmute topic unmutes the topic there.
      assertSuccess(await bobApi.patch('/settings', { automatically_unmute_topics_in_muted_streams_policy: 4 }));
      assert.equal(await sendIn(lounge, 'lounge', 'gossip', 'did you hear', 'tell me more'), 'Your message was sent to a channel you have muted. You will not receive notifications about new messages.');
      await unmuteFromNotice(lounge, 'gossip', 2);
    }));

  test("alert words: added and removed in Settings as the server has them, the server's refusal shown, changes elsewhere live, a message with one highlighted and notifying as a mention does", () =>
    withWebServer(async (t) => {
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Alert' });
      const erin = await t.makeUser({ name: 'Erin Sender' });
      const bobApi = t.client(bob);
      const ctx = await newContext();
      await recordNotifications(ctx);
      const page = await loginPage(ctx, t.url, bob.email, PASSWORD);
      const shown = async () => (await notificationsShown(page)).map((n) => n.body);
      const dialog = await openSettings(page);
      const field = dialog.getByLabel(/^New alert words \(separated by commas/);
      const list = dialog.getByRole('list', { name: 'Alert words' });

      // Two at once.
      await field.fill('deploy, Outage');
      await dialog.getByRole('button', { name: 'Add', exact: true }).click();
      await dialog.getByRole('status').filter({ hasText: 'Alert words added.' }).waitFor();
      assert.deepEqual(await alertWordsAtServer(bobApi), ['Outage', 'deploy']);
      await list.getByRole('listitem', { name: 'Outage' }).waitFor();
      await list.getByRole('listitem', { name: 'deploy' }).waitFor();

      // One the server refuses (too long): its reason shows, nothing changes.
      await field.fill('x'.repeat(101));
      await dialog.getByRole('button', { name: 'Add', exact: true }).click();
      const refusal = dialog.getByRole('alert').filter({ hasText: /too long/ });
      await refusal.waitFor();
      assert.deepEqual(await alertWordsAtServer(bobApi), ['Outage', 'deploy']);

      // One with a comma, in double quotes, beside another.
      await field.fill('"hello, world", ping');
      await dialog.getByRole('button', { name: 'Add', exact: true }).click();
      await eventually(async () => (await alertWordsAtServer(bobApi)).join('|') === 'Outage|deploy|hello, world|ping', 'the quoted word whole at the server');
      await list.getByRole('button', { name: 'Remove hello, world' }).click();
      await list.getByRole('button', { name: 'Remove ping' }).click();
      await eventually(async () => (await alertWordsAtServer(bobApi)).length === 2, 'both removed');

      // Removed.
      await list.getByRole('button', { name: 'Remove deploy' }).click();
      await eventually(async () => (await list.getByRole('listitem', { name: 'deploy' }).count()) === 0, 'deploy to leave the list');
      assert.deepEqual(await alertWordsAtServer(bobApi), ['Outage']);

      // Added elsewhere: shows in the open Settings.
      assertSuccess(await bobApi.post('/users/me/alert_words', { alert_words: JSON.stringify(['pager']) }));
      await list.getByRole('listitem', { name: 'pager' }).waitFor();
      await page.keyboard.press('Escape');

      // A message with alert words: each occurrence in its text highlighted, not the one in code.
      const sent = await sendTo(t.client(erin), 'ops', 'An OUTAGE now, pager is ringing; `outage` in code');
      const row = messageRow(page, 'is ringing');
      await row.waitFor();
      const flags = assertSuccess(await bobApi.get(`/messages/${sent.id}`)).message.flags as string[];
      assert.ok(flags.includes('has_alert_word'), `flags ${flags}`);
      const highlighted = row.locator('.message-content .alert-word');
      await eventually(async () => (await highlighted.count()) === 2, 'two alert words highlighted');
      assert.deepEqual(await highlighted.allTextContents(), ['OUTAGE', 'pager']);
      assert.equal(await row.locator('code .alert-word').count(), 0);
      // A message without the flag has nothing highlighted.
      await sendTo(t.client(erin), 'ops', 'Nothing to see here');
      await messageRow(page, 'Nothing to see here').waitFor();
      assert.equal(await messageRow(page, 'Nothing to see here').locator('.alert-word').count(), 0);

      // Away from the page, a channel message notifies when it has an alert word, as a mention does, and not otherwise.
      await setInFront(page, false);
      await sendTo(t.client(erin), 'ops', 'just chatting');
      await sendTo(t.client(erin), 'ops', 'the pager again');
      await eventually(async () => (await shown()).length > 0, 'a notification');
      await messageRow(page, 'the pager again').waitFor();
      assert.deepEqual(await shown(), ['the pager again']);
      await ctx.close();
    }));
});
