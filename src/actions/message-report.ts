/**
 * POST /messages/{message_id}/report (Zulip FL 382): Notification Bot posts
 * the report to the organization's moderation_request_channel_id channel,
 * in Zulip's format: who reported whose message and when, the reason and
 * explanation in a quote block, and the reported message in a spoiler.
 */
import { dmMessageUrl, messageLinkSyntax } from '../lib/message-url.ts';
import type { Services } from '../services.ts';
import { badRequest } from '../lib/errors.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { truncateContent } from '../lib/topic.ts';
import { globalTime } from '../lib/util.ts';
import { realmById } from '../store/realm.ts';
import { streamById } from '../store/streams.ts';
import { RECIPIENT, type MessageRow } from '../store/messages.ts';
import { usersByIds, type UserRow } from '../store/users.ts';
import { accessMessage, invalidMessage } from './access.ts';
import { dmParticipants } from './messages-format.ts';
import { effectiveTopicsPolicy, sendMessage } from './messages.ts';
import { notificationBot, silentMention } from './system-bots.ts';

/** Zulip's Realm.REPORT_MESSAGE_REASONS, in order (server_report_message_types). */
export const REPORT_MESSAGE_REASONS: ReadonlyArray<readonly [string, string]> = [
  ['spam', 'Spam'],
  ['harassment', 'Harassment'],
  ['inappropriate', 'Inappropriate content'],
  ['norms', 'Violates community norms'],
  ['other', 'Other reason'],
];
export const REPORT_TYPES = REPORT_MESSAGE_REASONS.map(([k]) => k);

/** Zulip's Realm.MAX_REPORT_MESSAGE_EXPLANATION_LENGTH. */
export const MAX_REPORT_DESCRIPTION_LENGTH = 1000;

/** The `server_report_message_types` list of /register. */
export const serverReportMessageTypes = () => REPORT_MESSAGE_REASONS.map(([key, name]) => ({ key, name }));


/** Zulip's get_user_mentions_for_display: "A", "A and B", "A, B, and C". */
function mentionList(users: UserRow[]): string {
  const m = users.map(silentMention);
  if (m.length <= 1) return m.join('');
  if (m.length === 2) return `${m[0]} and ${m[1]}`;
  return `${m.slice(0, -1).join(', ')}, and ${m[m.length - 1]}`;
}

/** Zulip's get_unused_fence: a backtick fence longer than any fence in the content (at least 3). */
export function unusedFence(content: string): string {
  let len = 3;
  for (const m of content.matchAll(/^[ \t]*(`{3,})/gm)) len = Math.max(len, m[1].length + 1);
  return '`'.repeat(len);
}


async function buildReport(svc: Services, reporter: UserRow, msg: MessageRow): Promise<{ header: string; link: string; reported: UserRow }> {
  const db = svc.store.db;
  const participants = msg.recipient_type === RECIPIENT.STREAM ? [] : ((await dmParticipants(db, [msg])).get(msg.id) ?? []);
  const users = new Map((await usersByIds(db, svc.realmId, [...new Set([msg.sender_id, ...participants])])).map((u) => [u.id, u]));
  const reported = users.get(msg.sender_id)!;
  const when = globalTime(new Date(Math.floor(Number(msg.date_sent)) * 1000));
  const base = `${silentMention(reporter)} reported a message sent by ${silentMention(reported)}`;
  if (msg.recipient_type === RECIPIENT.STREAM) {
    const stream = await streamById(db, svc.realmId, msg.recipient_id);
    return { header: `${base} at ${when}.`, link: `Original message at ${messageLinkSyntax(stream!, msg.topic, msg.id)}`, reported };
  }
  const link = `[Original message](${dmMessageUrl(svc.config.externalUrl, participants, msg.id)})`;
  if (participants.length <= 2) {
    if (reported.id !== reporter.id) return { header: `${base} at ${when}.`, link, reported };
    const otherId = participants.find((id) => id !== reporter.id);
    const recipient = otherId !== undefined ? silentMention(users.get(otherId)!) : silentMention(reporter);
    return { header: `${base} to ${recipient} at ${when}.`, link, reported };
  }
  const others = participants.filter((id) => id !== reported.id).map((id) => users.get(id)!);
  return { header: `${base} to ${mentionList(others)} at ${when}.`, link, reported };
}

export async function reportMessage(svc: Services, user: UserRow, messageId: number, reportType: string, description: string): Promise<void> {
  if (reportType === 'other' && description === '') throw badRequest('An explanation is required.');
  const realm = await realmById(svc.store.db, svc.realmId);
  const settings = realmSettings(realm.settings_json);
  const channelId = Number(settings.moderation_request_channel_id);
  const channel = channelId > 0 ? await streamById(svc.store.db, svc.realmId, channelId) : undefined;
  if (!channel) throw badRequest('Message reporting is not enabled in this organization.');
  const a = await accessMessage(svc, svc.store.db, user, messageId);
  if (!a) throw invalidMessage();
  const reasonName = REPORT_MESSAGE_REASONS.find(([k]) => k === reportType)![1];
  const { header, link, reported } = await buildReport(svc, user, a.row);
  // Room for the reporter's explanation and the template within the message length limit.
  const snippet = truncateContent(a.row.content, svc.config.maxMessageLength - MAX_REPORT_DESCRIPTION_LENGTH - 500);
  const fence = unusedFence(snippet);
  const content = `${header}\n\`\`\`quote\n**${reasonName}**. ${description}\n\`\`\`\n\n${fence} spoiler ${link}\n${snippet}\n${fence}\n`;
  const policy = effectiveTopicsPolicy(channel, settings.topics_policy, settings.mandatory_topics);
  const topic = policy === 'empty_topic_only' ? '' : `${reported.full_name} moderation`;
  await sendMessage(svc, await notificationBot(svc), { type: 'stream', to: String(channel.id), topic, content, clientName: 'Internal' });
}
