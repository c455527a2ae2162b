/**
 * Notification Bot's notices in a channel about the channel (Zulip's
 * channel events messages): its creation (by POST /channels/create and by
 * subscribing), and a rename, a new description, access, retention, posting
 * permission and general-chat changes, archiving and unarchiving; in the
 * "channel events" topic (the general chat of a channel without topics);
 * none while the organization's send_channel_events_messages is off.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertSuccess, streamIdOf, type Account, type TestServer } from './helpers.ts';
import { ROLE } from '../src/store/users.ts';

let t: TestServer;
let member: Account;
let owner: string;

before(async () => {
  t = await startTestServer();
  member = await t.makeUser({ role: ROLE.MEMBER, name: 'Mia Member' });
  owner = `@_**${(assertSuccess(await t.client(t.owner).get('/users/me')).full_name as string)}|${t.owner.id}**`;
});
after(() => t.close());

const api = () => t.client(t.owner);

/** The channel's newest message, as sent (topic, sender's name, Markdown, read or not for the member). */
async function newest(streamId: number): Promise<{ topic: string; sender: string; content: string; readByMember: boolean; readByOwner: boolean }> {
  const narrow = JSON.stringify([{ operator: 'channel', operand: streamId }]);
  const read = async (who: Account) => {
    const m = assertSuccess(await t.client(who).get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow, apply_markdown: false, allow_empty_topic_name: true })).messages.at(-1);
    return m;
  };
  const m = await read(t.owner);
  const mine = await read(member);
  return { topic: m.subject, sender: m.sender_full_name, content: m.content, readByMember: (mine.flags as string[]).includes('read'), readByOwner: (m.flags as string[]).includes('read') };
}

const groupId = async (name: string) => (assertSuccess(await api().get('/user_groups')).user_groups as Array<{ id: number; name: string }>).find((g) => g.name === name)!.id;

test('a new channel: "**Public** channel created by ..." with its description, in "channel events", read for its creator only', async () => {
  const { id } = assertSuccess(await api().post('/channels/create', { name: 'plans', description: 'Where we plan', subscribers: JSON.stringify([t.owner.id, member.id]) }));
  assert.deepEqual(await newest(id), {
    topic: 'channel events',
    sender: 'Notification Bot',
    content: `**Public** channel created by ${owner}. **Description:**\n\`\`\`\` quote\nWhere we plan\n\`\`\`\``,
    readByMember: false,
    readByOwner: true,
  });
  // By subscribing: a private channel without a description.
  assertSuccess(await api().post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'secret' }]), invite_only: true, history_public_to_subscribers: true, principals: JSON.stringify([t.owner.id, member.id]) }));
  const secret = await streamIdOf(api(), 'secret');
  const made = await newest(secret);
  assert.equal(made.content, `**Private, shared history** channel created by ${owner}. **Description:**\n\`\`\`\` quote\n*No description.*\n\`\`\`\``);
  assert.equal(made.topic, 'channel events');
});

test('changes to a channel are told there, in Zulip\'s words', async () => {
  const { id } = assertSuccess(await api().post('/channels/create', { name: 'notices', description: 'First words', subscribers: JSON.stringify([t.owner.id, member.id]) }));
  const told = async (params: Record<string, unknown>) => {
    assertSuccess(await api().patch(`/streams/${id}`, params));
    const m = await newest(id);
    assert.equal(m.topic, 'channel events');
    assert.equal(m.sender, 'Notification Bot');
    return m.content;
  };
  assert.equal(await told({ new_name: 'announcements' }), `${owner} renamed channel **notices** to **announcements**.`);
  assert.equal(
    await told({ description: 'Second words' }),
    `${owner} changed the description for this channel.\n\n* **Old description:**\n\`\`\`\` quote\nFirst words\n\`\`\`\`\n* **New description:**\n\`\`\`\` quote\nSecond words\n\`\`\`\``,
  );
  assert.equal(
    await told({ description: '' }),
    `${owner} changed the description for this channel.\n\n* **Old description:**\n\`\`\`\` quote\nSecond words\n\`\`\`\`\n* **New description:**\n\`\`\`\` quote\n*No description.*\n\`\`\`\``,
  );
  assert.equal(await told({ is_private: true }), `${owner} changed the [access permissions](/help/channel-permissions) for this channel from **Public** to **Private, protected history**.`);
  assert.equal(
    await told({ history_public_to_subscribers: true }),
    `${owner} changed the [access permissions](/help/channel-permissions) for this channel from **Private, protected history** to **Private, shared history**.`,
  );
  assert.equal(
    await told({ is_private: false }),
    `${owner} changed the [access permissions](/help/channel-permissions) for this channel from **Private, shared history** to **Public**.`,
  );
  assert.equal(
    await told({ message_retention_days: 30 }),
    `${owner} has changed the [message retention period](/help/message-retention-policy) for this channel:\n* **Old retention period**: Forever\n* **New retention period**: 30 days\n\nMessages in this channel will now be automatically deleted 30 days after they are sent.`,
  );
  assert.equal(
    await told({ message_retention_days: JSON.stringify('unlimited') }),
    `${owner} has changed the [message retention period](/help/message-retention-policy) for this channel:\n* **Old retention period**: 30 days\n* **New retention period**: Forever\n\nMessages in this channel will now be retained forever.`,
  );
  const admins = await groupId('role:administrators');
  const everyone = await groupId('role:everyone');
  assert.equal(
    await told({ can_send_message_group: JSON.stringify({ new: admins }) }),
    `${owner} changed the [posting permissions](/help/channel-posting-policy) for this channel:\n\n* **Old**: @_*role:everyone*\n* **New**: @_*role:administrators*`,
  );
  assert.equal(
    await told({ can_send_message_group: JSON.stringify({ new: { direct_members: [member.id, t.owner.id], direct_subgroups: [admins] } }) }),
    `${owner} changed the [posting permissions](/help/channel-posting-policy) for this channel:\n\n* **Old**: @_*role:administrators*\n* **New**: @_*role:administrators*, ${owner}, @_**Mia Member|${member.id}**`,
  );
  assertSuccess(await api().patch(`/streams/${id}`, { can_send_message_group: JSON.stringify({ new: everyone }) }));
  assert.equal(
    await told({ topics_policy: 'disable_empty_topic' }),
    `${owner} changed the "Allow posting to the *general chat* topic?" setting from **Automatic** to **No *general chat* topic**.`,
  );
  // Archived: told there, read for everyone; unarchived: told again.
  assertSuccess(await api().delete(`/streams/${id}`));
  const archived = await newest(id);
  assert.deepEqual([archived.topic, archived.content, archived.readByMember, archived.readByOwner], ['channel events', 'Channel #**announcements** has been archived.', true, true]);
  // A privacy change of the archived channel is told there too.
  assert.equal(
    await told({ is_private: true, history_public_to_subscribers: true }),
    `${owner} changed the [access permissions](/help/channel-permissions) for this channel from **Public** to **Private, shared history**.`,
  );
  assert.equal(await told({ is_archived: false }), 'Channel #**announcements** has been unarchived.');
});

test('a channel without topics gets them in its general chat; none while the organization turns them off', async () => {
  const { id } = assertSuccess(await api().post('/channels/create', { name: 'chatter', topics_policy: 'empty_topic_only', subscribers: JSON.stringify([t.owner.id]) }));
  const made = await newest(id);
  assert.equal(made.topic, '');
  assert.match(made.content, /^\*\*Public\*\* channel created by /);
  assertSuccess(await api().patch('/realm', { send_channel_events_messages: false }));
  const countOf = async (streamId: number) =>
    assertSuccess(await api().get('/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: streamId }]) })).messages.length as number;
  const before = await countOf(id);
  assertSuccess(await api().patch(`/streams/${id}`, { new_name: 'quiet chatter', description: 'Hush' }));
  assertSuccess(await api().delete(`/streams/${id}`));
  assert.equal(await countOf(id), before);
  const { id: silent } = assertSuccess(await api().post('/channels/create', { name: 'silent', subscribers: JSON.stringify([t.owner.id]) }));
  assert.equal(await countOf(silent), 0);
  assertSuccess(await api().patch('/realm', { send_channel_events_messages: true }));
});
