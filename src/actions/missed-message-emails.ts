/**
 * Missed-message emails, as Zulip sends them:
 * - when a message is sent, each recipient who is offline (no client
 *   activity within presence's offline threshold) and would be notified --
 *   direct messages; personal, group and wildcard mentions and alert words
 *   (following the user's and the channel's settings, not in muted channels
 *   or topics for wildcards); followed topics; channels with email
 *   notifications -- gets a pending row (missed_message_emails) once the
 *   message is committed (presence is not read inside a transaction), so a
 *   restart after that loses nothing;
 * - rows join the user's pending batch, due
 *   email_notifications_batching_period_seconds after its first message;
 * - a background pass claims each due batch atomically (exactly one sender),
 *   drops messages read meanwhile, and sends one email per conversation with
 *   the messages (when message_content_in_email_notifications and the
 *   organization's message_content_allowed_in_email_notifications allow), a
 *   link to the conversation and an unsubscribe link that works without
 *   logging in.
 */
import { randomBytes } from 'node:crypto';
import type { Services } from '../services.ts';
import { transaction, type Tx } from '../store/db.ts';
import { emailSettings, sendEmail } from '../lib/email.ts';
import { userSettings, userSettingsOf } from '../lib/user-settings.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { startPeriodic, type Periodic } from '../lib/periodic.ts';
import { channelMessageUrl, dmMessageUrl, topicNarrowUrl, dmNarrowUrl } from '../lib/message-url.ts';
import { realmById } from '../store/realm.ts';
import { userById, usersByIds, type UserRow } from '../store/users.ts';
import { FLAG, messagesByIds, RECIPIENT, type MessageRow } from '../store/messages.ts';
import { streamsByIds, type StreamRow, type SubscriberNotificationRow } from '../store/streams.ts';
import {
  claimUserBatch,
  deleteSentBefore,
  insertMissedMessageEmails,
  insertUnsubscribeKey,
  pendingBatchTimes,
  releaseRows,
  unsubscribeKey,
  unsubscribeKeyOf,
  userMessageFlags,
  usersWithDueBatches,
  type MissedMessageEmailRow,
} from '../store/missed-message-emails.ts';
import { refreshingFirst, cachedTopicPolicies } from './cache.ts';
import { VISIBILITY_POLICY } from './user-topics.ts';
import { dmParticipants } from './messages-format.ts';
import { lastClientActivity, PRESENCE } from './presence.ts';
import { updateOwnSettings } from './settings.ts';

/** Zulip's NotificationTriggers for emails. */
export const TRIGGER = {
  DIRECT_MESSAGE: 'direct_message',
  MENTION: 'mentioned',
  TOPIC_WILDCARD_MENTION: 'topic_wildcard_mentioned',
  STREAM_WILDCARD_MENTION: 'stream_wildcard_mentioned',
  FOLLOWED_TOPIC_EMAIL: 'followed_topic_email_notify',
  STREAM_EMAIL: 'stream_email_notify',
} as const;

/** The email kinds a link can unsubscribe from, and the setting each turns off. */
export const UNSUBSCRIBE_SETTINGS: Record<string, string> = {
  missed_messages: 'enable_offline_email_notifications',
  digest: 'enable_digest_emails',
};

export interface SentMessageInfo {
  id: number;
  sender: UserRow;
  stream: StreamRow | undefined;
  topic: string;
  /** Every recipient's user_messages row. */
  rows: Array<{ user_id: number; flags: number }>;
  /** Users by ID (the sending transaction's directory). */
  users: ReadonlyMap<number, UserRow>;
  /** A channel message: its subscribers' notification settings, by user ID (empty for a direct message). */
  subscriptions: ReadonlyMap<number, SubscriberNotificationRow>;
}

/** Whether a user counts as offline now (no client activity within the offline threshold). */
function offline(lastActive: number | null | undefined, nowSecs: number): boolean {
  return lastActive === null || lastActive === undefined || nowSecs - lastActive > PRESENCE.OFFLINE_THRESHOLD_SECS;
}

/** Who would be emailed about a message, and why (before the away check). */
export interface PlannedEmails {
  messageId: number;
  wanted: Array<{ user_id: number; trigger: string; period: number }>;
}

/** In the sending transaction: the recipients who would be emailed about the message if away. */
export async function planMissedMessageEmails(svc: Services, tx: Tx, m: SentMessageInfo): Promise<PlannedEmails> {
  const none = { messageId: m.id, wanted: [] };
  const candidates = m.rows.filter((r) => r.user_id !== m.sender.id && (r.flags & FLAG.read) === 0 && m.users.get(r.user_id)?.is_bot === 0);
  if (candidates.length === 0) return none;
  const subs = m.subscriptions;
  const policies = m.stream ? await cachedTopicPolicies(svc, m.stream.id, m.topic, tx) : new Map<number, number>();
  const wanted: PlannedEmails['wanted'] = [];
  for (const r of candidates) {
    const user = m.users.get(r.user_id);
    if (!user || !user.is_active) continue;
    const s = userSettingsOf(user);
    const offlineEmails = s.enable_offline_email_notifications === true;
    let trigger: string | null = null;
    if (!m.stream) {
      if (offlineEmails) trigger = TRIGGER.DIRECT_MESSAGE;
    } else {
      const sub = subs.get(r.user_id);
      const policy = policies.get(r.user_id) ?? VISIBILITY_POLICY.INHERIT;
      const followed = policy === VISIBILITY_POLICY.FOLLOWED;
      const muted = policy === VISIBILITY_POLICY.MUTED || (!!sub?.is_muted && policy !== VISIBILITY_POLICY.UNMUTED && !followed);
      const wildcardNotify = (sub?.wildcard_mentions_notify ?? null) !== null ? sub!.wildcard_mentions_notify === 1 : s.wildcard_mentions_notify === true;
      const followedWildcard = followed && s.enable_followed_topic_wildcard_mentions_notify === true && s.enable_followed_topic_email_notifications === true;
      if (offlineEmails && (r.flags & (FLAG.mentioned | FLAG.has_alert_word)) !== 0) trigger = TRIGGER.MENTION;
      else if ((r.flags & FLAG.topic_wildcard_mentioned) !== 0 && !muted && ((offlineEmails && wildcardNotify) || followedWildcard)) trigger = TRIGGER.TOPIC_WILDCARD_MENTION;
      else if ((r.flags & FLAG.stream_wildcard_mentioned) !== 0 && !muted && ((offlineEmails && wildcardNotify) || followedWildcard)) trigger = TRIGGER.STREAM_WILDCARD_MENTION;
      else if (followed && s.enable_followed_topic_email_notifications === true) trigger = TRIGGER.FOLLOWED_TOPIC_EMAIL;
      else if (!muted && sub && (sub.email_notifications !== null ? sub.email_notifications === 1 : s.enable_stream_email_notifications === true)) trigger = TRIGGER.STREAM_EMAIL;
    }
    if (trigger) wanted.push({ user_id: r.user_id, trigger, period: Number(s.email_notifications_batching_period_seconds) });
  }
  return { messageId: m.id, wanted };
}

/**
 * After the message is committed: those of the planned recipients who are
 * away (presence is not read inside a database transaction) get pending rows,
 * joining their pending batch or starting one.
 */
export async function queueMissedMessageEmails(svc: Services, plan: PlannedEmails): Promise<void> {
  if (plan.wanted.length === 0) return;
  const activity = await lastClientActivity(svc, plan.wanted.map((w) => w.user_id));
  const nowMs = Date.now();
  const away = plan.wanted.filter((w) => offline(activity.get(w.user_id), nowMs / 1000));
  if (away.length === 0) return;
  await transaction(svc.store, async (tx) => {
    const batches = await pendingBatchTimes(tx, away.map((w) => w.user_id));
    await insertMissedMessageEmails(
      tx,
      away.map((w) => ({ user_id: w.user_id, message_id: plan.messageId, trigger: w.trigger, mentioned_user_group_id: null, scheduled_at: batches.get(w.user_id) ?? nowMs + w.period * 1000 })),
    );
  });
}

// ---------------------------------------------------------------------------
// Unsubscribe links

/** The user's unsubscribe link for a kind of email (the key is made once and kept). */
export async function unsubscribeUrl(svc: Services, user: UserRow, emailType: string): Promise<string> {
  const db = svc.store.db;
  let key = await unsubscribeKeyOf(db, user.id, emailType);
  if (!key) {
    await insertUnsubscribeKey(db, randomBytes(18).toString('base64url'), user.id, emailType, Date.now());
    key = (await unsubscribeKeyOf(db, user.id, emailType))!;
  }
  return `${svc.config.externalUrl}/accounts/unsubscribe/${emailType}/${key}`;
}

/** Follows an unsubscribe link: turns the setting off (with its event). Null for an unknown link. */
export async function unsubscribe(svc: Services, emailType: string, key: string): Promise<UserRow | null> {
  const setting = UNSUBSCRIBE_SETTINGS[emailType];
  if (!setting) return null;
  const row = await unsubscribeKey(svc.store.db, key);
  if (!row || row.email_type !== emailType) return null;
  const user = await userById(svc.store.db, svc.realmId, row.user_id);
  if (!user || !user.is_active) return null;
  await updateOwnSettings(svc, user, { settings: { [setting]: false } });
  return user;
}

// ---------------------------------------------------------------------------
// Sending

const REASONS: Record<string, (where: string) => string> = {
  [TRIGGER.DIRECT_MESSAGE]: () => 'You are receiving this because you received direct messages.',
  [TRIGGER.MENTION]: () => 'You are receiving this because you were personally mentioned.',
  [TRIGGER.TOPIC_WILDCARD_MENTION]: () => 'You are receiving this because all topic participants were mentioned.',
  [TRIGGER.STREAM_WILDCARD_MENTION]: (where) => `You are receiving this because everyone was mentioned in ${where}.`,
  [TRIGGER.FOLLOWED_TOPIC_EMAIL]: () => 'You are receiving this because you have email notifications enabled for topics you follow.',
  [TRIGGER.STREAM_EMAIL]: (where) => `You are receiving this because you have email notifications enabled for ${where}.`,
};

function joinNames(names: string[]): string {
  if (names.length <= 2) return names.join(' and ');
  if (names.length === 3) return `${names[0]}, ${names[1]}, and ${names[2]}`;
  return `${names[0]}, and ${names.length - 1} others`;
}

interface Conversation {
  messages: MessageRow[];
  triggers: Set<string>;
}

async function sendBatch(svc: Services, userId: number, batch: MissedMessageEmailRow[]): Promise<void> {
  const db = svc.store.db;
  const user = await userById(db, svc.realmId, userId);
  if (!user || !user.is_active) return;
  const ids = [...new Set(batch.map((r) => r.message_id))];
  const flags = await userMessageFlags(db, userId, ids);
  // Messages read (or deleted) since are not news any more.
  const unread = ids.filter((id) => flags.has(id) && (flags.get(id)! & FLAG.read) === 0);
  if (unread.length === 0) return;
  const rows = await messagesByIds(db, svc.realmId, unread);
  const realm = await realmById(db, svc.realmId);
  const rs = realmSettings(realm.settings_json);
  const us = userSettings(user.settings_json);
  const showContent = rs.message_content_allowed_in_email_notifications === true && us.message_content_in_email_notifications === true;
  const triggerOf = new Map(batch.map((r) => [r.message_id, r.trigger]));

  const conversations = new Map<string, Conversation>();
  for (const m of rows) {
    const key = m.recipient_type === RECIPIENT.STREAM ? `s:${m.recipient_id}:${m.topic.toLowerCase()}` : `d:${m.recipient_type}:${m.recipient_id}`;
    let c = conversations.get(key);
    if (!c) conversations.set(key, (c = { messages: [], triggers: new Set() }));
    c.messages.push(m);
    c.triggers.add(triggerOf.get(m.id)!);
  }
  const participants = await dmParticipants(db, rows);
  const neededUsers = new Set<number>(rows.map((m) => m.sender_id));
  for (const list of participants.values()) for (const id of list) neededUsers.add(id);
  const people = new Map((await usersByIds(db, svc.realmId, [...neededUsers])).map((u) => [u.id, u]));
  const nameOf = (id: number): string => people.get(id)?.full_name ?? 'Unknown user';
  const streamIds = [...new Set(rows.filter((m) => m.recipient_type === RECIPIENT.STREAM).map((m) => m.recipient_id))];
  const streams = new Map((await streamsByIds(db, svc.realmId, streamIds)).map((s) => [s.id, s]));
  const base = svc.config.externalUrl;
  const unsubscribeLink = await unsubscribeUrl(svc, user, 'missed_messages');
  const settings = emailSettings(svc.config);

  for (const c of conversations.values()) {
    const first = c.messages[0];
    let subject: string;
    let narrow: string;
    let where = '';
    if (first.recipient_type === RECIPIENT.STREAM) {
      const stream = streams.get(first.recipient_id) ?? { id: first.recipient_id, name: 'unknown' };
      const topic = first.topic === '' ? String(rs.empty_topic_display_name ?? 'general chat') : first.topic;
      subject = `#${stream.name} > ${topic}`;
      narrow = c.messages.length === 1 ? channelMessageUrl(base, stream, first.topic, first.id) : topicNarrowUrl(base, stream, first.topic);
      where = `#${stream.name}`;
    } else {
      const all = participants.get(first.id) ?? [first.sender_id, userId];
      const others = all.filter((id) => id !== userId);
      subject = first.recipient_type === RECIPIENT.PERSONAL ? `DMs with ${nameOf(first.sender_id)}` : `Group DMs with ${joinNames(others.map(nameOf))}`;
      narrow = c.messages.length === 1 ? dmMessageUrl(base, all, first.id) : dmNarrowUrl(base, all);
    }
    const lines: string[] = [];
    if (showContent) {
      let lastSender = -1;
      for (const m of c.messages) {
        if (m.sender_id !== lastSender) {
          if (lastSender !== -1) lines.push('');
          lines.push(`${nameOf(m.sender_id)}:`);
          lastSender = m.sender_id;
        }
        lines.push(m.content);
      }
      lines.push('', `View or reply in ${realm.name} Zulip:`, narrow);
    } else {
      lines.push(
        rs.message_content_allowed_in_email_notifications === true
          ? 'This email does not include message content because you have disabled message content in email notifications.'
          : 'This email does not include message content because your organization has disabled message content in email notifications.',
        '',
        `View or reply in ${realm.name} Zulip:`,
        narrow,
      );
    }
    const trigger = [...c.triggers][0];
    lines.push(
      '',
      '--',
      (REASONS[trigger] ?? REASONS[TRIGGER.MENTION])(where),
      '',
      'Manage email preferences:',
      `${base}/#settings/notifications`,
      '',
      'Unsubscribe from missed-message emails:',
      unsubscribeLink,
    );
    await sendEmail(settings, {
      to: [user.delivery_email],
      from: `${realm.name} notifications <${settings.from}>`,
      subject,
      text: lines.join('\n') + '\n',
      template: 'missed_message',
    });
  }
}

/** One pass: every due batch, each claimed by exactly one server and sent once. */
export async function deliverMissedMessageEmails(svc: Services): Promise<void> {
  const db = svc.store.db;
  const now = Date.now();
  for (const userId of await usersWithDueBatches(db, now, 200)) {
    const batch = await claimUserBatch(db, userId, now);
    if (batch.length === 0) continue;
    try {
      await sendBatch(svc, userId, batch);
    } catch (e) {
      // Not sent: the rows go back to the batch, for the next pass.
      await releaseRows(db, batch.map((r) => r.id));
      svc.log.error({ err: e, user: userId }, 'missed-message email failed');
    }
  }
  await deleteSentBefore(db, now - 7 * 86400 * 1000);
}

export function startMissedMessageEmailDelivery(svc: Services, intervalMs = 1000): Periodic {
  return startPeriodic(svc.log, 'missed-message email', refreshingFirst(svc, () => deliverMissedMessageEmails(svc)), intervalMs);
}
