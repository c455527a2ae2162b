/**
 * Zulip's "next unread" keys in the web client, in real Chromium: `n` opens
 * the next topic with unread messages (the channel in view first, then the
 * channels after it in the sidebar's order; within a channel the newest
 * topic first, and after the topic in view the older ones; muted topics
 * skipped), `p` the next direct-message conversation with unread messages
 * (newest first). Skipped (with one line saying why) where Chromium is not
 * installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD, streamIdOf } from './helpers.ts';
import { browserTests, channelLink, eventually, loginToView, messageRow, PASSWORD, withWebServer } from './web-browser.ts';

/** Presses `key` with the focus on no field, as a keyboard shortcut. */
async function shortcut(page: Page, key: string): Promise<void> {
  await page.evaluate(() => (globalThis as any).document.activeElement?.blur());
  await page.locator('body').press(key);
}

await browserTests('the web client in Chromium: next unread topic and conversation', (newContext) => {
  test('n goes through the unread topics (the channel in view first, newest topics first, muted ones skipped); p through the unread conversations (newest first)', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bobAccount = await t.makeUser({ password: PASSWORD, name: 'Bob Sender' });
      const carol = await t.makeUser({ password: PASSWORD, name: 'Carol Third' });
      const bob = t.client(bobAccount);
      for (const c of [owner, bob]) assertSuccess(await c.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'design' }, { name: 'general' }]) }));
      const generalId = await streamIdOf(owner, 'general');
      assertSuccess(await owner.request('POST', '/user_topics', { stream_id: generalId, topic: 'hush', visibility_policy: 1 }));
      // What the new accounts' welcome left unread is read: only this test's messages are.
      assertSuccess(await owner.request('POST', '/mark_all_as_read', {}));
      const post = async (to: string, topic: string, content: string) => assertSuccess(await bob.request('POST', '/messages', { type: 'stream', to, topic, content })).id as number;
      const ids = [await post('general', 'alpha', 'alpha one'), await post('design', 'beta', 'beta one'), await post('general', 'gamma', 'gamma one'), await post('general', 'hush', 'hush one')];
      ids.push(await post('general', 'alpha', 'alpha two'));
      ids.push(await post('design', 'zeta', 'zeta one'));
      assertSuccess(await bob.request('POST', '/messages', { type: 'direct', to: JSON.stringify([t.owner.id, carol.id]), content: 'group hello' }));
      assertSuccess(await bob.request('POST', '/messages', { type: 'direct', to: JSON.stringify([t.owner.id]), content: 'just us' }));

      const ctx = await newContext();
      const heading = (name: string) => page.getByRole('heading', { name, exact: true }).waitFor();
      // Opened on the starred messages (none), so that nothing unread is shown (and marked read) first.
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');
      await heading('Starred messages');
      const hash = () => page.evaluate(() => decodeURIComponent((globalThis as any).location.hash));

      // The page marks what it shows read; the next key is pressed once the server has that.
      const unreadTopics = async () =>
        (assertSuccess(await owner.request('GET', '/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'unread' }]) })).messages as Array<{ type: string; subject: string }>)
          .filter((m) => m.type === 'stream')
          .map((m) => m.subject);
      const shownAndRead = async (name: string, topic: string) => {
        await heading(name);
        await eventually(async () => !(await unreadTopics()).includes(topic), `${topic} marked read`);
      };

      // From a view of no channel: the first channel in the sidebar's order with an unread topic ("design" before "general"), its newest topic first.
      await shortcut(page, 'n');
      await shownAndRead('#design \u203a zeta', 'zeta');
      // Then the older topic of the channel in view.
      await shortcut(page, 'n');
      await shownAndRead('#design \u203a beta', 'beta');
      // Then on to the next channel: its newest unread topic (alpha has the newest message).
      await shortcut(page, 'n');
      await shownAndRead('#general \u203a alpha', 'alpha');
      // The channel in view first: gamma, not hush (muted).
      await shortcut(page, 'n');
      await shownAndRead('#general \u203a gamma', 'gamma');
      assert.deepEqual(await unreadTopics(), ['hush']);
      // Nothing else unread but the muted topic: n stays put.
      await shortcut(page, 'n');
      await page.waitForTimeout(300);
      await heading('#general \u203a gamma');

      // p: the conversation with the newest message first (Bob alone), then the other.
      await shortcut(page, 'p');
      await heading('Bob Sender');
      assert.match(await hash(), new RegExp(`dm/${bobAccount.id}\\b`));
      await shortcut(page, 'p');
      await heading('Bob Sender, Carol Third');
      await ctx.close();
    }));

  test('N goes through the unread followed topics only, in muted channels too', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = t.client(await t.makeUser({ password: PASSWORD, name: 'Bob Follow' }));
      for (const c of [owner, bob]) assertSuccess(await c.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'design' }, { name: 'quietroom' }]) }));
      const id = (name: string) => streamIdOf(owner, name);
      const [design, quiet] = [await id('design'), await id('quietroom')];
      assertSuccess(await owner.request('POST', '/users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: quiet, property: 'is_muted', value: true }]) }));
      for (const [streamId, topic] of [[design, 'watched'], [quiet, 'keep']] as const) {
        assertSuccess(await owner.request('POST', '/user_topics', { stream_id: streamId, topic, visibility_policy: 3 }));
      }
      assertSuccess(await owner.request('POST', '/mark_all_as_read', {}));
      const post = (to: string, topic: string) => bob.request('POST', '/messages', { type: 'stream', to, topic, content: `${topic} news` });
      await post('design', 'watched');
      await post('quietroom', 'keep');
      await post('general', 'plain');

      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');
      const heading = (name: string) => page.getByRole('heading', { name, exact: true }).waitFor();
      await heading('Starred messages');
      await shortcut(page, 'N');
      await heading('#design \u203a watched');
      // (The next key once the page has marked it read and the server has that, as in the test above.)
      const unreadTopics = async () =>
        (assertSuccess(await owner.request('GET', '/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'unread' }]) })).messages as Array<{ subject: string }>).map((m) => m.subject);
      await eventually(async () => !(await unreadTopics()).includes('watched'), 'watched marked read');
      await shortcut(page, 'N');
      await heading('#quietroom \u203a keep');
      // general › plain is unread but not followed: N stays.
      await shortcut(page, 'N');
      await page.waitForTimeout(300);
      await heading('#quietroom \u203a keep');
      await ctx.close();
    }));

  test('Home goes to the oldest message of the view (Zulip\u2019s): the view opened there when it is not loaded, then End back to the newest', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'history' }]) }));
      for (let i = 1; i <= 130; i++) assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'history', topic: 'log', content: `entry ${String(i).padStart(3, '0')}` }));
      assertSuccess(await owner.request('POST', '/messages/flags/narrow', { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: '[]', op: 'add', flag: 'read' }));
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#narrow/is/starred');
      await (await channelLink(page, 'history')).click();
      await messageRow(page, 'entry 130').waitFor();
      // The newest page only: the oldest message is not loaded.
      assert.equal(await messageRow(page, 'entry 001').count(), 0);
      const hash = () => page.evaluate(() => (globalThis as any).location.hash as string);
      const before = await hash();
      await shortcut(page, 'Home');
      await messageRow(page, 'entry 001').waitFor();
      // The same view (its address unchanged, as Zulip's), at its oldest message.
      assert.equal(await hash(), before);
      await shortcut(page, 'End');
      await messageRow(page, 'entry 130').waitFor();
      await ctx.close();
    }));

  test('Zulip\u2019s keys for views (I, a, P, A and D through the channels, Ctrl+., Ctrl+k, w) and for the selected message (@ reply mentioning, = upvote the first reaction, M mute its topic, H edit history, V read receipts)', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bobAccount = await t.makeUser({ password: PASSWORD, name: 'Bob Keys' });
      const bob = t.client(bobAccount);
      const generalId = await streamIdOf(owner, 'general');
      const id = assertSuccess(await bob.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'keys', content: 'a message for keys' })).id as number;
      assertSuccess(await bob.request('PATCH', `/messages/${id}`, { content: 'a message for keys, edited' }));
      assertSuccess(await bob.request('POST', `/messages/${id}/reactions`, { emoji_name: 'tada' }));
      assertSuccess(await owner.request('PATCH', '/realm', { enable_read_receipts: true }));
      // A muted channel: after the others in the sidebar, and so for A and D.
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'b-muted' }]) }));
      const mutedId = await streamIdOf(owner, 'b-muted');
      assertSuccess(await owner.request('POST', '/users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: mutedId, property: 'is_muted', value: true }]) }));
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, `#narrow/channel/${generalId}/topic/keys`);
      await page.getByText('a message for keys, edited').waitFor();
      const heading = (name: string) => page.getByRole('heading', { name, exact: true, level: 1 });

      // @: a reply mentioning the sender.
      await shortcut(page, '@');
      await eventually(async () => (await page.getByLabel('Message', { exact: true }).inputValue()) === '@**Bob Keys** ', 'the mention in the box');
      await page.getByLabel('Message', { exact: true }).fill('');
      // =: the owner's vote added to the first reaction.
      await shortcut(page, '=');
      const tadaUsers = async () => (assertSuccess(await owner.request('GET', `/messages/${id}`)).message.reactions as Array<{ emoji_name: string; user_id: number }>).filter((r) => r.emoji_name === 'tada').map((r) => r.user_id).sort();
      await eventually(async () => (await tadaUsers()).join() === [t.owner.id, bobAccount.id].sort().join(), 'the vote at the server');
      // H and V: the edit history and the read receipts.
      await shortcut(page, 'H');
      await page.getByRole('dialog', { name: 'Message edit history' }).waitFor();
      await page.keyboard.press('Escape');
      await shortcut(page, 'V');
      await page.getByRole('dialog', { name: 'Read receipts' }).waitFor();
      await page.keyboard.press('Escape');
      // M: the topic muted.
      await shortcut(page, 'M');
      const policy = async () =>
        (assertSuccess(await owner.request('POST', '/register', { fetch_event_types: JSON.stringify(['user_topic']) })).user_topics as Array<{ stream_id: number; topic_name: string; visibility_policy: number }>).find(
          (x) => x.stream_id === generalId && x.topic_name === 'keys',
        )?.visibility_policy ?? 0;
      await eventually(async () => (await policy()) === 1, 'the topic muted at the server');

      // The views; then D and A through the channels in the sidebar's order (core team, general, the muted b-muted), round again at the end.
      const views: Array<[string, string]> = [
        ['I', 'Inbox'],
        ['a', 'All messages'],
        ['P', 'Direct messages'],
        ['D', '#core team'],
        ['D', '#general'],
        ['D', '#b-muted'],
        ['D', '#core team'],
        ['A', '#b-muted'],
        ['A', '#general'],
      ];
      for (const [key, name] of views) {
        await shortcut(page, key);
        await heading(name).waitFor();
      }
      // Ctrl+.: to the conversation being written to, from the compose box.
      await shortcut(page, 'c');
      await page.getByLabel('Topic', { exact: true }).fill('aimed');
      await page.getByLabel('Message', { exact: true }).press('Control+.');
      await heading('#general \u203a aimed').waitFor();
      // Ctrl+k: the search box; w: the people filter.
      const focused = () => page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label'));
      await shortcut(page, 'Control+k');
      assert.equal(await focused(), 'Search');
      await shortcut(page, 'w');
      await eventually(async () => (await focused()) === 'Filter people', 'the people filter');
      // In a narrow window People is opened over the page first.
      await page.setViewportSize({ width: 600, height: 800 });
      await shortcut(page, 'w');
      await eventually(async () => (await focused()) === 'Filter people', 'the people filter in a narrow window');
      assert.equal(await page.getByRole('button', { name: 'People', exact: true }).getAttribute('aria-expanded'), 'true');
      await ctx.close();
    }));
});
