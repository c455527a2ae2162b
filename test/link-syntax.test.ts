/**
 * Links to channels, topics and messages in Notification Bot's notices, as
 * Zulip writes them (zerver/lib/topic_link_util.py): `#**channel**`,
 * `#**channel>topic**`, `#**channel>topic@id**`, and, where a name holds a
 * character that would break that syntax (`` ` `` `>` `*` `&` `[` `]` `$$`),
 * a plain Markdown link to the narrow instead, the name's troublesome
 * characters written as HTML entities. Zulip's own test cases, then each
 * notice that links a channel, a topic or a message.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertSuccess, openQueue, type TestServer, type Account } from './helpers.ts';
import { makeChannel, setRealmSetting } from './messages-fixtures.ts';
import { channelLinkSyntax, messageLinkSyntax, topicLinkSyntax } from '../src/lib/message-url.ts';
import { deliverDueScheduledMessages } from '../src/actions/scheduled-messages.ts';

let t: TestServer;
let alice: Account, bob: Account;

before(async () => {
  t = await startTestServer();
  alice = await t.makeUser({ name: 'Alice' });
  bob = await t.makeUser({ name: 'Bob' });
});
after(() => t.close());

test("the link syntax, and its fallback: Zulip's test cases", () => {
  const sweden = { id: 1, name: 'Sweden' };
  const money = { id: 6, name: '$$MONEY$$' };
  assert.equal(channelLinkSyntax(sweden), '#**Sweden**');
  assert.equal(channelLinkSyntax(money), '[#&#36;&#36;MONEY&#36;&#36;](#narrow/channel/6-.24.24MONEY.24.24)');
  assert.equal(channelLinkSyntax({ id: 7, name: 'Markdown [md]' }), '[#Markdown &#91;md&#93;](#narrow/channel/7-Markdown-.5Bmd.5D)');
  assert.equal(topicLinkSyntax(sweden, 'topic'), '#**Sweden>topic**');
  assert.equal(topicLinkSyntax(sweden, 'test `test` test'), '[#Sweden > test &#96;test&#96; test](#narrow/channel/1-Sweden/topic/test.20.60test.60.20test)');
  assert.equal(topicLinkSyntax(sweden, 'error due to *'), '[#Sweden > error due to &#42;](#narrow/channel/1-Sweden/topic/error.20due.20to.20*)');
  assert.equal(topicLinkSyntax(sweden, 'greaterthan>'), '[#Sweden > greaterthan&gt;](#narrow/channel/1-Sweden/topic/greaterthan.3E)');
  assert.equal(topicLinkSyntax(money, 'dollar'), '[#&#36;&#36;MONEY&#36;&#36; > dollar](#narrow/channel/6-.24.24MONEY.24.24/topic/dollar)');
  assert.equal(topicLinkSyntax(sweden, 'swe$$dish'), '[#Sweden > swe&#36;&#36;dish](#narrow/channel/1-Sweden/topic/swe.24.24dish)');
  assert.equal(topicLinkSyntax(sweden, '&a[b'), '[#Sweden > &amp;a&#91;b](#narrow/channel/1-Sweden/topic/.26a.5Bb)');
  // One dollar sign is fine; the empty topic keeps the syntax, or is named "general chat" in a link.
  assert.equal(topicLinkSyntax(sweden, 'costs $5'), '#**Sweden>costs $5**');
  assert.equal(topicLinkSyntax(sweden, ''), '#**Sweden>**');
  assert.equal(topicLinkSyntax({ id: 1, name: 'Sw*den' }, ''), '[#Sw&#42;den > general chat](#narrow/channel/1-Sw*den/topic/)');
  assert.equal(messageLinkSyntax(sweden, 'topic', 123), '#**Sweden>topic@123**');
  assert.equal(messageLinkSyntax(sweden, '', 123), '#**Sweden>@123**');
  assert.equal(messageLinkSyntax({ id: 1, name: 'Sw*den' }, 'topic', 123), '[#Sw&#42;den > topic @ \u{1F4AC}](#narrow/channel/1-Sw*den/topic/topic/near/123)');
});

/** The raw Markdown and the HTML of a message. */
async function sent(who: Account, id: number): Promise<{ raw: string; html: string }> {
  const raw = assertSuccess(await t.client(who).get(`/messages/${id}`, { apply_markdown: false })).message.content as string;
  const html = assertSuccess(await t.client(who).get(`/messages/${id}`)).message.content as string;
  return { raw, html };
}

test('notices link names the syntax cannot hold with a Markdown link to the narrow', async () => {
  // A new channel's announcement.
  const announcements = await makeChannel(t, { name: 'announcements', subscribers: [alice.id, bob.id] });
  await setRealmSetting(t, 'new_stream_announcements_stream_id', announcements);
  const qa = await openQueue(t.client(bob), { event_types: ['message'] });
  const { id: md } = assertSuccess(await t.client(alice).post('/channels/create', { name: 'Markdown [md]', subscribers: JSON.stringify([alice.id]), announce: true }));
  const announced = (await qa.ofType('message')).find((e) => e.message.stream_id === announcements)!;
  const a = await sent(bob, announced.message.id);
  assert.equal(a.raw, `@_**Alice|${alice.id}** created a new channel [#Markdown &#91;md&#93;](#narrow/channel/${md}-Markdown-.5Bmd.5D).`);
  // Rendered as a link to the channel, named as the channel is (the entities kept, which show as the characters).
  assert.ok(a.html.includes(`<a href="#narrow/channel/${md}-Markdown-.5Bmd.5D">#Markdown &#91;md&#93;</a>`), a.html);

  // Subscribed by someone else: Notification Bot's direct message.
  const money = await makeChannel(t, { name: '$$MONEY$$', subscribers: [alice.id] });
  const qb = await openQueue(t.client(bob), { event_types: ['message'] });
  assertSuccess(await t.client(alice).post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: '$$MONEY$$' }]), principals: JSON.stringify([bob.id]) }));
  const [dm] = await qb.ofType('message');
  assert.equal((await sent(bob, dm.message.id)).raw, `@**Alice|${alice.id}** subscribed you to the channel [#&#36;&#36;MONEY&#36;&#36;](#narrow/channel/${money}-.24.24MONEY.24.24).`);

  // A topic moved: the notice left behind links the new place.
  const from = await makeChannel(t, { name: 'from here', subscribers: [alice.id, bob.id] });
  const m = assertSuccess(await t.client(alice).post('/messages', { type: 'stream', to: from, topic: 'plans', content: 'first' })).id as number;
  const qm = await openQueue(t.client(bob), { event_types: ['message'] });
  assertSuccess(await t.client(alice).patch(`/messages/${m}`, { topic: 'test `test` test', propagate_mode: 'change_all', send_notification_to_old_thread: true, send_notification_to_new_thread: false }));
  const [moved] = await qm.ofType('message');
  assert.equal(moved.message.subject, 'plans');
  assert.equal((await sent(bob, moved.message.id)).raw, `This topic was moved to [#from here > test &#96;test&#96; test](#narrow/channel/${from}-from-here/topic/test.20.60test.60.20test) by @_**Alice|${alice.id}**.`);

  // A report of a message in the general chat of a channel named with an asterisk.
  const sw = await makeChannel(t, { name: 'Sw*den', subscribers: [alice.id, bob.id] });
  const rude = assertSuccess(await t.client(bob).post('/messages', { type: 'stream', to: sw, topic: '', content: 'foo baz' })).id as number;
  const mod = await makeChannel(t, { name: 'moderation', inviteOnly: true, subscribers: [t.owner.id] });
  await setRealmSetting(t, 'moderation_request_channel_id', mod);
  const qo = await openQueue(t.client(t.owner), { event_types: ['message'] });
  assertSuccess(await t.client(alice).post(`/messages/${rude}/report`, { report_type: 'spam' }));
  const [report] = await qo.ofType('message');
  assert.ok((await sent(t.owner, report.message.id)).raw.endsWith(`\`\`\` spoiler Original message at [#Sw&#42;den > general chat @ \u{1F4AC}](#narrow/channel/${sw}-Sw*den/topic//near/${rude})\nfoo baz\n\`\`\``));

  // A reminder of a message there.
  const at = Math.floor(Date.now() / 1000) + 3600;
  assertSuccess(await t.client(alice).post('/reminders', { message_id: rude, scheduled_delivery_timestamp: at }));
  const qr = await openQueue(t.client(alice), { event_types: ['message'] });
  await deliverDueScheduledMessages(t.server.svc, at + 1);
  const [reminder] = await qr.ofType('message');
  assert.ok((await sent(alice, reminder.message.id)).raw.startsWith(`You requested a reminder for [#Sw&#42;den > general chat @ \u{1F4AC}](#narrow/channel/${sw}-Sw*den/topic//near/${rude}).`));

  // Archived, then unarchived: the channel's own notices.
  assertSuccess(await t.client(t.owner).post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'Sw*den' }]) }));
  const qs = await openQueue(t.client(bob), { event_types: ['message'] });
  assertSuccess(await t.client(t.owner).delete(`/streams/${sw}`));
  const [archived] = await qs.ofType('message');
  assert.equal((await sent(bob, archived.message.id)).raw, `Channel [#Sw&#42;den](#narrow/channel/${sw}-Sw*den) has been archived.`);
  assertSuccess(await t.client(t.owner).patch(`/streams/${sw}`, { is_archived: false }));
  const [unarchived] = await qs.ofType('message');
  assert.equal((await sent(bob, unarchived.message.id)).raw, `Channel [#Sw&#42;den](#narrow/channel/${sw}-Sw*den) has been unarchived.`);
});
