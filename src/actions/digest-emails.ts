/**
 * Digest emails, as Zulip sends them (zerver/lib/digest.py): on the
 * organization's digest_weekday, when digest_emails_enabled, to each active
 * human with enable_digest_emails who has had no client activity for
 * DIGEST_CUTOFF_DAYS and got no digest in the last 12 hours, summarizing
 * since the cutoff: the hottest conversations in their unmuted channels (the
 * 2 with the most senders, then the longest, up to 4) and the public
 * channels created meanwhile. Too little traffic, no email. Each user's
 * digest is claimed atomically (digest_emails), so it is sent once even with
 * several servers.
 */
import { refreshingFirst } from './cache.ts';
import type { Services } from '../services.ts';
import { emailSettings, sendEmail } from '../lib/email.ts';
import { userSettings } from '../lib/user-settings.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { startPeriodic, type Periodic } from '../lib/periodic.ts';
import { topicNarrowUrl } from '../lib/message-url.ts';
import { realmById } from '../store/realm.ts';
import { activeUserIds, usersByIds, type UserRow } from '../store/users.ts';
import { allStreams } from '../store/streams.ts';
import { channelMessagesSince, claimDigest, lastDigestTimes, unmutedSubscriptions } from '../store/digest-emails.ts';
import { lastClientActivity } from './presence.ts';
import { unsubscribeUrl } from './missed-message-emails.ts';

export const DIGEST_CUTOFF_DAYS = 5;
const MAX_HOT_TOPICS = 4;
const RECENT_DIGEST_MS = 12 * 3600 * 1000;

interface Topic {
  streamId: number;
  topic: string;
  messages: Array<{ sender_id: number; content: string }>;
  senders: Set<number>;
}

/** Zulip's get_hot_topics: the 2 most diverse topics, then the longest, up to 4. */
function hotTopics(topics: Topic[]): Topic[] {
  const byDiversity = [...topics].sort((a, b) => b.senders.size - a.senders.size);
  const hot = byDiversity.slice(0, 2);
  for (const t of [...topics].sort((a, b) => b.messages.length - a.messages.length)) {
    if (hot.length >= MAX_HOT_TOPICS) break;
    if (!hot.includes(t)) hot.push(t);
  }
  return hot.slice(0, MAX_HOT_TOPICS);
}

/** Python's datetime.weekday(): Monday is 0. */
const weekday = (ms: number): number => (new Date(ms).getUTCDay() + 6) % 7;

/** One pass: sends the digests due now (`now` in ms; tests pass their own). */
export async function deliverDigestEmails(svc: Services, now = Date.now()): Promise<number> {
  const db = svc.store.db;
  const realm = await realmById(db, svc.realmId);
  const rs = realmSettings(realm.settings_json);
  if (realm.deactivated || rs.digest_emails_enabled !== true || Number(rs.digest_weekday) !== weekday(now)) return 0;
  const cutoffMs = now - DIGEST_CUTOFF_DAYS * 86400 * 1000;
  const cutoff = cutoffMs / 1000;
  const users = (await usersByIds(db, svc.realmId, await activeUserIds(db, svc.realmId))).filter(
    (u) => !u.is_bot && userSettings(u.settings_json).enable_digest_emails === true,
  );
  const activity = await lastClientActivity(svc, users.map((u) => u.id));
  const lastDigest = await lastDigestTimes(db, users.map((u) => u.id));
  const targets = users.filter((u) => (activity.get(u.id) ?? 0) <= cutoff && (lastDigest.get(u.id) ?? 0) <= now - RECENT_DIGEST_MS);
  if (targets.length === 0) return 0;

  // Traffic since the cutoff, by channel and topic (shared by every user's digest).
  const streams = (await allStreams(db, svc.realmId)).filter((s) => !s.is_archived);
  const streamName = new Map(streams.map((s) => [s.id, s.name]));
  const newChannels = streams.filter((s) => !s.invite_only && Number(s.date_created) > cutoff);
  const messages = await channelMessagesSince(db, svc.realmId, cutoff);
  const topics = new Map<string, Topic>();
  for (const m of messages) {
    if (!streamName.has(m.recipient_id)) continue; // an archived channel's conversations are over
    const key = `${m.recipient_id}:${m.topic.toLowerCase()}`;
    let t = topics.get(key);
    if (!t) topics.set(key, (t = { streamId: m.recipient_id, topic: m.topic, messages: [], senders: new Set() }));
    t.messages.push({ sender_id: m.sender_id, content: m.content });
    t.senders.add(m.sender_id);
  }
  const senderNames = new Map((await usersByIds(db, svc.realmId, [...new Set(messages.map((m) => m.sender_id))])).map((u) => [u.id, u.full_name]));
  const subs = await unmutedSubscriptions(db, targets.map((u) => u.id));
  const settings = emailSettings(svc.config);
  const base = svc.config.externalUrl;
  let sent = 0;
  for (const user of targets) {
    const mine = new Set(subs.filter((s) => s.user_id === user.id).map((s) => s.stream_id));
    const us = userSettings(user.settings_json);
    const showContent = rs.message_content_allowed_in_email_notifications === true && us.message_content_in_email_notifications === true;
    const hot = showContent ? hotTopics([...topics.values()].filter((t) => mine.has(t.streamId))) : [];
    const newMessages = showContent ? 0 : [...topics.values()].filter((t) => mine.has(t.streamId)).reduce((n, t) => n + t.messages.length, 0);
    // Zulip's enough_traffic.
    if (!(newChannels.length > 0 || (showContent ? hot.length > 0 : newMessages > 0))) continue;
    if (!(await claimDigest(db, user.id, now, now - RECENT_DIGEST_MS))) continue;
    await sendEmail(settings, {
      to: [user.delivery_email],
      from: `${realm.name} digest <${settings.from}>`,
      subject: `${realm.name} digest`,
      text: digestText(svc, user, { hot, newChannels, newMessages, showContent, streamName, senderNames, base, realmName: realm.name, unsubscribe: await unsubscribeUrl(svc, user, 'digest') }),
      template: 'digest',
    });
    sent++;
  }
  return sent;
}

function digestText(
  _svc: Services,
  user: UserRow,
  c: {
    hot: Topic[];
    newChannels: Array<{ id: number; name: string }>;
    newMessages: number;
    showContent: boolean;
    streamName: Map<number, string>;
    senderNames: Map<number, string>;
    base: string;
    realmName: string;
    unsubscribe: string;
  },
): string {
  const lines: string[] = [`Hello ${user.full_name},`, '', `Here's what happened in ${c.realmName} while you were away.`];
  if (c.showContent && c.hot.length) {
    lines.push('', 'Hot conversations:');
    for (const t of c.hot) {
      const stream = { id: t.streamId, name: c.streamName.get(t.streamId) ?? '' };
      lines.push('', `#${stream.name} > ${t.topic}`, topicNarrowUrl(c.base, stream, t.topic));
      for (const m of t.messages.slice(0, 3)) lines.push(`${c.senderNames.get(m.sender_id) ?? 'Unknown user'}: ${m.content}`);
      if (t.messages.length > 3) lines.push(`and ${t.messages.length - 3} more messages`);
    }
  } else if (!c.showContent && c.newMessages > 0) {
    lines.push('', `You have ${c.newMessages} new messages.`);
  }
  if (c.newChannels.length) {
    lines.push('', 'New channels:', ...c.newChannels.map((s) => `#${s.name}: ${c.base}/#narrow/channel/${s.id}-${encodeURIComponent(s.name.replace(/ /g, '-'))}`));
  }
  lines.push('', `Click here to log in to ${c.realmName} Zulip and catch up: ${c.base}`, '', '--', 'Manage email preferences:', `${c.base}/#settings/notifications`, '', 'Unsubscribe from digest emails:', c.unsubscribe);
  return lines.join('\n') + '\n';
}

/** Checks hourly whether digests are due (weekday, inactivity and the 12-hour guard decide who gets one). */
export function startDigestEmails(svc: Services, intervalMs = 3600 * 1000): Periodic {
  return startPeriodic(svc.log, 'digest email', refreshingFirst(svc, () => deliverDigestEmails(svc)), intervalMs);
}
