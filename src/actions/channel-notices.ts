/**
 * Notification Bot's notices about a channel, in the channel itself (Zulip's
 * maybe_send_channel_events_notice): its creation, and the changes of its
 * name, description, access, message retention, posting permissions and
 * general-chat setting, its archiving and unarchiving; in its "channel
 * events" topic (its general chat where it has no other topics), unless the
 * organization's send_channel_events_messages is off. The words are Zulip's.
 */
import type { Services } from '../services.ts';
import type { StreamRow } from '../store/streams.ts';
import type { UserRow } from '../store/users.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { channelLinkSyntax } from '../lib/message-url.ts';
import { streamGroupSetting } from './access.ts';
import { cachedGroups, cachedRealm, cachedUsers } from './cache.ts';
import type { GroupSettingValue } from './group-settings.ts';
import { sendMessage } from './messages.ts';
import { notificationBot, silentMention } from './system-bots.ts';

/** Zulip's Realm.STREAM_EVENTS_NOTIFICATION_TOPIC_NAME. */
export const CHANNEL_EVENTS_TOPIC = 'channel events';

interface NoticeOptions {
  /** Sent to the channel even though it is archived (Zulip's archived_channel_notice). */
  archived?: boolean;
  /** Who gets it already read: everyone, or these users (Zulip's limit_unread_user_ids and mark_as_read). */
  readFor?: 'all' | readonly number[];
}

/** Sends one notice to a channel's events topic; a failure is logged, never thrown (the change it reports is made). */
async function notice(svc: Services, stream: StreamRow, content: string, opts: NoticeOptions = {}): Promise<void> {
  try {
    if (realmSettings((await cachedRealm(svc)).row.settings_json).send_channel_events_messages === false) return;
    await sendMessage(svc, await notificationBot(svc), {
      type: 'stream',
      to: String(stream.id),
      topic: stream.topics_policy === 'empty_topic_only' ? '' : CHANNEL_EVENTS_TOPIC,
      content,
      clientName: 'Internal',
      readBySender: true,
      archivedChannelNotice: opts.archived,
      readFor: opts.readFor,
    });
  } catch (e) {
    svc.log.warn({ err: e, streamId: stream.id }, 'channel notice failed');
  }
}

/** Zulip's Stream.PERMISSION_POLICIES policy names. */
function policyName(s: Pick<StreamRow, 'invite_only' | 'is_web_public' | 'history_public_to_subscribers'>): string {
  if (s.is_web_public) return 'Web-public';
  if (s.invite_only) return s.history_public_to_subscribers ? 'Private, shared history' : 'Private, protected history';
  return s.history_public_to_subscribers ? 'Public' : 'Public, protected history';
}

const quoted = (text: string) => `\n\`\`\`\` quote\n${text === '' ? '*No description.*' : text}\n\`\`\`\``;

/** "**Public** channel created by ...", with its description, read for its creator (Zulip's send_messages_for_new_subscribers). */
export async function channelsCreatedNotices(svc: Services, creator: UserRow, streams: readonly StreamRow[]): Promise<void> {
  for (const s of streams) {
    await notice(svc, s, `**${policyName(s)}** channel created by ${silentMention(creator)}. **Description:**${quoted(s.description)}`, { readFor: [creator.id] });
  }
}

/** "Channel #**name** has been archived.", read for everyone. */
export async function channelArchivedNotice(svc: Services, stream: StreamRow): Promise<void> {
  await notice(svc, stream, `Channel ${channelLinkSyntax(stream)} has been archived.`, { archived: true, readFor: 'all' });
}

/** What PATCH /streams/{stream_id} changed, told as Zulip's update_stream_backend tells it (in its order). */
export async function channelChangedNotices(svc: Services, user: UserRow, before: StreamRow, after: StreamRow, changed: ReadonlySet<string>): Promise<void> {
  const who = silentMention(user);
  const archived = !!after.is_archived;
  if (changed.has('invite_only') || changed.has('is_web_public') || changed.has('history_public_to_subscribers')) {
    await notice(svc, after, `${who} changed the [access permissions](/help/channel-permissions) for this channel from **${policyName(before)}** to **${policyName(after)}**.`, { archived });
  }
  if (changed.has('message_retention_days')) await notice(svc, after, await retentionNotice(svc, who, before.message_retention_days, after.message_retention_days), { archived });
  if (changed.has('is_archived') && !archived) await notice(svc, after, `Channel ${channelLinkSyntax(after)} has been unarchived.`);
  if (changed.has('topics_policy')) {
    const name = (p: string) => `**${TOPICS_POLICY_NAMES[p] ?? p}**`;
    await notice(svc, after, `${who} changed the "Allow posting to the *general chat* topic?" setting from ${name(before.topics_policy)} to ${name(after.topics_policy)}.`);
  }
  if (changed.has('description')) {
    await notice(svc, after, `${who} changed the description for this channel.\n\n* **Old description:**${quoted(before.description)}\n* **New description:**${quoted(after.description)}`, { archived });
  }
  if (changed.has('name')) await notice(svc, after, `${who} renamed channel **${before.name}** to **${after.name}**.`, { archived });
  if (changed.has('can_send_message_group')) {
    const describe = await settingDescriber(svc);
    const old = describe(streamGroupSetting(before, 'can_send_message_group'));
    const now = describe(streamGroupSetting(after, 'can_send_message_group'));
    await notice(svc, after, `${who} changed the [posting permissions](/help/channel-posting-policy) for this channel:\n\n* **Old**: ${old}\n* **New**: ${now}\n`, { archived });
  }
}

/** Zulip's names of a channel's topics_policy in that notice (the general chat named as Zulip's default names it). */
const TOPICS_POLICY_NAMES: Record<string, string> = {
  inherit: 'Automatic',
  allow_empty_topic: '*general chat* topic allowed',
  disable_empty_topic: 'No *general chat* topic',
  empty_topic_only: 'Only *general chat* topic allowed',
};

/** Zulip's send_change_stream_message_retention_days_notification (null: the organization's setting; -1: forever). */
async function retentionNotice(svc: Services, who: string, oldDays: number | null, newDays: number | null): Promise<string> {
  const realmDays = Number(realmSettings((await cachedRealm(svc)).row.settings_json).message_retention_days ?? -1);
  const before = oldDays ?? realmDays;
  const after = newDays ?? realmDays;
  const deleted = `Messages in this channel will now be automatically deleted ${after} days after they are sent.`;
  const [oldPeriod, newPeriod, summary] =
    before === -1
      ? ['Forever', `${after} days`, deleted]
      : after === -1
        ? [`${before} days`, 'Forever', 'Messages in this channel will now be retained forever.']
        : [`${before} days`, `${after} days`, deleted];
  return (
    `${who} has changed the [message retention period](/help/message-retention-policy) for this channel:\n` +
    `* **Old retention period**: ${oldPeriod}\n* **New retention period**: ${newPeriod}\n\n${summary}`
  );
}

/** Zulip's get_users_string_with_permission: a named group's silent mention, else its groups then its people (by ID), comma-separated. */
async function settingDescriber(svc: Services): Promise<(value: GroupSettingValue | undefined) => string> {
  const groups = await cachedGroups(svc);
  const users = (await cachedUsers(svc)).byId;
  const group = (id: number) => `@_*${groups.byId.get(id)?.name ?? id}*`;
  return (value) => {
    if (value === undefined) return '';
    if (typeof value === 'number') return group(value);
    const names = [...value.direct_subgroups].sort((a, b) => a - b).map(group);
    const people = [...value.direct_members].sort((a, b) => a - b).flatMap((id) => (users.get(id) ? [silentMention(users.get(id)!)] : []));
    return [...names, ...people].join(', ');
  };
}
