/**
 * Editing messages (PATCH /messages/{message_id}) and their edit history
 * (GET /messages/{message_id}/history), with Zulip's rules:
 *
 * - Content: only the sender, when the organization allows message
 *   editing, within message_content_edit_limit_seconds (+20 s grace, null:
 *   no limit); never a widget's (a poll or to-do list: "Widgets cannot be
 *   edited."). Re-rendered; mention flags of the message's holders follow
 *   the new content; an edit history entry keeps the previous content.
 * - Topic (channel messages; propagate_mode change_one / change_later /
 *   change_all): resolving or unresolving (the RESOLVED_TOPIC_PREFIX) needs the
 *   organization's or the channel's can_resolve_topics_group; other topic
 *   changes the organization's can_move_messages_between_topics_group or
 *   the channel's can_move_messages_within_channel_group, within
 *   move_messages_within_stream_limit_seconds (default one week) for
 *   non-moderators. Notification Bot posts the resolve notice and the
 *   moved-messages breadcrumbs.
 * - Channel (stream_id; with or without a new topic): the organization's
 *   can_move_messages_between_channels_group, administrators, the old
 *   channel's administrators or its can_move_messages_out_of_channel_group;
 *   the target must be an active channel the user can read and post to;
 *   move_messages_between_streams_limit_seconds (default one week) for
 *   non-moderators. Subscribers of the old channel who are not subscribed
 *   to the new one lose their rows (those who lose access get
 *   `delete_message`); for a new channel with protected history its
 *   subscribers get rows (read). first_message_id follows in both channels.
 * - One `update_message` event to the holders of the edited message (with
 *   their flags) and, for channels with shared history, the subscribers.
 */
import { cachedActiveUserIds, cachedGroups } from './cache.ts';
import { channelMessageUrl, topicLinkSyntax } from '../lib/message-url.ts';
import { alertedUserIds } from './alert-words.ts';
import type { Services } from '../services.ts';
import type { EventMeta, ZulipEvent } from '../events/types.ts';
import { transaction, type Tx } from '../store/db.ts';
import { lockUntilCommit } from '../store/locks.ts';
import { ApiError, badRequest } from '../lib/errors.ts';
import { realmSettings, visibleEditHistory } from '../lib/realm-settings.ts';
import { isResolvedTopic, normalizeTopic, RESOLVED_TOPIC_PREFIX, truncateTopic } from '../lib/topic.ts';
import { realmById } from '../store/realm.ts';
import { FLAG, flagList, RECIPIENT, topicSenderIds, type MessageRow } from '../store/messages.ts';
import { firstMessageIds } from '../store/messages.ts';
import { streamById, subscriberIds, subscription, type StreamRow } from '../store/streams.ts';
import { hasSubmessages } from '../store/submessages.ts';
import { checkWildcardMention } from './message-policies.ts';
import { relinkEditedMessageAttachments } from './uploads.ts';
import { ROLE, usersByIds, type UserRow } from '../store/users.ts';
import {
  addMissingUserMessageRows,
  deleteUserMessageRows,
  subscriptionUserIds,
  idsWithUserRows,
  messageDates,
  messageUserRows,
  moveMessagesToTopic,
  parseEditHistory,
  setUserMessageFlagBits,
  topicMessageIds,
  updateMessageContent,
  type EditHistoryEntry,
} from '../store/message-edit.ts';
import {
  accessMessage,
  accessMessageToModify,
  invalidMessage,
  canAdministerChannel, canReadFullHistory, checkCanCreateTopic, streamAccess, streamGroupSetting, type StreamAccess, type StreamGroupSetting } from './access.ts';
import { Groups, parseStoredSetting } from './group-settings.ts';
import { loadDirectory, render, type Directory } from './messages-format.ts';
import { topicLinks } from '../markdown/index.ts';
import { checkTopicsPolicy, normalizeContent, sendMessage } from './messages.ts';
import { notificationBot, silentMention } from './system-bots.ts';
import { embedLinksLater } from './url-embeds.ts';
import { moveTopicPolicies, type TopicPolicyEvent } from './user-topics.ts';
import { parseJsonObject, sha256Hex } from '../lib/util.ts';

export type PropagateMode = 'change_one' | 'change_later' | 'change_all';

export interface EditInput {
  content?: string;
  topic?: string;
  streamId?: number;
  propagateMode: PropagateMode;
  sendNotificationToOldThread: boolean;
  sendNotificationToNewThread: boolean;
  /** SHA-256 (hex) of the content the editor started from: the edit is refused if the message has changed since. */
  prevContentSha256?: string;
}

/** Seconds of grace Zulip adds to edit and move time limits. */
const EDIT_LIMIT_BUFFER = 20;
/** Zulip's default move_messages_within_stream_limit_seconds (one week). */
const DEFAULT_MOVE_WITHIN_LIMIT = 604800;
/** Zulip's default move_messages_between_streams_limit_seconds (one week). */
const DEFAULT_MOVE_BETWEEN_LIMIT = 604800;

const noEditPermission = () => badRequest("You don't have permission to edit this message");

/** An organization group setting this module reads, with Zulip's default when not stored. */
function realmGroupValue(settingsJson: string, name: string, dflt: 'role:everyone' | 'role:members', groups: Groups) {
  return parseStoredSetting(parseJsonObject(settingsJson)[name]) ?? groups.systemGroupId(dflt);
}

const isModeratorOrAbove = (u: UserRow): boolean => u.role <= ROLE.MODERATOR;

function allowsInChannel(user: UserRow, stream: StreamRow, groups: Groups, name: StreamGroupSetting): boolean {
  return groups.allows(user, streamGroupSetting(stream, name));
}


interface Notice {
  stream: StreamRow;
  topic: string;
  content: string;
}

interface EditResult {
  event: ZulipEvent;
  meta: EventMeta;
  recipients: Array<{ id: number; extra: { flags: string[] } }>;
  notices: Notice[];
  /** delete_message for users losing access to moved messages. */
  deleteEvent?: { event: ZulipEvent; userIds: number[] };
  /** first_message_id changes: [stream, new value, recipients]. */
  firstIdUpdates: Array<{ stream: StreamRow; value: number | null; userIds: readonly number[] }>;
  /** Personal topic policies that moved with the topic, and the like. */
  otherEvents: TopicPolicyEvent[];
  /** The editor's files that the edit left referenced by no message (the response's detached_uploads). */
  detachedUploads: Array<Record<string, unknown>>;
  /** Sends the `attachment` events of the files whose messages changed. */
  notifyAttachments: () => Promise<void>;
}

/** PATCH /messages/{id}; answers Zulip's detached_uploads (feature level 285). */
export async function updateMessage(svc: Services, user: UserRow, messageId: number, input: EditInput): Promise<{ detached_uploads: Array<Record<string, unknown>> }> {
  // New content is rendered (in the worker pool) before the transaction, so no database connection waits on the renderer.
  let prerendered: Prerendered | undefined;
  if (input.content !== undefined) {
    const content = normalizeContent(input.content.replace(/\s+$/u, '') === '' ? '(deleted)' : input.content, svc.config.maxMessageLength);
    prerendered = { content, rendered: await render(svc, svc.store.db, content, undefined, undefined, { byBot: !!user.is_bot }) };
  }
  const result = await transaction(svc.store, (tx) => editInTransaction(svc, tx, user, messageId, input, prerendered));
  if (result.deleteEvent && result.deleteEvent.userIds.length) svc.bus.send(result.deleteEvent.event, result.deleteEvent.userIds, { meta: result.meta });
  svc.bus.send(result.event, result.recipients, { meta: result.meta });
  for (const [event, users, meta] of result.otherEvents) svc.bus.send(event, users, { meta });
  for (const u of result.firstIdUpdates) {
    svc.bus.send({ type: 'stream', op: 'update', property: 'first_message_id', value: u.value, stream_id: u.stream.id, name: u.stream.name }, u.userIds);
  }
  await result.notifyAttachments();
  if (prerendered) embedLinksLater(svc, messageId, prerendered.content, prerendered.rendered.linksForPreview);
  if (result.notices.length) {
    const bot = await notificationBot(svc);
    for (const n of result.notices) {
      try {
        await sendMessage(svc, bot, { type: 'stream', to: String(n.stream.id), topic: n.topic, content: n.content, clientName: 'Internal', readBySender: true });
      } catch (e) {
        svc.log.warn({ err: e }, 'message edit notification failed');
      }
    }
  }
  return { detached_uploads: result.detachedUploads };
}

interface Prerendered {
  content: string;
  rendered: Awaited<ReturnType<typeof render>>;
}

/**
 * An edit in four steps, as Zulip's check_update_message and
 * do_update_message: check (access, permissions, limits), plan (render the
 * content, pick the messages that move), write (rows and flags), notify
 * (the events and Notification Bot notices to send after the commit).
 */
async function editInTransaction(svc: Services, tx: Tx, user: UserRow, messageId: number, input: EditInput, prerendered?: Prerendered): Promise<EditResult> {
  // Edits and moves run one after another (on PostgreSQL; SQLite's transactions
  // already do): each reads the message and the messages it moves only once the
  // one before has committed, so neither writes back what the other replaced.
  await lockUntilCommit(svc.store, tx, 'message-edits');
  const check = await checkEdit(svc, tx, user, messageId, input);
  const plan = await planEdit(svc, tx, user, input, check, prerendered);
  const written = await writeEdit(svc, tx, user, plan);
  return notifyEdit(svc, tx, user, input, plan, written);
}

/** What a permitted edit changes (the result of checkEdit). */
interface EditCheck {
  m: MessageRow;
  settings: Record<string, unknown>;
  emptyName: string;
  groups: Groups;
  /** The message's channel (undefined for a direct message). */
  stream: StreamRow | undefined;
  newTopic: string | undefined;
  newStream: StreamRow | undefined;
  targetAccess: StreamAccess | undefined;
  resolved: boolean;
  unresolved: boolean;
  /** The channel the message is in after the edit. */
  target: StreamRow | undefined;
  /** Whether the edit moves messages (topic or channel). */
  moving: boolean;
}

/** Access, validation, permissions and time limits of an edit of one message. */
async function checkEdit(svc: Services, tx: Tx, user: UserRow, messageId: number, input: EditInput): Promise<EditCheck> {
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

  const streamId = input.streamId !== undefined && !(isStream && input.streamId === m.recipient_id) ? input.streamId : undefined;
  if (input.content === undefined && newTopic === undefined && streamId === undefined) throw badRequest('Nothing to change');
  if (!isStream && streamId !== undefined) throw badRequest('Direct messages cannot be moved to channels.');
  if (!isStream && newTopic !== undefined) throw badRequest('Direct messages cannot have topics.');
  if (input.propagateMode !== 'change_one' && newTopic === undefined && streamId === undefined) throw badRequest('Invalid propagate_mode without topic edit');
  if (newTopic !== undefined && (newTopic === RESOLVED_TOPIC_PREFIX.trim() || newTopic === `${RESOLVED_TOPIC_PREFIX}${emptyName}`)) {
    throw badRequest('General chat cannot be marked as resolved');
  }
  if (newTopic !== undefined) {
    const at = [...newTopic].findIndex((ch) => /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]/.test(ch));
    if (at >= 0) throw badRequest(`Invalid character in topic, at position ${at + 1}!`);
  }
  if (streamId !== undefined && input.content !== undefined) throw badRequest('Cannot change message content while changing channel');
  // A poll or to-do list keeps its content, as Zulip's (its state is in the submessages).
  if (input.content !== undefined && (await hasSubmessages(tx, m.id))) throw badRequest('Widgets cannot be edited.');
  // Checked for moves too, as Zulip does: the parameter means the same whatever else the request changes.
  if (input.prevContentSha256 !== undefined && input.prevContentSha256 !== sha256Hex(m.content)) {
    throw new ApiError("'prev_content_sha256' value does not match the expected value.", { code: 'EXPECTATION_MISMATCH' });
  }

  const groups = await cachedGroups(svc, tx);
  const stream = isStream ? await streamById(tx, svc.realmId, m.recipient_id) : undefined;

  // Topic edit: target name, resolve state, channel topics policy, permission.
  let resolved = false;
  let unresolved = false;
  const preTruncation = newTopic;
  if (newTopic !== undefined && stream) {
    newTopic = truncateTopic(newTopic, svc.config.maxTopicLength);
    resolved = isResolvedTopic(newTopic) && !isResolvedTopic(m.topic) && [...preTruncation!].slice([...RESOLVED_TOPIC_PREFIX].length).join('') === m.topic;
    unresolved = isResolvedTopic(m.topic) && !isResolvedTopic(newTopic) && stripResolved(m.topic) === newTopic;
    if (streamId === undefined) checkTopicsPolicy(stream, newTopic, settings);

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

  // Channel move: permission, target channel, time limit.
  let newStream: StreamRow | undefined;
  let targetAccess: StreamAccess | undefined;
  if (streamId !== undefined && stream) {
    const can =
      user.role <= ROLE.ADMINISTRATOR ||
      groups.allows(user, realmGroupValue(realm.settings_json, 'can_move_messages_between_channels_group', 'role:members', groups)) ||
      canAdministerChannel(user, stream, groups) ||
      allowsInChannel(user, stream, groups, 'can_move_messages_out_of_channel_group');
    if (!can) throw badRequest("You don't have permission to move this message");
    newStream = await streamById(tx, svc.realmId, streamId);
    if (newStream) targetAccess = streamAccess(user, newStream, !!(await subscription(tx, user.id, newStream.id)), groups);
    if (!newStream || !targetAccess || newStream.is_archived || !targetAccess.content) throw badRequest('Invalid channel ID');
    if (!groups.allows(user, streamGroupSetting(newStream, 'can_send_message_group'))) throw badRequest('You do not have permission to post in this channel.');
    const limit = betweenLimit(settings);
    if (typeof limit === 'number' && !isModeratorOrAbove(user) && Date.now() / 1000 - m.date_sent > limit + EDIT_LIMIT_BUFFER) {
      throw badRequest("The time limit for editing this message's channel has passed");
    }
    checkTopicsPolicy(newStream, newTopic ?? m.topic, settings);
  }
  const target = newStream ?? stream;
  const moving = !!stream && (newTopic !== undefined || newStream !== undefined);
  // Moving to a topic the target channel does not have starts one (resolving and unresolving do not count).
  if (moving && target && !resolved && !unresolved) await checkCanCreateTopic(svc, tx, user, target, newTopic ?? m.topic, groups);
  return { m, settings, emptyName, groups, stream, newTopic, newStream, targetAccess, resolved, unresolved, target, moving };
}

/** The planned edit (the result of planEdit). */
interface EditPlan extends EditCheck {
  now: number;
  /** The new content, normalized, and its rendering (content edits). */
  content: string | undefined;
  rendered: Awaited<ReturnType<typeof render>> | undefined;
  dir: Directory;
  /** The editor's access to the message's channel. */
  access: StreamAccess | undefined;
  /** Every message the edit changes, ascending (more than one when a topic moves). */
  movedIds: number[];
}

/** Takes the new content (rendered before the transaction) and picks the messages that move, with the time limit on moving a whole topic. */
async function planEdit(svc: Services, tx: Tx, user: UserRow, input: EditInput, check: EditCheck, prerendered?: Prerendered): Promise<EditPlan> {
  const { m, settings, groups, stream, newTopic, newStream, resolved, unresolved, moving } = check;
  const now = Math.floor(Date.now() / 1000);
  // Content: normalize and render.
  let content: string | undefined;
  let rendered: Awaited<ReturnType<typeof render>> | undefined;
  const dir = await loadDirectory(svc, tx);
  if (prerendered) {
    content = prerendered.content;
    rendered = prerendered.rendered;
  }
  // New content with a wildcard mention needs the organization's permission, as when sending.
  if (rendered?.wildcardMention && stream) {
    const target = newStream ?? stream;
    const settingsJson = (await realmById(tx, svc.realmId)).settings_json;
    const subscriberCount = (await subscriberIds(tx, target.id)).length;
    await checkWildcardMention(svc, tx, user, settingsJson, { streamId: target.id, topic: newTopic ?? m.topic, subscriberCount }, rendered.wildcardMention, groups);
  }

  // Which messages move (topic edits).
  const access = stream ? streamAccess(user, stream, !!(await subscription(tx, user.id, stream.id)), groups) : undefined;
  let movedIds: number[] = [m.id];
  if (moving && stream && access) {
    if (input.propagateMode !== 'change_one') {
      let ids = await topicMessageIds(tx, stream.id, m.topic, input.propagateMode === 'change_later' ? m.id : undefined);
      if (!canReadFullHistory(access)) {
        const mine = await idsWithUserRows(tx, user.id, ids);
        ids = ids.filter((id) => mine.has(id) || id === m.id);
      }
      movedIds = [...new Set([...ids, m.id])].sort((x, y) => x - y);
    }
    if (input.propagateMode === 'change_all' && !isModeratorOrAbove(user) && !resolved && !unresolved) {
      // The stricter of the applicable topic and channel limits.
      const limits: number[] = [];
      const within = settings.move_messages_within_stream_limit_seconds === undefined ? DEFAULT_MOVE_WITHIN_LIMIT : settings.move_messages_within_stream_limit_seconds;
      if (newTopic !== undefined && typeof within === 'number') limits.push(within);
      const between = betweenLimit(settings);
      if (newStream && typeof between === 'number') limits.push(between);
      if (limits.length) {
        const limit = Math.min(...limits);
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

  return { ...check, now, content, rendered, dir, access, movedIds };
}

/** What writeEdit changed that the events need. */
interface EditWrite {
  /** The user_messages rows of the edited message, with their new flags. */
  rows: Array<{ user_id: number; flags: number }>;
  /** Users who lose access to the moved messages (channel moves). */
  losingAccess: Set<number>;
  deleteEvent: EditResult['deleteEvent'];
  firstIdUpdates: EditResult['firstIdUpdates'];
  /** Whether the destination topic had messages before the move (for merging topic policies). */
  targetHadMessages: boolean;
  /** The files a content edit unlinked or claimed. */
  attachments: { detached: Array<Record<string, unknown>>; notify: () => Promise<void> };
}

/** Writes the edit: the message and the other moved ones, user_messages rows of a channel move, mention and alert flags. */
async function writeEdit(svc: Services, tx: Tx, user: UserRow, plan: EditPlan): Promise<EditWrite> {
  const { m, groups, stream, newTopic, newStream, moving, now, content, rendered, dir, movedIds, target } = plan;
  // Write: the edited message, then the other moved messages.
  const entry: EditHistoryEntry = { user_id: user.id, timestamp: now };
  if (content !== undefined) {
    entry.prev_content = m.content;
    entry.prev_rendered_content = m.rendered_content;
  }
  if (newStream && stream) {
    entry.prev_stream = stream.id;
    entry.stream = newStream.id;
  }
  if (newTopic !== undefined) {
    entry.prev_topic = m.topic;
    entry.topic = newTopic;
  }
  const streamIdsTouched = newStream && stream ? [stream.id, newStream.id] : [];
  const firstBefore = await firstMessageIds(tx, streamIdsTouched);
  // Whether the destination topic already has messages (before these arrive), for merging topic policies.
  const targetHadMessages = moving && target ? (await topicMessageIds(tx, target.id, newTopic ?? m.topic)).length > 0 : false;
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
    ...(newStream ? { recipient_id: newStream.id } : {}),
  });
  // The files the new content links (claimed) and no longer links (detached).
  const attachments = rendered ? await relinkEditedMessageAttachments(svc, tx, user, m.id, rendered.html) : { detached: [], notify: async () => {} };
  if (moving) {
    const others = movedIds.filter((id) => id !== m.id);
    const { prev_content: _pc, prev_rendered_content: _prc, ...moveEntry } = entry;
    await moveMessagesToTopic(tx, others, newTopic, moveEntry, newStream?.id);
  }

  // Channel move: rows of users who leave with the old channel, rows for
  // the new channel's subscribers when its history is protected.
  let deleteEvent: EditResult['deleteEvent'];
  const losingAccess = new Set<number>();
  const firstIdUpdates: EditResult['firstIdUpdates'] = [];
  if (newStream && stream) {
    const oldAll = await subscriptionUserIds(tx, stream.id, false);
    const newCurrent = new Set(await subscriptionUserIds(tx, newStream.id, true));
    const losingRows = oldAll.filter((id) => !newCurrent.has(id));
    if (!newStream.invite_only) {
      for (const u of await usersByIds(tx, svc.realmId, losingRows)) if (u.role === ROLE.GUEST) losingAccess.add(u.id);
    } else {
      for (const id of losingRows) losingAccess.add(id);
    }
    if (newStream.invite_only && !newStream.history_public_to_subscribers) {
      await addMissingUserMessageRows(tx, [...newCurrent], movedIds, FLAG.read);
    }
    await deleteUserMessageRows(tx, losingRows, movedIds);
    deleteEvent = {
      event: { type: 'delete_message', message_ids: movedIds, message_type: 'stream', stream_id: stream.id, topic: m.topic },
      userIds: [...losingAccess].sort((x, y) => x - y),
    };
    const firstAfter = await firstMessageIds(tx, streamIdsTouched);
    let everyone: readonly number[] | undefined;
    for (const s of [stream, newStream]) {
      const before = firstBefore.get(s.id) ?? null;
      const after = firstAfter.get(s.id) ?? null;
      if (before === after) continue;
      const userIds = s.invite_only ? await subscriberIds(tx, s.id) : (everyone ??= await cachedActiveUserIds(svc, tx));
      firstIdUpdates.push({ stream: s, value: after, userIds });
    }
  }

  // Mention flags follow the new content (Zulip's update_user_message_flags).
  // Only these bits are written: the others (read, starred...) may change meanwhile.
  const CONTENT_FLAGS = FLAG.mentioned | FLAG.has_alert_word | FLAG.stream_wildcard_mentioned | FLAG.topic_wildcard_mentioned;
  const rows = await messageUserRows(tx, m.id);
  if (rendered) {
    const mentioned = new Set(rendered.mentionedUserIds);
    if (rendered.mentionedGroupIds.size) {
      const active = [...dir.users.values()].filter((u) => u.is_active);
      for (const gid of rendered.mentionedGroupIds) for (const u of active) if (groups.isMember(u, gid)) mentioned.add(u.id);
    }
    let participants = new Set<number>();
    if (rendered.wildcardMention === 'topic' && stream) participants = new Set([...(await topicSenderIds(tx, stream.id, newTopic ?? m.topic)), m.sender_id]);
    // Alert words follow the new content too (Zulip recomputes has_alert_word on edit).
    const alerted = await alertedUserIds(svc, tx, rendered.alertText);
    for (const r of rows) {
      let f = r.flags;
      f = mentioned.has(r.user_id) ? f | FLAG.mentioned : f & ~FLAG.mentioned;
      f = alerted.has(r.user_id) ? f | FLAG.has_alert_word : f & ~FLAG.has_alert_word;
      if (rendered.wildcardMention === 'all') f |= FLAG.stream_wildcard_mentioned;
      else if (rendered.wildcardMention === 'topic') f = participants.has(r.user_id) ? f | FLAG.topic_wildcard_mentioned : f & ~FLAG.topic_wildcard_mentioned;
      if (f !== r.flags) {
        await setUserMessageFlagBits(tx, m.id, r.user_id, CONTENT_FLAGS, f);
        r.flags = f;
      }
    }
  }

  return { rows, losingAccess, deleteEvent, firstIdUpdates, targetHadMessages, attachments };
}

/** The update_message event with its recipients, the delete/first_message_id events of a move, and Notification Bot's notices. */
async function notifyEdit(svc: Services, tx: Tx, user: UserRow, input: EditInput, plan: EditPlan, written: EditWrite): Promise<EditResult> {
  const { m, emptyName, stream, newTopic, newStream, targetAccess, resolved, unresolved, target, moving, now, content, rendered, dir, access, movedIds } = plan;
  const { rows, losingAccess, deleteEvent, firstIdUpdates, targetHadMessages, attachments } = written;
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
  if (newStream) Object.assign(event, { propagate_mode: input.propagateMode, orig_subject: m.topic, new_stream_id: newStream.id });
  if (newTopic !== undefined) {
    Object.assign(event, { propagate_mode: input.propagateMode, orig_subject: m.topic, subject: newTopic, topic_links: topicLinks(newTopic, dir.linkifiers) });
  }
  const recipients = rows.map((r) => ({ id: r.user_id, extra: { flags: flagList(r.flags) } }));
  if (stream && target && (!stream.invite_only || stream.history_public_to_subscribers)) {
    // Subscribers of the channel the messages are now in and, after a
    // channel move, those of the old one (not those losing access, nor
    // guests only subscribed to the new channel).
    const holders = new Set(rows.map((r) => r.user_id));
    const targetSubs = await subscriberIds(tx, target.id);
    const ids = new Set(targetSubs);
    if (newStream) {
      const oldSubs = await subscriberIds(tx, stream.id);
      const oldSet = new Set(oldSubs);
      for (const u of await usersByIds(tx, svc.realmId, targetSubs)) if (u.role === ROLE.GUEST && !oldSet.has(u.id)) ids.delete(u.id);
      for (const id of oldSubs) ids.add(id);
    }
    for (const uid of [...ids].sort((x, y) => x - y)) {
      if (!holders.has(uid) && !losingAccess.has(uid)) recipients.push({ id: uid, extra: { flags: ['read'] } });
    }
  }

  // Whether the whole topic moved, as far as the acting user can see it.
  const visible = async (acc: StreamAccess, ids: number[]): Promise<number[]> => {
    if (canReadFullHistory(acc)) return ids;
    const mine = await idsWithUserRows(tx, user.id, ids);
    return ids.filter((id) => mine.has(id));
  };
  const movedSet = new Set(movedIds);
  const movedAll =
    moving && !!stream && !!access && (input.propagateMode === 'change_all' || (await visible(access, await topicMessageIds(tx, stream.id, m.topic))).filter((id) => !movedSet.has(id)).length === 0);

  // Personal topic policies follow a whole topic to its new place.
  const otherEvents: TopicPolicyEvent[] = [];
  if (movedAll && stream && target) {
    otherEvents.push(
      ...(await moveTopicPolicies(tx, {
        origStreamId: stream.id,
        origTopic: m.topic,
        targetStreamId: target.id,
        targetTopic: newTopic ?? m.topic,
        targetHadMessages,
        losingAccess,
        now,
        emptyName,
      })),
    );
  }

  // Notification Bot notices for topic changes (not with a content edit, as Zulip).
  const notices: Notice[] = [];
  if (moving && stream && target && access && content === undefined) {
    const mention = silentMention(user);
    const targetTopic = newTopic ?? m.topic;
    if ((resolved || unresolved) && !newStream) {
      notices.push({ stream, topic: targetTopic, content: `${mention} has marked this topic as ${resolved ? 'resolved' : 'unresolved'}.` });
    }
    const n = movedIds.length;
    const newLocation = topicLinkSyntax(target, targetTopic);
    const oldLocation = topicLinkSyntax(stream, m.topic);
    if (input.sendNotificationToNewThread && (newStream || (!resolved && !unresolved))) {
      const preexisting = (await visible(targetAccess ?? access, await topicMessageIds(tx, target.id, targetTopic))).filter((id) => !movedSet.has(id));
      let text: string;
      if (preexisting.length === 0 && movedAll) text = `This topic was moved here from ${oldLocation} by ${mention}.`;
      else if (n === 1) text = `[A message](${channelMessageUrl(svc.config.externalUrl, target, targetTopic, m.id)}) was moved here from ${oldLocation} by ${mention}.`;
      else text = `${n} messages were moved here from ${oldLocation} by ${mention}.`;
      notices.push({ stream: target, topic: targetTopic, content: text });
    }
    if (input.sendNotificationToOldThread) {
      let text: string;
      if (movedAll) text = `This topic was moved to ${newLocation} by ${mention}.`;
      else if (n === 1) text = `A message was moved from this topic to ${newLocation} by ${mention}.`;
      else text = `${n} messages were moved from this topic to ${newLocation} by ${mention}.`;
      notices.push({ stream, topic: m.topic, content: text });
    }
  }
  return {
    event,
    meta: { emptyTopicName: emptyName },
    recipients,
    notices,
    deleteEvent,
    firstIdUpdates,
    otherEvents,
    detachedUploads: attachments.detached,
    notifyAttachments: attachments.notify,
  };
}

/** Zulip's move_messages_between_streams_limit_seconds (null: no limit). */
function betweenLimit(settings: Record<string, unknown>): unknown {
  return settings.move_messages_between_streams_limit_seconds === undefined ? DEFAULT_MOVE_BETWEEN_LIMIT : settings.move_messages_between_streams_limit_seconds;
}

function stripResolved(topic: string): string {
  let t = topic;
  while (t.startsWith(RESOLVED_TOPIC_PREFIX[0]!) || t.startsWith(' ')) t = t.slice(1);
  return t;
}

// ---------------------------------------------------------------------------
// GET /messages/{message_id}/history

/** Zulip's message_history: the versions of a message, oldest first. */
export async function messageHistory(svc: Services, user: UserRow, messageId: number): Promise<Array<Record<string, unknown>>> {
  const db = svc.store.db;
  const realm = await realmById(db, svc.realmId);
  const policy = String(realmSettings(realm.settings_json).message_edit_history_visibility_policy);
  if (policy === 'none') throw badRequest('Message edit history is disabled in this organization');
  const a = await accessMessage(svc, db, user, messageId);
  if (!a) throw invalidMessage();
  const m = a.row;
  // With 'moves', content changes are hidden: every version shows the current content.
  const raw = visibleEditHistory(policy, parseEditHistory(m.edit_history_json));
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
