/**
 * The Recent conversations view of the web client (#recent), in real
 * Chromium: conversations made through the API (two topics, a direct message)
 * listed newest first with their unread counts; a new message moving its
 * conversation to the top, a message read elsewhere leaving the "Unread"
 * filter, a topic moved elsewhere showing under its new name, a conversation
 * whose only message is deleted and a channel left elsewhere leaving the
 * list, all live; a row's "Mark as read" (the server has it read); the
 * "Participated", text and "Include DMs" filters and the topics shown
 * (standard view, all topics, followed topics), kept across a reload; a row (clicked, or
 * reached with the arrow keys) opening its conversation, whose messages the
 * server then has read; older conversations than the newest 400 messages
 * loaded on asking. The Inbox (#inbox): the conversations with unread
 * messages, direct messages first, then each channel in the sidebar's order,
 * newest first, mentions marked, muted channels left out; live; "Mark as
 * read"; a row opening its conversation; filtered by a text; a group
 * collapsed (still after a reload); empty once all is read. Skipped
 * (with one line saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD, settingsAtServer, type Client, streamIdOf } from './helpers.ts';
import { browserTests, eventually, loginToView, PASSWORD, withWebServer, openSettings } from './web-browser.ts';

/** Whether the server has message `id` unread for the user of `api`. */
async function unreadAtServer(api: Client, id: number): Promise<boolean> {
  const r = assertSuccess(await api.request('GET', `/messages/${id}`, {}));
  return !(r.message.flags as string[]).includes('read');
}

await browserTests('the web client in Chromium: recent conversations', (newContext) => {
  test('conversations newest first with unread counts; live updates; filters; a row opens its conversation', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bobAccount = await t.makeUser({ password: PASSWORD, name: 'Bob Recent' });
      const bob = t.client(bobAccount);
      for (const c of [owner, bob]) assertSuccess(await c.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'general' }, { name: 'design' }]) }));
      const generalId = await streamIdOf(owner, 'general');
      const post = async (from: Client, topic: string, content: string) => assertSuccess(await from.request('POST', '/messages', { type: 'stream', to: 'general', topic, content })).id as number;
      // A topic in another channel (left later), a muted topic, then two topics and a direct message.
      assertSuccess(await bob.request('POST', '/messages', { type: 'stream', to: 'design', topic: 'delta', content: 'delta one' }));
      assertSuccess(await owner.request('POST', '/user_topics', { stream_id: generalId, topic: 'hush', visibility_policy: 1 }));
      await post(bob, 'hush', 'hush one');
      const alphaOne = await post(owner, 'alpha', 'alpha one');
      // One's own message sent through the API stays unread (not sent by a person's client): read here.
      assertSuccess(await owner.request('POST', '/messages/flags', { messages: JSON.stringify([alphaOne]), op: 'add', flag: 'read' }));
      const betaId = await post(bob, 'beta', 'beta one');
      const dmId = assertSuccess(await bob.request('POST', '/messages', { type: 'direct', to: JSON.stringify([t.owner.id]), content: 'just us' })).id as number;

      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#recent');
      await page.getByRole('heading', { name: 'Recent conversations', exact: true }).waitFor();
      const table = page.getByRole('table', { name: 'Conversations' });
      const links = table.getByRole('link');
      const labels = () => links.allTextContents();
      const row = (name: string) => table.getByRole('row', { name: new RegExp(`^${name}`) });
      const top3 = async (want: string[]) => JSON.stringify((await labels()).slice(0, 3)) === JSON.stringify(want);

      // Newest activity first; the muted topic left out.
      await eventually(() => top3(['Bob Recent', '#general \u203a beta', '#general \u203a alpha']), 'the three conversations, newest first');
      assert.ok(!(await labels()).some((l) => l.includes('hush')), 'the muted topic is left out');
      // Unread counts: Bob's messages are unread, the one read is not; the senders are named.
      await row('#general \u203a beta').getByLabel('1 unread').waitFor();
      await row('Bob Recent').getByLabel('1 unread').waitFor();
      assert.equal(await row('#general \u203a alpha').getByLabel(/unread/).count(), 0);
      assert.match((await row('#general \u203a beta').textContent())!, /Bob Recent/);

      // Reachable from the sidebar: another view and back.
      const views = page.getByRole('navigation', { name: 'Views' });
      await views.getByRole('link', { name: 'Starred' }).click();
      await page.getByRole('heading', { name: 'Starred messages' }).waitFor();
      await views.getByRole('link', { name: 'Recent conversations' }).click();
      await eventually(() => top3(['Bob Recent', '#general \u203a beta', '#general \u203a alpha']), 'the view again from the sidebar');
      assert.equal(await views.getByRole('link', { name: 'Recent conversations' }).getAttribute('aria-current'), 'page');

      // A new message moves its conversation to the top, live, with its count.
      const alphaTwo = await post(bob, 'alpha', 'alpha two');
      await eventually(() => top3(['#general \u203a alpha', 'Bob Recent', '#general \u203a beta']), 'alpha on top after a new message');
      await row('#general \u203a alpha').getByLabel('1 unread').waitFor();

      // "Mark as read" on a row: the server has the conversation read, and its count goes.
      await row('#general \u203a alpha').getByRole('button', { name: 'Mark #general \u203a alpha as read' }).click();
      await eventually(async () => !(await unreadAtServer(owner, alphaTwo)), 'alpha two read at the server');
      await eventually(async () => (await row('#general \u203a alpha').getByLabel(/unread/).count()) === 0, 'alpha without an unread count');
      const alphaThree = await post(bob, 'alpha', 'alpha three');
      await row('#general \u203a alpha').getByLabel('1 unread').waitFor();

      // Unread: only the conversations with unread messages; one read elsewhere leaves the list.
      await page.getByLabel('Unread', { exact: true }).check();
      await eventually(async () => (await labels()).includes('#general \u203a beta'), 'beta listed as unread');
      assertSuccess(await owner.request('POST', '/messages/flags', { messages: JSON.stringify([betaId]), op: 'add', flag: 'read' }));
      assert.equal(await unreadAtServer(owner, betaId), false);
      await eventually(async () => !(await labels()).includes('#general \u203a beta'), 'beta gone from the unread ones once read elsewhere');
      assert.deepEqual((await labels()).slice(0, 2), ['#general \u203a alpha', 'Bob Recent']);
      await page.getByLabel('Unread', { exact: true }).uncheck();

      // Participated: only where one has sent.
      await page.getByLabel('Participated').check();
      await eventually(async () => JSON.stringify(await labels()) === JSON.stringify(['#general \u203a alpha']), 'only alpha as participated');
      await page.getByLabel('Participated').uncheck();

      // The text filter: channel, topic or people.
      const filter = page.getByLabel('Filter conversations');
      await filter.fill('bet');
      await eventually(async () => JSON.stringify(await labels()) === JSON.stringify(['#general \u203a beta']), 'only beta for "bet"');
      await filter.fill('');

      // Zulip's choice of topics: the muted topic shows with "All topics", marked muted; "Followed topics" lists
      // followed ones (and direct messages) only; back to the standard view.
      const topicsShown = page.getByLabel('Topics shown');
      assert.equal(await topicsShown.inputValue(), 'unmuted_topics');
      await topicsShown.selectOption({ label: 'All topics' });
      await row('#general \u203a hush').waitFor();
      assert.match((await row('#general \u203a hush').textContent())!, /\(muted\)/);
      assertSuccess(await owner.request('POST', '/user_topics', { stream_id: generalId, topic: 'alpha', visibility_policy: 3 }));
      await topicsShown.selectOption({ label: 'Followed topics' });
      await eventually(async () => JSON.stringify(await labels()) === JSON.stringify(['#general \u203a alpha', 'Bob Recent', 'Welcome Bot']), 'the followed topic and the direct messages');
      await topicsShown.selectOption({ label: 'Standard view' });
      await eventually(async () => (await row('#general \u203a hush').count()) === 0, 'the muted topic hidden again');

      // "Include DMs" (on at first) unchecked: the direct-message conversation goes; the choice is kept across a reload, as Zulip keeps it.
      const includeDms = page.getByLabel('Include DMs');
      assert.equal(await includeDms.isChecked(), true);
      await includeDms.uncheck();
      await eventually(async () => (await row('Bob Recent').count()) === 0, 'the direct messages left out');
      await topicsShown.selectOption({ label: 'All topics' });
      await page.reload();
      await row('#general \u203a alpha').waitFor();
      assert.equal(await includeDms.isChecked(), false);
      assert.equal(await topicsShown.inputValue(), 'all_topics');
      await topicsShown.selectOption({ label: 'Standard view' });
      assert.equal(await row('Bob Recent').count(), 0);
      await includeDms.check();
      await row('Bob Recent').waitFor();

      // A topic moved elsewhere shows under its new name.
      assertSuccess(await bob.request('PATCH', `/messages/${betaId}`, { topic: 'gamma', propagate_mode: 'change_all' }));
      await eventually(async () => (await labels()).includes('#general \u203a gamma') && !(await labels()).includes('#general \u203a beta'), 'beta listed as gamma');

      // The move's notice is the newest message: gamma is on top.
      await eventually(() => top3(['#general \u203a gamma', '#general \u203a alpha', 'Bob Recent']), 'gamma on top after the move notice');

      // Keyboard: from the first row down one, Enter opens that conversation; its messages show, and the server has them read.
      await links.first().focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: '#general \u203a alpha' }).waitFor();
      const history = page.getByRole('log', { name: 'History' });
      await history.getByText('alpha one').waitFor();
      await history.getByText('alpha two').waitFor();
      await history.getByText('alpha three').waitFor();
      await eventually(async () => !(await unreadAtServer(owner, alphaThree)), 'alpha three read at the server once shown');

      // Clicking a row opens its conversation too.
      await page.goBack();
      await links.filter({ hasText: 'Bob Recent' }).click();
      await page.getByRole('heading', { name: 'Bob Recent' }).waitFor();
      await history.getByText('just us').waitFor();
      await eventually(async () => !(await unreadAtServer(owner, dmId)), 'the direct message read at the server once shown');

      // A message deleted elsewhere: its conversation, with no other message, leaves the list.
      await page.goBack();
      await links.filter({ hasText: 'Bob Recent' }).waitFor();
      assertSuccess(await owner.request('DELETE', `/messages/${dmId}`, {}));
      await eventually(async () => !(await labels()).includes('Bob Recent'), 'the conversation gone with its only message');
      assert.deepEqual((await labels()).slice(0, 2), ['#general \u203a gamma', '#general \u203a alpha']);

      // A channel left elsewhere: its topics leave the list.
      await links.filter({ hasText: '#design \u203a delta' }).waitFor();
      assertSuccess(await owner.request('DELETE', '/users/me/subscriptions', { subscriptions: JSON.stringify(['design']) }));
      await eventually(async () => !(await labels()).includes('#design \u203a delta'), 'the topic of the channel left gone');
      await ctx.close();
    }));
  test('older conversations than the newest 400 messages load on asking, until there are none', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'general' }]) }));
      const post = async (topic: string, content: string) => assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic, content })).id as number;
      await post('old times', 'long ago');
      // 400 messages in another topic after it: the first fetch of the view holds only those.
      for (let i = 0; i < 400; i += 20) await Promise.all(Array.from({ length: 20 }, (_, j) => post('flood', `flood ${i + j}`)));

      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#recent');
      const table = page.getByRole('table', { name: 'Conversations' });
      await table.getByRole('link', { name: '#general \u203a flood' }).waitFor();
      assert.equal(await table.getByRole('link', { name: '#general \u203a old times' }).count(), 0);
      await page.getByRole('button', { name: 'Load more conversations' }).click();
      await table.getByRole('link', { name: '#general \u203a old times' }).waitFor();
      // Older first in the list: below the flood.
      const labels = await table.getByRole('link').allTextContents();
      assert.ok(labels.indexOf('#general \u203a old times') > labels.indexOf('#general \u203a flood'), labels.join(' | '));
      // Nothing older is left: the button goes.
      await eventually(async () => (await page.getByRole('button', { name: /Load more conversations|Loading/ }).count()) === 0, 'the button gone once all is loaded');
      await ctx.close();
    }));
  test('the inbox: unread conversations grouped, direct messages first, channels in the sidebar order, newest first; mentions marked; live; mark as read; a row opens its conversation', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bobAccount = await t.makeUser({ password: PASSWORD, name: 'Bob Inbox' });
      const carolAccount = await t.makeUser({ name: 'Carol Inbox' });
      const bob = t.client(bobAccount);
      const carol = t.client(carolAccount);
      for (const c of [owner, bob, carol]) assertSuccess(await c.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'general' }, { name: 'design' }, { name: 'quiet' }]) }));
      const quietId = await streamIdOf(owner, 'quiet');
      assertSuccess(await owner.request('POST', '/users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: quietId, property: 'is_muted', value: true }]) }));
      const ownerName = assertSuccess(await owner.request('GET', '/users/me', {})).full_name as string;
      // (The owner's welcome message read: only what follows is unread.)
      assertSuccess(await owner.request('POST', '/mark_all_as_read', {}));
      const post = async (from: Client, to: string, topic: string, content: string) => assertSuccess(await from.request('POST', '/messages', { type: 'stream', to, topic, content })).id as number;
      const ideaId = await post(bob, 'design', 'ideas', 'first idea');
      await post(bob, 'general', 'lunch', 'lunch?');
      const deployId = await post(carol, 'general', 'deploy', `@**${ownerName}** can you check`);
      await post(bob, 'quiet', 'noise', 'in a muted channel');
      assertSuccess(await carol.request('POST', '/messages', { type: 'direct', to: JSON.stringify([t.owner.id]), content: 'just us two' }));
      assertSuccess(await bob.request('POST', '/messages', { type: 'direct', to: JSON.stringify([t.owner.id, carolAccount.id]), content: 'all three' }));

      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#inbox');
      await page.getByRole('heading', { name: 'Inbox', exact: true }).waitFor();
      const inbox = page.getByRole('region', { name: 'Inbox' });
      const groupNames = () => inbox.locator('section.inbox-group').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
      const rowsOf = (group: string) => inbox.getByRole('region', { name: group, exact: true }).getByRole('listitem');
      const rowLabels = (group: string) => rowsOf(group).evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
      const same = async (got: Promise<unknown>, want: unknown) => JSON.stringify(await got) === JSON.stringify(want);

      // Direct messages first, then the channels by name (the muted one left out); the newest first within each.
      await eventually(() => same(groupNames(), ['Direct messages', '#design', '#general']), 'the groups in order');
      assert.deepEqual(await rowLabels('Direct messages'), ['Bob Inbox, Carol Inbox', 'Carol Inbox']);
      assert.deepEqual(await rowLabels('#general'), ['#general \u203a deploy', '#general \u203a lunch']);
      // Counts, and the mention marked on its topic and its channel.
      const topicRow = (name: string) => rowsOf('#general').filter({ has: page.getByRole('link', { name, exact: true }) });
      await topicRow('deploy').getByLabel('1 unread').waitFor();
      assert.equal(await topicRow('deploy').getByLabel('mentioned').count(), 1);
      assert.equal(await topicRow('lunch').getByLabel('mentioned').count(), 0);
      const generalHeading = inbox.getByRole('region', { name: '#general', exact: true }).getByRole('heading');
      assert.equal(await generalHeading.getByLabel('2 unread').count(), 1);
      assert.equal(await generalHeading.getByLabel('mentioned').count(), 1);
      const views = page.getByRole('navigation', { name: 'Views' });
      const inboxLink = views.getByRole('link', { name: /^Inbox/ });
      assert.equal(await inboxLink.getAttribute('aria-current'), 'page');
      await inboxLink.getByLabel('5 unread').waitFor();

      // A new message moves its topic up, live.
      await post(bob, 'general', 'lunch', 'lunch at noon?');
      await eventually(() => same(rowLabels('#general'), ['#general \u203a lunch', '#general \u203a deploy']), 'lunch first after a new message');
      await topicRow('lunch').getByLabel('2 unread').waitFor();

      // "Mark as read": the server has it read, and the row goes.
      await rowsOf('#general').getByRole('button', { name: 'Mark #general \u203a deploy as read' }).click();
      await eventually(async () => !(await unreadAtServer(owner, deployId)), 'deploy read at the server');
      await eventually(() => same(rowLabels('#general'), ['#general \u203a lunch']), 'deploy gone from the inbox');
      assert.equal(await generalHeading.getByLabel('mentioned').count(), 0);

      // The arrow keys move between the links; Enter opens the conversation, which is then read.
      await inbox.getByRole('link', { name: '#design', exact: true }).focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: '#design \u203a ideas' }).waitFor();
      await page.getByRole('log', { name: 'History' }).getByText('first idea').waitFor();
      await eventually(async () => !(await unreadAtServer(owner, ideaId)), 'the idea read at the server once shown');
      await inboxLink.click();
      await eventually(() => same(groupNames(), ['Direct messages', '#general']), 'design gone once read');

      // The filter: by topic, by channel, by people; nothing matching says so.
      const filter = inbox.getByLabel('Filter conversations');
      await filter.fill('LUNCH');
      await eventually(() => same(groupNames(), ['#general']), 'only general for lunch');
      assert.deepEqual(await rowLabels('#general'), ['#general \u203a lunch']);
      await filter.fill('carol');
      await eventually(() => same(groupNames(), ['Direct messages']), 'only the direct messages for carol');
      assert.deepEqual(await rowLabels('Direct messages'), ['Bob Inbox, Carol Inbox', 'Carol Inbox']);
      await filter.fill('#gen');
      await eventually(() => same(groupNames(), ['#general']), 'general by its name');
      await filter.fill('nothing like this');
      await inbox.getByText('No conversations match.').waitFor();
      assert.deepEqual(await groupNames(), []);
      await filter.fill('');
      await eventually(() => same(groupNames(), ['Direct messages', '#general']), 'all again');

      // A group collapses to its heading (its count stays), and stays so after a reload.
      const generalToggle = inbox.getByRole('button', { name: '#general conversations' });
      assert.equal(await generalToggle.getAttribute('aria-expanded'), 'true');
      await generalToggle.click();
      await eventually(async () => (await rowsOf('#general').count()) === 0, 'general collapsed');
      assert.equal(await generalToggle.getAttribute('aria-expanded'), 'false');
      assert.equal(await generalHeading.getByLabel('2 unread').count(), 1);
      assert.equal(await rowsOf('Direct messages').count(), 2);
      await page.reload();
      await inbox.getByRole('region', { name: 'Direct messages', exact: true }).waitFor();
      await rowsOf('Direct messages').first().waitFor();
      assert.equal(await rowsOf('#general').count(), 0);
      await inbox.getByRole('button', { name: '#general conversations' }).click();
      await rowsOf('#general').first().waitFor();
      assert.deepEqual(await rowLabels('#general'), ['#general \u203a lunch']);

      // Everything read elsewhere: the inbox says so.
      assertSuccess(await owner.request('POST', '/mark_all_as_read', {}));
      await inbox.getByText('There are no unread messages in your inbox.').waitFor();
      assert.equal(await inboxLink.getByLabel(/unread/).count(), 0);
      await ctx.close();
    }));

  test('the inbox groups channels by folder, as the sidebar does (Zulip\u2019s web_inbox_show_channel_folders, on by default): pinned, each folder in its order, then the others; not once turned off in Settings; the sidebar\u2019s folder headings with their unread counts, collapsing their sections', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = t.client(await t.makeUser({ name: 'Bob Folders' }));
      const channels = ['alpha', 'beta', 'gamma', 'pinned'];
      for (const c of [owner, bob]) assertSuccess(await c.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify(channels.map((name) => ({ name }))) }));
      const idOf = (name: string) => streamIdOf(owner, name);
      const folder = assertSuccess(await owner.request('POST', '/channel_folders/create', { name: 'Engineering', description: '' })).channel_folder_id as number;
      for (const name of ['beta', 'gamma']) assertSuccess(await owner.request('PATCH', `/streams/${await idOf(name)}`, { folder_id: folder }));
      assertSuccess(await owner.request('POST', '/users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: await idOf('pinned'), property: 'pin_to_top', value: true }]) }));
      assertSuccess(await owner.request('POST', '/mark_all_as_read', {}));
      for (const to of channels) assertSuccess(await bob.request('POST', '/messages', { type: 'stream', to, topic: 'news', content: `news in ${to}` }));
      const ctx = await newContext();
      const page = await loginToView(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD, '#inbox');
      const inbox = page.getByRole('region', { name: 'Inbox' });
      /** The inbox's headings in order: the folders' and the channels'. */
      const outline = () => inbox.locator('h2.inbox-folder, section.inbox-group').evaluateAll((els) => els.map((e) => (e.tagName === 'H2' ? `[${e.textContent}]` : e.getAttribute('aria-label'))));
      await eventually(async () => (await outline()).join() === '[Pinned channels],#pinned,[Engineering],#beta,#gamma,[Other channels],#alpha', 'grouped by folder');
      assert.equal(await inbox.getByRole('heading', { name: 'Engineering', level: 2 }).count(), 1);
      assert.equal(await inbox.getByRole('region', { name: '#beta', exact: true }).getByRole('heading', { level: 3 }).count(), 1);
      // The sidebar's folder headings have their unread counts (Zulip's web_left_sidebar_unreads_count_summary, on by default).
      const sidebar = page.getByRole('navigation', { name: 'Channels' });
      const engineering = sidebar.getByRole('heading', { name: /^Engineering/ });
      await engineering.getByLabel('2 unread').waitFor();
      await sidebar.getByRole('heading', { name: /^Other channels/ }).getByLabel('1 unread').waitFor();
      assertSuccess(await owner.request('PATCH', '/settings', { web_left_sidebar_unreads_count_summary: false }));
      await eventually(async () => (await engineering.getByLabel(/unread/).count()) === 0, 'no count once turned off');
      // A folder's section, and the direct messages', collapse to their headings and open again; remembered in this browser.
      const engineeringToggle = engineering.getByRole('button');
      const inEngineering = sidebar.getByRole('list', { name: 'Engineering' }).getByRole('link');
      assert.equal(await inEngineering.count(), 2);
      await engineeringToggle.click();
      assert.equal(await engineeringToggle.getAttribute('aria-expanded'), 'false');
      await eventually(async () => (await inEngineering.count()) === 0, 'the folder collapsed');
      const dmToggle = page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'Direct messages' });
      await dmToggle.click();
      await eventually(async () => (await page.getByRole('navigation', { name: 'Conversations' }).getByRole('link').count()) === 0, 'direct messages collapsed');
      await page.reload();
      await sidebar.getByRole('heading', { name: /^Engineering/ }).waitFor();
      assert.equal(await inEngineering.count(), 0);
      assert.equal(await dmToggle.getAttribute('aria-expanded'), 'false');
      await engineeringToggle.click();
      await eventually(async () => (await inEngineering.count()) === 2, 'the folder open again');
      // Turned off: the channels in the sidebar's order, without folders.
      await (await openSettings(page)).getByLabel('Group channels by folder in the Inbox').uncheck();
      await eventually(async () => (await settingsAtServer(owner)).web_inbox_show_channel_folders === false, 'off at the server');
      await page.keyboard.press('Escape');
      await eventually(async () => (await outline()).join() === '#pinned,#alpha,#beta,#gamma', 'one list');
      await ctx.close();
    }));
});
