/**
 * Sending messages (POST /messages): addressing (channel by ID or name,
 * direct to users by ID or email), Zulip's topic and content rules,
 * channel posting permission and topics policy, Markdown rendering,
 * per-recipient flags (mentions, wildcard mentions, read by sender), the
 * user_messages rows and the `message` event.
 */
import { cachedGroups, cachedMuters, cachedRealm, cachedStreams, cachedSubscribers, cachedTopicPolicies, cachedUsers, primeNewMessage } from './cache.ts';
import type { Services } from '../services.ts';
import { transaction, type Tx } from '../store/db.ts';
import { badRequest } from '../lib/errors.ts';
import { LIMITS, checkIntRange, nulError, rejectNulDeep } from '../lib/limits.ts';
import { normalizeTopic, truncateContent, truncateTopic } from '../lib/topic.ts';
import { type StreamRow, type SubscriberNotificationRow } from '../store/streams.ts';
import { userByApiEmail, type UserRow } from '../store/users.ts';
import { directGroupByKey, FLAG, flagList, getOrCreateDirectGroup, insertMessage, memberKey, insertUserMessages, RECIPIENT, topicSenderIds } from '../store/messages.ts';
import { canPost, checkCanCreateTopic, isSubscribed, streamAccess, streamDoesNotExistById, streamDoesNotExistByName, streamGroupSetting } from './access.ts';
import { checkDirectMessagePermission, checkWildcardMention } from './message-policies.ts';
import { Groups } from './group-settings.ts';
import { formatMessages, loadDirectory, render } from './messages-format.ts';
import { claimMessageAttachments } from './uploads.ts';
import { alertedUserIds } from './alert-words.ts';
import { attachWidget } from './submessages.ts';
import { applyAutomaticTopicPolicies } from './user-topics.ts';
import { topicHasOtherMessage } from '../store/channel-extras.ts';
import { userSettings } from '../lib/user-settings.ts';
import { queueOutgoingWebhooks, wakeOutgoingWebhookDelivery } from './outgoing-webhooks.ts';
import { embedLinksLater } from './url-embeds.ts';
import { planMissedMessageEmails, queueMissedMessageEmails, type PlannedEmails } from './missed-message-emails.ts';
import { accessGainedByConversation, announceAccessGained, hiddenSenderFields, recipientsNotAccessing, userAccess } from './user-access.ts';
import { jsonOrUndefined } from '../lib/util.ts';
import { WELCOME_BOT_EMAIL, welcomeBot } from './system-bots.ts';
import { welcomeBotReply } from './welcome-bot-replies.ts';
import { messageOrder } from './message-order.ts';
import type { RenderResult } from '../markdown/index.ts';

export interface SendInput {
  type: 'stream' | 'channel' | 'private' | 'direct';
  to: string | undefined;
  topic: string | undefined;
  content: string;
  localId?: string;
  queueId?: string;
  readBySender?: boolean;
  clientName: string;
  /** The content is the server's own text (Welcome Bot's greeting), rendered on this thread (see RenderOptions). */
  trustedContent?: boolean;
  /** No missed-message email for it (Zulip's disable_external_notifications: Welcome Bot's messages are read in the app). */
  disableExternalNotifications?: boolean;
  /** Runs inside the send's transaction once the message row exists (a scheduled message marks itself delivered). */
  inTransaction?: (tx: Tx, messageId: number) => Promise<void>;
  /** Notification Bot's notice about a channel, sent there though it is archived (Zulip's archived_channel_notice). */
  archivedChannelNotice?: boolean;
  /** Who gets the message already read besides its sender: everyone, or these users (Zulip's limit_unread_user_ids and mark_as_read). */
  readFor?: 'all' | readonly number[];
  /** Rendered without previews of its links (Zulip's no_previews). */
  noPreviews?: boolean;
}

/** Clients whose messages count as read by their sender (Zulip's default_read_by_sender). */
const UI_CLIENTS = new Set(['zulipandroid', 'zulipios', 'zulipdesktop', 'zulipmobile', 'zulipelectron', 'zulipterminal', 'snipe', 'website', 'ios', 'android', 'zulipflutter']);
export function defaultReadBySender(clientName: string): boolean {
  const c = clientName.toLowerCase();
  return UI_CLIENTS.has(c) || c.includes('desktop app');
}

/** Zulip's normalize_body: trims, rejects empty and NUL, truncates. */
export function normalizeContent(content: string, max: number): string {
  const body = content.replace(/\s+$/u, '').replace(/^\n+/, '');
  if (body.length === 0) throw badRequest('Message must not be empty');
  if (body.includes('\x00')) throw badRequest('Message must not contain null bytes');
  return truncateContent(body, max);
}

function parseStreamIndicator(to: string): string | number {
  let data = jsonOrUndefined(to);
  if (data === undefined) return to;
  if (Array.isArray(data)) {
    if (data.length !== 1) throw badRequest('Expected exactly one channel');
    data = data[0];
  }
  if (typeof data === 'string') {
    if (data.includes('\0')) throw nulError('to');
    return data;
  }
  if (typeof data === 'number' && Number.isInteger(data)) return checkIntRange(data, 'to');
  throw badRequest('Invalid data type for channel');
}

/** Zulip's extract_private_recipients: JSON list of IDs or emails, or comma-separated emails. */
export function parseDirectRecipients(to: string): string[] | number[] {
  let data = jsonOrUndefined(to);
  if (data === undefined) data = to;
  if (typeof data === 'string') data = data.split(',');
  if (!Array.isArray(data)) throw badRequest('Invalid data type for recipients');
  if (data.length > LIMITS.listMaxLength) throw badRequest('to is too long');
  rejectNulDeep(data, 'to');
  if (data.length === 0) return [];
  if (typeof data[0] === 'string') {
    if (!data.every((x) => typeof x === 'string')) throw badRequest('Recipient lists may contain emails or user IDs, but not both.');
    return [...new Set((data as string[]).map((e) => e.trim()))].filter(Boolean);
  }
  if (!Number.isInteger(data[0])) throw badRequest('Invalid data type for recipients');
  if (!data.every((x) => Number.isInteger(x))) throw badRequest('Recipient lists may contain emails or user IDs, but not both.');
  for (const id of data as number[]) checkIntRange(id, 'to');
  return [...new Set(data as number[])];
}

/** The effective topics policy of a channel (spec 2.4). */
export function effectiveTopicsPolicy(stream: StreamRow, realmPolicy: unknown, mandatoryTopics: unknown): string {
  if (stream.topics_policy && stream.topics_policy !== 'inherit') return stream.topics_policy;
  if (typeof realmPolicy === 'string' && realmPolicy !== 'inherit') return realmPolicy;
  return mandatoryTopics === true ? 'disable_empty_topic' : 'allow_empty_topic';
}

/** Whether a topic is allowed in the channel by its topics policy (spec 2.4), with Zulip's messages. */
export function checkTopicsPolicy(stream: StreamRow, topic: string, settings: Record<string, unknown>): void {
  const policy = effectiveTopicsPolicy(stream, settings.topics_policy, settings.mandatory_topics);
  if (topic === '' && policy === 'disable_empty_topic') {
    throw badRequest(
      settings.topics_policy === 'disable_empty_topic' && stream.topics_policy === 'inherit'
        ? 'Sending messages to the general chat is not allowed in this organization.'
        : 'Sending messages to the general chat is not allowed in this channel.',
    );
  }
  if (topic !== '' && policy === 'empty_topic_only') throw badRequest('Only the general chat topic is allowed in this channel.');
}

interface Addressed {
  recipientType: number;
  recipientId: number;
  topic: string;
  stream?: StreamRow;
  /** Who gets a user_messages row. */
  userIds: number[];
  /** A channel message: whether the sender has muted the channel. */
  senderMutedStream?: boolean;
  /** A channel message: its subscribers' notification settings, by user ID. */
  subscriptions?: ReadonlyMap<number, SubscriberNotificationRow>;
  /** A direct message: the members restricted guests in it come to access (through a new group, or a first one-to-one message). */
  accessGained?: Array<{ guest: UserRow; users: UserRow[] }>;
}

export async function addressStream(
  svc: Services,
  tx: Tx,
  sender: UserRow,
  to: string | undefined,
  topicIn: string | undefined,
  settings: Record<string, unknown>,
  archivedChannelNotice = false,
): Promise<Addressed> {
  if (to === undefined || to === '') throw badRequest('Missing channel');
  const ind = parseStreamIndicator(to);
  let stream: StreamRow | undefined;
  if (typeof ind === 'number') {
    stream = (await cachedStreams(svc, tx)).byId.get(ind);
    if (!stream) throw streamDoesNotExistById(ind);
  } else {
    const name = ind.trim();
    stream = (await cachedStreams(svc, tx)).byName.get(name.toLowerCase());
    if (!stream) throw streamDoesNotExistByName(name);
  }
  if (topicIn === undefined) throw badRequest('Missing topic');
  const topic = truncateTopic(normalizeTopic(topicIn, String(settings.empty_topic_display_name)), svc.config.maxTopicLength);
  if (/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]/.test(topic)) {
    const at = [...topic].findIndex((ch) => /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]/.test(ch));
    throw badRequest(`Invalid character in topic, at position ${at + 1}!`);
  }

  const groups = await cachedGroups(svc, tx);
  const subscribed = await isSubscribed(svc, tx, sender.id, stream.id);
  const access = streamAccess(sender, stream, subscribed, groups);
  // (Notification Bot's notices go to an archived channel too.)
  const archivedNotice = archivedChannelNotice && sender.is_system_bot === 1 && stream.is_archived;
  if (!archivedNotice && !canPost(sender, access, groups)) {
    let allowed = false;
    // Bots may post where their owner may (Zulip: owner's post permission, owner's subscription).
    if (sender.is_bot && sender.bot_owner_id !== null) {
      const owner = (await cachedUsers(svc, tx)).byId.get(sender.bot_owner_id);
      if (owner) {
        const ownerSub = await isSubscribed(svc, tx, owner.id, stream.id);
        allowed = groups.allows(owner, streamGroupSetting(stream, 'can_send_message_group')) && (!stream.invite_only || ownerSub || subscribed) && !stream.is_archived;
      }
    }
    if (!allowed) {
      if (!stream.is_archived && !groups.allows(sender, streamGroupSetting(stream, 'can_send_message_group'))) {
        throw badRequest('You do not have permission to post in this channel.');
      }
      throw badRequest(`Not authorized to send to channel '${stream.name}'`);
    }
  }

  await checkCanCreateTopic(svc, tx, sender, stream, topic, groups);
  checkTopicsPolicy(stream, topic, settings);

  const subscribers = await cachedSubscribers(svc, stream.id, tx);
  return {
    recipientType: RECIPIENT.STREAM,
    recipientId: stream.id,
    topic,
    stream,
    userIds: subscribers.list.map((s) => s.user_id),
    senderMutedStream: !!subscribers.byUserId.get(sender.id)?.is_muted,
    subscriptions: subscribers.byUserId,
  };
}

export async function addressDirect(svc: Services, tx: Tx, sender: UserRow, to: string | undefined): Promise<Addressed> {
  const list = to === undefined ? [] : parseDirectRecipients(to);
  if (list.length === 0) throw badRequest('Message must have recipients');
  const users: UserRow[] = [];
  for (const x of list) {
    if (typeof x === 'number') {
      const u = (await cachedUsers(svc, tx)).byId.get(x);
      if (!u) throw badRequest(`Invalid user ID ${x}`);
      users.push(u);
    } else {
      // By the address the API shows (a hidden real address is no name for a recipient), as Zulip's get_user.
      const u = await userByApiEmail(tx, svc.realmId, x);
      if (!u) throw badRequest(`Invalid email '${x}'`);
      users.push(u);
    }
  }
  for (const u of users) {
    if (!u.is_active && u.id !== sender.id) throw badRequest(`'${u.email}' is no longer using Zulip.`);
  }
  // A guest restricted by can_access_all_users_group writes only to users it may access.
  const access = await userAccess(svc, sender, tx);
  if (!access.all && users.some((u) => !access.can(u))) throw badRequest('You do not have permission to access some of the recipients.');
  const ids = [...new Set([...users.map((u) => u.id), sender.id])].sort((a, b) => a - b);
  const members = [...new Map([...users, sender].map((u) => [u.id, u])).values()];
  if (ids.length <= 2) {
    const other = ids.find((i) => i !== sender.id) ?? sender.id;
    // A restricted guest who may not access the sender does from this message on (one-to-one history counts).
    const accessGained = other === sender.id ? [] : await accessGainedByConversation(svc, members, tx);
    return { recipientType: RECIPIENT.PERSONAL, recipientId: other, topic: '', userIds: ids, accessGained };
  }
  const existing = await directGroupByKey(tx, memberKey(ids));
  const accessGained = existing === undefined ? await accessGainedByConversation(svc, members, tx) : [];
  const groupId = await getOrCreateDirectGroup(tx, ids);
  return { recipientType: RECIPIENT.GROUP, recipientId: groupId, topic: '', userIds: ids, accessGained };
}

/** Members (recursively) of user groups, among active users. */
function groupMemberIds(groups: Groups, groupIds: Set<number>, users: UserRow[]): Set<number> {
  const out = new Set<number>();
  for (const gid of groupIds) for (const u of users) if (groups.isMember(u, gid)) out.add(u.id);
  return out;
}

/** What the sending transaction hands to the work after its commit. */
interface SentMessage {
  id: number;
  rows: Array<{ user_id: number; message_id: number; flags: number }>;
  dict: Record<string, unknown>;
  auto: Awaited<ReturnType<typeof applyAutomaticTopicPolicies>>;
  notifyAttachments: () => Promise<void>;
  botJobs: Awaited<ReturnType<typeof queueOutgoingWebhooks>>;
  emailPlan: PlannedEmails;
  accessGained: Array<{ guest: UserRow; users: UserRow[] }>;
  raw: string;
  emptyName: string;
  publicChannel: boolean;
  /** A one-to-one direct message to Welcome Bot from someone else: it answers. */
  toWelcomeBot: boolean;
}

export async function sendMessage(svc: Services, sender: UserRow, input: SendInput): Promise<Record<string, unknown>> {
  const isStream = input.type === 'stream' || input.type === 'channel';
  const content = normalizeContent(input.content, svc.config.maxMessageLength);
  // Rendered (in the worker pool) before the transaction, as Zulip does, so
  // no database connection waits on the renderer.
  const rendered = await render(svc, svc.store.db, content, undefined, { trusted: input.trustedContent === true }, { byBot: !!sender.is_bot, noPreviews: input.noPreviews === true });
  // Its event goes out after those of the messages with smaller IDs (see message-order.ts).
  const order = messageOrder(svc.store);
  const slot = order.begin();
  let result: SentMessage;
  try {
    result = await sendInTransaction(svc, sender, input, isStream, content, rendered, (id) => order.assigned(slot, id));
  } catch (e) {
    order.end(slot);
    throw e;
  }
  svc.metrics?.messagesSent.inc();

  try {
    await afterSend(svc, sender, input, isStream, result, { turn: () => order.turn(slot), done: () => order.end(slot) });
  } catch (e) {
    // The message is committed: its sender gets its ID (an error would make a client send it again).
    svc.log.error({ err: e, messageId: result.id }, 'work after sending a message failed');
  } finally {
    order.end(slot);
  }
  embedLinksLater(svc, result.id, content, rendered.linksForPreview);
  if (result.toWelcomeBot) {
    try {
      await replyAsWelcomeBot(svc, sender, content);
    } catch (e) {
      svc.log.error({ err: e, messageId: result.id }, 'Welcome Bot reply failed');
    }
  }
  // Zulip's automatic_new_visibility_policy (feature level 218): the sender's topic followed or unmuted by this send, if it was.
  const policy = result.auto.senderPolicy;
  return policy === null ? { id: result.id } : { id: result.id, automatic_new_visibility_policy: policy };
}

/** The transaction of a send: checks, the message and its rows; `inserted` is told the new message's ID. */
function sendInTransaction(
  svc: Services,
  sender: UserRow,
  input: SendInput,
  isStream: boolean,
  content: string,
  rendered: RenderResult,
  inserted: (id: number) => void,
): Promise<SentMessage> {
  return transaction(svc.store, async (tx): Promise<SentMessage> => {
    const realm = await cachedRealm(svc, tx);
    const settings = realm.settings;
    const addr = isStream ? await addressStream(svc, tx, sender, input.to, input.topic, settings, input.archivedChannelNotice === true) : await addressDirect(svc, tx, sender, input.to);
    const dir = await loadDirectory(svc, tx);
    // Organization permissions: wildcard mentions in large audiences, direct messages.
    if (addr.stream) await checkWildcardMention(svc, tx, sender, realm.row.settings_json, { streamId: addr.stream.id, topic: addr.topic, subscriberCount: addr.userIds.length }, rendered.wildcardMention);
    else await checkDirectMessagePermission(svc, tx, sender, realm.row.settings_json, { ...addr, users: addr.userIds.flatMap((u) => dir.users.get(u) ?? []) });
    const now = Date.now() / 1000;
    const msgRow = await insertMessage(tx, {
      realm_id: svc.realmId,
      sender_id: sender.id,
      recipient_type: addr.recipientType,
      recipient_id: addr.recipientId,
      topic: addr.topic,
      content,
      rendered_content: rendered.html,
      date_sent: now,
      last_edit_time: null,
      edit_history_json: null,
      sending_client: input.clientName,
      has_link: rendered.hasLink ? 1 : 0,
      has_image: rendered.hasImage ? 1 : 0,
      has_attachment: rendered.hasAttachment ? 1 : 0,
      is_me_message: rendered.isMeMessage ? 1 : 0,
    });
    const id = msgRow.id;
    inserted(id);
    await attachWidget(tx, id, sender.id, content);
    primeNewMessage(svc, id);

    // Flags per recipient.
    const mentioned = new Set(rendered.mentionedUserIds);
    if (rendered.mentionedGroupIds.size) {
      const groups = await cachedGroups(svc, tx);
      for (const uid of groupMemberIds(groups, rendered.mentionedGroupIds, [...dir.users.values()].filter((u) => u.is_active))) mentioned.add(uid);
    }
    let topicParticipants = new Set<number>();
    if (rendered.wildcardMention === 'topic' && isStream) {
      topicParticipants = new Set(await topicSenderIds(tx, addr.recipientId, addr.topic));
      topicParticipants.add(sender.id);
    }
    const readBySender = input.readBySender ?? defaultReadBySender(input.clientName);
    // Read for others too: everyone, or these users (Notification Bot's channel notices).
    const readByAll = input.readFor === 'all';
    const readFor = input.readFor === undefined || input.readFor === 'all' ? null : new Set(input.readFor);
    const base = (isStream ? 0 : FLAG.is_private) | (rendered.wildcardMention === 'all' ? FLAG.stream_wildcard_mentioned : 0);
    // Alert words (Zulip's rule, in the source with fenced code set aside); users who muted the sender get it read.
    const alerted = await alertedUserIds(svc, tx, rendered.alertText);
    const muters = await cachedMuters(svc, sender.id, tx);
    const rows = addr.userIds.map((uid) => {
      let f = base;
      if ((uid === sender.id && readBySender) || readByAll || readFor?.has(uid)) f |= FLAG.read;
      if (muters.has(uid)) f |= FLAG.read;
      if (alerted.has(uid)) f |= FLAG.has_alert_word;
      if (mentioned.has(uid)) f |= FLAG.mentioned;
      if (topicParticipants.has(uid)) f |= FLAG.topic_wildcard_mentioned;
      return { user_id: uid, message_id: id, flags: f };
    });
    await insertUserMessages(tx, rows);
    // Automatic follow/unmute of the topic for its sender and for users it mentions.
    let auto: Awaited<ReturnType<typeof applyAutomaticTopicPolicies>> = { senderPolicy: null, events: [] };
    if (isStream && addr.stream) {
      const stream = addr.stream;
      const fullHistory = !stream.invite_only || !!stream.history_public_to_subscribers;
      auto = await applyAutomaticTopicPolicies(tx, {
        sender,
        senderSettings: userSettings(sender.settings_json),
        streamId: stream.id,
        topic: addr.topic,
        streamMuted: !!addr.senderMutedStream,
        initiated: async () => !(await topicHasOtherMessage(tx, svc.realmId, stream.id, addr.topic, id, fullHistory ? undefined : sender.id)),
        policies: await cachedTopicPolicies(svc, stream.id, addr.topic, tx),
        mentioned: [...rendered.mentionedUserIds].flatMap((uid) => {
          const u = dir.users.get(uid);
          return u && addr.userIds.includes(uid) ? [{ user: u, settings: userSettings(u.settings_json) }] : [];
        }),
        now: Math.floor(now),
        emptyName: String(settings.empty_topic_display_name),
      });
    }
    // Mentioned or messaged outgoing-webhook bots: delivered after commit, off the request path.
    const botJobs = await queueOutgoingWebhooks(svc, tx, { id, sender, isStream, mentioned, recipients: addr.userIds });
    // Recipients who would be emailed about it if away (checked after commit).
    const emailPlan = input.disableExternalNotifications
      ? { messageId: id, wanted: [] }
      : await planMissedMessageEmails(svc, tx, { id, sender, stream: addr.stream, topic: addr.topic, rows, users: dir.users, subscriptions: addr.subscriptions ?? new Map() });
    const notifyAttachments = await claimMessageAttachments(svc, tx, sender, id, rendered.html);
    if (input.inTransaction) await input.inTransaction(tx, id);
    const [dict] = await formatMessages(svc, tx, [msgRow], dir, { applyMarkdown: true, clientGravatar: false, allowEmptyTopicName: true });
    const other = addr.recipientType === RECIPIENT.PERSONAL ? dir.users.get(addr.recipientId) : undefined;
    const toWelcomeBot = !!other && other.id !== sender.id && other.is_system_bot === 1 && other.delivery_email === WELCOME_BOT_EMAIL;
    return {
      id,
      rows,
      dict,
      auto,
      notifyAttachments,
      botJobs,
      emailPlan,
      accessGained: addr.accessGained ?? [],
      raw: content,
      emptyName: String(settings.empty_topic_display_name),
      publicChannel: msgRow.recipient_type === RECIPIENT.STREAM && !!addr.stream && !addr.stream.invite_only,
      toWelcomeBot,
    };
  });
}

/**
 * A direct message from Welcome Bot to a user: read in the app, so no
 * missed-message email (Zulip's disable_external_notifications). `trusted`:
 * the server's own text (see SendInput.trustedContent). Returns its ID.
 */
export async function sendAsWelcomeBot(svc: Services, bot: UserRow, userId: number, content: string, trusted: boolean): Promise<number> {
  const sent = await sendMessage(svc, bot, {
    type: 'private',
    to: JSON.stringify([userId]),
    topic: undefined,
    content,
    clientName: 'Internal',
    readBySender: true,
    trustedContent: trusted,
    disableExternalNotifications: true,
  });
  return sent.id as number;
}

/** Welcome Bot answers a direct message that `sender` sent it (Zulip's send_welcome_bot_response). */
async function replyAsWelcomeBot(svc: Services, sender: UserRow, message: string): Promise<void> {
  await sendAsWelcomeBot(svc, await welcomeBot(svc), sender.id, welcomeBotReply(message), true);
}

/** After the commit: the events, attachments' events, outgoing webhooks and missed-message emails of a new message. */
async function afterSend(
  svc: Services,
  sender: UserRow,
  input: SendInput,
  isStream: boolean,
  result: SentMessage,
  order: { turn(): Promise<void>; done(): void },
): Promise<void> {
  // Guests who came to access users through a new direct-message group hear of them before the message.
  await announceAccessGained(svc, result.accessGained);
  for (const [ev, users, meta] of result.auto.events) svc.bus.send(ev, users, meta ? { meta } : undefined);
  const senderPolicy = result.auto.senderPolicy;
  // Restricted guests in a channel the sender is not in see an "Unknown user" as its sender.
  const hiddenFor = isStream ? await recipientsNotAccessing(svc, sender, result.rows.map((r) => r.user_id)) : [];
  await order.turn();
  svc.bus.send(
    { type: 'message', message: result.dict },
    result.rows.map((r) => ({
      id: r.user_id,
      extra: { flags: flagList(r.flags), ...(senderPolicy !== null && r.user_id === sender.id ? { automatic_new_visibility_policy: senderPolicy } : {}) },
    })),
    {
      allPublicStreamsQueues: result.publicChannel,
      meta: {
        rawContent: result.raw,
        senderQueueId: input.queueId ?? null,
        localId: input.localId ?? null,
        emptyTopicName: result.emptyName,
        ...(hiddenFor.length ? { hiddenSender: { userIds: hiddenFor, fields: hiddenSenderFields(svc.config, sender.id) } } : {}),
      },
    },
  );
  order.done();
  await result.notifyAttachments();
  if (result.botJobs) wakeOutgoingWebhookDelivery(svc);
  await queueMissedMessageEmails(svc, result.emailPlan);
}
