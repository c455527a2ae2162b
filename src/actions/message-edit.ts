/**
 * Editing messages (PATCH /messages/{message_id}) and their edit history
 * (GET /messages/{message_id}/history), with Zulip's rules:
 *
 * - Content: only the sender, when the organization allows message
 *   editing, within message_content_edit_limit_seconds (+20 s grace, null:
 *   no limit). Re-rendered; mention flags of the message's holders follow
 *   the new content; an edit history entry keeps the previous content.
 * - Topic (channel messages; propagate_mode change_one / change_later /
 *   change_all): resolving or unresolving ("✔ " prefix) needs the
 *   organization's or the channel's can_resolve_topics_group; other topic
 *   changes the organization's can_move_messages_between_topics_group or
 *   the channel's can_move_messages_within_channel_group, within
 *   move_messages_within_stream_limit_seconds (default one week) for
 *   non-moderators. Notification Bot posts the resolve notice and the
 *   moved-messages breadcrumbs.
 * - One `update_message` event to the holders of the edited message (with
 *   their flags) and, for channels with shared history, the subscribers.
 *
 * Moving messages between channels (stream_id) is not implemented.
 */
import type { Services } from '../services.ts';
import type { ZulipEvent } from '../events/types.ts';
import { transaction, type Tx } from '../store/db.ts';
import { ApiError, badRequest } from '../lib/errors.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { isResolvedTopic, normalizeTopic, RESOLVED_TOPIC_PREFIX, truncateTopic } from '../lib/topic.ts';
import { realmById } from '../store/realm.ts';
import { FLAG, flagList, RECIPIENT, topicSenderIds, type MessageRow } from '../store/messages.ts';
import { streamById, subscriberIds, subscription, type StreamRow } from '../store/streams.ts';
import { ROLE, type UserRow } from '../store/users.ts';
import {
  idsWithUserRows,
  messageDates,
  messageUserRows,
  moveMessagesToTopic,
  parseEditHistory,
  setUserMessageFlags,
  topicMessageIds,
  updateMessageContent,
  type EditHistoryEntry,
} from '../store/message-edit.ts';
import { accessMessageToModify } from './reactions.ts';
import { accessMessage, invalidMessage } from './messages-fetch.ts';
import { canReadFullHistory, streamAccess, streamGroupSetting, type StreamGroupSetting } from './channel-access.ts';
import { Groups, parseStoredSetting } from './group-settings.ts';
import { loadDirectory, render } from './messages-format.ts';
import { effectiveTopicsPolicy, normalizeContent, sendMessage } from './messages.ts';
import { notificationBot } from './streams.ts';
import { parseJsonObject } from '../lib/util.ts';

export type PropagateMode = 'change_one' | 'change_later' | 'change_all';

export interface EditInput {
  content?: string;
  topic?: string;
  propagateMode: PropagateMode;
  sendNotificationToOldThread: boolean;
  sendNotificationToNewThread: boolean;
}

/** Seconds of grace Zulip adds to edit and move time limits. */
const EDIT_LIMIT_BUFFER = 20;
/** Zulip's default move_messages_within_stream_limit_seconds (one week). */
const DEFAULT_MOVE_WITHIN_LIMIT = 604800;

const noEditPermission = () => badRequest("You don't have permission to edit this message");

/** An organization group setting this module reads, with Zulip's default when not stored. */
function realmGroupValue(settingsJson: string, name: string, dflt: 'role:everyone' | 'role:members', groups: Groups) {
  return parseStoredSetting(parseJsonObject(settingsJson)[name]) ?? groups.systemGroupId(dflt);
}

const isModeratorOrAbove = (u: UserRow): boolean => u.role <= ROLE.MODERATOR;

function allowsInChannel(user: UserRow, stream: StreamRow, groups: Groups, name: StreamGroupSetting): boolean {
  return groups.allows(user, streamGroupSetting(stream, name));
}

/** Zulip's URL fragment encoding (hash_util_encode). */
function hashEncode(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/\./g, '%2E')
    .replace(/%/g, '.');
}

function nearMessageUrl(base: string, stream: StreamRow, topic: string, messageId: number): string {
  return `${base.replace(/\/$/, '')}/#narrow/channel/${stream.id}-${hashEncode(stream.name.replace(/ /g, '-'))}/topic/${hashEncode(topic)}/near/${messageId}`;
}

interface Notice {
  topic: string;
  content: string;
}

interface EditResult {
  event: ZulipEvent;
  recipients: Array<{ id: number; extra: { flags: string[] } }>;
  notices: Notice[];
  stream?: StreamRow;
}

export async function updateMessage(svc: Services, user: UserRow, messageId: number, input: EditInput): Promise<void> {
  const result = await transaction(svc.store, (tx) => editInTransaction(svc, tx, user, messageId, input));
  svc.bus.send(result.event, result.recipients);
  if (result.notices.length && result.stream) {
    const bot = await notificationBot(svc);
    for (const n of result.notices) {
      try {
        await sendMessage(svc, bot, { type: 'stream', to: String(result.stream.id), topic: n.topic, content: n.content, clientName: 'Internal', readBySender: true });
      } catch (e) {
        svc.log.warn({ err: e }, 'message edit notification failed');
      }
    }
  }
}

async function editInTransaction(svc: Services, tx: Tx, user: UserRow, messageId: number, input: EditInput): Promise<EditResult> {
  const a = await accessMessageToModify(svc, tx, user, messageId);
  if (!a) throw invalidMessage();
  const m: MessageRow = a.row;
  const realm = await realmById(tx, svc.realmId);
  const settings = realmSettings(realm.settings_json);
  const emptyName = String(settings.empty_topic_display_name);
  const isStream = m.recipient_type === RECIPIENT.STREAM;

  if (input.content !== undefined) {
    if (settings.allow_message_editing === false) throw badRequest('Your organization has turned off message editing');
    if (m.sender_id !== user.id) throw noEditPermission();
    const limit = settings.message_content_edit_limit_seconds;
    if (typeof limit === 'number' && Date.now() / 1000 - m.date_sent > limit + EDIT_LIMIT_BUFFER) {
      throw badRequest('The time limit for editing this message has passed');
    }
  }

  let newTopic: string | undefined;
  if (input.topic !== undefined) {
    newTopic = normalizeTopic(input.topic, emptyName);
    if (newTopic === m.topic) newTopic = undefined;
  }

  if (input.content === undefined && newTopic === undefined) throw badRequest('Nothing to change');
  if (!isStream && newTopic !== undefined) throw badRequest('Direct messages cannot have topics.');
  if (input.propagateMode !== 'change_one' && newTopic === undefined) throw badRequest('Invalid propagate_mode without topic edit');
  if (newTopic !== undefined && (newTopic === RESOLVED_TOPIC_PREFIX.trim() || newTopic === `${RESOLVED_TOPIC_PREFIX}${emptyName}`)) {
    throw badRequest('General chat cannot be marked as resolved');
  }
  if (newTopic !== undefined) {
    const at = [...newTopic].findIndex((ch) => /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]/.test(ch));
    if (at >= 0) throw badRequest(`Invalid character in topic, at position ${at + 1}!`);
  }

  const groups = await Groups.load(tx, svc.realmId);
  const stream = isStream ? await streamById(tx, svc.realmId, m.recipient_id) : undefined;
  const now = Math.floor(Date.now() / 1000);

  // Topic edit: target name, resolve state, channel topics policy, permission.
  let resolved = false;
  let unresolved = false;
  const preTruncation = newTopic;
  if (newTopic !== undefined && stream) {
    newTopic = truncateTopic(newTopic, svc.config.maxTopicLength);
    resolved = isResolvedTopic(newTopic) && !isResolvedTopic(m.topic) && [...preTruncation!].slice([...RESOLVED_TOPIC_PREFIX].length).join('') === m.topic;
    unresolved = isResolvedTopic(m.topic) && !isResolvedTopic(newTopic) && stripResolved(m.topic) === newTopic;
    const policy = effectiveTopicsPolicy(stream, settings.topics_policy, settings.mandatory_topics);
    if (newTopic === '' && policy === 'disable_empty_topic') {
      throw badRequest(
        settings.topics_policy === 'disable_empty_topic' && stream.topics_policy === 'inherit'
          ? 'Sending messages to the general chat is not allowed in this organization.'
          : 'Sending messages to the general chat is not allowed in this channel.',
      );
    }
    if (newTopic !== '' && policy === 'empty_topic_only') throw badRequest('Only the general chat topic is allowed in this channel.');

    if (resolved || unresolved) {
      const can =
        groups.allows(user, realmGroupValue(realm.settings_json, 'can_resolve_topics_group', 'role:everyone', groups)) ||
        allowsInChannel(user, stream, groups, 'can_resolve_topics_group');
      if (!can) throw badRequest("You don't have permission to resolve topics in this channel.");
    } else {
      const can =
        groups.allows(user, realmGroupValue(realm.settings_json, 'can_move_messages_between_topics_group', 'role:everyone', groups)) ||
        allowsInChannel(user, stream, groups, 'can_move_messages_within_channel_group');
      if (!can) throw noEditPermission();
      const limit = settings.move_messages_within_stream_limit_seconds === undefined ? DEFAULT_MOVE_WITHIN_LIMIT : settings.move_messages_within_stream_limit_seconds;
      if (typeof limit === 'number' && !isModeratorOrAbove(user) && Date.now() / 1000 - m.date_sent > limit + EDIT_LIMIT_BUFFER) {
        throw badRequest("The time limit for editing this message's topic has passed.");
      }
    }
  }

  // Content: normalize and render.
  let content: string | undefined;
  let rendered: Awaited<ReturnType<typeof render>> | undefined;
  const dir = await loadDirectory(svc, tx);
  if (input.content !== undefined) {
    content = normalizeContent(input.content.replace(/\s+$/u, '') === '' ? '(deleted)' : input.content, svc.config.maxMessageLength);
    rendered = await render(svc, tx, content, dir);
  }

  // Which messages move (topic edits).
  const access = stream ? streamAccess(user, stream, !!(await subscription(tx, user.id, stream.id)), groups) : undefined;
  let movedIds: number[] = [m.id];
  if (newTopic !== undefined && stream && access) {
    if (input.propagateMode !== 'change_one') {
      let ids = await topicMessageIds(tx, stream.id, m.topic, input.propagateMode === 'change_later' ? m.id : undefined);
      if (!canReadFullHistory(access)) {
        const mine = await idsWithUserRows(tx, user.id, ids);
        ids = ids.filter((id) => mine.has(id) || id === m.id);
      }
      movedIds = [...new Set([...ids, m.id])].sort((x, y) => x - y);
    }
    if (input.propagateMode === 'change_all' && !isModeratorOrAbove(user) && !resolved && !unresolved) {
      const limit = settings.move_messages_within_stream_limit_seconds === undefined ? DEFAULT_MOVE_WITHIN_LIMIT : settings.move_messages_within_stream_limit_seconds;
      if (typeof limit === 'number') {
        const dates = await messageDates(tx, movedIds);
        const allowed = movedIds.filter((id) => (dates.get(id) ?? 0) > Date.now() / 1000 - (limit + EDIT_LIMIT_BUFFER));
        if (allowed.length !== movedIds.length) {
          throw new ApiError(`You only have permission to move the ${allowed.length}/${movedIds.length} most recent messages in this topic.`, {
            code: 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
            extra: { first_message_id_allowed_to_move: allowed[0] ?? null, total_messages_in_topic: movedIds.length, total_messages_allowed_to_move: allowed.length },
          });
        }
      }
    }
  }

  // Write: the edited message, then the other moved messages.
  const entry: EditHistoryEntry = { user_id: user.id, timestamp: now };
  if (content !== undefined) {
    entry.prev_content = m.content;
    entry.prev_rendered_content = m.rendered_content;
  }
  if (newTopic !== undefined) {
    entry.prev_topic = m.topic;
    entry.topic = newTopic;
  }
  const history = [entry, ...parseEditHistory(m.edit_history_json)];
  await updateMessageContent(tx, m.id, {
    content: content ?? m.content,
    rendered_content: rendered?.html ?? m.rendered_content,
    last_edit_time: now,
    edit_history_json: JSON.stringify(history),
    has_link: rendered ? (rendered.hasLink ? 1 : 0) : m.has_link,
    has_image: rendered ? (rendered.hasImage ? 1 : 0) : m.has_image,
    has_attachment: rendered ? (rendered.hasAttachment ? 1 : 0) : m.has_attachment,
    is_me_message: rendered ? (rendered.isMeMessage ? 1 : 0) : m.is_me_message,
    ...(newTopic !== undefined ? { topic: newTopic } : {}),
  });
  if (newTopic !== undefined) {
    const others = movedIds.filter((id) => id !== m.id);
    await moveMessagesToTopic(tx, others, newTopic, { user_id: user.id, timestamp: now, prev_topic: m.topic, topic: newTopic });
  }

  // Mention flags follow the new content (Zulip's update_user_message_flags).
  const rows = await messageUserRows(tx, m.id);
  if (rendered) {
    const mentioned = new Set(rendered.mentionedUserIds);
    if (rendered.mentionedGroupIds.size) {
      const active = [...dir.users.values()].filter((u) => u.is_active);
      for (const gid of rendered.mentionedGroupIds) for (const u of active) if (groups.isMember(u, gid)) mentioned.add(u.id);
    }
    let participants = new Set<number>();
    if (rendered.wildcardMention === 'topic' && stream) participants = new Set([...(await topicSenderIds(tx, stream.id, newTopic ?? m.topic)), m.sender_id]);
    for (const r of rows) {
      let f = r.flags;
      f = mentioned.has(r.user_id) ? f | FLAG.mentioned : f & ~FLAG.mentioned;
      if (rendered.wildcardMention === 'all') f |= FLAG.stream_wildcard_mentioned;
      else if (rendered.wildcardMention === 'topic') f = participants.has(r.user_id) ? f | FLAG.topic_wildcard_mentioned : f & ~FLAG.topic_wildcard_mentioned;
      if (f !== r.flags) {
        await setUserMessageFlags(tx, m.id, r.user_id, f);
        r.flags = f;
      }
    }
  }

  // The event.
  const event: ZulipEvent = {
    type: 'update_message',
    user_id: user.id,
    edit_timestamp: now,
    message_id: m.id,
    message_ids: movedIds,
    rendering_only: false,
  };
  if (stream) Object.assign(event, { stream_name: stream.name, stream_id: stream.id });
  if (content !== undefined && rendered) {
    Object.assign(event, {
      orig_content: m.content,
      orig_rendered_content: m.rendered_content,
      content,
      rendered_content: rendered.html,
      is_me_message: rendered.isMeMessage,
    });
  }
  if (newTopic !== undefined) {
    Object.assign(event, { propagate_mode: input.propagateMode, orig_subject: m.topic, subject: newTopic, topic_links: [] });
  }
  event.__parley = { empty_topic_display_name: emptyName };
  const recipients = rows.map((r) => ({ id: r.user_id, extra: { flags: flagList(r.flags) } }));
  if (stream && (!stream.invite_only || stream.history_public_to_subscribers)) {
    const holders = new Set(rows.map((r) => r.user_id));
    for (const uid of (await subscriberIds(tx, stream.id)).sort((x, y) => x - y)) {
      if (!holders.has(uid)) recipients.push({ id: uid, extra: { flags: ['read'] } });
    }
  }

  // Notification Bot notices for topic changes (not with a content edit, as Zulip).
  const notices: Notice[] = [];
  if (newTopic !== undefined && stream && access && content === undefined) {
    const mention = `@_**${user.full_name}|${user.id}**`;
    if (resolved || unresolved) {
      notices.push({ topic: newTopic, content: `${mention} has marked this topic as ${resolved ? 'resolved' : 'unresolved'}.` });
    }
    const visible = async (ids: number[]): Promise<number[]> => {
      if (canReadFullHistory(access!)) return ids;
      const mine = await idsWithUserRows(tx, user.id, ids);
      return ids.filter((id) => mine.has(id));
    };
    const movedSet = new Set(movedIds);
    const movedAll = input.propagateMode === 'change_all' || (await visible(await topicMessageIds(tx, stream.id, m.topic))).filter((id) => !movedSet.has(id)).length === 0;
    const n = movedIds.length;
    const newLocation = `#**${stream.name}>${newTopic}**`;
    const oldLocation = `#**${stream.name}>${m.topic}**`;
    if (input.sendNotificationToNewThread && !resolved && !unresolved) {
      const preexisting = (await visible(await topicMessageIds(tx, stream.id, newTopic))).filter((id) => !movedSet.has(id));
      let text: string;
      if (preexisting.length === 0 && movedAll) text = `This topic was moved here from ${oldLocation} by ${mention}.`;
      else if (n === 1) text = `[A message](${nearMessageUrl(svc.config.externalUrl, stream, newTopic, m.id)}) was moved here from ${oldLocation} by ${mention}.`;
      else text = `${n} messages were moved here from ${oldLocation} by ${mention}.`;
      notices.push({ topic: newTopic, content: text });
    }
    if (input.sendNotificationToOldThread) {
      let text: string;
      if (movedAll) text = `This topic was moved to ${newLocation} by ${mention}.`;
      else if (n === 1) text = `A message was moved from this topic to ${newLocation} by ${mention}.`;
      else text = `${n} messages were moved from this topic to ${newLocation} by ${mention}.`;
      notices.push({ topic: m.topic, content: text });
    }
  }
  return { event, recipients, notices, stream };
}

function stripResolved(topic: string): string {
  let t = topic;
  while (t.startsWith('✔') || t.startsWith(' ')) t = t.slice(1);
  return t;
}

// ---------------------------------------------------------------------------
// GET /messages/{message_id}/history

/** Zulip's message_history: the versions of a message, oldest first. */
export async function messageHistory(svc: Services, user: UserRow, messageId: number): Promise<Array<Record<string, unknown>>> {
  const db = svc.store.db;
  const realm = await realmById(db, svc.realmId);
  if (realmSettings(realm.settings_json).allow_edit_history === false) throw badRequest('Message edit history is disabled in this organization');
  const a = await accessMessage(svc, db, user, messageId);
  if (!a) throw invalidMessage();
  const m = a.row;
  const raw = parseEditHistory(m.edit_history_json);
  let content = m.content;
  let renderedContent = m.rendered_content;
  let topic = m.topic;
  const out: Array<Record<string, unknown>> = [];
  for (const e of raw) {
    const item: Record<string, unknown> = { content, rendered_content: renderedContent, timestamp: e.timestamp, topic, user_id: e.user_id };
    if (e.prev_topic !== undefined) {
      topic = e.prev_topic;
      item.prev_topic = topic;
    }
    if (e.prev_content !== undefined) {
      item.prev_content = e.prev_content;
      item.prev_rendered_content = e.prev_rendered_content ?? '';
      content = e.prev_content;
      renderedContent = e.prev_rendered_content ?? '';
    }
    if (e.prev_stream !== undefined) {
      item.prev_stream = e.prev_stream;
      item.stream = e.stream;
    }
    out.push(item);
  }
  out.push({ content, rendered_content: renderedContent, timestamp: Math.floor(m.date_sent), topic, user_id: m.sender_id });
  return out.reverse();
}
