/**
 * The compose box's suggestions in real Chromium: `@` people (with the ID
 * when two share a name), silent mentions, user groups and wildcards; `#`
 * channels; `:` emoji (Unicode from the server's emoji data, and custom);
 * `/` commands at the start of a new message (not in an edit);
 * the keyboard (arrows, Enter, Tab, Escape) and the mouse; nothing offered
 * inside an email address or a time. The topic field's suggestions (the
 * channel's topics in Zulip's order, what is typed as New). What is picked is the Markdown the
 * server then renders as a mention, a channel link or an emoji. Zulip's
 * warnings before sending: someone mentioned who is not subscribed, a
 * private channel linked, a resolved topic, and a wildcard mention in a
 * large channel. Skipped
 * (with one line saying why) where Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertSuccess, OWNER_EMAIL, OWNER_PASSWORD, streamIdOf } from './helpers.ts';
import { browserTests, channelLink, eventually, focusedLabel, loginPage, messageRow, PASSWORD, postPng, withWebServer } from './web-browser.ts';

/** The suggestions shown under the compose box, as their text. */
async function shown(page: Page): Promise<string[]> {
  const list = page.getByRole('listbox', { name: 'Suggestions' });
  if (!(await list.count())) return [];
  return list.getByRole('option').allTextContents();
}

await browserTests('the web client in Chromium: compose suggestions', (newContext) => {
  /** The owner's page, writing in general to `topic`: its context, the page and the message box. */
  const composeInGeneral = async (url: string, topic: string) => {
    const ctx = await newContext();
    const page = await loginPage(ctx, url, OWNER_EMAIL, OWNER_PASSWORD);
    await (await channelLink(page, 'general')).click();
    await page.getByLabel('Topic', { exact: true }).fill(topic);
    return { ctx, page, box: page.getByLabel('Message', { exact: true }) };
  };

  test('@ mentions people, user groups and everyone; # links channels; : inserts emoji; what is picked renders as such', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Builder' });
      const sam1 = await t.makeUser({ password: PASSWORD, name: 'Sam Same' });
      const sam2 = await t.makeUser({ password: PASSWORD, name: 'Sam Same' });
      assertSuccess(await owner.request('POST', '/user_groups/create', { name: 'builders', description: 'They build.', members: JSON.stringify([bob.id]) }));
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'gardening' }]) }));
      await postPng(t.url, t.owner, '/realm/emoji/partyparrot', 'parrot.png');

      const { ctx, page, box } = await composeInGeneral(t.url, 'suggestions');

      // A person, by the start of a word of the name; Enter picks the first.
      await box.pressSequentially('Hi @buil');
      await eventually(async () => (await shown(page)).length > 0, 'people suggested');
      assert.deepEqual(await shown(page), [`Bob Builder ${bob.email}`, 'builders User group']);
      await box.press('Enter');
      assert.equal(await box.inputValue(), 'Hi @**Bob Builder** ');
      assert.deepEqual(await shown(page), []);

      // The arrows move down the list; Tab picks too: the group.
      await box.pressSequentially('and @buil');
      await eventually(async () => (await shown(page)).length === 2, 'both suggested again');
      await box.press('ArrowDown');
      assert.equal(await page.getByRole('listbox', { name: 'Suggestions' }).getByRole('option', { selected: true }).textContent(), 'builders User group');
      await box.press('Tab');
      assert.equal(await box.inputValue(), 'Hi @**Bob Builder** and @*builders* ');

      // Two people of the same name: each with its ID. Picked by the mouse.
      await box.pressSequentially('with @sam');
      await eventually(async () => (await shown(page)).length === 2, 'both Sams suggested');
      await page.getByRole('listbox', { name: 'Suggestions' }).getByRole('option', { name: `Sam Same ${sam2.email}` }).click();
      assert.equal(await box.inputValue(), `Hi @**Bob Builder** and @*builders* with @**Sam Same|${sam2.id}** `);
      await expectFocus(page);

      // A silent mention; wildcards are not offered silently.
      await box.pressSequentially('cc @_bob');
      await eventually(async () => (await shown(page)).length === 1, 'a silent mention suggested');
      await box.press('Enter');
      // A wildcard (in a channel: all four).
      await box.pressSequentially('@ev');
      await eventually(async () => (await shown(page)).length === 1, 'everyone suggested');
      assert.match((await shown(page))[0]!, /^everyone /);
      await box.press('Enter');
      // A channel (picked, it goes on to its topics, a link to the channel itself first), and an emoji from the server's data, and a custom one.
      await box.pressSequentially('see #garde');
      await eventually(async () => (await shown(page)).length === 1, 'a channel suggested');
      await box.press('Enter');
      await eventually(async () => (await box.inputValue()).endsWith('see #**gardening>') && (await shown(page))[0] === '#gardening (link to channel)', 'its topics offered');
      await box.press('Enter');
      await box.pressSequentially(':octop');
      await eventually(async () => (await shown(page)).some((s) => s.startsWith(':octopus:')), 'an emoji suggested');
      await box.press('Enter');
      await box.pressSequentially(':partypa');
      await eventually(async () => (await shown(page)).length === 1, 'a custom emoji suggested');
      assert.deepEqual(await shown(page), [':partyparrot: Custom emoji']);
      await box.press('Enter');
      const typed = `Hi @**Bob Builder** and @*builders* with @**Sam Same|${sam2.id}** cc @_**Bob Builder** @**everyone** see #**gardening** :octopus: :partyparrot: `;
      assert.equal(await box.inputValue(), typed);

      // Sent as typed, and rendered as mentions, a channel link and emoji.
      await box.press('Enter');
      await messageRow(page, 'see').waitFor();
      const sent = assertSuccess(await owner.request('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: 'false' })).messages[0];
      assert.equal(sent.content, typed.trimEnd());
      const html = assertSuccess(await owner.request('GET', `/messages/${sent.id}`, {})).message.content as string;
      assert.match(html, new RegExp(`<span class="user-mention" data-user-id="${bob.id}">@Bob Builder</span>`));
      assert.match(html, /<span class="user-group-mention" data-user-group-id="\d+">@builders<\/span>/);
      assert.match(html, new RegExp(`<span class="user-mention" data-user-id="${sam2.id}">@Sam Same</span>`));
      assert.doesNotMatch(html, new RegExp(`data-user-id="${sam1.id}"`));
      assert.match(html, new RegExp(`<span class="user-mention silent" data-user-id="${bob.id}">Bob Builder</span>`));
      assert.match(html, /<span class="user-mention channel-wildcard-mention" data-user-id="\*">@everyone<\/span>/);
      assert.match(html, /<a class="stream" data-stream-id="\d+" href="[^"]*">#gardening<\/a>/);
      assert.match(html, /<span aria-label="octopus" class="emoji emoji-1f419" role="img" title="octopus">:octopus:<\/span>/);
      assert.match(html, /<img alt=":partyparrot:" class="emoji" src="[^"]+" title="partyparrot">/);
      await ctx.close();
    }));

  test('a topic link: > on a channel suggestion goes on to its topics (a link to the channel first), what is typed narrows them or is offered as New; the link renders', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'gardening' }]) }));
      for (const topic of ['seeds', 'planting season', 'plans']) {
        assertSuccess(await owner.post('/messages', { type: 'stream', to: 'gardening', topic, content: `about ${topic}` }));
      }
      const { ctx, page, box } = await composeInGeneral(t.url, 'links');
      await box.pressSequentially('see #gard');
      await eventually(async () => (await shown(page)).some((s) => s.startsWith('gardening')), 'the channel suggested');
      await box.press('>');
      await eventually(async () => (await box.inputValue()) === 'see #**gardening>', 'the channel taken, a topic asked for');
      // Its topics, newest first, after a link to the channel itself.
      const topicsOffered = ['#gardening (link to channel)', 'plans ', 'planting season ', 'seeds '];
      await eventually(async () => (await shown(page)).join('|') === topicsOffered.join('|'), 'its topics suggested');
      await box.pressSequentially('plan');
      await eventually(async () => (await shown(page)).join('|') === 'plan New|plans |planting season ', 'narrowed');
      await box.press('ArrowDown');
      await box.press('Enter');
      assert.equal(await box.inputValue(), 'see #**gardening>plans** ');
      // A topic it has not: what is typed, as New; the channel alone.
      await box.pressSequentially('and #**gardening>harvest');
      await eventually(async () => (await shown(page)).join('|') === 'harvest New', 'a new topic offered');
      await box.press('Tab');
      await box.pressSequentially('or #**gardening>');
      await eventually(async () => (await shown(page))[0] === '#gardening (link to channel)', 'the channel offered');
      await box.press('Enter');
      assert.equal(await box.inputValue(), 'see #**gardening>plans** and #**gardening>harvest** or #**gardening** ');
      // Escape: the channel link closed, the words typed after it kept as words (Zulip's).
      await box.pressSequentially('then #**gardening>some words');
      await eventually(async () => (await shown(page))[0] === 'some words New', 'the words offered as a topic');
      await box.press('Escape');
      await eventually(async () => (await box.inputValue()).endsWith('then #**gardening** some words'), 'the link closed');
      assert.deepEqual(await shown(page), []);
      await box.pressSequentially('.');
      await box.press('Enter');
      const row = messageRow(page, 'see');
      await row.getByRole('link', { name: '#gardening > plans' }).waitFor();
      await row.getByRole('link', { name: '#gardening > harvest' }).waitFor();
      assert.equal(await row.getByRole('link', { name: '#gardening', exact: true }).count(), 2);
      await ctx.close();
    }));

  test('links to channels and topics whose names the #** syntax cannot hold are Markdown links; #> offers the topics of the channel written to; > after a channel link goes back into it; a channel without topics is linked at once', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      assertSuccess(await owner.request('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'R&D' }, { name: 'lounge' }]) }));
      const rd = await streamIdOf(owner, 'R&D');
      const general = await streamIdOf(owner, 'general');
      const lounge = await streamIdOf(owner, 'lounge');
      assertSuccess(await owner.patch(`/streams/${lounge}`, { topics_policy: 'empty_topic_only' }));
      assertSuccess(await owner.post('/messages', { type: 'stream', to: 'R&D', topic: 'plain', content: 'a topic' }));
      assertSuccess(await owner.post('/messages', { type: 'stream', to: 'general', topic: 'x*y', content: 'a topic with a star' }));
      const { ctx, page, box } = await composeInGeneral(t.url, 'links');

      // R&D: its link is Zulip's Markdown link, then its topics.
      await box.pressSequentially('one #R&');
      await eventually(async () => (await shown(page))[0] === 'R&D ', 'the channel suggested');
      await box.press('Enter');
      const rdLink = `[#R&amp;D](#narrow/channel/${rd}-R.26D)`;
      await eventually(async () => (await box.inputValue()) === `one ${rdLink}>` && (await shown(page))[0] === '#R&D (link to channel)', 'its topics offered');
      await box.pressSequentially('pla');
      await eventually(async () => (await shown(page)).join('|') === 'pla New|plain ', 'narrowed');
      await box.press('ArrowDown');
      await box.press('Enter');
      assert.equal(await box.inputValue(), `one [#R&amp;D > plain](#narrow/channel/${rd}-R.26D/topic/plain) `);
      // Escape there: the channel's link kept, the words after it.
      await box.pressSequentially('two #R&');
      await eventually(async () => (await shown(page))[0] === 'R&D ', 'the channel suggested again');
      await box.press('>');
      await box.pressSequentially('some words');
      await eventually(async () => (await shown(page))[0] === 'some words New', 'the words offered as a topic');
      await box.press('Escape');
      await eventually(async () => (await box.inputValue()).endsWith(`two ${rdLink} some words`), 'the link closed');

      // #>: the topics of general, where the message goes; a topic with a star, as a Markdown link.
      await box.pressSequentially(' three #>');
      await eventually(async () => (await shown(page))[0] === '#general (link to channel)', "general's topics offered");
      await box.pressSequentially('x');
      await eventually(async () => (await shown(page)).join('|') === 'x New|x*y ', 'narrowed to the starred topic');
      await box.press('ArrowDown');
      await box.press('Enter');
      assert.ok((await box.inputValue()).endsWith(`three [#general > x&#42;y](#narrow/channel/${general}-general/topic/x*y) `));

      // > typed after a finished channel link: back into it, for a topic.
      await box.pressSequentially('four #**general** >');
      await eventually(async () => (await box.inputValue()).endsWith('four #**general>') && (await shown(page))[0] === '#general (link to channel)', 'back into the link');
      await box.press('Enter');
      assert.ok((await box.inputValue()).endsWith('four #**general** '));

      // A channel with only general chat: linked at once (> still goes on to its topics).
      await box.pressSequentially('five #loun');
      await eventually(async () => (await shown(page))[0] === 'lounge ', 'the channel suggested');
      await box.press('Enter');
      assert.ok((await box.inputValue()).endsWith('five #**lounge** '));
      await box.press('Enter');

      // Sent: each renders as a link named as Zulip names it.
      const row = messageRow(page, 'one');
      await row.getByRole('link', { name: '#R&D > plain' }).waitFor();
      assert.equal(await row.getByRole('link', { name: '#R&D', exact: true }).count(), 1);
      await row.getByRole('link', { name: '#general > x*y' }).waitFor();
      assert.equal(await row.getByRole('link', { name: '#general', exact: true }).count(), 1);
      assert.equal(await row.getByRole('link', { name: '#lounge', exact: true }).count(), 1);
      // The Markdown link goes to the topic.
      await row.getByRole('link', { name: '#R&D > plain' }).click();
      await eventually(async () => decodeURIComponent(new URL(page.url()).hash).startsWith(`#narrow/channel/${rd}-R.26D/topic/plain`), 'the topic shown');
      await ctx.close();
    }));

  test("a code block's language after its fence (Zulip's): those starting with what is typed first, by popularity, one name per language, the organization's default marked; picked, the block is closed after a line for the code; a spoiler's header selected", () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      assertSuccess(await owner.patch('/realm', { default_code_block_language: 'rust' }));
      const { ctx, page, box } = await composeInGeneral(t.url, 'code');
      await box.pressSequentially('```j');
      await eventually(async () => (await shown(page)).length > 0, 'languages suggested');
      const first = await shown(page);
      assert.deepEqual(first.slice(0, 2), ['javascript ', 'java ']);
      assert.ok(!first.includes('js '), 'one name for JavaScript');
      await box.press('Enter');
      await eventually(async () => (await box.inputValue()) === '```javascript\n\n```', 'the box holds ' + JSON.stringify('```javascript\n\n```'));
      await box.pressSequentially('let x = 1;');
      await eventually(async () => (await box.inputValue()) === '```javascript\nlet x = 1;\n```', 'the box holds ' + JSON.stringify('```javascript\nlet x = 1;\n```'));
      // The organization's default language, marked.
      await box.fill('');
      await box.pressSequentially('```ru');
      await eventually(async () => (await shown(page)).slice(0, 2).join('|') === 'rust (default)|ruby ', 'rust (the default), then ruby, by popularity');
      // (Then those holding it elsewhere in their names.)
      assert.ok((await shown(page)).slice(2).every((l) => !l.startsWith('ru') && l.includes('ru')));
      await box.press('Escape');
      // Not at the start of a line: nothing.
      await box.fill('');
      await box.pressSequentially('see ```j');
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(await shown(page), []);
      // A spoiler: its header selected, typed over.
      await box.fill('');
      await box.pressSequentially('~~~spoil');
      await eventually(async () => (await shown(page))[0] === 'spoiler ', 'spoiler suggested');
      await box.press('Tab');
      await eventually(async () => (await box.inputValue()) === '~~~spoiler Header\n\n~~~', 'the spoiler block');
      await page.keyboard.type('Plot');
      await eventually(async () => (await box.inputValue()) === '~~~spoiler Plot\n\n~~~', 'the box holds ' + JSON.stringify('~~~spoiler Plot\n\n~~~'));
      // Text after the caret is left as it is.
      await box.fill('```py\nprint(1)\n```');
      await box.evaluate((el) => (el as unknown as { setSelectionRange(a: number, b: number): void }).setSelectionRange(5, 5));
      await box.press('Backspace');
      await box.pressSequentially('y');
      await eventually(async () => (await shown(page))[0] === 'python ', 'python suggested');
      await box.press('Enter');
      await eventually(async () => (await box.inputValue()) === '```python\nprint(1)\n```', 'the box holds ' + JSON.stringify('```python\nprint(1)\n```'));
      // The formatting bar's Code with nothing selected: a code block, its languages offered at once.
      await box.fill('see');
      await page.getByRole('button', { name: 'Formatting' }).click();
      await page.getByRole('toolbar', { name: 'Formatting' }).getByRole('button', { name: 'Code' }).click();
      await eventually(async () => (await box.inputValue()) === 'see\n```\n\n```', 'the box holds ' + JSON.stringify('see\n```\n\n```'));
      // Zulip's own fences first (text, quote, spoiler, math), then the languages by popularity.
      await eventually(async () => (await shown(page)).slice(0, 6).join('|') === 'text |quote |spoiler |math |javascript |python ', 'the languages, most popular first');
      await box.press('Enter');
      await eventually(async () => (await box.inputValue()) === 'see\n```text\n\n```', 'the box holds ' + JSON.stringify('see\n```text\n\n```'));
      await ctx.close();
    }));

  test("<time offers a time-zone-aware time (Zulip's): picked in a date and time picker, it takes the place of what was typed; a time typed already is where the picker starts; Escape leaves the text as it was", () =>
    withWebServer(async (t) => {
      const { ctx, page, box } = await composeInGeneral(t.url, 'times');
      await box.pressSequentially('Meet at <time');
      await eventually(async () => (await shown(page)).join('|') === 'Mention a time-zone-aware time ', 'offered');
      await box.press('Enter');
      const form = page.getByRole('form', { name: 'Global time' });
      const input = form.getByLabel('Date and time');
      await eventually(async () => (await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label'))) === 'Date and time', 'the picker focused');
      assert.equal(await input.inputValue(), '');
      await input.fill('2030-01-02T03:04');
      await input.press('Enter');
      await eventually(async () => /^Meet at <time:2030-01-02T03:04:00[+-]\d\d:\d\d> $/.test(await box.inputValue()), 'the time in place of <time');
      assert.equal(await form.count(), 0);
      // A time typed already: the picker starts there; Escape changes nothing.
      await box.fill('');
      await box.pressSequentially('Or <time:2031-05-06T12:30:00');
      await eventually(async () => (await shown(page)).length === 1, 'offered again');
      await box.press('Tab');
      await eventually(async () => (await input.inputValue()) === (await page.evaluate(() => { const d = new Date('2031-05-06T12:30:00'); const p = (n: number) => String(n).padStart(2, '0'); return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`; })), 'the picker at the typed time');
      await input.press('Escape');
      await form.waitFor({ state: 'detached' });
      assert.equal(await box.inputValue(), 'Or <time:2031-05-06T12:30:00');
      await ctx.close();
    }));

  test("emoji suggestions in Zulip's order: the very name first, then Zulip's popular ones, then names starting with what is typed; each emoji once", () =>
    withWebServer(async (t) => {
      const { ctx, page, box } = await composeInGeneral(t.url, 'emoji order');
      const labels = async () => (await shown(page)).map((l) => l.split(' ')[0]);
      // "lov": love (heart, a popular one) before the others, and not again as love_you.
      await box.pressSequentially(':lov');
      await eventually(async () => (await labels())[0] === ':love:', 'love first');
      assert.ok(!(await labels()).includes(':love_you:'), 'the heart once');
      assert.ok((await labels()).includes(':love_letter:'));
      // "th": the popular thumbs up before names starting with "th".
      await box.fill('');
      await box.pressSequentially(':th');
      await eventually(async () => (await labels())[0] === ':thumbs_up:', 'thumbs up first');
      // A name typed in full comes first.
      await box.fill('');
      await box.pressSequentially(':cat');
      await eventually(async () => (await labels())[0] === ':cat:', 'cat itself first');
      await ctx.close();
    }));

  test('the topic field suggests the channel\u2019s topics as one types (Zulip\u2019s order, what is typed first as New, a hint); arrows, Enter and a click pick one and move to the message; Escape closes the list', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      // Oldest first: the list keeps the most recent first within each kind of match.
      for (const topic of ['lunch', 'Weekly planning', 'Plan B', 'release plans', 'planets', 'Résumé review']) {
        assertSuccess(await owner.post('/messages', { type: 'stream', to: 'general', topic, content: `about ${topic}` }));
      }
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await (await channelLink(page, 'general')).click();
      const topic = page.getByLabel('Topic', { exact: true });
      const box = page.getByLabel('Message', { exact: true });
      const list = page.getByRole('listbox', { name: 'Topics' });
      const offered = async (): Promise<string[]> => ((await list.count()) ? list.getByRole('option').allTextContents() : []);
      await topic.click();
      assert.deepEqual(await offered(), [], 'nothing before anything is typed');
      await topic.pressSequentially('plan');
      // The same name, then starting with it as typed, in any case, then a word starting with it; what is typed first, as a new topic.
      const expected = ['planNew', 'planets', 'Plan B', 'release plans', 'Weekly planning'];
      await eventually(async () => (await offered()).join('|') === expected.join('|'), `the topics offered: ${expected.join(', ')}`);
      assert.equal(await list.getByRole('presentation').textContent(), 'Start a new topic or select one from the list.');
      assert.equal(await topic.getAttribute('aria-activedescendant'), 'topic-suggestions-0');
      await topic.press('ArrowDown');
      await topic.press('ArrowDown');
      assert.equal(await list.getByRole('option', { selected: true }).textContent(), 'Plan B');
      await topic.press('Enter');
      await list.waitFor({ state: 'detached' });
      assert.equal(await topic.inputValue(), 'Plan B');
      assert.equal(await focusedLabel(page, 'Message'), 'Message');
      await box.fill('picked from the list');
      await box.press('Enter');
      await messageRow(page, 'picked from the list').waitFor();
      const sent = assertSuccess(await owner.request('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0 })).messages[0];
      assert.deepEqual([sent.subject, sent.content], ['Plan B', '<p>picked from the list</p>']);

      // Words are matched from their start, accents aside; a query with a space from a word's start; no match, no list.
      await topic.fill('');
      await topic.pressSequentially('resume');
      await eventually(async () => (await offered()).join('|') === 'resumeNew|Résumé review', 'the topic with accents offered');
      await topic.fill('');
      await topic.pressSequentially('weekly pl');
      await eventually(async () => (await offered()).includes('Weekly planning'), 'a query of two words');
      await topic.fill('');
      await topic.pressSequentially('ly pl');
      await page.waitForTimeout(200);
      assert.deepEqual(await offered(), []);
      // The exact name: no New; a click picks.
      await topic.fill('');
      await topic.pressSequentially('lunch');
      await eventually(async () => (await offered()).join('|') === 'lunch', 'the exact name offered, alone');
      await topic.fill('');
      await topic.pressSequentially('lun');
      await eventually(async () => (await offered()).includes('lunch'), 'lunch offered');
      await list.getByRole('option', { name: 'lunch', exact: true }).click();
      assert.equal(await topic.inputValue(), 'lunch');
      assert.equal(await list.count(), 0);
      // Escape closes the list and leaves the box open with what was typed.
      await topic.fill('');
      await topic.pressSequentially('pla');
      await list.waitFor();
      await topic.press('Escape');
      await list.waitFor({ state: 'detached' });
      assert.equal(await topic.inputValue(), 'pla');
      assert.ok(await box.isVisible());
      await ctx.close();
    }));

  test('Escape closes the suggestions and Enter then sends; nothing is offered inside an address or a time; in a direct message only the two wildcards', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const alice = await t.makeUser({ password: PASSWORD, name: 'Alice Ample' });
      const { ctx, page, box } = await composeInGeneral(t.url, 'plain');

      await box.pressSequentially('write to bob@al or at 10:30 or #1 ');
      assert.deepEqual(await shown(page), []);
      // Nor in the middle of a word (Zulip's): "@a" typed before "lice" offers nothing until the caret is at the word's end.
      await box.fill('ping lice, then');
      await box.evaluate((el) => (el as unknown as { setSelectionRange(a: number, b: number): void }).setSelectionRange(5, 5));
      await box.pressSequentially('@a');
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(await shown(page), []);
      await box.evaluate((el) => (el as unknown as { setSelectionRange(a: number, b: number): void }).setSelectionRange(11, 11));
      await box.press('ArrowLeft');
      await box.press('ArrowRight');
      await eventually(async () => (await shown(page)).includes(`Alice Ample ${alice.email}`), 'suggested with the caret before ","');
      // After the characters Zulip's tokenizer takes as a token's start (here "/"), and not after others (">").
      await box.fill('');
      await box.pressSequentially('a>@ali');
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(await shown(page), []);
      await box.fill('');
      await box.pressSequentially('ok/@ali');
      await eventually(async () => (await shown(page)).includes(`Alice Ample ${alice.email}`), 'suggested after "/"');
      await box.fill('');
      await box.pressSequentially('ping @al');
      await eventually(async () => (await shown(page)).length > 0, 'suggestions');
      assert.deepEqual(await shown(page), ['all Notify everyone in the channel', `Alice Ample ${alice.email}`]);
      await box.press('Escape');
      assert.deepEqual(await shown(page), []);
      // What is typed after the closed mention still gets its own suggestions.
      await box.pressSequentially(' :octop');
      await eventually(async () => (await shown(page)).some((s) => s.startsWith(':octopus:')), 'an emoji suggested after the mention');
      await box.press('Escape');
      await box.press('Enter');
      await messageRow(page, 'ping @al').waitFor();
      const sent = assertSuccess(await owner.request('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: 'false' })).messages[0];
      assert.equal(sent.content, 'ping @al :octop');

      // In a direct message: "all" and "everyone" only.
      await page.getByRole('button', { name: 'Direct message', exact: true }).click();
      await page.getByLabel('Recipients').fill('Alice');
      await page.getByLabel('Recipients').press('Enter');
      await box.fill('');
      await box.pressSequentially('@');
      await eventually(async () => (await shown(page)).length > 0, 'suggestions in a direct message');
      const all = await shown(page);
      assert.ok(all.includes('all Notify everyone in the conversation') && all.includes('everyone Notify everyone in the conversation'), all.join(' | '));
      assert.ok(!all.some((s) => /^(channel|topic) /.test(s)), all.join(' | '));
      await ctx.close();
    }));

  test('the reaction picker finds any emoji by name, custom ones too, beyond the popular ones it starts with', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      await postPng(t.url, t.owner, '/realm/emoji/partyparrot', 'parrot.png');
      const { id } = assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'react', content: 'react to me' }));
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await (await channelLink(page, 'general')).click();
      const row = messageRow(page, 'react to me');
      const pick = async (typed: string, name: string) => {
        await row.hover();
        await row.getByRole('button', { name: 'Add reaction' }).click();
        const picker = page.getByRole('dialog', { name: 'Choose an emoji' });
        await picker.getByLabel('Emoji name').fill(typed);
        await picker.getByRole('button', { name, exact: true }).click();
      };
      await pick('giraf', 'giraffe');
      await row.getByRole('button', { name: 'giraffe reaction, 1' }).waitFor();
      await pick('party', 'partyparrot');
      await row.getByRole('button', { name: 'partyparrot reaction, 1' }).waitFor();
      const reactions = assertSuccess(await owner.get(`/messages/${id}`)).message.reactions as Array<{ emoji_name: string; emoji_code: string; reaction_type: string }>;
      assert.deepEqual(
        reactions.map((r) => [r.emoji_name, r.reaction_type]),
        [
          ['giraffe', 'unicode_emoji'],
          ['partyparrot', 'realm_emoji'],
        ],
      );
      assert.equal(reactions[0]!.emoji_code, '1f992');
      await ctx.close();
    }));

  test('editing a message offers the same suggestions; Escape closes them before it cancels the edit', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      await t.makeUser({ password: PASSWORD, name: 'Bob Builder' });
      const { id } = assertSuccess(await owner.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'edits', content: 'thanks' }));
      const ctx = await newContext();
      const page = await loginPage(ctx, t.url, OWNER_EMAIL, OWNER_PASSWORD);
      await (await channelLink(page, 'general')).click();
      const row = messageRow(page, 'thanks');
      await row.hover();
      await row.getByRole('button', { name: 'Edit', exact: true }).click();
      const box = page.getByLabel('Edit content');
      await eventually(async () => (await box.inputValue()) === 'thanks', 'the raw content loaded');
      await box.press('End');
      await box.pressSequentially(' @bob');
      await eventually(async () => (await shown(page)).length === 1, 'Bob suggested');
      // Escape closes the suggestions only; the edit stays open.
      await box.press('Escape');
      assert.deepEqual(await shown(page), []);
      assert.equal(await box.count(), 1);
      // Typing on in the closed mention keeps it closed; a new one opens again.
      await box.pressSequentially(' B');
      assert.deepEqual(await shown(page), []);
      await box.fill('thanks');
      await box.pressSequentially(' @bob');
      await eventually(async () => (await shown(page)).length === 1, 'Bob suggested again');
      await box.press('Enter');
      assert.equal(await box.inputValue(), 'thanks @**Bob Builder** ');
      await box.pressSequentially(':giraf');
      await eventually(async () => (await shown(page)).some((x) => x.startsWith(':giraffe:')), 'an emoji suggested');
      await box.press('Tab');
      await box.press('Enter');
      await eventually(async () => (await box.count()) === 0, 'the edit saved');
      const raw = assertSuccess(await owner.request('GET', `/messages/${id}`, { apply_markdown: 'false' })).message.content;
      assert.equal(raw, 'thanks @**Bob Builder** :giraffe:');
      // No commands in an edit: a message does not become a poll.
      await row.hover();
      await row.getByRole('button', { name: 'Edit', exact: true }).click();
      await eventually(async () => (await box.inputValue()).startsWith('thanks'), 'the raw content loaded again');
      await box.fill('/p');
      assert.deepEqual(await shown(page), []);
      await box.press('Escape');
      await ctx.close();
    }));

  test('/ at the start of a message offers Zulip\u2019s commands; /poll picked makes a poll', () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const { ctx, page, box } = await composeInGeneral(t.url, 'commands');
      await box.pressSequentially('/');
      await eventually(async () => (await shown(page)).length === 3, 'the commands suggested');
      assert.deepEqual(await shown(page), ['/me Action message', '/poll Create a poll', '/todo Create a collaborative to-do list']);
      await box.pressSequentially('p');
      await eventually(async () => (await shown(page)).length === 1, 'only /poll');
      await box.press('Enter');
      assert.equal(await box.inputValue(), '/poll ');
      // Not after the start of the message, nor in a path.
      await box.pressSequentially('Lunch? /p');
      assert.deepEqual(await shown(page), []);
      await box.fill('/usr/bin');
      assert.deepEqual(await shown(page), []);
      await box.fill('/poll Lunch?');
      await box.press('Shift+Enter');
      await box.pressSequentially('Pizza');
      await box.press('Enter');
      await page.getByRole('region', { name: 'Poll: Lunch?' }).or(page.getByText('Pizza', { exact: true })).first().waitFor();
      const sent = assertSuccess(await owner.request('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: 'false' })).messages[0];
      assert.equal(sent.content, '/poll Lunch?\nPizza');
      assert.equal(sent.submessages[0].content ? JSON.parse(sent.submessages[0].content).widget_type : null, 'poll');
      await ctx.close();
    }));

  test("Zulip's warnings before sending: someone mentioned who is not subscribed (Subscribe them, or dismissed), a group none of whose members is, a private channel linked, a resolved topic (Unresolve topic), and @all in a channel of more than 15 subscribers (not allowed; Yes, send)", () =>
    withWebServer(async (t) => {
      const owner = t.client(t.owner);
      const bob = await t.makeUser({ password: PASSWORD, name: 'Bob Warned' });
      const carol = await t.makeUser({ name: 'Carol Outside' });
      const dan = await t.makeUser({ name: 'Dan Outside' });
      const crowd: number[] = [];
      for (let i = 0; i < 15; i++) crowd.push((await t.makeUser({ name: `Crowd ${i}` })).id);
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'lounge' }]), principals: JSON.stringify([t.owner.id, bob.id]) }));
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'hall' }]), principals: JSON.stringify([t.owner.id, bob.id, ...crowd]) }));
      assertSuccess(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'secret' }]), invite_only: 'true', principals: JSON.stringify([t.owner.id, bob.id]) }));
      assertSuccess(await owner.post('/user_groups/create', { name: 'nomads', description: 'Not here', members: JSON.stringify([dan.id]) }));
      assertSuccess(await owner.post('/messages', { type: 'stream', to: 'lounge', topic: '\u2714 done', content: 'Finished' }));
      const loungeId = await streamIdOf(owner, 'lounge');
      const hallId = await streamIdOf(owner, 'hall');
      const members = async (id: number) => assertSuccess(await owner.get(`/streams/${id}/members`)).subscribers as number[];
      const newest = async (id: number) => (assertSuccess(await owner.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: id }]) })).messages as Array<Record<string, any>>)[0];

      const page = await loginPage(await newContext(), t.url, bob.email, PASSWORD);
      await (await channelLink(page, 'lounge')).click();
      await page.getByLabel('Topic', { exact: true }).fill('plans');
      const box = page.getByLabel('Message', { exact: true });
      const warning = (name: string) => page.locator('.compose-banner.warning', { hasText: `${name} is not subscribed to this channel.` });

      // A subscriber mentioned: no warning. Carol, who is not: warned, and subscribed from the warning (the organization lets members subscribe others to a public channel).
      await box.pressSequentially('Hi @own');
      await eventually(async () => (await shown(page)).length > 0, 'the owner suggested');
      await box.press('Enter');
      await box.pressSequentially('and @carol');
      await eventually(async () => (await shown(page)).length === 1, 'Carol suggested');
      await box.press('Enter');
      await warning('Carol Outside').waitFor();
      assert.match((await warning('Carol Outside').textContent())!, /They will not be notified unless you subscribe them\./);
      assert.equal(await page.locator('.compose-banner.warning').count(), 1);
      await warning('Carol Outside').getByRole('button', { name: 'Subscribe them' }).click();
      await eventually(async () => (await members(loungeId)).includes(carol.id), 'Carol subscribed at the server');
      await warning('Carol Outside').waitFor({ state: 'detached' });
      // Dan: warned, and the warning dismissed.
      await box.pressSequentially('and @dan');
      await eventually(async () => (await shown(page)).length === 1, 'Dan suggested');
      await box.press('Enter');
      await warning('Dan Outside').getByRole('button', { name: 'Dismiss the warning about Dan Outside' }).click();
      await warning('Dan Outside').waitFor({ state: 'detached' });
      assert.equal((await members(loungeId)).includes(dan.id), false);
      // A group none of whose members is here: warned.
      await box.pressSequentially('and @noma');
      await eventually(async () => (await shown(page)).length === 1, 'the group suggested');
      await box.press('Enter');
      const groupWarning = page.locator('.compose-banner.warning', { hasText: 'are subscribed to this channel.' });
      assert.equal((await groupWarning.locator('span').textContent())!.trim(), 'None of the members of nomads are subscribed to this channel.');
      await groupWarning.getByRole('button', { name: 'Dismiss the warning about nomads' }).click();
      await groupWarning.waitFor({ state: 'detached' });
      // A private channel linked that Carol, here now, is not in: warned.
      await box.pressSequentially('see #secr');
      await eventually(async () => (await shown(page)).length === 1, 'the private channel suggested');
      await box.press('Enter');
      const privateWarning = page.locator('.compose-banner.warning', { hasText: 'is a private channel.' });
      await privateWarning.waitFor();
      assert.equal((await privateWarning.locator('span').textContent())!.trim(), 'Warning: #secret is a private channel.');
      // (Its topics offered now: the link to the channel itself, then send.)
      await eventually(async () => (await shown(page))[0] === '#secret (link to channel)', 'its topics offered');
      await box.press('Enter');
      await box.press('Enter');
      await messageRow(page, 'Hi @').waitFor();
      await privateWarning.waitFor({ state: 'detached' });

      // Writing to a resolved topic: warned, and the topic unresolved from the warning; the box then writes to its new name.
      await page.getByLabel('Topic', { exact: true }).fill('\u2714 done');
      const resolvedWarning = page.locator('.compose-banner.warning', { hasText: 'You are sending a message to a resolved topic.' });
      assert.equal(await resolvedWarning.count(), 0);
      await box.fill('One more thing');
      await resolvedWarning.getByRole('button', { name: 'Unresolve topic' }).click();
      await eventually(async () => (await newest(loungeId))?.subject === 'done', 'the topic unresolved at the server');
      await eventually(async () => (await page.getByLabel('Topic', { exact: true }).inputValue()) === 'done', 'the box writing to the new name');
      await resolvedWarning.waitFor({ state: 'detached' });
      await box.press('Enter');
      await eventually(async () => (await newest(loungeId))?.content === '<p>One more thing</p>', 'sent');
      assert.equal((await newest(loungeId))!.subject, 'done');

      // @all where 17 are subscribed: a member may not (the organization's can_mention_many_users_group: administrators, Zulip's default).
      await (await channelLink(page, 'hall')).click();
      await page.getByLabel('Topic', { exact: true }).fill('news');
      await box.fill('@**all** the hall opens at nine');
      await box.press('Enter');
      const refused = page.locator('.compose-banner.error');
      assert.equal((await refused.locator('span').textContent())!.replace(/\s+/g, ' ').trim(), 'You do not have permission to use @all mentions in this channel.');
      assert.equal(await box.inputValue(), '@**all** the hall opens at nine');
      // Members made able to: asked first, nothing sent until Yes, send.
      const membersGroup = assertSuccess(await owner.get('/user_groups')).user_groups.find((g: Record<string, any>) => g.name === 'role:members').id as number;
      assertSuccess(await owner.patch('/realm', { can_mention_many_users_group: JSON.stringify({ new: membersGroup }) }));
      await eventually(async () => {
        await box.press('Enter');
        return (await page.locator('.compose-banner.warning', { hasText: 'Are you sure' }).count()) === 1;
      }, 'the question, once the setting has come');
      const ask = page.locator('.compose-banner.warning', { hasText: 'Are you sure you want to send @-mention notifications' });
      await ask.waitFor();
      assert.equal((await ask.locator('span').first().textContent())!.replace(/\s+/g, ' ').trim(), 'Are you sure you want to send @-mention notifications to the 17 users subscribed to #hall? If not, please edit your message to remove the @all mention.');
      assert.equal(await box.inputValue(), '@**all** the hall opens at nine');
      assert.equal((await newest(hallId))?.content, undefined);
      await ask.getByRole('button', { name: 'Yes, send' }).click();
      await eventually(async () => ((await newest(hallId))?.content as string | undefined)?.includes('the hall opens at nine') === true, 'the message sent');
      assert.match((await newest(hallId))!.content, /^<p><span class="user-mention channel-wildcard-mention" data-user-id="\*">@all<\/span> the hall opens at nine<\/p>$/);
      await ask.waitFor({ state: 'detached' });
      // A silent wildcard and a small channel send at once.
      await box.fill('@_**all** quietly');
      await box.press('Enter');
      await eventually(async () => ((await newest(hallId))?.content as string | undefined)?.includes('quietly') === true, 'the silent one sent');
      await (await channelLink(page, 'lounge')).click();
      await page.getByLabel('Topic', { exact: true }).fill('plans');
      await box.fill('@**all** small room');
      await box.press('Enter');
      await eventually(async () => ((await newest(loungeId))?.content as string | undefined)?.includes('small room') === true, 'sent at once in a small channel');
      assert.equal(await ask.count(), 0);
    }));
});

/** The compose box has the focus. */
async function expectFocus(page: Page): Promise<void> {
  await eventually(() => page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label') === 'Message'), 'the message box focused');
}
